//! The attention queue: everything that waits for a human, oldest first.

use std::collections::BTreeSet;

use jiff::{SignedDuration, Timestamp};

use super::history::{History, READY};
use super::join::{self, same_node};
use super::lockmsg::{self, MessageKind, ServersFormat, server_groups};
use super::objects::{
    Kind, LockState, MachineType, MigrationMode, Object, ObjectKey, Snapshot, WorkloadLock,
};
use super::progress::human_duration;
use super::reminders::Reminder;
use super::vrouter;

mod blockers;
mod reminders;
mod update_plan;

pub use blockers::{DISABLED_MEANS, for_machine as blockers_for_machine};
pub use reminders::DISMISS_REMINDER;
pub use update_plan::COMMENCE_STEP;

/// Action id: show the servers and set the node's migration mode to `skip`.
pub const ACKNOWLEDGE_MIGRATION: &str = "acknowledge-migration";
/// Action id: restart the outdated vRouter pods one by one.
pub const RESTART_VROUTER: &str = "restart-vrouter";

/// How many servers of each list an item's sentence names (the detail panel
/// names them all).
pub const LISTED_SERVERS: usize = 3;

/// How long after the update outdated vRouter pods may remain on a release
/// that restarts them automatically (MOSK 22.4+) before they need a human.
/// [I] The reference gives no duration for the automatic restart; 30 minutes
/// leaves room for it to go node by node on a mid-size cluster.
pub const VROUTER_AUTO_RESTART_GRACE: SignedDuration = SignedDuration::from_mins(30);

/// A cluster state with an error is worth a look from this attempt on.
pub const ATTEMPT_THRESHOLD: i64 = 3;
/// A machine stalls when its time in a state exceeds this many times the
/// median of the machines that went through that state …
pub const STALL_FACTOR: i32 = 3;
/// … and this absolute minimum (short states are noisy).
pub const STALL_MIN: SignedDuration = SignedDuration::from_mins(10);

/// Why an item needs a human.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AttentionKind {
    /// Migration mode `manual` and the OpenStack lock says servers are still
    /// on the node: the operator migrates them, then acknowledges.
    ManualMigration,
    /// Migration mode `live` and servers are still present after the attempts.
    MigrationGaveUp,
    /// MOSK 25.1: the lock lists servers whose owners must be notified
    /// (tagged `notify`), on a node whose mode is not `manual`.
    NotifyOwners,
    /// A workload lock is `failed`.
    LockFailed,
    /// A cluster state keeps retrying with an error.
    ClusterStateRetrying,
    /// A machine has been in one state far longer than its peers.
    Stall,
    /// The update is over and vRouter pods still run the old template, on a
    /// release whose vRouter pods are restarted by hand (before MOSK 22.4) or
    /// whose MOSK version is unknown.
    VrouterOutdated,
    /// MOSK 22.4+: outdated vRouter pods remain a grace period after the
    /// update, although the automatic restart should have replaced them.
    VrouterStillOutdated,
    /// An object could not be read.
    Malformed,
    /// The update plan was paused by StackLight alerts (always first).
    AutoPaused,
    /// A running update-plan step is past its estimate.
    StepOverEstimate,
    /// The update is paused before an update-plan step: it waits for `commence`.
    WaitingForCommence,
    /// A NodeDeletionRequest: the node is being removed.
    NodeRemoval,
    /// The machine is disabled (Machine `disable`, NodeDisableNotification).
    MachineDisabled,
    /// LCMMachine `status.lcmOperationStuck`.
    OperationStuck,
    /// LCMMachine `status.kubernetesCordonDrainError`.
    DrainError,
    /// A reminder of the update guide (dismissable).
    Reminder(Reminder),
}

impl AttentionKind {
    pub fn label(self) -> &'static str {
        match self {
            AttentionKind::ManualMigration => "manual migration",
            AttentionKind::MigrationGaveUp => "migration gave up",
            AttentionKind::NotifyOwners => "notify owners",
            AttentionKind::LockFailed => "lock failed",
            AttentionKind::ClusterStateRetrying => "retrying",
            AttentionKind::Stall => "stalled",
            AttentionKind::VrouterOutdated => "vRouter outdated",
            AttentionKind::VrouterStillOutdated => "vRouter pods still outdated",
            AttentionKind::Malformed => "malformed",
            AttentionKind::AutoPaused => "update auto-paused",
            AttentionKind::StepOverEstimate => "step over estimate",
            AttentionKind::WaitingForCommence => "waiting for commence",
            AttentionKind::NodeRemoval => "node being removed",
            AttentionKind::MachineDisabled => "machine disabled",
            AttentionKind::OperationStuck => "LCM operation stuck",
            AttentionKind::DrainError => "drain error",
            AttentionKind::Reminder(_) => "reminder",
        }
    }
}

