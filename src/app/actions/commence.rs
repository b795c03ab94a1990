//! Commence the next step of the cluster's ClusterUpdatePlan: set the
//! step's `commence` to true (reference `mosk-update-plan.md` §1.3). Only the
//! step the update waits at ([`update_plan::next_to_commence`]) is offered, only
//! from a view that shows it (the update plan view, the Overview), and never
//! "cancel" (an update that has started cannot be cancelled \[I\]).
//!
//! The write is a JSON patch whose `test` ops pin the step's `id` (or `name`)
//! and its current `commence: false`, so a plan that changed under the
//! screen is refused by the server instead of commencing another step
//! (`crate::cluster::writes::update_plan`).

use crate::app::actions::plan::{ActionPlan, Change, ObjectRef, PlanError, PlannedStep};
use crate::app::model::{Model, View};
use crate::app::tables::plan_steps::{estimate_text, shown_plan};
use crate::domain::action::ActionId;
pub use crate::domain::action::plan::CommenceStep;
use crate::domain::objects::{ClusterId, Impact, Kind, PlanStep, UpdatePlan};
use crate::domain::update_plan::{self, PlanState};

/// The step as the screen shows it.
fn commence_step_of(plan: &UpdatePlan, s: &PlanStep) -> CommenceStep {
    let impact = |i: &Option<Impact>| i.as_ref().map_or("not given", Impact::as_str).to_string();
    CommenceStep {
        index: s.index,
        id: s.id.clone(),
        name: s.name.clone(),
        commence_present: s.commence_present,
        impact_users: impact(&s.impact_users),
        impact_workloads: impact(&s.impact_workloads),
        impact_info: s.impact_info.clone(),
        estimate: estimate_text(s),
        granularity: s.granularity.clone(),
        releases: format!(
            "{} -> {}",
            plan.source.as_deref().unwrap_or("?"),
            plan.target.as_deref().unwrap_or("?")
        ),
    }
}

/// Plans commencing the next step of the cluster's update plan, or says why not.
pub fn plan_commence(model: &Model) -> Result<ActionPlan, PlanError> {
    if !matches!(model.view, View::UpdatePlan | View::Overview) {
        return Err(PlanError(
            "commence is offered in the update plan view (:plan) and on the Overview, where the step is shown".into(),
        ));
    }
    let Some(p) = shown_plan(model) else {
        return Err(PlanError(format!(
            "no ClusterUpdatePlan for {} is shown: nothing to commence",
            model.session.cluster_name
        )));
    };
    let state = update_plan::state(p, update_plan::auto_pause_for(&model.snapshot, p));
    if state == PlanState::Done {
        return Err(PlanError(
            "the update plan is done: nothing to commence".into(),
        ));
    }
    let Some(next) = update_plan::next_to_commence(p) else {
        return Err(PlanError(
            "every step of the update plan is already commenced".into(),
        ));
    };
    let step = commence_step_of(p, next);
    let mut warnings = Vec::new();
    // [I] The three warnings below are inferences from the reference
    // (mosk-update-plan.md §1.3 and §2): that commencing resumes an
    // auto-paused update, that it does not repair a failed step, and that
    // a step commenced ahead lets the update run on without pausing.
    match &state {
        PlanState::AutoPaused { alerts, .. } if !alerts.is_empty() => warnings.push(format!(
            "the update is AUTO-PAUSED by {}: commencing now resumes it while the alerts still fire",
            alerts.join(", ")
        )),
        PlanState::AutoPaused { .. } => warnings.push(
            "the update is AUTO-PAUSED: check the alerts are resolved before resuming".into(),
        ),
        PlanState::Failed { step: i } => warnings.push(format!(
            "step {} failed: commencing the next step will not repair it",
            i + 1
        )),
        PlanState::Running { step: i } if *i != next.index => warnings.push(format!(
            "step {} still runs: the update goes on to {} without pausing",
            i + 1,
            step.label()
        )),
        _ => {}
    }
    if step.impact_workloads == Impact::Major.as_str() {
        warnings.push(format!(
            "major impact on workloads: type the step's name \"{}\" to confirm",
            step.name
        ));
    }
    // The plan's uid is not kept by the domain; the patch's test ops pin
    // the step instead.
    let uid = String::new();
    Ok(ActionPlan {
        id: 0,
        action: ActionId::CommenceStep,
        cluster: ClusterId::Mgmt,
        context: model.session.mgmt_context.clone(),
        dry_run: model.session.dry_run,
        steps: vec![PlannedStep {
            target: ObjectRef {
                cluster: ClusterId::Mgmt,
                kind: Kind::ClusterUpdatePlan,
                namespace: p.namespace.clone(),
                name: p.name.clone(),
                uid,
            },
            change: Change::Commence(step),
            node: String::new(),
            servers: Vec::new(),
            acknowledge: Vec::new(),
        }],
        warnings,
        notes: Vec::new(),
        access: None,
        refused: None,
    })
}
