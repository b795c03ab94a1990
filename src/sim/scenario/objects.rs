//! JSON builders for the objects the scenario puts in the two stores.
//!
//! Shapes follow the CRDs in `assets/crds/` and the reference. Where a label,
//! image or name is not documented it is marked inferred.

use jiff::Timestamp;
use serde_json::{Value, json};

use super::spec::{Controller, Role, ScenarioSpec};
use super::text::{
    ANN_CLUSTER_STATE_REASON, ANN_LCM_INDEX, ANN_MIGRATION_ATTEMPTS, ANN_MIGRATION_MODE, k8s_time,
};
use super::topology::MachineInfo;

pub const LCM_API: &str = "lcm.mirantis.com/v1alpha1";

/// Namespace of the TF objects in the MOSK cluster.
pub const TF_NS: &str = "tf";
/// Namespace of lcm-controller in the management cluster.
pub const KAAS_NS: &str = "kaas";
/// The vRouter DaemonSet (the exact name is not documented; inferred from the pod names).
pub const VROUTER_DS: &str = "tf-vrouter-agent";

/// OpenStack cluster lock: `openstack-<OSDPL name>`; `osh-dev` is the usual
/// OSDPL name in Mirantis examples (inferred).
pub const CWL_OPENSTACK: &str = "openstack-osh-dev";
/// TF cluster lock: `tf-<TFOperator name>` (reference §5.1).
pub const CWL_TF: &str = "tf-openstack-tf";

/// Ceph cluster lock name. The real name is not known: this is a guess.
pub fn cwl_ceph(cluster: &str) -> String {
    format!("ceph-{cluster}")
}

/// Name of the cluster lock of a controller.
pub fn cwl_name(c: Controller, cluster: &str) -> String {
    match c {
        Controller::Openstack => CWL_OPENSTACK.to_string(),
        Controller::Ceph => cwl_ceph(cluster),
        Controller::Tf => CWL_TF.to_string(),
    }
}

/// Name of a node lock: `openstack-<node>` (confirmed). The Ceph and TF
/// names (`ceph-<node>`, `tf-<node>`) are a guess: they are not documented.
pub fn nwl_name(c: Controller, node: &str) -> String {
    match c {
        Controller::Openstack => format!("openstack-{node}"),
        Controller::Ceph => format!("ceph-{node}"),
        Controller::Tf => format!("tf-{node}"),
    }
}

/// LCMClusterState name: `<prefix>-<machine>`, lower-case, the last 63 characters.
pub fn cluster_state_name(prefix: &str, machine: &str) -> String {
    let full = format!("{prefix}-{machine}").to_lowercase();
    let skip = full.len().saturating_sub(63);
    full[skip..].to_string()
}

pub fn namespace(name: &str, now: Timestamp) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name},
                     "creationTimestamp": k8s_time(now)},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"}
    })
}

/// Node labels for a role. The OpenStack and `tfvrouter` labels are
/// documented; the Ceph and TF-control labels are inferred.
fn node_labels(m: &MachineInfo) -> Value {
    let mut l = serde_json::Map::new();
    let mut set = |k: &str, v: &str| {
        l.insert(k.to_string(), Value::String(v.to_string()));
    };
    set("kubernetes.io/hostname", &m.node);
    set("kubernetes.io/os", "linux");
    set("kubernetes.io/arch", "amd64");
    set("beta.kubernetes.io/os", "linux");
    set("beta.kubernetes.io/arch", "amd64");
    match m.role {
        Role::Control if m.no_collocated_roles => {
            set("node-role.kubernetes.io/master", "");
            set("node-role.kubernetes.io/control-plane", "");
        }
        Role::Control => {
            set("node-role.kubernetes.io/master", "");
            set("node-role.kubernetes.io/control-plane", "");
            set("openstack-control-plane", "enabled");
            set("ceph_role_mon", "true");
            set("ceph_role_mgr", "true");
            for tf in [
                "tfconfig",
                "tfcontrol",
                "tfwebui",
                "tfconfigdb",
                "tfanalytics",
                "tfanalyticsdb",
            ] {
                set(tf, "enabled");
            }
        }
        Role::Storage => {
            set("ceph_role_osd", "true");
        }
        Role::Gateway => {
            // The OpenStack gateway label is inferred from the compute one.
            set("openstack-gateway", "enabled");
            set("openvswitch", "enabled");
        }
        Role::Compute => {
            set("openstack-compute-node", "enabled");
            set("openvswitch", "enabled");
            set("tfvrouter", "enabled");
        }
    }
    for r in &m.extra_openstack_roles {
        match r {
            Role::Gateway => set("openstack-gateway", "enabled"),
            Role::Compute => set("openstack-compute-node", "enabled"),
            Role::Control => set("openstack-control-plane", "enabled"),
            Role::Storage => {}
        }
    }
    Value::Object(l)
}

