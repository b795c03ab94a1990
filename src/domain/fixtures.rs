//! Test fixtures: hand-made objects and Snapshots for unit tests, UI snapshot
//! tests and integration tests. Not used by the console itself.
//!
//! The constructors fill every field with a realistic default so that a test
//! only states what it cares about (all fields are `pub`; change them after
//! construction). [`mid_update`] is a whole MOSK cluster in phase 4 of an
//! update; [`idle`] is the same cluster before the update. Times are on
//! 2025-03-04 (UTC); [`at`] builds them from `"HH:MM"`.
//!
//! The constructors panic on malformed *literal* arguments (e.g. a bad time
//! string): they are for tests only.

use jiff::Timestamp;
use std::sync::Arc;

use super::objects::*;

pub mod blockers;
mod lockmsgs;
mod scenario;
pub mod update_groups;
pub mod update_plan;
pub use lockmsgs::{SERVER_D, both_lists_lock_message, unset_only_lock_message};
pub use scenario::{Scenario, mid_update_scenario};

/// Names used by the fixtures, so tests can refer to them.
pub mod names {
    pub const NAMESPACE: &str = "child-ns";
    pub const CLUSTER: &str = "child-cl";
    pub const TARGET_RELEASE: &str = "mosk-17-4-0-25-1";
    pub const CURRENT_RELEASE: &str = "mosk-17-3-0-24-3";
    /// The release string the controllers write on locks and requests.
    pub const LOCK_RELEASE: &str = "17.4.0+25.1";

    pub const MASTER_0: &str = "child-cl-control-0";
    pub const MASTER_1: &str = "child-cl-control-1";
    pub const MASTER_2: &str = "child-cl-control-2";
    pub const WORKER_1: &str = "child-cl-compute-1";
    pub const WORKER_2: &str = "child-cl-compute-2";
    pub const WORKER_3: &str = "child-cl-compute-3";
    pub const WORKER_4: &str = "child-cl-compute-4";

    pub const NODE_M0: &str = "kaas-node-1b0f8c52-7c1e-4d8a-9a51-0c2d3e4f5a60";
    pub const NODE_M1: &str = "kaas-node-2c1a9d63-8d2f-4e9b-8b62-1d3e4f5a6b71";
    pub const NODE_M2: &str = "kaas-node-3d2bae74-9e30-4fac-9c73-2e4f5a6b7c82";
    pub const NODE_W1: &str = "kaas-node-50a51d95-1e4b-487e-a973-199de400b97d";
    pub const NODE_W2: &str = "kaas-node-b2a55089-5b03-4698-9879-8756e2e81df5";
    pub const NODE_W3: &str = "kaas-node-e41a610a-ceaf-4d80-90ee-4ea7b4dee161";
    pub const NODE_W4: &str = "kaas-node-f7c3d2e1-6a5b-4c4d-8e9f-0a1b2c3d4e5f";

    pub const CMR: &str = "child-cl";
    pub const OPENSTACK_CWL: &str = "openstack-osh-dev";
    /// The Ceph cluster lock's real name is unknown \[?\]; this one is made up.
    pub const CEPH_CWL: &str = "ceph-child-cl";
    pub const TF_CWL: &str = "tf-openstack-tf";

    pub const VROUTER_NS: &str = "tf";
    pub const VROUTER_DS: &str = "tf-vrouter-agent";
    pub const VROUTER_POD_W1: &str = "tf-vrouter-agent-7hq2x";
    pub const VROUTER_POD_W2: &str = "tf-vrouter-agent-b9k4d";
    pub const VROUTER_POD_W3: &str = "tf-vrouter-agent-c2m8p";
    pub const VROUTER_POD_W4: &str = "tf-vrouter-agent-f5r7t";

    /// Servers still on worker-2 (live migration gave up).
    pub const SERVER_A: &str = "0ab4dd8f-ef0d-401d-9d5e-e9e97e077422";
    pub const SERVER_B: &str = "6a0e3d1c-4b7f-4e2a-9c1d-5f3e2a1b0c9d";
    /// Server on worker-3 (manual mode) whose owner must be told.
    pub const SERVER_C: &str = "9f8e7d6c-5b4a-4392-8a1b-0c9d8e7f6a5b";
}

