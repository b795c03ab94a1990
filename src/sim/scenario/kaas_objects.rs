//! JSON builders for the management cluster's `kaas.mirantis.com` and
//! `cluster.k8s.io` objects (Machine, ClusterUpdatePlan, UpdateAutoPause,
//! UpdateGroup) and the MOSK cluster's NodeDisableNotification. Shapes follow
//! `assets/crds/derived-by-us_*.yaml`; what is inferred is said there and here.

use jiff::Timestamp;
use serde_json::{Map, Value, json};

use super::objects::LCM_API;
use super::plan_spec::{PlanSpec, UpdateGroupSpec};
use super::spec::{Role, ScenarioSpec};
use super::text::k8s_time;
use super::topology::MachineInfo;

pub const KAAS_API: &str = "kaas.mirantis.com/v1alpha1";
pub const MACHINE_API: &str = "cluster.k8s.io/v1alpha1";

pub const MACHINES: &str = "machines";
pub const PLANS: &str = "clusterupdateplans";
pub const AUTOPAUSES: &str = "updateautopauses";
pub const UPDATEGROUPS: &str = "updategroups";
pub const NDN: &str = "nodedisablenotifications";

pub const LABEL_CLUSTER: &str = "cluster.sigs.k8s.io/cluster-name";
pub const LABEL_CONTROL_PLANE: &str = "cluster.sigs.k8s.io/control-plane";
/// [W: an operator's script] the Machine's UpdateGroup.
pub const LABEL_UPDATE_GROUP: &str = "kaas.mirantis.com/update-group";

/// The `Maintenance` condition message while LCM has the machine in maintenance (wording inferred).
pub const MAINTENANCE_MESSAGE: &str = "Machine is in maintenance";

/// `status.providerStatus`: `ready` and `{type, ready, message}` conditions
/// (MCC condition shape; the location and the message texts are inferred).
pub fn provider_status(ready: bool, maintenance: bool) -> Value {
    let lcm = if ready {
        json!({"type": "LCM", "ready": true, "message": ""})
    } else {
        json!({"type": "LCM", "ready": false, "message": "LCM is updating the machine"})
    };
    let maint = if maintenance {
        json!({"type": "Maintenance", "ready": false, "message": MAINTENANCE_MESSAGE})
    } else {
        json!({"type": "Maintenance", "ready": true, "message": ""})
    };
    json!({"ready": ready, "conditions": [
        {"type": "Kubelet", "ready": true, "message": ""}, lcm, maint]})
}

/// The provider Machine, named like its LCMMachine.
pub fn machine(spec: &ScenarioSpec, m: &MachineInfo, now: Timestamp) -> Value {
    let mut labels = Map::new();
    labels.insert(LABEL_CLUSTER.into(), spec.cluster.clone().into());
    if m.role == Role::Control {
        labels.insert(LABEL_CONTROL_PLANE.into(), "".into());
    }
    if let Some(g) = &m.update_group {
        labels.insert(LABEL_UPDATE_GROUP.into(), g.clone().into());
    }
    json!({
        "apiVersion": MACHINE_API,
        "kind": "Machine",
        "metadata": {"name": m.name, "namespace": spec.namespace, "labels": labels,
                     "creationTimestamp": k8s_time(now)},
        "spec": {"providerSpec": {"value": {"disable": m.disabled, "upgradeIndex": m.index}}},
        "status": {"providerStatus": provider_status(!m.disabled, false)}
    })
}

pub fn update_group(spec: &ScenarioSpec, g: &UpdateGroupSpec, now: Timestamp) -> Value {
    json!({
        "apiVersion": KAAS_API,
        "kind": "UpdateGroup",
        "metadata": {"name": format!("{}-{}", spec.cluster, g.suffix), "namespace": spec.namespace,
                     "labels": {LABEL_CLUSTER: spec.cluster},
                     "creationTimestamp": k8s_time(now)},
        "spec": {"index": g.index, "concurrentUpdates": g.concurrent_updates,
                 "rebootIfUpdateRequires": g.reboot_if_update_requires}
    })
}

/// The plan's name: `<cluster>-<target cluster release version>` [I], the
/// version taken from the controllers' release string (`17.4.0+25.1` → `17.4.0`).
pub fn plan_name(spec: &ScenarioSpec) -> String {
    let version = spec
        .release
        .controller_to
        .split('+')
        .next()
        .unwrap_or_default();
    format!("{}-{version}", spec.cluster)
}

/// The ClusterUpdatePlan as the provider creates it: every step `commence: false`.
pub fn cluster_update_plan(spec: &ScenarioSpec, plan: &PlanSpec, now: Timestamp) -> Value {
    let steps: Vec<Value> = plan
        .steps
        .iter()
        .map(|s| {
            let mut duration = Map::new();
            if let Some(e) = &s.duration.estimated {
                duration.insert("estimated".into(), e.clone().into());
            }
            if let Some(e) = &s.duration.eta {
                duration.insert("eta".into(), e.clone().into());
            }
            if !s.duration.info.is_empty() {
                duration.insert("info".into(), json!(s.duration.info));
            }
            let mut impact = json!({"users": s.impact.users.as_str(),
                                    "workloads": s.impact.workloads.as_str()});
            if !s.impact.info.is_empty() {
                impact["info"] = json!(s.impact.info);
            }
            json!({"id": s.id, "name": s.name, "description": s.description,
                   "constraints": s.constraints, "impact": impact, "duration": duration,
                   "granularity": s.granularity.as_str(), "commence": false})
        })
        .collect();
    let mut obj = json!({
        "apiVersion": KAAS_API,
        "kind": "ClusterUpdatePlan",
        "metadata": {"name": plan_name(spec), "namespace": spec.namespace,
                     "labels": {LABEL_CLUSTER: spec.cluster},
                     "creationTimestamp": k8s_time(now)},
        "spec": {"cluster": spec.cluster, "source": spec.release.from, "target": spec.release.to,
                 "steps": steps},
        "status": {"status": "NotStarted", "steps": plan.steps.iter().map(|s|
            json!({"id": s.id, "name": s.name, "status": "NotStarted"})).collect::<Vec<_>>()}
    });
    if let Some(url) = &plan.release_notes {
        obj["spec"]["releaseNotes"] = url.clone().into();
    }
    obj
}

/// The UpdateAutoPause: named like the cluster, in its namespace [C: D-PAUSE].
pub fn update_auto_pause(spec: &ScenarioSpec, alerts: &[String], now: Timestamp) -> Value {
    json!({
        "apiVersion": KAAS_API,
        "kind": "UpdateAutoPause",
        "metadata": {"name": spec.cluster, "namespace": spec.namespace,
                     "creationTimestamp": k8s_time(now)},
        "spec": {"alerts": alerts},
        "status": {"firingAlerts": []}
    })
}

/// A NodeDisableNotification for a disabled machine's node (named like the node [I]).
pub fn node_disable_notification(m: &MachineInfo, now: Timestamp) -> Value {
    json!({
        "apiVersion": LCM_API,
        "kind": "NodeDisableNotification",
        "metadata": {"name": m.node, "creationTimestamp": k8s_time(now)},
        "spec": {"nodeName": m.node}
    })
}
