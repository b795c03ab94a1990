//! kube objects -> [`crate::domain::objects::Object`].
//!
//! Every watched object arrives as a [`DynamicObject`] (one watcher code path
//! for custom and built-in kinds). Custom resources are read through small
//! partial serde structs (only the fields the console shows, all optional, so
//! fields added by newer releases are ignored); built-in kinds go through the
//! typed k8s-openapi structs. A body that does not match becomes
//! [`Object::Malformed`] carrying the decode error: it is shown as an error
//! row and never breaks the list it came in.
//!
//! Every string taken from the cluster passes through
//! [`crate::sanitize::sanitize`] here, before it reaches the domain. The
//! messages the rules read are parsed here too, once per object version
//! (a lock's message by `domain::lockmsg`, LCM's drain message by
//! `domain::drainmsg`): the rules read the typed result.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use kube::api::DynamicObject;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::domain::objects::{
    ClusterMaintenanceRequest, ClusterState, DrainError, ErrorMessage, Kind, LcmCluster, Machine,
    MalformedObject, MigrationMode, Node, NodeMaintenanceRequest, NodeNotice, Object, ObjectKey,
    StateMessage, VrouterDaemonSet, VrouterPod, WorkloadLock,
};
use crate::sanitize::sanitize;
pub use ceph::CEPH_NAMESPACE;
pub use openstack::OPENSTACK_NAMESPACE;
pub use vocabulary::parse;

/// Name prefix of the vRouter pods and DaemonSets (mosk-lcm-api §5.2).
pub const VROUTER_PREFIX: &str = "tf-vrouter";
/// Namespace of the vRouter pods and DaemonSets (mosk-lcm-api §5.2).
pub const VROUTER_NAMESPACE: &str = "tf";
/// The label the DaemonSet controller puts on its pods: the DaemonSet's
/// template generation when the pod was created.
pub const TEMPLATE_GENERATION_LABEL: &str = "pod-template-generation";
/// The DaemonSet annotation holding its template generation (apps/v1 keeps
/// the old `spec.templateGeneration` here; the API server moves it only when
/// the pod template changes).
pub const TEMPLATE_GENERATION_ANNOTATION: &str = "deprecated.daemonset.template.generation";
/// The label the DaemonSet controller puts on its pods: the ControllerRevision hash.
pub const REVISION_HASH_LABEL: &str = "controller-revision-hash";
/// LCMMachine annotation giving the machine order (mosk-lcm-api §7.1).
pub const MACHINE_INDEX_ANNOTATION: &str = "lcm.mirantis.com/index";
/// NodeWorkloadLock annotation Rockoon uses for its own bookkeeping (no prefix; §2.5).
pub const INNER_STATE_ANNOTATION: &str = "inner_state";

/// Converts one watched object of `kind`. Never fails: an object that cannot be
/// read becomes [`Object::Malformed`].
pub fn convert(kind: Kind, obj: &DynamicObject) -> Object {
    let result = match kind {
        Kind::LcmCluster => lcm_cluster(obj).map(|o| Object::LcmCluster(Arc::new(o))),
        Kind::LcmMachine => machine(obj).map(|o| Object::Machine(Arc::new(o))),
        Kind::LcmClusterState => cluster_state(obj).map(|o| Object::ClusterState(Arc::new(o))),
        Kind::Node => builtin::node(obj).map(|o| Object::Node(Arc::new(o))),
        Kind::ClusterMaintenanceRequest => {
            cluster_request(obj).map(|o| Object::ClusterMaintenanceRequest(Arc::new(o)))
        }
        Kind::NodeMaintenanceRequest => {
            node_request(obj).map(|o| Object::NodeMaintenanceRequest(Arc::new(o)))
        }
        Kind::ClusterWorkloadLock => {
            lock(obj, false).map(|o| Object::ClusterWorkloadLock(Arc::new(o)))
        }
        Kind::NodeWorkloadLock => lock(obj, true).map(|o| Object::NodeWorkloadLock(Arc::new(o))),
        Kind::VrouterPod => builtin::vrouter_pod(obj).map(|o| Object::VrouterPod(Arc::new(o))),
        Kind::VrouterDaemonSet => {
            builtin::vrouter_daemonset(obj).map(|o| Object::VrouterDaemonSet(Arc::new(o)))
        }
        Kind::ClusterUpdatePlan => kaas::update_plan(obj).map(|o| Object::UpdatePlan(Arc::new(o))),
        Kind::UpdateAutoPause => {
            kaas::auto_pause(obj).map(|o| Object::UpdateAutoPause(Arc::new(o)))
        }
        Kind::UpdateGroup => kaas::update_group(obj).map(|o| Object::UpdateGroup(Arc::new(o))),
        Kind::ProviderMachine => {
            kaas::provider_machine(obj).map(|o| Object::ProviderMachine(Arc::new(o)))
        }
        Kind::NodeDeletionRequest => {
            node_notice(obj).map(|o| Object::NodeDeletionRequest(Arc::new(o)))
        }
        Kind::NodeDisableNotification => {
            node_notice(obj).map(|o| Object::NodeDisableNotification(Arc::new(o)))
        }
        Kind::OpenstackDeploymentStatus => {
            openstack::osdpl_status(obj).map(|o| Object::OpenstackDeploymentStatus(Arc::new(o)))
        }
        Kind::CephDeploymentHealth => {
            ceph::ceph_health(obj).map(|o| Object::CephDeploymentHealth(Arc::new(o)))
        }
    };
    result.unwrap_or_else(|error| {
        let key = object_key(kind, obj);
        Object::Malformed(Arc::new(MalformedObject {
            kind,
            namespace: key.namespace,
            name: key.name,
            error: sanitize(&error),
        }))
    })
}

