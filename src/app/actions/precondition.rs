//! At confirm, before anything is sent: is what the dialog showed still
//! true of the snapshot? A plan is made when its dialog opens; the operator
//! may read it for minutes while someone else changes the node (another
//! operator's `kubectl annotate`, the node deleted and created again under
//! the same name). A plan whose node no longer reads as shown is not sent;
//! the dialog says what changed. The write itself tests the same values on
//! the server (`crate::cluster::writes::node`), which also covers a change
//! the watch has not delivered yet.

use crate::app::model::Model;
use crate::domain::action::ActionId;
use crate::domain::action::plan::{ActionPlan, Change};
use crate::domain::objects::Snapshot;

/// Why no write may be sent now, whatever the action and its objects: the
/// MOSK context is another cluster's (`Derived::mosk_context`), so a node
/// named on screen may be a node of a cluster nobody meant to touch. Every
/// action's precondition: its dialog warns, and a confirmation is refused
/// through the executor, which sends nothing and audits why.
pub fn refusal(model: &Model) -> Option<String> {
    let s = &model.session;
    model.derived.mosk_context.refusal(
        &s.mosk_context,
        &s.mgmt_context,
        &format!("{}/{}", s.namespace, s.cluster_name),
    )
}

fn shown(v: Option<&str>) -> String {
    v.map_or_else(|| "unset".to_string(), |v| format!("\"{v}\""))
}

/// What no longer reads as the dialog showed, one text per change (empty:
/// the plan may be sent). Only node annotation writes are checked here; the
/// commence patch tests its step on the server, a pod delete its uid.
///
/// `offer` answers whether acknowledge is offered for a node now and for
/// which servers (the acknowledge rule's own answer, whatever it reads): an
/// acknowledgement whose node no longer waits for the operator, or waits
/// with other servers, is not sent (a `skip` set after the migration ended
/// would stay on the node for the next maintenance).
pub fn changed_since_shown(
    snap: &Snapshot,
    plan: &ActionPlan,
    offer: impl Fn(&str) -> Result<Vec<String>, String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for step in &plan.steps {
        if plan.action == ActionId::AcknowledgeMigration {
            match offer(&step.node) {
                Err(why) => out.push(format!("acknowledge is no longer offered: {why}")),
                Ok(mut servers) => {
                    let mut shown = step.servers.clone();
                    servers.sort();
                    shown.sort();
                    if servers != shown {
                        out.push(format!(
                            "node {}: the servers still on it are now [{}] (the dialog showed [{}])",
                            step.node,
                            servers.join(", "),
                            shown.join(", ")
                        ));
                    }
                }
            }
        }
        let Change::Annotations { annotations } = &step.change else {
            continue;
        };
        let name = &step.target.name;
        let Some(node) = snap.nodes().find(|n| &n.name == name) else {
            out.push(format!("node {name} is gone from the cluster"));
            continue;
        };
        if !step.target.uid.is_empty() && node.uid != step.target.uid {
            out.push(format!(
                "node {name} was deleted and created again (uid {} is now {})",
                step.target.uid, node.uid
            ));
            continue;
        }
        for c in annotations {
            // A key the snapshot does not keep: the server's test decides.
            let Some(now) = crate::domain::migration::setting(node, &c.key) else {
                continue;
            };
            if now != c.old {
                let short = c.key.rsplit('/').next().unwrap_or(&c.key);
                out.push(format!(
                    "node {name}: {short} is {} now (the dialog showed {})",
                    shown(now.as_deref()),
                    shown(c.old.as_deref())
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::app::actions::plan::{PlanContext, plan_set_mode};
    use crate::domain::fixtures::{self, names::*};
    use crate::domain::objects::{MigrationMode, Object};

    fn plan(snap: &Snapshot) -> ActionPlan {
        let ctx = PlanContext {
            mosk_context: "c".into(),
            dry_run: false,
        };
        plan_set_mode(snap, &ctx, &[NODE_W3.into()], &MigrationMode::Skip, Some(3)).unwrap()
    }

    fn no_offer(_: &str) -> Result<Vec<String>, String> {
        Err("not asked for set-migration-mode".into())
    }

    fn with_w3(snap: &mut Snapshot, f: impl FnOnce(&mut crate::domain::objects::Node)) {
        let mut n = snap.nodes().find(|n| n.name == NODE_W3).unwrap().clone();
        f(&mut n);
        snap.apply(Object::Node(Arc::new(n)));
    }

    #[test]
    fn a_plan_is_sent_only_while_its_node_reads_as_the_dialog_showed() {
        let mut snap = fixtures::mid_update();
        let p = plan(&snap);
        assert!(changed_since_shown(&snap, &p, no_offer).is_empty());
        with_w3(&mut snap, |n| {
            n.migration_mode = Some(MigrationMode::Live);
            n.migration_attempts = Some("7".into());
        });
        assert_eq!(
            changed_since_shown(&snap, &p, no_offer),
            [
                format!(
                    "node {NODE_W3}: instance_migration_mode is \"live\" now (the dialog showed \"manual\")"
                ),
                format!(
                    "node {NODE_W3}: instance_migration_attempts is \"7\" now (the dialog showed unset)"
                ),
            ]
        );
        with_w3(&mut snap, |n| n.uid = "uid-new".into());
        assert_eq!(
            changed_since_shown(&snap, &p, no_offer),
            [format!(
                "node {NODE_W3} was deleted and created again (uid uid-{NODE_W3} is now uid-new)"
            )]
        );
    }

    #[test]
    fn an_acknowledgement_is_sent_only_while_the_lock_still_waits_with_the_servers_shown() {
        use crate::app::actions::plan::{acknowledge_offer, plan_acknowledge};
        use crate::domain::history::History;
        use crate::domain::objects::{Controller, LockState};
        let mut snap = fixtures::mid_update();
        let ctx = PlanContext {
            mosk_context: "c".into(),
            dry_run: false,
        };
        let p = plan_acknowledge(&snap, &History::new(), &ctx, &[NODE_W2.into()]).unwrap();
        let offer = |s: &Snapshot| {
            let s = s.clone();
            move |n: &str| acknowledge_offer(&s, &History::new(), n)
        };
        assert!(changed_since_shown(&snap, &p, offer(&snap)).is_empty());
        // One server left meanwhile: the list the dialog showed is wrong.
        let one_left =
            fixtures::worker2_lock_message().replace(&format!(", '{SERVER_B}': 'ACTIVE'"), "");
        let mut lock = fixtures::node_lock(
            Controller::Openstack,
            NODE_W2,
            LockState::Active,
            Some(&one_left),
        );
        snap.apply(Object::NodeWorkloadLock(Arc::new(lock.clone())));
        assert_eq!(
            changed_since_shown(&snap, &p, offer(&snap)),
            [format!(
                "node {NODE_W2}: the servers still on it are now [{SERVER_A}] (the dialog showed [{SERVER_A}, {SERVER_B}])"
            )]
        );
        // The migration ended: the lock no longer waits for the operator.
        lock.state = LockState::Inactive;
        snap.apply(Object::NodeWorkloadLock(Arc::new(lock)));
        let changed = changed_since_shown(&snap, &p, offer(&snap));
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert!(
            changed[0].starts_with("acknowledge is no longer offered: ")
                && changed[0].contains("already inactive"),
            "{changed:?}"
        );
    }
}
