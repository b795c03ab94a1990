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

use std::cmp::Ordering;

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

/// How a column sorts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKind {
    Text,
    /// Numerically by the leading number of the cell (`12`, `3/5`, `40%`);
    /// cells without a number sort last.
    Number,
    /// By the age written in the cell (`5s`, `4m12s`, `2h05m`): youngest first;
    /// cells without an age sort last.
    Age,
    /// By the `#N` rank written in the cell (`rack-1 #2 x3` -> 2), then by
    /// the text; cells without a rank sort last.
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
        rows.sort_by(|a, b| {
            let ord = compare(column.sort, cell(a, i), cell(b, i));
            if cursor.sort_reverse {
                ord.reverse()
            } else {
                ord
            }
        });
    }
    if let Some(g) = cursor.group_column
        && let Some(column) = data.columns.get(g)
    {
        rows.sort_by(|a, b| compare(column.sort, cell(a, g), cell(b, g)));
    }
    rows
}

fn compare(kind: SortKind, x: &str, y: &str) -> Ordering {
    match kind {
        SortKind::Text => x.to_lowercase().cmp(&y.to_lowercase()),
        SortKind::Number => cmp_missing_last(leading_number(x), leading_number(y)),
        SortKind::Age => cmp_missing_last(parse_age(x), parse_age(y)),
        SortKind::Ranked => {
            cmp_missing_last(rank(x), rank(y)).then_with(|| x.to_lowercase().cmp(&y.to_lowercase()))
        }
    }
}

/// The number after the first ` #` of a cell (`rack-1 #2 x3` -> 2).
fn rank(s: &str) -> Option<i64> {
    let (_, after) = s.split_once(" #")?;
    let end = after
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(after.len(), |(i, _)| i);
    after[..end].parse().ok()
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

fn cmp_missing_last<T: PartialOrd>(a: Option<T>, b: Option<T>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// The number a cell starts with (`12`, `-3`, `3/5` -> 3, `40%` -> 40).
fn leading_number(s: &str) -> Option<f64> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && c == '-')))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    s[..end].parse().ok()
}

/// Reads back an age written by [`format::duration_secs`] (`2h05m` -> 7500).
/// Trailing words (`4m12s ago`) are ignored.
fn parse_age(s: &str) -> Option<i64> {
    let s = s.split_whitespace().next()?;
    let mut total = 0i64;
    let mut num = String::new();
    let mut any = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400,
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return None,
        };
        total += num.parse::<i64>().ok()? * unit;
        num.clear();
        any = true;
    }
    (any && num.is_empty()).then_some(total)
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
