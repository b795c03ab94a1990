//! The Logs view reached by keys through `update`: one word for the paused
//! state on every part of the screen, search position and `n`/`N`, and
//! wrapped lines indented under their message.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::model::Model;
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::cluster::events::ClusterEvent;
use ratatui::style::Modifier;

use crate::ui_support::*;

fn press(m: &mut Model, code: KeyCode) {
    update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn keys(m: &mut Model, text: &str) {
    for c in text.chars() {
        press(m, KeyCode::Char(c));
    }
}

fn lines_arrive(m: &mut Model, lines: Vec<String>) {
    update(
        m,
        Msg::Cluster(ClusterEvent::LogLines {
            pod: "lcm-lcm-controller-5d8f7b9c4-x2x7k".into(),
            lines,
        }),
    );
}

/// The Logs view of the base model, opened with its key.
fn logs_view() -> Model {
    let mut m = base_model();
    keys(&mut m, "7");
    m
}

fn screen(m: &Model, w: u16, h: u16) -> String {
    text_of(render(m, w, h).backend().buffer())
}

#[test]
fn paused_is_said_in_the_header_the_border_and_the_status_bar() {
    let mut m = logs_view();
    update(
        &mut m,
        Msg::Cluster(ClusterEvent::LogStatus {
            message: "connected to lcm-lcm-controller-5d8f7b9c4-x2x7k (container controller)"
                .into(),
        }),
    );
    let following = screen(&m, 120, 24);
    assert!(following.contains("FOLLOWING"), "{following}");
    assert!(!following.contains("PAUSED"), "{following}");

    keys(&mut m, "f");
    let t = render(&m, 120, 24);
    insta::assert_snapshot!("logs_paused_120x24", t.backend());
    let text = text_of(t.backend().buffer());
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[2].contains("PAUSED"), "header: {}", rows[2]);
    let border = rows
        .iter()
        .find(|r| r.contains('└'))
        .expect("bottom border");
    assert!(
        border.contains("PAUSED · connected to lcm-lcm-controller"),
        "{border}"
    );
    let status_bar = rows
        .iter()
        .find(|r| r.contains("mgmt:"))
        .expect("status bar");
    assert!(status_bar.contains("log: PAUSED"), "{status_bar}");
    assert!(!text.to_lowercase().contains("following"), "{text}");

    // `f` again follows: no part says paused.
    keys(&mut m, "f");
    let text = screen(&m, 120, 24);
    assert!(!text.contains("PAUSED"), "{text}");
}

/// 15 warning lines mention "drain" (with the base model's two, 17); 3
/// debug lines do too but are hidden once the level is at least info;
/// other lines do not.
fn drain_lines() -> Vec<String> {
    let mut out = Vec::new();
    for i in 1..=15 {
        out.push(format!(
            r#"{{"level":"warn","ts":"2025-03-04T10:31:{i:02}Z","msg":"drain attempt {i}","node":"n"}}"#
        ));
        out.push(format!(
            r#"{{"level":"info","ts":"2025-03-04T10:31:{i:02}Z","msg":"reconcile {i}","node":"n"}}"#
        ));
        if i % 4 == 0 {
            out.push(format!(
                r#"{{"level":"debug","ts":"2025-03-04T10:31:{i:02}Z","msg":"drain probe {i}","node":"n"}}"#
            ));
        }
    }
    out
}

/// The search part of the Logs header.
fn header(m: &Model) -> String {
    let text = screen(m, 160, 30);
    text.lines().nth(2).unwrap_or_default().to_string()
}

