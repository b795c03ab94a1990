//! The ClusterUpdatePlan and UpdateAutoPause controllers (MCC 2.27+,
//! reference `mosk-update-plan.md` §1–2).
//!
//! Each step gates one stage of the simulated flow: the stage starts (or,
//! for machine granularity, starts new machines) only while the step's
//! `commence` is `true` and no watched alert fires. The plan's status
//! follows what runs. Everything about the status is inferred (§1.4):
//! `status.status` ∈ NotStarted, InProgress, AutoPaused, Completed;
//! `status.steps[]` = {id, name, status, message, startedAt, completedAt}
//! with step status NotStarted, InProgress, AutoPaused, Completed. Between
//! two steps (the next one not commenced) the plan stays InProgress [I].
//!
//! Auto-pause [C: D-PAUSE]: when a watched alert fires during the update,
//! `commence` is removed (the key disappears [I]) from every step not
//! started and from the in-progress machine-granularity step, the plan and
//! that step become `AutoPaused`, and the UpdateAutoPause lists the alert in
//! `status.firingAlerts` [I: field name]. The alert clears by itself after
//! the scenario's `lasts`, or at once when the operator removes it from
//! `spec.alerts` [I]. The update then stays paused until the operator sets
//! `commence: true` again [I: nothing says it comes back by itself]; the
//! plan and the step stay `AutoPaused` until then [I].

use jiff::Timestamp;
use serde_json::{Value, json};

use super::engine::{Ctx, UpdatePhase, check};
use super::kaas_objects::{AUTOPAUSES, PLANS, plan_name};
use super::plan_spec::Granularity;
use super::spec::ScenarioSpec;
use super::text::k8s_time;

/// One alert of the scenario that fires during the update.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fire {
    alert: String,
    /// When it fired (`None`: not yet).
    fired: Option<Timestamp>,
    /// It stopped firing (by itself or because the operator stopped watching it).
    cleared: bool,
}

/// The plan controller.
#[derive(Debug)]
pub struct Plan {
    name: String,
    fires: Vec<Fire>,
    /// Steps auto-paused and not commenced again since.
    auto_paused: Vec<bool>,
    /// Alerts last written to the UpdateAutoPause status.
    firing_written: Vec<String>,
}

/// Whether a plan step's `commence` is `true` (a missing key is `false` [I]).
fn commenced(step: &Value) -> bool {
    step.get("commence").and_then(Value::as_bool) == Some(true)
}

impl Plan {
    /// `None` when the scenario has no ClusterUpdatePlan. Closes the gates
    /// of the stages the plan's steps cover.
    pub fn new(spec: &ScenarioSpec, gates: &mut [bool; 5]) -> Option<Plan> {
        let plan = spec.plan.as_ref()?;
        for s in &plan.steps {
            gates[s.stage as usize] = false;
        }
        let fires = spec
            .auto_pause
            .iter()
            .flat_map(|a| a.fires.iter())
            .map(|f| Fire {
                alert: f.alert.clone(),
                fired: None,
                cleared: false,
            })
            .collect();
        Some(Plan {
            name: plan_name(spec),
            fires,
            auto_paused: vec![false; plan.steps.len()],
            firing_written: Vec::new(),
        })
    }

    pub fn step(&mut self, ctx: &mut Ctx) {
        let Some(plan_spec) = ctx.spec.plan.as_ref() else {
            return;
        };
        let ns = ctx.spec.namespace.clone();
        let Some(obj) = ctx.mgmt.get(PLANS, Some(&ns), &self.name) else {
            // Deleted by the operator: the update is no longer gated by it.
            ctx.facts.gates = [true; 5];
            return;
        };
        let firing = self.alerts(ctx);
        let steps: Vec<Value> = obj["spec"]["steps"].as_array().cloned().unwrap_or_default();
        let mut commence: Vec<bool> = plan_spec
            .steps
            .iter()
            .enumerate()
            .map(|(i, _)| steps.get(i).is_some_and(commenced))
            .collect();
        if !firing.is_empty()
            && !self.auto_paused.iter().any(|p| *p)
            && self.firing_written.is_empty()
        {
            self.auto_pause(ctx, &mut commence, &firing);
        }
        for (i, c) in commence.iter().enumerate() {
            if *c && firing.is_empty() {
                self.auto_paused[i] = false;
            }
        }
        if firing != self.firing_written {
            let list = firing.clone();
            check(
                ctx.mgmt
                    .update(AUTOPAUSES, Some(&ns), &ctx.spec.cluster, |o| {
                        o["status"]["firingAlerts"] = json!(list);
                    }),
                "update UpdateAutoPause status",
            );
            ctx.note(if firing.is_empty() {
                "auto-pause: alerts cleared".to_string()
            } else {
                format!("auto-pause: firing {}", firing.join(","))
            });
            self.firing_written = firing.clone();
        }
        let mut gates = [true; 5];
        for (i, s) in plan_spec.steps.iter().enumerate() {
            gates[s.stage as usize] = commence[i] && firing.is_empty();
        }
        ctx.facts.gates = gates;
        self.write_status(ctx, &obj, &firing);
    }

