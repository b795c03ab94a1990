//! Screen snapshots of every view and overlay, at 80x24 (the smallest
//! terminal served) and 160x48, from fixed models (`domain::fixtures`, a
//! fixed `now`). Update with `INSTA_UPDATE=always cargo test --test screens ui_snapshots`
//! and read every changed `.snap` file before committing it.

use crate::domain::fixtures::{self, names::*};
use crate::ui_support::*;
use jiff::SignedDuration;
use mosk_console::app::modal::Modal;
use mosk_console::app::model::{Model, Notice, NoticeLevel, TableCursor, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::audit::AuditRecord;
use mosk_console::cluster::events::WatchHealth;
use mosk_console::cluster::writes::WriteEvent;
use mosk_console::domain::objects::{ClusterId, Kind, MachineState, Object};
use std::sync::Arc;

/// Snapshots `model` at 80x24 and 160x48 as `<name>_80x24` and `<name>_160x48`.
fn snap_both(name: &str, model: &Model) {
    for (w, h) in [(80, 24), (160, 48)] {
        let t = render(model, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), t.backend());
    }
}

#[test]
fn overview() {
    snap_both("overview", &with_view(View::Overview));
}

#[test]
fn machines() {
    snap_both("machines", &with_view(View::Machines));
    // At 80x24 the columns that matter stay legible: NAME, STATE, MODE,
    // WAITING ON (its start).
    let text = text_of(
        render(&with_view(View::Machines), 80, 24)
            .backend()
            .buffer(),
    );
    for needle in [
        "NAME",
        "STATE",
        "MODE",
        "WAITING ON",
        WORKER_2,
        "Deploy",
        " manual ",
        "lock openstack active: servers",
    ] {
        assert!(text.contains(needle), "{needle} missing at 80x24:\n{text}");
    }
}

#[test]
fn machines_keep_the_migration_mode_at_80_and_120_columns() {
    let m = with_view(View::Machines);
    for (w, h) in [(80, 24), (120, 32)] {
        let t = render(&m, w, h);
        let text = text_of(t.backend().buffer());
        let header = text.lines().find(|l| l.contains("NAME")).unwrap();
        assert!(header.contains(" MODE "), "{w}:\n{text}");
        // The node in manual mode reads so, beside its machine's name.
        let row = text.lines().find(|l| l.contains(WORKER_3)).unwrap();
        assert!(row.contains(" manual "), "{w}:\n{text}");
        insta::assert_snapshot!(format!("machines_mode_{w}x{h}"), t.backend());
    }
}

#[test]
fn machines_with_detail() {
    let mut m = with_view(View::Machines);
    open_detail(&mut m, WORKER_2);
    snap_both("machines_detail", &m);
}

#[test]
fn machines_filtered_sorted_and_marked() {
    let mut m = with_view(View::Machines);
    m.views.cursors.insert(
        View::Machines,
        TableCursor {
            selected_id: Some(WORKER_3.into()),
            filter: "compute".into(),
            sort_column: 3,
            sort_reverse: true,
            ..Default::default()
        },
    );
    m.selected_nodes_mut().insert(NODE_W3.into());
    m.selected_nodes_mut().insert(NODE_W4.into());
    snap_both("machines_filtered", &m);
}

#[test]
fn cluster_states() {
    snap_both("states", &with_view(View::States));
}

#[test]
fn locks() {
    snap_both("locks", &with_view(View::Locks));
}

#[test]
fn maintenance_requests() {
    snap_both("requests", &with_view(View::Requests));
}

#[test]
fn vrouter() {
    snap_both("vrouter", &with_view(View::Vrouter));
}

/// The vRouter view after a DaemonSet spec edit outside its template:
/// `metadata.generation` 7, template generation 6, every pod from template
/// 6 with the matching revision hash. Nothing is outdated (the attention
/// queue and the restart refusal after such an edit: tests/actions_sim,
/// `a_spec_edit_outside_the_template_shows_no_outdated_pod`).
#[test]
fn vrouter_after_a_spec_edit_outside_the_template() {
    let mut m = base_model();
    for (node, pod) in fixtures::VROUTER_PODS {
        m.snapshot
            .apply(Object::VrouterPod(Arc::new(fixtures::vrouter_pod(
                pod, node, 6, true,
            ))));
    }
    let mut ds = fixtures::vrouter_ds(7, 4);
    ds.template_generation = Some(6);
    ds.updated = 4;
    m.snapshot.apply(Object::VrouterDaemonSet(Arc::new(ds)));
    m.view = View::Vrouter;
    settled(&mut m);
    snap_both("vrouter_spec_edit", &m);
    let text = text_of(render(&m, 160, 48).backend().buffer());
    assert!(
        text.contains("done: every pod runs the current template"),
        "{text}"
    );
    assert!(text.contains("rev6 (gen 6)"), "{text}");
}

