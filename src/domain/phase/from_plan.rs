//! The update plan drives the phase: the step that runs
//! (or that the update waits to commence) bounds the phase the objects show.
//!
//! Rules (the mapping of steps to phases is ours \[I\]: the reference lists
//! the step fields but not the documented step list; the step ids are those
//! of Mirantis tooling's fixtures and our simulator, `openstack`, `ceph`,
//! `k8s-controllers`, `k8s-workers`):
//! - not started: the update was not triggered (commencing the first step
//!   changes the Cluster release, reference §1.3 \[C\]): idle — unless a
//!   ClusterMaintenanceRequest exists, which is LCM's own evidence that the
//!   update runs: then the objects decide;
//! - paused before step N: no step after the finished ones runs, so the phase
//!   goes no further than the last finished step covers;
//! - a step running (or auto-paused, or failed in it): at least "update
//!   triggered", at most the phase the step covers;
//! - done: the objects decide (finalization until LCM removes the request).

use super::{Phase, PhaseInfo};
use crate::domain::objects::{PlanStep, Snapshot, UpdatePlan};
use crate::domain::update_plan::{self, PlanState};

/// The last phase a step may bring the update to; `None` for a step we do
/// not know, which then bounds nothing \[I\].
pub(crate) fn step_phase(step: &PlanStep) -> Option<Phase> {
    let id = step.id.as_deref().unwrap_or("").to_ascii_lowercase();
    let name = step.name.to_ascii_lowercase();
    let has = |w: &str| id.contains(w) || name.contains(w);
    if has("worker") {
        Some(Phase::Workers)
    } else if has("controller") || has("control plane") || has("master") {
        Some(Phase::Masters)
    } else if has("openstack") || has("ceph") || has("tungsten") {
        Some(Phase::ClusterLocks)
    } else {
        None
    }
}

fn step_words(plan: &UpdatePlan, i: usize) -> String {
    format!(
        "step {}/{} \"{}\"",
        i + 1,
        plan.steps.len(),
        plan.steps[i].label()
    )
}

/// Caps `objects` at `cap`; the reason says what the objects showed beyond it.
fn capped(objects: PhaseInfo, cap: Phase, lead: String) -> PhaseInfo {
    let (phase, tail) = if objects.phase > cap && objects.phase != Phase::Done {
        (
            cap,
            format!(
                "; the objects alone would say {}: {}",
                label(objects.phase),
                objects.reason
            ),
        )
    } else if objects.phase == Phase::Done && cap < Phase::Done {
        (
            cap,
            format!("; the objects alone would say done: {}", objects.reason),
        )
    } else {
        (objects.phase, format!("; {}", objects.reason))
    };
    PhaseInfo {
        phase,
        reason: format!("{lead}{tail}"),
        step: Some(lead),
    }
}

fn label(p: Phase) -> String {
    match p.number() {
        Some(n) => format!("phase {n} ({})", p.name()),
        None => p.name().to_string(),
    }
}

/// The phase with the plan's word on it.
pub(super) fn drive(snap: &Snapshot, plan: &UpdatePlan, objects: PhaseInfo) -> PhaseInfo {
    let auto_pause = update_plan::auto_pause_for(snap, plan);
    match update_plan::state(plan, auto_pause) {
        PlanState::Done => PhaseInfo {
            step: Some("update plan done".into()),
            reason: format!("update plan done; {}", objects.reason),
            ..objects
        },
        PlanState::NotStarted => {
            let lead = match plan.steps.first() {
                Some(_) => format!(
                    "update plan not started: {} waits for commence",
                    step_words(plan, 0)
                ),
                None => "update plan not started (it has no steps)".to_string(),
            };
            if snap.cluster_requests().next().is_some() {
                // A ClusterMaintenanceRequest is LCM's own word that the
                // update runs: the plan's status may lag behind it, or the
                // update was triggered another way. The objects decide.
                return PhaseInfo {
                    reason: format!(
                        "{lead}, yet a ClusterMaintenanceRequest exists; {}",
                        objects.reason
                    ),
                    step: Some(lead),
                    ..objects
                };
            }
            capped(objects, Phase::Idle, lead)
        }
        PlanState::PausedBefore { next } => {
            // The steps before `next` are done (or commenced and quiet): the
            // flow reached at most what the last of them covers.
            let cap = plan.steps[..next]
                .iter()
                .rev()
                .find_map(step_phase)
                .unwrap_or(Phase::Triggered);
            let lead = format!(
                "paused before {} (waiting for commence)",
                step_words(plan, next)
            );
            // The objects' summary ("Ceph update under way") would claim work
            // the pause holds back: keep only the facts after it (which
            // locks are still active).
            let mut objects = objects;
            if let Some((_, facts)) = objects.reason.split_once(": ") {
                objects.reason = facts.to_string();
            }
            capped(objects, cap, lead)
        }
        PlanState::Running { step } => running(plan, step, "running", objects),
        PlanState::Failed { step } => running(plan, step, "FAILED", objects),
        PlanState::AutoPaused { step, alerts } => {
            let by = if alerts.is_empty() {
                "no firing alert recorded".to_string()
            } else {
                alerts.join(", ")
            };
            match step {
                Some(i) => running(plan, i, &format!("AUTO-PAUSED ({by})"), objects),
                None => capped(
                    objects,
                    Phase::Workers,
                    format!("update plan AUTO-PAUSED ({by})"),
                ),
            }
        }
    }
}

fn running(plan: &UpdatePlan, i: usize, what: &str, objects: PhaseInfo) -> PhaseInfo {
    let lead = format!("{} {what}", step_words(plan, i));
    let cap = step_phase(&plan.steps[i]).unwrap_or(Phase::Finalization);
    let mut info = capped(objects, cap, lead);
    // A commenced step means the Cluster release was changed: the update
    // was triggered even before LCM shows it [C: reference §1.3].
    if info.phase == Phase::Idle {
        info.phase = Phase::Triggered;
    }
    info
}
