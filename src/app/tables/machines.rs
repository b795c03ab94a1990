//! The Machines view: one row per machine, joined across both clusters
//! (`domain::join`). When the cluster has update groups (or provider
//! Machines), a GROUP column names each machine's (`rack-1 #2 x3`: name,
//! index, concurrency); the group-by key sorts by it first
//! (`TableCursor::group_column`), rows still one per machine so the cursor
//! and the actions keep targeting machines.

use super::{
    Cell, Column, SortKind, TableData, TableRow, Tone, Width, col, empty_text, malformed_rows,
    missing_lines,
};
use crate::app::model::{Model, View};
use crate::domain::history::History;
use crate::domain::join::{MachineRow, NodeLink, pending};
use crate::domain::objects::{ClusterId, ClusterStateType, Kind, LockState};

use super::locks::controller_short;

const NAME: usize = 1;
const NODE: usize = 4;
const WAITING_ON: usize = 10;
/// The GROUP column ([`super::refs::MACHINES_GROUP`]).
pub const GROUP: usize = super::refs::MACHINES_GROUP;

/// `#` is the update order (masters first, then by the machine index): the
/// default sort, so drawn at every width (the sorted column is never
/// dropped). A declared width is the room a column is given when shown,
/// and which columns fit is decided from these widths alone. At every
/// width the row says which machine it is (NAME: 25 cells keep what tells
/// `cz7503-child-cl-storage-worker-4gpjv` from its peers), where it stands
/// (STATE), what the operator acts on (MODE: the migration mode `m` sets)
/// and what it waits on (WAITING ON, which takes what is left beyond its
/// 23): 75 cells, an 80-column terminal's table.
/// MODE is the mode in effect (`live` whether set or the default).
/// At 120 the maintenance request, the vRouter pod and TYPE join them
/// (the LOCKS' 22 cells would cut WAITING ON); at 160 the LOCKS and the
/// update GROUP; NODE (what tells two `kaas-node-<uuid>` apart) and DRAIN
/// (LCM's message, which WAITING ON already reads) need more.
const COLUMNS: [Column; 11] = [
    col("#", Width::Fixed(3), SortKind::Number, 5),
    col("NAME", Width::Min(25), SortKind::Text, 0).keep_end(),
    col("TYPE", Width::Fixed(7), SortKind::Text, 3),
    col("STATE", Width::Min(14), SortKind::Text, 0),
    col("NODE", Width::Min(26), SortKind::Text, 4).keep_end(),
    col("MODE", Width::Min(6), SortKind::Text, 0),
    col("NMR", Width::Min(9), SortKind::Text, 1),
    col("LOCKS", Width::Min(22), SortKind::Text, 2),
    col("DRAIN", Width::Min(30), SortKind::Text, 4),
    col("VROUTER", Width::Fixed(8), SortKind::Text, 1),
    col("WAITING ON", Width::Fill(23), SortKind::Text, 0),
];

/// `rack-1 #2 x3`: sorted by the index, then the name.
const GROUP_COLUMN: Column = col("GROUP", Width::Min(14), SortKind::Ranked, 3).keep_end();

/// The GROUP cell: the group's label without the `<cluster>-` its name
/// starts with (`rack-1 #2 x3`, `control #1 x1`), `-` when unknown.
pub fn group_text(row: &MachineRow) -> String {
    let Some(g) = &row.update_group else {
        return "-".into();
    };
    let label = g.label();
    let prefix = format!("{}-", row.machine.cluster_name);
    match label.strip_prefix(&prefix) {
        Some(short) if !short.is_empty() => short.to_string(),
        _ => label,
    }
}

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

/// `live (default)`, `manual`, …: the details pane's.
pub fn mode_text(row: &MachineRow) -> String {
    if row.migration_mode_default {
        format!("{} (default)", row.migration_mode.as_str())
    } else {
        row.migration_mode.as_str().to_string()
    }
}

