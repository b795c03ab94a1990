//! The wrap-up view (`:wrapup`): snapshots when the update is done (every
//! vRouter pod current) and when vRouter pods are outdated, the migration
//! modes read back from the audit log, and the checklist's ticks in the
//! session report.

use crate::domain::fixtures::names::*;
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::audit::{AuditOutcome, AuditPhase, AuditRecord, ReadBack};
use mosk_console::domain::objects::Object;
use mosk_console::domain::phase::{Phase, PhaseInfo};
use std::sync::Arc;

/// A result record of an earlier session changing `node`'s mode; `old`
/// `None` leaves the previous value out, as a record that did not keep it.
fn record(action: &str, node: &str, old: Option<Option<&str>>, new: &str) -> AuditRecord {
    let mut a = serde_json::json!({
        "key": "openstack.lcm.mirantis.com/instance_migration_mode",
        "new": new,
    });
    if let Some(old) = old {
        a["old"] = serde_json::json!(old);
    }
    AuditRecord {
        time: ago(7200),
        session: "earlier".into(),
        plan: 1,
        phase: AuditPhase::Result,
        action: action.into(),
        user: "operator-jane".into(),
        user_source: "SelfSubjectReview".into(),
        context: "child-admin@child-cl".into(),
        kind: "Node".into(),
        namespace: None,
        name: node.into(),
        uid: format!("uid-{node}"),
        change: serde_json::json!({"type": "annotations", "annotations": [a]}),
        change_text: String::new(),
        servers: Vec::new(),
        dry_run: false,
        permission: None,
        permission_note: None,
        kubeconfig_user: None,
        connection: None,
        outcome: AuditOutcome::Succeeded,
        message: None,
        simulated: false,
    }
}

fn key(m: &mut Model, code: KeyCode) {
    update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// The fixture cluster after the update: phase done, the audit log of an
/// earlier session read back (worker-3 set to manual from live: offered;
/// worker-2 set to skip, unset now: changed since; worker-1's record
/// without the previous value), every vRouter pod current unless `outdated`.
fn done_model(outdated: bool) -> Model {
    let mut m = base_model();
    if !outdated {
        let pods: Vec<_> = m.snapshot.vrouter_pods().cloned().collect();
        for mut p in pods {
            p.template_generation = Some(2);
            p.revision = Some("rev2".into());
            m.snapshot.apply(Object::VrouterPod(Arc::new(p)));
        }
        let mut ds = m.snapshot.vrouter_daemonsets().next().unwrap().clone();
        ds.updated = ds.current;
        m.snapshot.apply(Object::VrouterDaemonSet(Arc::new(ds)));
    }
    update(
        &mut m,
        Msg::AuditReadBack(ReadBack {
            records: vec![
                record("set-migration-mode", NODE_W3, Some(Some("live")), "manual"),
                record(
                    "acknowledge-migration",
                    NODE_W2,
                    Some(Some("manual")),
                    "skip",
                ),
                record("set-migration-mode", NODE_W1, None, "live"),
            ],
            unreadable: 0,
            error: None,
        }),
    );
    m.view = View::Wrapup;
    settled(&mut m);
    m.derived.phase = Some(PhaseInfo {
        phase: Phase::Done,
        reason: "the ClusterMaintenanceRequest is gone; every machine is Ready".into(),
        step: None,
    });
    m
}

#[test]
fn wrapup_when_done() {
    let mut m = done_model(false);
    // The smoke tests ticked: the cursor walks the three modes, then the steps.
    for _ in 0..5 {
        key(&mut m, KeyCode::Char('j'));
    }
    key(&mut m, KeyCode::Enter);
    for (w, h) in [(80, 24), (120, 40)] {
        let t = render(&m, w, h);
        insta::assert_snapshot!(format!("wrapup_done_{w}x{h}"), t.backend());
    }
    let text = text_of(render(&m, 120, 40).backend().buffer());
    assert!(text.contains("UP-TO-DATE = CURRENT"), "{text}");
    assert!(text.contains("1/4 done"), "{text}");
}

#[test]
fn wrapup_when_vrouter_pods_are_outdated() {
    let m = done_model(true);
    for (w, h) in [(80, 24), (120, 40)] {
        let t = render(&m, w, h);
        insta::assert_snapshot!(format!("wrapup_vrouter_outdated_{w}x{h}"), t.backend());
    }
    let text = text_of(render(&m, 120, 40).backend().buffer());
    assert!(text.contains("outdated: restart them"), "{text}");
    assert!(!text.contains("UP-TO-DATE = CURRENT"), "{text}");
    // The modes: offered, changed since, not recorded.
    assert!(text.contains("restore offered: back to \"live\""), "{text}");
    assert!(text.contains("changed since"), "{text}");
    assert!(text.contains("predates the previous value"), "{text}");
}

#[test]
fn the_overview_offers_the_wrapup_when_the_update_is_done() {
    let mut m = done_model(false);
    m.view = View::Overview;
    let text = text_of(render(&m, 120, 40).backend().buffer());
    assert!(text.contains(":wrapup: wrap up"), "{text}");
    let m = base_model();
    let text = text_of(render(&m, 120, 40).backend().buffer());
    assert!(!text.contains(":wrapup"), "not offered mid-update: {text}");
}

#[test]
fn checklist_ticks_are_kept_in_the_session_report() {
    let mut m = done_model(false);
    let report = mosk_console::app::report::render(&m);
    assert!(
        report.contains("- [ ] smoke tests: run Tempest"),
        "{report}"
    );
    for _ in 0..5 {
        key(&mut m, KeyCode::Char('j'));
    }
    key(&mut m, KeyCode::Enter); // smoke tests
    key(&mut m, KeyCode::Char('j'));
    key(&mut m, KeyCode::Enter); // silences
    key(&mut m, KeyCode::Enter); // and untick it again
    key(&mut m, KeyCode::Enter); // and tick it
    assert!(mosk_console::app::report::due_at_quit(&m));
    let report = mosk_console::app::report::render(&m);
    let tick = now().strftime("%Y-%m-%d %H:%M:%S").to_string();
    assert!(
        report.contains(&format!(
            "- [x] smoke tests: run Tempest (after the update, step 4), done {tick}"
        )),
        "{report}"
    );
    assert!(
        report.contains("- [x] expire the StackLight alert silences"),
        "{report}"
    );
    assert!(
        report.contains("- [ ] post-update steps of the target release"),
        "{report}"
    );
    // The modes and where each stands.
    assert!(
        report.contains("restore offered: back to \"live\""),
        "{report}"
    );
}
