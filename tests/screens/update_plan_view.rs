//! The update plan view (`:plan`), the Overview's update plan line, and the
//! commence dialog, drawn from fixed models (`domain::fixtures::update_plan`)
//! at 80x24 and 160x48. Update snapshots with `INSTA_UPDATE=always cargo
//! test --test screens update_plan_view` and read every changed `.snap` first.

use crate::domain::fixtures::update_plan::{self as up, PLAN_NAME, RELEASE_NOTES};
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jiff::SignedDuration;
use mosk_console::app::actions::access::{AccessVerdict, all_keys};
use mosk_console::app::actions::dialog::Dialog;
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::{Command, Msg};
use mosk_console::app::update::update;
use mosk_console::cluster::events::WatchHealth;
use mosk_console::domain::action::ActionId;
use mosk_console::domain::objects::{Kind, Object, StepStatus, UpdateAutoPause, UpdatePlan};
use std::sync::Arc;

fn with_plan(view: View, plan: UpdatePlan) -> Model {
    let mut m = with_view(view);
    m.snapshot.apply(Object::UpdatePlan(Arc::new(plan)));
    for k in all_keys("child-ns") {
        m.actions.access.record(k, AccessVerdict::Allowed, m.now);
    }
    m
}

fn screen(m: &Model, w: u16, h: u16) -> String {
    text_of(render(m, w, h).backend().buffer())
}

fn snap_both(name: &str, model: &Model) {
    for (w, h) in [(80, 24), (160, 48)] {
        let t = render(model, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), t.backend());
    }
}

