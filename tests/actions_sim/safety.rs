//! The action path's safety properties, one test each, named for the
//! property (docs/ARCHITECTURE.md lists them). Each was checked to fail
//! with the property broken in the code.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyModifiers};
use futures::FutureExt;
use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use mosk_console::app::actions::dialog::{ConfirmDialog, Dialog};
use mosk_console::app::actions::plan::{PlanContext, plan_set_mode};
use mosk_console::app::msg::{Command, Msg};
use mosk_console::audit::{AuditOutcome, AuditPhase};
use mosk_console::cluster::writes::WriteEvent;
use mosk_console::cluster::writes::executor::SECOND_PLAN_REFUSED;
use mosk_console::console::runtime::Effects;
use mosk_console::domain::action::access::AccessVerdict;
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::domain::objects::MigrationMode;
use mosk_console::sim::world::SimWorld;
use serde_json::{Value, json};

use super::harness::*;
use super::node_actions::wait_for_servers_present;

/// One compute on 22.x in `manual` mode: its OpenStack lock soon says
/// servers are still present, and acknowledge is offered.
fn acknowledge_world() -> SimWorld {
    custom_world(
        "worker_concurrency = 1\nvrouter_manual_restart = true\nrelease = { from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 1\ninstances = 1\nmigration_mode = \"manual\"\n",
    )
}

/// A harness whose compute waits for the operator; the acknowledge dialog
/// is open on it.
async fn acknowledge_dialog_open(world: SimWorld, opts: Options) -> (Harness, String) {
    let mut h = Harness::new(world, opts);
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    assert!(wait_for_servers_present(&h, std::slice::from_ref(&node)));
    h.tick_and_settle().await;
    h.select(&[&node]);
    h.press('a');
    assert!(
        matches!(h.model.modals.dialog(), Some(Dialog::Confirm(_))),
        "{:?}",
        h.model.notice()
    );
    (h, node)
}

/// Another kube client (another operator's `kubectl annotate`).
fn other_client(world: &SimWorld) -> Api<Node> {
    Api::all(kube::Client::new(world.mosk_router(), "default"))
}

async fn set_mode_elsewhere(api: &Api<Node>, node: &str, mode: &str) {
    api.patch(
        node,
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"annotations": {MODE: mode}}})),
    )
    .await
    .unwrap();
}

/// Deletes the node and creates it again under the same name (a new uid);
/// its annotations stay as they were.
async fn recreate(api: &Api<Node>, node: &str) -> String {
    let mut n = api.get(node).await.unwrap();
    n.metadata.uid = None;
    n.metadata.resource_version = None;
    n.metadata.creation_timestamp = None;
    n.metadata.managed_fields = None;
    api.delete(node, &DeleteParams::default()).await.unwrap();
    let made = api.create(&PostParams::default(), &n).await.unwrap();
    made.metadata.uid.unwrap()
}

fn confirm_error(h: &Harness) -> String {
    match h.model.modals.dialog() {
        Some(Dialog::Confirm(c)) => c.error.clone().unwrap_or_default(),
        other => panic!("the confirmation dialog is gone: {other:?}"),
    }
}

fn dialog_text(h: &Harness) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
    let theme = mosk_console::config::theme::Theme::load("mono").unwrap();
    t.draw(|f| mosk_console::ui::dialogs::draw(f, f.area(), &h.model, &theme))
        .unwrap();
    format!("{}", t.backend())
}

fn screen_text(h: &Harness) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    let theme = mosk_console::config::theme::Theme::load("mono").unwrap();
    t.draw(|f| mosk_console::ui::draw(f, &h.model, &theme))
        .unwrap();
    format!("{}", t.backend())
}