pub fn node(m: &MachineInfo, kernel: &str, now: Timestamp) -> Value {
    let mut ann = serde_json::Map::new();
    if let Some(mode) = m.mode_annotation() {
        ann.insert(ANN_MIGRATION_MODE.into(), mode.into());
    }
    if let Some(n) = m.attempts_annotation() {
        ann.insert(ANN_MIGRATION_ATTEMPTS.into(), n.into());
    }
    let t = k8s_time(now);
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": m.node, "labels": node_labels(m), "annotations": ann,
                     "creationTimestamp": t},
        "spec": {"providerID": format!("metal3://{}", m.name)},
        "status": {
            "conditions": [ready_condition(true, now)],
            "addresses": [{"type": "InternalIP", "address": m.ip}, {"type": "Hostname", "address": m.node}],
            "nodeInfo": {
                "machineID": stable_hex(&format!("machine-id:{}", m.node), 32),
                "systemUUID": stable_uuid(&format!("system-uuid:{}", m.name)),
                "bootID": boot_id(&m.node, now),
                "kubeletVersion": KUBELET_VERSION,
                // Kubelets before 1.31 report their own version here; the field is required.
                "kubeProxyVersion": KUBELET_VERSION,
                "kernelVersion": kernel,
                "osImage": "Ubuntu 22.04.4 LTS",
                "containerRuntimeVersion": "containerd://1.7.13",
                "operatingSystem": "linux",
                "architecture": "amd64"
            }
        }
    })
}

/// The kubelet version of the simulated nodes (MOSK's Kubernetes; placeholder).
pub const KUBELET_VERSION: &str = "v1.27.13";

/// A node's boot ID: a new one after every boot.
pub fn boot_id(node: &str, booted: Timestamp) -> String {
    stable_uuid(&format!("boot-id:{node}:{}", booted.as_nanosecond()))
}

