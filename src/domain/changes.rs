//! Field-level changes between two versions of an object, for the Events view.
//!
//! Field names are the paths an operator knows from `kubectl get -o yaml`
//! (`status.state`, `spec.scope`, `metadata.annotations.inner_state`, …).

use jiff::Timestamp;

use super::objects::{Object, ObjectKey};

/// The `field` of a [`Change`] that says an object appeared or disappeared.
pub const OBJECT_FIELD: &str = "object";
/// `new` of an object that appeared.
pub const ADDED: &str = "added";
/// `new` of an object that disappeared.
pub const REMOVED: &str = "removed";

/// One change the console saw: a field of an object went from `old` to `new`
/// (empty string for "unset"), or the object was added or removed (`field` is
/// [`OBJECT_FIELD`], `new` is [`ADDED`] or [`REMOVED`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub key: ObjectKey,
    pub field: String,
    pub old: String,
    pub new: String,
    pub at: Timestamp,
}

impl Change {
    pub fn is_added(&self) -> bool {
        self.field == OBJECT_FIELD && self.new == ADDED
    }
    pub fn is_removed(&self) -> bool {
        self.field == OBJECT_FIELD && self.new == REMOVED
    }
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(|v| v.to_string()).unwrap_or_default()
}

/// The fields of an object the Events view reports, as (path, value).
pub fn fields(obj: &Object) -> Vec<(&'static str, String)> {
    match obj {
        Object::LcmCluster(c) => vec![
            ("spec.release", opt(&c.target_release)),
            ("status.release", opt(&c.current_release)),
            ("status.requestedNodes", opt(&c.requested_nodes)),
            ("status.readyNodes", opt(&c.ready_nodes)),
        ],
        Object::Machine(m) => vec![
            ("spec.type", m.machine_type.as_str().to_string()),
            ("status.state", m.state.to_string()),
            ("status.addresses.InternalIP", opt(&m.internal_ip)),
            ("status.addresses.Hostname", opt(&m.hostname)),
            ("status.agentVersion", opt(&m.agent_version)),
            ("status.release", opt(&m.release)),
            ("metadata.annotations.lcm.mirantis.com/index", opt(&m.index)),
            ("status.lcmOperationStuck", m.operation_stuck.to_string()),
            ("status.kubernetesCordonDrainError", opt(&m.drain_error)),
        ],
        Object::ClusterState(s) => vec![
            ("spec.type", s.state_type.to_string()),
            ("spec.arg", opt(&s.arg)),
            ("spec.value", opt(&s.value)),
            ("status.value", opt(&s.actual_value)),
            ("status.attempt", opt(&s.attempt)),
            ("status.message", opt(&s.message)),
        ],
        Object::Node(n) => vec![
            (
                "metadata.annotations.instance_migration_mode",
                n.migration_mode
                    .as_ref()
                    .map(|m| m.as_str().to_string())
                    .unwrap_or_default(),
            ),
            (
                "metadata.annotations.instance_migration_attempts",
                opt(&n.migration_attempts),
            ),
            ("status.conditions.Ready", n.ready.to_string()),
            ("spec.unschedulable", n.unschedulable.to_string()),
        ],
        Object::ClusterMaintenanceRequest(r) => vec![
            ("spec.scope", opt(&r.scope)),
            ("spec.release", opt(&r.release)),
            ("metadata.deletionTimestamp", deleting(r.deleting)),
        ],
        Object::NodeMaintenanceRequest(r) => vec![
            ("spec.nodeName", r.node_name.clone()),
            ("spec.scope", opt(&r.scope)),
            ("spec.release", opt(&r.release)),
            ("metadata.deletionTimestamp", deleting(r.deleting)),
        ],
        Object::ClusterWorkloadLock(l) | Object::NodeWorkloadLock(l) => vec![
            ("spec.controllerName", l.controller.to_string()),
            ("spec.nodeName", opt(&l.node_name)),
            ("status.state", l.state.as_str().to_string()),
            ("status.errorMessage", opt(&l.error_message)),
            ("status.release", opt(&l.release)),
            ("metadata.annotations.inner_state", opt(&l.inner_state)),
            (
                "status.inactivationProgress.percentage",
                opt(&l.progress_percentage),
            ),
            (
                "status.inactivationProgress.description",
                opt(&l.progress_description),
            ),
        ],
        Object::VrouterPod(p) => vec![
            ("spec.nodeName", opt(&p.node_name)),
            (
                "metadata.labels.pod-template-generation",
                opt(&p.template_generation),
            ),
            ("metadata.labels.controller-revision-hash", opt(&p.revision)),
            ("status.phase", p.phase.clone()),
            ("status.conditions.Ready", p.ready.to_string()),
            ("metadata.deletionTimestamp", deleting(p.deleting)),
        ],
        Object::VrouterDaemonSet(d) => vec![
            ("metadata.generation", opt(&d.generation)),
            (
                "metadata.annotations.deprecated.daemonset.template.generation",
                opt(&d.template_generation),
            ),
            ("status.observedGeneration", opt(&d.observed_generation)),
            ("status.desiredNumberScheduled", d.desired.to_string()),
            ("status.currentNumberScheduled", d.current.to_string()),
            ("status.updatedNumberScheduled", d.updated.to_string()),
            ("status.numberReady", d.ready.to_string()),
        ],
        Object::UpdatePlan(p) => vec![
            ("spec.target", opt(&p.target)),
            ("spec.steps.commence", plan_commenced(p)),
            ("status.status", status_str(&p.status)),
            ("status.steps.status", plan_step_states(p)),
        ],
        Object::UpdateAutoPause(a) => vec![
            ("spec.alerts", a.alerts.join(", ")),
            ("status.firingAlerts", a.firing.join(", ")),
        ],
        Object::UpdateGroup(g) => vec![
            ("spec.index", opt(&g.index)),
            ("spec.concurrentUpdates", opt(&g.concurrent_updates)),
        ],
        Object::ProviderMachine(m) => vec![
            (
                "metadata.labels.kaas.mirantis.com/update-group",
                opt(&m.update_group),
            ),
            ("spec.providerSpec.value.disable", m.disabled.to_string()),
        ],
        Object::NodeDeletionRequest(n) | Object::NodeDisableNotification(n) => {
            vec![("spec.nodeName", n.node_name.clone())]
        }
        Object::OpenstackDeploymentStatus(o) => vec![
            ("status.osdpl.state", o.state.to_string()),
            (
                "status.osdpl.controller_version",
                opt(&o.controller_version),
            ),
            ("status.osdpl.release", opt(&o.release)),
            ("status.osdpl.lcm_progress", opt(&o.lcm_progress)),
            ("status.osdpl.health", opt(&o.health)),
            ("status.health", not_ready_components(o)),
        ],
        Object::CephDeploymentHealth(h) => vec![
            (
                "status.healthReport.rookCephObjects.cephCluster.ceph.health",
                h.health.to_string(),
            ),
            (
                "status.healthReport.rookCephObjects.cephCluster.ceph.details",
                h.checks
                    .iter()
                    .map(|c| c.code.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            ("status.state", opt(&h.state)),
        ],
        Object::Malformed(m) => vec![("error", m.error.clone())],
    }
}

/// The components not Ready, as `app/component: status`, for the Events view.
fn not_ready_components(o: &crate::domain::objects::OpenstackDeploymentStatus) -> String {
    let mut names: Vec<String> = o
        .not_ready
        .iter()
        .map(|c| format!("{}/{}: {}", c.application, c.component, c.status))
        .collect();
    let more = o.not_ready_count.saturating_sub(o.not_ready.len());
    if more > 0 {
        names.push(format!("{more} more"));
    }
    names.join(", ")
}

fn status_str(s: &Option<crate::domain::objects::StepStatus>) -> String {
    s.as_ref()
        .map(|s| s.as_str().to_string())
        .unwrap_or_default()
}

/// The labels of the commenced steps: `openstack, ceph`.
fn plan_commenced(p: &crate::domain::objects::UpdatePlan) -> String {
    let on: Vec<&str> = p
        .steps
        .iter()
        .filter(|s| s.commence)
        .map(|s| s.label())
        .collect();
    on.join(", ")
}

/// Each step's status: `openstack=Completed ceph=InProgress`.
fn plan_step_states(p: &crate::domain::objects::UpdatePlan) -> String {
    let states: Vec<String> = p
        .steps
        .iter()
        .filter_map(|s| Some(format!("{}={}", s.label(), s.status.as_ref()?.as_str())))
        .collect();
    states.join(" ")
}

fn deleting(d: bool) -> String {
    if d { "set".into() } else { String::new() }
}

/// The changes from `before` to `after` (either may be absent).
pub fn diff(before: Option<&Object>, after: Option<&Object>, at: Timestamp) -> Vec<Change> {
    let whole = |key: ObjectKey, new: &str| Change {
        key,
        field: OBJECT_FIELD.into(),
        old: String::new(),
        new: new.into(),
        at,
    };
    match (before, after) {
        (None, None) => Vec::new(),
        (None, Some(a)) => vec![whole(a.key(), ADDED)],
        (Some(b), None) => vec![whole(b.key(), REMOVED)],
        (Some(b), Some(a)) if b.key() != a.key() => {
            vec![whole(b.key(), REMOVED), whole(a.key(), ADDED)]
        }
        (Some(b), Some(a)) => {
            let key = a.key();
            let old = fields(b);
            let new = fields(a);
            if std::mem::discriminant(b) != std::mem::discriminant(a) {
                // Became (or stopped being) malformed: report every field.
                let mut out = Vec::new();
                for (f, v) in &old {
                    out.push(Change {
                        key: key.clone(),
                        field: (*f).into(),
                        old: v.clone(),
                        new: String::new(),
                        at,
                    });
                }
                for (f, v) in &new {
                    out.push(Change {
                        key: key.clone(),
                        field: (*f).into(),
                        old: String::new(),
                        new: v.clone(),
                        at,
                    });
                }
                return out;
            }
            old.into_iter()
                .zip(new)
                .filter(|((_, o), (_, n))| o != n)
                .map(|((f, o), (_, n))| Change {
                    key: key.clone(),
                    field: f.into(),
                    old: o,
                    new: n,
                    at,
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::fixtures::{self, names::*};
    use crate::domain::objects::*;
    use std::sync::Arc;

    #[test]
    fn state_change_is_one_field() {
        let t = fixtures::at("10:00");
        let a = Object::Machine(Arc::new(fixtures::machine(
            WORKER_4,
            MachineType::Worker,
            MachineState::Prepare,
            Some(NODE_W4),
            Some(6),
        )));
        let b = Object::Machine(Arc::new(fixtures::machine(
            WORKER_4,
            MachineType::Worker,
            MachineState::Deploy,
            Some(NODE_W4),
            Some(6),
        )));
        let c = diff(Some(&a), Some(&b), t);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].field, "status.state");
        assert_eq!(
            (c[0].old.as_str(), c[0].new.as_str()),
            ("Prepare", "Deploy")
        );
        assert_eq!(c[0].key.name, WORKER_4);
        assert!(diff(Some(&a), Some(&a), t).is_empty());
    }

    #[test]
    fn add_remove_and_lock_message() {
        let t = fixtures::at("10:00");
        let l = Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
            Controller::Openstack,
            NODE_W2,
            LockState::Active,
            None,
        )));
        assert!(diff(None, Some(&l), t)[0].is_added());
        assert!(diff(Some(&l), None, t)[0].is_removed());
        let m = Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
            Controller::Openstack,
            NODE_W2,
            LockState::Inactive,
            Some("x"),
        )));
        let c = diff(Some(&l), Some(&m), t);
        let f: Vec<&str> = c.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(f, vec!["status.state", "status.errorMessage"]);
        assert_eq!(c[1].old, "");
        assert_eq!(c[1].new, "x");
    }

    #[test]
    fn becoming_malformed_reports_the_error() {
        let t = fixtures::at("10:00");
        let n = Object::Node(Arc::new(fixtures::node(NODE_W1, true)));
        let bad = Object::Malformed(Arc::new(MalformedObject {
            kind: Kind::Node,
            namespace: String::new(),
            name: NODE_W1.into(),
            error: "spec: invalid type".into(),
        }));
        let c = diff(Some(&n), Some(&bad), t);
        assert!(
            c.iter()
                .any(|c| c.field == "error" && c.new == "spec: invalid type")
        );
    }
}
