//! The one join that matters: each machine as one row across both clusters.
//!
//! LCMMachine (management cluster) -> its Node (the machine's `Hostname`
//! address; \[I\] per the reference §7.1) -> the node's migration annotations ->
//! its NodeMaintenanceRequest -> every NodeWorkloadLock on the node -> the
//! LCMClusterStates whose `arg` is the machine -> the node's vRouter pods;
//! and on the management side its provider Machine -> its UpdateGroup
//! ([`super::update_groups`]).
//! Machines whose node is unknown still get a row, flagged by [`NodeLink`],
//! and are still joined by their hostname where the other objects name it.

use std::collections::HashMap;
use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};

use super::drainmsg::DrainFailure;
use super::lockmsg::{self, LockMessage, MessageKind};
use super::objects::{
    ClusterState, ClusterStateType, Controller, LockState, Machine, MachineState, MachineType,
    MigrationMode, Node, NodeMaintenanceRequest, Snapshot, VrouterDaemonSet, VrouterPod,
    WorkloadLock,
};
pub use super::objects::{same_node, short_node};
use super::update_groups::{GroupIndex, GroupRef};
use super::vrouter::{self, PodStatus};

/// How a machine's Kubernetes node was found.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeLink {
    Found(Arc<Node>),
    /// The machine has no `Hostname` address yet.
    NoHostname,
    /// The machine names a node that the MOSK cluster does not have (or we
    /// cannot see).
    NotFound,
}

/// One NodeWorkloadLock on the machine's node.
#[derive(Debug, Clone, PartialEq)]
pub struct LockRow {
    pub lock: Arc<WorkloadLock>,
}

impl LockRow {
    pub fn new(lock: &Arc<WorkloadLock>) -> LockRow {
        LockRow {
            lock: Arc::clone(lock),
        }
    }
    /// What the lock's message says; `None` when it has none, or only
    /// white space.
    pub fn message(&self) -> Option<&LockMessage> {
        self.lock
            .error_message
            .as_ref()
            .filter(|m| !m.trim().is_empty())
            .map(|m| m.parsed())
    }
    /// The lock holds the node (not released to LCM).
    pub fn holding(&self) -> bool {
        !matches!(self.lock.state, LockState::Inactive)
    }
}

/// A machine joined with everything about it in both clusters. The objects
/// are the snapshot's own (shared, not copied): 2,000 rows of copies cost
/// ~4 MiB (docs/PERFORMANCE.md, resident memory).
#[derive(Debug, Clone, PartialEq)]
pub struct MachineRow {
    pub machine: Arc<Machine>,
    /// The node name from the machine's `Hostname` address.
    pub node_name: Option<String>,
    pub node: NodeLink,
    /// The effective migration mode (`live` when the annotation is unset).
    pub migration_mode: MigrationMode,
    /// The annotation is unset: the mode shown is the controller's default.
    pub migration_mode_default: bool,
    /// The attempts annotation, verbatim; `None` when unset (default 3).
    pub migration_attempts: Option<String>,
    pub maintenance: Option<Arc<NodeMaintenanceRequest>>,
    /// Every NodeWorkloadLock on the node, OpenStack first, then by controller.
    pub locks: Vec<LockRow>,
    /// The cluster states whose `arg` is the machine: cordon-drain,
    /// swarm-drain, then the others by type.
    pub cluster_states: Vec<Arc<ClusterState>>,
    /// The vRouter pods on the node.
    pub vrouter: Vec<PodStatus>,
    /// A short reason the machine is not moving, see [`waiting_on`].
    pub waiting_on: Option<String>,
    /// The machine's update group; `None` when no provider Machine or
    /// UpdateGroup is known.
    pub update_group: Option<GroupRef>,
    /// The provider Machine is disabled: out of LCM control, ignored in
    /// progress and ETA (reference §5.3).
    pub disabled: bool,
    /// A control-plane machine (by its provider Machine's label, or its
    /// LCMMachine type): updated one at a time, whatever its group.
    pub control_plane: bool,
}

/// The default number of live-migration attempts per instance.
pub const DEFAULT_MIGRATION_ATTEMPTS: u32 = 3;

