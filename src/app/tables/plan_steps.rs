//! The update plan view's table: one row per step of the cluster's
//! ClusterUpdatePlan, in plan order. The step that runs is marked `▶`, the
//! step the update waits at for `commence` is marked `◇`; the STATUS column
//! says the same in words. The texts here (estimate, commence, status) are
//! also used by the step's detail and the commence dialog.

use crate::domain::progress::human_duration;
use jiff::{SignedDuration, Timestamp};

use super::{
    Column, Empty, SortKind, TableData, TableRow, Tone, Width, col, empty_text, malformed_rows,
    missing_lines,
};
use crate::app::model::Model;
use crate::domain::objects::{Impact, Kind, PlanStep, StepStatus, UpdatePlan};
use crate::domain::update_plan::{self, PlanState};

const COLUMNS: [Column; 7] = [
    col("#", Width::Fixed(3), SortKind::Number, 0),
    col("STEP", Width::Min(15), SortKind::Text, 0),
    col("NAME", Width::Fill(30), SortKind::Text, 3),
    col("IMPACT U/W", Width::Fixed(11), SortKind::Text, 1),
    col("EST.", Width::Min(6), SortKind::Text, 2),
    col("COMMENCE", Width::Fixed(8), SortKind::Text, 1),
    col("STATUS", Width::Fill(30), SortKind::Text, 0),
];

/// The plan the view shows: the active plan of the session's cluster.
pub fn shown_plan(model: &Model) -> Option<&UpdatePlan> {
    update_plan::active_plan(&model.snapshot, Some(&model.session.cluster_name))
}

/// The plan's state (with the cluster's UpdateAutoPause), as `update`
/// derived it; `NotStarted` before it did.
pub fn plan_state(model: &Model) -> PlanState {
    model
        .derived
        .plan
        .as_ref()
        .map_or(PlanState::NotStarted, |p| p.state.clone())
}

/// `~1h00m`; the raw text when it could not be read; `no estimate`.
pub fn estimate_text(step: &PlanStep) -> String {
    match (&step.estimated, &step.estimated_raw) {
        (Some(d), _) => format!("~{}", human_duration(*d)),
        (None, Some(raw)) => format!("{raw} (unread)"),
        (None, None) => "no estimate".into(),
    }
}

/// `yes`, `no`, or `removed` when the key is missing (auto-pause removes it).
pub fn commence_text(step: &PlanStep) -> &'static str {
    match (step.commence_present, step.commence) {
        (false, _) => "removed",
        (true, true) => "yes",
        (true, false) => "no",
    }
}

/// `minor/major` (users/workloads); `?` where the plan does not say.
pub fn impact_text(step: &PlanStep) -> String {
    let one = |i: &Option<Impact>| i.as_ref().map_or("?", Impact::as_str).to_string();
    format!(
        "{}/{}",
        one(&step.impact_users),
        one(&step.impact_workloads)
    )
}

/// How long the step has run, against its estimate:
/// `running 42m of ~30m est. (+12m over)`.
fn ran_text(step: &PlanStep, now: Timestamp) -> String {
    let Some(started) = step.started_at else {
        return "(start time not reported)".into();
    };
    let ran = now.duration_since(started).max(SignedDuration::ZERO);
    let mut text = match step.estimated {
        Some(est) => format!("{} of ~{} est.", human_duration(ran), human_duration(est)),
        None => format!("{} (no estimate)", human_duration(ran)),
    };
    if let Some(over) = update_plan::over_estimate(step, now) {
        text.push_str(&format!(" (+{} over)", human_duration(over)));
    }
    text
}

/// The step's status in words, from the plan's status (unknown values raw).
pub fn status_text(p: &UpdatePlan, step: &PlanStep, now: Timestamp) -> String {
    let waiting = update_plan::next_to_commence(p).is_some_and(|n| n.index == step.index);
    match &step.status {
        Some(StepStatus::Completed) => match (step.started_at, step.completed_at) {
            (Some(a), Some(b)) => {
                let took = human_duration(b.duration_since(a));
                match step.estimated {
                    Some(e) => format!("done in {took} (est. {})", human_duration(e)),
                    None => format!("done in {took}"),
                }
            }
            _ => "done".into(),
        },
        Some(StepStatus::InProgress) => format!("running {}", ran_text(step, now)),
        Some(StepStatus::AutoPaused) => format!("AUTO-PAUSED after {}", ran_text(step, now)),
        Some(StepStatus::Failed) => match step.message.as_deref().filter(|m| !m.is_empty()) {
            Some(m) => format!("FAILED: {m}"),
            None => "FAILED".into(),
        },
        Some(StepStatus::Other(raw)) => raw.clone(),
        Some(StepStatus::NotStarted) | None if waiting => "waits for commence".into(),
        Some(StepStatus::NotStarted) | None if step.commence => {
            match update_plan::current_step(p).map(|c| c.index) {
                Some(c) if c == step.index && step.started_at.is_some() => {
                    format!("running {}", ran_text(step, now))
                }
                Some(c) if c == step.index => "commenced, not started yet".into(),
                _ => "commenced, runs after the steps before it".into(),
            }
        }
        Some(StepStatus::NotStarted) | None => "not commenced".into(),
    }
}

