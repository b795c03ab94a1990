//! At confirm, before anything is sent: is what the dialog showed still
//! true of the snapshot? A plan is made when its dialog opens; the operator
//! may read it for minutes while someone else changes the node (another
//! operator's `kubectl annotate`, the node deleted and created again under
//! the same name). A plan whose node no longer reads as shown is not sent;
//! the dialog says what changed. The write itself tests the same values on
//! the server (`crate::cluster::writes::node`), which also covers a change
//! the watch has not delivered yet.

use crate::domain::action::plan::{ActionPlan, Change};
use crate::domain::objects::{MigrationMode, Snapshot};

fn shown(v: Option<&str>) -> String {
    v.map_or_else(|| "unset".to_string(), |v| format!("\"{v}\""))
}

/// What no longer reads as the dialog showed, one text per change (empty:
/// the plan may be sent). Only node annotation writes are checked here; the
/// commence patch tests its step on the server, a pod delete its uid.
pub fn changed_since_shown(snap: &Snapshot, plan: &ActionPlan) -> Vec<String> {
    let mut out = Vec::new();
    for step in &plan.steps {
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
            let now = match c.key.as_str() {
                MigrationMode::ANNOTATION => {
                    node.migration_mode.as_ref().map(|m| m.as_str().to_string())
                }
                MigrationMode::ATTEMPTS_ANNOTATION => node.migration_attempts.clone(),
                // A key the snapshot does not keep: the server's test decides.
                _ => continue,
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
    use crate::domain::objects::Object;

    fn plan(snap: &Snapshot) -> ActionPlan {
        let ctx = PlanContext {
            mosk_context: "c".into(),
            dry_run: false,
        };
        plan_set_mode(snap, &ctx, &[NODE_W3.into()], &MigrationMode::Skip, Some(3)).unwrap()
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
        assert!(changed_since_shown(&snap, &p).is_empty());
        with_w3(&mut snap, |n| {
            n.migration_mode = Some(MigrationMode::Live);
            n.migration_attempts = Some("7".into());
        });
        assert_eq!(
            changed_since_shown(&snap, &p),
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
            changed_since_shown(&snap, &p),
            [format!(
                "node {NODE_W3} was deleted and created again (uid uid-{NODE_W3} is now uid-new)"
            )]
        );
    }
}
