//! The update plan in the attention queue and beside the phase, driven by
//! watch events the way the cluster layer sends them: auto-paused by an
//! alert (the queue's first item names it and says what resumes the
//! update), the alert cleared (the pause stays until the step is commenced
//! again), the step commenced (the item goes; the step is over its
//! estimate). Screens are insta snapshots of the Overview's attention pane.

#[path = "support/domain.rs"]
mod domain;
mod sim_snapshot;
mod ui_support;

use crate::domain::fixtures::at;
use crate::domain::fixtures::blockers::{self, ALERT_CEPH, StepAt, completed};
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::domain::attention::AttentionKind;
use mosk_console::domain::objects::{Object, StepStatus};
use mosk_console::domain::phase::Phase;
use std::sync::Arc;
use ui_support::*;

fn done() -> StepAt {
    completed(at("08:00"), at("08:30"))
}

fn apply(model: &mut Model, obj: Object) {
    update(model, Msg::Cluster(ClusterEvent::Applied(obj)));
}

/// The plan with step 4 ("k8s-workers", started 09:18) as given.
fn plan(step4: StepAt, status: Option<StepStatus>) -> Object {
    Object::UpdatePlan(Arc::new(blockers::update_plan(
        [done(), done(), done(), step4],
        status,
    )))
}

