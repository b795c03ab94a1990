//! The update plan's attention items, with their exact texts.

use crate::domain::action::ActionId;
use crate::domain::attention::{AttentionKind, attention};
use crate::domain::fixtures::blockers::{
    self, ALERT_CEPH, ALERT_KUBE, PLAN, StepAt, WAITING, completed, in_progress,
};
use crate::domain::fixtures::{self, at};
use crate::domain::history::History;
use crate::domain::objects::{Object, Snapshot, StepStatus};
use std::sync::Arc;

fn done() -> StepAt {
    completed(at("08:00"), at("08:30"))
}

/// The fixture cluster mid-update (three older items in its queue) with
/// the plan as given.
fn mid_update_with(steps: [StepAt; 4], status: Option<StepStatus>) -> Snapshot {
    let mut snap = fixtures::mid_update();
    snap.apply(Object::UpdatePlan(Arc::new(blockers::update_plan(
        steps, status,
    ))));
    snap
}

fn auto_paused(firing: &[&str]) -> Snapshot {
    let mut snap = mid_update_with(
        [
            done(),
            done(),
            done(),
            (false, Some(StepStatus::AutoPaused), Some(at("09:18")), None),
        ],
        Some(StepStatus::AutoPaused),
    );
    snap.apply(Object::UpdateAutoPause(Arc::new(blockers::auto_pause(
        firing,
    ))));
    snap
}

#[test]
fn auto_pause_is_the_first_item_and_names_the_alerts_and_the_way_out() {
    let items = attention(
        &auto_paused(&[ALERT_CEPH, ALERT_KUBE]),
        &History::new(),
        fixtures::mid_update_now(),
    );
    assert!(items.len() > 1, "the mid-update items are there too");
    let first = &items[0];
    assert_eq!(first.kind, AttentionKind::AutoPaused);
    assert_eq!(first.subject, PLAN);
    assert_eq!(
        first.why,
        "alerts firing: CephClusterHealthCritical, KubeNodeNotReady (step 4 \"k8s-workers\" paused); to resume: let the alerts clear (fix the cause, or remove the alert from spec.alerts of UpdateAutoPause child-cl), then commence step 4 \"k8s-workers\" again"
    );
    assert_eq!(
        items
            .iter()
            .filter(|i| i.kind == AttentionKind::AutoPaused)
            .count(),
        1
    );
    // Older items come after it, in their order.
    assert!(items[1].since < first.since);
}

#[test]
fn auto_pause_without_recorded_alerts_says_so() {
    let items = attention(
        &auto_paused(&[]),
        &History::new(),
        fixtures::mid_update_now(),
    );
    assert_eq!(items[0].kind, AttentionKind::AutoPaused);
    assert!(
        items[0]
            .why
            .starts_with("no firing alert recorded in UpdateAutoPause child-cl now (step 4"),
        "{}",
        items[0].why
    );
    assert!(
        items[0]
            .why
            .ends_with("; to resume: commence step 4 \"k8s-workers\" again"),
        "{}",
        items[0].why
    );
    // Only the commence is left to do: the item offers it.
    assert_eq!(items[0].action, Some(ActionId::CommenceStep));
    // While alerts fire, commencing would not resume: no action offered.
    let firing = attention(
        &auto_paused(&[ALERT_KUBE]),
        &History::new(),
        fixtures::mid_update_now(),
    );
    assert_eq!(firing[0].action, None);
}

#[test]
fn a_step_past_its_estimate_says_how_far_over() {
    let now = fixtures::mid_update_now(); // 10:30
    let snap = mid_update_with([done(), done(), done(), in_progress(at("09:18"))], None);
    let items = attention(&snap, &History::new(), now);
    let over: Vec<_> = items
        .iter()
        .filter(|i| i.kind == AttentionKind::StepOverEstimate)
        .collect();
    assert_eq!(over.len(), 1, "{items:#?}");
    assert_eq!(
        over[0].why,
        "step 4 \"k8s-workers\" runs 1h12m, 42m over its ~30m estimate"
    );
    assert_eq!(over[0].since, at("09:48"));
    // Within its estimate: no item.
    let snap = mid_update_with([done(), done(), done(), in_progress(at("10:10"))], None);
    let items = attention(&snap, &History::new(), now);
    assert!(
        items
            .iter()
            .all(|i| i.kind != AttentionKind::StepOverEstimate),
        "{items:#?}"
    );
}

#[test]
fn paused_before_a_step_waits_for_commence_with_the_commence_action() {
    let snap = mid_update_with(
        [
            done(),
            completed(at("08:30"), at("09:02")),
            WAITING,
            WAITING,
        ],
        None,
    );
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    let waiting: Vec<_> = items
        .iter()
        .filter(|i| i.kind == AttentionKind::WaitingForCommence)
        .collect();
    assert_eq!(waiting.len(), 1, "{items:#?}");
    assert_eq!(
        waiting[0].why,
        "the update is paused before step 3 \"k8s-controllers\": it waits for commence (Update host OS and Kubernetes components on master nodes; impact on workloads minor, estimated ~30m)"
    );
    assert_eq!(waiting[0].action, Some(ActionId::CommenceStep));
    assert_eq!(waiting[0].since, at("09:02"));
}

#[test]
fn no_plan_item_when_not_started_running_on_time_or_done() {
    let now = fixtures::mid_update_now();
    for steps in [
        [WAITING; 4],
        [done(), done(), done(), in_progress(at("10:10"))],
        [done(), done(), done(), done()],
    ] {
        let items = attention(&mid_update_with(steps.clone(), None), &History::new(), now);
        assert!(
            items.iter().all(|i| !matches!(
                i.kind,
                AttentionKind::AutoPaused
                    | AttentionKind::StepOverEstimate
                    | AttentionKind::WaitingForCommence
            )),
            "{steps:?}: {items:#?}"
        );
    }
}

#[test]
fn the_auto_pause_is_dated_from_when_the_console_saw_the_plan_pause() {
    let paused = auto_paused(&[ALERT_KUBE]);
    let plan_key = paused
        .update_plans()
        .next()
        .map(|p| Object::UpdatePlan(Arc::new(p.clone())).key())
        .unwrap();
    let running = mid_update_with(
        [done(), done(), done(), in_progress(at("09:18"))],
        Some(StepStatus::InProgress),
    );
    let mut history = History::new();
    let mut snap = Snapshot::default();
    let Some(Object::UpdatePlan(p)) = running.objects().get(&plan_key).cloned() else {
        panic!("plan")
    };
    history.apply(&mut snap, Object::UpdatePlan(p), at("09:00"));
    let Some(Object::UpdatePlan(p)) = paused.objects().get(&plan_key).cloned() else {
        panic!("plan")
    };
    history.apply(&mut snap, Object::UpdatePlan(p), at("09:20"));
    let items = attention(&paused, &history, fixtures::mid_update_now());
    assert_eq!(items[0].kind, AttentionKind::AutoPaused);
    assert_eq!(items[0].since, at("09:20"), "dated from the status change");
    // Seen already paused: from when the plan was first seen.
    let mut first = History::new();
    let mut snap = Snapshot::default();
    let Some(Object::UpdatePlan(p)) = paused.objects().get(&plan_key).cloned() else {
        panic!("plan")
    };
    first.apply(&mut snap, Object::UpdatePlan(p), at("09:25"));
    let items = attention(&paused, &first, fixtures::mid_update_now());
    assert_eq!(items[0].since, at("09:25"));
}