/// One thing waiting for a human.
#[derive(Debug, Clone, PartialEq)]
pub struct AttentionItem {
    pub kind: AttentionKind,
    /// The machine name (or the node, lock, DaemonSet or object name when
    /// no machine applies).
    pub subject: String,
    /// The node concerned, when there is one.
    pub node: Option<String>,
    /// One sentence, quoting the lock or state message.
    pub why: String,
    /// Since when: the history's first sight of the condition, else the
    /// message timestamp, else `now`.
    pub since: Timestamp,
    /// The action the console offers, e.g. [`ACKNOWLEDGE_MIGRATION`].
    pub action: Option<&'static str>,
    /// The object the item is about.
    pub key: ObjectKey,
}

/// The subject name for a node: its machine's name when known.
fn machine_for_node(snap: &Snapshot, node: &str) -> Option<String> {
    snap.machines()
        .find(|m| m.hostname.as_deref().is_some_and(|h| same_node(h, node)))
        .map(|m| m.name.clone())
}

fn lock_key(lock: &WorkloadLock) -> ObjectKey {
    ObjectKey {
        kind: if lock.node_name.is_some() {
            Kind::NodeWorkloadLock
        } else {
            Kind::ClusterWorkloadLock
        },
        namespace: String::new(),
        name: lock.name.clone(),
    }
}

fn quote(s: &str) -> String {
    format!("\u{201c}{}\u{201d}", s.trim())
}

/// The attention queue the console shows: [`attention`], then the update
/// guide's reminders that were not dismissed.
pub fn queue(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    dismissed: &BTreeSet<Reminder>,
) -> Vec<AttentionItem> {
    let mut items = attention(snap, history, now);
    reminders::reminders(snap, history, now, &mut items);
    items.retain(|i| !matches!(i.kind, AttentionKind::Reminder(r) if dismissed.contains(&r)));
    sort(&mut items);
    items
}

/// Oldest first; an auto-paused update goes first whatever its age, and
/// the reminders after everything that needs a human to act.
fn sort(items: &mut [AttentionItem]) {
    let rank = |i: &AttentionItem| match i.kind {
        AttentionKind::AutoPaused => 0,
        AttentionKind::Reminder(_) => 2,
        _ => 1,
    };
    items.sort_by(|a, b| {
        (rank(a), a.since, a.kind, &a.subject).cmp(&(rank(b), b.since, b.kind, &b.subject))
    });
}

/// Everything that waits for a human (without the reminders), oldest
/// first; an auto-paused update goes first whatever its age.
pub fn attention(snap: &Snapshot, history: &History, now: Timestamp) -> Vec<AttentionItem> {
    let mut items = Vec::new();
    update_plan::update_plan(snap, history, now, &mut items);
    blockers::blockers(snap, history, now, &mut items);
    migrations(snap, history, now, &mut items);
    failed_locks(snap, history, now, &mut items);
    retrying_states(snap, history, now, &mut items);
    stalls(snap, history, now, &mut items);
    vrouter_outdated(snap, history, now, &mut items);
    for m in snap.malformed() {
        let key = ObjectKey {
            kind: m.kind,
            namespace: m.namespace.clone(),
            name: m.name.clone(),
        };
        items.push(AttentionItem {
            kind: AttentionKind::Malformed,
            subject: m.name.clone(),
            node: None,
            why: format!(
                "{} {} could not be read: {}",
                m.kind.api_kind(),
                m.name,
                m.error
            ),
            since: history.first_seen(&key).unwrap_or(now),
            action: None,
            key,
        });
    }
    sort(&mut items);
    items
}

