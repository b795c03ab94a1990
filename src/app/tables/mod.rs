//! Placeholder for the table builders (the UI branch replaces this file).

use crate::app::model::{Model, TableCursor, View};

pub struct TableRow {
    pub id: String,
    pub cells: Vec<String>,
    pub search: String,
}

pub struct TableData {
    pub rows: Vec<TableRow>,
}

pub fn table(_model: &Model, _view: View) -> TableData {
    TableData { rows: Vec::new() }
}

pub fn visible_rows<'a>(data: &'a TableData, _cursor: &TableCursor) -> Vec<&'a TableRow> {
    data.rows.iter().collect()
}
