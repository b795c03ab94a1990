//! The MOSK cluster's built-in kinds (Node, the `tf-vrouter` pods and
//! DaemonSets), read through their typed k8s-openapi structs.

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

pub(super) fn node(obj: &DynamicObject) -> Result<Node, String> {
    let n: KubeNode = typed(obj)?;
    let ready = n
        .status
        .as_ref()
        .and_then(|st| st.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
    Ok(Node {
        name: name_of(&n.metadata)?,
        uid: s_opt(n.metadata.uid.as_deref()),
        labels: kept_labels(n.metadata.labels.as_ref(), &Node::KEPT_LABELS),
        migration_mode: annotation(&n.metadata, MigrationMode::ANNOTATION)
            .map(|v| MigrationMode::parse(&v)),
        migration_attempts: annotation(&n.metadata, MigrationMode::ATTEMPTS_ANNOTATION),
        ready,
        unschedulable: n
            .spec
            .as_ref()
            .and_then(|sp| sp.unschedulable)
            .unwrap_or(false),
    })
}

pub(super) fn vrouter_pod(obj: &DynamicObject) -> Result<VrouterPod, String> {
    let p: Pod = typed(obj)?;
    let meta = &p.metadata;
    let label = |k: &str| meta.labels.as_ref().and_then(|l| l.get(k)).map(|v| s(v));
    let daemonset = meta
        .owner_references
        .as_ref()
        .and_then(|os| os.iter().find(|o| o.kind == "DaemonSet"))
        .map(|o| s(&o.name));
    let status = p.status.as_ref();
    let ready = status
        .and_then(|st| st.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
    Ok(VrouterPod {
        name: name_of(meta)?,
        namespace: s_opt(meta.namespace.as_deref()),
        uid: s_opt(meta.uid.as_deref()),
        node_name: p
            .spec
            .as_ref()
            .and_then(|sp| sp.node_name.as_deref())
            .map(s),
        daemonset,
        revision: label(REVISION_HASH_LABEL),
        // A label that is not a number cannot be compared with the DaemonSet generation.
        template_generation: label(TEMPLATE_GENERATION_LABEL).and_then(|v| v.trim().parse().ok()),
        phase: s_opt(status.and_then(|st| st.phase.as_deref())),
        ready,
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
