//! No blind keys: a key acts only on what the last frame showed. Driven
//! through `update` the way the runtime does it: keys, and after each frame
//! the `Msg::Drawn` report of what was drawn (`ui::report_at` draws the model
//! off screen at a given size).

use crate::domain::fixtures::{self, names::*};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::actions::access::{AccessVerdict, all_keys};
use mosk_console::app::actions::dialog::Dialog;
use mosk_console::app::line_input::LineInput;
use mosk_console::app::modal::Modal;
use mosk_console::app::model::{Model, SessionInfo, View};
use mosk_console::app::msg::{Command, Msg};
use mosk_console::app::update::update;
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;

fn model() -> Model {
    let session = SessionInfo {
        mosk_context: "sim-mosk".into(),
        ..SessionInfo::default()
    };
    let mut m = Model::new(
        session,
        Keymap::default_keymap(),
        fixtures::mid_update_now(),
    );
    m.snapshot = fixtures::mid_update();
    for k in all_keys("child-ns") {
        m.actions.access.record(k, AccessVerdict::Allowed, m.now);
    }
    m
}

/// A frame at `w` x `h`, reported back to `update` as the runtime does.
fn frame(m: &mut Model, w: u16, h: u16) {
    let report = mosk_console::ui::report_at(m, &Theme::default_theme(), w, h);
    update(m, Msg::Drawn(report));
}