#[test]
fn search_counts_matches_among_the_shown_lines_and_n_moves_from_the_first_press() {
    let mut m = logs_view();
    lines_arrive(&mut m, drain_lines());
    keys(&mut m, "L"); // level ≥ info: the debug "drain probe" lines are hidden
    keys(&mut m, "/drain");
    press(&mut m, KeyCode::Enter);
    // The search starts at the bottom: the newest match is the current one.
    assert!(
        header(&m).contains("\"drain\" · match 17/17"),
        "{}",
        header(&m)
    );
    // The first `n` moves (up, the way the search went).
    keys(&mut m, "n");
    assert!(header(&m).contains("match 16/17"), "{}", header(&m));
    let text = screen(&m, 160, 30);
    let bottom_line = text
        .lines()
        .rev()
        .find(|l| l.contains("drain attempt"))
        .expect("a match on screen");
    assert!(bottom_line.contains("drain attempt 14"), "{text}");
    keys(&mut m, "nnnnnnnnnnnnn");
    assert!(header(&m).contains("match 3/17"), "{}", header(&m));
    // `N` goes back down, from its first press too.
    keys(&mut m, "N");
    assert!(header(&m).contains("match 4/17"), "{}", header(&m));
    keys(&mut m, "nnn");
    assert!(header(&m).contains("match 1/17"), "{}", header(&m));
    // Past the oldest match: wraps to the newest and says so.
    keys(&mut m, "n");
    let text = screen(&m, 160, 30);
    assert!(text.contains("match 17/17"), "{text}");
    assert!(text.contains("search wrapped"), "{text}");
    // Past the newest going down: wraps to the oldest.
    keys(&mut m, "N");
    let text = screen(&m, 160, 30);
    assert!(text.contains("match 1/17"), "{text}");
    assert!(text.contains("back to the oldest"), "{text}");
}

#[test]
fn the_current_match_is_drawn_apart_from_the_other_matches() {
    let mut m = logs_view();
    lines_arrive(&mut m, drain_lines());
    keys(&mut m, "/drain");
    press(&mut m, KeyCode::Enter);
    keys(&mut m, "nn"); // from attempt 15 up to 14, then 13
    let t = render(&m, 160, 30);
    let buf = t.backend().buffer();
    let current = find(buf, "drain attempt 13").expect("current match on screen");
    let other = find(buf, "drain attempt 12").expect("another match on screen");
    let (c, o) = (&buf[current], &buf[other]);
    assert!(
        c.modifier.contains(Modifier::UNDERLINED | Modifier::BOLD),
        "{:?}",
        c.modifier
    );
    assert!(
        !o.modifier.contains(Modifier::UNDERLINED),
        "{:?}",
        o.modifier
    );
    assert_ne!((c.fg, c.bg, c.modifier), (o.fg, o.bg, o.modifier));
    // Only the match is marked, not the rest of the line.
    let after = (current.0 + "drain".len() as u16, current.1);
    assert!(!buf[after].modifier.contains(Modifier::UNDERLINED));
}

#[test]
fn wrapped_lines_continue_under_their_message() {
    let mut m = logs_view();
    lines_arrive(
        &mut m,
        vec![
            r#"{"level":"error","ts":"2025-03-04T10:31:00Z","msg":"drain failed: following NodeWorkloadLocks are still active - ceph: InProgress, openstack: Active","machine":"cz7505-child-cl-compute-2"}"#.into(),
            "W1124 01:03:05.976662       1 warnings.go:70] metadata.finalizers: \"lcm.mirantis.com/finalizer\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts".into(),
        ],
    );
    keys(&mut m, "w");
    let t = render(&m, 80, 24);
    insta::assert_snapshot!("logs_wrapped_80x24", t.backend());
    let text = text_of(t.backend().buffer());
    let rows: Vec<&str> = text.lines().collect();
    let zap = rows
        .iter()
        .position(|r| r.contains("10:31:00 ERROR drain failed"))
        .expect("the zap line");
    // Inside the border (column 1), under the message (15 columns in).
    let next = rows[zap + 1];
    let body: String = next.chars().skip(1).collect();
    assert!(body.starts_with(&" ".repeat(15)), "{next:?}");
    assert!(!body.starts_with(&" ".repeat(16)), "{next:?}");
    let klog = rows
        .iter()
        .position(|r| r.contains("W1124 01:03:05"))
        .expect("the klog line");
    let body: String = rows[klog + 1].chars().skip(1).collect();
    assert!(
        body.starts_with("  ") && !body.trim().is_empty(),
        "{body:?}"
    );
}

