//! Where a ClusterUpdatePlan stands: running, paused before a step (waiting
//! for `commence`), auto-paused by alerts, failed, or done; which step runs
//! and which one the operator would commence next; how far a step is past
//! its estimate; and the time left from the steps' estimates.
//!
//! Reading rules (reference `mosk-update-plan.md` §1.3–1.4, §2):
//! - a missing `commence` is `false` (auto-pause removes the key) \[I\];
//! - the current step is the first commenced step that is not `Completed` \[I\];
//! - the update pauses before the first step whose `commence` is false \[C\];
//! - the plan's `status.status` and `status.steps[]` layout is \[I/W\]; a
//!   plan without status is read from `commence` alone.

use jiff::{SignedDuration, Timestamp};

use super::objects::{PlanStep, Snapshot, StepStatus, UpdateAutoPause, UpdatePlan};

/// The plan's state, for the one-line summary and the attention queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanState {
    /// No step commenced: the update waits for the first step's `commence`.
    NotStarted,
    /// A commenced step runs (or has not reported yet).
    Running { step: usize },
    /// Every step before `next` is done; `next` waits for `commence`.
    PausedBefore { next: usize },
    /// Paused by UpdateAutoPause alerts: `step` was running, `alerts` fire
    /// (from the UpdateAutoPause status; empty when not recorded).
    AutoPaused {
        step: Option<usize>,
        alerts: Vec<String>,
    },
    /// A step reports `Failed`.
    Failed { step: usize },
    /// The plan reports `Completed`, or every step does.
    Done,
}

/// The plan of the cluster update: among the plans of `cluster` (or all,
/// when `None`), the one that is not done, started ones first; else the
/// newest. \[I\] There is one plan per target release.
pub fn active_plan<'a>(snap: &'a Snapshot, cluster: Option<&str>) -> Option<&'a UpdatePlan> {
    let plans: Vec<&UpdatePlan> = snap
        .update_plans()
        .filter(|p| cluster.is_none_or(|c| p.cluster.is_empty() || p.cluster == c))
        .collect();
    let rank = |p: &&UpdatePlan| {
        let done = is_done(p);
        let started = p.steps.iter().any(|s| s.commence || s.status.is_some());
        (!done, started, p.created)
    };
    plans.into_iter().max_by_key(rank)
}

/// The UpdateAutoPause of the plan's cluster (named like the cluster).
pub fn auto_pause_for<'a>(snap: &'a Snapshot, plan: &UpdatePlan) -> Option<&'a UpdateAutoPause> {
    snap.auto_pauses().find(|a| {
        a.namespace == plan.namespace && (plan.cluster.is_empty() || a.name == plan.cluster)
    })
}

fn is_done(plan: &UpdatePlan) -> bool {
    plan.status == Some(StepStatus::Completed)
        || (!plan.steps.is_empty() && plan.steps.iter().all(PlanStep::is_completed))
}

/// The step that runs now: the first commenced step that is not completed,
/// or the first step whose status says it runs or is paused mid-way.
pub fn current_step(plan: &UpdatePlan) -> Option<&PlanStep> {
    plan.steps
        .iter()
        .find(|s| {
            matches!(
                s.status,
                Some(StepStatus::InProgress | StepStatus::AutoPaused | StepStatus::Failed)
            )
        })
        .or_else(|| plan.steps.iter().find(|s| s.commence && !s.is_completed()))
}

/// The step the operator would commence next: the first step whose
/// `commence` is false (or missing) and that has not completed. `None` when
/// every step is commenced or done.
pub fn next_to_commence(plan: &UpdatePlan) -> Option<&PlanStep> {
    plan.steps.iter().find(|s| !s.commence && !s.is_completed())
}

/// The plan's state, from its status, its steps and the auto-pause alerts.
pub fn state(plan: &UpdatePlan, auto_pause: Option<&UpdateAutoPause>) -> PlanState {
    if plan.steps.is_empty() && plan.status != Some(StepStatus::Completed) {
        // Nothing to run or commence yet: not a finished plan.
        return PlanState::NotStarted;
    }
    if is_done(plan) {
        return PlanState::Done;
    }
    let current = current_step(plan);
    let firing = auto_pause.map(|a| a.firing.clone()).unwrap_or_default();
    let paused_step = plan
        .steps
        .iter()
        .find(|s| s.status == Some(StepStatus::AutoPaused))
        .map(|s| s.index);
    if plan.status == Some(StepStatus::AutoPaused) || paused_step.is_some() {
        return PlanState::AutoPaused {
            step: paused_step.or(current.map(|s| s.index)),
            alerts: firing,
        };
    }
    if let Some(failed) = plan
        .steps
        .iter()
        .find(|s| s.status == Some(StepStatus::Failed))
    {
        return PlanState::Failed { step: failed.index };
    }
    match current {
        Some(c) if c.commence || c.status == Some(StepStatus::InProgress) => {
            PlanState::Running { step: c.index }
        }
        _ => match next_to_commence(plan) {
            // Every step before `next` is commenced or done, and none of
            // the commenced ones runs: the update waits at `next`.
            Some(n) if n.index == 0 => PlanState::NotStarted,
            Some(n) => PlanState::PausedBefore { next: n.index },
            None => current.map_or(PlanState::Done, |c| PlanState::Running { step: c.index }),
        },
    }
}

