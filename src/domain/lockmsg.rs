//! Reading a workload lock's `status.errorMessage`.
//!
//! Rockoon (the OpenStack controller) writes `str(datetime.utcnow())` and one
//! space before every message, e.g. `2022-02-04 14:43:52.674125 Starting
//! migration for <uuid>`; the microseconds are missing when they happen to be
//! zero. Each handler retry writes the message again with a new timestamp, so
//! the timestamp says when the controller last checked, not when the
//! condition started (the console's [`History`](super::history::History) knows
//! that). The texts matched here are the ones of the reference's §3.9
//! catalogue; Python lists and dicts appear with their repr.

use std::sync::LazyLock;

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::TimeZone;
use regex::Regex;

pub mod servers;
pub use servers::{ServerGroup, ServerGroupKind, server_groups};

/// A parsed lock message.
#[derive(Debug, Clone, PartialEq)]
pub struct LockMessage {
    /// The Rockoon timestamp prefix (UTC), when present and valid.
    pub at: Option<Timestamp>,
    /// The message without the timestamp prefix.
    pub text: String,
    pub kind: MessageKind,
}

/// What a lock message says, by the catalogue entry it matches.
#[derive(Debug, Clone, PartialEq)]
pub enum MessageKind {
    /// E-MIG-START: `Starting migration for <uuid>`.
    MigrationStarted { server: String },
    /// E-MIG-WAIT: `Waiting servers migration is completed: [...]`.
    MigrationWaiting { servers: Vec<String> },
    /// E-MIG-ERR: `Got error while trying to migrate server <uuid>: <exception>`.
    MigrationError { server: String, error: String },
    /// E-LEFT-OLD or E-LEFT: instances are still on the node being prepared
    /// for maintenance; the lock stays active until they are gone.
    ServersPresent(ServersPresent),
    /// E-CONC: another node holds the maintenance slot.
    ConcurrencyDeferred { node: Option<String> },
    /// E-SVC: a service (MariaDB, etcd, …) refuses to let the node go.
    ServicesBlocking {
        services: String,
        node: Option<String>,
    },
    /// E-HEALTH: the cluster lock waits for every OpenStack service to be healthy.
    HealthWait,
    /// The cluster lock waits for the OpenStackDeployment to be APPLIED
    /// (`Waiting osdpl status APPLIED, current state is <state>`).
    DeploymentNotApplied { state: String },
    /// The cluster lock waits for the controller's new version to show in
    /// the OpenStackDeploymentStatus.
    ControllerVersionPending,
    /// The request's or the cluster lock's release is not the controller's
    /// (`Current maintenancerequest … release does not match ours …`,
    /// `Waitinging for cwl release is …`: Rockoon's spelling).
    ReleaseMismatch,
    /// E-NDRSRV / E-NDRVOL: node removal blocked by servers or volumes.
    RemovalBlocked { ids: Vec<String> },
    /// Any other text (kept in [`LockMessage::text`]).
    Other,
}

/// Which form of the "servers still present" message was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServersFormat {
    /// E-LEFT-OLD (MOSK ≤ 24.3): `Some servers {'<uuid>': '<STATUS>'} are still
    /// present on host <node>. Waiting unless …` (the docs show a list instead of a dict).
    Old,
    /// E-LEFT (MOSK 25.1): `Some servers are still present on the host.` with
    /// optional `Notify owners of …` and `Servers with unset maintenance action: …`.
    New,
}

/// The servers named by a "servers still present" message.
#[derive(Debug, Clone, PartialEq)]
pub struct ServersPresent {
    pub format: ServersFormat,
    /// Every server named, in message order, without duplicates.
    pub servers: Vec<String>,
    /// Server status from the old dict form (`{'uuid': 'ACTIVE'}`), in order.
    pub statuses: Vec<(String, String)>,
    /// New form: servers whose owners must be told (their action is
    /// `notify`: tag `notify`, or node mode `manual` and no tag).
    pub notify: Vec<String>,
    /// New form, the list the code labels `Servers with unset maintenance
    /// action`: every other server left on the host, i.e. servers whose action
    /// is `live_migrate` that failed every attempt or were never tried (status
    /// not ACTIVE or PAUSED).
    pub unset: Vec<String>,
    /// Old form: the host named in the message.
    pub host: Option<String>,
}

impl MessageKind {
    /// The message is about the servers on the node, as Rockoon's
    /// `Nova._migrate_servers` (github:Mirantis/rockoon,
    /// `rockoon/services/__init__.py`, commit 1390883a) and its completion
    /// check `_check_migration_completed` write it while they work: servers
    /// still there, a migration started, waited for or failed. Such a lock
    /// is a migration's (`migration::node_migration`), not a held lock.
    pub fn is_about_servers(&self) -> bool {
        matches!(
            self,
            MessageKind::ServersPresent(_)
                | MessageKind::MigrationStarted { .. }
                | MessageKind::MigrationWaiting { .. }
                | MessageKind::MigrationError { .. }
        )
    }

