//! Snapshots of each dialog at 80x24 (text only; focus is visible as text).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::app::actions;
use crate::app::actions::access::{AccessKey, AccessVerdict, all_keys};
use crate::app::actions::dialog::{ConfirmDialog, Dialog, RunningAction};
use crate::app::actions::plan::{self, PlanContext};
use crate::app::model::{Model, SessionInfo};
use crate::app::msg::Msg;
use crate::app::update::update;
use crate::cluster::writes::WriteEvent;
use crate::config::keymap::Keymap;
use crate::config::theme::Theme;
use crate::domain::action::ActionId;
use crate::domain::action::run::{RunOutcome, StepStatus};
use crate::domain::fixtures::{self, names::*};

fn model(dry_run: bool) -> Model {
    let session = SessionInfo {
        mosk_context: "sim-mosk".into(),
        dry_run,
        ..SessionInfo::default()
    };
    let mut m = Model::new(
        session,
        Keymap::default_keymap(),
        fixtures::mid_update_now(),
    );
    m.snapshot = fixtures::mid_update();
    for k in all_keys("child-ns") {
        m.actions.access.record(k, AccessVerdict::Allowed, m.now);
    }
    m
}

fn ctx(m: &Model) -> PlanContext {
    PlanContext {
        mosk_context: m.session.mosk_context.clone(),
        dry_run: m.session.dry_run,
    }
}