/// `n` lower-case hex digits derived from `seed` (FNV-1a, chained): stable
/// across runs, different for different seeds. Not cryptographic.
pub fn stable_hex(seed: &str, n: usize) -> String {
    let mut out = String::with_capacity(n + 16);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut round = 0u8;
    while out.len() < n {
        for b in seed.bytes().chain([round]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        out.push_str(&format!("{h:016x}"));
        round = round.wrapping_add(1);
    }
    out.truncate(n);
    out
}

/// A UUID-shaped stable id (8-4-4-4-12) derived from `seed`.
pub fn stable_uuid(seed: &str) -> String {
    let h = stable_hex(seed, 32);
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// The image ID the runtime reports for an image: its repository at a digest.
pub fn image_id(image: &str) -> String {
    let repo = image.rsplit_once(':').map_or(image, |(r, _)| r);
    format!(
        "{repo}@sha256:{}",
        stable_hex(&format!("digest:{image}"), 64)
    )
}

/// A containerd container ID for a container started at `started`.
pub fn container_id(pod: &str, container: &str, started: Timestamp) -> String {
    let seed = format!("container:{pod}/{container}:{}", started.as_nanosecond());
    format!("containerd://{}", stable_hex(&seed, 64))
}

/// The Node Ready condition.
pub fn ready_condition(ready: bool, now: Timestamp) -> Value {
    let t = k8s_time(now);
    if ready {
        json!({"type": "Ready", "status": "True", "reason": "KubeletReady",
               "message": "kubelet is posting ready status", "lastHeartbeatTime": t, "lastTransitionTime": t})
    } else {
        json!({"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
               "message": "Kubelet stopped posting node status.", "lastHeartbeatTime": t, "lastTransitionTime": t})
    }
}

pub fn lcm_cluster(spec: &ScenarioSpec, now: Timestamp) -> Value {
    let n = spec.total_machines();
    json!({
        "apiVersion": LCM_API,
        "kind": "LCMCluster",
        "metadata": {"name": spec.cluster, "namespace": spec.namespace, "creationTimestamp": k8s_time(now)},
        "spec": {"release": spec.release.from, "maxWorkerUpgradeCount": spec.worker_concurrency,
                 "maxWorkerPrepareCount": 50},
        "status": {"release": spec.release.from, "requestedNodes": n, "readyNodes": n,
                   "helmCtlDeployed": true}
    })
}

pub fn lcm_machine(spec: &ScenarioSpec, m: &MachineInfo, now: Timestamp) -> Value {
    json!({
        "apiVersion": LCM_API,
        "kind": "LCMMachine",
        "metadata": {"name": m.name, "namespace": spec.namespace,
                     "annotations": {ANN_LCM_INDEX: m.index.to_string()},
                     "labels": {"cluster.sigs.k8s.io/cluster-name": spec.cluster},
                     "creationTimestamp": k8s_time(now)},
        "spec": {"clusterName": spec.cluster, "type": m.lcm_type(), "lcmType": "ucp",
                 "release": spec.release.from, "rebootRequired": false},
        "status": {
            "state": "Ready",
            "addresses": [{"type": "InternalIP", "address": m.ip}, {"type": "Hostname", "address": m.node}],
            "agentVersion": spec.release.agent_from,
            "release": spec.release.from
        }
    })
}

/// An LCMCluster and its Ready LCMMachines for a cluster the scenario does
/// not play (`other_clusters`): on the scenario's starting release, masters
/// first (three at most), each with a node name of its own
/// (`kaas-node-<uuid>` derived from the cluster and the machine, so it is
/// never one of the played cluster's nodes).
pub fn other_cluster(
    spec: &ScenarioSpec,
    other: &super::spec::OtherClusterSpec,
    now: Timestamp,
) -> (Value, Vec<Value>) {
    let (ns, name, n) = (&other.namespace, &other.name, other.machines);
    let release = &spec.release.from;
    let cluster = json!({
        "apiVersion": LCM_API,
        "kind": "LCMCluster",
        "metadata": {"name": name, "namespace": ns, "creationTimestamp": k8s_time(now)},
        "spec": {"release": release, "maxWorkerUpgradeCount": 1, "maxWorkerPrepareCount": 50},
        "status": {"release": release, "requestedNodes": n, "readyNodes": n,
                   "helmCtlDeployed": true}
    });
    let machines = (0..n)
        .map(|i| {
            let (role, ty) = if i < 3 { ("control", "control") } else { ("worker", "worker") };
            let machine = format!("{name}-{role}-{}", stable_hex(&format!("{ns}/{name}/{i}"), 5));
            let node = format!("kaas-node-{}", stable_uuid(&format!("node:{ns}/{name}/{i}")));
            json!({
                "apiVersion": LCM_API,
                "kind": "LCMMachine",
                "metadata": {"name": machine, "namespace": ns,
                             "labels": {"cluster.sigs.k8s.io/cluster-name": name},
                             "creationTimestamp": k8s_time(now)},
                "spec": {"clusterName": name, "type": ty, "lcmType": "ucp",
                         "release": release, "rebootRequired": false},
                "status": {
                    "state": "Ready",
                    "addresses": [{"type": "InternalIP", "address": format!("10.99.{}.{}", i / 200, i % 200 + 10)},
                                  {"type": "Hostname", "address": node}],
                    "agentVersion": spec.release.agent_from,
                    "release": release
                }
            })
        })
        .collect();
    (cluster, machines)
}

pub fn cluster_lock(c: Controller, cluster: &str, release: &str) -> Value {
    json!({
        "apiVersion": LCM_API,
        "kind": "ClusterWorkloadLock",
        "metadata": {"name": cwl_name(c, cluster)},
        "spec": {"controllerName": c.controller_name()},
        "status": {"state": "active", "release": release}
    })
}

pub fn node_lock(c: Controller, m: &MachineInfo, release: &str) -> Value {
    let mut obj = json!({
        "apiVersion": LCM_API,
        "kind": "NodeWorkloadLock",
        "metadata": {"name": nwl_name(c, &m.node)},
        "spec": {"controllerName": c.controller_name(), "nodeName": m.node},
        "status": {"state": "active", "release": release}
    });
    if c == Controller::Openstack {
        obj["spec"]["nodeDeletionRequestSupported"] = true.into();
        // Rockoon's snapshot of the Node (reference §2.5).
        let snapshot = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": m.node,
                              "labels": node_labels(m)}, "spec": {}});
        obj["metadata"]["annotations"] =
            json!({"openstack.lcm.mirantis.com/original-node": snapshot.to_string()});
    }
    obj
}