fn outcome_message(o: &RunOutcome) -> String {
    match o {
        RunOutcome::Failed { message } | RunOutcome::Refused { message } => message.clone(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

// ---- Writes test what the operator saw ----

#[tokio::test(start_paused = true)]
async fn stale_node_write_a_changed_mode_shown_by_the_watch_sends_nothing() {
    let (mut h, node) = acknowledge_dialog_open(acknowledge_world(), Options::default()).await;
    set_mode_elsewhere(&other_client(&h.world), &node, "live").await;
    h.refresh(); // the watch delivered the change; the dialog is still open
    h.press('y');
    let err = confirm_error(&h);
    assert!(
        err.contains(&format!(
            "node {node}: instance_migration_mode is \"live\" now (the dialog showed \"manual\")"
        )) && err.starts_with("not sent"),
        "{err}"
    );
    assert!(h.model.actions.running.is_none(), "nothing runs");
    assert!(dialog_text(&h).contains("not sent: changed since this dialog"));
    assert!(h.changes().is_empty(), "{:?}", h.changes());
    assert!(h.audit().is_empty(), "nothing sent, nothing to audit");
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("live"));
}

#[tokio::test(start_paused = true)]
async fn stale_node_write_a_change_the_watch_has_not_shown_is_refused_and_nothing_changes() {
    let (mut h, node) = acknowledge_dialog_open(acknowledge_world(), Options::default()).await;
    set_mode_elsewhere(&other_client(&h.world), &node, "live").await;
    // No refresh: the console has not seen the change.
    h.press('y');
    let outcome = h.run_to_end(false).await;
    let msg = outcome_message(&outcome);
    let expected = format!(
        "node {node} changed since it was drawn: instance_migration_mode is \"live\" now (the dialog showed \"manual\"); nothing was sent"
    );
    assert!(msg.contains(&expected), "{msg}");
    assert!(
        h.changes().is_empty(),
        "read, found changed, not written: {:?}",
        h.changes()
    );
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("live"));
    let audit = h.audit();
    assert_eq!(audit.len(), 2, "{audit:#?}");
    assert_eq!(audit[0].phase, AuditPhase::Intent);
    assert_eq!(audit[1].outcome, AuditOutcome::Refused);
    assert!(audit[1].message.as_deref().unwrap().contains(&expected));
    assert!(dialog_text(&h).contains("instance_migration_mode is \"live\" now"));
}

#[tokio::test(start_paused = true)]
async fn stale_node_write_a_change_between_read_and_write_is_refused_by_the_servers_test() {
    // Someone else writes right after the console read the node: only the
    // patch's own `test` operations can catch it.
    let world = acknowledge_world();
    let other = other_client(&world);
    let fired = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hook: NodeGetHook = Arc::new(move |node: String| {
        let (other, fired) = (other.clone(), fired.clone());
        async move {
            // The first read of the node is the writer's: the other
            // client's write lands before the console sees the answer.
            if !fired.swap(true, std::sync::atomic::Ordering::SeqCst) {
                set_mode_elsewhere(&other, &node, "live").await;
            }
        }
        .boxed()
    });
    let (mut h, node) = acknowledge_dialog_open(
        world,
        Options {
            after_node_get: Some(hook),
            ..Options::default()
        },
    )
    .await;
    let uid = str_at(&h.node(&node), "/metadata/uid").to_string();
    h.press('y');
    let msg = outcome_message(&h.run_to_end(false).await);
    assert!(
        msg.contains(&format!(
            "node {node} changed since it was drawn: instance_migration_mode is \"live\" now (the dialog showed \"manual\"); nothing was changed"
        )),
        "{msg}"
    );
    assert_eq!(
        h.annotation(&node, MODE).as_deref(),
        Some("live"),
        "not skip"
    );
    // What the server received: one JSON patch pinning the uid, the version
    // read and the old value, the key's `/` escaped.
    let changes = h.changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].method, "PATCH");
    assert_eq!(changes[0].content_type, "application/json-patch+json");
    let ops: Value = serde_json::from_str(&changes[0].body).unwrap();
    let path = "/metadata/annotations/openstack.lcm.mirantis.com~1instance_migration_mode";
    assert_eq!(
        ops[0],
        json!({"op": "test", "path": "/metadata/uid", "value": uid})
    );
    assert_eq!(ops[1]["path"], "/metadata/resourceVersion");
    assert_eq!(
        ops[2],
        json!({"op": "test", "path": path, "value": "manual"})
    );
    assert_eq!(
        ops[3],
        json!({"op": "replace", "path": path, "value": "skip"})
    );
    assert_eq!(ops.as_array().unwrap().len(), 4);
    let audit = h.audit();
    assert_eq!(audit[1].outcome, AuditOutcome::Refused, "{audit:#?}");
    assert!(
        audit[1]
            .message
            .as_deref()
            .unwrap()
            .contains("is \"live\" now")
    );
}

