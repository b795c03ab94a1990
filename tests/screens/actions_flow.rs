//! The action dialogs driven through `update` with key messages: what opens,
//! what a key does, and which commands come out. No cluster here; the
//! executor tests (actions_sim.rs) cover what is sent.

use crate::domain::fixtures::{self, names::*};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::actions::access::{AccessKey, AccessVerdict, all_keys};
use mosk_console::app::actions::dialog::{Dialog, PickerFocus};
use mosk_console::app::actions::plan::Change;
use mosk_console::app::actions::{access::Availability, audit_rows, availability};
use mosk_console::app::model::{Model, SessionInfo};
use mosk_console::app::msg::{Command, Msg};
use mosk_console::app::update::update;
use mosk_console::audit::{AuditOutcome, AuditPhase, AuditRecord, PermissionCheck};
use mosk_console::cluster::writes::WriteEvent;
use mosk_console::config::keymap::Keymap;
use mosk_console::domain::action::ActionId;
use mosk_console::domain::action::run::{RunOutcome, StepStatus};
use mosk_console::domain::objects::MigrationMode;

fn model_with(read_only: bool, dry_run: bool) -> Model {
    let session = SessionInfo {
        mosk_context: "sim-mosk".into(),
        read_only,
        dry_run,
        ..SessionInfo::default()
    };
    let mut m = Model::new(
        session,
        Keymap::default_keymap(),
        fixtures::mid_update_now(),
    );
    m.snapshot = fixtures::mid_update();
    m
}

fn allowed(mut m: Model) -> Model {
    for k in all_keys("child-ns") {
        m.actions.access.record(k, AccessVerdict::Allowed, m.now);
    }
    m
}

/// A key, pressed after a frame was drawn (as the runtime does: keys act on
/// what the last frame showed).
fn press(m: &mut Model, code: KeyCode) -> Vec<Command> {
    let frame = mosk_console::ui::report_at(
        m,
        &mosk_console::config::theme::Theme::default_theme(),
        160,
        48,
    );
    update(m, Msg::Drawn(frame));
    update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn ch(m: &mut Model, c: char) -> Vec<Command> {
    press(m, KeyCode::Char(c))
}

fn executed(cmds: &[Command]) -> Vec<&mosk_console::app::actions::plan::ActionPlan> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::Execute(p) => Some(p),
            _ => None,
        })
        .collect()
}

#[test]
fn enter_on_the_default_button_cancels_and_sends_nothing() {
    let mut m = allowed(model_with(false, false));
    m.selected_nodes_mut().insert(NODE_W2.into());
    assert!(ch(&mut m, 'a').is_empty());
    assert!(matches!(m.modals.dialog(), Some(Dialog::Confirm(_))));
    let cmds = press(&mut m, KeyCode::Enter);
    assert!(executed(&cmds).is_empty());
    assert!(m.modals.dialog().is_none());
    assert!(m.actions.running.is_none());
    assert!(m.notice().unwrap().text.contains("cancelled, nothing sent"));
}

#[test]
fn n_and_esc_cancel_y_confirms() {
    for cancel in [KeyCode::Char('n'), KeyCode::Esc] {
        let mut m = allowed(model_with(false, false));
        m.selected_nodes_mut().insert(NODE_W2.into());
        ch(&mut m, 'a');
        assert!(executed(&press(&mut m, cancel)).is_empty());
        assert!(m.modals.dialog().is_none());
    }
    let mut m = allowed(model_with(false, false));
    m.selected_nodes_mut().insert(NODE_W2.into());
    ch(&mut m, 'a');
    let cmds = ch(&mut m, 'y');
    let plans = executed(&cmds);
    assert_eq!(plans.len(), 1);
    let plan = plans[0];
    assert_eq!(plan.action, ActionId::AcknowledgeMigration);
    assert_eq!(plan.context, "sim-mosk");
    assert_eq!(plan.steps[0].target.name, NODE_W2);
    assert_eq!(plan.steps[0].servers, vec![SERVER_A, SERVER_B]);
    assert!(matches!(m.modals.dialog(), Some(Dialog::Progress)));
    assert!(m.actions.busy());
}

