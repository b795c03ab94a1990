//! The servers on a node in its turn, as the OpenStack controller (Rockoon)
//! handles them, and what the operator may do about them.
//!
//! Ported from github:Mirantis/rockoon at commit 1390883a:
//! - `Nova._migrate_servers` (`rockoon/services/__init__.py`): the loop
//!   starts live migrations of the *candidates* until none is left, then
//!   `_check_migration_completed` lists every server still on the host and
//!   raises a retry; each retry runs the loop again with fresh attempt
//!   counters. What that means for the message sequence is in
//!   [`crate::domain::history::NodeServers`].
//! - `compute_get_servers_valid_for_live_migration`
//!   (`rockoon/openstack_utils.py`): candidates are ACTIVE or PAUSED, not
//!   `task_state` `migrating`, and their action is `live_migrate`.
//! - `compute_get_server_maintenance_action` (same file) and
//!   `NODE_MAINTENANCE_TO_INSTANCE_MAINTENANCE` (`rockoon/maintenance.py`):
//!   exactly one `openstack.lcm.mirantis.com:maintenance_action` tag wins;
//!   otherwise the node's mode decides (`skip` → poweroff, `manual` →
//!   notify, `live` → live_migrate). So acknowledging (mode `skip`) frees
//!   only servers *without* a tag: those tagged `notify` or `live_migrate`
//!   keep blocking the node.
//! - `NodeMaintenanceConfig` (`rockoon/maintenance.py`): the mode is read as
//!   any string and the attempts with `int()`; an unknown mode raises
//!   `KeyError` as soon as an untagged server is looked at, attempts that are
//!   not an integer raise at once — either way the handler fails without
//!   writing a message, and the lock stays active with nothing on it.
//!
//! The 25.1 message (E-LEFT) gives no server status; the console tells a
//! running migration from a failed one by what it saw the controller do
//! (history). Before MOSK 25.1 the message carried each server's status
//! (E-LEFT-OLD, `{'<uuid>': 'MIGRATING'}`), which is taken as fact.

use jiff::Timestamp;

use super::history::{History, ServerTrack};
use super::join::same_node;
use super::lockmsg::{MessageKind, ServerGroupKind, ServersFormat, server_groups};
use super::objects::{
    Controller, Kind, LockState, MigrationMode, Node, ObjectKey, Snapshot, WorkloadLock,
};
use super::progress::human_duration;

/// How many completion checks must list a server that the controller never
/// started before the console says the controller is not starting it: one
/// check can follow a start the console missed (it came later), two are
/// two handler runs.
pub const CHECKS_WITHOUT_START: u32 = 2;

/// What the console knows of one server left on the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerProgress {
    /// Being live-migrated: the old message said MIGRATING, or the
    /// controller named it among its migrating servers, or it started its
    /// migration and has not started it again since (a server is not
    /// started again while MIGRATING).
    Migrating { since: Option<Timestamp> },
    /// The controller started its migration more than once (each start
    /// after the first means the one before failed and the server is back
    /// on the node), or the start itself failed.
    Failing {
        starts: u32,
        errors: u32,
        last_error: Option<String>,
        since: Option<Timestamp>,
    },
    /// Completion checks list it and the controller does not start it: it is
    /// not ACTIVE or PAUSED (e.g. ERROR), or still migrating since before
    /// the console saw the node. `status` when the old message gave one.
    NotStarted {
        checks: u32,
        status: Option<String>,
        since: Option<Timestamp>,
    },
    /// Its action is not live migration (it waits for its owners or the
    /// operator: tagged `notify`, or the node is in `manual` mode).
    WaitsForOperator,
    /// Not enough seen yet to tell (the console came mid-way).
    Unknown,
}

impl ServerProgress {
    /// A migration may be running now: acknowledging would let the node
    /// reboot under it.
    pub fn may_be_migrating(&self) -> bool {
        matches!(
            self,
            ServerProgress::Migrating { .. }
                | ServerProgress::Unknown
                | ServerProgress::NotStarted { status: None, .. }
        )
    }

