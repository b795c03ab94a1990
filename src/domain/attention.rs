//! The attention queue: everything that waits for a human, oldest first.

use std::collections::BTreeSet;

use jiff::{SignedDuration, Timestamp};

use super::history::History;
use super::join::{self, same_node};
use super::lockmsg;
use super::objects::{
    Kind, LockState, MigrationMode, Notable, Object, ObjectKey, Snapshot, WorkloadLock,
};
use super::phase::Phase;
use super::progress::human_duration;
use super::reminders::Reminder;

mod blockers;
pub mod causes;
pub mod held_locks;
mod migrations;
mod plan_items;
mod reminders;
mod stalls;
mod stuck_requests;
mod vrouter_pods;
pub mod waits;

use migrations::migrations;
use vrouter_pods::vrouter_outdated;

use crate::domain::action::ActionId;
use crate::domain::expected::Expected;
pub use blockers::{DISABLED_MEANS, for_machine as blockers_for_machine};
pub use causes::{Symptom, is_symptom};
pub use waits::Waits;

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
    /// Live migration keeps failing for servers on the node (the controller
    /// starts them again at each retry), or it does not start them.
    MigrationFailing,
    /// MOSK 25.1: the lock lists servers whose owners must be notified
    /// (tagged `notify`), on a node whose mode is not `manual`.
    NotifyOwners,
    /// Servers the OpenStack controller lists and does not start, with no
    /// status to tell why (migrating since before the console saw the node,
    /// or not ACTIVE or PAUSED).
    ServersLeft,
    /// A node's migration mode or attempts are values the OpenStack
    /// controller cannot read: it fails on the node without a message.
    MigrationSettingsInvalid,
    /// A maintenance request stays in deletion: a controller cannot bring
    /// its node (or the cluster) back, and the update waits.
    RequestStuckDeleting,
    /// A workload lock is `failed`.
    LockFailed,
    /// A workload lock is still `active` while the update waits on it: a
    /// node lock in its node's turn, a cluster lock during the update.
    LockHeld,
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
            AttentionKind::MigrationFailing => "migration failing",
            AttentionKind::MigrationSettingsInvalid => "invalid migration settings",
            AttentionKind::ServersLeft => "servers left",
            AttentionKind::RequestStuckDeleting => "request stuck in deletion",
            AttentionKind::NotifyOwners => "notify owners",
            AttentionKind::LockFailed => "lock failed",
            AttentionKind::LockHeld => "waiting on lock",
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
    /// `since` is a lower bound: the condition began before the console
    /// could see it (show the age as "≥ N").
    pub at_least: bool,
    /// `since` is inferred, not read from an object nor seen: how (show the
    /// age as "~N" and say how in the item's text). `None`: exact or a
    /// lower bound.
    pub since_inferred: Option<&'static str>,
    /// The operator action the item offers (acknowledge a migration,
    /// restart a vRouter pod, commence a step). A reminder offers none: the
    /// dismiss key applies to every reminder.
    pub action: Option<ActionId>,
    /// The object the item is about.
    pub key: ObjectKey,
    /// Symptoms of the same wait folded under this item (LCM's drain
    /// retries, the stall): see [`causes`].
    pub symptoms: Vec<Symptom>,
    /// The last computation did not raise the item, but nothing says its
    /// cause is gone: it is held ([`waits::HOLD`]) and this is when it was
    /// last raised. `None` while it is raised.
    pub unraised_since: Option<Timestamp>,
}

impl AttentionItem {
    /// What the item is about, kept while the evidence changes its kind:
    /// its cause ([`AttentionKind::cause`]) and its node, or the object when
    /// no node applies. The cursor, the held items ([`Waits`]) and the
    /// session report follow an item by it.
    pub fn id(&self) -> String {
        let key = &self.key;
        match (self.kind.cause(), &self.node) {
            (Cause::OfNode(cause), Some(node)) => format!("{cause}@{node}"),
            (Cause::OfNode(cause) | Cause::OfObject(cause), _) => {
                format!("{cause}@{:?}/{}/{}", key.kind, key.namespace, key.name)
            }
            (Cause::Own, _) => format!(
                "{:?}/{}@{:?}/{}/{}",
                self.kind, self.subject, key.kind, key.namespace, key.name
            ),
        }
    }
}