use names::*;

/// Time on the fixtures' day: `at("10:30")` is 2025-03-04T10:30:00Z.
pub fn at(hh_mm: &str) -> Timestamp {
    format!("2025-03-04T{hh_mm}:00Z")
        .parse()
        .expect("fixture time is HH:MM")
}

/// "Now" for [`mid_update`]: 10:30.
pub fn mid_update_now() -> Timestamp {
    at("10:30")
}

/// The Rockoon message timestamp prefix for a fixture time, e.g. `2025-03-04 10:28:41.120334`.
pub fn rockoon_stamp(hh_mm_ss: &str) -> String {
    format!("2025-03-04 {hh_mm_ss}.120334")
}

pub fn lcm_cluster() -> LcmCluster {
    LcmCluster {
        name: CLUSTER.into(),
        namespace: NAMESPACE.into(),
        target_release: Some(TARGET_RELEASE.into()),
        current_release: Some(CURRENT_RELEASE.into()),
        requested_nodes: Some(7),
        ready_nodes: Some(7),
    }
}

/// An LCMMachine of the fixture cluster, on release [`names::CURRENT_RELEASE`].
pub fn machine(
    name: &str,
    machine_type: MachineType,
    state: MachineState,
    hostname: Option<&str>,
    index: Option<i64>,
) -> Machine {
    Machine {
        name: name.into(),
        namespace: NAMESPACE.into(),
        uid: format!("uid-{name}"),
        cluster_name: CLUSTER.into(),
        machine_type,
        state,
        internal_ip: index.map(|i| format!("10.10.0.{}", 10 + i)),
        hostname: hostname.map(str::to_string),
        agent_version: Some("1.42.7".into()),
        release: Some(CURRENT_RELEASE.into()),
        index,
        operation_stuck: false,
        drain_error: None,
    }
}

/// A Ready node; `compute` gives it the compute and vRouter labels, otherwise
/// the OpenStack control-plane label. No migration annotations.
pub fn node(name: &str, compute: bool) -> Node {
    // Only labels among `Node::KEPT_LABELS`: what the console keeps of a
    // real node's labels.
    let mut labels = std::collections::BTreeMap::new();
    if compute {
        labels.insert("openstack-compute-node".into(), "enabled".into());
        labels.insert("tfvrouter".into(), "enabled".into());
    } else {
        labels.insert("openstack-control-plane".into(), "enabled".into());
    }
    Node {
        name: name.into(),
        uid: format!("uid-{name}"),
        labels,
        migration_mode: None,
        migration_attempts: None,
        ready: true,
        unschedulable: false,
    }
}

pub fn cmr(created: Timestamp) -> ClusterMaintenanceRequest {
    ClusterMaintenanceRequest {
        name: CMR.into(),
        scope: Some("os".into()),
        release: Some(LOCK_RELEASE.into()),
        created: Some(created),
        deleting: false,
        deletion: None,
    }
}

/// A NodeMaintenanceRequest named after its node.
pub fn nmr(node: &str, scope: &str, created: Timestamp) -> NodeMaintenanceRequest {
    NodeMaintenanceRequest {
        name: node.into(),
        node_name: node.into(),
        scope: Some(scope.into()),
        release: Some(LOCK_RELEASE.into()),
        created: Some(created),
        deleting: false,
        deletion: None,
    }
}

/// The controller of the fixture's TF node locks: `tf`, a name the console
/// does not know (the reference has no TF node lock, mosk-lcm-api §2.5), so
/// it is drawn verbatim.
pub fn tf_controller() -> Controller {
    Controller::Other("tf".into())
}

/// A NodeWorkloadLock named `<controller>-<node>`.
pub fn node_lock(
    controller: Controller,
    node: &str,
    state: LockState,
    message: Option<&str>,
) -> WorkloadLock {
    WorkloadLock {
        name: format!("{controller}-{node}"),
        controller,
        node_name: Some(node.into()),
        state,
        error_message: message.map(ErrorMessage::new),
        release: Some(LOCK_RELEASE.into()),
        inner_state: None,
        progress_percentage: None,
        progress_description: None,
    }
}

