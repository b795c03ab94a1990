//! Styles the text snapshots cannot show: theme colours applied to the
//! right cells, and under `NO_COLOR` every state told apart by modifiers.

use crate::domain::fixtures::names::*;
use crate::ui_support::*;
use mosk_console::app::model::{TableCursor, View};
use mosk_console::config::theme::Theme;
use mosk_console::domain::objects::Kind;
use ratatui::buffer::Buffer;
use std::sync::Arc;

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
    m.views.cursors.insert(
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

/// The base style paints the whole screen, also where no widget draws; a
/// base of the terminal's own colours is skipped (a cleared cell has them
/// already) and leaves no colour anywhere.
#[test]
fn the_base_style_paints_the_screen_and_a_reset_base_paints_nothing() {
    use ratatui::style::Color;
    let blue = Theme::parse(
        r##"base = { bg = "#123456" }"##,
        "test",
        Theme::default_theme(),
    )
    .unwrap();
    let m = with_view(View::Machines);
    let count = |buf: &Buffer| {
        let mut n = 0;
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                n += usize::from(buf[(x, y)].bg == Color::Rgb(0x12, 0x34, 0x56));
            }
        }
        n
    };
    let t = render_with(&m, 80, 24, &blue);
    // Every cell but the cursor row and the styled bars.
    assert!(count(t.backend().buffer()) > 80 * 24 / 2);
    // Below the last row of the table: nothing drew there but the base.
    let t = render_with(&m, 80, 40, &blue);
    assert_eq!(
        t.backend().buffer()[(40, 30)].bg,
        Color::Rgb(0x12, 0x34, 0x56)
    );
    let t = render_with(&m, 80, 40, &Theme::default_theme());
    assert_eq!(count(t.backend().buffer()), 0);
    assert_eq!(t.backend().buffer()[(40, 30)].bg, Color::Reset);
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
    m.views.cursors.insert(
        View::Machines,
        TableCursor {
            selected_id: Some(WORKER_2.into()),
            ..Default::default()
        },
    );
    m.selected_nodes_mut().insert(NODE_W4.into());
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
        .apply(mosk_console::domain::objects::Object::Malformed(Arc::new(
            mosk_console::domain::objects::MalformedObject {
                kind: Kind::NodeWorkloadLock,
                namespace: String::new(),
                name: "broken-lock".into(),
                error: "status.state: expected a string".into(),
            },
        )));
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