#[test]
fn tab_then_enter_confirms_too() {
    let mut m = allowed(model_with(false, false));
    m.selected_nodes_mut().insert(NODE_W4.into());
    ch(&mut m, 'R');
    press(&mut m, KeyCode::Tab);
    let cmds = press(&mut m, KeyCode::Enter);
    assert_eq!(executed(&cmds).len(), 1);
}

#[test]
fn the_picker_plans_mode_and_attempts_for_every_selected_node() {
    let mut m = allowed(model_with(false, false));
    m.selected_nodes_mut().insert(NODE_W2.into());
    m.selected_nodes_mut().insert(NODE_W4.into());
    ch(&mut m, 'm');
    // Dialog keys come before the keymap: q does not quit, j moves the choice.
    ch(&mut m, 'q');
    assert!(!m.quit);
    ch(&mut m, 'j'); // live -> manual
    press(&mut m, KeyCode::Tab);
    match m.modals.dialog() {
        Some(Dialog::MigrationMode(p)) => assert_eq!(p.focus, PickerFocus::Attempts),
        other => panic!("{other:?}"),
    }
    for c in "x".chars() {
        ch(&mut m, c);
    }
    assert!(executed(&press(&mut m, KeyCode::Enter)).is_empty());
    match m.modals.dialog() {
        Some(Dialog::MigrationMode(p)) => {
            assert!(
                p.error
                    .as_deref()
                    .unwrap()
                    .contains("whole number from 1 to 100")
            )
        }
        other => panic!("refused, picker stays open: {other:?}"),
    }
    press(&mut m, KeyCode::Backspace);
    ch(&mut m, '4');
    assert!(
        executed(&press(&mut m, KeyCode::Enter)).is_empty(),
        "review first"
    );
    let Some(Dialog::Confirm(c)) = m.modals.dialog() else {
        panic!("{:?}", m.modals.dialog())
    };
    assert_eq!(c.plan.steps.len(), 2);
    for s in &c.plan.steps {
        let Change::Annotations { annotations } = &s.change else {
            panic!()
        };
        assert_eq!(annotations[0].key, MigrationMode::ANNOTATION);
        assert_eq!(annotations[0].new.as_deref(), Some("manual"));
        assert_eq!(annotations[1].new.as_deref(), Some("4"));
    }
    let plans = ch(&mut m, 'y');
    assert_eq!(executed(&plans).len(), 1);
}

#[test]
fn read_only_shows_actions_unavailable_and_never_asks_the_server() {
    let mut m = model_with(true, false);
    m.selected_nodes_mut().insert(NODE_W2.into());
    for c in ['m', 'a', 'R'] {
        assert!(ch(&mut m, c).is_empty());
        assert!(m.modals.dialog().is_none());
        assert!(m.notice().as_ref().unwrap().text.contains("read-only"));
    }
    let cmds = update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)),
    );
    assert!(cmds.is_empty());
    assert!(
        update(&mut m, Msg::Tick(fixtures::mid_update_now())).is_empty(),
        "no SSAR in read-only"
    );
    assert!(matches!(
        availability(&m, ActionId::SetMigrationMode),
        Availability::Unavailable(r) if r.contains("read-only")
    ));
}

