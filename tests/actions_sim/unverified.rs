//! Access reviews the server cannot answer (no `status`, 404, 5xx, no
//! answer): the permission is unknown, not denied. The action is offered,
//! the dialog says the server will decide, the write reaches the server, and
//! the audit records say the permission was not verified. A real
//! `allowed: false` stays a denial; a 403 at execution is shown as any 403.

use crossterm::event::{KeyCode, KeyModifiers};
use jiff::SignedDuration;
use mosk_console::app::actions::access::{Availability, NOT_VERIFIED};
use mosk_console::app::actions::availability;
use mosk_console::audit::{AuditOutcome, AuditPhase, PermissionCheck};
use mosk_console::domain::action::ActionId;
use mosk_console::domain::action::run::RunOutcome;

use super::harness::*;

fn render(h: &Harness) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    let theme = mosk_console::config::theme::Theme::load("mono").unwrap();
    t.draw(|f| mosk_console::ui::dialogs::draw(f, f.area(), &h.model, &theme))
        .unwrap();
    format!("{}", t.backend())
}

fn access_reviews(h: &Harness) -> usize {
    h.writes()
        .iter()
        .filter(|r| r.path.ends_with("/selfsubjectaccessreviews"))
        .count()
}

/// Every record names the unverified permission and why the review failed.
fn assert_not_verified(h: &Harness, records: usize, why: &str) {
    let audit = h.audit();
    assert_eq!(audit.len(), records, "{audit:#?}");
    for r in &audit {
        assert_eq!(r.permission, Some(PermissionCheck::NotVerified), "{r:?}");
        let note = r.permission_note.as_deref().unwrap_or_default();
        assert!(note.starts_with(NOT_VERIFIED), "{note}");
        assert!(note.contains(why), "{why:?} not in {note:?}");
    }
    let text = std::fs::read_to_string(&h.audit_path).unwrap();
    assert!(text.contains("\"permission\":\"not-verified\""), "{text}");
}

/// A MOSK cluster whose three computes wait for the operator to
/// acknowledge (servers still present, manual migration mode).
fn acknowledge_world() -> mosk_console::sim::world::SimWorld {
    let world = custom_world(
        "worker_concurrency = 3\nvrouter_manual_restart = true\nrelease = { from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 3\ninstances = 1\nmigration_mode = \"manual\"\n",
    );
    let computes: Vec<String> = world
        .machines()
        .into_iter()
        .filter(|m| m.has_vrouter())
        .map(|m| m.node)
        .collect();
    assert!(world.step_until(SignedDuration::from_secs(4 * 3600), |w| {
        computes.iter().all(|n| {
            w.mosk().list("nodeworkloadlocks", None).iter().any(|l| {
                str_at(l, "/spec/nodeName") == n
                    && str_at(l, "/status/errorMessage").contains("Some servers are still present")
            })
        })
    }));
    world
}

/// The case the issue reports: acknowledge against a server whose reviews
/// come back without `status`.
#[tokio::test(start_paused = true)]
async fn acknowledge_is_offered_and_sent_when_the_review_has_no_status() {
    let mut h = Harness::new(
        acknowledge_world(),
        Options {
            review_fault: Some(ReviewFault::NoStatus),
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    assert!(access_reviews(&h) > 0, "the server was asked");
    let a = availability(&h.model, ActionId::AcknowledgeMigration);
    assert!(
        matches!(&a, Availability::NotVerified(why) if why.contains("the server's review had no status")),
        "{a:?}"
    );
    let node = h.computes()[0].clone();
    h.select(&[&node]);
    h.press('a');
    assert!(h.model.modals.dialog().is_some(), "{:?}", h.model.notice());
    let screen = render(&h);
    assert!(
        screen.contains("permission not verified: the server will decide"),
        "{screen}"
    );
    assert!(screen.contains("[  Confirm  ]"), "{screen}");
    // The simulator's uids and server ids are random: same-width stand-ins.
    let uuid =
        regex::Regex::new("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    let stable = uuid.replace_all(&screen, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx");
    insta::assert_snapshot!("acknowledge_with_an_unanswered_review", stable);

    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("skip"));
    let changes = h.changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].method, "PATCH");
    assert_eq!(changes[0].path, format!("/api/v1/nodes/{node}"));
    assert_not_verified(&h, 2, "the server's review had no status");
    assert_eq!(h.audit()[1].outcome, AuditOutcome::Succeeded);
}

