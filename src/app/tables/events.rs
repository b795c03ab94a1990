//! The Events view: the changes the console has seen.

use super::{Column, SortKind, TableData, Width, col};
use crate::app::model::Model;

const COLUMNS: [Column; 5] = [
    col("AGE", Width::Fixed(6), SortKind::Age, 0),
    col("TIME", Width::Fixed(8), SortKind::Text, 2),
    col("OBJECT", Width::Min(20), SortKind::Text, 0),
    col("FIELD", Width::Min(12), SortKind::Text, 1),
    col("OLD -> NEW", Width::Fill(20), SortKind::Text, 0),
];

pub(super) fn table(_model: &Model) -> TableData {
    TableData {
        columns: COLUMNS.to_vec(),
        rows: Vec::new(),
        missing: Vec::new(),
        empty: "no changes seen yet".into(),
    }
}