    pub fn describe(&self, now: Timestamp) -> String {
        let ago = |t: &Option<Timestamp>| {
            t.map(|t| format!(" ({} ago)", human_duration(now.duration_since(t))))
                .unwrap_or_default()
        };
        match self {
            ServerProgress::Migrating { since: Some(t) } => format!(
                "live migration running for {}",
                human_duration(now.duration_since(*t))
            ),
            ServerProgress::Migrating { since: None } => "live migration running".to_string(),
            ServerProgress::Failing {
                starts,
                errors,
                last_error,
                since,
            } => {
                let mut s = if *starts > 1 {
                    format!("live migration started {starts} times, each came back")
                } else if *errors == 1 {
                    "live migration could not start".to_string()
                } else if *errors > 1 {
                    format!("live migration could not start ({errors} tries)")
                } else {
                    "status ACTIVE: the controller's last run spent its attempts on it".to_string()
                };
                if let Some(e) = last_error {
                    s.push_str(&format!(": {e}"));
                }
                s.push_str(&ago(since));
                s
            }
            ServerProgress::NotStarted { checks, status, .. } => match status {
                Some(st) => format!(
                    "status {st}: the controller does not start its migration ({checks} checks)"
                ),
                None => format!(
                    "the controller has not started its migration in {checks} checks: not ACTIVE or PAUSED (e.g. ERROR), or migrating since before the console saw it"
                ),
            },
            ServerProgress::WaitsForOperator => "waits for the operator".to_string(),
            ServerProgress::Unknown => "not seen long enough to tell".to_string(),
        }
    }
}

/// One server the node's OpenStack lock names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerState {
    pub id: String,
    /// The list the message puts it in.
    pub group: ServerGroupKind,
    pub progress: ServerProgress,
}

/// The servers on a node in its turn, by the OpenStack lock's last
/// completion check and what the console saw since.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeMigration {
    pub node: String,
    pub lock: ObjectKey,
    /// The node's mode as the controller reads it (`live` when unset).
    pub mode: MigrationMode,
    pub format: ServersFormat,
    pub servers: Vec<ServerState>,
    /// The lock's message text (without its timestamp).
    pub message: String,
    pub message_at: Option<Timestamp>,
}

impl NodeMigration {
    /// Servers whose migration is known not to run: started again (the
    /// one before came back), refused, or in a status the controller does
    /// not migrate (the old message's status).
    pub fn failing(&self) -> impl Iterator<Item = &ServerState> {
        self.servers.iter().filter(|s| {
            matches!(
                s.progress,
                ServerProgress::Failing { .. }
                    | ServerProgress::NotStarted {
                        status: Some(_),
                        ..
                    }
            )
        })
    }
    /// Servers the controller lists and does not start, without a status to
    /// tell why: not ACTIVE or PAUSED, or migrating since before the console
    /// saw the node. Not called failing: that would be a guess.
    pub fn left(&self) -> impl Iterator<Item = &ServerState> {
        self.servers
            .iter()
            .filter(|s| matches!(s.progress, ServerProgress::NotStarted { status: None, .. }))
    }
    /// Servers whose owners must act (action `notify`).
    pub fn notify(&self) -> impl Iterator<Item = &ServerState> {
        self.servers
            .iter()
            .filter(|s| s.group == ServerGroupKind::NotifyOwners)
    }
}

/// The node's OpenStack node lock.
pub fn openstack_lock<'a>(snap: &'a Snapshot, node: &str) -> Option<&'a WorkloadLock> {
    snap.node_locks().find(|l| {
        l.controller == Controller::Openstack
            && l.node_name.as_deref().is_some_and(|n| same_node(n, node))
    })
}

fn lock_key(lock: &WorkloadLock) -> ObjectKey {
    ObjectKey {
        kind: Kind::NodeWorkloadLock,
        namespace: String::new(),
        name: lock.name.clone(),
    }
}

/// The servers on `lock`'s node, when the lock is not inactive and its last
/// completion check (the current message, or the last one the console saw
/// while the controller is between two runs of its loop) named servers.
pub fn node_migration(
    snap: &Snapshot,
    history: &History,
    lock: &WorkloadLock,
) -> Option<NodeMigration> {
    if lock.controller != Controller::Openstack || lock.state == LockState::Inactive {
        return None;
    }
    let node = lock.node_name.as_deref()?;
    let msg = lock.error_message.as_ref()?.parsed();
    // Only a message about the servers makes a migration: the history and
    // the Node are not looked up for a lock that says something else.
    if !msg.kind.is_about_servers() {
        return None;
    }
    let key = lock_key(lock);
    let seen = history.node_servers(&key);
    let mode = snap
        .node(node)
        .and_then(|n| n.migration_mode.clone())
        .unwrap_or(MigrationMode::Live);
    let statuses: Vec<(String, String)> = match &msg.kind {
        MessageKind::ServersPresent(p) => p.statuses.clone(),
        _ => Vec::new(),
    };
    let (format, listed): (ServersFormat, Vec<(String, ServerGroupKind)>) = match &msg.kind {
        MessageKind::ServersPresent(p) => (
            p.format,
            server_groups(&msg.kind)
                .into_iter()
                .flat_map(|g| g.servers.into_iter().map(move |s| (s, g.kind)))
                .collect(),
        ),
        // Inside the loop (a start, a wait, an error): the servers the last
        // completion check listed are still the node's, when one was seen.
        MessageKind::MigrationStarted { .. }
        | MessageKind::MigrationWaiting { .. }
        | MessageKind::MigrationError { .. } => {
            let seen = seen?;
            if seen.checks == 0 {
                return None;
            }
            let listed = seen
                .servers
                .iter()
                .filter(|(_, t)| t.first_listed.is_some())
                .map(|(id, _)| (id.clone(), ServerGroupKind::UnsetAction))
                .collect::<Vec<_>>();
            if listed.is_empty() {
                return None;
            }
            (ServersFormat::New, listed)
        }
        _ => return None,
    };
    let servers = listed
        .into_iter()
        .map(|(id, group)| {
            let track = seen.and_then(|s| s.servers.get(&id));
            let status = statuses
                .iter()
                .find(|(s, _)| *s == id)
                .map(|(_, st)| st.as_str());
            let progress = progress(group, track, status, &mode);
            ServerState {
                id,
                group,
                progress,
            }
        })
        .collect();
    Some(NodeMigration {
        node: node.to_string(),
        lock: key,
        mode,
        format,
        servers,
        message: msg.text.clone(),
        message_at: msg.at,
    })
}