/// The key an object of `kind` has in the domain (sanitized namespace and name,
/// namespace empty for cluster-scoped kinds): the same key [`convert`]'s result has.
pub fn object_key(kind: Kind, obj: &DynamicObject) -> ObjectKey {
    let namespace = if is_cluster_scoped(kind) {
        String::new()
    } else {
        s_opt(obj.metadata.namespace.as_deref())
    };
    ObjectKey {
        kind,
        namespace,
        name: s_opt(obj.metadata.name.as_deref()),
    }
}

/// The namespace a namespaced kind of the MOSK cluster is read in: Rockoon's
/// status in `openstack`, Ceph's health in `ceph-lcm-mirantis`, the vRouter
/// pods and DaemonSets in `tf`.
pub fn mosk_namespace(kind: Kind) -> &'static str {
    match kind {
        Kind::OpenstackDeploymentStatus => OPENSTACK_NAMESPACE,
        Kind::CephDeploymentHealth => CEPH_NAMESPACE,
        _ => VROUTER_NAMESPACE,
    }
}

/// Kinds whose objects have no namespace.
pub fn is_cluster_scoped(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Node
            | Kind::ClusterMaintenanceRequest
            | Kind::NodeMaintenanceRequest
            | Kind::ClusterWorkloadLock
            | Kind::NodeWorkloadLock
            | Kind::NodeDeletionRequest
            | Kind::NodeDisableNotification
    )
}

/// Whether the watcher for `kind` should pass this object on: vRouter pods and
/// DaemonSets are recognised by name (their labels are not documented, §5.2);
/// LCM objects are restricted to one cluster when `cluster_name` is given.
pub fn is_wanted(kind: Kind, obj: &DynamicObject, cluster_name: Option<&str>) -> bool {
    let name = obj.metadata.name.as_deref().unwrap_or_default();
    match kind {
        Kind::VrouterPod | Kind::VrouterDaemonSet => name.starts_with(VROUTER_PREFIX),
        Kind::LcmMachine | Kind::LcmClusterState => match cluster_name {
            // An object whose clusterName cannot be read is kept (it shows as Malformed).
            Some(want) => obj
                .data
                .pointer("/spec/clusterName")
                .and_then(|v| v.as_str())
                .is_none_or(|have| have == want),
            None => true,
        },
        Kind::LcmCluster => cluster_name.is_none_or(|want| name == want),
        // One UpdateAutoPause per cluster, named like it (reference §2).
        Kind::UpdateAutoPause => cluster_name.is_none_or(|want| name == want),
        Kind::ClusterUpdatePlan => match cluster_name {
            Some(want) => obj
                .data
                .pointer("/spec/cluster")
                .and_then(|v| v.as_str())
                .is_none_or(|have| have == want),
            None => true,
        },
        Kind::UpdateGroup | Kind::ProviderMachine => match cluster_name {
            Some(want) => obj
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get(kaas::CLUSTER_NAME_LABEL))
                .is_none_or(|have| have == want),
            None => true,
        },
        _ => true,
    }
}

// ---- helpers ---------------------------------------------------------------