impl MachineRow {
    pub fn name(&self) -> &str {
        &self.machine.name
    }
    pub fn machine_type(&self) -> &MachineType {
        &self.machine.machine_type
    }
    pub fn state(&self) -> &MachineState {
        &self.machine.state
    }
    pub fn is_ready(&self) -> bool {
        self.machine.state.is_ready()
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
    pub fn lock(&self, controller: &Controller) -> Option<&LockRow> {
        self.locks.iter().find(|l| l.lock.controller == *controller)
    }
    pub fn openstack_lock(&self) -> Option<&LockRow> {
        self.lock(&Controller::Openstack)
    }
    pub fn cluster_state(&self, state_type: &ClusterStateType) -> Option<&ClusterState> {
        self.cluster_states
            .iter()
            .find(|s| s.state_type == *state_type)
            .map(|s| &**s)
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
    /// What the failed Kubernetes drain of the machine's node says, while
    /// the drain is not done: LCMMachine `status.kubernetesCordonDrainError`
    /// with its cordon-drain cluster state still pending (or not seen). An
    /// error left on a machine whose drain then went through is not a
    /// failure any more [I: whether LCM clears the field is not known].
    pub fn drain_failure(&self) -> Option<&DrainFailure> {
        let error = self.machine.drain_error.as_ref()?;
        let done = self
            .cluster_state(&ClusterStateType::CordonDrain)
            .is_some_and(|s| !pending(s));
        (!done).then(|| error.failure())
    }
    /// The "servers still present" details of the OpenStack lock, if it says so.
    pub fn servers_present(&self) -> Option<&lockmsg::ServersPresent> {
        self.openstack_lock()
            .filter(|l| l.holding())
            .and_then(LockRow::message)
            .and_then(|m| match &m.kind {
                MessageKind::ServersPresent(p) => Some(p),
                _ => None,
            })
    }
}

/// The nodes under a NodeMaintenanceRequest, by short name (what
/// [`same_node`] compares): a request is found by its node and by its own
/// name, as the join finds it. Built once per computation, so that a rule
/// over every machine looks each up instead of walking every request.
pub fn requested_nodes(snap: &Snapshot) -> foldhash::HashSet<&str> {
    snap.node_requests()
        .flat_map(|r| [short_node(&r.node_name), short_node(&r.name)])
        .collect()
}

fn type_rank(t: &MachineType) -> u8 {
    match t {
        MachineType::Control => 0,
        MachineType::Worker => 1,
        MachineType::Bastion => 2,
        MachineType::Unassigned | MachineType::Other(_) => 3,
    }
}

fn state_type_rank(t: &ClusterStateType) -> u8 {
    match t {
        ClusterStateType::CordonDrain => 0,
        ClusterStateType::SwarmDrain => 1,
        ClusterStateType::SwarmRemove => 2,
        ClusterStateType::HelmDeployed | ClusterStateType::Other(_) => 3,
    }
}

/// The objects of a snapshot grouped the way the join looks them up, built
/// once per [`machine_rows`] so the join is linear in the number of objects
/// (a scan per machine made 2,000 machines cost over a second).
pub struct JoinIndex<'a> {
    nodes: HashMap<&'a str, &'a Arc<Node>>,
    requests: HashMap<&'a str, Vec<&'a Arc<NodeMaintenanceRequest>>>,
    locks: HashMap<&'a str, Vec<&'a Arc<WorkloadLock>>>,
    states: HashMap<&'a str, Vec<&'a Arc<ClusterState>>>,
    pods: HashMap<&'a str, Vec<&'a VrouterPod>>,
    daemonsets: HashMap<(&'a str, &'a str), &'a VrouterDaemonSet>,
    groups: GroupIndex<'a>,
}

impl<'a> JoinIndex<'a> {
    /// Groups `snap`'s objects by the (short) node name or machine name they
    /// belong to. Keys are short names: [`same_node`] compares those.
    pub fn new(snap: &'a Snapshot) -> JoinIndex<'a> {
        let mut index = JoinIndex::empty(GroupIndex::new(snap));
        for n in snap.shared_nodes() {
            index.nodes.entry(short_node(&n.name)).or_insert(n);
        }
        for r in snap.shared_node_requests() {
            let by_node = short_node(&r.node_name);
            index.requests.entry(by_node).or_default().push(r);
            let by_name = short_node(&r.name);
            if by_name != by_node {
                index.requests.entry(by_name).or_default().push(r);
            }
        }
        for l in snap.shared_node_locks() {
            if let Some(n) = l.node_name.as_deref() {
                index.locks.entry(short_node(n)).or_default().push(l);
            }
        }
        for s in snap.shared_cluster_states() {
            if let Some(arg) = s.arg.as_deref() {
                index.states.entry(arg).or_default().push(s);
            }
        }
        for p in snap.vrouter_pods() {
            if let Some(n) = p.node_name.as_deref() {
                index.pods.entry(short_node(n)).or_default().push(p);
            }
        }
        for d in snap.vrouter_daemonsets() {
            index
                .daemonsets
                .insert((d.namespace.as_str(), d.name.as_str()), d);
        }
        index
    }
}

impl<'a> JoinIndex<'a> {
    /// No object yet, with `groups`.
    fn empty(groups: GroupIndex<'a>) -> JoinIndex<'a> {
        JoinIndex {
            nodes: HashMap::new(),
            requests: HashMap::new(),
            locks: HashMap::new(),
            states: HashMap::new(),
            pods: HashMap::new(),
            daemonsets: HashMap::new(),
            groups,
        }
    }
}

/// The objects `map` holds for the node `key`.
fn of_node<'b, T>(map: &HashMap<&str, Vec<&'b T>>, key: Option<&str>) -> Vec<&'b T> {
    key.and_then(|k| map.get(k)).cloned().unwrap_or_default()
}

/// Joins one machine.
pub fn machine_row(snap: &Snapshot, machine: &Arc<Machine>) -> MachineRow {
    machine_row_indexed(&JoinIndex::new(snap), machine)
}

/// Joins one machine with a prepared index.
pub fn machine_row_indexed(index: &JoinIndex<'_>, machine: &Arc<Machine>) -> MachineRow {
    let node_name = machine.hostname.clone().filter(|h| !h.trim().is_empty());
    let key = node_name.as_deref().map(short_node);
    let node = match key {
        None => NodeLink::NoHostname,
        Some(k) => index
            .nodes
            .get(k)
            .map_or(NodeLink::NotFound, |n| NodeLink::Found(Arc::clone(n))),
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
    let maintenance = of_node(&index.requests, key)
        .into_iter()
        // Prefer the one named after the node, then the oldest.
        .min_by_key(|r: &&Arc<NodeMaintenanceRequest>| {
            (!on_node(&r.name), r.created, r.name.clone())
        })
        .cloned();
    let mut locks: Vec<LockRow> = of_node(&index.locks, key)
        .into_iter()
        .map(LockRow::new)
        .collect();
    locks.sort_by(|a, b| {
        (
            a.lock.controller != Controller::Openstack,
            a.lock.controller.as_str(),
            &a.lock.name,
        )
            .cmp(&(
                b.lock.controller != Controller::Openstack,
                b.lock.controller.as_str(),
                &b.lock.name,
            ))
    });
    let mut cluster_states: Vec<Arc<ClusterState>> = index
        .states
        .get(machine.name.as_str())
        .map(|v| v.iter().map(|s| Arc::clone(s)).collect())
        .unwrap_or_default();
    cluster_states.sort_by(|a, b| {
        (
            state_type_rank(&a.state_type),
            a.state_type.as_str(),
            &a.name,
        )
            .cmp(&(
                state_type_rank(&b.state_type),
                b.state_type.as_str(),
                &b.name,
            ))
    });
    let mut vrouter: Vec<PodStatus> = of_node(&index.pods, key)
        .into_iter()
        .map(|p| {
            let ds = p
                .daemonset
                .as_deref()
                .and_then(|name| index.daemonsets.get(&(p.namespace.as_str(), name)).copied());
            vrouter::pod_status_with(ds, p)
        })
        .collect();
    vrouter.sort_by(|a, b| a.name.cmp(&b.name));
    let mut row = MachineRow {
        machine: Arc::clone(machine),
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
        update_group: index.groups.group_of(machine),
        disabled: index.groups.disabled(machine),
        control_plane: index.groups.control_plane(machine),
    };
    row.waiting_on = waiting_on(&row);
    row
}

/// What the WAITING ON column says of a disabled machine: LCM leaves it
/// alone, so the update does not wait for it (reference §5.3).
pub const DISABLED_WAITING: &str = "disabled: out of LCM control";

/// Every machine, masters first, then workers (then bastion and unassigned),
/// each group by the `lcm.mirantis.com/index` annotation (unset last), then name.
pub fn machine_rows(snap: &Snapshot) -> Vec<MachineRow> {
    let mut machines: Vec<&Arc<Machine>> = snap.shared_machines().collect();
    machines.sort_by(|a, b| {
        (
            type_rank(&a.machine_type),
            a.index.is_none(),
            a.index,
            &a.name,
        )
            .cmp(&(
                type_rank(&b.machine_type),
                b.index.is_none(),
                b.index,
                &b.name,
            ))
    });
    let index = JoinIndex::new(snap);
    machines
        .into_iter()
        .map(|m| machine_row_indexed(&index, m))
        .collect()
}

/// One line saying what the machine waits on, most specific first:
/// a failed lock; a failed Kubernetes drain; a lock still held while the node is under a maintenance
/// request (with what its message says); a cluster state not yet reached
/// ("cordon-drain attempt 4"); a maintenance request being deleted; a
/// worker in Prepare without a maintenance request (not its turn yet); a
/// missing node. `None` when nothing is known to hold it. A disabled
/// machine says so and nothing else.
pub fn waiting_on(row: &MachineRow) -> Option<String> {
    if row.disabled {
        return Some(DISABLED_WAITING.to_string());
    }
    if let Some(l) = row.locks.iter().find(|l| l.lock.state == LockState::Failed) {
        return Some(match l.message() {
            Some(m) => format!("lock {} failed: {}", l.lock.controller, m.text),
            None => format!("lock {} failed", l.lock.controller),
        });
    }
    if let Some(failure) = row.drain_failure() {
        return Some(format!("drain failed: {}", failure.short()));
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
            if let Some(m) = first.message() {
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
        (NodeLink::Found(_), _)
            if row.machine.state == MachineState::Prepare
                && row.machine.machine_type == MachineType::Worker
                && row.maintenance.is_none() =>
        {
            // Workers wait in Prepare until LCM creates their request [I].
            Some("no maintenance request yet".to_string())
        }
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
mod tests;

pub mod incremental;
