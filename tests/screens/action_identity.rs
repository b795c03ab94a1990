//! One action identity: every hint the screen shows for an
//! operator action — the footer, the Overview's attention items, the help
//! overlay — is the action's one label (`ActionId::hint`) next to the key
//! the active keymap binds to `KeyAction::Act(id)`. Rebinding the keys in
//! the keymap moves every hint with them; no label is written twice.

use crate::domain::fixtures::update_plan as up;
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::actions::access::{AccessVerdict, all_keys};
use mosk_console::app::model::Model;
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::config::keymap::{DEFAULT_KEYMAP, KeyAction, Keymap};
use mosk_console::domain::action::ActionId;
use mosk_console::domain::objects::Object;
use std::sync::Arc;

/// The default keymap with each of `rebind`'s actions on one other key.
fn keymap_with(rebind: &[(ActionId, &str)]) -> Keymap {
    let mut text = String::new();
    for line in DEFAULT_KEYMAP.lines() {
        let name = line.split(" = ").next().unwrap_or_default();
        match rebind.iter().find(|(id, _)| id.name() == name) {
            Some((id, key)) => text.push_str(&format!("{} = [\"{key}\"]\n", id.name())),
            None => text.push_str(&format!("{line}\n")),
        }
    }
    Keymap::parse(&text, "test").unwrap()
}

/// The mid-update cluster with an update plan paused before step 2, on the
/// Overview, every permission allowed, with `keymap`.
fn model(keymap: Keymap) -> Model {
    let mut m = with_view(mosk_console::app::model::View::Overview);
    m.snapshot
        .apply(Object::UpdatePlan(Arc::new(up::paused_before(1))));
    let ns = m.session.namespace.clone();
    for k in all_keys(&ns) {
        m.actions.access.record(k, AccessVerdict::Allowed, m.now);
    }
    m.keymap = keymap;
    m
}

fn press(m: &mut Model, c: char) {
    update(
        m,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
    );
}

fn screen(m: &Model) -> String {
    text_of(render(m, 160, 48).backend().buffer())
}

fn key_of(m: &Model, id: ActionId) -> String {
    m.keymap
        .first_key(KeyAction::Act(id))
        .expect("every action has a key")
        .to_string()
}

/// Every place an action is hinted, checked against its label and key.
fn hints_follow(m: &mut Model) {
    let k = |m: &Model, id| key_of(m, id);
    let footer = |id: ActionId, m: &Model| format!("{} {}  ", k(m, id), id.hint());
    let item = |id: ActionId, m: &Model| format!("[{}: {}]", k(m, id), id.hint());

    let s = screen(m);
    for id in [ActionId::AcknowledgeMigration, ActionId::CommenceStep] {
        assert!(
            s.contains(&item(id, m)),
            "Overview item hint {}:\n{s}",
            item(id, m)
        );
    }
    assert!(s.contains(&footer(ActionId::CommenceStep, m)), "{s}");

    press(m, '2');
    let s = screen(m);
    for id in [ActionId::SetMigrationMode, ActionId::AcknowledgeMigration] {
        assert!(
            s.contains(&footer(id, m)),
            "Machines footer {}:\n{s}",
            footer(id, m)
        );
    }
    press(m, '6');
    let s = screen(m);
    for id in [ActionId::RestartVrouter, ActionId::RestartAllVrouters] {
        assert!(
            s.contains(&footer(id, m)),
            "vRouter footer {}:\n{s}",
            footer(id, m)
        );
    }
    press(m, '0');
    let s = screen(m);
    assert!(s.contains(&footer(ActionId::CommenceStep, m)), "{s}");

    // Tall enough for the whole help overlay.
    press(m, '?');
    let s = text_of(render(m, 160, 100).backend().buffer());
    for id in ActionId::ALL {
        let text = format!("{}: {}", id.hint(), id.spec().detail);
        let line = s
            .lines()
            .find(|l| l.contains(&text))
            .unwrap_or_else(|| panic!("help has no line for {}:\n{s}", id.label()));
        // `│  m                 set migration mode: …`: the key column is
        // what precedes the text.
        let before = line[..line.find(&text).unwrap()].trim_end();
        assert!(
            before.ends_with(&format!("│  {}", k(m, id))),
            "help line of {} shows another key: {line}",
            id.label()
        );
    }
}

#[test]
fn every_hint_is_the_actions_label_with_the_keymaps_key() {
    let mut m = model(Keymap::default_keymap());
    assert_eq!(key_of(&m, ActionId::AcknowledgeMigration), "a");
    hints_follow(&mut m);
}

#[test]
fn rebinding_an_action_moves_every_hint_with_it() {
    let rebound = keymap_with(&[
        (ActionId::SetMigrationMode, "W"),
        (ActionId::AcknowledgeMigration, "A"),
        (ActionId::RestartVrouter, "V"),
        (ActionId::RestartAllVrouters, "ctrl-v"),
        (ActionId::CommenceStep, "C"),
    ]);
    let mut m = model(rebound);
    assert_eq!(key_of(&m, ActionId::AcknowledgeMigration), "A");
    let s = screen(&m);
    assert!(
        !s.contains("[a: ") && !s.contains("[c: "),
        "a default key is still hinted:\n{s}"
    );
    hints_follow(&mut m);
}