/// An active TungstenFabric lock on `node` whose message reads like the
/// OpenStack lock's "servers are still present" (worker-2's text): a rule
/// that reads a lock's message without checking its controller takes it
/// for OpenStack's.
pub fn tf_lock_saying_servers_present(node: &str) -> WorkloadLock {
    node_lock(
        tf_controller(),
        node,
        LockState::Active,
        Some(&worker2_lock_message()),
    )
}

pub fn cluster_lock(name: &str, controller: Controller, state: LockState) -> WorkloadLock {
    WorkloadLock {
        name: name.into(),
        controller,
        node_name: None,
        state,
        error_message: None,
        release: Some(LOCK_RELEASE.into()),
        inner_state: None,
        progress_percentage: None,
        progress_description: None,
    }
}

/// An LCMClusterState for a machine, named as LCM names them (`cd-`, `sd-`, `sr-`).
pub fn cluster_state(
    state_type: ClusterStateType,
    machine: &str,
    value: &str,
    actual: Option<&str>,
    attempt: i64,
    message: Option<&str>,
) -> ClusterState {
    let prefix = state_type
        .name_prefix()
        .unwrap_or(state_type.as_str())
        .to_string();
    ClusterState {
        name: format!("{prefix}-{machine}"),
        namespace: NAMESPACE.into(),
        cluster_name: CLUSTER.into(),
        state_type,
        arg: Some(machine.into()),
        value: Some(value.into()),
        actual_value: actual.map(str::to_string),
        attempt: Some(attempt),
        message: message.map(StateMessage::new),
    }
}

/// The `tf-vrouter-agent` DaemonSet at `generation`, all pods scheduled and ready,
/// none updated (`updated` = 0: set it as the test needs).
pub fn vrouter_ds(generation: i64, desired: i64) -> VrouterDaemonSet {
    VrouterDaemonSet {
        name: VROUTER_DS.into(),
        namespace: VROUTER_NS.into(),
        update_strategy: Some("OnDelete".into()),
        desired,
        current: desired,
        updated: 0,
        ready: desired,
        observed_generation: Some(generation),
        generation: Some(generation),
        template_generation: Some(generation),
    }
}

/// A running vRouter pod of [`names::VROUTER_DS`] created from `template_generation`.
pub fn vrouter_pod(name: &str, node: &str, template_generation: i64, ready: bool) -> VrouterPod {
    VrouterPod {
        name: name.into(),
        namespace: VROUTER_NS.into(),
        uid: format!("uid-{name}"),
        node_name: Some(node.into()),
        daemonset: Some(VROUTER_DS.into()),
        revision: Some(format!("rev{template_generation}")),
        template_generation: Some(template_generation),
        phase: "Running".into(),
        ready,
        deleting: false,
        created: Some(at("07:00")),
    }
}

/// A Snapshot holding `objects`.
pub fn snapshot(objects: impl IntoIterator<Item = Object>) -> Snapshot {
    let mut snap = Snapshot::default();
    for o in objects {
        snap.apply(o);
    }
    snap
}

/// (machine, type, node, index) of the seven fixture machines.
pub const MACHINES: [(&str, MachineType, &str, i64); 7] = [
    (MASTER_0, MachineType::Control, NODE_M0, 0),
    (MASTER_1, MachineType::Control, NODE_M1, 1),
    (MASTER_2, MachineType::Control, NODE_M2, 2),
    (WORKER_1, MachineType::Worker, NODE_W1, 3),
    (WORKER_2, MachineType::Worker, NODE_W2, 4),
    (WORKER_3, MachineType::Worker, NODE_W3, 5),
    (WORKER_4, MachineType::Worker, NODE_W4, 6),
];

/// (node, vRouter pod) of the four computes.
pub const VROUTER_PODS: [(&str, &str); 4] = [
    (NODE_W1, VROUTER_POD_W1),
    (NODE_W2, VROUTER_POD_W2),
    (NODE_W3, VROUTER_POD_W3),
    (NODE_W4, VROUTER_POD_W4),
];

