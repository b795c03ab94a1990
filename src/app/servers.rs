//! The servers on a node (`o` on an attention item about a node, a
//! Machines row, or the acknowledge dialog): the panel, its refresh, and
//! the actions on its servers.
//!
//! The servers are read by the runtime (`Command::ReadServers`, the
//! OpenStack CLI in the `keystone-client` pod, `cluster::openstack`) when
//! the panel opens and every [`REFRESH_EVERY`] of the clock while it is
//! open; the answer comes back as `Msg::ServersRead`. The last good read of
//! each node is kept (the acknowledge dialog lists it) with its time; a read
//! that fails leaves it and marks it stale. Actions go through the one
//! action path (`app::actions`): a plan per server, confirmed, audited; the
//! panel then follows each server until it is off the node or in error.

use std::collections::{BTreeMap, BTreeSet};

use jiff::{SignedDuration, Timestamp};

use crate::app::model::{Model, NoticeLevel};
use crate::app::msg::Command;
use crate::cluster::openstack::{CliError, ServersRead};
use crate::domain::action::ActionId;
use crate::domain::action::plan::{ActionPlan, Change, ObjectRef, PlannedStep, ServerCommand};
use crate::domain::objects::{ClusterId, Kind, MigrationMode};
use crate::domain::servers::Server;

/// How often the open panel reads its node's servers again.
pub const REFRESH_EVERY: SignedDuration = SignedDuration::from_secs(10);

/// An action asked on one server (its command was accepted), followed
/// until the server is off the node or in error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub action: ActionId,
    pub at: Timestamp,
    /// A read after the command saw the migration under way.
    pub seen_migrating: bool,
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
    pub selected: BTreeSet<String>,
}

/// The panel's node, when it is open anywhere in the stack.
pub fn open_node(model: &Model) -> Option<String> {
    model.modals.iter().find_map(|m| match m {
        crate::app::modal::Modal::Servers(p) => Some(p.node.clone()),
        _ => None,
    })
}

/// Opens the panel on `node` and asks for its servers.
pub fn open(model: &mut Model, node: String) -> Vec<Command> {
    model
        .modals
        .push(crate::app::modal::Modal::Servers(ServersPanel {
            node: node.clone(),
            cursor: 0,
            selected: BTreeSet::new(),
        }));
    ask(model, &node)
}

fn ask(model: &mut Model, node: &str) -> Vec<Command> {
    let now = model.now;
    let entry = model.servers.nodes.entry(node.to_string()).or_default();
    if entry.in_flight.is_some() {
        return Vec::new();
    }
    entry.in_flight = Some(now);
    entry.refresh_now = false;
    vec![Command::ReadServers {
        node: node.to_string(),
        asked: now,
    }]
}

/// The clock moved: read the open panel's node again when due.
pub fn on_tick(model: &mut Model) -> Vec<Command> {
    let Some(node) = open_node(model) else {
        return Vec::new();
    };
    let n = model.servers.nodes.get(&node);
    let now_asked = n.is_some_and(|n| n.refresh_now);
    let last = n.and_then(|n| {
        let ok = n.read.as_ref().map(|(_, t)| *t);
        let bad = n.failed.as_ref().map(|(_, t)| *t);
        ok.max(bad)
    });
    if !now_asked && last.is_some_and(|t| model.now.duration_since(t) < REFRESH_EVERY) {
        return Vec::new();
    }
    ask(model, &node)
}

/// A read came back.
pub fn on_read(
    model: &mut Model,
    node: String,
    asked: Timestamp,
    result: Result<ServersRead, CliError>,
) {
    let entry = model.servers.nodes.entry(node.clone()).or_default();
    if entry.in_flight == Some(asked) {
        entry.in_flight = None;
    }
    match result {
        Ok(read) => {
            entry.failed = None;
            follow_asked(entry, &read, asked);
            entry.read = Some((read, asked));
        }
        Err(e) => {
            if e.refused {
                let msg = format!("servers on {node}: the exec was refused: {}", e.message);
                model.notify(NoticeLevel::Error, msg);
            }
            let entry = model.servers.nodes.entry(node).or_default();
            entry.failed = Some((e, asked));
        }
    }
}