/// The row of the Overview's log pane title.
fn log_pane_title(text: &str) -> String {
    text.lines()
        .find(|l| l.contains("lcm-controller log"))
        .unwrap_or_else(|| panic!("no log pane in:\n{text}"))
        .to_string()
}

/// Paused in the Logs view, the Overview's log pane shows the same lines
/// and says so in its own title (with the newer lines waiting), not only
/// the status bar; a filter is named there too; following again, the title
/// is the live one and the newer lines are on screen.
#[test]
fn the_overview_log_pane_says_paused_and_filtered_in_its_own_title() {
    let mut m = logs_view();
    keys(&mut m, "f");
    lines_arrive(
        &mut m,
        vec![
            r#"{"level":"info","ts":"2025-03-04T10:31:00Z","msg":"after the pause 1"}"#.into(),
            r#"{"level":"info","ts":"2025-03-04T10:31:01Z","msg":"after the pause 2"}"#.into(),
        ],
    );
    keys(&mut m, "1");
    for (w, h) in [(80, 24), (120, 40)] {
        let t = render(&m, w, h);
        insta::assert_snapshot!(format!("overview_log_paused_{w}x{h}"), t.backend());
        let text = text_of(t.backend().buffer());
        let title = log_pane_title(&text);
        assert!(
            title.contains("lcm-controller log: PAUSED, 2 newer lines (f: follow)"),
            "{title}"
        );
        assert!(!title.contains("live"), "{title}");
        assert!(!text.contains("after the pause"), "{text}");
    }

    // A level filter set from the Overview is named in the title too.
    keys(&mut m, "L");
    let title = log_pane_title(&screen(&m, 120, 40));
    assert!(title.contains("(f: follow) · level ≥ info"), "{title}");

    // Following again: the live title, the newer lines shown.
    keys(&mut m, "f");
    let text = screen(&m, 120, 40);
    let title = log_pane_title(&text);
    assert!(
        title.contains("lcm-controller log · level ≥ info (every 3s; 7: live)"),
        "{title}"
    );
    assert!(!title.contains("PAUSED"), "{title}");
    assert!(text.contains("after the pause 2"), "{text}");
}

/// Lines have arrived but none passes the level filter: the Overview's log
/// pane says the filter hides them, not that no line arrived.
#[test]
fn the_overview_log_pane_says_a_filter_hides_every_line() {
    let mut m = base_model();
    lines_arrive(
        &mut m,
        vec![r#"{"level":"info","ts":"2025-03-04T10:31:00Z","msg":"only info"}"#.into()],
    );
    // The base model's lines include an ERROR one: level ≥ error keeps it.
    keys(&mut m, "LLL");
    let text = screen(&m, 120, 40);
    assert!(log_pane_title(&text).contains("level ≥ error"), "{text}");
    assert!(text.contains("drain failed"), "{text}");
    assert!(!text.contains("no log lines yet"), "{text}");
    // Only lines without an ERROR: nothing passes, and the pane says why.
    let mut m = base_model();
    m.logs = Default::default();
    m.logs.status = "connected to lcm-lcm-controller-5d8f7b9c4-x2x7k".into();
    lines_arrive(
        &mut m,
        vec![r#"{"level":"info","ts":"2025-03-04T10:31:00Z","msg":"only info"}"#.into()],
    );
    keys(&mut m, "LLL");
    let text = screen(&m, 120, 40);
    assert!(
        text.contains("no line passes the filters (level ≥ error)"),
        "{text}"
    );
    assert!(!text.contains("no log lines yet"), "{text}");
}
