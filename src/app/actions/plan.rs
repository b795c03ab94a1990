//! Planning: from the model's snapshot and the operator's choice to an
//! [`ActionPlan`] that lists every object the action will touch (cluster
//! context, kind, name, uid) and the exact change, old -> new. The plan is
//! what the confirmation dialog shows, what the executor sends, and what the
//! audit log records; nothing else decides what is written.

pub use crate::domain::action::plan::{
    AcknowledgeGroup, ActionPlan, AnnotationChange, Change, ObjectRef, PlannedStep,
};
use crate::domain::action::{ActionId, VROUTER_NAMESPACE};
use crate::domain::history::History;
use crate::domain::lockmsg::{self, servers};
use crate::domain::migration;
use crate::domain::objects::{ClusterId, Controller, Kind, MigrationMode, Snapshot};
use crate::domain::vrouter;

/// Where plans go: the MOSK cluster's context and the session's mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanContext {
    pub mosk_context: String,
    pub dry_run: bool,
}

/// Why an action cannot be planned, in words for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError(pub String);

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn new_plan(ctx: &PlanContext, action: ActionId) -> ActionPlan {
    ActionPlan {
        id: 0,
        action,
        cluster: action.spec().cluster,
        context: ctx.mosk_context.clone(),
        dry_run: ctx.dry_run,
        steps: Vec::new(),
        warnings: Vec::new(),
        notes: Vec::new(),
        access: None,
        refused: None,
    }
}

fn node_ref(
    snap: &Snapshot,
    name: &str,
) -> Result<(ObjectRef, Option<String>, Option<String>), PlanError> {
    let node = snap.nodes().find(|n| n.name == name).ok_or_else(|| {
        PlanError(format!(
            "node {name} is not among the Nodes the console sees; refresh and retry"
        ))
    })?;
    Ok((
        ObjectRef {
            cluster: ClusterId::Mosk,
            kind: Kind::Node,
            namespace: String::new(),
            name: node.name.clone(),
            uid: node.uid.clone(),
        },
        migration::setting(node, MigrationMode::ANNOTATION).flatten(),
        migration::setting(node, MigrationMode::ATTEMPTS_ANNOTATION).flatten(),
    ))
}

/// A whole number from 1 to 100, or a refusal that says so.
pub fn parse_attempts(text: &str) -> Result<Option<u32>, PlanError> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    match t.parse::<u32>() {
        Ok(n) if (1..=100).contains(&n) => Ok(Some(n)),
        _ => Err(PlanError(format!(
            "attempts must be a whole number from 1 to 100 (got {t:?}); leave it empty to keep the current value"
        ))),
    }
}

/// Set `instance_migration_mode` (and optionally `instance_migration_attempts`) on `nodes`.
pub fn plan_set_mode(
    snap: &Snapshot,
    ctx: &PlanContext,
    nodes: &[String],
    mode: &MigrationMode,
    attempts: Option<u32>,
) -> Result<ActionPlan, PlanError> {
    if nodes.is_empty() {
        return Err(PlanError(
            "no node selected: select a machine row (or several with space)".into(),
        ));
    }
    if matches!(mode, MigrationMode::Other(_)) {
        return Err(PlanError(format!(
            "{:?} is not a migration mode (live, manual or skip)",
            mode.as_str()
        )));
    }
    let mut plan = new_plan(ctx, ActionId::SetMigrationMode);
    for name in nodes {
        let (target, old_mode, old_attempts) = node_ref(snap, name)?;
        let mut annotations = Vec::new();
        let new_mode = mode.as_str().to_string();
        if old_mode.as_deref() != Some(new_mode.as_str()) {
            annotations.push(AnnotationChange {
                key: MigrationMode::ANNOTATION.into(),
                old: old_mode,
                new: Some(new_mode),
            });
        }
        if let Some(n) = attempts {
            let new = n.to_string();
            if old_attempts.as_deref() != Some(new.as_str()) {
                annotations.push(AnnotationChange {
                    key: MigrationMode::ATTEMPTS_ANNOTATION.into(),
                    old: old_attempts,
                    new: Some(new),
                });
            }
        }
        if annotations.is_empty() {
            plan.notes
                .push(format!("{name}: already set, nothing to change"));
            continue;
        }
        if mode == &MigrationMode::Skip {
            plan.warnings.push(format!(
                "{name}: with skip, instances still on the node go down when it reboots"
            ));
        }
        plan.steps.push(PlannedStep {
            target,
            change: Change::Annotations { annotations },
            node: name.clone(),
            servers: Vec::new(),
            acknowledge: Vec::new(),
        });
    }
    if plan.steps.is_empty() {
        return Err(PlanError(format!(
            "nothing to change: {}",
            plan.notes.join("; ")
        )));
    }
    Ok(plan)
}