/// Which step the view marks as running (`▶`): the state's step.
pub fn running_index(state: &PlanState) -> Option<usize> {
    match state {
        PlanState::Running { step } | PlanState::Failed { step } => Some(*step),
        PlanState::AutoPaused { step, .. } => *step,
        _ => None,
    }
}

/// `1 ▶`, `2 ◇`, `3`.
fn number_cell(step: &PlanStep, running: Option<usize>, waiting: Option<usize>) -> String {
    let n = step.index + 1;
    if running == Some(step.index) {
        format!("{n} ▶")
    } else if waiting == Some(step.index) {
        format!("{n} ◇")
    } else {
        n.to_string()
    }
}

fn tone(step: &PlanStep, running: Option<usize>, waiting: Option<usize>, now: Timestamp) -> Tone {
    match &step.status {
        Some(StepStatus::Failed) => Tone::Error,
        Some(StepStatus::AutoPaused) => Tone::Warn,
        Some(StepStatus::Completed) => Tone::Ok,
        _ if running == Some(step.index) && update_plan::over_estimate(step, now).is_some() => {
            Tone::Warn
        }
        _ if running == Some(step.index) => Tone::Normal,
        _ if waiting == Some(step.index) => Tone::Attention,
        _ => Tone::Muted,
    }
}

/// The step the view selects first: the one that runs, else the one that
/// waits for commence.
pub fn focus_step(model: &Model) -> Option<usize> {
    let p = shown_plan(model)?;
    running_index(&plan_state(model)).or_else(|| update_plan::next_to_commence(p).map(|s| s.index))
}

/// The row id of step `index` (the cursor follows it).
pub fn row_id(index: usize) -> String {
    format!("step/{index}")
}

pub(super) fn table(model: &Model) -> TableData {
    let kinds = [Kind::ClusterUpdatePlan];
    let now = model.now;
    let mut rows: Vec<TableRow> = Vec::new();
    if let Some(p) = shown_plan(model) {
        let state = plan_state(model);
        let running = running_index(&state);
        let waiting = update_plan::next_to_commence(p).map(|s| s.index);
        rows = p
            .steps
            .iter()
            .map(|s| TableRow {
                id: row_id(s.index),
                cells: vec![
                    number_cell(s, running, waiting).into(),
                    s.id.clone().unwrap_or_else(|| "(no id)".into()).into(),
                    s.name.clone().into(),
                    impact_text(s).into(),
                    estimate_text(s).into(),
                    commence_text(s).into(),
                    status_text(p, s, now).into(),
                ],
                search: [
                    s.description.join(" "),
                    s.granularity.clone().unwrap_or_default(),
                ]
                .join(" "),
                tone: tone(s, running, waiting, now),
                node: None,
                keys: vec![(0, s.index as i64 + 1)],
            })
            .collect();
    }
    rows.extend(malformed_rows(
        model,
        Kind::ClusterUpdatePlan,
        COLUMNS.len(),
        1,
        6,
    ));
    let listed = model
        .freshness
        .get(&Kind::ClusterUpdatePlan)
        .is_some_and(|f| f.listed);
    let empty = if listed && shown_plan(model).is_none() {
        Empty::Text(no_plan_text(model))
    } else if shown_plan(model).is_some() {
        Empty::Text("the update plan has no steps".into())
    } else {
        empty_text("ClusterUpdatePlan", &kinds)
    };
    TableData {
        columns: COLUMNS.to_vec(),
        rows,
        missing: missing_lines(model, &kinds),
        empty,
    }
}

/// What the view says when the cluster has no ClusterUpdatePlan: possible
/// reasons, not a verdict.
pub fn no_plan_text(model: &Model) -> String {
    format!(
        "no ClusterUpdatePlan for {}: the management cluster's MCC may predate 2.27 \
         (no update plans), or no update may be available for the cluster",
        model.session.cluster_name
    )
}
