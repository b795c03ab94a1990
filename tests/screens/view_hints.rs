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

/// The `[k: what]` hints on a line of the screen.
fn bracketed(line: &str) -> Vec<(String, String)> {
    line.split('[')
        .skip(1)
        .filter_map(|s| s.split_once(']'))
        .filter_map(|(inside, _)| inside.split_once(": "))
        .map(|(k, what)| (k.to_string(), what.to_string()))
        .collect()
}

/// The attention items name their own keys beside them
/// (`[a: acknowledge migration] [o: servers]`, `[x: dismiss reminder]`):
/// with the cursor on the item, each such key acts, and `o` opens the
/// servers of that item's node; an item not about a node's servers shows
/// no `[o: servers]`.
#[test]
fn every_hint_on_an_attention_item_names_a_key_that_acts_on_it() {
    use mosk_console::app::modal::Modal;
    use mosk_console::domain::attention::AttentionKind;
    let base = with_view(View::Overview);
    let mut dead = Vec::new();
    let mut servers = Vec::new();
    for item in base.derived.attention.clone() {
        let mut m = base.clone();
        m.views.overview.selected = Some(item.id());
        // Wide enough that no head line is cut (at 160 columns the
        // symptoms' note after the hints cuts the last bracket).
        drawn(&mut m, 200, 48);
        let screen = text_of(render(&m, 200, 48).backend().buffer());
        let head = screen
            .lines()
            .find(|l| l.contains(&item.subject) && l.contains(item.kind.label()))
            .unwrap_or_else(|| panic!("{} is on screen:\n{screen}", item.subject));
        let hints = bracketed(head);
        assert!(!hints.is_empty(), "{} names its keys: {head}", item.subject);
        for (key, what) in hints {
            let mut after = m.clone();
            let before = seen(&after);
            let pressed = parse_key(&key).expect("a hinted key parses");
            let commands = update(&mut after, Msg::Key(pressed.into()));
            if what == "servers" {
                match after.modals.top() {
                    Some(Modal::Servers(p)) if Some(&p.node) == item.node.as_ref() => {
                        servers.push(item.kind)
                    }
                    other => dead.push(format!(
                        "{}: `{key}: servers` opened {other:?}, not the servers of {:?}",
                        item.subject, item.node
                    )),
                }
            } else if seen(&after) == before && commands.is_empty() {
                dead.push(format!("{}: `{key}: {what}` does nothing", item.subject));
            }
        }
        if matches!(item.kind, AttentionKind::Reminder(_)) {
            assert!(
                !head.contains(": servers]"),
                "a reminder is not about servers: {head}"
            );
        }
    }
    assert!(
        dead.is_empty(),
        "item hints that do not act:\n{}",
        dead.join("\n")
    );
    assert_eq!(
        servers,
        [
            AttentionKind::MigrationFailing,
            AttentionKind::ManualMigration
        ],
        "the items about a node's servers say `[o: servers]`"
    );
}