fn press(m: &mut Model, code: KeyCode) -> Vec<Command> {
    update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

/// Presses each character; returns every command they produced.
fn type_keys(m: &mut Model, keys: &str) -> Vec<Command> {
    keys.chars()
        .flat_map(|c| press(m, KeyCode::Char(c)))
        .collect()
}

fn executes(cmds: &[Command]) -> bool {
    cmds.iter().any(|c| matches!(c, Command::Execute(_)))
}

fn confirm_open(m: &Model) -> bool {
    matches!(m.modals.dialog(), Some(Dialog::Confirm(_)))
}

#[test]
fn at_a_terminal_too_small_to_draw_no_key_but_quit_acts() {
    let mut m = model();
    frame(&mut m, 40, 10);
    assert!(m.frame.too_small);
    let cmds = type_keys(&mut m, "2Gkay");
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(m.view, View::Overview, "2 did not switch views");
    assert!(m.modals.dialog().is_none(), "a did not open a dialog");
    // Nor does a paste into an input line that is not on screen.
    m.modals.push(Modal::FilterInput {
        text: LineInput::default(),
    });
    update(&mut m, Msg::Paste("worker".into()));
    assert_eq!(
        m.modals.top(),
        Some(&Modal::FilterInput {
            text: LineInput::default()
        })
    );
    m.modals = Default::default();
    // The same keys at a usable size do act (so the test above can fail).
    frame(&mut m, 120, 40);
    type_keys(&mut m, "2Gk");
    assert_eq!(m.view, View::Machines);
    // Back to too small: quit still acts.
    frame(&mut m, 40, 10);
    assert_eq!(type_keys(&mut m, "q"), vec![Command::Quit]);
}

#[test]
fn an_open_dialog_stays_open_and_unconfirmed_while_the_terminal_is_too_small() {
    let mut m = model();
    m.selected_nodes_mut().insert(NODE_W3.into());
    frame(&mut m, 120, 40);
    type_keys(&mut m, "a");
    assert!(confirm_open(&m), "{:?}", m.notice());
    frame(&mut m, 120, 40);
    assert!(m.frame.confirm_in_full.is_some(), "drawn in full at 120x40");

    // The window shrinks: nothing the keys do reaches the dialog.
    frame(&mut m, 60, 20);
    let mut cmds = type_keys(&mut m, "ynN");
    for code in [KeyCode::Tab, KeyCode::Enter, KeyCode::Esc] {
        cmds.extend(press(&mut m, code));
    }
    assert!(cmds.is_empty(), "{cmds:?}");
    match m.modals.dialog() {
        Some(Dialog::Confirm(c)) => assert_eq!(
            c.focus,
            mosk_console::app::actions::dialog::ConfirmFocus::Cancel,
            "Tab did not move the focus either"
        ),
        other => panic!("the dialog closed: {other:?}"),
    }

    // Back at a usable size, once drawn, y confirms.
    frame(&mut m, 120, 40);
    assert!(executes(&type_keys(&mut m, "y")));
}

#[test]
fn y_confirms_only_a_dialog_drawn_in_full_on_the_last_frame() {
    let mut m = model();
    m.selected_nodes_mut().insert(NODE_W3.into());
    frame(&mut m, 120, 40);
    // `a` and `y` in one batch: the dialog was never on screen.
    let cmds = type_keys(&mut m, "ay");
    assert!(!executes(&cmds), "{cmds:?}");
    assert!(confirm_open(&m), "the dialog stays open");
    match m.modals.dialog() {
        Some(Dialog::Confirm(c)) => assert!(
            c.error
                .as_deref()
                .is_some_and(|e| e.contains("had not been drawn yet")),
            "{:?}",
            c.error
        ),
        _ => unreachable!(),
    }
    // Drawn: now it confirms.
    frame(&mut m, 120, 40);
    assert!(executes(&type_keys(&mut m, "y")));
}

/// The refusal of a `y` typed ahead of the screen gives the real reason: at
/// 80x24 the dialog fits, it had only not been drawn yet.
#[test]
fn a_burst_a_y_says_the_dialog_was_not_drawn_yet_not_that_the_terminal_is_too_small() {
    let mut m = model();
    m.selected_nodes_mut().insert(NODE_W3.into());
    frame(&mut m, 80, 24);
    let cmds = type_keys(&mut m, "ay");
    assert!(!executes(&cmds), "{cmds:?}");
    let error = match m.modals.dialog() {
        Some(Dialog::Confirm(c)) => c.error.clone().unwrap_or_default(),
        other => panic!("the dialog closed: {other:?}"),
    };
    assert_eq!(
        error,
        "not confirmed: this dialog had not been drawn yet when the key came \
         (typed ahead of the screen); read it, then confirm again"
    );
    // It fits 80x24: drawn once, it is in full and `y` confirms.
    frame(&mut m, 80, 24);
    assert!(m.frame.confirm_in_full.is_some(), "fits 80x24");
    assert!(executes(&type_keys(&mut m, "y")));
}

#[test]
fn a_dialog_taller_than_the_terminal_confirms_only_once_read_through() {
    // Setting the migration mode on every node: six objects to change,
    // three lines each, more than 80x24 holds.
    let mut m = model();
    for n in [
        NODE_M0, NODE_M1, NODE_M2, NODE_W1, NODE_W2, NODE_W3, NODE_W4,
    ] {
        m.selected_nodes_mut().insert(n.into());
    }
    frame(&mut m, 80, 24);
    type_keys(&mut m, "m");
    frame(&mut m, 80, 24);
    press(&mut m, KeyCode::Enter);
    assert!(confirm_open(&m), "{:?}", m.modals.dialog());
    frame(&mut m, 80, 24);
    assert_eq!(m.frame.confirm_in_full, None, "the list does not fit 80x24");
    assert!(!executes(&type_keys(&mut m, "y")));
    match m.modals.dialog() {
        Some(Dialog::Confirm(c)) => assert_eq!(
            c.error.as_deref(),
            Some(
                "not confirmed: part of this dialog has not been on screen yet; \
                 read it down to the end (j/k scroll), then confirm again"
            )
        ),
        other => panic!("the dialog closed: {other:?}"),
    }
    press(&mut m, KeyCode::Tab);
    assert!(
        !executes(&press(&mut m, KeyCode::Enter)),
        "Enter on Confirm"
    );
    assert!(confirm_open(&m));

    // Keys in a burst scroll past lines no frame showed: still not read.
    for _ in 0..30 {
        press(&mut m, KeyCode::Char('j'));
    }
    frame(&mut m, 80, 24);
    assert_eq!(m.frame.confirm_in_full, None, "jumped over unread lines");
    assert!(!executes(&press(&mut m, KeyCode::Enter)));
    assert!(confirm_open(&m));
    // Back to the top, then read down line by line, a frame each: every
    // line has been on screen, so it may be confirmed at 80x24 too.
    for _ in 0..30 {
        press(&mut m, KeyCode::Char('k'));
    }
    frame(&mut m, 80, 24);
    let mut steps = 0;
    while m.frame.confirm_in_full.is_none() && steps < 60 {
        press(&mut m, KeyCode::Char('j'));
        frame(&mut m, 80, 24);
        steps += 1;
    }
    assert!(steps > 0, "the list did not fit: it took scrolling");
    assert!(
        m.frame.confirm_in_full.is_some(),
        "read through by scrolling"
    );

    // Taller: it fits, Enter on the focused Confirm button sends it.
    frame(&mut m, 160, 48);
    assert!(m.frame.confirm_in_full.is_some());
    assert!(executes(&press(&mut m, KeyCode::Enter)));
}
