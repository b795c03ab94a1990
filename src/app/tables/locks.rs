//! Workload locks, cluster and node: no printer columns exist for them, so
//! the table shows spec and status itself. The message's Rockoon timestamp
//! is split off and shown as an age ("last checked").

use super::{
    Cell, Column, SortKind, TableData, TableRow, Tone, Width, col, empty_text, missing_lines,
    or_dash, scoped_malformed_rows,
};
use crate::app::model::Model;
use crate::domain::lockmsg::{self, MessageKind};
use crate::domain::objects::{ClusterId, Controller, Kind, LockState, WorkloadLock};

const COLUMNS: [Column; 8] = [
    col("KIND", Width::Fixed(7), SortKind::Text, 2),
    col("NAME", Width::Min(16), SortKind::Text, 2).keep_end(),
    col("CONTROLLER", Width::Min(10), SortKind::Text, 0),
    col("NODE", Width::Min(14), SortKind::Text, 1).keep_end(),
    col("STATE", Width::Fixed(8), SortKind::Text, 0),
    col("INNER", Width::Fixed(8), SortKind::Text, 2),
    col("AGE", Width::Fixed(6), SortKind::Age, 1),
    col("MESSAGE", Width::Fill(30), SortKind::Text, 0),
];

/// The short name of a controller, as in the Machines view's LOCKS column.
pub(crate) fn controller_short(controller: &Controller) -> &str {
    match controller {
        Controller::Openstack => "os",
        Controller::Tungstenfabric => "tf",
        other => other.as_str(),
    }
}

/// How a lock should look: failed is an error, "servers still present" waits
/// for a human, any other message is something to watch.
pub(crate) fn lock_tone(lock: &WorkloadLock, kind: Option<&MessageKind>) -> Tone {
    match (&lock.state, kind) {
        (LockState::Failed, _) => Tone::Error,
        (LockState::Inactive, _) => Tone::Normal,
        (_, Some(MessageKind::ServersPresent(_))) => Tone::Attention,
        (_, Some(_)) => Tone::Warn,
        (_, None) => Tone::Normal,
    }
}

fn row(lock: &WorkloadLock, cluster: bool) -> TableRow {
    let parsed = lock
        .error_message
        .as_deref()
        .filter(|m| !m.trim().is_empty())
        .map(lockmsg::parse);
    let (age, text) = match &parsed {
        Some(m) => (Cell::age(m.at, ClusterId::Mgmt), m.text.clone()),
        None => (Cell::age(None, ClusterId::Mgmt), "-".to_string()),
    };
    let mut message = text;
    if let (Some(p), Some(d)) = (lock.progress_percentage, &lock.progress_description) {
        message = if message == "-" {
            format!("{p}%: {d}")
        } else {
            format!("{p}%: {d}; {message}")
        };
    }
    let state = match &lock.state {
        LockState::Other(s) if s.is_empty() => "-".to_string(),
        s => s.as_str().to_string(),
    };
    TableRow {
        id: format!("{}/{}", if cluster { "cwl" } else { "nwl" }, lock.name),
        cells: vec![
            if cluster { "cluster" } else { "node" }.into(),
            lock.name.clone().into(),
            lock.controller.to_string().into(),
            or_dash(lock.node_name.as_deref()).into(),
            state.into(),
            or_dash(lock.inner_state.as_deref()).into(),
            age,
            message.into(),
        ],
        search: lock.release.clone().unwrap_or_default(),
        tone: lock_tone(lock, parsed.as_ref().map(|m| &m.kind)),
        node: lock.node_name.clone(),
        // The AGE column (how long ago the message was written) sorts by
        // its cell's time.
        keys: Vec::new(),
    }
}

pub(super) fn table(model: &Model) -> TableData {
    let kinds = [Kind::ClusterWorkloadLock, Kind::NodeWorkloadLock];
    let mut rows: Vec<TableRow> = model
        .snapshot
        .cluster_locks()
        .map(|l| row(l, true))
        .collect();
    rows.extend(model.snapshot.node_locks().map(|l| row(l, false)));
    rows.extend(scoped_malformed_rows(model, kinds, COLUMNS.len(), 1, 7));
    TableData {
        columns: COLUMNS.to_vec(),
        rows,
        missing: missing_lines(model, &kinds),
        empty: empty_text("locks", &kinds),
    }
}
