//! The one join that matters: each machine as one row across both clusters.
//!
//! LCMMachine (management cluster) -> its Node (the machine's `Hostname`
//! address; [I] per the reference §7.1) -> the node's migration annotations ->
//! its NodeMaintenanceRequest -> every NodeWorkloadLock on the node -> the
//! LCMClusterStates whose `arg` is the machine -> the node's vRouter pods.
//! Machines whose node is unknown still get a row, flagged by [`NodeLink`],
//! and are still joined by their hostname where the other objects name it.

use jiff::{SignedDuration, Timestamp};

use super::lockmsg::{self, LockMessage, MessageKind};
use super::objects::{
    ClusterState, LockState, Machine, MachineType, MigrationMode, Node, NodeMaintenanceRequest,
    Snapshot, WorkloadLock,
};
use super::vrouter::{self, PodStatus};

/// How a machine's Kubernetes node was found.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeLink {
    Found(Node),
    /// The machine has no `Hostname` address yet.
    NoHostname,
    /// The machine names a node that the MOSK cluster does not have (or we
    /// cannot see).
    NotFound,
}

/// One NodeWorkloadLock on the machine's node, with its message parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct LockRow {
    pub lock: WorkloadLock,
    pub message: Option<LockMessage>,
}

impl LockRow {
    pub fn new(lock: &WorkloadLock) -> LockRow {
        LockRow {
            message: lock
                .error_message
                .as_deref()
                .filter(|m| !m.trim().is_empty())
                .map(lockmsg::parse),
            lock: lock.clone(),
        }
    }
    /// The lock holds the node (not released to LCM).
    pub fn holding(&self) -> bool {
        !matches!(self.lock.state, LockState::Inactive)
    }
}

/// A machine joined with everything about it in both clusters.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineRow {
    pub machine: Machine,
    /// The node name from the machine's `Hostname` address.
    pub node_name: Option<String>,
    pub node: NodeLink,
    /// The effective migration mode (`live` when the annotation is unset).
    pub migration_mode: MigrationMode,
    /// The annotation is unset: the mode shown is the controller's default.
    pub migration_mode_default: bool,
    /// The attempts annotation, verbatim; `None` when unset (default 3).
    pub migration_attempts: Option<String>,
    pub maintenance: Option<NodeMaintenanceRequest>,
    /// Every NodeWorkloadLock on the node, OpenStack first, then by controller.
    pub locks: Vec<LockRow>,
    /// The cluster states whose `arg` is the machine: cordon-drain,
    /// swarm-drain, then the others by type.
    pub cluster_states: Vec<ClusterState>,
    /// The vRouter pods on the node.
    pub vrouter: Vec<PodStatus>,
    /// A short reason the machine is not moving, see [`waiting_on`].
    pub waiting_on: Option<String>,
}

/// The default number of live-migration attempts per instance.
pub const DEFAULT_MIGRATION_ATTEMPTS: u32 = 3;

