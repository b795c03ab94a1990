//! Workload locks, cluster and node: no printer columns exist for them, so
//! the table shows spec and status itself. AGE is the time since the lock
//! entered its state (`≥ 5m` when the console started after that: the
//! transition was not seen); BLOCKS marks the locks the update waits on
//! ([`crate::domain::blocking`]). The message's Rockoon timestamp is split
//! off and shown as an age (CHECKED).

use super::{
    Cell, Column, SortKind, TableData, TableRow, Tone, Width, col, empty_text, missing_lines,
    or_dash, scoped_malformed_rows,
};
use std::collections::{BTreeSet, HashMap};

use crate::app::model::Model;
use crate::domain::blocking::blocking_locks;
use crate::domain::history::History;
use crate::domain::lockmsg::MessageKind;
use crate::domain::objects::{ClusterId, Controller, Kind, LockState, ObjectKey, WorkloadLock};
use crate::domain::vrouter::machines_by_node;

/// The column of the message (malformed rows put their error there).
const MESSAGE: usize = 10;
/// The column of the node's machine (malformed rows put their name there).
const MACHINE: usize = 3;

/// A lock is its controller and its node's MACHINE (`-` for a cluster
/// lock, one per controller), drawn at every width with its state, whether
/// it blocks the update and since when; the message joins at 120 columns.
/// NODE comes whole (a `kaas-node-<uuid>` is 46 cells) at 200; the lock's
/// NAME (`openstack-kaas-node-<uuid>`: the controller and the node again)
/// only when there is room for all of it.
const COLUMNS: [Column; 11] = [
    col("KIND", Width::Fixed(7), SortKind::Text, 2),
    col("NAME", Width::Min(50), SortKind::Text, 5).keep_end(),
    col("CONTROLLER", Width::Min(10), SortKind::Text, 0),
    col("MACHINE", Width::Min(20), SortKind::Text, 0).keep_end(),
    col("NODE", Width::Min(46), SortKind::Text, 4).keep_end(),
    col("STATE", Width::Fixed(8), SortKind::Text, 0),
    col("BLOCKS", Width::Fixed(6), SortKind::Text, 0),
    col("AGE", Width::Fixed(8), SortKind::Age, 0),
    col("INNER", Width::Fixed(8), SortKind::Text, 2),
    col("CHECKED", Width::Fixed(7), SortKind::Age, 3),
    col("MESSAGE", Width::Fill(30), SortKind::Text, 1),
];

/// What the BLOCKS column says of a lock the update waits on.
pub(crate) const BLOCKS: &str = "yes";

/// The key of a lock of `kind`.
fn key(kind: Kind, lock: &WorkloadLock) -> ObjectKey {
    ObjectKey {
        kind,
        namespace: String::new(),
        name: lock.name.clone(),
    }
}

/// The time since the lock entered its state, on the management clock (the
/// history's): `≥ ` before it when the console did not see the transition.
pub(crate) fn state_age(history: &History, key: &ObjectKey) -> Cell {
    match history.lock_since(key) {
        Some(s) if s.observed => Cell::age(Some(s.at), ClusterId::Mgmt),
        Some(s) => Cell::since("≥ ", Some(s.at), ClusterId::Mgmt, ""),
        None => Cell::age(None, ClusterId::Mgmt),
    }
}

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

fn row(
    lock: &WorkloadLock,
    cluster: bool,
    history: &History,
    blocking: &BTreeSet<ObjectKey>,
    machines: &HashMap<&str, &str>,
) -> TableRow {
    let key = key(
        if cluster {
            Kind::ClusterWorkloadLock
        } else {
            Kind::NodeWorkloadLock
        },
        lock,
    );
    let blocks = blocking.contains(&key);
    let parsed = lock
        .error_message
        .as_ref()
        .filter(|m| !m.trim().is_empty())
        .map(|m| m.parsed());
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
            or_dash(
                lock.node_name
                    .as_deref()
                    .and_then(|n| machines.get(n).copied()),
            )
            .into(),
            or_dash(lock.node_name.as_deref()).into(),
            state.into(),
            if blocks { BLOCKS } else { "-" }.into(),
            state_age(history, &key),
            or_dash(lock.inner_state.as_deref()).into(),
            age,
            message.into(),
        ],
        search: lock.release.clone().unwrap_or_default(),
        // A lock the update waits on asks for a look even when its message
        // says nothing.
        tone: match lock_tone(lock, parsed.as_ref().map(|m| &m.kind)) {
            Tone::Normal | Tone::Warn if blocks => Tone::Attention,
            tone => tone,
        },
        node: lock.node_name.clone(),
        // AGE and CHECKED sort by their cells' times.
        keys: Vec::new(),
    }
}

pub(super) fn table(model: &Model) -> TableData {
    let kinds = [Kind::ClusterWorkloadLock, Kind::NodeWorkloadLock];
    let blocking = blocking_locks(&model.snapshot);
    let history = &model.history;
    let machines = machines_by_node(&model.derived.rows);
    let mut rows: Vec<TableRow> = model
        .snapshot
        .cluster_locks()
        .map(|l| row(l, true, history, &blocking, &machines))
        .collect();
    rows.extend(
        model
            .snapshot
            .node_locks()
            .map(|l| row(l, false, history, &blocking, &machines)),
    );
    // A malformed lock is named where a lock's machine is: NAME shows only
    // on the widest screens.
    rows.extend(scoped_malformed_rows(
        model,
        kinds,
        COLUMNS.len(),
        MACHINE,
        MESSAGE,
    ));
    TableData {
        columns: COLUMNS.to_vec(),
        rows,
        missing: missing_lines(model, &kinds),
        empty: empty_text("locks", &kinds),
    }
}