#[tokio::test(start_paused = true)]
async fn stale_node_write_a_node_recreated_under_the_same_name_is_refused() {
    let (mut h, node) = acknowledge_dialog_open(acknowledge_world(), Options::default()).await;
    let api = other_client(&h.world);
    let old_uid = str_at(&h.node(&node), "/metadata/uid").to_string();

    // Seen by the watch: the dialog refuses.
    let new_uid = recreate(&api, &node).await;
    assert_ne!(new_uid, old_uid);
    h.refresh();
    h.press('y');
    let err = confirm_error(&h);
    assert!(
        err.contains(&format!(
            "node {node} was deleted and created again (uid {old_uid} is now {new_uid})"
        )),
        "{err}"
    );
    assert!(h.changes().is_empty());

    // Not seen yet: the writer reads the node, finds another uid, sends nothing.
    h.key(KeyCode::Esc, KeyModifiers::NONE);
    h.press('a');
    assert!(matches!(h.model.modals.dialog(), Some(Dialog::Confirm(_))));
    let newer_uid = recreate(&api, &node).await;
    h.press('y');
    let msg = outcome_message(&h.run_to_end(false).await);
    assert!(
        msg.contains(&format!(
            "node {node} was deleted and created again since it was drawn (uid {new_uid} is now {newer_uid})"
        )),
        "{msg}"
    );
    assert!(h.changes().is_empty(), "{:?}", h.changes());
    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
    let audit = h.audit();
    assert_eq!(audit.len(), 2);
    assert_eq!(audit[1].outcome, AuditOutcome::Refused);
}

// ---- Audit before write ----

#[tokio::test(start_paused = true)]
async fn audit_intent_not_written_nothing_sent() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            audit_unwritable: true,
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    h.select(&[&node]);
    h.press('m');
    h.press('j'); // manual
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    h.press('y');
    let outcome = h.run_to_end(false).await;
    assert!(
        matches!(&outcome, RunOutcome::Refused { message }
            if message.contains("the audit log could not be written, so nothing was sent")),
        "{outcome:?}"
    );
    assert!(h.changes().is_empty(), "{:?}", h.changes());
    assert_eq!(h.annotation(&node, MODE), None);
    let dialog = dialog_text(&h);
    assert!(
        dialog.contains("the audit log could not be written"),
        "{dialog}"
    );
}

#[tokio::test(start_paused = true)]
async fn audit_log_that_will_not_open_turns_actions_off_with_its_own_verdict() {
    let mut h = Harness::new(quick_world(), Options::default());
    // The audit log's directory is a regular file: the log cannot be opened.
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("not-a-dir");
    std::fs::write(&blocker, "").unwrap();
    let clusters = mosk_console::cluster::Clusters {
        mgmt: kube::Client::new(h.world.mgmt_router(), "default"),
        mosk: kube::Client::new(h.world.mosk_router(), "default"),
        mgmt_context: "sim-mgmt".into(),
        mosk_context: "sim-mosk".into(),
        mgmt_user: "u".into(),
        mosk_user: "u".into(),
        mgmt_server: "in-process".into(),
        mosk_server: "in-process".into(),
        clock: mosk_console::cluster::clock::ClockSync::new(),
        mgmt_transport: Default::default(),
        mosk_transport: Default::default(),
    };
    let opts = mosk_console::console::ConsoleOptions {
        session: h.model.session.clone(),
        theme: mosk_console::config::theme::Theme::default_theme(),
        keymap: mosk_console::config::keymap::Keymap::default_keymap(),
        audit_log: Some(blocker.join("audit.jsonl")),
        now: Arc::new(jiff::Timestamp::now),
        resync_every: std::time::Duration::from_secs(300),
        expected: Default::default(),
        max_objects: mosk_console::cluster::watch::DEFAULT_MAX_OBJECTS,
        pick: Vec::new(),
    };
    // A fresh model: nothing asked yet.
    h.model.actions = Default::default();
    h.exec = mosk_console::console::effects::ConsoleEffects::new(&clusters, &opts, h.tx.clone());
    let first = h.next_msg().await;
    assert!(
        matches!(&first, Msg::Action(WriteEvent::ActionsOff(why)) if why.contains("the audit log cannot be opened")),
        "{first:?}"
    );
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    h.select(&[&node]);
    for key in ['m', 'a', 'R'] {
        h.press(key);
        let notice = h
            .model
            .notice()
            .as_ref()
            .map(|n| n.text.clone())
            .unwrap_or_default();
        assert!(
            notice.contains("unavailable: the audit log cannot be opened, so actions are off"),
            "{key}: {notice}"
        );
        assert!(!notice.contains("RBAC"), "{key}: blamed on RBAC: {notice}");
        assert!(h.model.modals.dialog().is_none(), "{key}");
    }
    assert!(
        h.model
            .actions
            .access
            .entries
            .values()
            .all(|e| !matches!(e.verdict, AccessVerdict::Denied(_))),
        "no permission is recorded as denied: {:?}",
        h.model.actions.access.entries
    );
    assert!(screen_text(&h).contains("ACTIONS OFF"));
    // A plan that arrives anyway is refused unsent.
    let ctx = PlanContext {
        mosk_context: "sim-mosk".into(),
        dry_run: false,
    };
    let mut plan = plan_set_mode(
        &h.model.snapshot,
        &ctx,
        std::slice::from_ref(&node),
        &MigrationMode::Skip,
        None,
    )
    .unwrap();
    plan.id = 99;
    h.exec.run(Command::Execute(plan));
    let m = h.next_msg().await;
    assert!(
        matches!(&m, Msg::Action(WriteEvent::Finished { plan_id: 99, outcome: RunOutcome::Refused { message } })
            if message.contains("audit log cannot be opened")),
        "{m:?}"
    );
    assert_eq!(h.annotation(&node, MODE), None);
}