#[test]
fn the_tick_asks_about_access_once_and_again_after_it_expires() {
    let mut m = model_with(false, false);
    let cmds = update(&mut m, Msg::Tick(fixtures::mid_update_now()));
    let Some(Command::CheckAccess(keys)) = cmds.first() else {
        panic!("{cmds:?}")
    };
    assert_eq!(keys, &all_keys("child-ns"));
    assert!(
        update(&mut m, Msg::Tick(fixtures::mid_update_now())).is_empty(),
        "in flight"
    );
    for k in all_keys("child-ns") {
        update(
            &mut m,
            Msg::Action(WriteEvent::Access {
                key: k,
                verdict: AccessVerdict::Allowed,
            }),
        );
    }
    assert_eq!(
        availability(&m, ActionId::RestartVrouter),
        Availability::Available
    );
    let later = m
        .now
        .checked_add(jiff::SignedDuration::from_secs(60))
        .unwrap();
    assert!(update(&mut m, Msg::Tick(later)).is_empty());
    let much_later = m
        .now
        .checked_add(jiff::SignedDuration::from_secs(400))
        .unwrap();
    assert!(matches!(
        update(&mut m, Msg::Tick(much_later)).first(),
        Some(Command::CheckAccess(_))
    ));
}

#[test]
fn a_forbidden_action_is_not_offered_and_says_why() {
    let mut m = allowed(model_with(false, false));
    m.actions.access.record(
        AccessKey::for_action(ActionId::RestartVrouter, "child-ns"),
        AccessVerdict::Denied("no RBAC policy matched".into()),
        m.now,
    );
    m.selected_nodes_mut().insert(NODE_W4.into());
    assert!(ch(&mut m, 'R').is_empty());
    assert!(m.modals.dialog().is_none());
    let text = &m.notice().unwrap().text;
    assert!(
        text.contains("delete pods in tf") && text.contains("no RBAC policy matched"),
        "{text}"
    );
    // Node patches are still allowed.
    ch(&mut m, 'm');
    assert!(matches!(m.modals.dialog(), Some(Dialog::MigrationMode(_))));
}

#[test]
fn confirming_before_the_server_answered_is_refused_until_it_does() {
    let mut m = model_with(false, false);
    m.selected_nodes_mut().insert(NODE_W4.into());
    let cmds = ch(&mut m, 'R');
    assert!(matches!(cmds.first(), Some(Command::CheckAccess(_))));
    let cmds = ch(&mut m, 'y');
    assert!(executed(&cmds).is_empty());
    let Some(Dialog::Confirm(c)) = m.modals.dialog() else {
        panic!()
    };
    assert!(
        c.error
            .as_deref()
            .unwrap()
            .contains("still asking the server")
    );
    update(
        &mut m,
        Msg::Action(WriteEvent::Access {
            key: AccessKey::for_action(ActionId::RestartVrouter, "child-ns"),
            verdict: AccessVerdict::Allowed,
        }),
    );
    assert_eq!(executed(&ch(&mut m, 'y')).len(), 1);
}

#[test]
fn one_action_at_a_time_and_cancel_between_pods() {
    let mut m = allowed(model_with(false, false));
    let cmds = update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)),
    );
    assert!(cmds.is_empty());
    let plan = {
        let cmds = ch(&mut m, 'y');
        executed(&cmds)[0].clone()
    };
    assert_eq!(plan.action, ActionId::RestartAllVrouters);
    assert_eq!(plan.steps.len(), 3);
    // Another action while it runs: refused, the progress dialog shows.
    m.modals.close_dialog();
    m.selected_nodes_mut().insert(NODE_W2.into());
    assert!(ch(&mut m, 'a').is_empty());
    assert!(matches!(m.modals.dialog(), Some(Dialog::Progress)));
    // Esc asks to cancel (once).
    assert_eq!(press(&mut m, KeyCode::Esc), vec![Command::CancelRun]);
    assert!(press(&mut m, KeyCode::Esc).is_empty());
    assert!(
        matches!(m.modals.dialog(), Some(Dialog::Progress)),
        "stays open while running"
    );
    let id = plan.id;
    update(
        &mut m,
        Msg::Action(WriteEvent::Step {
            plan_id: id,
            index: 0,
            status: StepStatus::Done("replaced".into()),
        }),
    );
    update(
        &mut m,
        Msg::Action(WriteEvent::Finished {
            plan_id: id,
            outcome: RunOutcome::Cancelled { done: 1 },
        }),
    );
    assert!(!m.actions.busy());
    assert!(
        m.notice()
            .as_ref()
            .unwrap()
            .text
            .contains("cancelled after 1")
    );
    press(&mut m, KeyCode::Enter);
    assert!(m.modals.dialog().is_none());
    assert!(m.actions.running.is_none());
}