/// How an item's kind names its cause, for [`AttentionItem::id`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// A cause of a node, one item per node whatever its current reading.
    OfNode(&'static str),
    /// A cause of one object (a lock, a request, a DaemonSet).
    OfObject(&'static str),
    /// Its own cause: the kind, subject and object together.
    Own,
}

impl AttentionKind {
    /// The cause this kind is one reading of. The servers on a node in its
    /// turn are read as a manual migration, a failing one, servers left or
    /// owners to notify as the controller's message cycles; a lock is held,
    /// then failed; a symptom standing alone changes as LCM retries.
    pub fn cause(self) -> Cause {
        use AttentionKind::*;
        match self {
            ManualMigration | MigrationFailing | NotifyOwners | ServersLeft => {
                Cause::OfNode("servers")
            }
            MigrationSettingsInvalid => Cause::OfNode("migration-settings"),
            Stall | ClusterStateRetrying | OperationStuck => Cause::OfNode("symptoms"),
            DrainError => Cause::OfNode("drain"),
            NodeRemoval => Cause::OfNode("removal"),
            MachineDisabled => Cause::OfNode("disabled"),
            LockHeld | LockFailed => Cause::OfObject("lock"),
            RequestStuckDeleting => Cause::OfObject("request"),
            VrouterOutdated | VrouterStillOutdated => Cause::OfObject("vrouter"),
            AutoPaused | StepOverEstimate | WaitingForCommence | Malformed | Reminder(_) => {
                Cause::Own
            }
        }
    }
}

/// The subject name for a node: its machine's name when known (the first
/// by key of the machines on it).
fn machine_for_node(snap: &Snapshot, node: &str) -> Option<String> {
    snap.on_node(node).find_map(|o| match o {
        Object::Machine(m) if m.hostname.as_deref().is_some_and(|h| same_node(h, node)) => {
            Some(m.name.clone())
        }
        _ => None,
    })
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
    expected: &Expected,
) -> Vec<AttentionItem> {
    queue_in_phase(snap, history, now, dismissed, expected, None)
}

/// [`queue`], given the phase of the same snapshot and history when the
/// caller computed it already (the settling does, once per change).
pub fn queue_in_phase(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    dismissed: &BTreeSet<Reminder>,
    expected: &Expected,
    phase: Option<Phase>,
) -> Vec<AttentionItem> {
    let mut items = attention_with(snap, history, now, expected);
    reminders::reminders(snap, history, now, phase, &mut items);
    items.retain(|i| !matches!(i.kind, AttentionKind::Reminder(r) if dismissed.contains(&r)));
    sort(&mut items);
    items
}

/// As the queue's title says: the waits oldest first (by the first
/// evidence of each cause), then the update guide's reminders oldest first;
/// an auto-paused update before everything (it stops every step).
pub(crate) fn sort(items: &mut [AttentionItem]) {
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
/// first; an auto-paused update goes first whatever its age. With the
/// default [`Expected`] durations.
pub fn attention(snap: &Snapshot, history: &History, now: Timestamp) -> Vec<AttentionItem> {
    attention_with(snap, history, now, &Expected::default())
}

/// [`attention`] with the expected durations of the config file: one item
/// per cause per node, its symptoms folded under it ([`causes`]).
pub fn attention_with(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    expected: &Expected,
) -> Vec<AttentionItem> {
    let mut items = Vec::new();
    plan_items::update_plan(snap, history, now, &mut items);
    blockers::blockers(snap, history, now, &mut items);
    migrations(snap, history, now, &mut items);
    failed_locks(snap, history, now, &mut items);
    held_locks::held_locks(snap, history, now, expected, &mut items);
    stuck_requests::stuck_requests(snap, history, now, expected, &mut items);
    retrying_states(snap, history, now, &mut items);
    stalls::stalls(snap, history, now, expected, &mut items);
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
            at_least: false,
            since_inferred: None,
            symptoms: Vec::new(),
            unraised_since: None,
        });
    }
    let mut items = causes::fold(items);
    sort(&mut items);
    items
}

fn failed_locks(snap: &Snapshot, history: &History, now: Timestamp, out: &mut Vec<AttentionItem>) {
    // As the snapshot flagged them, the nodes' locks first.
    let failed = |kind: Kind| {
        snap.notable(Notable::LockFailed)
            .filter(move |o| o.kind() == kind)
            .filter_map(|o| match o {
                Object::NodeWorkloadLock(l) | Object::ClusterWorkloadLock(l) => Some(&**l),
                _ => None,
            })
    };
    for lock in failed(Kind::NodeWorkloadLock).chain(failed(Kind::ClusterWorkloadLock)) {
        if lock.state != LockState::Failed {
            continue;
        }
        let key = lock_key(lock);
        let msg = lock.error_message.as_ref().map(|m| m.parsed());
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
            at_least: history.lock_since(&key).is_some_and(|s| !s.observed),
            since_inferred: None,
            action: None,
            key,
            symptoms: Vec::new(),
            unraised_since: None,
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
        let key = ObjectKey::new(Kind::LcmClusterState, &s.namespace, &s.name);
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
            at_least: false,
            since_inferred: None,
            symptoms: Vec::new(),
            unraised_since: None,
        });
    }
}

#[cfg(test)]
mod tests;