/// Whether "acknowledge manual migration" is offered for `node`: the
/// domain's rule ([`migration::acknowledge_offer`]: servers listed, none
/// migrating now, and `skip` frees some). Returns the servers, or why not.
pub fn acknowledge_offer(
    snap: &Snapshot,
    history: &History,
    node: &str,
) -> Result<Vec<String>, String> {
    migration::acknowledge_offer(snap, history, node)
}

/// The lists of servers the node's OpenStack lock names, each with what
/// `skip` does to it given the node's mode now (`old_mode`).
fn acknowledge_groups(
    snap: &Snapshot,
    node: &str,
    old_mode: Option<&str>,
) -> Vec<AcknowledgeGroup> {
    let Some(kind) = snap
        .node_locks()
        .find(|l| l.controller == Controller::Openstack && l.node_name.as_deref() == Some(node))
        .and_then(|l| l.error_message.as_ref())
        .map(|m| &m.parsed().kind)
    else {
        return Vec::new();
    };
    let mode = old_mode.map(MigrationMode::parse);
    lockmsg::server_groups(kind)
        .into_iter()
        .map(|group| AcknowledgeGroup {
            warning: servers::skip_effect(group.kind, mode.as_ref()),
            group,
        })
        .collect()
}

/// Acknowledge manual migration on `nodes`: the mode becomes `skip`.
pub fn plan_acknowledge(
    snap: &Snapshot,
    history: &History,
    ctx: &PlanContext,
    nodes: &[String],
) -> Result<ActionPlan, PlanError> {
    if nodes.is_empty() {
        return Err(PlanError(
            "no node selected: select a machine row (or several with space)".into(),
        ));
    }
    let mut plan = new_plan(ctx, ActionId::AcknowledgeMigration);
    for name in nodes {
        let servers = match acknowledge_offer(snap, history, name) {
            Ok(s) => s,
            Err(why) => {
                plan.notes.push(why);
                continue;
            }
        };
        let (target, old_mode, _) = node_ref(snap, name)?;
        if old_mode.as_deref() == Some("skip") {
            plan.notes.push(format!(
                "{name}: already skip; the controller acts on it at its next retry"
            ));
            continue;
        }
        // Each list carries its own warning: what skip does depends on the
        // message's format (MOSK 25.1 tags) and on the node's mode now.
        let acknowledge = acknowledge_groups(snap, name, old_mode.as_deref());
        plan.steps.push(PlannedStep {
            target,
            change: Change::Annotations {
                annotations: vec![AnnotationChange {
                    key: MigrationMode::ANNOTATION.into(),
                    old: old_mode,
                    new: Some("skip".into()),
                }],
            },
            node: name.clone(),
            servers,
            acknowledge,
        });
    }
    if plan.steps.is_empty() {
        return Err(PlanError(format!(
            "acknowledge is not offered: {}",
            plan.notes.join("; ")
        )));
    }
    Ok(plan)
}

/// Restart the outdated vRouter pods on `nodes`, one at a time.
pub fn plan_restart(
    snap: &Snapshot,
    ctx: &PlanContext,
    nodes: &[String],
) -> Result<ActionPlan, PlanError> {
    if nodes.is_empty() {
        return Err(PlanError(
            "no node selected: select a machine or vRouter row (or several with space)".into(),
        ));
    }
    let mut plan = new_plan(ctx, ActionId::RestartVrouter);
    let order = vrouter::restart_order(snap);
    for name in nodes {
        let on_node: Vec<_> = vrouter::pods_on_node(snap, name);
        if on_node.is_empty() {
            plan.notes
                .push(format!("{name}: no vRouter pod on this node"));
            continue;
        }
        if on_node.iter().any(|p| p.deleting)
            && !order.iter().any(|p| p.node.as_deref() == Some(name))
        {
            plan.notes.push(format!(
                "{name}: the vRouter pod is already terminating; its replacement is on the way"
            ));
            continue;
        }
        if !order.iter().any(|p| p.node.as_deref() == Some(name)) {
            plan.notes.push(format!(
                "{name}: the vRouter pod already runs the current revision"
            ));
        }
    }
    let pods: Vec<_> = order
        .into_iter()
        .filter(|p| p.node.as_ref().is_some_and(|n| nodes.contains(n)))
        .collect();
    push_restarts(snap, &mut plan, pods);
    if plan.steps.is_empty() {
        return Err(PlanError(format!(
            "no outdated vRouter pod to restart: {}",
            plan.notes.join("; ")
        )));
    }
    refuse_while_another_down(snap, &plan)?;
    Ok(plan)
}