// ---- One action at a time ----

#[tokio::test(start_paused = true)]
async fn one_action_at_a_time_a_second_action_is_refused_on_every_key_path() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            answer_delay: Some(std::time::Duration::from_secs(60)),
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let nodes = h.computes();
    let second_before = h.annotation(&nodes[1], MODE);
    h.select(&[&nodes[0]]);
    h.press('m');
    h.press('j');
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    h.press('y');
    // The first write reached the server; its answer is 60 s away.
    loop {
        tokio::select! {
            _ = h.arrived.notified() => break,
            m = h.rx.recv() => { let m = m.unwrap(); h.apply(m); }
        }
    }
    assert!(h.model.actions.busy());
    assert_eq!(h.changes().len(), 1);
    h.select(&[&nodes[1]]);

    // The progress dialog is on top: action keys do nothing.
    for key in ['a', 'R', 'm', 'y'] {
        h.press(key);
        assert_eq!(h.model.modals.dialog(), Some(&Dialog::Progress), "{key}");
    }
    // Without it (closed by any path), each action key is refused.
    for key in ['a', 'R', 'm', 'c'] {
        h.model.modals.close_dialog();
        h.press(key);
        let notice = h
            .model
            .notice()
            .as_ref()
            .map(|n| n.text.clone())
            .unwrap_or_default();
        assert!(notice.contains("an action is running"), "{key}: {notice}");
        assert_eq!(h.model.modals.dialog(), Some(&Dialog::Progress), "{key}");
    }
    // `y` on another confirmation dialog is refused.
    let ctx = PlanContext {
        mosk_context: "sim-mosk".into(),
        dry_run: false,
    };
    let mut second = plan_set_mode(
        &h.model.snapshot,
        &ctx,
        std::slice::from_ref(&nodes[1]),
        &MigrationMode::Skip,
        None,
    )
    .unwrap();
    second.id = 1000;
    h.model
        .modals
        .open_dialog(Dialog::Confirm(ConfirmDialog::new(second.clone())));
    h.press('y');
    match h.model.modals.dialog() {
        Some(Dialog::Confirm(c)) => assert!(
            c.error
                .as_deref()
                .unwrap_or_default()
                .contains("already running"),
            "{:?}",
            c.error
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(h.changes().len(), 1, "the UI sent nothing more");

    // The executor itself refuses a second plan while the first runs.
    h.exec.run(Command::Execute(second));
    let mut refused = None;
    while refused.is_none() || !h.model.actions.running.as_ref().unwrap().finished() {
        if let Msg::Action(WriteEvent::Finished {
            plan_id: 1000,
            outcome,
        }) = h.next_msg().await
        {
            refused = Some(outcome);
        }
    }
    assert_eq!(
        refused,
        Some(RunOutcome::Refused {
            message: SECOND_PLAN_REFUSED.into()
        })
    );
    assert_eq!(
        h.model.actions.running.as_ref().unwrap().outcome,
        Some(RunOutcome::Completed { dry_run: false }),
        "the first plan ran to its end"
    );
    assert_eq!(h.changes().len(), 1, "{:?}", h.changes());
    assert_eq!(h.annotation(&nodes[1], MODE), second_before);
    assert_ne!(second_before.as_deref(), Some("skip"));
    assert_eq!(h.annotation(&nodes[0], MODE).as_deref(), Some("manual"));
}
