//! The cluster objects the console reasons about, as plain data.
//!
//! The cluster layer (`crate::cluster`) converts kube-rs objects into these
//! types, sanitizing every string on the way in; the domain logic and the UI
//! only ever see these. Field names follow the CRDs in `assets/crds/` and
//! `docs/` (one name per concept: machine, node, lock, maintenance request,
//! cluster state, migration mode).

use std::collections::BTreeMap;
use std::sync::Arc;

use jiff::Timestamp;

mod ceph;
mod kaas;
mod messages;
mod notable;
mod openstack;
mod removal;
mod snapshot;
mod vocabulary;

pub use ceph::{CEPH_CHECKS_KEPT, CephDeploymentHealth, CephHealthCheck};
pub use kaas::*;
pub use messages::{DrainError, ErrorMessage, StateMessage};
pub use notable::Notable;
pub use openstack::{ComponentHealth, NOT_READY_KEPT, OpenstackDeploymentStatus};
pub use removal::NodeNotice;
pub use snapshot::{KindsSeen, Snapshot, same_node, short_node};
pub use vocabulary::*;

/// Which of the two clusters an object lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClusterId {
    /// The management cluster (Mirantis Container Cloud): LCMMachine, LCMClusterState.
    Mgmt,
    /// The MOSK cluster: Nodes, locks, maintenance requests, vRouter pods.
    Mosk,
}

impl ClusterId {
    pub fn label(self) -> &'static str {
        match self {
            ClusterId::Mgmt => "mgmt",
            ClusterId::Mosk => "mosk",
        }
    }
}

/// Every kind the console watches. One watcher runs per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    LcmCluster,
    LcmMachine,
    LcmClusterState,
    Node,
    ClusterMaintenanceRequest,
    NodeMaintenanceRequest,
    ClusterWorkloadLock,
    NodeWorkloadLock,
    VrouterPod,
    VrouterDaemonSet,
    ClusterUpdatePlan,
    UpdateAutoPause,
    UpdateGroup,
    ProviderMachine,
    NodeDeletionRequest,
    NodeDisableNotification,
    OpenstackDeploymentStatus,
    CephDeploymentHealth,
}

impl Kind {
    pub const ALL: [Kind; 18] = [
        Kind::LcmCluster,
        Kind::LcmMachine,
        Kind::LcmClusterState,
        Kind::Node,
        Kind::ClusterMaintenanceRequest,
        Kind::NodeMaintenanceRequest,
        Kind::ClusterWorkloadLock,
        Kind::NodeWorkloadLock,
        Kind::VrouterPod,
        Kind::VrouterDaemonSet,
        Kind::ClusterUpdatePlan,
        Kind::UpdateAutoPause,
        Kind::UpdateGroup,
        Kind::ProviderMachine,
        Kind::NodeDeletionRequest,
        Kind::NodeDisableNotification,
        Kind::OpenstackDeploymentStatus,
        Kind::CephDeploymentHealth,
    ];

    pub fn cluster(self) -> ClusterId {
        match self {
            Kind::LcmCluster
            | Kind::LcmMachine
            | Kind::LcmClusterState
            | Kind::ClusterUpdatePlan
            | Kind::UpdateAutoPause
            | Kind::UpdateGroup
            | Kind::ProviderMachine => ClusterId::Mgmt,
            _ => ClusterId::Mosk,
        }
    }

