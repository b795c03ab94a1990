//! What the console knows of the servers on each node and the panel that
//! shows them (see `crate::app::servers` for how they are read and acted
//! on): plain data and the rules over it, no model.

use std::collections::{BTreeMap, BTreeSet};

use jiff::{SignedDuration, Timestamp};

use crate::cluster::openstack::{CliError, ServersRead};
use crate::domain::action::ActionId;
use crate::domain::action::plan::{ActionPlan, Change, ObjectRef, PlannedStep, ServerCommand};
use crate::domain::objects::{ClusterId, Kind};
use crate::domain::servers::Server;

/// How often the open panel reads its node's servers again.
pub const REFRESH_EVERY: SignedDuration = SignedDuration::from_secs(10);

/// An action asked on one server (its command was accepted), followed
/// until the server is off the node or in error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub action: ActionId,
    pub at: Timestamp,
}

/// What the console knows of one node's servers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeServers {
    /// The last read that succeeded, and when it was asked.
    pub read: Option<(ServersRead, Timestamp)>,
    /// The last read's failure (when it was asked), while no later read succeeded.
    pub failed: Option<(CliError, Timestamp)>,
    /// When the read in flight was asked.
    pub in_flight: Option<Timestamp>,
    /// Actions asked on its servers, by server id.
    pub asked: BTreeMap<String, Asked>,
    /// Servers that left the node after an action (id -> name, words).
    pub left: BTreeMap<String, (String, String)>,
    /// An action finished: read again at the next tick.
    pub refresh_now: bool,
}

impl NodeServers {
    /// The servers of the last good read.
    pub fn servers(&self) -> &[Server] {
        self.read.as_ref().map_or(&[], |(r, _)| &r.servers[..])
    }

    /// The project's name where `project list` gave it, else its ID.
    pub fn project(&self, id: &str) -> String {
        self.read
            .as_ref()
            .and_then(|(r, _)| r.projects.get(id).cloned())
            .unwrap_or_else(|| id.to_string())
    }

    /// The last read failed after the one shown.
    pub fn stale(&self) -> bool {
        self.failed.is_some()
    }
}

/// The servers of every node read in this session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServersState {
    pub nodes: BTreeMap<String, NodeServers>,
}

/// The open panel: its node, cursor and the servers selected with `space`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServersPanel {
    pub node: String,
    pub cursor: usize,
    /// The server the operator put the cursor on: the cursor follows it
    /// when a read reorders the list, and acts on nothing once it has
    /// left the list (a key never lands on the server that slid into its
    /// row). `None`: the first row, never moved.
    pub cursor_id: Option<String>,
    pub selected: BTreeSet<String>,
}

impl ServersPanel {
    /// The server under the cursor in `servers`: `Err` with its id when the
    /// server the cursor was put on is no longer listed.
    pub fn under_cursor<'a>(&self, servers: &'a [Server]) -> Result<Option<&'a Server>, String> {
        match &self.cursor_id {
            None => Ok(servers.get(self.cursor)),
            Some(id) => match servers.iter().find(|s| &s.id == id) {
                Some(s) => Ok(Some(s)),
                None => Err(id.clone()),
            },
        }
    }

    /// After a read: the cursor moves to the row its server is in now.
    pub fn follow(&mut self, servers: &[Server]) {
        if let Some(id) = &self.cursor_id
            && let Some(i) = servers.iter().position(|s| &s.id == id)
        {
            self.cursor = i;
        }
    }
}

/// Servers acted on and gone from the node's list since.
pub fn follow_asked(entry: &mut NodeServers, read: &ServersRead, asked: Timestamp) {
    let mut gone = Vec::new();
    for (id, a) in &entry.asked {
        if asked >= a.at && !read.servers.iter().any(|s| &s.id == id) {
            gone.push(id.clone());
        }
    }
    for id in gone {
        let name = entry
            .servers()
            .iter()
            .find(|s| s.id == id)
            .map_or_else(|| id.clone(), |s| s.name.clone());
        if let Some(a) = entry.asked.remove(&id) {
            // Off the list is all the read says: the server may also have
            // been deleted or moved by someone else meanwhile.
            let words = match a.action {
                ActionId::ShelveServers => "off the node after the shelve asked",
                ActionId::StopServers => "off the node after the stop asked",
                _ => "off the node after the live migration asked",
            };
            entry.left.insert(id, (name, words.to_string()));
        }
    }
}

/// How an action asked on `s` stands, from the reads after it.
pub fn progress(n: &NodeServers, s: &Server) -> Option<String> {
    let a = n.asked.get(&s.id)?;
    let read_after = n.read.as_ref().is_some_and(|(_, t)| *t >= a.at);
    if s.status == "ERROR" {
        return Some("in ERROR".into());
    }
    Some(match a.action {
        ActionId::LiveMigrateServers => {
            if s.migrating() {
                "live migration running".into()
            } else if read_after {
                // Nova sets the task state before it answers the request:
                // a server back to no task state on this node was not moved.
                // [I] From nova `compute/api.py` `API.live_migrate` as
                // described, not read at a commit (docs/ARCHITECTURE.md).
                format!("live migration failed: still here, {}", s.status)
            } else {
                "live migration asked".into()
            }
        }
        ActionId::StopServers => {
            if s.not_running() {
                "stopped".into()
            } else {
                "stop asked".into()
            }
        }
        ActionId::ShelveServers => "shelve asked".into(),
        _ => return None,
    })
}

