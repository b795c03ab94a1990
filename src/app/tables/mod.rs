//! Table data per view, as plain strings: pure builders from the model, and
//! the filter and sort the cursor applies. The UI renders a [`TableData`]
//! with one generic table widget; `update` uses the same rows to move the
//! cursor and to find what `space` selects.

mod audit;
mod derived;
pub mod events;
mod locks;
pub mod machines;
mod requests;
mod states;
pub mod update_plan;
mod vrouter;

use crate::app::model::{Model, TableCursor, View};
use crate::domain::objects::{Kind, MalformedObject};
use crate::ui::format;

pub use derived::{Derived, derived};

/// How wide a column may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// Exactly this many cells.
    Fixed(u16),
    /// Up to this many cells are kept when space is short (less when the
    /// content is narrower); grows to fit the content when there is room.
    Min(u16),
    /// Whatever is left; up to this many cells are kept when space is short.
    Fill(u16),
}

/// How a column sorts. Number, Age and Ranked columns sort by the typed
/// values the builders put in [`TableRow::keys`], never by their text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKind {
    /// By the text, case-insensitive.
    Text,
    /// By the row's number for the column (`12`, `3/5` -> 3, `40%` -> 40);
    /// rows without one sort last.
    Number,
    /// By the row's age for the column in seconds: youngest first; rows
    /// without one sort last.
    Age,
    /// By the row's rank for the column (the update group's index), then by
    /// the text; rows without one sort last.
    Ranked,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub title: &'static str,
    pub width: Width,
    pub sort: SortKind,
    /// Which columns to drop first when the terminal is narrow: 0 is always
    /// shown, higher numbers go first.
    pub priority: u8,
    /// Names such as `kaas-node-<uuid>` differ at the end: cut them in the
    /// middle, not at the end.
    pub keep_end: bool,
}

impl Column {
    /// The same column, cut in the middle when too narrow.
    pub const fn keep_end(self) -> Column {
        Column {
            keep_end: true,
            ..self
        }
    }
}

const fn col(title: &'static str, width: Width, sort: SortKind, priority: u8) -> Column {
    Column {
        title,
        width,
        sort,
        priority,
        keep_end: false,
    }
}

/// How a row should look. Every tone is also said in the row's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tone {
    #[default]
    Normal,
    Ok,
    Warn,
    Error,
    /// Waits for a human.
    Attention,
    Muted,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    /// Stable across updates (the machine name, the object key, …): the
    /// cursor follows it.
    pub id: String,
    pub cells: Vec<String>,
    /// Hidden text the `/` filter also matches (node name, full messages).
    pub search: String,
    pub tone: Tone,
    /// The Kubernetes node the row is about, if any: what `space` selects
    /// (`Model::selected_nodes` holds node names).
    pub node: Option<String>,
    /// Typed sort values of the row's Number, Age and Ranked columns:
    /// (column index, value). A column without one sorts last.
    pub keys: Vec<(usize, i64)>,
}

impl TableRow {
    /// The typed sort value of column `i`, if the row has one.
    pub fn key(&self, i: usize) -> Option<i64> {
        self.keys.iter().find(|(c, _)| *c == i).map(|(_, v)| *v)
    }
}

/// A row's place when sorting by a column: rows without a typed value
/// last, then the value, then the text (lowercased once per sort).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct SortPlace {
    missing: bool,
    value: i64,
    text: String,
}

fn sort_place(kind: SortKind, row: &TableRow, i: usize) -> SortPlace {
    let text = || cell(row, i).to_lowercase();
    match kind {
        SortKind::Text => SortPlace {
            missing: false,
            value: 0,
            text: text(),
        },
        SortKind::Number | SortKind::Age => SortPlace {
            missing: row.key(i).is_none(),
            value: row.key(i).unwrap_or_default(),
            text: String::new(),
        },
        SortKind::Ranked => SortPlace {
            missing: row.key(i).is_none(),
            value: row.key(i).unwrap_or_default(),
            text: text(),
        },
    }
}

/// What a table view shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableData {
    pub columns: Vec<Column>,
    pub rows: Vec<TableRow>,
    /// One line per kind of this table whose CRD is missing, saying so.
    pub missing: Vec<String>,
    /// What to say when there are no rows at all ("no locks yet" + watch state).
    pub empty: String,
}

/// The table of a view (`Overview` and `Logs` are not tables: empty data).
pub fn table(model: &Model, view: View) -> TableData {
    match view {
        View::Machines => machines::table(model),
        View::States => states::table(model),
        View::Locks => locks::table(model),
        View::Requests => requests::table(model),
        View::Vrouter => vrouter::table(model),
        View::Events => events::table(model),
        View::Audit => audit::table(model),
        View::UpdatePlan => update_plan::table(model),
        View::Overview | View::Logs => TableData::default(),
    }
}

