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

use std::collections::BTreeSet;

use jiff::Timestamp;

use crate::app::model::{Model, NoticeLevel};
use crate::app::msg::Command;
use crate::cluster::openstack::{CliError, ServersRead};
use crate::domain::action::ActionId;
use crate::domain::objects::MigrationMode;

pub use crate::app::servers_state::*;

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
            cursor_id: None,
            selected: BTreeSet::new(),
        }));
    ask(model, &node)
}

fn ask(model: &mut Model, node: &str) -> Vec<Command> {
    // Another cluster's MOSK context would answer for its own hosts: an
    // empty list would read as "no server on this node". Not asked; the
    // panel says the servers are unknown.
    if model.derived.mosk_context.is_mismatch() {
        return Vec::new();
    }
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
            for m in model.modals.iter_mut() {
                if let crate::app::modal::Modal::Servers(p) = m
                    && p.node == node
                {
                    p.follow(&read.servers);
                }
            }
            let entry = model.servers.nodes.entry(node).or_default();
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

/// For the acknowledge dialog: the node's servers by name with their
/// state, and whether any is still ACTIVE; said when unknown or stale.
pub fn acknowledge_lines(model: &Model, node: &str) -> (Vec<String>, bool) {
    if model.derived.mosk_context.is_mismatch() {
        return (
            vec![format!(
                "servers on {node}: unknown, the MOSK context is another cluster's"
            )],
            false,
        );
    }
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
            let ids: Vec<String> = open_node(model)
                .and_then(|n| model.servers.nodes.get(&n))
                .map(|n| n.servers().iter().map(|s| s.id.clone()).collect())
                .unwrap_or_default();
            if let Some(crate::app::modal::Modal::Servers(p)) = model.modals.top_mut() {
                let last = count.saturating_sub(1);
                p.cursor = match a {
                    KeyAction::Down => (p.cursor + 1).min(last),
                    KeyAction::Up => p.cursor.saturating_sub(1),
                    KeyAction::Top => 0,
                    _ => last,
                };
                p.cursor_id = ids.get(p.cursor).cloned();
            }
        }
        Some(KeyAction::ToggleSelect) => {
            let node = open_node(model);
            let id = node
                .and_then(|n| model.servers.nodes.get(&n))
                .and_then(|n| match model.modals.top() {
                    Some(crate::app::modal::Modal::Servers(p)) => p
                        .under_cursor(n.servers())
                        .ok()
                        .flatten()
                        .map(|s| s.id.clone()),
                    _ => None,
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
