//! Cluster states (LCMClusterState): what LCM asked (value) and what was
//! applied (actual), per machine.

use super::{
    Column, SortKind, TableData, TableRow, Tone, Width, col, empty_text, malformed_rows,
    missing_lines, or_dash,
};
use crate::app::model::Model;
use crate::domain::objects::{ClusterState, Kind};

const COLUMNS: [Column; 7] = [
    col("NAME", Width::Min(18), SortKind::Text, 2).keep_end(),
    col("TYPE", Width::Fixed(13), SortKind::Text, 1),
    col("ARG", Width::Min(18), SortKind::Text, 0),
    col("VALUE", Width::Fixed(5), SortKind::Text, 0),
    col("ACTUAL", Width::Fixed(6), SortKind::Text, 0),
    col("ATTEMPT", Width::Fixed(7), SortKind::Number, 1),
    col("MESSAGE", Width::Fill(24), SortKind::Text, 0),
];

/// Whether LCM got what it asked for.
pub(crate) fn applied(s: &ClusterState) -> bool {
    s.value.is_some() && s.value == s.actual_value
}

fn tone(s: &ClusterState) -> Tone {
    if applied(s) {
        Tone::Ok
    } else if s.message.as_deref().is_some_and(|m| !m.is_empty()) {
        Tone::Warn
    } else {
        Tone::Normal
    }
}

pub(crate) fn row(s: &ClusterState) -> TableRow {
    TableRow {
        id: format!("{}/{}", s.namespace, s.name),
        cells: vec![
            s.name.clone().into(),
            s.state_type.to_string().into(),
            or_dash(s.arg.as_deref()).into(),
            or_dash(s.value.as_deref()).into(),
            or_dash(s.actual_value.as_deref()).into(),
            s.attempt
                .map(|a| a.to_string())
                .unwrap_or_else(|| "-".into())
                .into(),
            or_dash(s.message.as_deref()).into(),
        ],
        search: s.cluster_name.clone(),
        tone: tone(s),
        node: None,
        keys: s.attempt.map(|a| (5, a)).into_iter().collect(),
    }
}

pub(super) fn table(model: &Model) -> TableData {
    let kinds = [Kind::LcmClusterState];
    let mut rows: Vec<TableRow> = model.snapshot.cluster_states().map(row).collect();
    rows.extend(malformed_rows(
        model,
        Kind::LcmClusterState,
        COLUMNS.len(),
        0,
        6,
    ));
    TableData {
        columns: COLUMNS.to_vec(),
        rows,
        missing: missing_lines(model, &kinds),
        empty: empty_text("cluster states", &kinds),
    }
}