/// 404 (no authorization API), 503, and a review that never answers: each
/// leaves the permission unknown, and the change is sent.
#[tokio::test(start_paused = true)]
async fn failed_reviews_leave_the_decision_to_the_server() {
    for (fault, why) in [
        (ReviewFault::Status(404), "404"),
        (ReviewFault::Status(503), "503"),
        (ReviewFault::Hang, "no answer within 10 s"),
    ] {
        let mut h = Harness::new(
            quick_world(),
            Options {
                review_fault: Some(fault),
                ..Options::default()
            },
        );
        h.tick_and_settle().await;
        let a = availability(&h.model, ActionId::SetMigrationMode);
        assert!(
            matches!(&a, Availability::NotVerified(w) if w.contains(why)),
            "{fault:?}: {a:?}"
        );
        let node = h.computes()[0].clone();
        h.select(&[&node]);
        h.press('m');
        h.press('j'); // live -> manual
        h.key(KeyCode::Enter, KeyModifiers::NONE);
        assert!(
            render(&h).contains("permission not verified: the server will decide"),
            "{fault:?}"
        );
        h.press('y');
        assert_eq!(
            h.run_to_end(false).await,
            RunOutcome::Completed { dry_run: false },
            "{fault:?}"
        );
        assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
        assert_eq!(h.changes().len(), 1, "{fault:?}");
        assert_not_verified(&h, 2, why);
        if fault == ReviewFault::Hang {
            // Who did it: SelfSubjectReview did not answer either.
            assert!(h.audit().iter().all(|r| r.user_source == "kubeconfig"));
        }
    }
}

/// Unknown before sending, refused by the server: the 403 is shown and
/// recorded as it is for any write.
#[tokio::test(start_paused = true)]
async fn a_403_after_an_unanswered_review_is_shown_as_the_server_said() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            review_fault: Some(ReviewFault::NoStatus),
            deny_at_execution_only: vec![deny("patch", "nodes", None)],
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    h.select(&[&node]);
    h.press('m');
    h.press('j');
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    h.press('y');
    match h.run_to_end(false).await {
        RunOutcome::Failed { message } => {
            assert!(message.contains("the server refused"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(h.changes().len(), 1, "the PATCH reached the server");
    assert_eq!(h.annotation(&node, MODE), None);
    let audit = h.audit();
    assert_eq!(audit[1].phase, AuditPhase::Result);
    assert_eq!(audit[1].outcome, AuditOutcome::Forbidden);
    assert_not_verified(&h, 2, "the server's review had no status");
}

/// `status: {allowed: false}` with no reason is a real denial: nothing is
/// offered and nothing is sent.
#[tokio::test(start_paused = true)]
async fn a_real_denial_stays_a_denial() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            review_fault: Some(ReviewFault::DeniedWithoutReason),
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let a = availability(&h.model, ActionId::SetMigrationMode);
    assert!(
        matches!(&a, Availability::Unavailable(r) if r.contains("your RBAC does not allow patch nodes")),
        "{a:?}"
    );
    let node = h.computes()[0].clone();
    h.select(&[&node]);
    h.press('m');
    assert!(h.model.modals.dialog().is_none());
    assert!(
        h.model
            .notice()
            .as_ref()
            .is_some_and(|n| n.text.contains("unavailable")),
        "{:?}",
        h.model.notice()
    );
    assert!(h.changes().is_empty());
    assert!(h.audit().is_empty());
}