impl MachineRow {
    pub fn name(&self) -> &str {
        &self.machine.name
    }
    pub fn machine_type(&self) -> MachineType {
        self.machine.machine_type
    }
    pub fn state(&self) -> &str {
        &self.machine.state
    }
    pub fn is_ready(&self) -> bool {
        self.machine.state == "Ready"
    }
    /// The node is known.
    pub fn has_node(&self) -> bool {
        matches!(self.node, NodeLink::Found(_))
    }
    pub fn node(&self) -> Option<&Node> {
        match &self.node {
            NodeLink::Found(n) => Some(n),
            _ => None,
        }
    }
    /// The effective number of migration attempts; `None` when the annotation
    /// is not a number (the controller would fail on it).
    pub fn migration_attempts_effective(&self) -> Option<u32> {
        match &self.migration_attempts {
            None => Some(DEFAULT_MIGRATION_ATTEMPTS),
            Some(s) => s.trim().parse().ok(),
        }
    }
    /// The lock of `controller` on the node.
    pub fn lock(&self, controller: &str) -> Option<&LockRow> {
        self.locks.iter().find(|l| l.lock.controller == controller)
    }
    pub fn openstack_lock(&self) -> Option<&LockRow> {
        self.lock("openstack")
    }
    pub fn cluster_state(&self, state_type: &str) -> Option<&ClusterState> {
        self.cluster_states
            .iter()
            .find(|s| s.state_type == state_type)
    }
    /// How long the maintenance request has existed.
    pub fn maintenance_age(&self, now: Timestamp) -> Option<SignedDuration> {
        self.maintenance
            .as_ref()
            .and_then(|r| r.created)
            .map(|c| now.duration_since(c))
    }
    /// `Some(true)` when a vRouter pod on the node is outdated, `Some(false)`
    /// when all are current, `None` when there is none or it is unknown.
    pub fn vrouter_outdated(&self) -> Option<bool> {
        if self.vrouter.iter().any(|p| p.is_outdated()) {
            Some(true)
        } else if !self.vrouter.is_empty() && self.vrouter.iter().all(|p| p.outdated.is_some()) {
            Some(false)
        } else {
            None
        }
    }
    /// The "servers still present" details of the OpenStack lock, if it says so.
    pub fn servers_present(&self) -> Option<&lockmsg::ServersPresent> {
        self.openstack_lock()
            .filter(|l| l.holding())
            .and_then(|l| l.message.as_ref())
            .and_then(|m| match &m.kind {
                MessageKind::ServersPresent(p) => Some(p),
                _ => None,
            })
    }
}

/// Node names are compared without a domain: Rockoon cuts `spec.nodeName` at
/// the first `.`, so an FQDN names the same node.
pub fn same_node(a: &str, b: &str) -> bool {
    a == b || short(a) == short(b)
}