/// The cluster before the update: 3 masters and 4 computes Ready on the
/// current release, every lock active, no maintenance request, vRouter pods
/// all on DaemonSet generation 1.
pub fn idle() -> Snapshot {
    let mut objs = vec![Object::LcmCluster(Arc::new(LcmCluster {
        target_release: Some(CURRENT_RELEASE.into()),
        ..lcm_cluster()
    }))];
    for (name, ty, node_name, index) in MACHINES {
        let compute = ty == MachineType::Worker;
        objs.push(Object::Machine(Arc::new(machine(
            name,
            ty,
            MachineState::Ready,
            Some(node_name),
            Some(index),
        ))));
        objs.push(Object::Node(Arc::new(node(node_name, compute))));
        objs.push(Object::NodeWorkloadLock(Arc::new(node_lock(
            Controller::Openstack,
            node_name,
            LockState::Active,
            None,
        ))));
        if compute {
            objs.push(Object::NodeWorkloadLock(Arc::new(node_lock(
                tf_controller(),
                node_name,
                LockState::Active,
                None,
            ))));
        }
    }
    objs.extend([
        Object::ClusterWorkloadLock(Arc::new(cluster_lock(
            OPENSTACK_CWL,
            Controller::Openstack,
            LockState::Active,
        ))),
        Object::ClusterWorkloadLock(Arc::new(cluster_lock(
            CEPH_CWL,
            Controller::Ceph,
            LockState::Active,
        ))),
        Object::ClusterWorkloadLock(Arc::new(cluster_lock(
            TF_CWL,
            Controller::Tungstenfabric,
            LockState::Active,
        ))),
    ]);
    let mut ds = vrouter_ds(1, 4);
    ds.updated = 4;
    objs.push(Object::VrouterDaemonSet(Arc::new(ds)));
    for (node_name, pod) in VROUTER_PODS {
        objs.push(Object::VrouterPod(Arc::new(vrouter_pod(
            pod, node_name, 1, true,
        ))));
    }
    snapshot(objs)
}

/// The old-format (E-LEFT-OLD, dict repr) message on worker-2's OpenStack lock.
pub fn worker2_lock_message() -> String {
    format!(
        "{} Some servers {{'{SERVER_A}': 'ACTIVE', '{SERVER_B}': 'ACTIVE'}} are still present on host {NODE_W2}. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'",
        rockoon_stamp("10:28:41")
    )
}

/// The new-format (E-LEFT) message on worker-3's OpenStack lock.
pub fn worker3_lock_message() -> String {
    format!(
        "{} Some servers are still present on the host. Notify owners of the following server: ['{SERVER_C}']",
        rockoon_stamp("10:29:05")
    )
}

/// The cordon-drain message LCM writes while node locks are active (D-UPD22).
pub const CORDON_DRAIN_MESSAGE: &str =
    "Error: following NodeWorkloadLocks are still active - openstack: InProgress";

