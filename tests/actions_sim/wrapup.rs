//! The wrap-up's restore of migration modes after a restart: a fresh
//! console on the same audit log reads back the modes the earlier one set
//! and offers to put each back, through the one action path.

use jiff::SignedDuration;
use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::{Patch, PatchParams};
use mosk_console::app::model::View;
use mosk_console::audit::{AuditOutcome, AuditPhase};
use mosk_console::cluster::writes::WriteMode;
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::sim::scenario::UpdatePhase;
use mosk_console::sim::world::SimWorld;
use serde_json::json;

use super::harness::*;

fn done_world() -> SimWorld {
    let w = custom_world(
        "[[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\ninstances = 0\n",
    );
    assert!(w.step_until(SignedDuration::from_secs(7200), |w| w.phase()
        == UpdatePhase::Done));
    w
}

/// A first console sets `node`'s mode to manual; returns the harness and
/// the value the node had before.
async fn first_session(opts: Options) -> (Harness, String, Option<String>) {
    let mut h = Harness::new(done_world(), opts);
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    let before = h.annotation(&node, MODE);
    assert_ne!(before.as_deref(), Some("manual"));
    assert!(matches!(
        h.set_manual(&node).await,
        RunOutcome::Completed { dry_run: false }
    ));
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
    (h, node, before)
}

async fn restarted(h: Harness, mode: WriteMode) -> Harness {
    let mut h = h.restart(Options {
        mode,
        ..Options::default()
    });
    h.tick_and_settle().await;
    h.command("wrapup");
    assert_eq!(h.model.view, View::Wrapup);
    h
}

#[tokio::test(start_paused = true)]
async fn a_fresh_console_offers_the_restore_and_writes_the_value_before() {
    let (h, node, before) = first_session(Options::default()).await;
    let mut h = restarted(h, WriteMode::Live).await;
    let screen = h.screen();
    assert!(screen.contains(&node), "{screen}");
    assert!(screen.contains("restore offered"), "{screen}");
    assert!(screen.contains("r restore migration setting"), "{screen}");

    h.press('r');
    assert!(h.model.modals.dialog().is_some(), "{:?}", h.model.notice());
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    h.close();
    assert_eq!(h.annotation(&node, MODE), before);
    let patch = h
        .changes()
        .into_iter()
        .find(|c| c.method == "PATCH")
        .expect("the restore's patch");
    assert!(
        patch.body.contains("\"manual\""),
        "tests the value set: {}",
        patch.body
    );
    let restore = h
        .audit()
        .into_iter()
        .find(|r| r.action == "restore-migration-mode" && r.phase == AuditPhase::Result)
        .expect("the restore is audited");
    assert_eq!(restore.outcome, AuditOutcome::Succeeded);
    assert_eq!(restore.change["annotations"][0]["old"], json!("manual"));
    assert_eq!(restore.change["annotations"][0]["new"], json!(before));

    // And a console started after that knows it was restored.
    h.refresh();
    let h = restarted(h, WriteMode::Live).await;
    let screen = h.screen();
    assert!(screen.contains("restored"), "{screen}");
    assert!(!screen.contains("restore offered"), "{screen}");
}

#[tokio::test(start_paused = true)]
async fn read_only_lists_the_modes_and_sends_nothing() {
    let (h, node, _) = first_session(Options::default()).await;
    let mut h = restarted(h, WriteMode::ReadOnly).await;
    let screen = h.screen();
    assert!(screen.contains(&node), "{screen}");
    h.press('r');
    assert!(h.model.modals.dialog().is_none());
    assert!(h.notice_text().contains("read-only"), "{}", h.notice_text());
    assert_eq!(h.writes(), vec![]);
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
}

#[tokio::test(start_paused = true)]
async fn dry_run_sends_dry_run_all_and_changes_nothing() {
    let (h, node, _) = first_session(Options::default()).await;
    let mut h = restarted(h, WriteMode::DryRun).await;
    h.press('r');
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: true }
    );
    let changes = h.changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert!(changes[0].query.contains("dryRun=All"), "{changes:?}");
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
}