pub fn cluster_maintenance_request(spec: &ScenarioSpec) -> Value {
    json!({
        "apiVersion": LCM_API,
        "kind": "ClusterMaintenanceRequest",
        "metadata": {"name": spec.cluster},
        "spec": {"scope": if spec.reboot { "os" } else { "drain" },
                 "release": spec.release.controller_to}
    })
}

pub fn node_maintenance_request(spec: &ScenarioSpec, m: &MachineInfo) -> Value {
    json!({
        "apiVersion": LCM_API,
        "kind": "NodeMaintenanceRequest",
        "metadata": {"name": m.node},
        "spec": {"nodeName": m.node, "scope": if spec.reboot { "os" } else { "drain" },
                 "release": spec.release.controller_to}
    })
}

/// A cordon-drain (`cd-`) or swarm-drain (`sd-`) LCMClusterState for a machine.
pub fn cluster_state(spec: &ScenarioSpec, m: &MachineInfo, swarm: bool, message: &str) -> Value {
    let (prefix, kind) = if swarm {
        ("sd", "swarm-drain")
    } else {
        ("cd", "cordon-drain")
    };
    json!({
        "apiVersion": LCM_API,
        "kind": "LCMClusterState",
        "metadata": {"name": cluster_state_name(prefix, &m.name), "namespace": spec.namespace,
                     "annotations": {ANN_CLUSTER_STATE_REASON: "upgrade"}},
        "spec": {"clusterName": spec.cluster, "type": kind, "arg": m.name, "value": "true"},
        "status": {"attempt": 0, "message": message}
    })
}

/// The lcm-controller image (placeholder tag).
const LCM_IMAGE: &str = "mirantis.azurecr.io/core/lcm-controller:1.42.7";

/// The lcm-controller pod (Deployment `lcm-lcm-controller`, container `controller`; inferred from support-dump paths).
pub fn lcm_controller_pod(name: &str, rs_hash: &str, now: Timestamp) -> Value {
    let t = k8s_time(now);
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": KAAS_NS, "creationTimestamp": t,
                     "labels": {"app.kubernetes.io/name": "lcm-controller", "app.kubernetes.io/instance": "lcm",
                                "pod-template-hash": rs_hash},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                          "name": format!("lcm-lcm-controller-{rs_hash}"),
                                          "uid": "5f1e7c2a-8d4b-4c61-9a3e-2b7d00000001",
                                          "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"nodeName": "kaas-mgmt-control-0",
                 "containers": [{"name": "controller", "image": LCM_IMAGE}]},
        "status": {"phase": "Running", "startTime": t,
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": t},
                                  {"type": "ContainersReady", "status": "True", "lastTransitionTime": t},
                                  {"type": "PodScheduled", "status": "True", "lastTransitionTime": t}],
                   "containerStatuses": [{"name": "controller", "ready": true, "started": true, "restartCount": 0,
                                          "image": LCM_IMAGE, "imageID": image_id(LCM_IMAGE),
                                          "containerID": container_id(name, "controller", now),
                                          "state": {"running": {"startedAt": t}}}]}
    })
}

