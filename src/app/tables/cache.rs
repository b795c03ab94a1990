//! The tables `update` keeps: for each table view shown, its rows (rebuilt
//! only when what they read changed) and the cursor's filter and sort of
//! them (redone only when the cursor's filter, sort or grouping changed).
//! A key press that moves the cursor reads these; nothing is rebuilt.

use jiff::Timestamp;

use crate::app::tables::data::{TableData, TableRow, selected_index, visible_order};
use crate::app::views::view::{TableCursor, View};
use crate::domain::objects::Kind;

/// One view's table as `update` last settled it.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewTable {
    pub data: TableData,
    /// Indices into `data.rows` of the rows the cursor's filter lets
    /// through, in the cursor's order.
    pub order: Vec<usize>,
    /// Per column, the widest cell among the rows in `order`.
    pub content_widths: Vec<u16>,
    inputs: Inputs,
    ordered_for: OrderKey,
}

impl ViewTable {
    /// The rows shown, in order.
    pub fn rows(&self) -> Vec<&TableRow> {
        self.order.iter().map(|&i| &self.data.rows[i]).collect()
    }

    /// The row at place `i` of the order.
    pub fn row(&self, i: usize) -> Option<&TableRow> {
        self.order.get(i).map(|&r| &self.data.rows[r])
    }

    /// The place of the cursor's row in the order ([`selected_index`]).
    pub fn selected(&self, cursor: &TableCursor) -> Option<usize> {
        selected_index(&self.rows(), cursor)
    }

    pub(super) fn new(data: TableData, inputs: Inputs, cursor: &TableCursor) -> ViewTable {
        let mut t = ViewTable {
            data,
            order: Vec::new(),
            content_widths: Vec::new(),
            inputs,
            ordered_for: OrderKey::of(cursor),
        };
        t.reorder(cursor);
        t
    }

    /// Whether what the rows read is as it was when they were built, and
    /// the order is the cursor's.
    pub(super) fn current(&self, inputs: &Inputs, cursor: &TableCursor) -> (bool, bool) {
        let rows = self.inputs.still(inputs);
        (rows, rows && self.ordered_for == OrderKey::of(cursor))
    }

    pub(super) fn reorder(&mut self, cursor: &TableCursor) {
        self.order = visible_order(&self.data, cursor);
        self.content_widths = (0..self.data.columns.len())
            .map(|c| {
                self.order
                    .iter()
                    .filter_map(|&r| self.data.rows[r].cells.get(c))
                    .map(|cell| cell.width())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        self.ordered_for = OrderKey::of(cursor);
    }
}

/// What a table's rows read besides the builder's fixed inputs.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Inputs {
    /// The snapshot (and its history) the rows were built from.
    generation: u64,
    /// The Machines view's grouping (it moves a column).
    group: Option<usize>,
    /// The kinds whose CRD is missing (a table says so; a kind with no
    /// objects can go missing without the snapshot moving).
    missing: Vec<Kind>,
    /// Views whose rows also read the clock or this session's actions are
    /// rebuilt at every settle (they are small): the time they were built at.
    volatile: Option<Timestamp>,
}

impl Inputs {
    /// What the rows of `view` read: the snapshot's generation, the
    /// cursor's grouping, the kinds missing, and for the volatile views the
    /// time.
    pub(super) fn new(
        view: View,
        generation: u64,
        group: Option<usize>,
        missing: Vec<Kind>,
        now: Timestamp,
    ) -> Inputs {
        Inputs {
            generation,
            group,
            missing,
            volatile: matches!(view, View::Audit | View::UpdatePlan).then_some(now),
        }
    }
    fn still(&self, now: &Inputs) -> bool {
        // A volatile table is never still.
        self.volatile.is_none() && self == now
    }
}

/// What the order depends on.
#[derive(Debug, Clone, PartialEq)]
struct OrderKey {
    filter: String,
    sort_column: usize,
    sort_reverse: bool,
    group_column: Option<usize>,
}

impl OrderKey {
    fn of(c: &TableCursor) -> OrderKey {
        OrderKey {
            filter: c.filter.clone(),
            sort_column: c.sort_column,
            sort_reverse: c.sort_reverse,
            group_column: c.group_column,
        }
    }
}
