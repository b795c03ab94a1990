//! The Machines view: one row per machine, joined across both clusters
//! (`domain::join`).

use super::{
    Column, SortKind, TableData, TableRow, Tone, Width, col, derived, empty_text, malformed_rows,
    missing_lines,
};
use crate::app::model::Model;
use crate::domain::history::History;
use crate::domain::join::{MachineRow, NodeLink, pending};
use crate::domain::objects::{ClusterId, Kind, LockState};
use crate::ui::format;

use super::locks::controller_short;

const NAME: usize = 1;
const NODE: usize = 4;
const WAITING_ON: usize = 10;

/// `#` is the update order (masters first, then by the machine index): the
/// default sort, dropped from narrow screens but still sortable.
const COLUMNS: [Column; 11] = [
    col("#", Width::Fixed(3), SortKind::Number, 5),
    col("NAME", Width::Min(32), SortKind::Text, 0).keep_end(),
    col("TYPE", Width::Fixed(7), SortKind::Text, 4),
    col("STATE", Width::Min(13), SortKind::Text, 0),
    col("NODE", Width::Min(16), SortKind::Text, 3).keep_end(),
    col("MODE", Width::Min(6), SortKind::Text, 2),
    col("NMR", Width::Min(9), SortKind::Text, 1),
    col("LOCKS", Width::Min(20), SortKind::Text, 2),
    col("DRAIN", Width::Min(8), SortKind::Text, 3),
    col("VROUTER", Width::Fixed(8), SortKind::Text, 2),
    col("WAITING ON", Width::Fill(36), SortKind::Text, 0),
];

/// `os:active ceph:inactive tf:inactive`.
pub fn locks_short(row: &MachineRow) -> String {
    if row.locks.is_empty() {
        return "-".into();
    }
    row.locks
        .iter()
        .map(|l| {
            let state = match &l.lock.state {
                LockState::Other(s) if s.is_empty() => "?",
                s => s.as_str(),
            };
            format!("{}:{state}", controller_short(&l.lock.controller))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `live (default)`, `manual`, ….
pub fn mode_text(row: &MachineRow) -> String {
    if row.migration_mode_default {
        format!("{} (default)", row.migration_mode.as_str())
    } else {
        row.migration_mode.as_str().to_string()
    }
}

/// The maintenance request: `os 39m00s`, `os 39m00s terminating`, `-`.
pub fn nmr_text(row: &MachineRow, model: &Model) -> String {
    match &row.maintenance {
        None => "-".into(),
        Some(r) => {
            let mut s = r.scope.clone().unwrap_or_else(|| "?".into());
            if let Some(c) = r.created {
                s.push(' ');
                s.push_str(&format::age(model.now_on(ClusterId::Mosk), c));
            }
            if r.deleting {
                s.push_str(" terminating");
            }
            s
        }
    }
}

/// The cordon-drain cluster state: `done`, `try 4: <message>`, `pending`, `-`.
pub fn drain_text(row: &MachineRow) -> String {
    let Some(cs) = row.cluster_state("cordon-drain") else {
        return "-".into();
    };
    if !pending(cs) {
        return "done".into();
    }
    let msg = cs.message.as_deref().filter(|m| !m.is_empty());
    match (cs.attempt, msg) {
        (Some(n), Some(m)) => format!("try {n}: {m}"),
        (Some(n), None) if n > 0 => format!("try {n}"),
        (_, Some(m)) => m.to_string(),
        _ => "pending".into(),
    }
}

/// `ok`, `outdated`, `unknown` or `-` (no pod on the node).
pub fn vrouter_text(row: &MachineRow) -> String {
    if row.vrouter.is_empty() {
        return "-".into();
    }
    match row.vrouter_outdated() {
        Some(true) => "outdated",
        Some(false) => "ok",
        None => "unknown",
    }
    .into()
}

fn tone(row: &MachineRow) -> Tone {
    if row.locks.iter().any(|l| l.lock.state == LockState::Failed)
        || matches!(row.node, NodeLink::NotFound)
    {
        Tone::Error
    } else if row.servers_present().is_some() {
        Tone::Attention
    } else if row.waiting_on.is_some() {
        Tone::Warn
    } else if row.is_ready() {
        Tone::Ok
    } else {
        Tone::Normal
    }
}

fn search_text(row: &MachineRow) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if let Some(n) = &row.node_name {
        parts.push(n);
    }
    if let Some(ip) = &row.machine.internal_ip {
        parts.push(ip);
    }
    for l in &row.locks {
        if let Some(m) = &l.lock.error_message {
            parts.push(m);
        }
    }
    for s in &row.cluster_states {
        if let Some(m) = &s.message {
            parts.push(m);
        }
    }
    parts.join("\n")
}

/// The state, with how long the machine has been in it when the console
/// saw it enter (`Deploy 35m12s`).
pub fn state_text(row: &MachineRow, history: &History, model: &Model) -> String {
    if row.state().is_empty() {
        return "-".into();
    }
    match history.machine_state_since(row.name()) {
        Some(t) if history.machine_state_observed(row.name()) => {
            format!("{} {}", row.state(), format::age(model.now, t))
        }
        _ => row.state().to_string(),
    }
}

pub(super) fn row(order: usize, row: &MachineRow, history: &History, model: &Model) -> TableRow {
    TableRow {
        id: row.name().to_string(),
        cells: vec![
            (order + 1).to_string(),
            row.name().to_string(),
            row.machine_type().as_str().to_string(),
            state_text(row, history, model),
            row.node_name.clone().unwrap_or_else(|| "-".into()),
            mode_text(row),
            nmr_text(row, model),
            locks_short(row),
            drain_text(row),
            vrouter_text(row),
            row.waiting_on.clone().unwrap_or_else(|| "-".into()),
        ],
        search: search_text(row),
        tone: tone(row),
        node: row.node_name.clone(),
    }
}

pub(super) fn table(model: &Model) -> TableData {
    let d = derived(model);
    let kinds = [Kind::LcmMachine];
    let mut rows: Vec<TableRow> = d
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| row(i, r, &model.history, model))
        .collect();
    rows.extend(malformed_rows(
        model,
        Kind::LcmMachine,
        COLUMNS.len(),
        NAME,
        WAITING_ON,
    ));
    rows.extend(malformed_rows(
        model,
        Kind::Node,
        COLUMNS.len(),
        NODE,
        WAITING_ON,
    ));
    TableData {
        columns: COLUMNS.to_vec(),
        rows,
        missing: missing_lines(model, &[Kind::LcmMachine, Kind::Node]),
        empty: empty_text(model, "machines", &kinds),
    }
}