fn migrations(snap: &Snapshot, history: &History, now: Timestamp, out: &mut Vec<AttentionItem>) {
    for lock in snap.node_locks() {
        if lock.controller != "openstack" || lock.state == LockState::Inactive {
            continue;
        }
        let Some(node) = lock.node_name.as_deref() else {
            continue;
        };
        let Some(msg) = lock.error_message.as_deref().map(lockmsg::parse) else {
            continue;
        };
        let MessageKind::ServersPresent(present) = &msg.kind else {
            continue;
        };
        let node_obj = snap.nodes().find(|n| same_node(&n.name, node));
        let mode = node_obj
            .and_then(|n| n.migration_mode.clone())
            .unwrap_or(MigrationMode::Live);
        let n = present.servers.len();
        let servers = if n == 0 {
            "servers are".to_string()
        } else if n == 1 {
            "1 server is".to_string()
        } else {
            format!("{n} servers are")
        };
        let attempts = || {
            node_obj
                .and_then(|n| n.migration_attempts.clone())
                .unwrap_or_else(|| join::DEFAULT_MIGRATION_ATTEMPTS.to_string())
        };
        let lock_says = quote(&msg.text);
        let (kind, why, action) = if present.format == ServersFormat::New {
            // MOSK 25.1: tell the lists apart (reference §4.4, E-LEFT).
            let lists = server_groups(&msg.kind)
                .iter()
                .map(|g| g.line_max(LISTED_SERVERS))
                .collect::<Vec<_>>()
                .join("; ");
            let notify = !present.notify.is_empty();
            match mode {
                MigrationMode::Manual => (
                    AttentionKind::ManualMigration,
                    format!(
                        "migration mode manual: {servers} still on the node: {lists}; tell the owners, migrate the servers, then acknowledge. Lock says {lock_says}"
                    ),
                    Some(ACKNOWLEDGE_MIGRATION),
                ),
                MigrationMode::Skip => (
                    if notify {
                        AttentionKind::NotifyOwners
                    } else {
                        AttentionKind::MigrationGaveUp
                    },
                    format!(
                        "migration mode skip, yet {servers} still blocking the node: {lists}; their tags keep them (notify, live_migrate): migrate, stop or shelve them. Lock says {lock_says}"
                    ),
                    None,
                ),
                MigrationMode::Live | MigrationMode::Other(_) if notify => (
                    AttentionKind::NotifyOwners,
                    format!(
                        "{servers} still on the node: {lists}; tell the owners, migrate, stop or shelve the servers, then acknowledge. Lock says {lock_says}"
                    ),
                    Some(ACKNOWLEDGE_MIGRATION),
                ),
                MigrationMode::Live | MigrationMode::Other(_) => (
                    AttentionKind::MigrationGaveUp,
                    format!(
                        "live migration gave up after {} attempts per server: {servers} still on the node: {lists}; migrate by hand, then acknowledge. Lock says {lock_says}",
                        attempts()
                    ),
                    Some(ACKNOWLEDGE_MIGRATION),
                ),
            }
        } else {
            match mode {
                MigrationMode::Manual => (
                    AttentionKind::ManualMigration,
                    format!(
                        "migration mode manual: {servers} still on the node; migrate them, then acknowledge. Lock says {lock_says}"
                    ),
                    Some(ACKNOWLEDGE_MIGRATION),
                ),
                MigrationMode::Live => (
                    AttentionKind::MigrationGaveUp,
                    format!(
                        "live migration gave up after {} attempts per server: {servers} still on the node; migrate by hand, then acknowledge. Lock says {lock_says}",
                        attempts()
                    ),
                    Some(ACKNOWLEDGE_MIGRATION),
                ),
                // Before MOSK 25.1, skip returned at once without looking at
                // the servers: this message should not stay [C-code, §4.3].
                MigrationMode::Skip | MigrationMode::Other(_) => (
                    AttentionKind::ManualMigration,
                    format!(
                        "migration mode {}: {servers} still blocking the node; the controller has not acted on the mode yet. Lock says {lock_says}",
                        mode.as_str()
                    ),
                    None,
                ),
            }
        };
        let key = lock_key(lock);
        out.push(AttentionItem {
            kind,
            subject: machine_for_node(snap, node).unwrap_or_else(|| node.to_string()),
            node: Some(node.to_string()),
            why,
            since: history.message_since(&key).or(msg.at).unwrap_or(now),
            action,
            key,
        });
    }
}

fn failed_locks(snap: &Snapshot, history: &History, now: Timestamp, out: &mut Vec<AttentionItem>) {
    for lock in snap.node_locks().chain(snap.cluster_locks()) {
        if lock.state != LockState::Failed {
            continue;
        }
        let key = lock_key(lock);
        let msg = lock.error_message.as_deref().map(lockmsg::parse);
        let why = match &msg {
            Some(m) if !m.text.is_empty() => format!(
                "lock {} ({}) failed: {}",
                lock.name,
                lock.controller,
                quote(&m.text)
            ),
            _ => format!(
                "lock {} ({}) failed without a message",
                lock.name, lock.controller
            ),
        };
        let node = lock.node_name.clone();
        out.push(AttentionItem {
            kind: AttentionKind::LockFailed,
            subject: node
                .as_deref()
                .and_then(|n| machine_for_node(snap, n))
                .or_else(|| node.clone())
                .unwrap_or_else(|| lock.name.clone()),
            node,
            why,
            since: history
                .lock_state_since(&key)
                .or(msg.and_then(|m| m.at))
                .unwrap_or(now),
            action: None,
            key,
        });
    }
}