    /// The Kubernetes kind name, as the API server spells it.
    pub fn api_kind(self) -> &'static str {
        match self {
            Kind::LcmCluster => "LCMCluster",
            Kind::LcmMachine => "LCMMachine",
            Kind::LcmClusterState => "LCMClusterState",
            Kind::Node => "Node",
            Kind::ClusterMaintenanceRequest => "ClusterMaintenanceRequest",
            Kind::NodeMaintenanceRequest => "NodeMaintenanceRequest",
            Kind::ClusterWorkloadLock => "ClusterWorkloadLock",
            Kind::NodeWorkloadLock => "NodeWorkloadLock",
            Kind::VrouterPod => "Pod",
            Kind::VrouterDaemonSet => "DaemonSet",
            Kind::ClusterUpdatePlan => "ClusterUpdatePlan",
            Kind::UpdateAutoPause => "UpdateAutoPause",
            Kind::UpdateGroup => "UpdateGroup",
            Kind::ProviderMachine => "Machine",
            Kind::NodeDeletionRequest => "NodeDeletionRequest",
            Kind::NodeDisableNotification => "NodeDisableNotification",
            Kind::OpenstackDeploymentStatus => "OpenStackDeploymentStatus",
            Kind::CephDeploymentHealth => "CephDeploymentHealth",
        }
    }

    /// The plural resource name used in API paths.
    pub fn plural(self) -> &'static str {
        match self {
            Kind::LcmCluster => "lcmclusters",
            Kind::LcmMachine => "lcmmachines",
            Kind::LcmClusterState => "lcmclusterstates",
            Kind::Node => "nodes",
            Kind::ClusterMaintenanceRequest => "clustermaintenancerequests",
            Kind::NodeMaintenanceRequest => "nodemaintenancerequests",
            Kind::ClusterWorkloadLock => "clusterworkloadlocks",
            Kind::NodeWorkloadLock => "nodeworkloadlocks",
            Kind::VrouterPod => "pods",
            Kind::VrouterDaemonSet => "daemonsets",
            Kind::ClusterUpdatePlan => "clusterupdateplans",
            Kind::UpdateAutoPause => "updateautopauses",
            Kind::UpdateGroup => "updategroups",
            Kind::ProviderMachine => "machines",
            Kind::NodeDeletionRequest => "nodedeletionrequests",
            Kind::NodeDisableNotification => "nodedisablenotifications",
            // Rockoon's CRD names its plural in the singular form.
            Kind::OpenstackDeploymentStatus => "openstackdeploymentstatus",
            Kind::CephDeploymentHealth => "cephdeploymenthealths",
        }
    }

    /// The API group (`""` for the core group) and version the kind is served in.
    pub fn group_version(self) -> (&'static str, &'static str) {
        match self {
            Kind::Node | Kind::VrouterPod => ("", "v1"),
            Kind::VrouterDaemonSet => ("apps", "v1"),
            Kind::ClusterUpdatePlan | Kind::UpdateAutoPause | Kind::UpdateGroup => {
                ("kaas.mirantis.com", "v1alpha1")
            }
            Kind::ProviderMachine => ("cluster.k8s.io", "v1alpha1"),
            _ => ("lcm.mirantis.com", "v1alpha1"),
        }
    }
}

/// Identifies one object: kind, namespace (empty for cluster-scoped), name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectKey {
    pub kind: Kind,
    pub namespace: String,
    pub name: String,
}

impl ObjectKey {
    pub fn new(kind: Kind, namespace: &str, name: &str) -> ObjectKey {
        ObjectKey {
            kind,
            namespace: namespace.to_string(),
            name: name.to_string(),
        }
    }
}

/// LCMCluster (management cluster): release and upgrade knobs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LcmCluster {
    pub name: String,
    pub namespace: String,
    /// `spec.release`: the release LCM is driving the cluster to.
    pub target_release: Option<String>,
    /// `status.release`: the release the cluster runs now.
    pub current_release: Option<String>,
    pub requested_nodes: Option<i64>,
    pub ready_nodes: Option<i64>,
}

/// LCMMachine (management cluster, project namespace).
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    pub name: String,
    pub namespace: String,
    pub uid: String,
    pub cluster_name: String,
    pub machine_type: MachineType,
    /// `status.state`.
    pub state: MachineState,
    /// `status.addresses[type=InternalIP]`.
    pub internal_ip: Option<String>,
    /// `status.addresses[type=Hostname]`: the Kubernetes node name (`kaas-node-…`).
    pub hostname: Option<String>,
    pub agent_version: Option<String>,
    pub release: Option<String>,
    /// `lcm.mirantis.com/index` annotation, when set (machine order).
    pub index: Option<i64>,
    /// `status.lcmOperationStuck`: LCM says an operation on the machine is stuck.
    pub operation_stuck: bool,
    /// `status.kubernetesCordonDrainError`: the error of the Kubernetes drain.
    pub drain_error: Option<DrainError>,
}