/// Restart every outdated vRouter pod, one at a time.
pub fn plan_restart_all(snap: &Snapshot, ctx: &PlanContext) -> Result<ActionPlan, PlanError> {
    let mut plan = new_plan(ctx, ActionId::RestartAllVrouters);
    push_restarts(snap, &mut plan, vrouter::restart_order(snap));
    if plan.steps.is_empty() {
        return Err(PlanError(
            "no outdated vRouter pod: every pod runs its DaemonSet's current revision".into(),
        ));
    }
    refuse_while_another_down(snap, &plan)?;
    Ok(plan)
}

/// Two vRouters are never down at once: a restart is refused while any
/// vRouter pod other than the first one it deletes is Terminating or not
/// Ready (the previous restart, the automatic restart since MOSK 22.4, or a
/// broken node), since the workloads of both nodes would be cut off
/// together. The executor asks the server the same before each delete
/// (`cluster::writes::vrouter`), so later pods of a run are checked when
/// their turn comes.
fn refuse_while_another_down(snap: &Snapshot, plan: &ActionPlan) -> Result<(), PlanError> {
    let Some(first) = plan.steps.first() else {
        return Ok(());
    };
    let mut down: Vec<_> = snap
        .vrouter_pods()
        .filter(|p| p.uid != first.target.uid)
        .map(|p| vrouter::pod_status(snap, p))
        .filter(vrouter::PodStatus::is_down)
        .collect();
    down.sort_by(|a, b| (&a.node, &a.name).cmp(&(&b.node, &b.name)));
    if down.is_empty() {
        return Ok(());
    }
    let named: Vec<String> = down
        .iter()
        .map(|p| {
            format!(
                "{} on {} is {}",
                p.name,
                p.node.as_deref().unwrap_or("no node"),
                if p.deleting {
                    "Terminating"
                } else {
                    "not Ready"
                }
            )
        })
        .collect();
    Err(PlanError(format!(
        "refused: {}; restarting {} now would leave two vRouters down at once: wait until it is Ready, then retry",
        named.join(", "),
        first.target.name
    )))
}

/// The restart dialog's advice (the update guide's, see [`push_restarts`]).
pub const MIGRATE_FIRST: &str = "migrate the workloads first where a network cut is not acceptable";

fn push_restarts(snap: &Snapshot, plan: &mut ActionPlan, pods: Vec<vrouter::PodStatus>) {
    for p in pods {
        let node = p.node.clone().unwrap_or_default();
        let daemonset = p.daemonset.clone().unwrap_or_default();
        let current_generation = snap
            .vrouter_daemonsets()
            .find(|d| d.name == daemonset && d.namespace == p.namespace)
            .and_then(|d| d.template_generation);
        if let Some(r) = snap
            .node_requests()
            .find(|r| r.node_name == node || r.name == node)
        {
            plan.warnings.push(format!(
                "{node} is still under a NodeMaintenanceRequest{}: LCM may be working on it; restarting its vRouter now cuts its network twice",
                r.scope
                    .as_deref()
                    .map(|s| format!(" (scope {s})"))
                    .unwrap_or_default()
            ));
        }
        plan.steps.push(PlannedStep {
            target: ObjectRef {
                cluster: ClusterId::Mosk,
                kind: Kind::VrouterPod,
                namespace: if p.namespace.is_empty() {
                    VROUTER_NAMESPACE.to_string()
                } else {
                    p.namespace.clone()
                },
                name: p.name.clone(),
                uid: p.uid.clone(),
            },
            change: Change::RestartPod {
                node: node.clone(),
                daemonset,
                running_generation: p.template_generation,
                current_generation,
            },
            node,
            servers: Vec::new(),
            acknowledge: Vec::new(),
        });
    }
    // The update guide's words for the manual restart (seeds/000, "Update a
    // MOSK cluster to 22.2 or earlier", restart the vRouter pods): the
    // restart "causes networking downtime for workloads on the affected
    // node. If it is not applicable for some workloads, migrate them before
    // restarting the vRouter pods."
    if plan.steps.len() > 1 {
        plan.warnings.push(format!(
            "{} pods restart one at a time; each restart cuts the network of the workloads on its node: {MIGRATE_FIRST}",
            plan.steps.len()
        ));
    } else if plan.steps.len() == 1 {
        plan.warnings.push(format!(
            "the restart cuts the network of the workloads on the node until the new pod is Ready: {MIGRATE_FIRST}"
        ));
    }
}

/// The step of a commence plan, if `plan` is one.
pub fn commence_step(plan: &ActionPlan) -> Option<&crate::domain::action::plan::CommenceStep> {
    plan.steps.iter().find_map(|s| match &s.change {
        Change::Commence(c) => Some(c),
        _ => None,
    })
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
