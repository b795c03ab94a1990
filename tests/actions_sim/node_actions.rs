//! Set migration mode and acknowledge manual migration, on one and on several nodes.

use crossterm::event::{KeyCode, KeyModifiers};
use mosk_console::audit::{AuditOutcome, AuditPhase};
use mosk_console::domain::action::run::RunOutcome;
use serde_json::json;

use super::harness::*;

#[tokio::test(start_paused = true)]
async fn set_mode_and_attempts_on_one_node() {
    let mut h = Harness::new(quick_world(), Options::default());
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    let uid = str_at(&h.node(&node), "/metadata/uid").to_string();
    assert_eq!(h.annotation(&node, MODE), None);
    assert_eq!(
        h.set_manual_with_attempts(&node, '5').await,
        RunOutcome::Completed { dry_run: false }
    );

    assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
    assert_eq!(h.annotation(&node, ATTEMPTS).as_deref(), Some("5"));
    let changes = h.changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].method, "PATCH");
    assert_eq!(changes[0].path, format!("/api/v1/nodes/{node}"));
    assert!(!changes[0].query.contains("dryRun"));
    assert_eq!(
        changes[0].intents_on_disk, 1,
        "the intent was on disk before the request"
    );

    let audit = h.audit();
    assert_eq!(audit.len(), 2, "{audit:#?}");
    let (intent, result) = (&audit[0], &audit[1]);
    assert_eq!(intent.phase, AuditPhase::Intent);
    assert_eq!(intent.outcome, AuditOutcome::Pending);
    assert_eq!(result.phase, AuditPhase::Result);
    assert_eq!(result.outcome, AuditOutcome::Succeeded);
    for r in &audit {
        assert_eq!(r.action, "set-migration-mode");
        assert_eq!(r.user, "operator-jane");
        assert_eq!(r.user_source, "SelfSubjectReview");
        assert_eq!(r.context, "sim-mosk");
        assert_eq!(r.kind, "Node");
        assert_eq!(r.name, node);
        assert_eq!(r.uid, uid);
        assert!(!r.dry_run);
        assert_eq!(r.plan, intent.plan);
    }
    assert_eq!(
        intent.change,
        json!({"type": "annotations", "annotations": [
            {"key": MODE, "old": null, "new": "manual"},
            {"key": ATTEMPTS, "old": null, "new": "5"},
        ]})
    );
    assert!(intent.time <= result.time);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&h.audit_path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }
    // This session's actions are listed for the Audit view.
    let rows = mosk_console::app::actions::audit_rows(&h.model);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0].result,
        format!("succeeded: instance_migration_mode is manual, instance_migration_attempts is 5")
    );
}

#[tokio::test(start_paused = true)]
async fn set_mode_on_several_nodes() {
    let mut h = Harness::new(quick_world(), Options::default());
    h.tick_and_settle().await;
    let nodes = h.computes();
    assert_eq!(nodes.len(), 3);
    let refs: Vec<&str> = nodes.iter().map(String::as_str).collect();
    h.select(&refs);
    h.press('m');
    h.press('j');
    h.press('j'); // skip
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    for n in &nodes {
        assert_eq!(h.annotation(n, MODE).as_deref(), Some("skip"), "{n}");
    }
    let changes = h.changes();
    assert_eq!(changes.len(), 3);
    assert!(changes.iter().all(|c| c.method == "PATCH"));
    for (i, c) in changes.iter().enumerate() {
        assert_eq!(
            c.intents_on_disk,
            i + 1,
            "intent on disk before request {i}"
        );
    }
    let audit = h.audit();
    assert_eq!(audit.len(), 6);
    // Intent before result for each node, one node after the other.
    for (i, pair) in audit.chunks(2).enumerate() {
        assert_eq!(pair[0].phase, AuditPhase::Intent);
        assert_eq!(pair[1].phase, AuditPhase::Result);
        assert_eq!(pair[0].name, pair[1].name);
        assert_eq!(pair[1].outcome, AuditOutcome::Succeeded);
        assert!(refs.contains(&pair[0].name.as_str()), "{i}");
    }
}