/// The value of `openstack.lcm.mirantis.com/instance_migration_mode`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MigrationMode {
    Live,
    Manual,
    Skip,
    /// A value the OpenStack controller would not understand (kept verbatim).
    Other(String),
}

impl MigrationMode {
    pub const ANNOTATION: &'static str = "openstack.lcm.mirantis.com/instance_migration_mode";
    pub const ATTEMPTS_ANNOTATION: &'static str =
        "openstack.lcm.mirantis.com/instance_migration_attempts";

    pub fn parse(s: &str) -> MigrationMode {
        match s {
            "live" => MigrationMode::Live,
            "manual" => MigrationMode::Manual,
            "skip" => MigrationMode::Skip,
            other => MigrationMode::Other(other.to_string()),
        }
    }
    pub fn as_str(&self) -> &str {
        match self {
            MigrationMode::Live => "live",
            MigrationMode::Manual => "manual",
            MigrationMode::Skip => "skip",
            MigrationMode::Other(s) => s,
        }
    }
}

/// A Kubernetes Node of the MOSK cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub name: String,
    pub uid: String,
    /// The node's labels among [`Node::KEPT_LABELS`]: the ones the console
    /// reads. A node carries 10–30 labels; keeping them all cost ~1.6 MiB
    /// per copy at 2,000 nodes (docs/PERFORMANCE.md, resident memory).
    pub labels: BTreeMap<String, String>,
    /// The migration mode annotation; `None` when unset (the controller then uses `live`).
    pub migration_mode: Option<MigrationMode>,
    /// The attempts annotation, verbatim (it is a string in the API).
    pub migration_attempts: Option<String>,
    pub ready: bool,
    pub unschedulable: bool,
    /// When the node was cordoned: the `timeAdded` of its
    /// `node.kubernetes.io/unschedulable` taint, which the node lifecycle
    /// controller stamps when it sees `spec.unschedulable` set
    /// (kubernetes/kubernetes `pkg/controller/util/node/controller_utils.go`,
    /// `SwapNodeControllerTaint`, read at 025f2834).
    pub cordoned_at: Option<Timestamp>,
}

/// Which OpenStack workload a node carries, by its labels: what its turn
/// is compared with (a compute's drain waits for its servers, a storage
/// node's for Ceph). A node with several roles counts as the first of
/// compute, gateway, control plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeRole {
    Compute,
    Gateway,
    ControlPlane,
    /// No OpenStack role (storage, Kubernetes-only).
    Other,
}

impl NodeRole {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeRole::Compute => "compute",
            NodeRole::Gateway => "gateway",
            NodeRole::ControlPlane => "control plane",
            NodeRole::Other => "no OpenStack role",
        }
    }
}

impl Node {
    /// The node's OpenStack role (labels `openstack-compute-node`,
    /// `openstack-gateway`, `openstack-control-plane` set to `enabled`).
    pub fn role(&self) -> NodeRole {
        let on = |k: &str| self.labels.get(k).is_some_and(|v| v == "enabled");
        if on("openstack-compute-node") {
            NodeRole::Compute
        } else if on("openstack-gateway") {
            NodeRole::Gateway
        } else if on("openstack-control-plane") {
            NodeRole::ControlPlane
        } else {
            NodeRole::Other
        }
    }

    /// The labels kept from a node: the OpenStack roles (the compute role
    /// decides the migration reminders, reference §4) and vRouter's.
    pub const KEPT_LABELS: [&'static str; 4] = [
        "openstack-compute-node",
        "openstack-control-plane",
        "openstack-gateway",
        "tfvrouter",
    ];
}

/// ClusterMaintenanceRequest (MOSK, cluster-scoped).
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterMaintenanceRequest {
    pub name: String,
    pub scope: Option<String>,
    pub release: Option<String>,
    pub created: Option<Timestamp>,
    pub deleting: bool,
    /// `metadata.deletionTimestamp`: when the deletion was asked.
    pub deletion: Option<Timestamp>,
}

/// NodeMaintenanceRequest (MOSK, cluster-scoped); named after its node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeMaintenanceRequest {
    pub name: String,
    pub node_name: String,
    /// `drain` or `os`.
    pub scope: Option<String>,
    pub release: Option<String>,
    pub created: Option<Timestamp>,
    /// `metadata.deletionTimestamp` is set (Terminating).
    pub deleting: bool,
    /// `metadata.deletionTimestamp`: when the deletion was asked.
    pub deletion: Option<Timestamp>,
}

