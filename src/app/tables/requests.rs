//! Maintenance requests: the ClusterMaintenanceRequest and one
//! NodeMaintenanceRequest per node being worked on.

use super::{
    Cell, Column, SortKind, TableData, TableRow, Tone, Width, col, empty_text, missing_lines,
    or_dash, scoped_malformed_rows,
};
use crate::app::model::Model;
use crate::domain::objects::{ClusterId, Kind};
use crate::domain::vrouter::machines_by_node;

/// A node's request is its node's MACHINE, drawn at every width with its
/// scope, age and whether it is being deleted (the one cluster request is
/// its KIND). A node's request is named after its node, so NAME and NODE
/// say the same `kaas-node-<uuid>` (46 cells): NODE joins whole at 120
/// columns, NAME at 200.
const COLUMNS: [Column; 8] = [
    col("KIND", Width::Fixed(7), SortKind::Text, 1),
    col("NAME", Width::Min(46), SortKind::Text, 4).keep_end(),
    col("MACHINE", Width::Min(20), SortKind::Text, 0).keep_end(),
    col("NODE", Width::Min(46), SortKind::Text, 3).keep_end(),
    col("SCOPE", Width::Fixed(6), SortKind::Text, 0),
    col("RELEASE", Width::Min(8), SortKind::Text, 3),
    col("AGE", Width::Fixed(6), SortKind::Age, 1),
    col("TERMINATING", Width::Fixed(11), SortKind::Text, 2),
];

fn terminating(deleting: bool) -> String {
    if deleting { "yes" } else { "no" }.into()
}

pub(super) fn table(model: &Model) -> TableData {
    let kinds = [
        Kind::ClusterMaintenanceRequest,
        Kind::NodeMaintenanceRequest,
    ];
    let mut rows: Vec<TableRow> = model
        .snapshot
        .cluster_requests()
        .map(|r| TableRow {
            id: format!("cmr/{}", r.name),
            cells: vec![
                "cluster".into(),
                r.name.clone().into(),
                "-".into(),
                "-".into(),
                or_dash(r.scope.as_deref()).into(),
                or_dash(r.release.as_deref()).into(),
                // Requests are stamped by the MOSK API server's clock.
                Cell::age(r.created, ClusterId::Mosk),
                terminating(r.deleting).into(),
            ],
            search: String::new(),
            tone: if r.deleting {
                Tone::Muted
            } else {
                Tone::Normal
            },
            node: None,
            keys: Vec::new(),
        })
        .collect();
    let machines = machines_by_node(&model.derived.rows);
    rows.extend(model.snapshot.node_requests().map(|r| TableRow {
        id: format!("nmr/{}", r.name),
        cells: vec![
            "node".into(),
            r.name.clone().into(),
            or_dash(machines.get(r.node_name.as_str()).copied()).into(),
            r.node_name.clone().into(),
            or_dash(r.scope.as_deref()).into(),
            or_dash(r.release.as_deref()).into(),
            Cell::age(r.created, ClusterId::Mosk),
            terminating(r.deleting).into(),
        ],
        search: String::new(),
        tone: if r.deleting { Tone::Muted } else { Tone::Warn },
        node: Some(r.node_name.clone()),
        keys: Vec::new(),
    }));
    // A malformed request is named where a request's machine is (NAME
    // shows only on the widest screens), its error where the node is.
    rows.extend(scoped_malformed_rows(model, kinds, COLUMNS.len(), 2, 3));
    TableData {
        columns: COLUMNS.to_vec(),
        rows,
        missing: missing_lines(model, &kinds),
        empty: empty_text("maintenance requests", &kinds),
    }
}
