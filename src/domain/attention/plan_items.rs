//! Attention items from the update plan: the plan
//! auto-paused by alerts (always the queue's first item), a running step
//! past its estimate, and the update waiting for a step's `commence`.

use jiff::Timestamp;

use super::{AttentionItem, AttentionKind};
use crate::domain::action::ActionId;
use crate::domain::history::History;
use crate::domain::objects::{Kind, ObjectKey, Snapshot, UpdatePlan};
use crate::domain::progress::human_duration;
use crate::domain::update_plan::{self, PlanState};

fn plan_key(plan: &UpdatePlan) -> ObjectKey {
    ObjectKey {
        kind: Kind::ClusterUpdatePlan,
        namespace: plan.namespace.clone(),
        name: plan.name.clone(),
    }
}

fn step_words(plan: &UpdatePlan, i: usize) -> String {
    format!("step {} \"{}\"", i + 1, plan.steps[i].label())
}

/// When the console saw the plan's status become `AutoPaused` (the latest
/// such change), or first saw the plan when it arrived already paused.
fn paused_since(history: &History, key: &ObjectKey) -> Option<Timestamp> {
    let changed = history
        .changes()
        .rev()
        .find(|c| &c.key == key && c.field == "status.status" && c.new == "AutoPaused")
        .map(|c| c.at);
    changed.or_else(|| history.first_seen(key))
}

/// The update plan's items: auto-paused, over its estimate, waiting for commence.
pub(super) fn update_plan(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    out: &mut Vec<AttentionItem>,
) {
    let Some(plan) = update_plan::active_plan(snap, None) else {
        return;
    };
    let auto_pause = update_plan::auto_pause_for(snap, plan);
    let key = plan_key(plan);
    let state = update_plan::state(plan, auto_pause);
    match &state {
        PlanState::AutoPaused { step, alerts } => {
            let pause_name = auto_pause.map_or(plan.cluster.as_str(), |a| a.name.as_str());
            let pause_name = if pause_name.is_empty() {
                "of the cluster"
            } else {
                pause_name
            };
            let paused = step
                .map(|i| format!(" ({} paused)", step_words(plan, i)))
                .unwrap_or_default();
            let again = step
                .map(|i| format!("commence {} again", step_words(plan, i)))
                .unwrap_or_else(|| "commence the paused step again".to_string());
            // [I] The reference says the pause removes `commence` and nothing
            // says it comes back: the operator sets it again (§2, resume).
            // The alerts go first: the Overview shows one line of it.
            let (why, action) = match (alerts.is_empty(), auto_pause) {
                (false, _) => (
                    format!(
                        "alerts firing: {}{paused}; to resume: let the alerts clear (fix the cause, or remove the alert from spec.alerts of UpdateAutoPause {pause_name}), then {again}",
                        alerts.join(", ")
                    ),
                    None,
                ),
                // The alerts have cleared: only the commence is left to do.
                // [I] Read from `status.firingAlerts`, a field name we inferred.
                (true, Some(a)) => (
                    format!(
                        "no firing alert recorded in UpdateAutoPause {} now{paused}; to resume: {again}",
                        a.name
                    ),
                    Some(ActionId::CommenceStep),
                ),
                (true, None) => (
                    format!(
                        "no UpdateAutoPause found to say which alerts fire{paused}; to resume: let the alerts clear, then {again}"
                    ),
                    None,
                ),
            };
            out.push(AttentionItem {
                kind: AttentionKind::AutoPaused,
                subject: plan.name.clone(),
                node: None,
                why,
                // [I] When the pause began is not recorded in the plan: the
                // console's own record of the status change, else the first
                // sight of the plan, else now.
                since: paused_since(history, &key).unwrap_or(now),
                action,
                key: key.clone(),
                at_least: false,
                since_inferred: None,
                symptoms: Vec::new(),
                unraised_since: None,
            });
        }
        PlanState::PausedBefore { next } => {
            let step = &plan.steps[*next];
            let prev_done = plan.steps[..*next]
                .iter()
                .rev()
                .find_map(|s| s.completed_at);
            let impact = step
                .impact_workloads
                .as_ref()
                .map(|i| format!("; impact on workloads {}", i.as_str()))
                .unwrap_or_default();
            let estimate = step
                .estimated
                .map(|e| format!(", estimated ~{}", human_duration(e)))
                .unwrap_or_default();
            out.push(AttentionItem {
                kind: AttentionKind::WaitingForCommence,
                subject: plan.name.clone(),
                node: None,
                why: format!(
                    "the update is paused before {}: it waits for commence ({}{impact}{estimate})",
                    step_words(plan, *next),
                    step.name
                ),
                since: prev_done
                    .or(history.first_seen(&key))
                    .or(plan.created)
                    .unwrap_or(now),
                action: Some(ActionId::CommenceStep),
                key: key.clone(),
                at_least: false,
                since_inferred: None,
                symptoms: Vec::new(),
                unraised_since: None,
            });
        }
        _ => {}
    }
    if let PlanState::Running { step: i } | PlanState::Failed { step: i } = state {
        let step = &plan.steps[i];
        if let (Some(over), Some(started), Some(estimated)) = (
            update_plan::over_estimate(step, now),
            step.started_at,
            step.estimated,
        ) {
            out.push(AttentionItem {
                kind: AttentionKind::StepOverEstimate,
                subject: plan.name.clone(),
                node: None,
                why: format!(
                    "{} runs {}, {} over its ~{} estimate",
                    step_words(plan, i),
                    human_duration(now.duration_since(started)),
                    human_duration(over),
                    human_duration(estimated)
                ),
                since: started.checked_add(estimated).unwrap_or(started),
                action: None,
                key,
                at_least: false,
                since_inferred: None,
                symptoms: Vec::new(),
                unraised_since: None,
            });
        }
    }
}

#[cfg(test)]
#[path = "plan_items_tests.rs"]
mod tests;
