//! The servers an OpenStack lock message names, grouped by what they wait
//! for (reference `mosk-update-plan.md` §4.3–4.4, `mosk-lcm-api.md` §4.3),
//! and what the acknowledgement (the node's migration mode set to `skip`)
//! does to each group.
//!
//! MOSK 25.1 (Rockoon 1.0.3+) lets cloud users tag a server with
//! `openstack.lcm.mirantis.com:maintenance_action=poweroff|live_migrate|notify`;
//! exactly one tag wins over the node's mode, none (or several) falls back to
//! the node's mode (`skip` = poweroff, `live` = live_migrate, `manual` = notify).

use super::{MessageKind, ServersFormat};
use crate::domain::objects::MigrationMode;

/// Why a server is listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServerGroupKind {
    /// E-LEFT `Notify owners of the following server:`: the server's action
    /// is `notify` (its tag, or the node's mode `manual`).
    NotifyOwners,
    /// E-LEFT `Servers with unset maintenance action:`: the code's label for
    /// every other server left on the host, i.e. servers whose action is
    /// `live_migrate` that failed every attempt or whose status (not ACTIVE
    /// or PAUSED) keeps them from being tried.
    UnsetAction,
    /// E-LEFT-OLD (MOSK ≤ 24.3): still on the host, no reason given.
    StillPresent,
    /// E-MIG-START / E-MIG-WAIT: being live-migrated now.
    Migrating,
    /// E-MIG-ERR: the last live-migration attempt failed.
    MigrationError,
}

impl ServerGroupKind {
    /// The heading the console shows over the list.
    pub fn heading(self) -> &'static str {
        match self {
            ServerGroupKind::NotifyOwners => "owners to notify",
            ServerGroupKind::UnsetAction => "unset maintenance action (not migrated)",
            ServerGroupKind::StillPresent => "still on the node",
            ServerGroupKind::Migrating => "being migrated",
            ServerGroupKind::MigrationError => "migration error",
        }
    }
}

/// Servers of one kind, in message order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerGroup {
    pub kind: ServerGroupKind,
    pub servers: Vec<String>,
    /// The exception text of a migration error.
    pub error: Option<String>,
}

impl ServerGroup {
    fn new(kind: ServerGroupKind, servers: Vec<String>) -> ServerGroup {
        ServerGroup {
            kind,
            servers,
            error: None,
        }
    }
    /// `owners to notify (2): <uuid>, <uuid>`; the error follows a migration error.
    pub fn line(&self) -> String {
        self.line_max(usize::MAX)
    }
    /// [`line`](Self::line) naming at most `max` servers, then `and N more`.
    pub fn line_max(&self, max: usize) -> String {
        let shown: Vec<&str> = self.servers.iter().take(max).map(String::as_str).collect();
        let mut names = shown.join(", ");
        if self.servers.len() > shown.len() {
            names.push_str(&format!(" and {} more", self.servers.len() - shown.len()));
        }
        let mut s = format!("{} ({}): {names}", self.kind.heading(), self.servers.len());
        if let Some(e) = &self.error {
            s.push_str(&format!(": {e}"));
        }
        s
    }
}

/// The server groups a message names, in the order the operator acts on
/// them (owners first). Empty lists are left out.
pub fn server_groups(kind: &MessageKind) -> Vec<ServerGroup> {
    let groups = match kind {
        MessageKind::ServersPresent(p) if p.format == ServersFormat::New => vec![
            ServerGroup::new(ServerGroupKind::NotifyOwners, p.notify.clone()),
            ServerGroup::new(ServerGroupKind::UnsetAction, p.unset.clone()),
        ],
        MessageKind::ServersPresent(p) => {
            vec![ServerGroup::new(
                ServerGroupKind::StillPresent,
                p.servers.clone(),
            )]
        }
        MessageKind::MigrationStarted { server } => {
            vec![ServerGroup::new(
                ServerGroupKind::Migrating,
                vec![server.clone()],
            )]
        }
        MessageKind::MigrationWaiting { servers } => {
            vec![ServerGroup::new(
                ServerGroupKind::Migrating,
                servers.clone(),
            )]
        }
        MessageKind::MigrationError { server, error } => vec![ServerGroup {
            kind: ServerGroupKind::MigrationError,
            servers: vec![server.clone()],
            error: Some(error.clone()),
        }],
        _ => Vec::new(),
    };
    groups
        .into_iter()
        .filter(|g| !g.servers.is_empty())
        .collect()
}

/// The message read in one line per group, plus the concurrency deferral
/// (which names no server): what the detail panel shows under the lock.
pub fn reading(kind: &MessageKind) -> Vec<String> {
    let mut out: Vec<String> = server_groups(kind).iter().map(ServerGroup::line).collect();
    if let MessageKind::ConcurrencyDeferred { node } = kind {
        out.push(format!(
            "deferred: other nodes hold the maintenance slots (concurrency limit){}; waiting, not an error",
            node.as_deref()
                .map(|n| format!(" for {n}"))
                .unwrap_or_default()
        ));
    }
    out
}

/// What setting the node's mode to `skip` does to `kind`'s servers, for a
/// node whose mode is `mode` now (`None`: unset, i.e. `live`). Each sentence
/// is true for every server the group can hold (decision table,
/// `mosk-lcm-api.md` §4.3).
pub fn skip_effect(kind: ServerGroupKind, mode: Option<&MigrationMode>) -> &'static str {
    let manual = matches!(mode, Some(MigrationMode::Manual));
    match kind {
        // Under `manual`, an untagged server is `notify` too; under any other
        // mode only a `notify` tag puts a server in this list.
        ServerGroupKind::NotifyOwners if manual => {
            "tell their owners first; after skip, servers without a maintenance_action tag go down with the node's reboot, servers tagged notify keep blocking the node"
        }
        ServerGroupKind::NotifyOwners => {
            "tagged notify: skip does not release them (the tag wins over the node's mode); tell their owners, then migrate, stop or shelve them"
        }
        // Under `live`, an untagged server is `live_migrate`; under `manual`
        // or `skip` only a `live_migrate` tag makes it so.
        ServerGroupKind::UnsetAction if manual || matches!(mode, Some(MigrationMode::Skip)) => {
            "tagged live_migrate: skip does not release them; the controller tries to live-migrate them again, or migrate, stop or shelve them by hand"
        }
        ServerGroupKind::UnsetAction => {
            "after skip, servers without a maintenance_action tag go down with the node's reboot; servers tagged live_migrate are tried again and keep blocking the node"
        }
        // Before MOSK 25.1 skip skipped the instance check altogether.
        ServerGroupKind::StillPresent => {
            "confirm only after these servers are migrated or shut down: skip lets LCM reboot the node"
        }
        ServerGroupKind::Migrating => {
            "being live-migrated: skip takes effect at the controller's next retry"
        }
        ServerGroupKind::MigrationError => {
            "the migration attempt failed; the controller retries until the attempts run out"
        }
    }
}