    /// Fires and clears the scenario's alerts; the watched ones firing now.
    fn alerts(&mut self, ctx: &mut Ctx) -> Vec<String> {
        let Some(ap) = ctx.spec.auto_pause.as_ref() else {
            return Vec::new();
        };
        let watched: Vec<String> = ctx
            .mgmt
            .get(AUTOPAUSES, Some(&ctx.spec.namespace), &ctx.spec.cluster)
            .and_then(|o| o["spec"]["alerts"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let mut firing = Vec::new();
        for (f, spec) in self.fires.iter_mut().zip(&ap.fires) {
            if f.fired.is_none()
                && let Some(start) = ctx.facts.stages[spec.stage as usize].0
                && ctx.facts.stages[spec.stage as usize].1.is_none()
                && ctx.now >= start.saturating_add(spec.after.get()).unwrap_or(start)
            {
                f.fired = Some(ctx.now);
                ctx.note(format!("alert fired: {}", f.alert));
            }
            let Some(at) = f.fired else { continue };
            if f.cleared {
                continue;
            }
            if ctx.now >= at.saturating_add(spec.lasts.get()).unwrap_or(at) {
                f.cleared = true;
                ctx.note(format!("alert resolved: {}", f.alert));
                continue;
            }
            if !watched.contains(&f.alert) {
                // Not (or no longer) watched: it does not pause the update.
                f.cleared = self.firing_written.contains(&f.alert);
                continue;
            }
            if !firing.contains(&f.alert) {
                firing.push(f.alert.clone());
            }
        }
        firing
    }

    /// Removes `commence` from the steps not started and from the running
    /// machine-granularity step.
    fn auto_pause(&mut self, ctx: &mut Ctx, commence: &mut [bool], firing: &[String]) {
        let Some(plan_spec) = ctx.spec.plan.as_ref() else {
            return;
        };
        if ctx.facts.phase == UpdatePhase::Done {
            return;
        }
        let mut touched = Vec::new();
        for (i, s) in plan_spec.steps.iter().enumerate() {
            let (started, done) = ctx.facts.stages[s.stage as usize];
            let running = started.is_some() && done.is_none();
            if started.is_none() || (running && s.granularity == Granularity::Machine) {
                touched.push(i);
                commence[i] = false;
                if running {
                    self.auto_paused[i] = true;
                }
            }
        }
        let ns = ctx.spec.namespace.clone();
        check(
            ctx.mgmt.update(PLANS, Some(&ns), &self.name, |o| {
                if let Some(steps) = o["spec"]["steps"].as_array_mut() {
                    for &i in &touched {
                        if let Some(step) = steps.get_mut(i).and_then(Value::as_object_mut) {
                            step.remove("commence");
                        }
                    }
                }
            }),
            "auto-pause ClusterUpdatePlan",
        );
        ctx.note(format!("plan auto-paused by {}", firing.join(",")));
    }

    fn write_status(&mut self, ctx: &mut Ctx, obj: &Value, firing: &[String]) {
        let Some(plan_spec) = ctx.spec.plan.as_ref() else {
            return;
        };
        let mut steps = Vec::new();
        let mut all_done = true;
        let mut any_started = false;
        for (i, s) in plan_spec.steps.iter().enumerate() {
            let (started, done) = ctx.facts.stages[s.stage as usize];
            let mut st = json!({"id": s.id, "name": s.name});
            let status = if done.is_some() {
                "Completed"
            } else if self.auto_paused[i] {
                "AutoPaused"
            } else if started.is_some() {
                "InProgress"
            } else {
                "NotStarted"
            };
            all_done &= done.is_some();
            any_started |= started.is_some();
            st["status"] = status.into();
            if status == "AutoPaused" {
                // Wording inferred.
                let why = if firing.is_empty() {
                    "Update paused by alerts; the alerts cleared: set commence to resume"
                        .to_string()
                } else {
                    format!("Update paused by alerts: {}", firing.join(", "))
                };
                st["message"] = why.into();
            }
            if let Some(t) = started {
                st["startedAt"] = k8s_time(t).into();
            }
            if let Some(t) = done {
                st["completedAt"] = k8s_time(t).into();
            }
            steps.push(st);
        }
        let status = if all_done && ctx.facts.phase == UpdatePhase::Done {
            "Completed"
        } else if self.auto_paused.iter().any(|p| *p) || !firing.is_empty() {
            "AutoPaused"
        } else if any_started {
            "InProgress"
        } else {
            "NotStarted"
        };
        let new = json!({"status": status, "steps": steps});
        if obj.get("status") == Some(&new) {
            return;
        }
        if obj["status"]["status"] != status {
            ctx.note(format!("plan status: {status}"));
        }
        let ns = ctx.spec.namespace.clone();
        check(
            ctx.mgmt
                .update(PLANS, Some(&ns), &self.name, |o| o["status"] = new),
            "update ClusterUpdatePlan status",
        );
    }
}

/// What `sim serve` prints for a scenario with a ClusterUpdatePlan: how to
/// commence a step and how to clear the auto-pause (empty without a plan).
pub fn plan_help(spec: &ScenarioSpec) -> Vec<String> {
    let Some(plan) = &spec.plan else {
        return Vec::new();
    };
    let (ns, name) = (&spec.namespace, plan_name(spec));
    let mut out = vec![
        format!(
            "This scenario has a ClusterUpdatePlan ({name}): the update waits until you commence its first step,"
        ),
        "and pauses before each later step until you commence it:".to_string(),
        format!("  kubectl --context sim-mgmt -n {ns} get clusterupdateplans {name} -o yaml"),
    ];
    for (i, s) in plan.steps.iter().enumerate() {
        out.push(format!(
            "  step {} ({}): kubectl --context sim-mgmt -n {ns} patch clusterupdateplan {name} --type=json -p '[{{\"op\":\"test\",\"path\":\"/spec/steps/{i}/id\",\"value\":\"{}\"}},{{\"op\":\"add\",\"path\":\"/spec/steps/{i}/commence\",\"value\":true}}]'",
            i + 1,
            s.id,
            s.id
        ));
    }
    if let Some(ap) = &spec.auto_pause {
        for f in &ap.fires {
            out.push(format!(
                "Auto-pause: the alert {} fires {:#} into the {} stage and clears by itself after {:#}.",
                f.alert,
                f.after.get(),
                f.stage.as_str(),
                f.lasts.get()
            ));
        }
        out.push(format!(
            "  Clear it at once by removing it from the UpdateAutoPause: kubectl --context sim-mgmt -n {ns} edit updateautopause {}",
            spec.cluster
        ));
        out.push(
            "  (or patch it: --type=json -p '[{\"op\":\"remove\",\"path\":\"/spec/alerts/0\"}]');"
                .to_string(),
        );
        out.push(
            "  then commence the paused step again: the auto-pause removed its `commence`."
                .to_string(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::load_scenario;

    #[test]
    fn serve_tells_how_to_commence_and_clear_the_auto_pause() {
        assert!(plan_help(&load_scenario("quick").unwrap()).is_empty());
        let help = plan_help(&load_scenario("plan").unwrap()).join("\n");
        assert!(
            help.contains(r#"kubectl --context sim-mgmt -n child-ns patch clusterupdateplan child-cl-17.4.0 --type=json -p '[{"op":"test","path":"/spec/steps/0/id","value":"openstack"},{"op":"add","path":"/spec/steps/0/commence","value":true}]'"#),
            "{help}"
        );
        assert!(
            help.contains("/spec/steps/4/id\",\"value\":\"stacklight\""),
            "{help}"
        );
        assert!(
            help.contains("Auto-pause: the alert KubeDeploymentOutage fires 4m into the workers stage and clears by itself after 10m."),
            "{help}"
        );
        assert!(
            help.contains("kubectl --context sim-mgmt -n child-ns edit updateautopause child-cl"),
            "{help}"
        );
    }
}