fn render(m: &Model) -> String {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let theme = Theme::load("mono").unwrap();
    t.draw(|f| super::draw(f, f.area(), m, &theme)).unwrap();
    format!("{}", t.backend())
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

#[test]
fn migration_picker_one_node() {
    let mut m = model(false);
    m.selected_nodes_mut().insert(NODE_W3.into());
    update(&mut m, key(KeyCode::Char('m')));
    assert!(matches!(m.modals.dialog(), Some(Dialog::MigrationMode(_))));
    let screen = render(&m);
    assert!(
        screen.contains("(*) manual"),
        "current value preselected:\n{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn migration_picker_refuses_bad_attempts() {
    let mut m = model(false);
    m.selected_nodes_mut().insert(NODE_W1.into());
    m.selected_nodes_mut().insert(NODE_W2.into());
    update(&mut m, key(KeyCode::Char('m')));
    update(&mut m, key(KeyCode::Tab));
    for c in "250".chars() {
        update(&mut m, key(KeyCode::Char(c)));
    }
    update(&mut m, key(KeyCode::Enter));
    let screen = render(&m);
    assert!(screen.contains("whole number from 1 to 100"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn confirm_set_mode_on_several_nodes() {
    let mut m = model(false);
    let nodes = [NODE_W1.to_string(), NODE_W2.to_string()];
    let p = plan::plan_set_mode(
        &m.snapshot,
        &ctx(&m),
        &nodes,
        &crate::domain::objects::MigrationMode::Manual,
        Some(5),
    )
    .unwrap();
    m.modals.open_dialog(Dialog::Confirm(ConfirmDialog::new(p)));
    let screen = render(&m);
    assert!(screen.contains("[> Cancel <]"), "Cancel focused:\n{screen}");
    assert!(screen.contains("sim-mosk"));
    insta::assert_snapshot!(screen);
}

#[test]
fn confirm_in_dry_run_says_so() {
    let mut m = model(true);
    let p = plan::plan_set_mode(
        &m.snapshot,
        &ctx(&m),
        &[NODE_W4.into()],
        &crate::domain::objects::MigrationMode::Skip,
        None,
    )
    .unwrap();
    m.modals.open_dialog(Dialog::Confirm(ConfirmDialog::new(p)));
    let screen = render(&m);
    assert!(
        screen.contains("DRY-RUN") && screen.contains("dryRun=All"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn acknowledge_lists_the_servers() {
    let mut m = model(false);
    m.selected_nodes_mut().insert(NODE_W2.into());
    update(&mut m, key(KeyCode::Char('a')));
    let screen = render(&m);
    assert!(
        screen.contains(SERVER_A) && screen.contains(SERVER_B),
        "{screen}"
    );
    assert!(screen.contains("-> skip"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn restart_warns_about_a_node_under_maintenance() {
    let mut m = model(false);
    m.selected_nodes_mut().insert(NODE_W2.into());
    update(&mut m, key(KeyCode::Char('R')));
    let screen = render(&m);
    assert!(screen.contains("NodeMaintenanceRequest"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn restart_all_progress_running_and_failed() {
    let mut m = model(false);
    let p = plan::plan_restart_all(&m.snapshot, &ctx(&m)).unwrap();
    let id = p.id;
    m.actions.running = Some(RunningAction::new(p));
    m.modals.open_dialog(Dialog::Progress);
    actions::on_event(
        &mut m,
        WriteEvent::Step {
            plan_id: id,
            index: 0,
            status: StepStatus::Done(
                "replaced by tf-vrouter-agent-x1x1x (generation 2), Ready".into(),
            ),
        },
    );
    actions::on_event(
        &mut m,
        WriteEvent::Step {
            plan_id: id,
            index: 1,
            status: StepStatus::Waiting(format!(
                "deleted; waiting for the replacement on {NODE_W3} to be Ready"
            )),
        },
    );
    insta::assert_snapshot!("restart_all_progress_running", render(&m));
    actions::on_event(
        &mut m,
        WriteEvent::Step {
            plan_id: id,
            index: 1,
            status: StepStatus::Failed(
                "the replacement vRouter pod was not Ready within 300s".into(),
            ),
        },
    );
    actions::on_event(
        &mut m,
        WriteEvent::Step {
            plan_id: id,
            index: 2,
            status: StepStatus::NotSent("stopped at the first failure".into()),
        },
    );
    actions::on_event(
        &mut m,
        WriteEvent::Finished {
            plan_id: id,
            outcome: RunOutcome::Failed {
                message: "the replacement vRouter pod was not Ready within 300s".into(),
            },
        },
    );
    let screen = render(&m);
    assert!(
        screen.contains("FAILED") && screen.contains("not sent"),
        "{screen}"
    );
    insta::assert_snapshot!("restart_all_progress_failed", screen);
}

#[test]
fn forbidden_action_is_shown_unavailable_with_the_reason() {
    let mut m = model(false);
    m.actions.access.record(
        AccessKey::for_action(ActionId::RestartVrouter, "child-ns"),
        AccessVerdict::Denied("denied by test-policy".into()),
        m.now,
    );
    let p = plan::plan_restart(&m.snapshot, &ctx(&m), &[NODE_W4.into()]).unwrap();
    m.modals.open_dialog(Dialog::Confirm(ConfirmDialog::new(p)));
    let screen = render(&m);
    assert!(
        screen.contains("unavailable: your RBAC does not allow delete pods in tf"),
        "{screen}"
    );
    assert!(screen.contains("[  unavailable  ]"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn an_unanswered_review_is_shown_as_not_verified_and_confirmable() {
    let mut m = model(false);
    m.actions.access.record(
        AccessKey::for_action(ActionId::AcknowledgeMigration, "child-ns"),
        AccessVerdict::Unknown("the server's review had no status".into()),
        m.now,
    );
    let p = plan::plan_acknowledge(&m.snapshot, &m.history, &ctx(&m), &[NODE_W2.into()]).unwrap();
    m.modals.open_dialog(Dialog::Confirm(ConfirmDialog::new(p)));
    let screen = render(&m);
    assert!(
        screen.contains("permission not verified: the server will decide"),
        "{screen}"
    );
    assert!(screen.contains("[  Confirm  ]"), "{screen}");
    assert!(!screen.contains("unavailable"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn quit_with_a_write_in_flight_asks_and_names_it() {
    let mut m = model(false);
    let p = plan::plan_restart_all(&m.snapshot, &ctx(&m)).unwrap();
    let id = p.id;
    m.actions.running = Some(RunningAction::new(p));
    m.modals.open_dialog(Dialog::Progress);
    actions::on_event(
        &mut m,
        WriteEvent::Step {
            plan_id: id,
            index: 0,
            status: StepStatus::Waiting(format!(
                "deleted; waiting for the replacement on {NODE_W3} to be Ready"
            )),
        },
    );
    update(&mut m, key(KeyCode::Char('q')));
    assert!(!m.quit);
    let screen = render(&m);
    assert!(
        screen.contains("a write is in flight: quit anyway? y/n"),
        "{screen}"
    );
    assert!(screen.contains("(waiting)"), "{screen}");
    insta::assert_snapshot!(screen);
}