#[test]
fn the_audit_view_rows_pair_intent_and_result() {
    let mut m = model_with(false, true);
    let rec = |phase, outcome, message: Option<&str>| AuditRecord {
        time: fixtures::mid_update_now(),
        session: "s".into(),
        plan: 7,
        phase,
        action: "acknowledge-migration".into(),
        user: "admin".into(),
        user_source: "kubeconfig".into(),
        context: "sim-mosk".into(),
        kind: "Node".into(),
        namespace: None,
        name: NODE_W2.into(),
        uid: "u".into(),
        change: serde_json::Value::Null,
        change_text: "instance_migration_mode: (unset) -> skip".into(),
        servers: vec![SERVER_A.into()],
        dry_run: true,
        permission: Some(PermissionCheck::NotVerified),
        permission_note: Some("permission not verified: the server will decide".into()),
        kubeconfig_user: None,
        connection: None,
        outcome,
        message: message.map(str::to_string),
        simulated: false,
    };
    update(
        &mut m,
        Msg::Action(WriteEvent::Audit(Box::new(rec(
            AuditPhase::Intent,
            AuditOutcome::Pending,
            None,
        )))),
    );
    let rows = audit_rows(&m);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].result, "dry-run pending (permission not verified)");
    update(
        &mut m,
        Msg::Action(WriteEvent::Audit(Box::new(rec(
            AuditPhase::Result,
            AuditOutcome::Succeeded,
            Some("dry run accepted"),
        )))),
    );
    let rows = audit_rows(&m);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].action, ActionId::AcknowledgeMigration.label());
    assert_eq!(rows[0].object, format!("Node/{NODE_W2}"));
    assert_eq!(rows[0].change, "instance_migration_mode: (unset) -> skip");
    assert_eq!(
        rows[0].result,
        "dry-run succeeded: dry run accepted (permission not verified)"
    );
}

#[test]
fn without_a_selection_the_row_under_the_cursor_is_the_target() {
    use mosk_console::app::model::View;
    let mut m = allowed(model_with(false, false));
    m.view = View::Machines;
    m.cursor_mut(View::Machines).selected_id = Some(WORKER_3.into());
    ch(&mut m, 'm');
    match m.modals.dialog() {
        Some(Dialog::MigrationMode(p)) => {
            assert_eq!(p.nodes.len(), 1);
            assert_eq!(p.nodes[0].node, NODE_W3);
            assert_eq!(p.nodes[0].mode.as_deref(), Some("manual"));
        }
        other => panic!("{other:?}"),
    }
    press(&mut m, KeyCode::Esc);
    m.view = View::Vrouter;
    m.cursor_mut(View::Vrouter).selected_id = Some(format!("tf/{VROUTER_POD_W4}"));
    ch(&mut m, 'R');
    let Some(Dialog::Confirm(c)) = m.modals.dialog() else {
        panic!("{:?} {:?}", m.modals.dialog(), m.notice())
    };
    assert_eq!(c.plan.steps.len(), 1);
    assert_eq!(c.plan.steps[0].target.name, VROUTER_POD_W4);
}

#[test]
fn an_unanswered_access_review_offers_the_action_and_confirms() {
    let mut m = allowed(model_with(false, false));
    m.actions.access.record(
        AccessKey::for_action(ActionId::AcknowledgeMigration, "child-ns"),
        AccessVerdict::Unknown("the server's review had no status".into()),
        m.now,
    );
    assert!(matches!(
        availability(&m, ActionId::AcknowledgeMigration),
        Availability::NotVerified(why) if why.contains("patch nodes") && why.contains("no status")
    ));
    m.selected_nodes_mut().insert(NODE_W2.into());
    assert!(ch(&mut m, 'a').is_empty());
    assert!(
        matches!(m.modals.dialog(), Some(Dialog::Confirm(_))),
        "{:?}",
        m.notice()
    );
    let cmds = ch(&mut m, 'y');
    assert_eq!(executed(&cmds).len(), 1, "{:?}", m.modals.dialog());
}

