//! Quitting with a write in flight: the console's runtime loop quits (Ctrl-C,
//! which is also what a hang-up or SIGTERM sends), then the executor waits a
//! bounded time for the answer. An answer that comes in time is recorded as
//! usual; one that does not leaves an "interrupted, outcome unknown" result
//! as the audit log's last record, and a report the binary turns into a
//! message on stderr and a non-zero exit. Time is tokio's paused clock.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jiff::SignedDuration;
use mosk_console::app::actions::EXIT_WAIT;
use mosk_console::app::actions::dialog::Dialog;
use mosk_console::app::msg::Msg;
use mosk_console::audit::{AuditOutcome, AuditPhase};
use mosk_console::cluster::writes::exit::ExitReport;
use mosk_console::console::runtime;
use mosk_console::sim::scenario::UpdatePhase;

use super::harness::*;

/// Sets the migration mode of the first compute to `manual` and returns
/// once the PATCH has reached the server (its answer is delayed).
async fn set_mode_in_flight(h: &mut Harness) -> String {
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    h.select(&[&node]);
    h.press('m');
    h.press('j');
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    h.press('y');
    assert!(h.model.actions.busy());
    h.arrived.notified().await;
    node
}

/// Quits through the runtime loop with Ctrl-C (what a hang-up, SIGTERM and
/// SIGINT send too), then lets the executor finish as the console does.
async fn quit_and_finish(h: &mut Harness) -> (ExitReport, Duration) {
    h.tx.send(Msg::Key(KeyEvent::new(
        KeyCode::Char('c'),
        KeyModifiers::CONTROL,
    )))
    .unwrap();
    // The real backend writing to memory (its errors are io::Errors, as the
    // runtime wants); a fixed viewport, so no terminal size is queried.
    let mut terminal = ratatui::Terminal::with_options(
        ratatui::backend::CrosstermBackend::new(Vec::<u8>::new()),
        ratatui::TerminalOptions {
            viewport: ratatui::Viewport::Fixed(ratatui::layout::Rect::new(0, 0, 100, 30)),
        },
    )
    .unwrap();
    let theme = mosk_console::config::theme::Theme::load("mono").unwrap();
    let now = h.world.now();
    runtime::run(
        &mut terminal,
        &mut h.model,
        &theme,
        &mut h.rx,
        &mut h.exec,
        move || now,
    )
    .await
    .unwrap();
    assert!(h.model.quit);
    let start = tokio::time::Instant::now();
    let report = h.exec.finish(EXIT_WAIT).await;
    (report, start.elapsed())
}

#[tokio::test(start_paused = true)]
async fn quit_with_an_unanswered_write_records_the_outcome_as_unknown() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            answer_delay: Some(Duration::from_secs(60)),
            ..Options::default()
        },
    );
    let node = set_mode_in_flight(&mut h).await;
    let (report, waited) = quit_and_finish(&mut h).await;

    // It waited, but not for ever.
    assert!(waited >= EXIT_WAIT, "{waited:?}");
    assert!(waited < EXIT_WAIT + Duration::from_secs(1), "{waited:?}");
    assert!(!report.clean(), "{report:?}");
    let failure = report.failure().expect("a message for stderr");
    assert!(
        failure.contains("interrupted, outcome unknown")
            && failure.contains(&format!("Node/{node}"))
            && failure.contains(h.audit_path.to_str().unwrap()),
        "{failure}"
    );
    let audit = h.audit();
    assert_eq!(audit.len(), 2, "{audit:#?}");
    let (intent, last) = (&audit[0], &audit[1]);
    assert_eq!(intent.phase, AuditPhase::Intent);
    assert_eq!(last.phase, AuditPhase::Result);
    assert_eq!(last.outcome, AuditOutcome::Interrupted);
    assert_eq!((last.plan, &last.name), (intent.plan, &intent.name));
    let message = last.message.as_deref().unwrap_or_default();
    assert!(
        message.starts_with("interrupted, outcome unknown"),
        "{message}"
    );
    // Why "unknown" and not "failed": the server did apply it.
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
    assert_eq!(h.changes().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn quit_waits_for_an_answer_that_comes_in_time() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            answer_delay: Some(Duration::from_secs(2)),
            ..Options::default()
        },
    );
    let node = set_mode_in_flight(&mut h).await;
    let (report, waited) = quit_and_finish(&mut h).await;

    assert!(waited < EXIT_WAIT, "{waited:?}");
    assert!(report.clean(), "{report:?}");
    assert_eq!(report.failure(), None);
    assert_eq!(report.completed.len(), 1, "{report:?}");
    assert!(
        report.notes()[0].contains(&format!("Node/{node}: succeeded")),
        "{:?}",
        report.notes()
    );
    let audit = h.audit();
    assert_eq!(audit.len(), 2, "{audit:#?}");
    assert_eq!(audit[1].outcome, AuditOutcome::Succeeded);
}