fn s(v: &str) -> String {
    sanitize(v)
}

fn s_opt(v: Option<&str>) -> String {
    v.map(sanitize).unwrap_or_default()
}

fn so(v: Option<String>) -> Option<String> {
    v.map(|v| sanitize(&v))
}

fn name_of(meta: &ObjectMeta) -> Result<String, String> {
    match meta.name.as_deref() {
        Some(n) if !n.is_empty() => Ok(s(n)),
        _ => Err("metadata.name is missing".to_string()),
    }
}

fn annotation(meta: &ObjectMeta, key: &str) -> Option<String> {
    meta.annotations.as_ref()?.get(key).map(|v| s(v))
}

fn time(t: Option<&Time>) -> Option<jiff::Timestamp> {
    t.map(|t| t.0)
}

/// The `spec`/`status` of a custom resource, read leniently: unknown fields are
/// ignored, missing ones are `None`, a wrong type is an error.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Body<Spec, Status> {
    spec: Option<Spec>,
    status: Option<Status>,
}

fn body<Spec: DeserializeOwned + Default, Status: DeserializeOwned + Default>(
    obj: &DynamicObject,
) -> Result<(Spec, Status), String> {
    let b: Body<Spec, Status> = Body::deserialize(&obj.data).map_err(|e| e.to_string())?;
    Ok((b.spec.unwrap_or_default(), b.status.unwrap_or_default()))
}

/// Decodes a built-in kind through its typed k8s-openapi struct.
fn typed<K: DeserializeOwned>(obj: &DynamicObject) -> Result<K, String> {
    let value = serde_json::to_value(obj).map_err(|e| e.to_string())?;
    serde_json::from_value(value).map_err(|e| e.to_string())
}