fn short(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

fn type_rank(t: MachineType) -> u8 {
    match t {
        MachineType::Control => 0,
        MachineType::Worker => 1,
        MachineType::Bastion => 2,
        MachineType::Unassigned => 3,
    }
}

fn state_type_rank(t: &str) -> u8 {
    match t {
        "cordon-drain" => 0,
        "swarm-drain" => 1,
        "swarm-remove" => 2,
        _ => 3,
    }
}

/// Joins one machine.
pub fn machine_row(snap: &Snapshot, machine: &Machine) -> MachineRow {
    let node_name = machine.hostname.clone().filter(|h| !h.trim().is_empty());
    let node = match &node_name {
        None => NodeLink::NoHostname,
        Some(h) => snap
            .nodes()
            .find(|n| same_node(&n.name, h))
            .cloned()
            .map_or(NodeLink::NotFound, NodeLink::Found),
    };
    let (migration_mode, migration_mode_default, migration_attempts) = match &node {
        NodeLink::Found(n) => (
            n.migration_mode.clone().unwrap_or(MigrationMode::Live),
            n.migration_mode.is_none(),
            n.migration_attempts.clone(),
        ),
        _ => (MigrationMode::Live, true, None),
    };
    let on_node = |n: &str| node_name.as_deref().is_some_and(|h| same_node(n, h));
    let maintenance = snap
        .node_requests()
        .filter(|r| on_node(&r.node_name) || on_node(&r.name))
        // Prefer the one named after the node, then the oldest.
        .min_by_key(|r| (!on_node(&r.name), r.created, r.name.clone()))
        .cloned();
    let mut locks: Vec<LockRow> = snap
        .node_locks()
        .filter(|l| l.node_name.as_deref().is_some_and(on_node))
        .map(LockRow::new)
        .collect();
    locks.sort_by(|a, b| {
        (
            a.lock.controller != "openstack",
            &a.lock.controller,
            &a.lock.name,
        )
            .cmp(&(
                b.lock.controller != "openstack",
                &b.lock.controller,
                &b.lock.name,
            ))
    });
    let mut cluster_states: Vec<ClusterState> = snap
        .cluster_states()
        .filter(|s| s.arg.as_deref() == Some(machine.name.as_str()))
        .cloned()
        .collect();
    cluster_states.sort_by(|a, b| {
        (state_type_rank(&a.state_type), &a.state_type, &a.name).cmp(&(
            state_type_rank(&b.state_type),
            &b.state_type,
            &b.name,
        ))
    });
    let vrouter = node_name
        .as_deref()
        .map(|h| {
            let mut pods: Vec<PodStatus> = snap
                .vrouter_pods()
                .filter(|p| p.node_name.as_deref().is_some_and(|n| same_node(n, h)))
                .map(|p| vrouter::pod_status(snap, p))
                .collect();
            pods.sort_by(|a, b| a.name.cmp(&b.name));
            pods
        })
        .unwrap_or_default();
    let mut row = MachineRow {
        machine: machine.clone(),
        node_name,
        node,
        migration_mode,
        migration_mode_default,
        migration_attempts,
        maintenance,
        locks,
        cluster_states,
        vrouter,
        waiting_on: None,
    };
    row.waiting_on = waiting_on(&row);
    row
}

/// Every machine, masters first, then workers (then bastion and unassigned),
/// each group by the `lcm.mirantis.com/index` annotation (unset last), then name.
pub fn machine_rows(snap: &Snapshot) -> Vec<MachineRow> {
    let mut machines: Vec<&Machine> = snap.machines().collect();
    machines.sort_by(|a, b| {
        (
            type_rank(a.machine_type),
            a.index.is_none(),
            a.index,
            &a.name,
        )
            .cmp(&(
                type_rank(b.machine_type),
                b.index.is_none(),
                b.index,
                &b.name,
            ))
    });
    machines.into_iter().map(|m| machine_row(snap, m)).collect()
}

/// One line saying what the machine waits on, most specific first:
/// a failed lock; a lock still held while the node is under a maintenance
/// request (with what its message says); a cluster state not yet reached
/// ("cordon-drain attempt 4"); a maintenance request being deleted; a
/// missing node. `None` when nothing is known to hold it.
pub fn waiting_on(row: &MachineRow) -> Option<String> {
    if let Some(l) = row.locks.iter().find(|l| l.lock.state == LockState::Failed) {
        return Some(match &l.message {
            Some(m) => format!("lock {} failed: {}", l.lock.controller, m.text),
            None => format!("lock {} failed", l.lock.controller),
        });
    }
    let under_request = row.maintenance.as_ref().is_some_and(|r| !r.deleting);
    if under_request {
        let held: Vec<&LockRow> = row.locks.iter().filter(|l| l.holding()).collect();
        if let Some(first) = held.first() {
            let mut s = format!(
                "lock {} {}",
                first.lock.controller,
                first.lock.state.as_str()
            );
            if let Some(m) = &first.message {
                s.push_str(": ");
                s.push_str(m.kind.short());
            }
            if held.len() > 1 {
                s.push_str(&format!(" (+{} more)", held.len() - 1));
            }
            return Some(s);
        }
    }
    if let Some(cs) = row.cluster_states.iter().find(|s| pending(s)) {
        return Some(match cs.attempt {
            Some(n) if n > 0 => format!("{} attempt {n}", cs.state_type),
            _ => format!("{} pending", cs.state_type),
        });
    }
    if row.maintenance.as_ref().is_some_and(|r| r.deleting) {
        return Some("maintenance request terminating".to_string());
    }
    match (&row.node, &row.node_name) {
        (NodeLink::NoHostname, _) => Some("no node: machine has no Hostname address".to_string()),
        (NodeLink::NotFound, Some(n)) => Some(format!("node {n} not found")),
        _ => None,
    }
}

/// A cluster state whose applied value has not reached the requested one.
pub fn pending(s: &ClusterState) -> bool {
    match &s.value {
        Some(v) if !v.is_empty() => s.actual_value.as_deref() != Some(v.as_str()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::fixtures::{self, names::*};
    use crate::domain::objects::Object;

    fn row<'a>(rows: &'a [MachineRow], name: &str) -> &'a MachineRow {
        rows.iter().find(|r| r.name() == name).expect("row")
    }

    #[test]
    fn order_is_masters_then_workers_by_index() {
        let mut snap = fixtures::mid_update();
        // An unindexed worker sorts after indexed ones, a master before all workers.
        snap.apply(Object::Machine(fixtures::machine(
            "a-worker",
            MachineType::Worker,
            "Ready",
            None,
            None,
        )));
        let mut m = fixtures::machine(MASTER_2, MachineType::Control, "Ready", Some(NODE_M2), None);
        m.index = Some(-1);
        snap.apply(Object::Machine(m));
        let names: Vec<String> = machine_rows(&snap)
            .iter()
            .map(|r| r.name().to_string())
            .collect();
        assert_eq!(
            names,
            vec![
                MASTER_2, MASTER_0, MASTER_1, WORKER_1, WORKER_2, WORKER_3, WORKER_4, "a-worker"
            ]
        );
    }

    #[test]
    fn worker_under_maintenance_joins_everything() {
        let rows = machine_rows(&fixtures::mid_update());
        let r = row(&rows, WORKER_2);
        assert_eq!(r.state(), "Deploy");
        assert_eq!(r.node_name.as_deref(), Some(NODE_W2));
        assert!(r.has_node());
        assert_eq!(r.migration_mode, MigrationMode::Live);
        assert!(r.migration_mode_default);
        assert_eq!(r.migration_attempts_effective(), Some(3));
        let nmr = r.maintenance.as_ref().expect("nmr");
        assert_eq!(nmr.scope.as_deref(), Some("os"));
        assert_eq!(
            r.maintenance_age(fixtures::mid_update_now()),
            Some(SignedDuration::from_mins(39))
        );
        let controllers: Vec<&str> = r.locks.iter().map(|l| l.lock.controller.as_str()).collect();
        assert_eq!(controllers, vec!["openstack", "tf"]);
        let os = r.openstack_lock().unwrap();
        assert_eq!(os.lock.inner_state.as_deref(), Some("active"));
        let servers = r.servers_present().expect("servers present");
        assert_eq!(servers.servers, vec![SERVER_A, SERVER_B]);
        let types: Vec<&str> = r
            .cluster_states
            .iter()
            .map(|s| s.state_type.as_str())
            .collect();
        assert_eq!(types, vec!["cordon-drain", "swarm-drain"]);
        assert_eq!(r.cluster_state("cordon-drain").unwrap().attempt, Some(4));
        assert_eq!(r.vrouter.len(), 1);
        assert_eq!(r.vrouter_outdated(), Some(true));
        assert_eq!(
            r.waiting_on.as_deref(),
            Some("lock openstack active: servers present")
        );
    }

    #[test]
    fn manual_mode_and_attempts_come_from_the_node() {
        let rows = machine_rows(&fixtures::mid_update());
        let r3 = row(&rows, WORKER_3);
        assert_eq!(r3.migration_mode, MigrationMode::Manual);
        assert!(!r3.migration_mode_default);
        let r1 = row(&rows, WORKER_1);
        assert_eq!(r1.migration_mode, MigrationMode::Live);
        assert!(!r1.migration_mode_default);
        assert_eq!(r1.migration_attempts_effective(), Some(5));
        assert_eq!(r1.vrouter_outdated(), Some(false));
        assert_eq!(r1.waiting_on, None);
        assert!(r1.maintenance.is_none());
    }

    #[test]
    fn helm_state_without_arg_is_not_joined() {
        let rows = machine_rows(&fixtures::mid_update());
        assert!(rows.iter().all(|r| {
            r.cluster_states
                .iter()
                .all(|s| s.state_type != "helm-deployed")
        }));
    }

    #[test]
    fn waiting_on_cluster_state_when_locks_released() {
        let mut snap = fixtures::mid_update();
        for l in [
            fixtures::node_lock("openstack", NODE_W2, LockState::Inactive, None),
            fixtures::node_lock("tf", NODE_W2, LockState::Inactive, None),
        ] {
            snap.apply(Object::NodeWorkloadLock(l));
        }
        let r = machine_row(&snap, snap.machines().find(|m| m.name == WORKER_2).unwrap());
        assert_eq!(r.waiting_on.as_deref(), Some("cordon-drain attempt 4"));
    }

    #[test]
    fn failed_lock_wins() {
        let mut snap = fixtures::mid_update();
        snap.apply(Object::NodeWorkloadLock(fixtures::node_lock(
            "ceph",
            NODE_W2,
            LockState::Failed,
            Some("OSDs not ok"),
        )));
        let r = machine_row(&snap, snap.machines().find(|m| m.name == WORKER_2).unwrap());
        assert_eq!(
            r.waiting_on.as_deref(),
            Some("lock ceph failed: OSDs not ok")
        );
    }

    #[test]
    fn machine_without_node_still_listed_and_flagged() {
        let mut snap = fixtures::mid_update();
        snap.apply(Object::Machine(fixtures::machine(
            "child-cl-compute-9",
            MachineType::Worker,
            "Pending",
            None,
            Some(9),
        )));
        snap.apply(Object::Machine(fixtures::machine(
            "child-cl-compute-8",
            MachineType::Worker,
            "Ready",
            Some("kaas-node-gone"),
            Some(8),
        )));
        snap.apply(Object::NodeMaintenanceRequest(fixtures::nmr(
            "kaas-node-gone",
            "drain",
            fixtures::at("10:00"),
        )));
        let rows = machine_rows(&snap);
        assert_eq!(rows.len(), 9);
        let gone = row(&rows, "child-cl-compute-8");
        assert_eq!(gone.node, NodeLink::NotFound);
        // Still joined by name where other objects name the node.
        assert!(gone.maintenance.is_some());
        let none = row(&rows, "child-cl-compute-9");
        assert_eq!(none.node, NodeLink::NoHostname);
        assert!(none.waiting_on.as_deref().unwrap().contains("no Hostname"));
        let gone_snap = {
            let mut s = snap.clone();
            s.remove(
                &Object::NodeMaintenanceRequest(fixtures::nmr(
                    "kaas-node-gone",
                    "drain",
                    fixtures::at("10:00"),
                ))
                .key(),
            );
            s
        };
        let rows = machine_rows(&gone_snap);
        assert_eq!(
            row(&rows, "child-cl-compute-8").waiting_on.as_deref(),
            Some("node kaas-node-gone not found")
        );
    }

    #[test]
    fn fqdn_node_names_match() {
        let mut snap = fixtures::mid_update();
        let mut r = fixtures::nmr(NODE_W4, "drain", fixtures::at("10:20"));
        r.name = "other-name".into();
        r.node_name = format!("{NODE_W4}.cluster.local");
        snap.apply(Object::NodeMaintenanceRequest(r));
        let rows = machine_rows(&snap);
        assert_eq!(
            row(&rows, WORKER_4)
                .maintenance
                .as_ref()
                .map(|r| r.name.as_str()),
            Some("other-name")
        );
        assert!(!same_node("kaas-node-1", "kaas-node-10"));
    }

    #[test]
    fn terminating_request_is_reported() {
        let mut snap = fixtures::mid_update();
        let mut r = fixtures::nmr(NODE_W1, "os", fixtures::at("09:25"));
        r.deleting = true;
        snap.apply(Object::NodeMaintenanceRequest(r));
        let rows = machine_rows(&snap);
        assert_eq!(
            row(&rows, WORKER_1).waiting_on.as_deref(),
            Some("maintenance request terminating")
        );
    }
}
