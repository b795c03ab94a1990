//! The same checks over the real wire: hostile strings stored in the
//! simulated clusters (in the free-text fields a real API server accepts:
//! statuses, messages, annotations, log lines), read by the console's real
//! watchers and log follower through kube-rs over HTTP, applied with
//! `update`, drawn on every screen through the crossterm backend.

use mosk_console::cluster::{ClusterEvent, LogOptions, spawn_log_follower, spawn_watchers};
use mosk_console::domain::objects::Kind;
use mosk_console::sim::registry::Registry;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::cluster_support::*;
use super::inputs::SEQUENCES;
use super::{Screen, base_model, screen, screens, show};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::config::theme::Theme;

const LCM_POD: &str = "lcm-lcm-controller-5d8f7c9b4-aaaaa";

/// Text with every injected sequence of the generator, plus controls, bidi,
/// zero-width and combining characters.
fn hostile_text(tag: &str) -> String {
    let mut s = format!("{tag} ");
    for (_, seq) in SEQUENCES.iter().filter(|(k, _)| *k != "unterminated") {
        s.push_str(seq);
        s.push_str(
            "x\u{202e}y\u{2066}z\u{200d}\u{7}\u{9b}e\u{301}\u{301}\u{301}\u{301}\u{301}\u{301} ",
        );
    }
    s.push_str(
        SEQUENCES
            .iter()
            .find(|(k, _)| *k == "unterminated")
            .unwrap()
            .1,
    );
    s
}

/// A JSON log line whose strings carry the sequences `\u`-escaped (short
/// enough for the follower's line cap: a longer line is cut and shown as the
/// text it is, escapes spelled out).
fn json_line(tag: &str) -> String {
    let mut all = format!("{tag} ");
    for (_, seq) in SEQUENCES {
        all.push_str(seq);
        all.push_str("x\u{202e}y ");
    }
    let msg = serde_json::to_string(&all).unwrap();
    let short =
        serde_json::to_string(&format!("{tag}\u{1b}]52;c;PWN\u{7}\u{9b}2J\u{202e}m")).unwrap();
    format!(
        r#"{{"level":"error","logger":{short},"msg":{msg},"machine":{short},"n":{{"k":[{short}]}}}}"#
    )
}

#[tokio::test]
async fn hostile_strings_over_http_are_drawn_inert() {
    let pair = pair(Registry::mgmt(), Registry::mosk()).await;
    let (mgmt, mosk) = (&pair.mgmt.store, &pair.mosk.store);
    let h = hostile_text;
    mgmt.create(
        "lcmmachines",
        json!({"metadata": {"name": "m-worker-1", "namespace": "child-ns",
                            "annotations": {"lcm.mirantis.com/index": h("index")}},
               "spec": {"clusterName": "child-cl", "type": "worker"},
               "status": {"state": h("state"), "agentVersion": h("agent"), "release": h("release"),
                          "addresses": [{"type": "Hostname", "address": "kaas-node-1"}]}}),
    )
    .unwrap();
    mgmt.create(
        "lcmclusterstates",
        json!({"metadata": {"name": "cs-1", "namespace": "child-ns"},
               "spec": {"clusterName": "child-cl", "type": h("type"), "arg": "m-worker-1", "value": "true"},
               "status": {"value": "false", "attempt": 3, "message": h("message")}}),
    )
    .unwrap();
    let mut n = node("kaas-node-1");
    n["metadata"]["annotations"] = json!({
        "openstack.lcm.mirantis.com/instance_migration_mode": h("mode"),
        "openstack.lcm.mirantis.com/instance_migration_attempts": h("attempts")});
    mosk.create("nodes", n).unwrap();
    let mut lock = node_lock("openstack", "kaas-node-1", "active");
    lock["status"]["errorMessage"] = json!(h("lock message"));
    lock["metadata"]["annotations"] = json!({"inner_state": h("inner")});
    mosk.create("nodeworkloadlocks", lock).unwrap();
    mosk.create(
        "nodemaintenancerequests",
        json!({"metadata": {"name": "kaas-node-1"}, "spec": {"nodeName": "kaas-node-1", "scope": h("scope")}}),
    )
    .unwrap();
    mgmt.create("pods", pod(LCM_POD, "kaas", true)).unwrap();
    for i in 0..3 {
        mgmt.append_log("kaas", LCM_POD, "controller", &h(&format!("plain {i}")));
        mgmt.append_log(
            "kaas",
            LCM_POD,
            "controller",
            &json_line(&format!("json {i}")),
        );
    }
    mgmt.append_log("kaas", LCM_POD, "controller", "the last line");

    let clusters = pair.connect().await;
    let (tx, rx) = mosk_console::cluster::channel::channel();
    let cancel = CancellationToken::new();
    let _watchers = spawn_watchers(&clusters, &fast_watch(), tx.clone(), cancel.clone());
    let opts = LogOptions {
        backoff: fast_backoff(),
        ..LogOptions::default()
    };
    spawn_log_follower(clusters.mgmt.clone(), opts, tx, cancel.clone());

    // Everything the cluster layer sends goes through `update`.
    let mut model = base_model();
    let mut events = Events::new(rx);
    let mut listed = Vec::new();
    events
        .until("every kind listed and the last log line", |ev| {
            if let ClusterEvent::Resynced { kind, .. } = ev {
                listed.push(*kind);
            }
            update(&mut model, Msg::Cluster(ev.clone()));
            Kind::ALL.iter().all(|k| listed.contains(k))
                && model.logs.lines.iter().any(|l| l.text() == "the last line")
        })
        .await;
    cancel.cancel();
    assert_eq!(model.logs.lines.len(), 7, "{:#?}", model.logs.lines);
    assert!(
        model
            .snapshot
            .machines()
            .any(|m| m.state.as_str().starts_with("state"))
    );

    let theme = Theme::default_theme();
    for s in screens() {
        for (w, h) in [(80, 24), (160, 48)] {
            show(&mut model, s);
            let (check, _) = screen::draw_and_check(&mut model, &theme, w, h);
            assert!(
                check.violations.is_empty(),
                "{s:?} {w}x{h}: {:?}",
                check.violations
            );
            let remnants = screen::remnants(&check.rows);
            assert!(remnants.is_empty(), "{s:?} {w}x{h}: {remnants:#?}");
        }
    }
    // The strings did reach the screen (not dropped whole).
    show(
        &mut model,
        Screen::View(mosk_console::app::model::View::Logs),
    );
    let (check, _) = screen::draw_and_check(&mut model, &theme, 160, 48);
    let text = check.rows.join("\n");
    assert!(
        text.contains("json 2") && text.contains("plain 2"),
        "{text}"
    );
}