/// The cluster at 10:30 ([`mid_update_now`]), in phase 4 (workers) of an update
/// from [`names::CURRENT_RELEASE`] to [`names::TARGET_RELEASE`] started at 08:05:
///
/// - the maintenance request exists; the OpenStack, Ceph and TF cluster locks are inactive;
/// - the 3 masters are Ready on the target release; worker-1 too (its vRouter
///   pod was recreated from DaemonSet generation 2);
/// - worker-2 (migration mode unset, i.e. `live`) is in Deploy under a
///   maintenance request (scope `os`, since 09:51); its OpenStack lock is active
///   (`inner_state: active`) with the old-format "servers still present"
///   message naming SERVER_A and SERVER_B; its TF lock is inactive; its
///   cordon-drain cluster state is at attempt 4 with an error, its swarm-drain
///   state waits for it;
/// - worker-3 (migration mode `manual`) is in Prepare under a maintenance
///   request (since 10:00); its OpenStack lock is active with the new-format
///   message naming SERVER_C; cordon-drain at attempt 1;
/// - worker-4 is in Prepare with no maintenance request (waiting for its turn);
/// - vRouter pods on workers 2–4 still run generation 1.
pub fn mid_update() -> Snapshot {
    let mut snap = idle();
    snap.apply(Object::LcmCluster(Arc::new(lcm_cluster())));
    snap.apply(Object::ClusterMaintenanceRequest(Arc::new(cmr(at(
        "08:05",
    )))));
    for (name, controller) in [
        (OPENSTACK_CWL, Controller::Openstack),
        (CEPH_CWL, Controller::Ceph),
        (TF_CWL, Controller::Tungstenfabric),
    ] {
        snap.apply(Object::ClusterWorkloadLock(Arc::new(cluster_lock(
            name,
            controller,
            LockState::Inactive,
        ))));
    }
    for (name, ty, node_name, index) in MACHINES {
        let state = match name {
            WORKER_2 => MachineState::Deploy,
            WORKER_3 | WORKER_4 => MachineState::Prepare,
            _ => MachineState::Ready,
        };
        let ready = state.is_ready();
        let mut m = machine(name, ty, state, Some(node_name), Some(index));
        if ready {
            m.release = Some(TARGET_RELEASE.into());
        }
        snap.apply(Object::Machine(Arc::new(m)));
        if matches!(name, MASTER_0 | MASTER_1 | MASTER_2 | WORKER_1) {
            // Done: the OpenStack lock is back to active, Rockoon finished with it.
            let mut l = node_lock(Controller::Openstack, node_name, LockState::Active, None);
            l.inner_state = Some("inactive".into());
            snap.apply(Object::NodeWorkloadLock(Arc::new(l)));
        }
    }
    let mut w1 = node(NODE_W1, true);
    w1.migration_mode = Some(MigrationMode::Live);
    w1.migration_attempts = Some("5".into());
    snap.apply(Object::Node(Arc::new(w1)));
    let mut w3 = node(NODE_W3, true);
    w3.migration_mode = Some(MigrationMode::Manual);
    snap.apply(Object::Node(Arc::new(w3)));

    snap.apply(Object::NodeMaintenanceRequest(Arc::new(nmr(
        NODE_W2,
        "os",
        at("09:51"),
    ))));
    snap.apply(Object::NodeMaintenanceRequest(Arc::new(nmr(
        NODE_W3,
        "os",
        at("10:00"),
    ))));

    let mut l2 = node_lock(
        Controller::Openstack,
        NODE_W2,
        LockState::Active,
        Some(&worker2_lock_message()),
    );
    l2.inner_state = Some("active".into());
    snap.apply(Object::NodeWorkloadLock(Arc::new(l2)));
    snap.apply(Object::NodeWorkloadLock(Arc::new(node_lock(
        tf_controller(),
        NODE_W2,
        LockState::Inactive,
        None,
    ))));
    let mut l3 = node_lock(
        Controller::Openstack,
        NODE_W3,
        LockState::Active,
        Some(&worker3_lock_message()),
    );
    l3.inner_state = Some("active".into());
    snap.apply(Object::NodeWorkloadLock(Arc::new(l3)));

    snap.apply(Object::ClusterState(Arc::new(cluster_state(
        ClusterStateType::CordonDrain,
        WORKER_2,
        "true",
        None,
        4,
        Some(CORDON_DRAIN_MESSAGE),
    ))));
    snap.apply(Object::ClusterState(Arc::new(cluster_state(
        ClusterStateType::SwarmDrain,
        WORKER_2,
        "true",
        None,
        0,
        Some(&format!(
            "Error: waiting for kubernetes node {NODE_W2} to be drained first"
        )),
    ))));
    snap.apply(Object::ClusterState(Arc::new(cluster_state(
        ClusterStateType::CordonDrain,
        WORKER_3,
        "true",
        None,
        1,
        Some(CORDON_DRAIN_MESSAGE),
    ))));
    snap.apply(Object::ClusterState(Arc::new(ClusterState {
        name: format!("helm-deployed-{CLUSTER}-x7k2p"),
        arg: None,
        actual_value: Some("true".into()),
        attempt: Some(0),
        message: None,
        ..cluster_state(ClusterStateType::HelmDeployed, "", "true", None, 0, None)
    })));

    let mut ds = vrouter_ds(2, 4);
    ds.updated = 1;
    snap.apply(Object::VrouterDaemonSet(Arc::new(ds)));
    snap.apply(Object::VrouterPod(Arc::new(vrouter_pod(
        VROUTER_POD_W1,
        NODE_W1,
        2,
        true,
    ))));
    snap
}
