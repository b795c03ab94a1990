//! Table data per view: pure builders from the model into typed rows
//! ([`TableRow`]: id, node, tone, typed sort keys, and [`Cell`]s whose times
//! stay times), and the filter and sort the cursor applies. `update` keeps
//! each shown view's table, filtered and sorted, in [`Derived::tables`]
//! ([`ViewTable`], rebuilt only when what it reads changed); the cursor, the
//! selection and the actions read those rows, and the UI turns the cells of
//! the rows on screen into text (ages against the clock of the frame).

mod audit;
pub mod cache;
pub mod data;
pub mod events;
pub mod locks;
pub mod machines;
pub mod plan_steps;
pub mod refs;
pub mod requests;
pub mod states;
mod vrouter_pods;

use crate::app::model::{Model, View};
use crate::domain::objects::{Kind, MalformedObject};
use cache::Inputs;

pub use cache::ViewTable;
use data::col;
pub use data::*;

/// The table of a view (`Overview` and `Logs` are not tables: empty data).
pub fn table(model: &Model, view: View) -> TableData {
    match view {
        View::Machines => machines::table(model),
        View::States => states::table(model),
        View::Locks => locks::table(model),
        View::Requests => requests::table(model),
        View::Vrouter => vrouter_pods::table(model),
        View::Events => events::table(model),
        View::Audit => audit::table(model),
        View::UpdatePlan => plan_steps::table(model),
        View::Overview | View::Logs | View::Wrapup | View::Ready => TableData::default(),
    }
}

/// One line per kind in `kinds` whose CRD is missing.
fn missing_lines(model: &Model, kinds: &[Kind]) -> Vec<String> {
    kinds
        .iter()
        .filter_map(|k| {
            model.missing_kinds.get(k).map(|why| {
                format!(
                    "{} is not served by the {} cluster (CRD missing?): {why}",
                    k.api_kind(),
                    k.cluster().label()
                )
            })
        })
        .collect()
}

/// The "no … yet" of an empty table; the UI adds the watches' state.
fn empty_text(noun: &'static str, kinds: &[Kind]) -> Empty {
    Empty::NotYet {
        noun,
        kinds: kinds.to_vec(),
    }
}

/// An error row for an object that could not be read. `width` is the number
/// of columns; the name goes to `name_col`, the error to `msg_col`.
fn malformed_row(m: &MalformedObject, width: usize, name_col: usize, msg_col: usize) -> TableRow {
    let mut cells = vec![Cell::from("-"); width];
    if let Some(c) = cells.get_mut(name_col) {
        *c = m.name.clone().into();
    }
    if let Some(c) = cells.get_mut(msg_col) {
        *c = format!("MALFORMED {}: {}", m.kind.api_kind(), m.error).into();
    }
    TableRow {
        id: format!("malformed/{:?}/{}/{}", m.kind, m.namespace, m.name),
        cells,
        search: m.error.clone(),
        tone: Tone::Error,
        node: None,
        keys: Vec::new(),
    }
}

/// The error rows of `kind`'s objects that could not be read.
fn malformed_rows(
    model: &Model,
    kind: Kind,
    width: usize,
    name_col: usize,
    msg_col: usize,
) -> Vec<TableRow> {
    model
        .snapshot
        .malformed()
        .filter(|m| m.kind == kind)
        .map(|m| malformed_row(m, width, name_col, msg_col))
        .collect()
}

/// Malformed objects of a cluster-wide kind and its per-node twin (locks,
/// maintenance requests), with `cluster` or `node` in the first column like
/// the well-formed rows.
fn scoped_malformed_rows(
    model: &Model,
    [cluster_kind, node_kind]: [Kind; 2],
    width: usize,
    name_col: usize,
    msg_col: usize,
) -> Vec<TableRow> {
    let mut rows = Vec::new();
    for (kind, scope) in [(cluster_kind, "cluster"), (node_kind, "node")] {
        let mut bad = malformed_rows(model, kind, width, name_col, msg_col);
        for r in &mut bad {
            r.cells[0] = scope.into();
        }
        rows.extend(bad);
    }
    rows
}

/// `-` for a missing value.
fn or_dash(s: Option<&str>) -> String {
    match s {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => "-".to_string(),
    }
}

/// Brings the current view's table up to date (called by `update`'s settle,
/// after the derived data it reads).
pub fn settle(model: &mut Model) {
    let view = model.view;
    if !view.is_table() {
        return;
    }
    let cursor = model.cursor(view);
    let inputs = Inputs::new(
        view,
        model.snapshot.generation(),
        cursor.group_column,
        model.missing_kinds.keys().copied().collect(),
        model.now,
    );
    match model.derived.tables.get_mut(&view) {
        Some(t) if t.current(&inputs, &cursor).0 => {
            if t.current(&inputs, &cursor).1 {
                return;
            }
            t.reorder(&cursor);
        }
        _ => {
            let t = ViewTable::new(table(model, view), inputs, &cursor);
            model.derived.tables.insert(view, t);
        }
    }
    // The cursor's row may have moved (a new sort, rows added): keep its
    // place in step so that, should the row go, the cursor stays near.
    let place = model.derived.tables[&view].selected(&cursor);
    if let Some(i) = place {
        model.cursor_mut(view).selected = i;
    }
}

/// The table of `view` as `update` last settled it; `None` for a view that
/// is not a table or has not been shown.
pub fn shown(model: &Model, view: View) -> Option<&ViewTable> {
    model.derived.tables.get(&view)
}

#[cfg(test)]
mod tests;