#[tokio::test(start_paused = true)]
async fn a_node_whose_mode_changed_since_is_refused() {
    let (h, node, _) = first_session(Options::default()).await;
    // Someone else sets another mode between the two consoles.
    let api: Api<Node> = Api::all(kube::Client::new(h.world.mosk_router(), "default"));
    api.patch(
        &node,
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"annotations": {MODE: "skip"}}})),
    )
    .await
    .unwrap();
    let mut h = restarted(h, WriteMode::Live).await;
    let screen = h.screen();
    assert!(screen.contains("changed since"), "{screen}");
    h.press('r');
    assert!(h.model.modals.dialog().is_none());
    assert!(
        h.notice_text().contains("changed since"),
        "{}",
        h.notice_text()
    );
    assert_eq!(h.changes(), vec![]);
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("skip"));
}

/// The dialog was open when the node changed: the confirmation is refused
/// by the precondition (the value set is no longer the node's), nothing sent.
#[tokio::test(start_paused = true)]
async fn a_change_while_the_dialog_is_open_is_refused_at_confirm() {
    let (h, node, _) = first_session(Options::default()).await;
    let mut h = restarted(h, WriteMode::Live).await;
    h.press('r');
    assert!(h.model.modals.dialog().is_some());
    let api: Api<Node> = Api::all(kube::Client::new(h.world.mosk_router(), "default"));
    api.patch(
        &node,
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"annotations": {MODE: "live"}}})),
    )
    .await
    .unwrap();
    h.refresh();
    h.press('y');
    assert!(
        h.changes().iter().all(|c| c.method != "PATCH"),
        "{:?}",
        h.changes()
    );
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("live"));
}

/// The attempts this console set are listed beside the mode; after a
/// restart the fresh console puts them back to the value before (unset),
/// through the one action path, and leaves the mode to its own row.
#[tokio::test(start_paused = true)]
async fn a_fresh_console_restores_the_attempts_it_set() {
    let mut h = Harness::new(done_world(), Options::default());
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    let mode_before = h.annotation(&node, MODE);
    assert_eq!(h.annotation(&node, ATTEMPTS), None);
    assert_eq!(
        h.set_manual_with_attempts(&node, '7').await,
        RunOutcome::Completed { dry_run: false }
    );
    h.close();
    assert_eq!(h.annotation(&node, ATTEMPTS).as_deref(), Some("7"));

    let mut h = restarted(h, WriteMode::Live).await;
    let screen = h.screen();
    assert!(screen.contains(&format!("{node}  mode ")), "{screen}");
    assert!(
        screen.contains(&format!("{node}  attempts unset -> \"7\"")),
        "{screen}"
    );
    h.press('j'); // the mode's row, then the attempts'
    h.press('r');
    let dialog = h.screen();
    assert!(
        dialog.contains("instance_migration_attempts: 7 -> (unset)"),
        "{dialog}"
    );
    assert!(dialog.contains(&node), "{dialog}");
    assert!(dialog.contains("Restore migration setting"), "{dialog}");
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    h.close();
    assert_eq!(h.annotation(&node, ATTEMPTS), None);
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
    assert_ne!(mode_before.as_deref(), Some("manual"));
    let patches: Vec<_> = h
        .changes()
        .into_iter()
        .filter(|c| c.method == "PATCH")
        .collect();
    assert_eq!(patches.len(), 1, "{patches:?}");
    assert!(
        patches[0].body.contains("\"7\""),
        "tests the value set: {}",
        patches[0].body
    );
    assert!(
        patches[0].body.contains("remove"),
        "removes the annotation: {}",
        patches[0].body
    );
    let restore: Vec<_> = h
        .audit()
        .into_iter()
        .filter(|r| r.action == "restore-migration-mode")
        .collect();
    assert_eq!(
        restore.iter().map(|r| r.phase).collect::<Vec<_>>(),
        [AuditPhase::Intent, AuditPhase::Result],
        "{restore:#?}"
    );
    assert_eq!(restore[1].outcome, AuditOutcome::Succeeded);
    assert_eq!(restore[1].name, node);
    assert_eq!(
        restore[1].change["annotations"],
        json!([{"key": ATTEMPTS, "old": "7", "new": null}])
    );

    // A console started after that: the attempts are restored, the mode
    // is still offered.
    h.refresh();
    let h = restarted(h, WriteMode::Live).await;
    let screen = h.screen();
    assert!(screen.contains("restored"), "{screen}");
    assert!(screen.contains("restore offered"), "{screen}");
}