    /// A short label for tables and the "waiting on" summary.
    pub fn short(&self) -> &'static str {
        match self {
            MessageKind::MigrationStarted { .. } => "migration started",
            MessageKind::MigrationWaiting { .. } => "waiting for migration",
            MessageKind::MigrationError { .. } => "migration error",
            MessageKind::ServersPresent(_) => "servers present",
            MessageKind::ConcurrencyDeferred { .. } => "deferred (concurrency)",
            MessageKind::ServicesBlocking { .. } => "deferred (services)",
            MessageKind::HealthWait => "waiting for healthy services",
            MessageKind::DeploymentNotApplied { .. } => "waiting for deployment APPLIED",
            MessageKind::ControllerVersionPending => "waiting for controller version",
            MessageKind::ReleaseMismatch => "release mismatch",
            MessageKind::RemovalBlocked { .. } => "node removal blocked",
            MessageKind::Other => "message",
        }
    }

    /// The servers this message names, if any.
    pub fn servers(&self) -> Vec<String> {
        match self {
            MessageKind::MigrationStarted { server }
            | MessageKind::MigrationError { server, .. } => {
                vec![server.clone()]
            }
            MessageKind::MigrationWaiting { servers } => servers.clone(),
            MessageKind::ServersPresent(p) => p.servers.clone(),
            _ => Vec::new(),
        }
    }
}

// A hand-written regex set: no crate parses Rockoon's free-text messages.
static PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)\s+").expect("valid regex")
});
static QUOTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"'([^']*)'").expect("valid regex"));
static DICT_ITEM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"'([^']*)'\s*:\s*'([^']*)'").expect("valid regex"));
static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
        .expect("valid regex")
});
static LEFT_OLD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?s)^Some servers\s+(.*?)\s+are still present on host\s+(\S+?)\.?\s+Waiting unless",
    )
    .expect("valid regex")
});
static LEFT_NEW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Some servers are still present on the host\.").expect("valid regex")
});
static NOTIFY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Notify owners of the following servers?:\s*(\[[^\]]*\])").expect("valid regex")
});
static UNSET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Servers with unset maintenance action:\s*(\[[^\]]*\])").expect("valid regex")
});
static MIG_START: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Starting migration for\s+(\S+)").expect("valid regex"));
static MIG_WAIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Waiting servers migration is completed:\s*(.*)$").expect("valid regex")
});
static MIG_ERR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)^Got error while trying to migrate server\s+(\S+?):\s*(.*)$")
        .expect("valid regex")
});
static DEFER_NODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)deferring processing for node\s+(\S+)").expect("valid regex")
});
static SVC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Some services blocks nmr handling\s+(\{[^}]*\})").expect("valid regex")
});
static OSDPL_STATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Waiting osdpl status APPLIED, current state is\s+(\S+)").expect("valid regex")
});
static REMOVAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)^Some (?:servers|volumes)\s+(.*?)\s+are still present on host\s+\S+\s+Blocking node removal")
        .expect("valid regex")
});

/// Splits the Rockoon timestamp prefix off `message`. Returns the timestamp
/// (UTC) and the rest; a message without a valid prefix is returned whole.
pub fn split_timestamp(message: &str) -> (Option<Timestamp>, &str) {
    let Some(caps) = PREFIX.captures(message) else {
        return (None, message.trim());
    };
    let whole = caps.get(0).map_or(0, |m| m.end());
    let stamp = caps.get(1).map_or("", |m| m.as_str());
    let parsed = stamp
        .replacen(' ', "T", 1)
        .parse::<DateTime>()
        .ok()
        .and_then(|dt| TimeZone::UTC.to_timestamp(dt).ok());
    match parsed {
        Some(ts) => (Some(ts), message[whole..].trim()),
        None => (None, message.trim()),
    }
}

/// Parses a lock `errorMessage`. The cluster layer calls it once, as the
/// lock arrives ([`crate::domain::objects::ErrorMessage`]); the rules read
/// what it returned.
pub fn parse(message: &str) -> LockMessage {
    #[cfg(test)]
    parse_count::PARSED.with(|n| n.set(n.get() + 1));
    let (at, text) = split_timestamp(message);
    LockMessage {
        at,
        text: text.to_string(),
        kind: classify(text),
    }
}

