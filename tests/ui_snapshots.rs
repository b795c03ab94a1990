//! Screen snapshots of every view and overlay, at 80x24 (the smallest
//! terminal served) and 160x48, from fixed models (`domain::fixtures`, a
//! fixed `now`). Update with `INSTA_UPDATE=always cargo test --test ui_snapshots`
//! and read every changed `.snap` file before committing it.

use jiff::{SignedDuration, Timestamp};
use mosk_console::app::freshness::KindFreshness;
use mosk_console::app::model::{
    Model, Notice, NoticeLevel, Overlay, SessionInfo, TableCursor, View,
};
use mosk_console::cluster::events::WatchHealth;
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;
use mosk_console::domain::fixtures::{self, names::*};
use mosk_console::domain::objects::{ClusterId, Kind};
use mosk_console::ui::draw;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

fn now() -> Timestamp {
    fixtures::mid_update_now()
}

fn ago(secs: i64) -> Timestamp {
    now() - SignedDuration::from_secs(secs)
}

fn log_lines() -> Vec<String> {
    let l = |ts: &str, level: &str, msg: &str, extra: &str| {
        format!(
            r#"{{"level":"{level}","ts":"2025-03-04T{ts}Z","logger":"lcm-controller","msg":"{msg}"{extra}}}"#
        )
    };
    vec![
        l(
            "10:25:02.113",
            "info",
            "machine state changed",
            &format!(r#","machine":"{WORKER_1}","state":"Ready""#),
        ),
        l(
            "10:26:40.004",
            "info",
            "creating NodeMaintenanceRequest",
            &format!(r#","node":"{NODE_W3}""#),
        ),
        l(
            "10:27:15.551",
            "debug",
            "reconcile done",
            r#","duration":"0.41s""#,
        ),
        l(
            "10:28:02.907",
            "warn",
            "cordon-drain is not done yet",
            &format!(r#","machine":"{WORKER_2}","attempt":4"#),
        ),
        "plain text line from the controller without JSON".to_string(),
        l(
            "10:29:30.120",
            "error",
            "drain failed: NodeWorkloadLocks still active",
            &format!(r#","machine":"{WORKER_2}""#),
        ),
        l(
            "10:29:58.000",
            "info",
            "waiting for node maintenance",
            &format!(r#","machine":"{WORKER_3}""#),
        ),
    ]
}

/// The mid-update cluster at 10:30, every watch healthy.
fn base_model() -> Model {
    let session = SessionInfo {
        mgmt_context: "mgmt-admin@kaas-mgmt".into(),
        mosk_context: "child-admin@child-cl".into(),
        ..SessionInfo::default()
    };
    let mut m = Model::new(session, Keymap::default_keymap(), now());
    // The cluster as the console watched it from 07:00: snapshot and history.
    let scenario = fixtures::mid_update_scenario();
    m.started = fixtures::at("07:00");
    m.snapshot = scenario.snap;
    m.history = scenario.history;
    for k in Kind::ALL {
        m.health.insert(
            k,
            WatchHealth {
                cluster: k.cluster(),
                connected: true,
                last_event: Some(ago(5)),
                last_error: None,
                retry_at: None,
            },
        );
        // Every watch has listed once.
        m.freshness.insert(
            k,
            KindFreshness {
                listed: true,
                confirmed: Some(ago(5)),
                down_since: None,
            },
        );
    }
    m.last_event = Some(ago(3));
    m.logs
        .push("lcm-lcm-controller-5d8f7b9c4-x2x7k", &log_lines());
    m.logs.status = "following lcm-lcm-controller-5d8f7b9c4-x2x7k".into();
    m
}

fn with_view(view: View) -> Model {
    let mut m = base_model();
    m.view = view;
    m
}

fn render(model: &Model, w: u16, h: u16) -> Terminal<TestBackend> {
    render_with(model, w, h, &Theme::default_theme())
}

/// Draws `model` the way the runtime does: derived data refreshed first
/// (tests change the snapshot directly, so it is marked stale).
fn render_with(model: &Model, w: u16, h: u16, theme: &Theme) -> Terminal<TestBackend> {
    let mut model = model.clone();
    model.derived_stale = true;
    model.refresh_derived();
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    t.draw(|f| draw(f, &model, theme)).expect("draw");
    t
}

/// Snapshots `model` at 80x24 and 160x48 as `<name>_80x24` and `<name>_160x48`.
fn snap_both(name: &str, model: &Model) {
    for (w, h) in [(80, 24), (160, 48)] {
        let t = render(model, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), t.backend());
    }
}

fn text_of(buf: &Buffer) -> String {
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

#[test]
fn overview() {
    snap_both("overview", &with_view(View::Overview));
}

#[test]
fn machines() {
    snap_both("machines", &with_view(View::Machines));
    // At 80x24 the columns that matter stay legible: NAME, STATE, WAITING ON.
    let text = text_of(
        render(&with_view(View::Machines), 80, 24)
            .backend()
            .buffer(),
    );
    for needle in [
        "NAME",
        "STATE",
        "WAITING ON",
        WORKER_2,
        "Deploy",
        "lock openstack active: servers present",
    ] {
        assert!(text.contains(needle), "{needle} missing at 80x24:\n{text}");
    }
}

#[test]
fn machines_with_detail() {
    let mut m = with_view(View::Machines);
    m.detail_open = true;
    m.cursors.insert(
        View::Machines,
        TableCursor {
            selected_id: Some(WORKER_2.into()),
            ..Default::default()
        },
    );
    snap_both("machines_detail", &m);
}

#[test]
fn machines_filtered_sorted_and_marked() {
    let mut m = with_view(View::Machines);
    m.cursors.insert(
        View::Machines,
        TableCursor {
            selected_id: Some(WORKER_3.into()),
            filter: "compute".into(),
            sort_column: 3,
            sort_reverse: true,
            ..Default::default()
        },
    );
    m.selected_nodes.insert(NODE_W3.into());
    m.selected_nodes.insert(NODE_W4.into());
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

#[test]
fn help_overlay() {
    let mut m = with_view(View::Machines);
    m.overlay = Some(Overlay::Help { scroll: 0 });
    snap_both("help", &m);
    m.overlay = Some(Overlay::Help { scroll: 1000 });
    let t = render(&m, 80, 24);
    insta::assert_snapshot!("help_scrolled_to_end_80x24", t.backend());
}

#[test]
fn input_overlays() {
    let mut m = with_view(View::Machines);
    m.overlay = Some(Overlay::FilterInput { text: "wor".into() });
    insta::assert_snapshot!("filter_input_80x24", render(&m, 80, 24).backend());
    m.overlay = Some(Overlay::CommandInput { text: "lo".into() });
    insta::assert_snapshot!("command_input_80x24", render(&m, 80, 24).backend());
    let mut m = with_view(View::Logs);
    m.overlay = Some(Overlay::LogSearchInput {
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
        },
    );
    m.freshness.get_mut(&Kind::Node).unwrap().down_since = Some(ago(12));
    m.notice = Some(Notice {
        text: "patch refused: nodes \"kaas-node-b2a5\" is forbidden".into(),
        level: NoticeLevel::Error,
        at: now(),
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
    for k in [Kind::Node, Kind::NodeWorkloadLock, Kind::VrouterPod] {
        m.freshness.remove(&k);
    }
    snap_both("loading_overview", &m);
    let text = text_of(render(&m, 80, 24).backend().buffer());
    assert!(text.contains("loading: 7 of 10 lists"), "{text}");
    for claim in ["machines done", "phase", "Attention (", "ETA"] {
        assert!(!text.contains(claim), "{claim}: {text}");
    }
}

/// `NO_COLOR`: no colour at all, yet the cursor row is in reverse video and
/// what needs a human is bold.
#[test]
fn no_color_keeps_states_apart_by_modifiers() {
    use ratatui::style::{Color, Modifier};
    let theme = Theme::load_for("default", Some(std::ffi::OsStr::new("1"))).unwrap();
    let colourless = |buf: &Buffer| {
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                let c = &buf[(x, y)];
                assert!(
                    matches!(c.fg, Color::Reset) && matches!(c.bg, Color::Reset),
                    "colour at ({x},{y}): {:?}/{:?}",
                    c.fg,
                    c.bg
                );
            }
        }
    };
    let mut m = with_view(View::Machines);
    m.cursors.insert(
        View::Machines,
        TableCursor {
            selected_id: Some(WORKER_2.into()),
            ..Default::default()
        },
    );
    let t = render_with(&m, 80, 24, &theme);
    let buf = t.backend().buffer();
    colourless(buf);
    let sel = find(buf, WORKER_2).unwrap();
    let other = find(buf, WORKER_1).unwrap();
    assert!(buf[sel].modifier.contains(Modifier::REVERSED), "cursor row");
    assert!(
        !buf[other].modifier.contains(Modifier::REVERSED),
        "other row"
    );

    let t = render_with(&with_view(View::Overview), 80, 24, &theme);
    let buf = t.backend().buffer();
    colourless(buf);
    let attention = find(buf, &format!("{WORKER_3}  manual migration")).unwrap();
    assert!(
        buf[attention].modifier.contains(Modifier::BOLD),
        "attention row"
    );
    let working = find(buf, &format!("{WORKER_3}  Prepare")).unwrap();
    assert!(
        !buf[working].modifier.contains(Modifier::BOLD),
        "a row that needs no one is not bold"
    );
}

// ---- Theme colours are applied (styles are not in the text snapshots) ----

/// The position of the first cell of `needle` on screen.
fn find(buf: &Buffer, needle: &str) -> Option<(u16, u16)> {
    for y in 0..buf.area.height {
        let row: Vec<String> = (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        let joined: String = row.concat();
        if let Some(byte) = joined.find(needle) {
            // Cells are one char each; count chars before the match.
            let x = joined[..byte].chars().count() as u16;
            return Some((x, y));
        }
    }
    None
}

fn assert_style(buf: &Buffer, at: (u16, u16), style: ratatui::style::Style, what: &str) {
    let cell = &buf[at];
    if let Some(fg) = style.fg {
        assert_eq!(cell.fg, fg, "{what}: fg at {at:?}");
    }
    if let Some(bg) = style.bg {
        assert_eq!(cell.bg, bg, "{what}: bg at {at:?}");
    }
    assert!(
        cell.modifier.contains(style.add_modifier),
        "{what}: modifiers at {at:?}: {:?} lacks {:?}",
        cell.modifier,
        style.add_modifier
    );
}

#[test]
fn attention_items_use_the_attention_style() {
    let theme = Theme::default_theme();
    for (w, h) in [(80, 24), (160, 48)] {
        let t = render_with(&with_view(View::Overview), w, h, &theme);
        let buf = t.backend().buffer();
        let at = find(buf, "manual migration").expect("attention item on screen");
        assert_style(buf, at, theme.attention, "attention item");
        // The subject on the same line too.
        let subject = find(buf, &format!("{WORKER_3}  manual migration")).unwrap();
        assert_style(buf, subject, theme.attention, "attention subject");
    }
    // The mono theme marks them without colour.
    let mono = Theme::load("mono").unwrap();
    let t = render_with(&with_view(View::Overview), 80, 24, &mono);
    let buf = t.backend().buffer();
    let at = find(buf, "manual migration").unwrap();
    assert!(
        buf[at]
            .modifier
            .contains(ratatui::style::Modifier::REVERSED)
    );
}

#[test]
fn the_selected_row_is_highlighted_and_marked_rows_are_starred() {
    let theme = Theme::default_theme();
    let mut m = with_view(View::Machines);
    m.cursors.insert(
        View::Machines,
        TableCursor {
            selected_id: Some(WORKER_2.into()),
            ..Default::default()
        },
    );
    m.selected_nodes.insert(NODE_W4.into());
    let t = render_with(&m, 80, 24, &theme);
    let buf = t.backend().buffer();
    let sel = find(buf, WORKER_2).unwrap();
    assert_style(buf, sel, theme.row_selected, "selected row");
    assert_eq!(buf[(1, sel.1)].symbol(), ">", "cursor marker");
    let other = find(buf, WORKER_1).unwrap();
    assert_ne!(
        buf[other].bg,
        theme.row_selected.bg.unwrap(),
        "only one row highlighted"
    );
    let marked = find(buf, WORKER_4).unwrap();
    assert_eq!(buf[(2, marked.1)].symbol(), "*", "marked row has a star");
    assert_style(buf, marked, theme.row_marked, "marked row");
    assert_style(buf, other, theme.ok, "a Ready machine row");
}

#[test]
fn error_rows_and_log_levels_and_search_matches_are_coloured() {
    let theme = Theme::default_theme();
    let mut m = with_view(View::Locks);
    m.snapshot
        .apply(mosk_console::domain::objects::Object::Malformed(
            mosk_console::domain::objects::MalformedObject {
                kind: Kind::NodeWorkloadLock,
                namespace: String::new(),
                name: "broken-lock".into(),
                error: "status.state: expected a string".into(),
            },
        ));
    let t = render_with(&m, 160, 48, &theme);
    let buf = t.backend().buffer();
    let bad = find(buf, "MALFORMED NodeWorkloadLock").unwrap();
    assert_style(buf, bad, theme.error, "malformed row");

    let mut m = with_view(View::Logs);
    m.logs.search = Some("DRAIN".into());
    let t = render_with(&m, 80, 24, &theme);
    let buf = t.backend().buffer();
    let err = find(buf, "ERROR drain").unwrap();
    assert_style(buf, err, theme.log_error, "error log line");
    let hit = find(buf, "drain failed").unwrap();
    assert_style(buf, hit, theme.search_match, "search match");
    let after = (hit.0 + 6, hit.1);
    assert_ne!(
        buf[after].bg,
        theme.search_match.bg.unwrap(),
        "only the match"
    );
    let warn = find(buf, "WARN ").unwrap();
    assert_style(buf, warn, theme.log_warn, "warn log line");
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
        m.snapshot.apply(Object::Machine(fixtures::machine(
            &name,
            MachineType::Worker,
            "Ready",
            None,
            Some(100 + i),
        )));
    }
    m.cursors.insert(
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