#[tokio::test(start_paused = true)]
async fn quit_sends_no_further_object_of_a_running_plan() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            answer_delay: Some(Duration::from_secs(2)),
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let nodes = h.computes();
    let refs: Vec<&str> = nodes.iter().map(String::as_str).collect();
    h.select(&refs);
    h.press('m');
    h.press('j');
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    h.press('y');
    h.arrived.notified().await;
    let (report, _) = quit_and_finish(&mut h).await;
    assert!(report.clean(), "{report:?}");
    assert_eq!(h.changes().len(), 1, "only the first of three nodes");
    let audit = h.audit();
    assert_eq!(audit.len(), 2, "{audit:#?}");
    assert_eq!(audit[1].outcome, AuditOutcome::Succeeded);
}

#[tokio::test(start_paused = true)]
async fn quit_while_a_restart_waits_for_its_replacement() {
    let world = custom_world(
        "vrouter_manual_restart = true\nrelease = { from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\ninstances = 0\n\
         [[overrides]]\nrole = \"compute\"\nindex = 0\nvrouter_never_ready = true\n",
    );
    assert!(
        world.step_until(SignedDuration::from_secs(7200), |w| w.phase()
            == UpdatePhase::Done)
    );
    let mut h = Harness::new(
        world,
        Options {
            replacement_timeout: Duration::from_secs(300),
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    h.select(&[&node]);
    h.press('R');
    h.press('y');
    h.pump_until(false, |m| {
        m.actions.running.as_ref().is_some_and(|r| {
            matches!(
                r.steps[0],
                mosk_console::domain::action::run::StepStatus::Waiting(_)
            )
        })
    })
    .await;
    let (report, _) = quit_and_finish(&mut h).await;
    let failure = report.failure().expect("outcome unknown");
    assert!(failure.contains("waiting for the replacement"), "{failure}");
    let last = h.audit().pop().unwrap();
    assert_eq!(last.outcome, AuditOutcome::Interrupted);
    assert_eq!(last.kind, "Pod");
    assert!(
        last.message
            .as_deref()
            .unwrap_or_default()
            .contains("deleted; waiting for the replacement"),
        "{last:?}"
    );
}

/// `q` asks first; `n` keeps the console (and the progress) open; `y` quits.
#[tokio::test(start_paused = true)]
async fn q_with_a_write_in_flight_asks_first() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            answer_delay: Some(Duration::from_secs(60)),
            ..Options::default()
        },
    );
    set_mode_in_flight(&mut h).await;
    h.press('q');
    assert!(!h.model.quit);
    assert!(matches!(h.model.modals.dialog(), Some(Dialog::ConfirmQuit)));
    h.press('n');
    assert!(!h.model.quit);
    assert!(matches!(h.model.modals.dialog(), Some(Dialog::Progress)));
    h.press('q');
    h.press('y');
    assert!(h.model.quit);
    let report = h.exec.finish(EXIT_WAIT).await;
    assert_eq!(report.interrupted.len(), 1, "{report:?}");
    assert_eq!(h.audit().pop().unwrap().outcome, AuditOutcome::Interrupted);
}
