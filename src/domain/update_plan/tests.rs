use jiff::{SignedDuration, Timestamp};
use std::sync::Arc;

use super::*;
use crate::domain::objects::{Impact, PlanStep, StepStatus, UpdateAutoPause, UpdatePlan};

fn at(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn step(index: usize, id: &str, commence: bool, status: Option<StepStatus>) -> PlanStep {
    PlanStep {
        index,
        id: Some(id.into()),
        name: format!("Update {id}"),
        impact_workloads: Some(Impact::Minor),
        estimated: Some(SignedDuration::from_mins(30)),
        granularity: Some("cluster".into()),
        commence,
        commence_present: true,
        status,
        ..PlanStep::default()
    }
}

fn plan(steps: Vec<PlanStep>, status: Option<StepStatus>) -> UpdatePlan {
    UpdatePlan {
        name: "child-cl-17.4.0".into(),
        namespace: "child-ns".into(),
        cluster: "child-cl".into(),
        target: Some("mosk-17-4-0-25-1".into()),
        steps,
        status,
        ..UpdatePlan::default()
    }
}

use StepStatus::*;

#[test]
fn nothing_commenced_is_not_started() {
    let p = plan(
        vec![
            step(0, "openstack", false, None),
            step(1, "ceph", false, None),
        ],
        Some(NotStarted),
    );
    assert_eq!(state(&p, None), PlanState::NotStarted);
    assert_eq!(next_to_commence(&p).unwrap().index, 0);
    assert_eq!(
        summary(&p, &state(&p, None)),
        "update plan: not started; step 1 \"openstack\" waits for commence"
    );
}

#[test]
fn a_commenced_step_runs_even_without_status() {
    let p = plan(
        vec![
            step(0, "openstack", true, None),
            step(1, "ceph", false, None),
        ],
        None,
    );
    assert_eq!(state(&p, None), PlanState::Running { step: 0 });
    assert_eq!(next_to_commence(&p).unwrap().index, 1);
}

#[test]
fn finished_step_and_uncommenced_next_is_paused_before_it() {
    let p = plan(
        vec![
            step(0, "openstack", true, Some(Completed)),
            step(1, "ceph", false, Some(NotStarted)),
        ],
        Some(InProgress),
    );
    assert_eq!(state(&p, None), PlanState::PausedBefore { next: 1 });
    assert_eq!(
        summary(&p, &state(&p, None)),
        "update plan: paused before step 2 \"ceph\" (waiting for commence)"
    );
}

#[test]
fn auto_pause_names_the_firing_alerts_and_the_step() {
    let mut worker = step(2, "k8s-workers", false, Some(AutoPaused));
    worker.commence_present = false;
    let p = plan(
        vec![
            step(0, "openstack", true, Some(Completed)),
            step(1, "ceph", true, Some(Completed)),
            worker,
        ],
        Some(AutoPaused),
    );
    let ap = UpdateAutoPause {
        name: "child-cl".into(),
        namespace: "child-ns".into(),
        alerts: vec!["KubeDeploymentOutage".into()],
        firing: vec!["KubeDeploymentOutage".into()],
    };
    let st = state(&p, Some(&ap));
    assert_eq!(
        st,
        PlanState::AutoPaused {
            step: Some(2),
            alerts: vec!["KubeDeploymentOutage".into()]
        }
    );
    assert_eq!(
        summary(&p, &st),
        "update plan: AUTO-PAUSED in step 3 \"k8s-workers\" by KubeDeploymentOutage"
    );
    // The paused step is the one to commence again.
    assert_eq!(next_to_commence(&p).unwrap().index, 2);
    // The alert cleared: still paused, and the summary says what is left to do.
    let cleared = UpdateAutoPause {
        firing: Vec::new(),
        ..ap
    };
    assert_eq!(
        summary(&p, &state(&p, Some(&cleared))),
        "update plan: AUTO-PAUSED in step 3 \"k8s-workers\"; no firing alert recorded"
    );
}

#[test]
fn completed_plan_is_done_and_failed_step_is_failed() {
    let done = plan(
        vec![step(0, "openstack", true, Some(Completed))],
        Some(Completed),
    );
    assert_eq!(state(&done, None), PlanState::Done);
    assert_eq!(next_to_commence(&done), None);
    let failed = plan(
        vec![
            step(0, "openstack", true, Some(Failed)),
            step(1, "ceph", false, None),
        ],
        Some(InProgress),
    );
    assert_eq!(state(&failed, None), PlanState::Failed { step: 0 });
}

#[test]
fn over_estimate_counts_from_the_step_start() {
    let mut s = step(0, "openstack", true, Some(InProgress));
    s.started_at = Some(at("2026-01-01T10:00:00Z"));
    assert_eq!(over_estimate(&s, at("2026-01-01T10:20:00Z")), None);
    assert_eq!(
        over_estimate(&s, at("2026-01-01T10:45:00Z")),
        Some(SignedDuration::from_mins(15))
    );
    s.estimated = None;
    assert_eq!(over_estimate(&s, at("2026-01-01T12:00:00Z")), None);
}

#[test]
fn eta_scales_the_remaining_estimates_by_what_finished_steps_took() {
    // Step 1 took 60m against 30m: the factor is 2.
    let mut s0 = step(0, "openstack", true, Some(Completed));
    s0.started_at = Some(at("2026-01-01T10:00:00Z"));
    s0.completed_at = Some(at("2026-01-01T11:00:00Z"));
    let mut s1 = step(1, "ceph", true, Some(InProgress));
    s1.started_at = Some(at("2026-01-01T11:00:00Z"));
    let s2 = step(2, "k8s-workers", false, None);
    let p = plan(vec![s0, s1, s2], Some(InProgress));
    assert_eq!(estimate_factor(&p), 2.0);
    // 10 minutes into ceph: (60 - 10) + 60 = 110 minutes.
    assert_eq!(
        eta(&p, at("2026-01-01T11:10:00Z")),
        Some(SignedDuration::from_mins(110))
    );
    // Ceph past its scaled estimate (60m) at 12:10: the plan cannot say.
    assert_eq!(eta(&p, at("2026-01-01T12:10:00Z")), None);
    // A step without an estimate: the plan cannot say.
    let mut q = p.clone();
    q.steps[2].estimated = None;
    assert_eq!(eta(&q, at("2026-01-01T11:10:00Z")), None);
}

#[test]
fn the_active_plan_is_the_unfinished_one_of_the_cluster() {
    use crate::domain::objects::{Object, Snapshot};
    let mut old = plan(
        vec![step(0, "openstack", true, Some(Completed))],
        Some(Completed),
    );
    old.name = "child-cl-17.3.0".into();
    old.created = Some(at("2025-06-01T00:00:00Z"));
    let mut new = plan(vec![step(0, "openstack", false, None)], None);
    new.created = Some(at("2026-01-01T00:00:00Z"));
    let mut other = plan(vec![step(0, "openstack", true, Some(InProgress))], None);
    other.name = "other-17.4.0".into();
    other.cluster = "other".into();
    let mut snap = Snapshot::default();
    for p in [old.clone(), new.clone(), other] {
        snap.apply(Object::UpdatePlan(Arc::new(p)));
    }
    assert_eq!(
        active_plan(&snap, Some("child-cl")).map(|p| p.name.as_str()),
        Some("child-cl-17.4.0")
    );
    // Only finished plans: the newest one.
    let mut done_new = new;
    done_new.steps[0].status = Some(Completed);
    done_new.status = Some(Completed);
    let mut snap = Snapshot::default();
    snap.apply(Object::UpdatePlan(Arc::new(old)));
    snap.apply(Object::UpdatePlan(Arc::new(done_new)));
    assert_eq!(
        active_plan(&snap, Some("child-cl")).map(|p| p.name.as_str()),
        Some("child-cl-17.4.0")
    );
    assert_eq!(active_plan(&snap, Some("nobody")), None);
}

#[test]
fn a_plan_without_steps_is_not_started_and_one_without_status_says_so() {
    let empty = plan(Vec::new(), None);
    assert_eq!(state(&empty, None), PlanState::NotStarted);
    // Every step commenced, no status anywhere: running or finished cannot be told.
    let silent = plan(
        vec![
            step(0, "openstack", true, None),
            step(1, "ceph", true, None),
        ],
        None,
    );
    assert_eq!(
        summary(&silent, &state(&silent, None)),
        "update plan: step 1 \"openstack\" commenced; the plan reports no status (progress from the objects)"
    );
}

#[test]
fn the_estimate_factor_is_bounded_and_an_auto_paused_plan_has_no_eta() {
    // A step done in a minute against an hour: bounded, not 1/60.
    let mut s0 = step(0, "openstack", true, Some(Completed));
    s0.estimated = Some(SignedDuration::from_hours(1));
    s0.started_at = Some(at("2026-01-01T10:00:00Z"));
    s0.completed_at = Some(at("2026-01-01T10:01:00Z"));
    let s1 = step(1, "ceph", false, None);
    let p = plan(vec![s0.clone(), s1.clone()], Some(InProgress));
    assert_eq!(estimate_factor(&p), FACTOR_MIN);
    // Done the moment it started: no evidence, factor 1.
    s0.completed_at = s0.started_at;
    let q = plan(vec![s0, s1], Some(InProgress));
    assert_eq!(estimate_factor(&q), 1.0);
    assert_eq!(
        eta(&q, at("2026-01-01T11:00:00Z")),
        Some(SignedDuration::from_mins(30))
    );
    // Auto-paused: nothing moves, no ETA.
    let mut r = q.clone();
    r.steps[1].status = Some(AutoPaused);
    r.status = Some(AutoPaused);
    assert_eq!(eta(&r, at("2026-01-01T11:00:00Z")), None);
}