/// Namespace of the OpenStack services in the MOSK cluster.
pub const OPENSTACK_NS: &str = "openstack";
/// The keystone-client Deployment, its container and its pods' labels.
pub const KEYSTONE_CLIENT: &str = "keystone-client";
/// Placeholder tag: the image's real name and tag are not public.
const KEYSTONE_CLIENT_IMAGE: &str =
    "mirantis.azurecr.io/openstack/heat:caracal-jammy-20250101000000";

/// The pod of the `keystone-client` Deployment, where MOSK's OpenStack CLI
/// is run with `kubectl exec`: one container that sleeps with the admin
/// cloud of `clouds.yaml` (`OS_CLOUD=admin`), on an OpenStack control plane
/// node (rockoon `charts/openstack/keystone/templates/deployment-client.yaml`
/// and helm-toolkit's `kubernetes_metadata_labels` and
/// `keystone_os_cloud_vars` snippets, commit 1390883a; the labels are what
/// rockoon's functional tests select it by, `tests/functional/base.py`
/// `keystone_client_pod`).
pub fn keystone_client_pod(name: &str, rs_hash: &str, node: &str, now: Timestamp) -> Value {
    let t = k8s_time(now);
    let labels = json!({"application": "keystone", "component": "client",
                        "release_group": "openstack-keystone", "pod-template-hash": rs_hash});
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": OPENSTACK_NS, "creationTimestamp": t,
                     "labels": labels,
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                          "name": format!("{KEYSTONE_CLIENT}-{rs_hash}"),
                                          "uid": "5f1e7c2a-8d4b-4c61-9a3e-2b7d00000002",
                                          "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"nodeName": node, "serviceAccountName": KEYSTONE_CLIENT,
                 "nodeSelector": {"openstack-control-plane": "enabled"},
                 "containers": [{"name": KEYSTONE_CLIENT, "image": KEYSTONE_CLIENT_IMAGE,
                                 "command": ["/bin/sleep", "infinity"],
                                 "env": [{"name": "LANG", "value": "C.UTF-8"},
                                         {"name": "OS_CACERT", "value": "/etc/ssl/certs/openstack-ca-bundle.pem"},
                                         {"name": "OS_CLOUD", "value": "admin"},
                                         {"name": "OS_CLOUD_SYSTEM", "value": "admin-system"}]}]},
        "status": {"phase": "Running", "startTime": t,
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": t},
                                  {"type": "ContainersReady", "status": "True", "lastTransitionTime": t},
                                  {"type": "PodScheduled", "status": "True", "lastTransitionTime": t}],
                   "containerStatuses": [{"name": KEYSTONE_CLIENT, "ready": true, "started": true, "restartCount": 0,
                                          "image": KEYSTONE_CLIENT_IMAGE, "imageID": image_id(KEYSTONE_CLIENT_IMAGE),
                                          "containerID": container_id(name, KEYSTONE_CLIENT, now),
                                          "state": {"running": {"startedAt": t}}}]}
    })
}

/// vRouter agent image per DaemonSet generation (placeholder tags).
pub fn vrouter_image(generation: i64) -> String {
    format!(
        "mirantis.azurecr.io/tungsten/contrail-vrouter-agent:24.1.{}",
        20240500 + generation
    )
}

/// The vRouter DaemonSet. Labels and selector are inferred (not documented).
pub fn vrouter_daemonset(generation: i64, now: Timestamp) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": VROUTER_DS, "namespace": TF_NS, "generation": generation,
                     "creationTimestamp": k8s_time(now),
                     "labels": {"app": VROUTER_DS, "tungstenfabric": "vrouter"},
                     "annotations": {"deprecated.daemonset.template.generation": generation.to_string()}},
        "spec": {
            "selector": {"matchLabels": {"app": VROUTER_DS}},
            "updateStrategy": {"type": "OnDelete"},
            "revisionHistoryLimit": 10,
            "template": {
                "metadata": {"labels": {"app": VROUTER_DS, "tungstenfabric": "vrouter"}},
                "spec": {"nodeSelector": {"tfvrouter": "enabled"}, "hostNetwork": true,
                         "containers": [{"name": "agent", "image": vrouter_image(generation)}]}
            }
        },
        // The DaemonSet controller writes the counts on its first pass; a
        // real server never serves the object without them (they are required).
        "status": {"currentNumberScheduled": 0, "desiredNumberScheduled": 0,
                   "numberMisscheduled": 0, "numberReady": 0}
    })
}

