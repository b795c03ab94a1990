//! The Events view: the changes the console has seen (object, the machine
//! it is about, field, old -> new), newest first by default (the AGE column
//! sorts youngest first).

use std::collections::HashMap;

use super::{Cell, Column, Empty, SortKind, TableData, TableRow, Tone, Width, col, or_dash};
use crate::app::model::Model;
use crate::domain::changes::{ADDED, Change, REMOVED};
use crate::domain::lockmsg::split_timestamp;
use crate::domain::objects::{ClusterId, Kind, Object, ObjectKey, Snapshot};
use crate::domain::vrouter::machines_by_node;

/// OBJECT names the row; from 120 columns MACHINE says, whole, which
/// machine it is about: the machine itself, or the machine of a node's
/// object (its Node, lock, request, vRouter pod, cluster state), which a
/// `nwl/openstack-kaas-node-…` cut to 24 cells cannot say.
const COLUMNS: [Column; 6] = [
    col("AGE", Width::Fixed(6), SortKind::Age, 0),
    col("TIME", Width::Fixed(8), SortKind::Text, 2),
    col("OBJECT", Width::Min(24), SortKind::Text, 0),
    col("MACHINE", Width::Min(20), SortKind::Text, 1).keep_end(),
    col("FIELD", Width::Min(12), SortKind::Text, 0),
    col("OLD -> NEW", Width::Fill(24), SortKind::Text, 0),
];

/// The machine the object of `key` is about, while the object exists
/// (`None` for a cluster-wide one, or one gone from the snapshot).
fn machine_of<'a>(
    snap: &'a Snapshot,
    machines: &HashMap<&'a str, &'a str>,
    key: &'a ObjectKey,
) -> Option<&'a str> {
    let on_node = |node: Option<&'a String>| node.and_then(|n| machines.get(n.as_str()).copied());
    match (key.kind, snap.objects().get(key)) {
        (Kind::LcmMachine | Kind::ProviderMachine, _) => Some(key.name.as_str()),
        (Kind::Node, _) => machines.get(key.name.as_str()).copied(),
        (_, Some(Object::ClusterState(s))) => s.arg.as_deref(),
        (_, Some(Object::NodeMaintenanceRequest(r))) => on_node(Some(&r.node_name)),
        (_, Some(Object::NodeWorkloadLock(l))) => on_node(l.node_name.as_ref()),
        (_, Some(Object::VrouterPod(p))) => on_node(p.node_name.as_ref()),
        (_, Some(Object::NodeDeletionRequest(n) | Object::NodeDisableNotification(n))) => {
            on_node(Some(&n.node_name))
        }
        _ => None,
    }
}

/// A short kind prefix, as operators type it with kubectl.
pub fn kind_short(kind: Kind) -> &'static str {
    match kind {
        Kind::LcmCluster => "lcmcluster",
        Kind::LcmMachine => "machine",
        Kind::LcmClusterState => "cs",
        Kind::Node => "node",
        Kind::ClusterMaintenanceRequest => "cmr",
        Kind::NodeMaintenanceRequest => "nmr",
        Kind::ClusterWorkloadLock => "cwl",
        Kind::NodeWorkloadLock => "nwl",
        Kind::VrouterPod => "pod",
        Kind::VrouterDaemonSet => "ds",
        Kind::ClusterUpdatePlan => "plan",
        Kind::UpdateAutoPause => "autopause",
        Kind::UpdateGroup => "updategroup",
        Kind::ProviderMachine => "machines.cluster.k8s.io",
        Kind::NodeDeletionRequest => "ndr",
        Kind::NodeDisableNotification => "ndn",
        Kind::OpenstackDeploymentStatus => "osdplst",
        Kind::CephDeploymentHealth => "cdh",
    }
}

/// The last part of a field path: `status.errorMessage` -> `errorMessage`,
/// `metadata.annotations.openstack.lcm.mirantis.com/instance_migration_mode`
/// -> `instance_migration_mode` (the whole path stays searchable).
pub fn field_short(field: &str) -> &str {
    match field.rsplit_once('/') {
        Some((_, last)) => last,
        None => field.rsplit('.').next().unwrap_or(field),
    }
}

fn shown(v: &str) -> &str {
    if v.is_empty() { "-" } else { v }
}

/// `old -> new`, or `added` / `removed`. Lock messages lose their Rockoon
/// timestamp prefix (the change has its own time).
pub fn change_text(c: &Change) -> String {
    if c.is_added() {
        ADDED.into()
    } else if c.is_removed() {
        REMOVED.into()
    } else if c.field.ends_with("errorMessage") {
        let old = split_timestamp(&c.old).1;
        let new = split_timestamp(&c.new).1;
        format!("{} -> {}", shown(old), shown(new))
    } else {
        format!("{} -> {}", shown(&c.old), shown(&c.new))
    }
}

fn tone(c: &Change) -> Tone {
    if c.new == "failed" {
        Tone::Error
    } else if c.is_removed() {
        Tone::Muted
    } else {
        Tone::Normal
    }
}

pub(super) fn table(model: &Model) -> TableData {
    let changes = model.history.changes();
    let first_seq = model.history.total_changes() - changes.len() as u64;
    let machines = machines_by_node(&model.derived.rows);
    let rows = changes
        .enumerate()
        .rev()
        .map(|(i, c)| TableRow {
            id: format!("change/{}", first_seq + i as u64),
            cells: vec![
                Cell::age(Some(c.at), ClusterId::Mgmt),
                Cell::Clock(c.at),
                format!("{}/{}", kind_short(c.key.kind), c.key.name).into(),
                or_dash(machine_of(&model.snapshot, &machines, &c.key)).into(),
                if c.is_added() || c.is_removed() {
                    "-".into()
                } else {
                    field_short(&c.field).into()
                },
                change_text(c).into(),
            ],
            search: format!("{} {}", c.key.kind.api_kind(), c.field),
            tone: tone(c),
            node: None,
            keys: Vec::new(),
        })
        .collect();
    TableData {
        columns: COLUMNS.to_vec(),
        rows,
        missing: Vec::new(),
        empty: Empty::Text(
            "no changes seen yet (changes appear here as the watches report them)".into(),
        ),
    }
}