/// Classifies a message text (without the timestamp prefix).
pub fn classify(text: &str) -> MessageKind {
    let text = text.trim();
    if let Some(c) = MIG_START.captures(text) {
        return MessageKind::MigrationStarted {
            server: c[1].trim_end_matches(['.', ',']).to_string(),
        };
    }
    if let Some(c) = MIG_WAIT.captures(text) {
        return MessageKind::MigrationWaiting {
            servers: ids_in(&c[1]),
        };
    }
    if let Some(c) = MIG_ERR.captures(text) {
        return MessageKind::MigrationError {
            server: c[1].to_string(),
            error: c[2].trim().to_string(),
        };
    }
    if let Some(c) = REMOVAL.captures(text) {
        return MessageKind::RemovalBlocked { ids: ids_in(&c[1]) };
    }
    if let Some(c) = LEFT_OLD.captures(text) {
        let repr = &c[1];
        let statuses: Vec<(String, String)> = DICT_ITEM
            .captures_iter(repr)
            .map(|d| (d[1].to_string(), d[2].to_string()))
            .collect();
        let servers = if statuses.is_empty() {
            ids_in(repr)
        } else {
            dedup(statuses.iter().map(|(id, _)| id.clone()))
        };
        return MessageKind::ServersPresent(ServersPresent {
            format: ServersFormat::Old,
            servers,
            statuses,
            notify: Vec::new(),
            unset: Vec::new(),
            host: Some(c[2].to_string()),
        });
    }
    if LEFT_NEW.is_match(text) {
        let notify = NOTIFY
            .captures(text)
            .map(|c| ids_in(&c[1]))
            .unwrap_or_default();
        let unset = UNSET
            .captures(text)
            .map(|c| ids_in(&c[1]))
            .unwrap_or_default();
        let servers = dedup(notify.iter().chain(unset.iter()).cloned());
        return MessageKind::ServersPresent(ServersPresent {
            format: ServersFormat::New,
            servers,
            statuses: Vec::new(),
            notify,
            unset,
            host: None,
        });
    }
    if text.starts_with("Number of inactive NodeWorkloadLocks exceeds allowed concurrency")
        || text.starts_with("Inactive NodeWorkloadLocks for openstack detected")
    {
        return MessageKind::ConcurrencyDeferred {
            node: DEFER_NODE.captures(text).map(|c| c[1].to_string()),
        };
    }
    if let Some(c) = SVC.captures(text) {
        return MessageKind::ServicesBlocking {
            services: c[1].to_string(),
            node: DEFER_NODE.captures(text).map(|c| c[1].to_string()),
        };
    }
    // The cluster lock's waits, in the order Rockoon's
    // `cluster_maintenance_request_change_handler`
    // (rockoon/controllers/maintenance.py @1390883a) checks them.
    if text.starts_with("Waiting for all OpenStack services are healthy") {
        return MessageKind::HealthWait;
    }
    if let Some(c) = OSDPL_STATE.captures(text) {
        return MessageKind::DeploymentNotApplied {
            state: c[1].to_string(),
        };
    }
    if text.starts_with("OpenStackDeploymentStatus controller version is not updated yet") {
        return MessageKind::ControllerVersionPending;
    }
    if (text.starts_with("Current maintenancerequest") && text.contains("does not match ours"))
        || text.starts_with("Waitinging for cwl release is")
        || text.starts_with("Waiting for cwl release is")
    {
        return MessageKind::ReleaseMismatch;
    }
    MessageKind::Other
}

/// The ids in a Python list/dict repr: a dict's keys, a list's quoted
/// strings, or failing that the bare UUIDs.
fn ids_in(repr: &str) -> Vec<String> {
    if repr.trim_start().starts_with('{') {
        let keys = dedup(DICT_ITEM.captures_iter(repr).map(|c| c[1].to_string()));
        if !keys.is_empty() {
            return keys;
        }
    }
    let quoted: Vec<String> = QUOTED
        .captures_iter(repr)
        .map(|c| c[1].to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if !quoted.is_empty() {
        return dedup(quoted.into_iter());
    }
    dedup(UUID.find_iter(repr).map(|m| m.as_str().to_string()))
}

fn dedup(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// How often [`parse`] ran on this thread: what the tests count to hold
/// that a lock's message is parsed once, when the lock arrives.
#[cfg(test)]
pub(crate) mod parse_count {
    use std::cell::Cell;

    thread_local! {
        pub(super) static PARSED: Cell<usize> = const { Cell::new(0) };
    }

    /// The parses on this thread since the last call, and starts counting again.
    pub(crate) fn take() -> usize {
        PARSED.with(|n| n.replace(0))
    }
}

#[cfg(test)]
mod tests;