/// Servers acted on: gone from the node (done), or seen migrating.
fn follow_asked(entry: &mut NodeServers, read: &ServersRead, asked: Timestamp) {
    let mut gone = Vec::new();
    for (id, a) in entry.asked.iter_mut() {
        if asked < a.at {
            continue;
        }
        match read.servers.iter().find(|s| &s.id == id) {
            None => gone.push(id.clone()),
            Some(s) if s.migrating() => a.seen_migrating = true,
            Some(_) => {}
        }
    }
    for id in gone {
        let name = entry
            .servers()
            .iter()
            .find(|s| s.id == id)
            .map_or_else(|| id.clone(), |s| s.name.clone());
        if let Some(a) = entry.asked.remove(&id) {
            let words = match a.action {
                ActionId::ShelveServers => "shelved: off the node",
                _ => "live-migrated: off the node",
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
        servers.get(panel.cursor).into_iter().collect()
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

/// The plan of `action` on the panel's servers.
pub fn plan(model: &Model, action: ActionId) -> Result<ActionPlan, String> {
    let panel = model
        .modals
        .iter()
        .find_map(|m| match m {
            crate::app::modal::Modal::Servers(p) => Some(p),
            _ => None,
        })
        .ok_or("open the servers on a node first (o)")?;
    let n = model
        .servers
        .nodes
        .get(&panel.node)
        .filter(|n| n.read.is_some())
        .ok_or("the servers have not been read yet")?;
    let servers = targets(panel, n);
    if servers.is_empty() {
        return Err("no server under the cursor".into());
    }
    let uid = model
        .snapshot
        .nodes()
        .find(|x| x.name == panel.node)
        .map(|x| x.uid.clone())
        .unwrap_or_default();
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
                uid: uid.clone(),
            },
            change: Change::ServerCommand(ServerCommand {
                command: command(action, &s.id),
                server: s.id.clone(),
                name: s.name.clone(),
                node: panel.node.clone(),
                status: s.status.clone(),
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
        context: model.session.mosk_context.clone(),
        dry_run: model.session.dry_run,
        steps,
        warnings,
        notes: Vec::new(),
        access: None,
        refused: None,
    })
}

/// A step of a server plan finished: follow the server.
pub fn asked(model: &mut Model, plan: &ActionPlan, index: usize) {
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
    let now = model.now;
    let entry = model.servers.nodes.entry(c.node.clone()).or_default();
    entry.asked.insert(
        c.server.clone(),
        Asked {
            action: plan.action,
            at: now,
            seen_migrating: false,
        },
    );
    // Read again at once: the next tick asks.
    entry.refresh_now = true;
}

/// For the acknowledge dialog: the node's servers by name with their
/// state, and whether any is still ACTIVE; said when unknown or stale.
pub fn acknowledge_lines(model: &Model, node: &str) -> (Vec<String>, bool) {
    let Some(n) = model.servers.nodes.get(node).filter(|n| n.read.is_some()) else {
        return (
            vec![format!(
                "servers on {node}: unknown, not read in this session"
            )],
            false,
        );
    };
    let (_, at) = n.read.as_ref().expect("filtered");
    let mode: Option<MigrationMode> = model
        .snapshot
        .nodes()
        .find(|x| x.name == node)
        .and_then(|x| x.migration_mode.clone());
    let mut lines = vec![format!(
        "servers on {node} as read at {}{}:",
        at.strftime("%H:%M:%S"),
        if n.stale() {
            " (STALE: the reads since failed)"
        } else {
            ""
        }
    )];
    if n.servers().is_empty() {
        lines.push("  none".into());
    }
    let mut active = false;
    for s in n.servers() {
        active |= s.status == "ACTIVE";
        let task = s
            .task_state
            .as_deref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default();
        lines.push(format!(
            "  {} {}{task}: {}",
            s.name,
            s.status,
            s.controller_will(mode.as_ref())
        ));
    }
    (lines, active)
}

/// Keys while the panel is on top: move, select, act, close.
pub fn on_key(model: &mut Model, key: crossterm::event::KeyEvent) -> Vec<Command> {
    use crate::config::keymap::KeyAction;
    let action = model.keymap.action_for(&key);
    let count = open_node(model)
        .and_then(|n| model.servers.nodes.get(&n))
        .map_or(0, |n| n.servers().len());
    match action {
        Some(KeyAction::Back) | Some(KeyAction::Quit) => {
            model.modals.pop();
        }
        Some(KeyAction::Help) => model
            .modals
            .push(crate::app::modal::Modal::Help { scroll: 0 }),
        Some(KeyAction::Act(id)) if id.on_servers() => {
            return crate::app::actions::start(model, id);
        }
        Some(KeyAction::Act(id)) => model.notify(
            NoticeLevel::Info,
            format!("{}: close the servers panel first (Esc)", id.label()),
        ),
        Some(a @ (KeyAction::Down | KeyAction::Up | KeyAction::Top | KeyAction::Bottom)) => {
            if let Some(crate::app::modal::Modal::Servers(p)) = model.modals.top_mut() {
                let last = count.saturating_sub(1);
                p.cursor = match a {
                    KeyAction::Down => (p.cursor + 1).min(last),
                    KeyAction::Up => p.cursor.saturating_sub(1),
                    KeyAction::Top => 0,
                    _ => last,
                };
            }
        }
        Some(KeyAction::ToggleSelect) => {
            let node = open_node(model);
            let id = node
                .and_then(|n| model.servers.nodes.get(&n))
                .and_then(|n| {
                    let cursor = match model.modals.top() {
                        Some(crate::app::modal::Modal::Servers(p)) => p.cursor,
                        _ => 0,
                    };
                    n.servers().get(cursor).map(|s| s.id.clone())
                });
            if let (Some(id), Some(crate::app::modal::Modal::Servers(p))) =
                (id, model.modals.top_mut())
                && !p.selected.remove(&id)
            {
                p.selected.insert(id);
            }
        }
        _ => {}
    }
    Vec::new()
}

/// The panel's hints, for the footer.
pub fn hints() -> Vec<crate::app::views::Hint> {
    use crate::app::views::Hint;
    use crate::config::keymap::KeyAction;
    vec![
        Hint::act(ActionId::LiveMigrateServers),
        Hint::act(ActionId::StopServers),
        Hint::act(ActionId::ShelveServers),
        Hint::key(KeyAction::ToggleSelect, "select"),
        Hint::key(KeyAction::Back, "close"),
    ]
}
