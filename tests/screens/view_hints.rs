//! A view's hints and its keys live side by side (`app/views/<view>.rs`);
//! this walks every view and holds them together: every key the footer
//! hints at does something in that view (moves, opens, switches, asks, or
//! says why not), and every key of the keymap is in the help overlay.

use crate::ui_support::*;
use crossterm::event::KeyEvent;
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::config::keymap::{KeyAction, parse_key};
use mosk_console::config::theme::Theme;

/// The model as the last frame at `w`x`h` drew it (keys act on what was drawn).
fn drawn(m: &mut Model, w: u16, h: u16) {
    let report = mosk_console::ui::report_at(m, &Theme::default_theme(), w, h);
    update(m, Msg::Drawn(report));
}

/// What a key can change that the operator sees.
fn seen(m: &Model) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {:?}",
        m.view,
        m.modals,
        m.notice(),
        m.views.overview,
        m.views.machines,
        m.views.wrapup,
        m.views.ready,
        View::ALL.map(|v| m.cursor(v)),
        m.selections,
        m.logs,
        m.dismissed_reminders,
        m.quit,
        m.actions.running.is_some(),
    )
}

fn key_event(m: &Model, action: KeyAction) -> KeyEvent {
    let key = m
        .keymap
        .first_key(action)
        .expect("a hinted action has a key");
    parse_key(key).expect("the keymap's key parses").into()
}

#[test]
fn every_hint_in_every_view_names_a_key_that_acts_there() {
    let mut dead = Vec::new();
    let mut checked = 0;
    for view in View::ALL {
        let mut m = with_view(view);
        drawn(&mut m, 160, 48);
        let hints = mosk_console::app::views::hints(&m.views, &m.logs, &m.view_ctx());
        assert!(hints.len() > 2, "{view:?} has hints of its own: {hints:?}");
        for hint in hints {
            let mut after = m.clone();
            let before = seen(&after);
            let commands = update(&mut after, Msg::Key(key_event(&m, hint.action)));
            checked += 1;
            if seen(&after) == before && commands.is_empty() {
                dead.push(format!("{view:?}: `{}` {}", hint.label, hint.action.name()));
            }
        }
    }
    assert!(
        dead.is_empty(),
        "hints whose key does nothing in their view:\n{}",
        dead.join("\n")
    );
    assert!(checked > 40, "walked {checked} hints");
}

/// The control: a key a view does not use is seen as doing nothing, so the
/// walk above can fail.
#[test]
fn a_key_the_view_does_not_use_is_seen_as_doing_nothing() {
    let mut m = with_view(View::Audit);
    drawn(&mut m, 160, 48);
    let before = seen(&m);
    let x = key_event(&m, KeyAction::DismissReminder);
    let commands = update(&mut m, Msg::Key(x));
    assert!(commands.is_empty());
    assert_eq!(seen(&m), before, "x does nothing in the Audit view");
}

#[test]
fn every_bound_key_is_in_the_help_overlay() {
    let mut m = with_view(View::Overview);
    drawn(&mut m, 160, 48);
    let (help, page_down) = (
        key_event(&m, KeyAction::Help),
        key_event(&m, KeyAction::PageDown),
    );
    update(&mut m, Msg::Key(help));
    // Read the overlay down to its end, a page at a time.
    let mut text = String::new();
    for _ in 0..12 {
        text.push_str(&text_of(render(&m, 160, 48).backend().buffer()));
        update(&mut m, Msg::Key(page_down));
    }
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut missing = Vec::new();
    for action in KeyAction::ALL {
        if m.keymap.first_key(action).is_none() {
            continue;
        }
        let line = format!("{} {}", m.keymap.keys_of(action), action.description());
        let line: String = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.contains(&line) {
            missing.push(line);
        }
    }
    assert!(
        missing.is_empty(),
        "keys not in `?`:\n{}",
        missing.join("\n")
    );
}
