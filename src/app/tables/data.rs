//! The typed table a view shows: its columns, its rows (id, node, tone,
//! typed sort keys, and [`Cell`]s whose times stay times), and the filter
//! and sort a cursor applies to them. Pure data: the builders that make
//! it from the model are `super`'s.

use std::borrow::Cow;

use jiff::Timestamp;

use crate::app::views::view::TableCursor;
use crate::domain::objects::{ClusterId, Kind};

/// One cell of a row: text, or a time that the UI draws against the clock
/// of the frame (so a table is not rebuilt every second for its ages).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    /// `before` + the time since `at` on `clock`'s API server + `after`
    /// (`Ready 5m`, `os 39m00s terminating`); with no `at`, the words alone,
    /// or `-` when there are none.
    Age {
        before: String,
        at: Option<Timestamp>,
        clock: ClusterId,
        after: String,
    },
    /// A time of day (`10:28:41`).
    Clock(Timestamp),
}

impl Cell {
    /// The time since `at` (`-` when unknown).
    pub fn age(at: Option<Timestamp>, clock: ClusterId) -> Cell {
        Cell::since("", at, clock, "")
    }
    /// `before` + the time since `at` + `after`.
    pub fn since(
        before: impl Into<String>,
        at: Option<Timestamp>,
        clock: ClusterId,
        after: impl Into<String>,
    ) -> Cell {
        Cell::Age {
            before: before.into(),
            at,
            clock,
            after: after.into(),
        }
    }
    /// The words of the cell without its time: what the filter matches and
    /// a text sort compares (a time of day as an RFC 3339 text, which sorts
    /// in time order).
    pub fn words(&self) -> Cow<'_, str> {
        match self {
            Cell::Text(t) => Cow::Borrowed(t),
            Cell::Age { before, after, .. } if after.is_empty() => Cow::Borrowed(before.trim_end()),
            Cell::Age { before, after, .. } => Cow::Owned(format!("{}{after}", before.trim_end())),
            Cell::Clock(t) => Cow::Owned(t.to_string()),
        }
    }
    /// How wide the cell's text is, without an age (the UI measures the
    /// ages of the rows on screen when it draws them).
    pub fn width(&self) -> u16 {
        let n = |s: &str| s.chars().count().min(u16::MAX as usize) as u16;
        match self {
            Cell::Text(t) => n(t),
            Cell::Age { before, after, .. } => n(before).saturating_add(n(after)).max(1),
            Cell::Clock(_) => 8,
        }
    }
    /// The cell's width depends on the clock (an age).
    pub fn timed(&self) -> bool {
        matches!(self, Cell::Age { at: Some(_), .. })
    }
    /// The time a cell shows an age of, if any.
    pub fn since_time(&self) -> Option<Timestamp> {
        match self {
            Cell::Age { at, .. } => *at,
            _ => None,
        }
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Text(s)
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Text(s.to_string())
    }
}

impl PartialEq<&str> for Cell {
    fn eq(&self, other: &&str) -> bool {
        matches!(self, Cell::Text(t) if t == other)
    }
}

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

pub(super) const fn col(title: &'static str, width: Width, sort: SortKind, priority: u8) -> Column {
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
    pub cells: Vec<Cell>,
    /// Hidden text the `/` filter also matches (node name, full messages).
    pub search: String,
    pub tone: Tone,
    /// The Kubernetes node the row is about, if any: what `space` selects
    /// (`Model::selected_nodes` holds node names).
    pub node: Option<String>,
    /// Typed sort values of the row's Number and Ranked columns (and Age
    /// columns whose cell is not an age): (column index, value). A column
    /// without one sorts last.
    pub keys: Vec<(usize, i64)>,
}