/// ClusterWorkloadLock or NodeWorkloadLock (MOSK, cluster-scoped).
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadLock {
    pub name: String,
    /// `spec.controllerName`.
    pub controller: Controller,
    /// `spec.nodeName`; `None` for a ClusterWorkloadLock.
    pub node_name: Option<String>,
    pub state: LockState,
    /// `status.errorMessage`, verbatim (Rockoon prefixes a UTC timestamp),
    /// and what it says.
    pub error_message: Option<ErrorMessage>,
    pub release: Option<String>,
    /// The `inner_state` annotation (OpenStack locks only).
    pub inner_state: Option<String>,
    /// `status.inactivationProgress.percentage`.
    pub progress_percentage: Option<i64>,
    /// `status.inactivationProgress.description`.
    pub progress_description: Option<String>,
}

/// LCMClusterState (management cluster, project namespace).
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterState {
    pub name: String,
    pub namespace: String,
    pub cluster_name: String,
    /// `spec.type`.
    pub state_type: ClusterStateType,
    /// `spec.arg`: usually the machine name.
    pub arg: Option<String>,
    /// `spec.value`.
    pub value: Option<String>,
    /// `status.value` (ACTUALVALUE).
    pub actual_value: Option<String>,
    pub attempt: Option<i64>,
    /// `status.message`, and which node locks it says hold the node (LCM's drain).
    pub message: Option<StateMessage>,
}

/// A pod of a `tf-vrouter` DaemonSet in namespace `tf`.
#[derive(Debug, Clone, PartialEq)]
pub struct VrouterPod {
    pub name: String,
    pub namespace: String,
    pub uid: String,
    pub node_name: Option<String>,
    /// The owning DaemonSet's name.
    pub daemonset: Option<String>,
    /// The `controller-revision-hash` label: the hash of the
    /// ControllerRevision (the template) the pod was created from.
    pub revision: Option<String>,
    /// The `pod-template-generation` label the DaemonSet controller sets on its
    /// pods: the DaemonSet's template generation (its
    /// `deprecated.daemonset.template.generation` annotation, not its
    /// `metadata.generation`) when the pod was created.
    pub template_generation: Option<i64>,
    /// `status.phase`: Pending, Running, ….
    pub phase: String,
    /// The Ready condition is True.
    pub ready: bool,
    pub deleting: bool,
    pub created: Option<Timestamp>,
}

/// A `tf-vrouter` DaemonSet in namespace `tf`.
#[derive(Debug, Clone, PartialEq)]
pub struct VrouterDaemonSet {
    pub name: String,
    pub namespace: String,
    /// `spec.updateStrategy.type` (`OnDelete` for vRouter).
    pub update_strategy: Option<String>,
    pub desired: i64,
    /// CURRENT: `status.currentNumberScheduled`.
    pub current: i64,
    /// UP-TO-DATE: `status.updatedNumberScheduled`.
    pub updated: i64,
    pub ready: i64,
    pub observed_generation: Option<i64>,
    /// `metadata.generation`: moves on any spec change (update strategy,
    /// history limit, template).
    pub generation: Option<i64>,
    /// The `deprecated.daemonset.template.generation` annotation: moves only
    /// when the pod template changes; what the pods' `pod-template-generation`
    /// label is compared with.
    pub template_generation: Option<i64>,
}