// ---- management cluster ----------------------------------------------------

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LcmClusterSpec {
    release: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LcmClusterStatus {
    release: Option<String>,
    requested_nodes: Option<i64>,
    ready_nodes: Option<i64>,
}

fn lcm_cluster(obj: &DynamicObject) -> Result<LcmCluster, String> {
    let (spec, status): (LcmClusterSpec, LcmClusterStatus) = body(obj)?;
    Ok(LcmCluster {
        name: name_of(&obj.metadata)?,
        namespace: s_opt(obj.metadata.namespace.as_deref()),
        target_release: so(spec.release),
        current_release: so(status.release),
        requested_nodes: status.requested_nodes,
        ready_nodes: status.ready_nodes,
    })
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct MachineSpec {
    cluster_name: Option<String>,
    #[serde(rename = "type")]
    machine_type: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct MachineStatus {
    state: Option<String>,
    addresses: Option<Vec<Address>>,
    agent_version: Option<String>,
    release: Option<String>,
    lcm_operation_stuck: Option<bool>,
    kubernetes_cordon_drain_error: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Address {
    #[serde(rename = "type")]
    address_type: Option<String>,
    address: Option<String>,
}

fn machine(obj: &DynamicObject) -> Result<Machine, String> {
    let (spec, status): (MachineSpec, MachineStatus) = body(obj)?;
    let addresses = status.addresses.unwrap_or_default();
    let address = |t: &str| {
        addresses
            .iter()
            .find(|a| a.address_type.as_deref() == Some(t))
            .and_then(|a| a.address.as_deref())
            .map(s)
    };
    Ok(Machine {
        name: name_of(&obj.metadata)?,
        namespace: s_opt(obj.metadata.namespace.as_deref()),
        uid: s_opt(obj.metadata.uid.as_deref()),
        cluster_name: s_opt(spec.cluster_name.as_deref()),
        machine_type: parse(spec.machine_type.as_deref()),
        state: parse(status.state.as_deref()),
        internal_ip: address("InternalIP"),
        hostname: address("Hostname"),
        agent_version: so(status.agent_version),
        // `status.release`: the release the machine's applied configuration belongs to.
        release: so(status.release),
        // An unparseable index only loses the ordering hint; it does not make the machine malformed.
        index: annotation(&obj.metadata, MACHINE_INDEX_ANNOTATION)
            .and_then(|v| v.trim().parse().ok()),
        operation_stuck: status.lcm_operation_stuck.unwrap_or(false),
        drain_error: so(status.kubernetes_cordon_drain_error)
            .filter(|e| !e.trim().is_empty())
            .map(DrainError::new),
    })
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ClusterStateSpec {
    cluster_name: Option<String>,
    #[serde(rename = "type")]
    state_type: Option<String>,
    arg: Option<String>,
    value: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ClusterStateStatus {
    value: Option<String>,
    attempt: Option<i64>,
    message: Option<String>,
}

fn cluster_state(obj: &DynamicObject) -> Result<ClusterState, String> {
    let (spec, status): (ClusterStateSpec, ClusterStateStatus) = body(obj)?;
    Ok(ClusterState {
        name: name_of(&obj.metadata)?,
        namespace: s_opt(obj.metadata.namespace.as_deref()),
        cluster_name: s_opt(spec.cluster_name.as_deref()),
        state_type: parse(spec.state_type.as_deref()),
        arg: so(spec.arg),
        value: so(spec.value),
        actual_value: so(status.value),
        attempt: status.attempt,
        message: so(status.message).map(StateMessage::new),
    })
}

// ---- MOSK cluster: maintenance requests and locks --------------------------

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RequestSpec {
    node_name: Option<String>,
    scope: Option<String>,
    release: Option<String>,
}

fn cluster_request(obj: &DynamicObject) -> Result<ClusterMaintenanceRequest, String> {
    // The requests have no status (mosk-lcm-api §2.1): whatever is there is ignored.
    let (spec, _): (RequestSpec, serde_json::Value) = body(obj)?;
    Ok(ClusterMaintenanceRequest {
        name: name_of(&obj.metadata)?,
        scope: so(spec.scope),
        release: so(spec.release),
        created: time(obj.metadata.creation_timestamp.as_ref()),
        deleting: obj.metadata.deletion_timestamp.is_some(),
        deletion: time(obj.metadata.deletion_timestamp.as_ref()),
    })
}

/// `spec.nodeName`, required by the CRDs: without it the object cannot be
/// tied to a node.
fn required_node_name(spec: &RequestSpec) -> Result<String, String> {
    spec.node_name
        .as_deref()
        .map(s)
        .ok_or_else(|| "spec.nodeName is missing".to_string())
}

fn node_request(obj: &DynamicObject) -> Result<NodeMaintenanceRequest, String> {
    let (spec, _): (RequestSpec, serde_json::Value) = body(obj)?;
    Ok(NodeMaintenanceRequest {
        name: name_of(&obj.metadata)?,
        node_name: required_node_name(&spec)?,
        scope: so(spec.scope),
        release: so(spec.release),
        created: time(obj.metadata.creation_timestamp.as_ref()),
        deleting: obj.metadata.deletion_timestamp.is_some(),
        deletion: time(obj.metadata.deletion_timestamp.as_ref()),
    })
}

/// NodeDeletionRequest / NodeDisableNotification: `spec.nodeName` only.
fn node_notice(obj: &DynamicObject) -> Result<NodeNotice, String> {
    let (spec, _): (RequestSpec, serde_json::Value) = body(obj)?;
    Ok(NodeNotice {
        name: name_of(&obj.metadata)?,
        node_name: required_node_name(&spec)?,
        created: time(obj.metadata.creation_timestamp.as_ref()),
    })
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LockSpec {
    controller_name: Option<String>,
    node_name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LockStatus {
    state: Option<String>,
    error_message: Option<String>,
    release: Option<String>,
    inactivation_progress: Option<Progress>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Progress {
    percentage: Option<i64>,
    description: Option<String>,
}

fn lock(obj: &DynamicObject, per_node: bool) -> Result<WorkloadLock, String> {
    let (spec, status): (LockSpec, LockStatus) = body(obj)?;
    let controller = match spec.controller_name.as_deref() {
        Some(name) => parse(Some(name)),
        None => return Err("spec.controllerName is missing".to_string()),
    };
    let node_name = if per_node {
        Some(
            spec.node_name
                .as_deref()
                .map(s)
                .ok_or("spec.nodeName is missing")?,
        )
    } else {
        None
    };
    let progress = status.inactivation_progress.unwrap_or_default();
    Ok(WorkloadLock {
        name: name_of(&obj.metadata)?,
        controller,
        node_name,
        state: parse(status.state.as_deref()),
        error_message: so(status.error_message).map(ErrorMessage::new),
        release: so(status.release),
        inner_state: annotation(&obj.metadata, INNER_STATE_ANNOTATION),
        progress_percentage: progress.percentage,
        progress_description: so(progress.description),
    })
}

mod builtin;
mod ceph;
mod kaas;
mod openstack;
mod vocabulary;

#[cfg(test)]
mod tests;