fn progress(
    group: ServerGroupKind,
    track: Option<&ServerTrack>,
    status_now: Option<&str>,
    mode: &MigrationMode,
) -> ServerProgress {
    if group == ServerGroupKind::NotifyOwners {
        return ServerProgress::WaitsForOperator;
    }
    let status = status_now.or_else(|| track.and_then(|t| t.status.as_deref()));
    let first_start = track.and_then(|t| t.first_start);
    let first_listed = track.and_then(|t| t.first_listed);
    if status.is_some_and(|s| s.eq_ignore_ascii_case("MIGRATING")) {
        return ServerProgress::Migrating {
            since: track.and_then(|t| t.last_start),
        };
    }
    // Before 25.1 the message names every server left, whatever its action:
    // in manual mode the controller migrates none of them.
    if group == ServerGroupKind::StillPresent && *mode == MigrationMode::Manual {
        return ServerProgress::WaitsForOperator;
    }
    if let Some(st) = status {
        // The old message's status is the fact: the loop ended with the
        // server not migrating. ACTIVE or PAUSED (a candidate) means its
        // attempts of that run are spent; any other status keeps it from
        // being a candidate at all.
        return if st.eq_ignore_ascii_case("ACTIVE") || st.eq_ignore_ascii_case("PAUSED") {
            ServerProgress::Failing {
                starts: track.map_or(0, |t| t.starts),
                errors: track.map_or(0, |t| t.errors),
                last_error: track.and_then(|t| t.last_error.clone()),
                since: first_start.or(first_listed),
            }
        } else {
            ServerProgress::NotStarted {
                checks: track.map_or(1, |t| t.checks_since_start),
                status: Some(st.to_string()),
                since: first_listed,
            }
        };
    }
    let Some(t) = track else {
        return ServerProgress::Unknown;
    };
    if t.starts > 1 || (t.errors > 0 && t.migrating_seen.is_none()) {
        return ServerProgress::Failing {
            starts: t.starts,
            errors: t.errors,
            last_error: t.last_error.clone(),
            since: t.first_start,
        };
    }
    if t.starts == 1 || t.migrating_seen.is_some() {
        // Started once and not again: a MIGRATING server is no candidate,
        // so it is still migrating.
        return ServerProgress::Migrating {
            since: t.last_start.or(t.migrating_seen),
        };
    }
    if t.checks_since_start >= CHECKS_WITHOUT_START {
        return ServerProgress::NotStarted {
            checks: t.checks_since_start,
            status: None,
            since: t.first_listed,
        };
    }
    ServerProgress::Unknown
}

