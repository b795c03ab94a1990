//! The audit table: this session's actions. The audit log itself comes in a
//! later issue; until then the table is empty and says so.

use super::{Column, SortKind, TableData, Width, col};
use crate::app::model::Model;

const COLUMNS: [Column; 5] = [
    col("TIME", Width::Fixed(8), SortKind::Text),
    col("ACTION", Width::Min(14), SortKind::Text),
    col("OBJECT", Width::Min(20), SortKind::Text),
    col("CHANGE", Width::Fill, SortKind::Text),
    col("RESULT", Width::Min(8), SortKind::Text),
];

pub(super) fn table(_model: &Model) -> TableData {
    TableData {
        columns: COLUMNS.to_vec(),
        rows: Vec::new(),
        missing: Vec::new(),
        empty: "no actions taken in this session yet".into(),
    }
}