/// The attention pane's rows of the Overview at 160x48 (its left column),
/// without its empty rows.
fn attention_pane(model: &Model) -> String {
    let t = render(model, 160, 48);
    let text = text_of(t.backend().buffer());
    let rows: Vec<&str> = text.lines().collect();
    let start = rows
        .iter()
        .position(|r| r.starts_with("┌ Attention"))
        .unwrap_or_else(|| panic!("no attention pane:\n{text}"));
    let end = start
        + rows[start..]
            .iter()
            .position(|r| r.starts_with('└'))
            .expect("pane bottom");
    rows[start..=end]
        .iter()
        .map(|r| {
            r.chars()
                .take(88)
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        // The pane's empty rows say nothing.
        .filter(|r| !r.trim_matches(|c: char| c == '│' || c == ' ').is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn kinds(model: &Model) -> Vec<AttentionKind> {
    model.derived.attention.iter().map(|i| i.kind).collect()
}

#[test]
fn auto_pause_appears_first_then_clears_with_the_commence() {
    let mut model = with_view(View::Overview);
    settled(&mut model);
    assert!(!kinds(&model).contains(&AttentionKind::AutoPaused));

    // The alert fires: the plan is auto-paused in step 4, commence removed.
    apply(
        &mut model,
        Object::UpdateAutoPause(Arc::new(blockers::auto_pause(&[ALERT_CEPH]))),
    );
    apply(
        &mut model,
        plan(
            (false, Some(StepStatus::AutoPaused), Some(at("09:18")), None),
            Some(StepStatus::AutoPaused),
        ),
    );
    assert_eq!(kinds(&model)[0], AttentionKind::AutoPaused);
    let first = &model.derived.attention[0];
    assert!(
        first
            .why
            .starts_with("alerts firing: CephClusterHealthCritical (step 4"),
        "{}",
        first.why
    );
    assert!(
        first.why.contains(
            "remove the alert from spec.alerts of UpdateAutoPause child-cl), then commence step 4 \"k8s-workers\" again"
        ),
        "{}",
        first.why
    );
    let phase = model.derived.phase.clone().expect("phase");
    assert_eq!(phase.phase, Phase::Workers);
    assert_eq!(
        phase.step.as_deref(),
        Some("step 4/4 \"k8s-workers\" AUTO-PAUSED (CephClusterHealthCritical)")
    );
    insta::assert_snapshot!("1_auto_paused", attention_pane(&model));
    // The way out is read whole on a small terminal too, not cut to one line.
    let small = text_of(render(&model, 80, 24).backend().buffer());
    let flat: String = small
        .lines()
        .map(|l| l.trim_matches(|c: char| c == '│' || c == ' '))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("then commence step 4 \"k8s-workers\" again"),
        "{small}"
    );

    // The alert clears: the plan stays paused until the step is commenced.
    apply(
        &mut model,
        Object::UpdateAutoPause(Arc::new(blockers::auto_pause(&[]))),
    );
    assert_eq!(kinds(&model)[0], AttentionKind::AutoPaused);
    assert!(
        model.derived.attention[0]
            .why
            .contains("no firing alert recorded in UpdateAutoPause child-cl now"),
        "{}",
        model.derived.attention[0].why
    );
    insta::assert_snapshot!("2_alert_cleared", attention_pane(&model));

    // Step 4 commenced again: running, no auto-pause item; it is now past
    // its estimate (09:18 + 30m, now 10:30).
    apply(
        &mut model,
        plan(
            (true, Some(StepStatus::InProgress), Some(at("09:18")), None),
            Some(StepStatus::InProgress),
        ),
    );
    assert!(!kinds(&model).contains(&AttentionKind::AutoPaused));
    let over: Vec<&str> = model
        .derived
        .attention
        .iter()
        .filter(|i| i.kind == AttentionKind::StepOverEstimate)
        .map(|i| i.why.as_str())
        .collect();
    assert_eq!(
        over,
        vec!["step 4 \"k8s-workers\" runs 1h12m, 42m over its ~30m estimate"]
    );
    assert_eq!(
        model.derived.phase.clone().expect("phase").step.as_deref(),
        Some("step 4/4 \"k8s-workers\" running")
    );
    insta::assert_snapshot!("3_commenced", attention_pane(&model));
}

#[test]
fn paused_before_a_step_is_an_item_waiting_for_commence() {
    let mut model = with_view(View::Overview);
    apply(
        &mut model,
        Object::UpdatePlan(Arc::new(blockers::update_plan(
            [done(), done(), done(), blockers::WAITING],
            None,
        ))),
    );
    let waiting: Vec<_> = model
        .derived
        .attention
        .iter()
        .filter(|i| i.kind == AttentionKind::WaitingForCommence)
        .collect();
    assert_eq!(waiting.len(), 1);
    assert!(
        waiting[0].why.starts_with(
            "the update is paused before step 4 \"k8s-workers\": it waits for commence"
        ),
        "{}",
        waiting[0].why
    );
    let phase = model.derived.phase.clone().expect("phase");
    assert_eq!(phase.phase, Phase::Masters, "{phase:?}");
    assert!(
        phase
            .reason
            .starts_with("paused before step 4/4 \"k8s-workers\" (waiting for commence)"),
        "{phase:?}"
    );
    let pane = attention_pane(&model);
    assert!(pane.contains("waiting for commence"), "{pane}");
    // The item offers the update plan view's commence action by its key.
    assert!(pane.contains("[c: commence step]"), "{pane}");
    assert!(pane.contains(blockers::PLAN), "{pane}");
}

mod against_the_simulator {
    //! The `plan` scenario served by the simulator: the plan and the
    //! UpdateAutoPause converted the way the watchers convert them; steps
    //! commenced by a JSON patch over HTTP; the auto-pause item appears when
    //! the alert fires in the worker step, stays (saying no firing alert is recorded now)
    //! when the alert clears, and goes once the step is commenced again.

    use jiff::SignedDuration;
    use mosk_console::domain::attention::{AttentionItem, AttentionKind, attention};
    use mosk_console::domain::history::History;
    use mosk_console::domain::objects::Snapshot;
    use mosk_console::domain::update_plan::{self, PlanState};
    use mosk_console::sim::scenario::load::load_scenario;
    use mosk_console::sim::world::SimWorld;
    use serde_json::json;

    use crate::sim_snapshot::snapshot;

    async fn commence(world: &SimWorld, snap: &Snapshot, step: usize) {
        use tower::ServiceExt;
        let p = update_plan::active_plan(snap, None).expect("plan");
        let path = format!(
            "/apis/kaas.mirantis.com/v1alpha1/namespaces/{}/clusterupdateplans/{}",
            p.namespace, p.name
        );
        let patch =
            json!([{"op": "add", "path": format!("/spec/steps/{step}/commence"), "value": true}]);
        let req = axum::http::Request::builder()
            .method("PATCH")
            .uri(path)
            .header("content-type", "application/json-patch+json")
            .body(axum::body::Body::from(patch.to_string()))
            .unwrap();
        let resp = world.mgmt_router().oneshot(req).await.unwrap();
        assert_eq!(resp.status(), 200);
    }

    fn auto_pause_item(snap: &Snapshot, world: &SimWorld) -> Option<AttentionItem> {
        let items = attention(snap, &History::new(), world.now());
        let found = items
            .iter()
            .position(|i| i.kind == AttentionKind::AutoPaused);
        if let Some(i) = found {
            assert_eq!(i, 0, "the auto-pause is the first item: {items:#?}");
        }
        found.map(|i| items[i].clone())
    }

    #[tokio::test(start_paused = true)]
    async fn auto_pause_appears_clears_and_goes_with_the_commence() {
        let world = SimWorld::new(load_scenario("plan").unwrap(), 7);
        let mut fired: Option<AttentionItem> = None;
        let mut cleared: Option<AttentionItem> = None;
        for _ in 0..5000 {
            let snap = snapshot(&world);
            let p = update_plan::active_plan(&snap, None).expect("the plan scenario has a plan");
            let state = update_plan::state(p, update_plan::auto_pause_for(&snap, p));
            match state {
                PlanState::NotStarted => commence(&world, &snap, 0).await,
                PlanState::PausedBefore { next } => commence(&world, &snap, next).await,
                PlanState::AutoPaused { step, alerts } if !alerts.is_empty() => {
                    let item = auto_pause_item(&snap, &world).expect("an auto-pause item");
                    for a in &alerts {
                        assert!(item.why.contains(a.as_str()), "{a} not named: {}", item.why);
                    }
                    assert!(step.is_some());
                    fired.get_or_insert(item);
                }
                PlanState::AutoPaused { step, .. } => {
                    let item = auto_pause_item(&snap, &world).expect("still paused");
                    assert!(
                        item.why
                            .starts_with("no firing alert recorded in UpdateAutoPause "),
                        "{}",
                        item.why
                    );
                    cleared = Some(item);
                    commence(&world, &snap, step.expect("the paused step")).await;
                    // The plan's status follows once the controller resumes.
                    let mut resumed = false;
                    for _ in 0..100 {
                        world.step(SignedDuration::from_secs(30));
                        let snap = snapshot(&world);
                        let p = update_plan::active_plan(&snap, None).expect("plan");
                        let state = update_plan::state(p, update_plan::auto_pause_for(&snap, p));
                        if matches!(state, PlanState::AutoPaused { .. }) {
                            assert!(auto_pause_item(&snap, &world).is_some());
                            continue;
                        }
                        assert!(
                            auto_pause_item(&snap, &world).is_none(),
                            "commenced and resumed ({state:?}): the item goes"
                        );
                        resumed = true;
                        break;
                    }
                    assert!(resumed, "the update resumed after the commence");
                    break;
                }
                PlanState::Running { .. } | PlanState::Failed { .. } | PlanState::Done => {}
            }
            world.step(SignedDuration::from_secs(30));
        }
        let fired = fired.expect("the alert fired during the worker step");
        let cleared = cleared.expect("the alert cleared and the update stayed paused");
        assert!(fired.why.contains("k8s-workers"), "{}", fired.why);
        assert!(
            cleared.why.contains("to resume: commence step"),
            "{}",
            cleared.why
        );
        assert!(
            fired.action.is_none(),
            "no commence offered while alerts fire"
        );
        assert!(
            cleared.action.is_some(),
            "the commence is offered once they clear"
        );
    }
}