/// The pod's watch event came before the DaemonSet's: worker-3's pod is
/// from template generation 3, the DaemonSet seen is at 2. The screen says
/// "unknown", and no restart is planned for it.
#[test]
fn a_pod_newer_than_the_daemonset_seen_is_unknown_on_screen() {
    let mut m = base_model();
    m.snapshot
        .apply(Object::VrouterPod(Arc::new(fixtures::vrouter_pod(
            VROUTER_POD_W3,
            NODE_W3,
            3,
            true,
        ))));
    m.view = View::Vrouter;
    settled(&mut m);
    let text = text_of(render(&m, 160, 48).backend().buffer());
    let row = text
        .lines()
        .find(|l| l.contains(VROUTER_POD_W3))
        .unwrap_or_else(|| panic!("no row for the pod: {text}"));
    assert!(row.contains("rev3 (gen 3) unknown"), "{row}");
    assert!(text.contains("converging: 2 outdated"), "{text}");
    let order: Vec<String> = mosk_console::domain::vrouter::restart_order(&m.snapshot)
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert!(!order.contains(&VROUTER_POD_W3.to_string()), "{order:?}");
    // The machine's detail says why.
    let mut d = with_view(View::Machines);
    d.snapshot = m.snapshot.clone();
    settled(&mut d);
    open_detail(&mut d, WORKER_3);
    let text = text_of(render(&d, 200, 90).backend().buffer());
    assert!(
        text.contains("revision unknown: the pod is from template generation 3"),
        "{text}"
    );
}

#[test]
fn logs() {
    snap_both("logs", &with_view(View::Logs));
}

#[test]
fn events() {
    snap_both("events", &with_view(View::Events));
}

#[test]
fn audit() {
    snap_both("audit", &with_view(View::Audit));
}

/// One audit record of this session (optional fields left out default).
fn audit_record(plan: u64, phase: &str, fields: serde_json::Value) -> AuditRecord {
    let mut v = serde_json::json!({
        "time": ago(600 - 60 * plan as i64).to_string(), "session": "s", "plan": plan,
        "phase": phase, "user": "jane", "user_source": "SelfSubjectReview",
        "context": "child-admin@child-cl", "kind": "Node", "uid": "u",
        "change": {}, "dry_run": false, "outcome": "pending",
    });
    for (k, x) in fields.as_object().unwrap() {
        v[k] = x.clone();
    }
    serde_json::from_value(v).unwrap()
}

