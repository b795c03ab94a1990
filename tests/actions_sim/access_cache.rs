//! One permission cache: the model's. The key-time check
//! and the execute-time check read the same answer — the confirmed plan
//! carries it to the executor — so a review answered once is not asked
//! again, and the executor asks the server only when the model holds no
//! answer, reporting it back to the model's cache.

use crossterm::event::{KeyCode, KeyModifiers};
use mosk_console::app::actions::access::{AccessKey, AccessVerdict};
use mosk_console::app::actions::dialog::RunningAction;
use mosk_console::app::actions::plan::{self, PlanContext};
use mosk_console::app::msg::{Command, Msg};
use mosk_console::audit::PermissionCheck;
use mosk_console::cluster::writes::WriteEvent;
use mosk_console::console::runtime::Effects;
use mosk_console::domain::action::ActionId;
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::domain::objects::MigrationMode;

use super::harness::*;

/// The SelfSubjectAccessReviews the MOSK API server received.
fn reviews(h: &Harness) -> Vec<Seen> {
    h.writes()
        .into_iter()
        .filter(|r| r.path.ends_with("/selfsubjectaccessreviews"))
        .collect()
}

/// Sets the migration mode of `node` to manual through the picker.
fn set_manual(h: &mut Harness, node: &str) {
    h.select(&[node]);
    h.press('m');
    h.press('j'); // live -> manual
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    h.press('y');
}

#[tokio::test(start_paused = true)]
async fn a_review_answered_once_is_not_asked_again_at_execution() {
    let mut h = Harness::new(quick_world(), Options::default());
    h.tick_and_settle().await;
    // patch nodes, delete pods in tf, create and get pods/exec in
    // openstack: asked once each at the first tick.
    assert_eq!(reviews(&h).len(), 4, "{:?}", reviews(&h));
    let nodes = h.computes();
    set_manual(&mut h, &nodes[0]);
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    h.close();
    set_manual(&mut h, &nodes[1]);
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    assert_eq!(
        reviews(&h).len(),
        4,
        "two runs, no further review: the executor read the model's answer"
    );
    assert_eq!(h.changes().len(), 2, "both patches reached the server");
}

#[tokio::test(start_paused = true)]
async fn the_execute_time_check_reads_the_answer_the_key_time_check_read() {
    // The server would deny every review; the model's cache holds an
    // "allowed" it was given (as if the server had answered so moments ago).
    let mut h = Harness::new(
        quick_world(),
        Options {
            review_fault: Some(ReviewFault::DeniedWithoutReason),
            ..Options::default()
        },
    );
    let ns = h.model.session.namespace.clone();
    let key = AccessKey::for_action(ActionId::SetMigrationMode, &ns);
    h.apply(Msg::Action(WriteEvent::Access {
        key: key.clone(),
        verdict: AccessVerdict::Allowed,
    }));
    let node = h.computes()[0].clone();
    set_manual(&mut h, &node);
    let running = h.model.actions.running.as_ref().expect("confirmed");
    assert_eq!(running.plan.access, Some(AccessVerdict::Allowed));
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    assert!(
        reviews(&h).is_empty(),
        "the executor asked the server again: {:?}",
        reviews(&h)
    );
    let audit = h.audit();
    assert!(
        audit
            .iter()
            .all(|r| r.permission == Some(PermissionCheck::Allowed)),
        "{audit:#?}"
    );
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
}

#[tokio::test(start_paused = true)]
async fn a_plan_without_an_answer_is_asked_once_and_the_answer_lands_in_the_models_cache() {
    let mut h = Harness::new(quick_world(), Options::default());
    let ns = h.model.session.namespace.clone();
    let key = AccessKey::for_action(ActionId::SetMigrationMode, &ns);
    assert!(h.model.actions.access.fresh(&key, h.model.now).is_none());
    let ctx = PlanContext {
        mosk_context: "sim-mosk".into(),
        dry_run: false,
    };
    let nodes = h.computes();
    let mut p = plan::plan_set_mode(
        &h.model.snapshot,
        &ctx,
        &nodes[..1],
        &MigrationMode::Skip,
        None,
    )
    .unwrap();
    p.id = 7;
    assert_eq!(p.access, None);
    h.model.actions.running = Some(RunningAction::new(p.clone()));
    h.exec.run(Command::Execute(p));
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    assert_eq!(reviews(&h).len(), 1);
    assert_eq!(
        h.model.actions.access.fresh(&key, h.model.now),
        Some(&AccessVerdict::Allowed),
        "the executor's answer is the model's"
    );
    // The next key-time check reads it: the tick asks only what is missing.
    h.tick_and_settle().await;
    let asked: Vec<String> = reviews(&h).iter().map(|r| r.path.clone()).collect();
    assert_eq!(
        asked.len(),
        4,
        "patch nodes once, delete pods once, pods/exec create and get once: {asked:?}"
    );
}
