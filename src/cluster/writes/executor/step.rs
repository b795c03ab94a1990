//! One step of a plan on the server: the request its change makes, and
//! the words its result is reported in.

use super::Shared;
use crate::cluster::writes::WriteError;
use crate::domain::action::plan::{ActionPlan, Change, PlannedStep};
use crate::domain::action::run::StepStatus;

pub(super) async fn execute_step(
    shared: &Shared,
    plan: &ActionPlan,
    index: usize,
    step: &PlannedStep,
) -> Result<String, WriteError> {
    let w = &shared.writer;
    let dry = plan.dry_run;
    match &step.change {
        Change::Annotations { annotations } => {
            let got = w
                .patch_node_annotations(&step.target.name, &step.target.uid, annotations)
                .await?;
            let now: Vec<String> = annotations
                .iter()
                .zip(got)
                .map(|(c, v)| {
                    format!(
                        "{} is {}",
                        c.key.rsplit('/').next().unwrap_or(&c.key),
                        v.as_deref().unwrap_or("(unset)")
                    )
                })
                .collect();
            Ok(if dry {
                format!("dry run accepted ({})", now.join(", "))
            } else {
                now.join(", ")
            })
        }
        Change::Commence(c) => {
            let t = &step.target;
            w.commence_step(&t.namespace, &t.name, c).await?;
            Ok(if dry {
                format!(
                    "dry run: the server accepted commencing {}; nothing changed",
                    c.label()
                )
            } else {
                format!("{} commenced", c.label())
            })
        }
        Change::ServerCommand(c) => {
            if dry {
                // An exec has no dry-run: nothing at all is sent.
                return Ok(format!("dry run: would run `{}`; nothing sent", c.text()));
            }
            w.server_command(c).await
        }
        Change::RestartPod {
            node, daemonset, ..
        } => {
            let t = &step.target;
            // Asked again before each delete: the plan was checked against
            // the screen, and an earlier pod of this run, the automatic
            // restart or a failing node may have taken a vRouter down since.
            let down = w.vrouters_down(&t.namespace, &t.uid).await?;
            if !down.is_empty() {
                return Err(WriteError::Refused(format!(
                    "not sent: {}; deleting {} now would leave two vRouters down at once: the remaining restarts stop here",
                    down.join(", "),
                    t.name
                )));
            }
            w.delete_pod(&t.namespace, &t.name, &t.uid).await?;
            if dry {
                return Ok("dry run: the server accepted the delete; the pod keeps running".into());
            }
            let waiting = format!("deleted; waiting for the replacement on {node} to be Ready");
            shared.set_stage(plan.id, &waiting);
            shared.step(plan, index, StepStatus::Waiting(waiting));
            let r = w
                .wait_for_replacement(
                    &t.namespace,
                    node,
                    daemonset,
                    &t.uid,
                    shared.replacement_timeout,
                )
                .await?;
            Ok(format!(
                "replaced by {} (generation {}), Ready",
                r.name, r.generation
            ))
        }
    }
}