#[test]
fn audit_with_records() {
    use serde_json::json;
    let mut m = with_view(View::Audit);
    let mode = "instance_migration_mode: manual -> skip";
    let records = [
        audit_record(
            1,
            "intent",
            json!({"action": "set-migration-mode", "name": NODE_W1,
            "change_text": "instance_migration_mode: live -> manual"}),
        ),
        audit_record(
            1,
            "result",
            json!({"action": "set-migration-mode", "name": NODE_W1,
            "change_text": "instance_migration_mode: live -> manual", "outcome": "succeeded",
            "message": "instance_migration_mode is manual"}),
        ),
        audit_record(
            2,
            "intent",
            json!({"action": "acknowledge-migration", "name": NODE_W3,
            "change_text": mode}),
        ),
        audit_record(
            2,
            "result",
            json!({"action": "acknowledge-migration", "name": NODE_W3,
            "change_text": mode, "outcome": "refused",
            "message": format!("node {NODE_W3} changed since it was drawn: instance_migration_mode is \"live\" now (the dialog showed \"manual\"); nothing was changed")}),
        ),
        audit_record(
            3,
            "intent",
            json!({"action": "restart-vrouter", "kind": "Pod",
            "namespace": "tf", "name": VROUTER_POD_W1, "dry_run": true,
            "change_text": "delete; replacement runs generation 1 -> 2"}),
        ),
    ];
    for rec in records {
        update(&mut m, Msg::Action(WriteEvent::Audit(Box::new(rec))));
    }
    settled(&mut m);
    snap_both("audit_with_records", &m);
    let text = text_of(render(&m, 160, 48).backend().buffer());
    for needle in [
        "succeeded: instance_migration_mode is m",
        "refused: node",
        "dry-run pending",
        "Acknowledge migration",
        "instance_migration_mode: manual -> skip",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
}

#[test]
fn help_overlay() {
    let mut m = with_view(View::Machines);
    m.modals.push(Modal::Help { scroll: 0 });
    snap_both("help", &m);
    m.modals.push(Modal::Help { scroll: 1000 });
    let t = render(&m, 80, 24);
    insta::assert_snapshot!("help_scrolled_to_end_80x24", t.backend());
}

#[test]
fn input_overlays() {
    let mut m = with_view(View::Machines);
    m.modals.push(Modal::FilterInput { text: "wor".into() });
    insta::assert_snapshot!("filter_input_80x24", render(&m, 80, 24).backend());
    m.modals.push(Modal::CommandInput { text: "lo".into() });
    insta::assert_snapshot!("command_input_80x24", render(&m, 80, 24).backend());
    let mut m = with_view(View::Logs);
    m.modals.push(Modal::LogSearchInput {
        text: "drain".into(),
    });
    insta::assert_snapshot!("log_search_input_80x24", render(&m, 80, 24).backend());
}

#[test]
fn terminal_too_small() {
    let t = render(&base_model(), 60, 20);
    insta::assert_snapshot!("too_small_60x20", t.backend());
    assert!(text_of(t.backend().buffer()).contains("need 80x24, have 60x20"));
}

#[test]
fn missing_crd_table() {
    let mut m = with_view(View::States);
    m.missing_kinds.insert(
        Kind::LcmClusterState,
        "the server could not find the requested resource (404)".into(),
    );
    m.snapshot.replace_kind(Kind::LcmClusterState, vec![]);
    m.health.remove(&Kind::LcmClusterState);
    insta::assert_snapshot!("missing_crd_80x24", render(&m, 80, 24).backend());
}

#[test]
fn empty_table() {
    let mut m = with_view(View::Requests);
    m.snapshot
        .replace_kind(Kind::ClusterMaintenanceRequest, vec![]);
    m.snapshot
        .replace_kind(Kind::NodeMaintenanceRequest, vec![]);
    insta::assert_snapshot!("empty_table_80x24", render(&m, 80, 24).backend());
}

#[test]
fn degraded_watch_and_notice() {
    let mut m = with_view(View::Machines);
    m.health.insert(
        Kind::Node,
        WatchHealth {
            cluster: Kind::Node.cluster(),
            connected: false,
            last_event: Some(ago(12)),
            last_error: Some("connection refused".into()),
            retry_at: Some(now() + SignedDuration::from_secs(8)),
            problem: Default::default(),
        },
    );
    m.freshness.get_mut(&Kind::Node).unwrap().down_since = Some(ago(12));
    m.notices.raise(Notice {
        text: "patch refused: nodes \"kaas-node-b2a5\" is forbidden".into(),
        level: NoticeLevel::Error,
        at: now(),
        real_at: Default::default(),
    });
    m.session.read_only = true;
    m.session.demo = Some("mid-update".into());
    let t = render(&m, 80, 24);
    insta::assert_snapshot!("degraded_notice_80x24", t.backend());
    let text = text_of(t.backend().buffer());
    assert!(
        text.contains("1 degraded: nodes (connection refused"),
        "{text}"
    );
    assert!(text.contains("READ-ONLY"), "{text}");
    assert!(text.contains("error: patch refused"), "{text}");
    // With room, the contexts and the whole health line are shown.
    let text = text_of(render(&m, 160, 48).backend().buffer());
    assert!(
        text.contains(
            "mgmt: mgmt-admin@kaas-mgmt  mosk: child-admin@child-cl │ 1 degraded: nodes (connection refused, 12s)"
        ),
        "{text}"
    );
}

/// The MOSK API unreachable for 45 s: every pane that reads a MOSK kind
/// says so in its border, and the phase, gauge and queue are not facts.
fn stale_model() -> Model {
    let mut m = base_model();
    for k in Kind::ALL
        .into_iter()
        .filter(|k| k.cluster() == ClusterId::Mosk)
    {
        m.health.insert(
            k,
            WatchHealth {
                cluster: k.cluster(),
                connected: false,
                last_event: Some(ago(50)),
                last_error: Some("connection refused".into()),
                retry_at: Some(now() + SignedDuration::from_secs(8)),
                problem: Default::default(),
            },
        );
        m.freshness.get_mut(&k).unwrap().down_since = Some(ago(45));
    }
    m
}

#[test]
fn stale_overview_and_tables() {
    let m = stale_model();
    snap_both("stale_overview", &m);
    let text = text_of(render(&m, 160, 48).backend().buffer());
    assert!(
        text.contains("STALE: mosk API unreachable for 45s, data as of 10:29:15, retrying in 8s"),
        "{text}"
    );
    assert!(text.contains("phase 4/5 worker nodes (stale)"), "{text}");
    let mut locks = m.clone();
    locks.view = View::Locks;
    insta::assert_snapshot!("stale_locks_80x24", render(&locks, 80, 24).backend());
    let mut states = m;
    states.view = View::States;
    let text = text_of(render(&states, 160, 48).backend().buffer());
    assert!(
        !text.contains("STALE"),
        "LCMClusterStates come from mgmt: {text}"
    );
}

#[test]
fn loading_overview() {
    let mut m = base_model();
    // Not listed yet: their watches are still starting (no health yet).
    for k in [Kind::Node, Kind::NodeWorkloadLock, Kind::VrouterPod] {
        m.freshness.remove(&k);
        m.health.remove(&k);
    }
    snap_both("loading_overview", &m);
    let text = text_of(render(&m, 80, 24).backend().buffer());
    assert!(text.contains("loading: 15 of 18 lists"), "{text}");
    // The status bar agrees: three watches have not started, not "18/18 ok".
    assert!(text.contains("watches 15/18 ok, 3 starting"), "{text}");
    for claim in ["machines done", "phase", "Attention (", "ETA"] {
        assert!(!text.contains(claim), "{claim}: {text}");
    }
}

// ---- Big inputs: only what fits is built ----

#[test]
fn a_full_log_buffer_shows_its_window_and_the_dropped_marker() {
    let mut m = with_view(View::Logs);
    let lines: Vec<String> = (0..mosk_console::app::logs::LOG_CAPACITY + 250)
        .map(|i| format!("plain line {i}"))
        .collect();
    m.logs.push("p", &lines);
    let text = text_of(render(&m, 80, 24).backend().buffer());
    assert!(
        text.contains("plain line 20249"),
        "newest line shown when following: {text}"
    );
    assert!(text.contains("dropped 257"), "{text}");
    // Scrolled to the oldest kept line: the marker says lines were dropped.
    m.logs.follow = false;
    m.logs.anchor = m.logs.lines.front().map(|l| l.seq + 3);
    let t = render(&m, 80, 24);
    insta::assert_snapshot!("logs_scrolled_to_oldest_80x24", t.backend());
    let text = text_of(t.backend().buffer());
    assert!(text.contains("PAUSED"), "{text}");
    assert!(text.contains("…257 lines dropped"), "{text}");
}

#[test]
fn two_thousand_machines_render_the_window_around_the_cursor() {
    use mosk_console::domain::objects::{MachineType, Object};
    let mut m = with_view(View::Machines);
    for i in 0..2000 {
        let name = format!("w-{:04}", i + 10);
        m.snapshot.apply(Object::Machine(Arc::new(fixtures::machine(
            &name,
            MachineType::Worker,
            MachineState::Ready,
            None,
            Some(100 + i),
        ))));
    }
    m.views.cursors.insert(
        View::Machines,
        TableCursor {
            selected_id: Some("w-1509".into()),
            ..Default::default()
        },
    );
    let t = render(&m, 80, 24);
    let text = text_of(t.backend().buffer());
    assert!(text.contains("Machines (2007)"), "{text}");
    assert!(text.contains("w-1509"), "{text}");
    assert!(!text.contains("w-0010"), "{text}");
}