/// Steps the world until every node in `nodes` has an OpenStack lock saying servers are still present.
pub fn wait_for_servers_present(h: &Harness, nodes: &[String]) -> bool {
    h.world
        .step_until(jiff::SignedDuration::from_secs(4 * 3600), |w| {
            nodes.iter().all(|n| {
                w.mosk().list("nodeworkloadlocks", None).iter().any(|l| {
                    str_at(l, "/spec/nodeName") == n
                        && str_at(l, "/spec/controllerName") == "openstack"
                        && str_at(l, "/status/errorMessage")
                            .contains("Some servers are still present")
                })
            })
        })
}

#[tokio::test(start_paused = true)]
async fn acknowledge_on_one_and_then_several_nodes() {
    let world = custom_world(
        "worker_concurrency = 3\nvrouter_manual_restart = true\nrelease = { from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 3\ninstances = 1\nmigration_mode = \"manual\"\n",
    );
    let mut h = Harness::new(world, Options::default());
    h.tick_and_settle().await;
    let nodes = h.computes();
    assert!(
        wait_for_servers_present(&h, &nodes),
        "all three computes wait for the operator"
    );
    h.tick_and_settle().await; // the RBAC answers expired while the world moved on

    // One node.
    h.select(&[&nodes[0]]);
    h.press('a');
    assert!(h.model.modals.dialog().is_some(), "{:?}", h.model.notice());
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    h.close();
    assert_eq!(h.annotation(&nodes[0], MODE).as_deref(), Some("skip"));
    assert_eq!(h.annotation(&nodes[1], MODE).as_deref(), Some("manual"));
    let audit = h.audit();
    assert_eq!(audit.len(), 2);
    let servers = h.world.servers_on(&nodes[0]);
    assert!(!servers.is_empty());
    assert_eq!(
        sorted(&audit[0].servers),
        sorted(&servers),
        "the audit keeps the server list"
    );
    assert_eq!(
        audit[0].change_text,
        "instance_migration_mode: manual -> skip"
    );

    // The two others at once.
    h.refresh();
    h.select(&[&nodes[1], &nodes[2]]);
    h.press('a');
    assert!(h.model.modals.dialog().is_some(), "{:?}", h.model.notice());
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    for n in &nodes {
        assert_eq!(h.annotation(n, MODE).as_deref(), Some("skip"), "{n}");
    }
    let audit = h.audit();
    assert_eq!(audit.len(), 6);
    for r in &audit[2..] {
        assert_eq!(r.action, "acknowledge-migration");
        assert_eq!(sorted(&r.servers), sorted(&h.world.servers_on(&r.name)));
    }
    assert_eq!(h.changes().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn acknowledge_is_not_offered_before_the_lock_asks() {
    let mut h = Harness::new(quick_world(), Options::default());
    h.tick_and_settle().await;
    let node = h.computes()[1].clone();
    h.select(&[&node]);
    h.press('a');
    assert!(h.model.modals.dialog().is_none());
    assert!(
        h.notice_text().contains("servers are still present"),
        "{:?}",
        h.model.notice()
    );
    assert!(h.changes().is_empty());
}

fn sorted(v: &[String]) -> Vec<String> {
    let mut v = v.to_vec();
    v.sort();
    v
}

#[tokio::test(start_paused = true)]
async fn without_self_subject_review_the_audit_names_the_kubeconfig_user() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            self_subject_review: false,
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let node = h.computes()[2].clone();
    h.select(&[&node]);
    h.press('m');
    h.press('j');
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    for r in h.audit() {
        assert_eq!(r.user, "kubeconfig-user");
        assert_eq!(r.user_source, "kubeconfig");
    }
}