/// The servers an action applies to: the selected ones, else the cursor's.
pub fn targets<'a>(panel: &ServersPanel, n: &'a NodeServers) -> Vec<&'a Server> {
    let servers = n.servers();
    if panel.selected.is_empty() {
        panel
            .under_cursor(servers)
            .ok()
            .flatten()
            .into_iter()
            .collect()
    } else {
        servers
            .iter()
            .filter(|s| panel.selected.contains(&s.id))
            .collect()
    }
}

/// The argv of `action` on server `id`.
pub fn command(action: ActionId, id: &str) -> Vec<String> {
    let words: &[&str] = match action {
        ActionId::LiveMigrateServers => &["openstack", "server", "migrate", "--live-migration"],
        ActionId::StopServers => &["openstack", "server", "stop"],
        _ => &["openstack", "server", "shelve"],
    };
    words
        .iter()
        .map(|w| w.to_string())
        .chain([id.to_string()])
        .collect()
}

/// The plan of `action` on the panel's servers (`uid`: the node's, as
/// the snapshot holds it).
pub fn plan(
    panel: &ServersPanel,
    state: &ServersState,
    uid: &str,
    context: &str,
    dry_run: bool,
    action: ActionId,
) -> Result<ActionPlan, String> {
    let n = state
        .nodes
        .get(&panel.node)
        .filter(|n| n.read.is_some())
        .ok_or("the servers have not been read yet")?;
    let servers = targets(panel, n);
    if servers.is_empty() {
        if let Err(id) = panel.under_cursor(n.servers()) {
            return Err(format!(
                "the server under the cursor ({id}) is no longer on the node's list: move the cursor (j/k) to the server you mean"
            ));
        }
        return Err("no server under the cursor".into());
    }
    let mut warnings = Vec::new();
    if n.stale() {
        warnings.push(
            "the last read of these servers failed: what is shown may be old (the server is read again before each command)".into(),
        );
    }
    if action == ActionId::ShelveServers {
        warnings.push(
            "shelving stops each server, snapshots it and releases its host: it stays off until someone unshelves it (openstack server unshelve)".into(),
        );
    }
    if action == ActionId::StopServers {
        warnings.push(
            "stopping shuts each guest down: its owners lose it until it is started again".into(),
        );
    }
    let steps = servers
        .iter()
        .map(|s| PlannedStep {
            target: ObjectRef {
                cluster: ClusterId::Mosk,
                kind: Kind::Node,
                namespace: String::new(),
                name: panel.node.clone(),
                uid: uid.to_string(),
            },
            change: Change::ServerCommand(ServerCommand {
                command: command(action, &s.id),
                server: s.id.clone(),
                name: s.name.clone(),
                node: panel.node.clone(),
                status: s.status.clone(),
                task_state: s.task_state.clone(),
            }),
            node: panel.node.clone(),
            servers: vec![s.id.clone()],
            acknowledge: Vec::new(),
        })
        .collect();
    Ok(ActionPlan {
        id: 0,
        action,
        cluster: ClusterId::Mosk,
        context: context.to_string(),
        dry_run,
        steps,
        warnings,
        notes: Vec::new(),
        access: None,
        refused: None,
    })
}

/// A step of a server plan finished: follow the server.
pub fn asked(state: &mut ServersState, plan: &ActionPlan, index: usize, now: Timestamp) {
    if plan.dry_run {
        return;
    }
    let Some(PlannedStep {
        change: Change::ServerCommand(c),
        ..
    }) = plan.steps.get(index)
    else {
        return;
    };
    let entry = state.nodes.entry(c.node.clone()).or_default();
    entry.asked.insert(
        c.server.clone(),
        Asked {
            action: plan.action,
            at: now,
        },
    );
    // Read again at once: the next tick asks.
    entry.refresh_now = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(id: &str) -> Server {
        Server {
            id: id.into(),
            name: format!("vm-{id}"),
            status: "ACTIVE".into(),
            task_state: None,
            power_state: Some(1),
            flavor: "m1.small".into(),
            host: Some("node-1".into()),
            project_id: "p".into(),
            vm_state: Some("active".into()),
            tags: None,
        }
    }

    fn panel(cursor: usize, id: Option<&str>) -> ServersPanel {
        ServersPanel {
            node: "node-1".into(),
            cursor,
            cursor_id: id.map(str::to_string),
            selected: BTreeSet::new(),
        }
    }

    #[test]
    fn the_cursor_follows_its_server_and_acts_on_nothing_once_it_left() {
        let before = [server("a"), server("b"), server("c")];
        let mut p = panel(1, Some("b"));
        assert_eq!(p.under_cursor(&before).unwrap().unwrap().id, "b");
        // A read puts another server first: the cursor moves with "b".
        let reordered = [server("x"), server("a"), server("b"), server("c")];
        p.follow(&reordered);
        assert_eq!(p.cursor, 2);
        assert_eq!(p.under_cursor(&reordered).unwrap().unwrap().id, "b");
        // "b" migrated away: the row it was in now holds "c", and no key
        // may land on it.
        let after = [server("x"), server("a"), server("c")];
        p.follow(&after);
        assert_eq!(p.under_cursor(&after), Err("b".to_string()));
        // Never moved: the first row.
        assert_eq!(
            panel(0, None).under_cursor(&after).unwrap().unwrap().id,
            "x"
        );
    }
}