/// The maintenance request: `os 39m00s`, `os 39m00s terminating`, `-`
/// (its age on the MOSK API server's clock, which stamped it).
pub fn nmr_cell(row: &MachineRow) -> Cell {
    match &row.maintenance {
        None => "-".into(),
        Some(r) => {
            let scope = r.scope.clone().unwrap_or_else(|| "?".into());
            let after = if r.deleting { " terminating" } else { "" };
            match r.created {
                Some(c) => Cell::since(format!("{scope} "), Some(c), ClusterId::Mosk, after),
                None => format!("{scope}{after}").into(),
            }
        }
    }
}

/// The cordon-drain cluster state: `done`, `failed: <why>` (the
/// Kubernetes drain's error), `try 4: <message>`, `pending`, `-`.
pub fn drain_text(row: &MachineRow) -> String {
    if let Some(failure) = row.drain_failure() {
        return format!("failed: {}", failure.short());
    }
    let Some(cs) = row.cluster_state(&ClusterStateType::CordonDrain) else {
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
    } else if row.disabled {
        Tone::Muted
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
    if let Some(g) = &row.update_group {
        parts.push(&g.name);
    }
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
/// saw it enter (`Deploy 35m12s`); `disabled (Ready)` for a disabled
/// machine (how long it has been in its state does not matter then).
pub fn state_cell(row: &MachineRow, history: &History) -> Cell {
    if row.disabled {
        let state = if row.state().is_unset() {
            "-"
        } else {
            row.state().as_str()
        };
        return format!("disabled ({state})").into();
    }
    lcm_state_cell(row, history)
}

fn lcm_state_cell(row: &MachineRow, history: &History) -> Cell {
    if row.state().is_unset() {
        return "-".into();
    }
    // The time in the state within the machine's turn: a worker's wait in
    // Prepare before its turn is not its own.
    match history.in_turn_since(row.name()) {
        Some(s) if s.observed => {
            Cell::since(format!("{} ", row.state()), Some(s.at), ClusterId::Mgmt, "")
        }
        _ => row.state().as_str().into(),
    }
}

pub(super) fn row(order: usize, row: &MachineRow, history: &History) -> TableRow {
    let mut cells: Vec<Cell> = vec![
        (order + 1).to_string().into(),
        row.name().into(),
        row.machine_type().as_str().into(),
        state_cell(row, history),
        row.node_name.as_deref().unwrap_or("-").into(),
        // The mode in effect: whether the annotation is set or `live` is the
        // controller's default, the details pane says (`live (default)`).
        row.migration_mode.as_str().into(),
        nmr_cell(row),
        locks_short(row).into(),
        drain_text(row).into(),
        vrouter_text(row).into(),
        row.waiting_on.as_deref().unwrap_or("-").into(),
    ];
    cells.push(group_text(row).into());
    TableRow {
        id: row.name().to_string(),
        cells,
        search: search_text(row),
        tone: tone(row),
        node: row.node_name.clone(),
        // `#` in the join's order; GROUP by the update group's index.
        keys: std::iter::once((0, order as i64 + 1))
            .chain(
                row.update_group
                    .as_ref()
                    .and_then(|g| g.index)
                    .map(|i| (GROUP, i)),
            )
            .collect(),
    }
}

pub(super) fn table(model: &Model) -> TableData {
    let d = &model.derived;
    let kinds = [Kind::LcmMachine];
    // GROUP is always a column (`-` without update groups): columns do not
    // come and go with the data, only with the width.
    let mut columns = COLUMNS.to_vec();
    let mut group = GROUP_COLUMN;
    if model.cursor(View::Machines).group_column == Some(GROUP) {
        // Grouped by it: never dropped from a narrow screen; WAITING ON
        // gives up the room it takes at 80 columns.
        group.priority = 0;
        columns[WAITING_ON].width = Width::Fill(22);
    }
    columns.push(group);
    let mut rows: Vec<TableRow> = d
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| row(i, r, &model.history))
        .collect();
    rows.extend(malformed_rows(
        model,
        Kind::LcmMachine,
        columns.len(),
        NAME,
        WAITING_ON,
    ));
    rows.extend(malformed_rows(
        model,
        Kind::Node,
        columns.len(),
        NODE,
        WAITING_ON,
    ));
    TableData {
        columns,
        rows,
        missing: missing_lines(model, &[Kind::LcmMachine, Kind::Node]),
        empty: empty_text("machines", &kinds),
    }
}