/// The rows the cursor's filter lets through, in the cursor's sort order.
///
/// Filter: case-insensitive; every whitespace-separated word must occur in
/// the row's cells or its hidden search text. Sort: stable, by the cursor's
/// column (numeric or by age when the column says so), reversed on request;
/// when the cursor groups by a column, by that column first (never reversed).
pub fn visible_rows<'a>(data: &'a TableData, cursor: &TableCursor) -> Vec<&'a TableRow> {
    let words: Vec<String> = cursor
        .filter
        .split_whitespace()
        .map(|w| w.to_lowercase())
        .collect();
    let mut rows: Vec<&TableRow> = data
        .rows
        .iter()
        .filter(|r| words.is_empty() || matches_all(r, &words))
        .collect();
    if let Some(column) = data.columns.get(cursor.sort_column) {
        let i = cursor.sort_column;
        if cursor.sort_reverse {
            rows.sort_by_cached_key(|r| std::cmp::Reverse(sort_place(column.sort, r, i)));
        } else {
            rows.sort_by_cached_key(|r| sort_place(column.sort, r, i));
        }
    }
    if let Some(g) = cursor.group_column
        && let Some(column) = data.columns.get(g)
    {
        rows.sort_by_cached_key(|r| sort_place(column.sort, r, g));
    }
    rows
}

/// The column `s` sorts by next: the first of `shown` (the columns drawn,
/// in order) after `current`, else the first (wrapping); `None` when no
/// column is shown.
pub fn next_sort_column(current: usize, shown: &[usize]) -> Option<usize> {
    shown
        .iter()
        .copied()
        .find(|&c| c > current)
        .or_else(|| shown.first().copied())
}

/// The index of the cursor's row among `rows`: the row with the cursor's id,
/// else the remembered index clamped to the rows; `None` when there are none.
pub fn selected_index(rows: &[&TableRow], cursor: &TableCursor) -> Option<usize> {
    if rows.is_empty() {
        return None;
    }
    if let Some(id) = &cursor.selected_id
        && let Some(i) = rows.iter().position(|r| &r.id == id)
    {
        return Some(i);
    }
    Some(cursor.selected.min(rows.len() - 1))
}

fn cell(row: &TableRow, i: usize) -> &str {
    row.cells.get(i).map(|s| s.as_str()).unwrap_or("")
}

fn matches_all(row: &TableRow, words: &[String]) -> bool {
    let mut hay = row.cells.join("\u{1f}").to_lowercase();
    hay.push('\u{1f}');
    hay.push_str(&row.search.to_lowercase());
    words.iter().all(|w| hay.contains(w.as_str()))
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

/// The state of the watches on `kinds`, for empty tables.
pub fn watch_state(model: &Model, kinds: &[Kind]) -> String {
    let parts: Vec<String> = kinds
        .iter()
        .map(|k| {
            let what = match model.health.get(k) {
                None => "watch starting".to_string(),
                Some(h) if !h.connected => match &h.last_error {
                    Some(e) => format!("watch disconnected: {e}"),
                    None => "watch connecting".to_string(),
                },
                Some(h) => match (&h.last_error, h.last_event) {
                    (Some(e), _) => format!("watch degraded: {e}"),
                    (None, Some(t)) => {
                        format!("watch ok, last event {} ago", format::age(model.now, t))
                    }
                    (None, None) => "watch ok, nothing received".to_string(),
                },
            };
            if kinds.len() > 1 {
                format!("{}: {what}", k.api_kind())
            } else {
                what
            }
        })
        .collect();
    parts.join("; ")
}

/// The "no … yet" text of an empty table.
fn empty_text(model: &Model, noun: &str, kinds: &[Kind]) -> String {
    format!("no {noun} yet ({})", watch_state(model, kinds))
}

/// An error row for an object that could not be read. `width` is the number
/// of columns; the name goes to `name_col`, the error to `msg_col`.
fn malformed_row(m: &MalformedObject, width: usize, name_col: usize, msg_col: usize) -> TableRow {
    let mut cells = vec!["-".to_string(); width];
    if let Some(c) = cells.get_mut(name_col) {
        c.clone_from(&m.name);
    }
    if let Some(c) = cells.get_mut(msg_col) {
        *c = format!("MALFORMED {}: {}", m.kind.api_kind(), m.error);
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

#[cfg(test)]
mod tests;
