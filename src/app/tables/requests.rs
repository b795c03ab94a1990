//! Maintenance requests: the ClusterMaintenanceRequest and one
//! NodeMaintenanceRequest per node being worked on.

use super::{
    Column, SortKind, TableData, TableRow, Tone, Width, col, empty_text, missing_lines, or_dash,
    scoped_malformed_rows,
};
use crate::app::model::Model;
use crate::domain::objects::{ClusterId, Kind};
use crate::ui::format;

const COLUMNS: [Column; 7] = [
    col("KIND", Width::Fixed(7), SortKind::Text, 1),
    col("NAME", Width::Min(16), SortKind::Text, 0).keep_end(),
    col("NODE", Width::Min(16), SortKind::Text, 0).keep_end(),
    col("SCOPE", Width::Fixed(6), SortKind::Text, 0),
    col("RELEASE", Width::Min(8), SortKind::Text, 3),
    col("AGE", Width::Fixed(6), SortKind::Age, 1),
    col("TERMINATING", Width::Fixed(11), SortKind::Text, 2),
];

/// The AGE column's typed value.
fn age_key(now: jiff::Timestamp, created: Option<jiff::Timestamp>) -> Vec<(usize, i64)> {
    created
        .map(|t| (5, format::secs_between(now, t)))
        .into_iter()
        .collect()
}

fn terminating(deleting: bool) -> String {
    if deleting { "yes" } else { "no" }.into()
}

pub(super) fn table(model: &Model) -> TableData {
    let kinds = [
        Kind::ClusterMaintenanceRequest,
        Kind::NodeMaintenanceRequest,
    ];
    // Requests are stamped by the MOSK API server's clock.
    let now = model.now_on(ClusterId::Mosk);
    let mut rows: Vec<TableRow> = model
        .snapshot
        .cluster_requests()
        .map(|r| TableRow {
            id: format!("cmr/{}", r.name),
            cells: vec![
                "cluster".into(),
                r.name.clone(),
                "-".into(),
                or_dash(r.scope.as_deref()),
                or_dash(r.release.as_deref()),
                format::age_opt(now, r.created),
                terminating(r.deleting),
            ],
            search: String::new(),
            tone: if r.deleting {
                Tone::Muted
            } else {
                Tone::Normal
            },
            node: None,
            keys: age_key(now, r.created),
        })
        .collect();
    rows.extend(model.snapshot.node_requests().map(|r| TableRow {
        id: format!("nmr/{}", r.name),
        cells: vec![
            "node".into(),
            r.name.clone(),
            r.node_name.clone(),
            or_dash(r.scope.as_deref()),
            or_dash(r.release.as_deref()),
            format::age_opt(now, r.created),
            terminating(r.deleting),
        ],
        search: String::new(),
        tone: if r.deleting { Tone::Muted } else { Tone::Warn },
        node: Some(r.node_name.clone()),
        keys: age_key(now, r.created),
    }));
    rows.extend(scoped_malformed_rows(model, kinds, COLUMNS.len(), 1, 2));
    TableData {
        columns: COLUMNS.to_vec(),
        rows,
        missing: missing_lines(model, &kinds),
        empty: empty_text(model, "maintenance requests", &kinds),
    }
}