/// One object, of any watched kind: its kind and a shared pointer to its
/// data. The snapshot and the joined rows (`domain::join::MachineRow`) hold
/// the same copy; a BTreeMap keeps its values inline, so an enum of the
/// structs themselves (288 bytes each) cost 6.6 MiB of tree nodes for
/// 11,842 objects (docs/PERFORMANCE.md, resident memory).
#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    LcmCluster(Arc<LcmCluster>),
    Machine(Arc<Machine>),
    ClusterState(Arc<ClusterState>),
    Node(Arc<Node>),
    ClusterMaintenanceRequest(Arc<ClusterMaintenanceRequest>),
    NodeMaintenanceRequest(Arc<NodeMaintenanceRequest>),
    ClusterWorkloadLock(Arc<WorkloadLock>),
    NodeWorkloadLock(Arc<WorkloadLock>),
    VrouterPod(Arc<VrouterPod>),
    VrouterDaemonSet(Arc<VrouterDaemonSet>),
    UpdatePlan(Arc<UpdatePlan>),
    UpdateAutoPause(Arc<UpdateAutoPause>),
    UpdateGroup(Arc<UpdateGroup>),
    ProviderMachine(Arc<ProviderMachine>),
    NodeDeletionRequest(Arc<NodeNotice>),
    NodeDisableNotification(Arc<NodeNotice>),
    OpenstackDeploymentStatus(Arc<OpenstackDeploymentStatus>),
    CephDeploymentHealth(Arc<CephDeploymentHealth>),
    /// An object that could not be decoded: shown as an error row, never dropped silently.
    Malformed(Arc<MalformedObject>),
}

/// An object of a watched kind whose body did not match the schema we read.
#[derive(Debug, Clone, PartialEq)]
pub struct MalformedObject {
    pub kind: Kind,
    pub namespace: String,
    pub name: String,
    pub error: String,
}

impl Object {
    pub fn key(&self) -> ObjectKey {
        let (kind, namespace, name) = self.key_parts();
        ObjectKey {
            kind,
            namespace: namespace.to_string(),
            name: name.to_string(),
        }
    }

    /// Its kind, without copying its names as [`Object::key`] does.
    pub fn kind(&self) -> Kind {
        self.key_parts().0
    }

    fn key_parts(&self) -> (Kind, &str, &str) {
        match self {
            Object::LcmCluster(o) => (Kind::LcmCluster, o.namespace.as_str(), o.name.as_str()),
            Object::Machine(o) => (Kind::LcmMachine, o.namespace.as_str(), o.name.as_str()),
            Object::ClusterState(o) => {
                (Kind::LcmClusterState, o.namespace.as_str(), o.name.as_str())
            }
            Object::Node(o) => (Kind::Node, "", o.name.as_str()),
            Object::ClusterMaintenanceRequest(o) => {
                (Kind::ClusterMaintenanceRequest, "", o.name.as_str())
            }
            Object::NodeMaintenanceRequest(o) => {
                (Kind::NodeMaintenanceRequest, "", o.name.as_str())
            }
            Object::ClusterWorkloadLock(o) => (Kind::ClusterWorkloadLock, "", o.name.as_str()),
            Object::NodeWorkloadLock(o) => (Kind::NodeWorkloadLock, "", o.name.as_str()),
            Object::VrouterPod(o) => (Kind::VrouterPod, o.namespace.as_str(), o.name.as_str()),
            Object::VrouterDaemonSet(o) => (
                Kind::VrouterDaemonSet,
                o.namespace.as_str(),
                o.name.as_str(),
            ),
            Object::UpdatePlan(o) => (
                Kind::ClusterUpdatePlan,
                o.namespace.as_str(),
                o.name.as_str(),
            ),
            Object::UpdateAutoPause(o) => {
                (Kind::UpdateAutoPause, o.namespace.as_str(), o.name.as_str())
            }
            Object::UpdateGroup(o) => (Kind::UpdateGroup, o.namespace.as_str(), o.name.as_str()),
            Object::ProviderMachine(o) => {
                (Kind::ProviderMachine, o.namespace.as_str(), o.name.as_str())
            }
            Object::NodeDeletionRequest(o) => (Kind::NodeDeletionRequest, "", o.name.as_str()),
            Object::NodeDisableNotification(o) => {
                (Kind::NodeDisableNotification, "", o.name.as_str())
            }
            Object::OpenstackDeploymentStatus(o) => (
                Kind::OpenstackDeploymentStatus,
                o.namespace.as_str(),
                o.name.as_str(),
            ),
            Object::CephDeploymentHealth(o) => (
                Kind::CephDeploymentHealth,
                o.namespace.as_str(),
                o.name.as_str(),
            ),
            Object::Malformed(o) => (o.kind, o.namespace.as_str(), o.name.as_str()),
        }
    }
}
