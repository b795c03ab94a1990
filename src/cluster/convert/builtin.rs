//! The MOSK cluster's built-in kinds (Node, the `tf-vrouter` pods and
//! DaemonSets): nodes and pods read field by field, the DaemonSet through
//! its typed k8s-openapi struct.

use super::*;

/// The labels of `keep`, sanitized; the others are dropped.
fn kept_labels(m: Option<&BTreeMap<String, String>>, keep: &[&str]) -> BTreeMap<String, String> {
    m.map(|m| {
        m.iter()
            .filter(|(k, _)| keep.contains(&k.as_str()))
            .map(|(k, v)| (s(k), s(v)))
            .collect()
    })
    .unwrap_or_default()
}

// Nodes and pods come by the thousand: they are read field by field from
// the watched object (its metadata is already typed) rather than through the
// whole k8s-openapi `Node`/`Pod`, which would copy each object into a JSON
// value and decode every field of it, for the handful the console shows.

/// A condition's type and status (`NodeCondition`, `PodCondition`).
#[derive(Deserialize)]
struct ConditionRead {
    #[serde(rename = "type")]
    type_: String,
    status: String,
}

/// Whether `conditions` holds `Ready` = `True`.
fn ready_in(conditions: &[ConditionRead]) -> bool {
    conditions
        .iter()
        .any(|c| c.type_ == "Ready" && c.status == "True")
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct NodeSpecRead {
    unschedulable: Option<bool>,
    taints: Option<Vec<TaintRead>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct TaintRead {
    key: Option<String>,
    time_added: Option<Time>,
}

/// The taint the node lifecycle controller puts on a cordoned node, with
/// the time it was added (kubernetes/kubernetes
/// `pkg/controller/util/node/controller_utils.go` `SwapNodeControllerTaint`,
/// 025f2834; the taint's key is `v1.TaintNodeUnschedulable`).
const UNSCHEDULABLE_TAINT: &str = "node.kubernetes.io/unschedulable";

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct NodeStatusRead {
    conditions: Option<Vec<ConditionRead>>,
}

pub(super) fn node(obj: &DynamicObject) -> Result<Node, String> {
    let (spec, status): (NodeSpecRead, NodeStatusRead) = body(obj)?;
    let meta = &obj.metadata;
    Ok(Node {
        name: name_of(meta)?,
        uid: s_opt(meta.uid.as_deref()),
        labels: kept_labels(meta.labels.as_ref(), &Node::KEPT_LABELS),
        migration_mode: annotation(meta, MigrationMode::ANNOTATION)
            .map(|v| MigrationMode::parse(&v)),
        migration_attempts: annotation(meta, MigrationMode::ATTEMPTS_ANNOTATION),
        ready: status.conditions.as_deref().is_some_and(ready_in),
        unschedulable: spec.unschedulable.unwrap_or(false),
        cordoned_at: spec
            .taints
            .unwrap_or_default()
            .iter()
            .find(|t| t.key.as_deref() == Some(UNSCHEDULABLE_TAINT))
            .and_then(|t| time(t.time_added.as_ref())),
    })
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PodSpecRead {
    node_name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PodStatusRead {
    phase: Option<String>,
    conditions: Option<Vec<ConditionRead>>,
}

pub(super) fn vrouter_pod(obj: &DynamicObject) -> Result<VrouterPod, String> {
    let (spec, status): (PodSpecRead, PodStatusRead) = body(obj)?;
    let meta = &obj.metadata;
    let label = |k: &str| meta.labels.as_ref().and_then(|l| l.get(k)).map(|v| s(v));
    let daemonset = meta
        .owner_references
        .as_ref()
        .and_then(|os| os.iter().find(|o| o.kind == "DaemonSet"))
        .map(|o| s(&o.name));
    Ok(VrouterPod {
        name: name_of(meta)?,
        namespace: s_opt(meta.namespace.as_deref()),
        uid: s_opt(meta.uid.as_deref()),
        node_name: spec.node_name.as_deref().map(s),
        daemonset,
        revision: label(REVISION_HASH_LABEL),
        // A label that is not a number cannot be compared with the DaemonSet generation.
        template_generation: label(TEMPLATE_GENERATION_LABEL).and_then(|v| v.trim().parse().ok()),
        phase: s_opt(status.phase.as_deref()),
        ready: status.conditions.as_deref().is_some_and(ready_in),
        deleting: meta.deletion_timestamp.is_some(),
        created: time(meta.creation_timestamp.as_ref()),
    })
}

pub(super) fn vrouter_daemonset(obj: &DynamicObject) -> Result<VrouterDaemonSet, String> {
    let d: DaemonSet = typed(obj)?;
    let status = d.status.unwrap_or_default();
    Ok(VrouterDaemonSet {
        name: name_of(&d.metadata)?,
        namespace: s_opt(d.metadata.namespace.as_deref()),
        update_strategy: d
            .spec
            .as_ref()
            .and_then(|sp| sp.update_strategy.as_ref())
            .and_then(|u| u.type_.as_deref())
            .map(s),
        desired: i64::from(status.desired_number_scheduled),
        current: i64::from(status.current_number_scheduled),
        updated: status.updated_number_scheduled.map(i64::from).unwrap_or(0),
        ready: i64::from(status.number_ready),
        observed_generation: status.observed_generation,
        generation: d.metadata.generation,
        // Not a number: the template generation is unknown (as the
        // DaemonSet controller's own `GetTemplateGeneration` treats it).
        template_generation: annotation(&d.metadata, TEMPLATE_GENERATION_ANNOTATION)
            .and_then(|v| v.trim().parse().ok()),
    })
}