/// Phase of one vRouter pod as the simulator tracks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodPhase {
    Pending,
    /// Running; `ready` tells whether its containers are Ready.
    Running {
        ready: bool,
    },
}

#[allow(clippy::too_many_arguments)]
pub fn vrouter_pod(
    name: &str,
    node: &str,
    ip: &str,
    revision: &str,
    generation: i64,
    ds_uid: &str,
    now: Timestamp,
) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": TF_NS, "creationTimestamp": k8s_time(now),
                     "labels": {"app": VROUTER_DS, "tungstenfabric": "vrouter",
                                "controller-revision-hash": revision,
                                "pod-template-generation": generation.to_string()},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": VROUTER_DS,
                                          "uid": ds_uid, "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"nodeName": node, "hostNetwork": true, "terminationGracePeriodSeconds": 10,
                 "containers": [{"name": "agent", "image": vrouter_image(generation)}]},
        "status": {"phase": "Pending", "hostIP": ip,
                   "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": k8s_time(now)}]}
    })
}

/// Writes a vRouter pod's status for a phase (restart count for the CrashLoopBackOff case).
pub fn set_vrouter_pod_status(
    pod: &mut Value,
    phase: PodPhase,
    restarts: u32,
    since: Timestamp,
    image: &str,
) {
    let t = k8s_time(since);
    let pod_name = pod["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let status = &mut pod["status"];
    match phase {
        PodPhase::Pending => {
            status["phase"] = "Pending".into();
            status["conditions"] = json!([
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": t},
                {"type": "Ready", "status": "False", "reason": "ContainersNotReady",
                 "message": "containers with unready status: [agent]", "lastTransitionTime": t}
            ]);
            // A container not yet created has no image ID: the kubelet reports "".
            status["containerStatuses"] = json!([{"name": "agent", "ready": false, "started": false,
                "restartCount": 0, "image": image, "imageID": "",
                "state": {"waiting": {"reason": "ContainerCreating"}}}]);
        }
        PodPhase::Running { ready } => {
            let host_ip = status["hostIP"].clone();
            status["phase"] = "Running".into();
            status["podIP"] = host_ip;
            status["startTime"] = t.clone().into();
            let flag = if ready { "True" } else { "False" };
            let mut ready_cond = json!({"type": "Ready", "status": flag, "lastTransitionTime": t});
            if !ready {
                ready_cond["reason"] = "ContainersNotReady".into();
                ready_cond["message"] = "containers with unready status: [agent]".into();
            }
            status["conditions"] = json!([
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": t},
                {"type": "Initialized", "status": "True", "lastTransitionTime": t},
                {"type": "ContainersReady", "status": flag, "lastTransitionTime": t},
                ready_cond
            ]);
            let state = if ready || restarts == 0 {
                json!({"running": {"startedAt": t}})
            } else {
                json!({"waiting": {"reason": "CrashLoopBackOff",
                       "message": "back-off 5m0s restarting failed container=agent"}})
            };
            status["containerStatuses"] = json!([{"name": "agent", "ready": ready, "started": ready,
                "restartCount": restarts, "image": image, "imageID": image_id(image),
                "containerID": container_id(&pod_name, "agent", since), "state": state}]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_state_names_keep_the_last_63_characters() {
        assert_eq!(
            cluster_state_name("cd", "cz7506-child-cl-storage-worker-noefi-rgxhk"),
            "cd-cz7506-child-cl-storage-worker-noefi-rgxhk"
        );
        let long = "a".repeat(70);
        let n = cluster_state_name("sd", &format!("X{long}"));
        assert_eq!(n.len(), 63);
        assert!(n.chars().all(|c| c == 'a'));
    }
}
