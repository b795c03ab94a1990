//! The one modal stack and the one line input, reached by sending keys and
//! frame reports through `update` as the runtime does: the top modal takes
//! the keys, Esc closes one level, the screen draws the stack bottom to top;
//! `/` edits in the middle of the line and filters as it is typed.

use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::modal::Modal;
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::config::theme::Theme;

const W: u16 = 80;
const H: u16 = 24;

/// A frame reported back to `update`, then the key.
fn send(m: &mut Model, key: KeyEvent) {
    let report = mosk_console::ui::report_at(m, &Theme::default_theme(), W, H);
    update(m, Msg::Drawn(report));
    update(m, Msg::Key(key));
}

fn key(m: &mut Model, code: KeyCode) {
    send(m, KeyEvent::new(code, KeyModifiers::NONE));
}

fn typed(m: &mut Model, text: &str) {
    for c in text.chars() {
        key(m, KeyCode::Char(c));
    }
}

fn screen(m: &Model) -> String {
    text_of(render(m, W, H).backend().buffer())
}

#[test]
fn help_opens_over_an_attention_items_text_and_esc_closes_one_level_at_a_time() {
    let mut m = with_view(View::Overview);
    let first = m.derived.attention[0].clone();
    key(&mut m, KeyCode::Enter);
    let text = Modal::attention_text(first.id());
    assert_eq!(m.modals.top(), Some(&text));
    let reading = screen(&m);
    assert!(reading.contains("esc: close"), "{reading}");
    // `?` goes to the top modal, which opens the help over the text.
    typed(&mut m, "?");
    assert_eq!(m.modals.len(), 2);
    assert_eq!(m.modals.top(), Some(&Modal::Help { scroll: 0 }));
    let t = render(&m, W, H);
    insta::assert_snapshot!("help_over_attention_text_80x24", t.backend());
    // j scrolls the help, not the attention queue under it.
    key(&mut m, KeyCode::Char('j'));
    assert_eq!(m.modals.top(), Some(&Modal::Help { scroll: 1 }));
    assert_eq!(
        m.views.overview.selected, None,
        "the queue's cursor did not move"
    );
    // Esc closes the help only: the text is back, drawn as before.
    key(&mut m, KeyCode::Esc);
    assert_eq!(m.modals.top(), Some(&text));
    assert_eq!(screen(&m), reading);
    // Esc again closes the text: the Overview takes the keys.
    key(&mut m, KeyCode::Esc);
    assert!(m.modals.is_empty());
    assert!(!screen(&m).contains("esc: close"));
    key(&mut m, KeyCode::Char('j'));
    assert!(
        m.views.overview.selected.is_some(),
        "j moves the queue's cursor"
    );
}

#[test]
fn the_filter_line_edits_in_the_middle_and_filters_as_it_is_typed() {
    let mut m = with_view(View::Machines);
    typed(&mut m, "/wker");
    for _ in 0..3 {
        key(&mut m, KeyCode::Left);
    }
    typed(&mut m, "or");
    assert_eq!(m.cursor(View::Machines).filter, "worker");
    let Some(Modal::FilterInput { text }) = m.modals.top() else {
        panic!("{:?}", m.modals)
    };
    assert_eq!(text.cursor(), 3, "the cursor stays after what was typed");
    let t = render(&m, W, H);
    insta::assert_snapshot!("filter_edited_in_the_middle_80x24", t.backend());
    let s = screen(&m);
    assert!(s.contains("/worker"), "{s}");
    assert!(
        s.contains("(4/7, filter"),
        "the managers are filtered out:\n{s}"
    );
    // `?` and `:` are typed into the line: the input line keeps the keys.
    key(&mut m, KeyCode::End);
    typed(&mut m, "?");
    assert_eq!(m.modals.len(), 1);
    assert_eq!(m.cursor(View::Machines).filter, "worker?");
    // Ctrl-U clears the line, and the live filter with it.
    send(
        &mut m,
        KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL),
    );
    assert_eq!(m.cursor(View::Machines).filter, "");
    // A paste stays on one line, sanitized (a line break becomes a space).
    update(&mut m, Msg::Paste("work\ner\x1b[2J".into()));
    let filter = m.cursor(View::Machines).filter;
    assert!(filter.starts_with("work er"), "{filter:?}");
    assert!(!filter.chars().any(char::is_control), "{filter:?}");
    // Enter keeps the filter and closes the line; Esc then clears it.
    key(&mut m, KeyCode::Enter);
    assert!(m.modals.is_empty());
    assert!(m.cursor(View::Machines).filter.starts_with("work er"));
    key(&mut m, KeyCode::Esc);
    assert_eq!(m.cursor(View::Machines).filter, "");
}

#[test]
fn esc_in_the_filter_line_closes_it_and_clears_the_filter() {
    let mut m = with_view(View::Machines);
    typed(&mut m, "/wor");
    assert_eq!(m.cursor(View::Machines).filter, "wor");
    key(&mut m, KeyCode::Esc);
    assert!(m.modals.is_empty());
    assert_eq!(m.cursor(View::Machines).filter, "");
    assert!(!screen(&m).contains("/wor"));
}