fn running(m: &mut Model) {
    m.selected_nodes_mut().insert(NODE_W2.into());
    ch(m, 'a');
    assert_eq!(executed(&ch(m, 'y')).len(), 1);
    assert!(m.actions.busy());
}

fn command(m: &mut Model, text: &str) -> Vec<Command> {
    let mut cmds = ch(m, ':');
    for c in text.chars() {
        cmds.extend(ch(m, c));
    }
    cmds.extend(press(m, KeyCode::Enter));
    cmds
}

#[test]
fn q_quits_at_once_when_no_write_is_in_flight() {
    let mut m = allowed(model_with(false, false));
    assert_eq!(ch(&mut m, 'q'), vec![Command::Quit]);
    assert!(m.quit);
}

#[test]
fn q_with_a_write_in_flight_asks_first() {
    let mut m = allowed(model_with(false, false));
    running(&mut m);
    // From the progress dialog: asks; n goes back to the progress.
    assert!(ch(&mut m, 'q').is_empty());
    assert!(!m.quit);
    assert!(matches!(m.modals.dialog(), Some(Dialog::ConfirmQuit)));
    assert!(ch(&mut m, 'x').is_empty(), "other keys keep the question");
    assert!(matches!(m.modals.dialog(), Some(Dialog::ConfirmQuit)));
    assert!(press(&mut m, KeyCode::Esc).is_empty());
    assert!(matches!(m.modals.dialog(), Some(Dialog::Progress)));
    assert!(!m.quit);
    // Without a dialog open (the keymap's q), and `:q`: ask too.
    m.modals.close_dialog();
    assert!(ch(&mut m, 'q').is_empty());
    assert!(matches!(m.modals.dialog(), Some(Dialog::ConfirmQuit)));
    ch(&mut m, 'n');
    m.modals.close_dialog();
    command(&mut m, "q");
    assert!(!m.quit);
    assert!(matches!(m.modals.dialog(), Some(Dialog::ConfirmQuit)));
    assert_eq!(ch(&mut m, 'y'), vec![Command::Quit]);
    assert!(m.quit);
}

#[test]
fn ctrl_c_and_q_bang_quit_without_asking() {
    let mut m = allowed(model_with(false, false));
    running(&mut m);
    let cmds = update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert_eq!(cmds, vec![Command::Quit]);
    assert!(m.quit);

    let mut m = allowed(model_with(false, false));
    running(&mut m);
    m.modals.close_dialog();
    command(&mut m, "q!");
    assert!(m.quit);
}

#[test]
fn the_attempts_field_is_one_line_of_at_most_16_characters() {
    let mut m = allowed(model_with(false, false));
    m.selected_nodes_mut().insert(NODE_W4.into());
    ch(&mut m, 'm');
    press(&mut m, KeyCode::Tab);
    for c in "12345678901234567890".chars() {
        ch(&mut m, c);
    }
    // Ctrl-J would be a new line in a text area: here it does nothing.
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::CONTROL)),
    );
    let attempts = |m: &Model| match m.modals.dialog() {
        Some(Dialog::MigrationMode(p)) => p.attempts_text(),
        other => panic!("{other:?}"),
    };
    assert_eq!(attempts(&m), "1234567890123456");
    // Home, then Delete: edits at the start of the field.
    press(&mut m, KeyCode::Home);
    press(&mut m, KeyCode::Delete);
    assert_eq!(attempts(&m), "234567890123456");
    // Ctrl-U clears it.
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
    );
    assert_eq!(attempts(&m), "");
}