/// The one-line summary the Overview shows, e.g.
/// `update plan: paused before step 3 "ceph" (waiting for commence)`.
pub fn summary(plan: &UpdatePlan, state: &PlanState) -> String {
    let step = |i: usize| {
        let s = &plan.steps[i];
        format!("step {} \"{}\"", i + 1, s.label())
    };
    match state {
        PlanState::NotStarted => match plan.steps.first() {
            Some(_) => format!("update plan: not started; {} waits for commence", step(0)),
            None => "update plan: not started (the plan has no steps)".to_string(),
        },
        // [I] Without any status the plan cannot tell running from finished
        // (a finished plan has every step commenced): say what is known.
        PlanState::Running { step: i }
            if plan.status.is_none() && plan.steps.iter().all(|s| s.status.is_none()) =>
        {
            format!(
                "update plan: {} commenced; the plan reports no status (progress from the objects)",
                step(*i)
            )
        }
        PlanState::Running { step: i } => format!("update plan: running {}", step(*i)),
        PlanState::PausedBefore { next } => {
            format!(
                "update plan: paused before {} (waiting for commence)",
                step(*next)
            )
        }
        PlanState::AutoPaused { step: at, alerts } => {
            let at = at.map(|i| format!(" in {}", step(i))).unwrap_or_default();
            if alerts.is_empty() {
                format!("update plan: AUTO-PAUSED{at}; no firing alert recorded")
            } else {
                format!("update plan: AUTO-PAUSED{at} by {}", alerts.join(", "))
            }
        }
        PlanState::Failed { step: i } => format!("update plan: {} FAILED", step(*i)),
        PlanState::Done => "update plan: done".to_string(),
    }
}

/// How long a running step has been running past its estimate, when it has.
pub fn over_estimate(step: &PlanStep, now: Timestamp) -> Option<SignedDuration> {
    if step.is_completed() {
        return None;
    }
    let started = step.started_at?;
    let over = now.duration_since(started) - step.estimated?;
    (over > SignedDuration::ZERO).then_some(over)
}

/// What the finished steps actually took against their estimates: the sum
/// of actual durations over the sum of estimates (1.0 with no finished step
/// that has both).
pub fn estimate_factor(plan: &UpdatePlan) -> f64 {
    let (mut actual, mut estimated) = (0f64, 0f64);
    for s in &plan.steps {
        if let (Some(a), Some(b), Some(e)) = (s.started_at, s.completed_at, s.estimated)
            && s.is_completed()
            && e > SignedDuration::ZERO
        {
            actual += b.duration_since(a).as_secs_f64().max(0.0);
            estimated += e.as_secs_f64();
        }
    }
    if estimated > 0.0 && actual > 0.0 {
        // [I] Bounded: one step far off its estimate (a no-op step done in
        // a minute) must not scale every other estimate to nothing.
        (actual / estimated).clamp(FACTOR_MIN, FACTOR_MAX)
    } else {
        1.0
    }
}

/// Bounds of [`estimate_factor`].
pub const FACTOR_MIN: f64 = 0.25;
pub const FACTOR_MAX: f64 = 4.0;

/// Time left by the plan: the current step's remaining estimate plus every
/// later step's estimate, scaled by [`estimate_factor`]. `None` when a step
/// left to run has no estimate, or the running step is already past its
/// scaled estimate (the ETA then comes from the machines).
pub fn eta(plan: &UpdatePlan, now: Timestamp) -> Option<SignedDuration> {
    if is_done(plan) {
        return Some(SignedDuration::ZERO);
    }
    // Auto-paused: nothing moves until the operator commences again, so no
    // time left can be told (the running time of the paused step grows).
    if plan.status == Some(StepStatus::AutoPaused)
        || plan
            .steps
            .iter()
            .any(|s| s.status == Some(StepStatus::AutoPaused))
    {
        return None;
    }
    let factor = estimate_factor(plan);
    let mut left = 0f64;
    for s in plan.steps.iter().filter(|s| !s.is_completed()) {
        let est = s.estimated?.as_secs_f64() * factor;
        let ran = s
            .started_at
            .map(|t| now.duration_since(t).as_secs_f64().max(0.0))
            .unwrap_or(0.0);
        if ran > est {
            // A step past its (corrected) estimate: the plan no longer knows
            // how long is left; the ETA comes from the machines instead.
            return None;
        }
        left += est - ran;
    }
    SignedDuration::try_from_secs_f64(left).ok()
}

#[cfg(test)]
mod tests;