fn key(m: &mut Model, code: KeyCode) -> Vec<Command> {
    // Keys act on what the last frame showed, as in the runtime.
    let theme = mosk_console::config::theme::Theme::default_theme();
    let mut drawn = m.clone();
    settled(&mut drawn);
    let report = mosk_console::ui::report_at(&drawn, &theme, 80, 24);
    update(m, Msg::Drawn(report));
    update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn type_text(m: &mut Model, text: &str) -> Vec<Command> {
    text.chars()
        .flat_map(|c| key(m, KeyCode::Char(c)))
        .collect()
}

/// Paused before step 2 "ceph": step 1 done, the rest not commenced.
fn paused_model() -> Model {
    with_plan(View::UpdatePlan, up::paused_before(1))
}

#[test]
fn paused_plan_view() {
    let m = paused_model();
    snap_both("paused", &m);
    let s = screen(&m, 80, 24);
    for needle in [
        "mosk-17-3-0-24-3 -> mosk-17-4-0-25-1",
        RELEASE_NOTES,
        "update plan: paused before step 2 \"ceph\" (waiting for commence)",
        "(waiting for commence)  c: commence",
        "2 ◇",
        "waits for commence",
        "k8s-workers",
        "done in 40m (est. 1h00m)",
    ] {
        assert!(s.contains(needle), "{needle:?} missing at 80x24:\n{s}");
    }
    let wide = screen(&m, 160, 48);
    for needle in [
        "Update OpenStack and Tungsten Fabric",
        "minor/minor",
        "none/major",
        "~3h00m",
        "Do not create or change cloud resources (write freeze).",
    ] {
        assert!(
            wide.contains(needle),
            "{needle:?} missing at 160x48:\n{wide}"
        );
    }
}

#[test]
fn a_step_over_its_estimate_says_by_how_much() {
    let started = now() - SignedDuration::from_mins(42);
    let m = with_plan(View::UpdatePlan, up::running(1, started));
    snap_both("running_over", &m);
    let s = screen(&m, 80, 24);
    assert!(s.contains("2 ▶"), "{s}");
    assert!(s.contains("running 42m of ~30m est. (+12m over)"), "{s}");
    assert!(s.contains("update plan: running step 2 \"ceph\""), "{s}");
    assert!(
        s.contains("3 ◇"),
        "the next step still waits for commence:\n{s}"
    );
}

#[test]
fn odd_values_are_shown_as_the_plan_has_them() {
    let mut plan = up::paused_before(1);
    plan.steps[1].estimated = None;
    plan.steps[1].estimated_raw = Some("soon".into());
    plan.steps[2].estimated = None;
    plan.steps[2].commence_present = false;
    plan.steps[3].status = Some(StepStatus::Other("Scheduled".into()));
    plan.steps[3].id = None;
    let m = with_plan(View::UpdatePlan, plan);
    let s = screen(&m, 160, 48);
    for needle in [
        "soon (unread)",
        "no estimate",
        "removed",
        "Scheduled",
        "(no id)",
    ] {
        assert!(s.contains(needle), "{needle:?} missing:\n{s}");
    }
}

#[test]
fn selecting_a_step_shows_its_detail_at_80x24() {
    let mut m = paused_model();
    for _ in 0..3 {
        key(&mut m, KeyCode::Char('j'));
    }
    let s = screen(&m, 80, 24);
    assert!(s.contains("Step 4: k8s-workers"), "{s}");
    assert!(
        s.contains("users none, workloads major"),
        "the selected step's impact is in its detail:\n{s}"
    );
    insta::assert_snapshot!("selected_step_4_80x24", render(&m, 80, 24).backend());
}

#[test]
fn no_plan_and_missing_crd_are_said_as_such() {
    let m = with_view(View::UpdatePlan);
    let s = screen(&m, 80, 24);
    assert!(
        s.contains("no ClusterUpdatePlan for child-cl: the management cluster's MCC may"),
        "{s}"
    );
    let mut m = with_view(View::UpdatePlan);
    m.missing_kinds.insert(
        Kind::ClusterUpdatePlan,
        "The ClusterUpdatePlan CRD is not installed".into(),
    );
    let s = screen(&m, 80, 24);
    assert!(
        s.contains("ClusterUpdatePlan is not served by the mgmt cluster"),
        "{s}"
    );
    // The Overview has no update plan line without a plan.
    let s = screen(&with_view(View::Overview), 80, 24);
    assert!(!s.contains("update plan:"), "{s}");
}

#[test]
fn stale_plan_data_is_marked() {
    let mut m = paused_model();
    m.health.insert(
        Kind::ClusterUpdatePlan,
        WatchHealth {
            cluster: Kind::ClusterUpdatePlan.cluster(),
            connected: false,
            last_event: Some(ago(60)),
            last_error: Some("connection refused".into()),
            retry_at: None,
            problem: Default::default(),
        },
    );
    let s = screen(&m, 80, 24);
    assert!(s.contains("STALE: mgmt API unreachable"), "{s}");
}

#[test]
fn overview_says_where_the_plan_stands() {
    let m = with_plan(View::Overview, up::paused_before(1));
    let s = screen(&m, 80, 24);
    assert!(
        s.contains("update plan: paused before step 2 \"ceph\" (waiting for commence)"),
        "{s}"
    );
    snap_both("overview_paused", &m);
    let mut plan = up::running(3, now() - SignedDuration::from_mins(10));
    plan.steps[3].status = Some(StepStatus::AutoPaused);
    plan.status = Some(StepStatus::AutoPaused);
    let mut m = with_plan(View::Overview, plan);
    m.snapshot
        .apply(Object::UpdateAutoPause(Arc::new(UpdateAutoPause {
            name: "child-cl".into(),
            namespace: "child-ns".into(),
            alerts: vec!["KubeNodeNotReady".into()],
            firing: vec!["KubeNodeNotReady".into()],
        })));
    let s = screen(&m, 80, 24);
    assert!(
        s.contains("update plan: AUTO-PAUSED in step 4 \"k8s-workers\" by KubeNodeNotReady"),
        "{s}"
    );
    let m = with_plan(View::Overview, {
        let mut p = up::paused_before(4);
        p.status = Some(StepStatus::Completed);
        p
    });
    assert!(screen(&m, 80, 24).contains("update plan: done"));
}

#[test]
fn commence_dialog_minor_step() {
    let mut m = paused_model();
    key(&mut m, KeyCode::Char('c'));
    assert!(
        matches!(m.modals.dialog(), Some(Dialog::Confirm(_))),
        "{:?}",
        m.notice()
    );
    insta::assert_snapshot!("commence_minor_80x24", render(&m, 80, 24).backend());
    let s = screen(&m, 80, 24);
    for needle in [
        ActionId::CommenceStep.label(),
        &format!("ClusterUpdatePlan/child-ns/{PLAN_NAME}"),
        "step 2 (id ceph): Update Ceph",
        "users none, workloads minor",
        "~30m",
        "spec.steps[1].commence: false -> true",
    ] {
        assert!(s.contains(needle), "{needle:?} missing:\n{s}");
    }
    // y confirms a minor step.
    let cmds = key(&mut m, KeyCode::Char('y'));
    assert!(
        cmds.iter().any(|c| matches!(c, Command::Execute(_))),
        "{cmds:?}"
    );
}

#[test]
fn commence_dialog_major_step_needs_the_name() {
    let mut m = with_plan(View::UpdatePlan, up::paused_before(3));
    key(&mut m, KeyCode::Char('c'));
    insta::assert_snapshot!("commence_major_80x24", render(&m, 80, 24).backend());
    let s = screen(&m, 80, 24);
    assert!(s.contains("workloads major"), "{s}");
    assert!(s.contains("Type the step's name to confirm"), "{s}");
    // y and Enter without the name send nothing.
    let mut cmds = key(&mut m, KeyCode::Char('y'));
    cmds.extend(key(&mut m, KeyCode::Enter));
    cmds.extend(type_text(&mut m, "k8s-workers"));
    cmds.extend(key(&mut m, KeyCode::Enter));
    assert!(
        !cmds.iter().any(|c| matches!(c, Command::Execute(_))),
        "{cmds:?}"
    );
    let Some(Dialog::Confirm(c)) = m.modals.dialog() else {
        panic!("the dialog stays open: {:?}", m.modals.dialog())
    };
    assert!(
        c.error
            .as_deref()
            .unwrap_or("")
            .contains("type the step's name")
    );
    // Clear the field, type the name, Enter.
    for _ in 0.."yk8s-workers".len() {
        key(&mut m, KeyCode::Backspace);
    }
    type_text(
        &mut m,
        "Update host OS and Kubernetes components on worker nodes",
    );
    let cmds = key(&mut m, KeyCode::Enter);
    assert!(
        cmds.iter().any(|c| matches!(c, Command::Execute(_))),
        "{cmds:?}"
    );
}

#[test]
fn the_first_visit_selects_the_step_that_runs_or_waits() {
    let mut m = with_plan(View::Overview, up::paused_before(2));
    key(&mut m, KeyCode::Char('0'));
    assert_eq!(m.view, View::UpdatePlan);
    let s = screen(&m, 80, 24);
    assert!(s.contains("Step 3: k8s-controllers"), "{s}");
    let mut m = with_plan(View::Overview, up::running(1, now()));
    key(&mut m, KeyCode::Char(':'));
    type_text(&mut m, "plan");
    key(&mut m, KeyCode::Enter);
    assert_eq!(m.view, View::UpdatePlan);
    assert!(screen(&m, 80, 24).contains("Step 2: ceph"));
}

#[test]
fn commence_is_offered_only_where_the_step_is_shown() {
    let mut m = with_plan(View::Machines, up::paused_before(1));
    key(&mut m, KeyCode::Char('c'));
    assert!(m.modals.dialog().is_none());
    let mut m = with_plan(View::Overview, up::paused_before(1));
    key(&mut m, KeyCode::Char('c'));
    assert!(matches!(m.modals.dialog(), Some(Dialog::Confirm(_))));
    // Every step commenced: nothing to commence.
    let mut plan = up::running(3, now());
    plan.steps.iter_mut().for_each(|s| s.commence = true);
    let mut m = with_plan(View::UpdatePlan, plan);
    key(&mut m, KeyCode::Char('c'));
    assert!(m.modals.dialog().is_none());
    assert!(
        m.notice()
            .as_ref()
            .is_some_and(|n| n.text.contains("already commenced")),
        "{:?}",
        m.notice()
    );
}
