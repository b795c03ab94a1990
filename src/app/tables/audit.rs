//! The audit table: this session's actions, one row per object of each
//! plan (see `app::actions::audit_rows`), newest last.

use super::{Cell, Column, Empty, SortKind, TableData, TableRow, Tone, Width, col};
use crate::app::actions::audit_rows;
use crate::app::model::Model;

const COLUMNS: [Column; 5] = [
    col("TIME", Width::Fixed(8), SortKind::Text, 0),
    col("ACTION", Width::Min(14), SortKind::Text, 0),
    col("OBJECT", Width::Min(20), SortKind::Text, 0),
    col("CHANGE", Width::Fill(20), SortKind::Text, 1),
    col("RESULT", Width::Min(8), SortKind::Text, 0),
];

pub(super) fn table(model: &Model) -> TableData {
    let rows = audit_rows(model)
        .into_iter()
        .map(|r| {
            let outcome = r.result.trim_start_matches("dry-run ");
            let tone = if outcome.starts_with("succeeded") {
                Tone::Ok
            } else if outcome.starts_with("pending") {
                Tone::Warn
            } else {
                Tone::Error
            };
            let node = r.object.strip_prefix("Node/").map(str::to_string);
            TableRow {
                search: format!("{} {}", r.object, r.result),
                cells: vec![
                    Cell::Clock(r.time),
                    r.action.into(),
                    r.object.into(),
                    r.change.into(),
                    r.result.into(),
                ],
                id: r.id,
                tone,
                node,
                keys: Vec::new(),
            }
        })
        .collect();
    TableData {
        columns: COLUMNS.to_vec(),
        rows,
        missing: Vec::new(),
        empty: Empty::Text("no actions taken in this session yet".into()),
    }
}