/// Whether acknowledging (mode `skip`) is offered for `node`, and on which
/// servers; or why not.
///
/// Offered when the node's OpenStack lock lists servers, none of them may
/// be migrating now (acknowledging would let LCM reboot the node under a
/// running live migration), and `skip` frees at least one of them: in
/// `live` mode the controller is still migrating (set `manual` first to
/// stop it); a server tagged `notify` or `live_migrate` is not freed by
/// `skip`.
pub fn acknowledge_offer(
    snap: &Snapshot,
    history: &History,
    node: &str,
) -> Result<Vec<String>, String> {
    let lock =
        openstack_lock(snap, node).ok_or_else(|| format!("{node}: no OpenStack node lock"))?;
    if lock.state == LockState::Inactive {
        return Err(format!(
            "{node}: the OpenStack lock is already inactive (nothing waits for the operator)"
        ));
    }
    let Some(m) = node_migration(snap, history, lock) else {
        return Err(format!(
            "{node}: the OpenStack lock does not say servers are still present"
        ));
    };
    if m.servers.is_empty() {
        return Err(format!(
            "{node}: the OpenStack lock names no server: nothing to acknowledge"
        ));
    }
    let running: Vec<&str> = m
        .servers
        .iter()
        .filter(|s| matches!(s.progress, ServerProgress::Migrating { .. }))
        .map(|s| s.id.as_str())
        .collect();
    if !running.is_empty() {
        return Err(format!(
            "{node}: a live migration may be running ({}): acknowledging would reboot the node under it; wait until the lock no longer lists it",
            running.join(", ")
        ));
    }
    match (&m.mode, m.format) {
        (MigrationMode::Manual, _) => {}
        (MigrationMode::Live, ServersFormat::Old) => {}
        (MigrationMode::Live, ServersFormat::New) => {
            return Err(format!(
                "{node}: migration mode live: the controller keeps retrying; set the mode to manual first (it stops the controller's migrations), then migrate, stop or shelve the servers and acknowledge"
            ));
        }
        (MigrationMode::Skip, _) => {
            return Err(format!(
                "{node}: already skip; the servers listed keep the node by their tags (notify, live_migrate): acknowledging frees none of them"
            ));
        }
        (MigrationMode::Other(v), _) => {
            return Err(format!(
                "{node}: migration mode {v:?} is not one the controller knows: set a valid mode first"
            ));
        }
    }
    let left: Vec<&str> = m.left().map(|s| s.id.as_str()).collect();
    if !left.is_empty() {
        return Err(format!(
            "{node}: the controller does not start {}: it may be migrating since before the console saw the node; check its status (openstack server show) before acknowledging",
            left.join(", ")
        ));
    }
    let unknown: Vec<&str> = m
        .servers
        .iter()
        .filter(|s| s.progress == ServerProgress::Unknown)
        .map(|s| s.id.as_str())
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "{node}: a live migration may be running ({}): the console has not yet seen the controller long enough to tell; its next check (about a minute) says",
            unknown.join(", ")
        ));
    }
    Ok(m.servers.iter().map(|s| s.id.clone()).collect())
}

/// The node's migration setting of annotation `key` as written (`None`:
/// unset); the outer `None` when `key` is not one of the two settings
/// (`instance_migration_mode`, `instance_migration_attempts`).
pub fn setting(node: &Node, key: &str) -> Option<Option<String>> {
    match key {
        MigrationMode::ANNOTATION => {
            Some(node.migration_mode.as_ref().map(|m| m.as_str().to_string()))
        }
        MigrationMode::ATTEMPTS_ANNOTATION => Some(node.migration_attempts.clone()),
        _ => None,
    }
}

/// A node whose migration settings the OpenStack controller cannot read:
/// its handler fails on them without writing a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidSettings {
    pub node: String,
    pub problems: Vec<String>,
}

/// The nodes whose migration mode or attempts the controller cannot use
/// (`NodeMaintenanceConfig`, `NODE_MAINTENANCE_TO_INSTANCE_MAINTENANCE`).
pub fn invalid_settings(node: &Node) -> Option<InvalidSettings> {
    // Borrowed, not through `setting` (which copies): the readiness check
    // reads every compute node. (The attention queue reads only the nodes
    // the snapshot flags, `Notable::NodeMigrationSettings`.)
    let problems: Vec<String> = [
        (
            MigrationMode::ANNOTATION,
            node.migration_mode.as_ref().map(MigrationMode::as_str),
        ),
        (
            MigrationMode::ATTEMPTS_ANNOTATION,
            node.migration_attempts.as_deref(),
        ),
    ]
    .into_iter()
    .filter_map(|(key, value)| setting_problem(key, value?))
    .collect();
    (!problems.is_empty()).then(|| InvalidSettings {
        node: node.name.clone(),
        problems,
    })
}

/// Why the OpenStack controller cannot read `value` as the node setting
/// `key` (a mode none of live, manual, skip; attempts that Python's `int()`
/// refuses), or `None` when it can.
pub fn setting_problem(key: &str, value: &str) -> Option<String> {
    match key {
        MigrationMode::ANNOTATION => matches!(MigrationMode::parse(value), MigrationMode::Other(_))
            .then(|| format!("instance_migration_mode {value:?} is none of live, manual, skip")),
        MigrationMode::ATTEMPTS_ANNOTATION => parse_python_int(value)
            .is_none()
            .then(|| format!("instance_migration_attempts {value:?} is not an integer")),
        _ => None,
    }
}

/// Python's `int(str)` on the attempts annotation: surrounding white space,
/// an optional sign, decimal digits (underscores between digits allowed).
pub fn parse_python_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    let n: i64 = digits.replace('_', "").parse().ok()?;
    Some(if neg { -n } else { n })
}

#[cfg(test)]
mod tests;
