//! What the console saw the OpenStack controller do with each server on a
//! node during the node's turn: which migrations it started, how often,
//! which failed to start, and how many completion checks listed the server.
//!
//! The lock's message alone cannot tell a running live migration from a
//! failed one. Rockoon's `Nova._migrate_servers` (github:Mirantis/rockoon,
//! `rockoon/services/__init__.py`, commit 1390883a) ends its loop as soon as
//! no server is left to *start*: a server that is `MIGRATING` is no longer
//! a candidate (`compute_get_servers_valid_for_live_migration`,
//! `rockoon/openstack_utils.py`, keeps ACTIVE/PAUSED servers whose
//! `task_state` is not `migrating`). The completion check that follows
//! (`_check_migration_completed`) lists every server still on the host —
//! the one being migrated included — and raises a retry. Each kopf retry
//! runs the loop again with fresh attempt counters. So the sequence tells:
//!
//! - a migration still running: `Starting migration for X`, then completion
//!   checks listing X, with no new start of X (it is not a candidate while
//!   MIGRATING);
//! - a migration that failed: X is back ACTIVE on the host and the next run
//!   starts it again — a second `Starting migration for X`;
//! - a server the controller does not start at all (not ACTIVE or PAUSED,
//!   e.g. ERROR; or migrating since before the console saw the node):
//!   completion checks listing X and no start of X.

use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::domain::lockmsg::{LockMessage, MessageKind, ServersFormat};

/// One server, as far as the console saw it in this turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerTrack {
    /// `Starting migration for <id>` messages seen.
    pub starts: u32,
    pub first_start: Option<Timestamp>,
    pub last_start: Option<Timestamp>,
    /// `Got error while trying to migrate server <id>: …` messages seen.
    pub errors: u32,
    /// The last such error's text.
    pub last_error: Option<String>,
    /// Completion checks ("still present") that listed the server since its
    /// last start (or since the console first saw the node, if never started).
    pub checks_since_start: u32,
    /// First completion check that listed it.
    pub first_listed: Option<Timestamp>,
    /// The status the old (MOSK ≤ 24.3) message gave, at the last check.
    pub status: Option<String>,
    /// Named by `Waiting servers migration is completed: […]` (the
    /// controller's list of MIGRATING servers) since its last start.
    pub migrating_seen: Option<Timestamp>,
}

impl ServerTrack {
    fn new() -> ServerTrack {
        ServerTrack {
            starts: 0,
            first_start: None,
            last_start: None,
            errors: 0,
            last_error: None,
            checks_since_start: 0,
            first_listed: None,
            status: None,
            migrating_seen: None,
        }
    }
}

/// The servers of one node's OpenStack lock in the current turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeServers {
    pub servers: BTreeMap<String, ServerTrack>,
    /// Completion checks seen in this turn.
    pub checks: u32,
    /// The controller deferred the node behind another one (E-CONC) since.
    pub queued_since: Option<Timestamp>,
    /// When a message other than the deferral followed it: the controller
    /// took the node up (its one-node-at-a-time slot came free).
    pub dequeued: Option<Timestamp>,
}

impl NodeServers {
    /// Records one message the controller wrote (a new `errorMessage`) at `at`.
    pub fn record(&mut self, msg: &LockMessage, at: Timestamp) {
        // The controller's own stamp, unless it is later than the console
        // saw the message (the controller's clock is not the API server's).
        let at = msg.at.map_or(at, |m| m.min(at));
        if matches!(msg.kind, MessageKind::ConcurrencyDeferred { .. }) {
            self.queued_since.get_or_insert(at);
            self.dequeued = None;
            return;
        }
        if self.queued_since.is_some() && self.dequeued.is_none() {
            self.dequeued = Some(at);
        }
        match &msg.kind {
            MessageKind::MigrationStarted { server } => {
                let t = self.entry(server);
                t.starts += 1;
                t.first_start.get_or_insert(at);
                t.last_start = Some(at);
                t.checks_since_start = 0;
                t.migrating_seen = None;
            }
            MessageKind::MigrationWaiting { servers } => {
                for id in servers {
                    self.entry(id).migrating_seen = Some(at);
                }
            }
            MessageKind::MigrationError { server, error } => {
                let t = self.entry(server);
                t.errors += 1;
                t.last_error = Some(error.clone());
            }
            MessageKind::ServersPresent(p) => {
                self.checks += 1;
                let statuses: BTreeMap<&str, &str> = p
                    .statuses
                    .iter()
                    .map(|(id, s)| (id.as_str(), s.as_str()))
                    .collect();
                for id in &p.servers {
                    let status = statuses.get(id.as_str()).map(|s| s.to_string());
                    let t = self.entry(id);
                    t.checks_since_start += 1;
                    t.first_listed.get_or_insert(at);
                    if p.format == ServersFormat::Old {
                        t.status = status;
                    }
                }
            }
            _ => {}
        }
    }

    fn entry(&mut self, server: &str) -> &mut ServerTrack {
        self.servers
            .entry(server.to_string())
            .or_insert_with(ServerTrack::new)
    }
}