impl TableRow {
    /// The typed sort value of column `i`, if the row has one: its key, else
    /// for an age the negated time it counts from (youngest first).
    pub fn key(&self, i: usize) -> Option<i64> {
        self.keys
            .iter()
            .find(|(c, _)| *c == i)
            .map(|(_, v)| *v)
            .or_else(|| {
                self.cells
                    .get(i)
                    .and_then(Cell::since_time)
                    .map(|t| -t.as_second())
            })
    }
}

/// A row's place when sorting by a column: rows without a typed value
/// last, then the value, then the text (lowercased once per sort), then
/// for a text with an age (`Ready 1h35m`) the age, youngest first.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct SortPlace {
    missing: bool,
    value: i64,
    text: String,
    then: Option<i64>,
}

fn sort_place(kind: SortKind, row: &TableRow, i: usize) -> SortPlace {
    let text = || cell(row, i).to_lowercase();
    match kind {
        SortKind::Text => SortPlace {
            missing: false,
            value: 0,
            text: text(),
            then: row.key(i),
        },
        SortKind::Number | SortKind::Age => SortPlace {
            missing: row.key(i).is_none(),
            value: row.key(i).unwrap_or_default(),
            text: String::new(),
            then: None,
        },
        SortKind::Ranked => SortPlace {
            missing: row.key(i).is_none(),
            value: row.key(i).unwrap_or_default(),
            text: text(),
            then: None,
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
    /// What to say when there are no rows at all.
    pub empty: Empty,
}

/// What an empty table says.
#[derive(Debug, Clone, PartialEq)]
pub enum Empty {
    /// `no <noun> yet` and the state of the watches on `kinds` (drawn by
    /// the UI: it says how long ago each watch last heard).
    NotYet {
        noun: &'static str,
        kinds: Vec<Kind>,
    },
    Text(String),
}

impl Default for Empty {
    fn default() -> Empty {
        Empty::Text(String::new())
    }
}

/// The rows the cursor's filter lets through, in the cursor's sort order.
///
/// Filter: case-insensitive; every whitespace-separated word must occur in
/// the row's cells or its hidden search text. Sort: stable, by the cursor's
/// column (numeric or by age when the column says so), reversed on request;
/// when the cursor groups by a column, by that column first (never reversed).
pub fn visible_rows<'a>(data: &'a TableData, cursor: &TableCursor) -> Vec<&'a TableRow> {
    visible_order(data, cursor)
        .into_iter()
        .map(|i| &data.rows[i])
        .collect()
}

/// [`visible_rows`] as indices into `data.rows`.
pub fn visible_order(data: &TableData, cursor: &TableCursor) -> Vec<usize> {
    let words: Vec<String> = cursor
        .filter
        .split_whitespace()
        .map(|w| w.to_lowercase())
        .collect();
    let mut rows: Vec<usize> = (0..data.rows.len())
        .filter(|&i| words.is_empty() || matches_all(&data.rows[i], &words))
        .collect();
    let row = |i: &usize| &data.rows[*i];
    if let Some(column) = data.columns.get(cursor.sort_column) {
        let i = cursor.sort_column;
        if cursor.sort_reverse {
            rows.sort_by_cached_key(|r| std::cmp::Reverse(sort_place(column.sort, row(r), i)));
        } else {
            rows.sort_by_cached_key(|r| sort_place(column.sort, row(r), i));
        }
    }
    if let Some(g) = cursor.group_column
        && let Some(column) = data.columns.get(g)
    {
        rows.sort_by_cached_key(|r| sort_place(column.sort, row(r), g));
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

fn cell(row: &TableRow, i: usize) -> Cow<'_, str> {
    row.cells.get(i).map(Cell::words).unwrap_or_default()
}

fn matches_all(row: &TableRow, words: &[String]) -> bool {
    let mut hay = String::new();
    for c in &row.cells {
        hay.push_str(&c.words().to_lowercase());
        hay.push('\u{1f}');
    }
    hay.push_str(&row.search.to_lowercase());
    words.iter().all(|w| hay.contains(w.as_str()))
}
