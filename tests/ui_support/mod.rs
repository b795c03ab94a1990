//! Shared by the screen tests: the fixed mid-update model, rendering into a
//! `TestBackend`, and reading text and styles back from the buffer.

#![allow(dead_code)]

use crate::domain::fixtures::{self, names::*};
use jiff::{SignedDuration, Timestamp};
use mosk_console::app::freshness::KindFreshness;
use mosk_console::app::model::{Model, SessionInfo, View};
use mosk_console::cluster::events::WatchHealth;
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;
use mosk_console::domain::history::History;
use mosk_console::domain::objects::{Kind, Snapshot};
use mosk_console::ui::draw;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

pub fn now() -> Timestamp {
    fixtures::mid_update_now()
}

pub fn ago(secs: i64) -> Timestamp {
    now() - SignedDuration::from_secs(secs)
}

pub fn log_lines() -> Vec<String> {
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
pub fn base_model() -> Model {
    // The cluster as the console watched it from 07:00: snapshot and history.
    let scenario = fixtures::mid_update_scenario();
    let mut m = model_of(scenario.snap, scenario.history, now());
    m.started = fixtures::at("07:00");
    m.logs
        .push("lcm-lcm-controller-5d8f7b9c4-x2x7k", &log_lines());
    m.logs.status = "connected to lcm-lcm-controller-5d8f7b9c4-x2x7k".into();
    settled(&mut m);
    m
}

/// A console at `now` that has watched `snapshot` with `history`, every
/// watch healthy and listed, on the Overview (not yet settled).
pub fn model_of(snapshot: Snapshot, history: History, now: Timestamp) -> Model {
    let ago = |secs: i64| now - SignedDuration::from_secs(secs);
    let session = SessionInfo {
        mgmt_context: "mgmt-admin@kaas-mgmt".into(),
        mosk_context: "child-admin@child-cl".into(),
        ..SessionInfo::default()
    };
    let mut m = Model::new(session, Keymap::default_keymap(), now);
    m.snapshot = snapshot;
    m.history = history;
    for k in Kind::ALL {
        m.health.insert(
            k,
            WatchHealth {
                cluster: k.cluster(),
                connected: true,
                last_event: Some(ago(5)),
                last_error: None,
                retry_at: None,
                problem: Default::default(),
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
    m
}

/// Runs `update` once with a message that changes nothing a test looks at (a
/// resize to the size the model already assumes), so that `update` brings
/// what is derived up to date after a test set the model's fields directly.
pub fn settled(m: &mut Model) {
    let height = (m.page_rows + 7).min(u16::MAX as usize) as u16;
    mosk_console::app::update::update(
        m,
        mosk_console::app::msg::Msg::Resize { width: 200, height },
    );
}

pub fn with_view(view: View) -> Model {
    let mut m = base_model();
    m.view = view;
    settled(&mut m);
    m
}

/// The Machines view's detail pane open on `machine`.
pub fn open_detail(m: &mut Model, machine: &str) {
    m.views.machines.detail_open = true;
    m.views.cursors.insert(
        View::Machines,
        mosk_console::app::model::TableCursor {
            selected_id: Some(machine.into()),
            ..Default::default()
        },
    );
}

pub fn render(model: &Model, w: u16, h: u16) -> Terminal<TestBackend> {
    render_with(model, w, h, &Theme::default_theme())
}

/// Draws `model` the way the runtime does: derived data refreshed first
/// (tests change the snapshot directly, so it is marked stale).
pub fn render_with(model: &Model, w: u16, h: u16, theme: &Theme) -> Terminal<TestBackend> {
    let mut model = model.clone();
    settled(&mut model);
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    t.draw(|f| draw(f, &model, theme)).expect("draw");
    t
}

pub fn text_of(buf: &Buffer) -> String {
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

/// The position of the first cell of `needle` on screen.
pub fn find(buf: &Buffer, needle: &str) -> Option<(u16, u16)> {
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

pub fn assert_style(buf: &Buffer, at: (u16, u16), style: ratatui::style::Style, what: &str) {
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
