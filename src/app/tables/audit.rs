//! The audit table: this session's actions. The audit log itself comes in a
//! later issue; until then the table is empty and says so.

use super::{Column, SortKind, TableData, Width, col};
use crate::app::model::Model;

const COLUMNS: [Column; 5] = [
    col("TIME", Width::Fixed(8), SortKind::Text, 0),
    col("ACTION", Width::Min(14), SortKind::Text, 0),
    col("OBJECT", Width::Min(20), SortKind::Text, 0),
    col("CHANGE", Width::Fill(20), SortKind::Text, 1),
    col("RESULT", Width::Min(8), SortKind::Text, 0),
];

pub(super) fn table(_model: &Model) -> TableData {
    TableData {
        columns: COLUMNS.to_vec(),
        rows: Vec::new(),
        missing: Vec::new(),
        empty: "no actions taken in this session yet".into(),
    }
}