fn retrying_states(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    out: &mut Vec<AttentionItem>,
) {
    for s in snap.cluster_states() {
        let Some(message) = s.message.as_deref().filter(|m| !m.trim().is_empty()) else {
            continue;
        };
        let attempt = s.attempt.unwrap_or(0);
        if attempt < ATTEMPT_THRESHOLD || !join::pending(s) {
            continue;
        }
        let key = Object::ClusterState(s.clone()).key();
        let node = s.arg.as_deref().and_then(|a| {
            snap.machines()
                .find(|m| m.name == a)
                .and_then(|m| m.hostname.clone())
        });
        out.push(AttentionItem {
            kind: AttentionKind::ClusterStateRetrying,
            subject: s.arg.clone().unwrap_or_else(|| s.name.clone()),
            node,
            why: format!("{} at attempt {attempt}: {}", s.state_type, quote(message)),
            since: history.message_since(&key).unwrap_or(now),
            action: None,
            key,
        });
    }
}

fn stalls(snap: &Snapshot, history: &History, now: Timestamp, out: &mut Vec<AttentionItem>) {
    for m in snap.machines() {
        if m.state == READY || !matches!(m.machine_type, MachineType::Control | MachineType::Worker)
        {
            continue;
        }
        let under_request = m.hostname.as_deref().is_some_and(|h| {
            snap.node_requests()
                .any(|r| same_node(&r.node_name, h) || same_node(&r.name, h))
        });
        // Workers wait in Prepare for their turn [I]: only a machine whose
        // turn has come (a maintenance request exists) can stall there.
        if m.state == "Prepare" && !under_request {
            continue;
        }
        let (Some(since), Some(median)) = (
            history.machine_state_since(&m.name),
            history.median_state_duration(&m.state),
        ) else {
            continue;
        };
        let spent = now.duration_since(since);
        if spent <= median * STALL_FACTOR || spent <= STALL_MIN {
            continue;
        }
        out.push(AttentionItem {
            kind: AttentionKind::Stall,
            subject: m.name.clone(),
            node: m.hostname.clone(),
            why: format!(
                "in {} for {}, more than {STALL_FACTOR}x the median {} of {} machine(s) before it",
                m.state,
                human_duration(spent),
                human_duration(median),
                history.state_samples(&m.state)
            ),
            since,
            action: None,
            key: Object::Machine(m.clone()).key(),
        });
    }
}

fn vrouter_outdated(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    out: &mut Vec<AttentionItem>,
) {
    let finished = snap.cluster_requests().next().is_none()
        && snap
            .machines()
            .filter(|m| matches!(m.machine_type, MachineType::Control | MachineType::Worker))
            .all(|m| m.state == READY);
    if !finished {
        return;
    }
    let policy = vrouter::restart_policy(snap);
    for ds in vrouter::daemonsets(snap) {
        if ds.up_to_date() {
            continue;
        }
        let old = ds
            .outdated_count()
            .max((ds.current - ds.updated).max(0) as usize);
        let key = ObjectKey {
            kind: Kind::VrouterDaemonSet,
            namespace: ds.namespace.clone(),
            name: ds.name.clone(),
        };
        let since = history
            .update_finished()
            .or(history.first_seen(&key))
            .unwrap_or(now);
        let counts = format!(
            "{old} vRouter pod(s) run the old template (UP-TO-DATE {} of CURRENT {})",
            ds.updated, ds.current
        );
        let (kind, why) = match &policy {
            vrouter::RestartPolicy::Manual(v) => (
                AttentionKind::VrouterOutdated,
                format!(
                    "the update is over but {counts}; MOSK {v} restarts vRouter pods by hand (automatic since {}): restart them one node at a time",
                    vrouter::AUTOMATIC_SINCE
                ),
            ),
            vrouter::RestartPolicy::Unknown(release) => (
                AttentionKind::VrouterOutdated,
                format!(
                    "the update is over but {counts}; the MOSK version of {} is unknown: check whether your release restarts vRouter automatically ({}+), else restart them one node at a time",
                    release
                        .as_deref()
                        .map_or("the target release".to_string(), quote),
                    vrouter::AUTOMATIC_SINCE
                ),
            ),
            vrouter::RestartPolicy::Automatic(v) => {
                let waited = now.duration_since(since);
                if waited < VROUTER_AUTO_RESTART_GRACE {
                    continue;
                }
                (
                    AttentionKind::VrouterStillOutdated,
                    format!(
                        "{} after the update {counts}; the automatic restart (MOSK {v}, {}+) should have replaced them [I: {} grace]: restart them one node at a time",
                        human_duration(waited),
                        vrouter::AUTOMATIC_SINCE,
                        human_duration(VROUTER_AUTO_RESTART_GRACE)
                    ),
                )
            }
        };
        out.push(AttentionItem {
            kind,
            subject: ds.name.clone(),
            node: None,
            why,
            since,
            action: Some(RESTART_VROUTER),
            key,
        });
    }
}

#[cfg(test)]
mod tests;
