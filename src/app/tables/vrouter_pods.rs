//! vRouter pods: per node, whether its pod runs its DaemonSet's current
//! template. The DaemonSet counters are drawn above the table by the UI
//! (from `domain::vrouter::daemonsets`).

use super::{
    Cell, Column, SortKind, TableData, TableRow, Tone, Width, col, empty_text, malformed_rows,
    missing_lines, or_dash,
};
use crate::app::model::Model;
use crate::domain::objects::{ClusterId, Kind};
use crate::domain::vrouter::{machines_by_node, pod_status};

/// MACHINE names the row (`-` when no machine is known on the node) and
/// sorts it by default: `kaas-node-<uuid>` alone means nothing to an
/// operator. With what is acted on (UP-TO-DATE, READY) it is drawn at
/// every width, then the pod and its phase; NODE comes last and whole (a
/// `kaas-node-<uuid>` is 46 cells), at 160 columns, never cut to a
/// `kaas-nod…da15938` that takes the machine's room.
const COLUMNS: [Column; 8] = [
    col("MACHINE", Width::Min(20), SortKind::Text, 0).keep_end(),
    col("NODE", Width::Min(46), SortKind::Text, 4).keep_end(),
    col("POD", Width::Min(16), SortKind::Text, 2).keep_end(),
    col("REVISION", Width::Min(12), SortKind::Text, 3),
    col("UP-TO-DATE", Width::Fixed(10), SortKind::Text, 0),
    col("READY", Width::Fixed(5), SortKind::Text, 0),
    col("PHASE", Width::Min(7), SortKind::Text, 1),
    col("AGE", Width::Fixed(6), SortKind::Age, 2),
];

/// The POD column (malformed objects name themselves there).
const POD: usize = 2;

pub(super) fn table(model: &Model) -> TableData {
    let kinds = [Kind::VrouterPod, Kind::VrouterDaemonSet];
    let snap = &model.snapshot;
    let machines = machines_by_node(&model.derived.rows);
    let mut rows: Vec<TableRow> = snap
        .vrouter_pods()
        .map(|pod| {
            let st = pod_status(snap, pod);
            let revision = match (&pod.revision, pod.template_generation) {
                (Some(r), Some(g)) => format!("{r} (gen {g})"),
                (Some(r), None) => r.clone(),
                (None, Some(g)) => format!("gen {g}"),
                (None, None) => "-".into(),
            };
            let up_to_date = match st.outdated {
                Some(true) => "no",
                Some(false) => "yes",
                None => "unknown",
            };
            let phase = if pod.deleting {
                "Terminating".to_string()
            } else {
                pod.phase.clone()
            };
            let tone = if pod.deleting {
                Tone::Muted
            } else if !pod.ready {
                Tone::Error
            } else if st.is_outdated() {
                Tone::Warn
            } else {
                Tone::Normal
            };
            TableRow {
                id: format!("{}/{}", pod.namespace, pod.name),
                cells: vec![
                    or_dash(
                        pod.node_name
                            .as_deref()
                            .and_then(|n| machines.get(n).copied()),
                    )
                    .into(),
                    or_dash(pod.node_name.as_deref()).into(),
                    pod.name.clone().into(),
                    revision.into(),
                    up_to_date.into(),
                    if pod.ready { "yes" } else { "no" }.into(),
                    phase.into(),
                    Cell::age(pod.created, ClusterId::Mosk),
                ],
                search: pod.daemonset.clone().unwrap_or_default(),
                tone,
                node: pod.node_name.clone(),
                keys: Vec::new(),
            }
        })
        .collect();
    rows.extend(malformed_rows(
        model,
        Kind::VrouterPod,
        COLUMNS.len(),
        POD,
        3,
    ));
    rows.extend(malformed_rows(
        model,
        Kind::VrouterDaemonSet,
        COLUMNS.len(),
        POD,
        3,
    ));
    TableData {
        columns: COLUMNS.to_vec(),
        rows,
        missing: missing_lines(model, &kinds),
        empty: empty_text("vRouter pods", &[Kind::VrouterPod]),
    }
}
