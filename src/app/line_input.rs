//! The one line-input type: the `/` filter, the `:` command and the log
//! search are typed into a [`LineInput`].
//!
//! It is built on tui-textarea (`ratatui-textarea`, already in the tree for
//! the dialogs' fields), which keeps the text and the cursor and does the
//! editing (char boundaries, word deletion, cursor moves). The crate is a
//! multi-line editor, so this type narrows it to one line: the keys are a
//! short list mapped onto the crate's primitives (no Enter, Tab, undo or
//! yank reaching it: each could add a line or break the length cap), pastes
//! are sanitized and lose their line breaks, and the text is capped at
//! [`MAX_CHARS`] characters (or less: [`LineInput::with_cap`]). The input
//! lines are drawn by `ui::input` from [`LineInput::text`] and
//! [`LineInput::cursor`]; the dialogs' fields (the step name typed to
//! confirm, the migration attempts) with the crate's widget
//! ([`LineInput::textarea`]), as they always were.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_textarea::{CursorMove, TextArea};

/// The most characters an input line holds.
pub const MAX_CHARS: usize = 200;

/// One line of text being typed, with a cursor.
#[derive(Debug, Clone)]
pub struct LineInput {
    area: TextArea<'static>,
    /// The most characters it holds.
    cap: usize,
}

impl Default for LineInput {
    fn default() -> LineInput {
        LineInput {
            area: TextArea::default(),
            cap: MAX_CHARS,
        }
    }
}

impl LineInput {
    /// An empty line holding at most `cap` characters (and at most [`MAX_CHARS`]).
    pub fn with_cap(cap: usize) -> LineInput {
        LineInput {
            cap: cap.min(MAX_CHARS),
            ..LineInput::default()
        }
    }

    /// The text shown, muted, while the line is empty.
    pub fn with_placeholder(mut self, text: &str) -> LineInput {
        self.area.set_placeholder_text(text);
        self
    }

    /// The editor underneath, for drawing with the crate's widget.
    pub fn textarea(&self) -> &TextArea<'static> {
        &self.area
    }

    /// A line holding `text` (sanitized, one line, capped), the cursor at its end.
    pub fn new(text: &str) -> LineInput {
        let mut input = LineInput::default();
        input.paste(text);
        input
    }

    /// The text typed.
    pub fn text(&self) -> &str {
        self.area.lines().first().map_or("", String::as_str)
    }

    /// The cursor's place, in characters from the start of the line.
    pub fn cursor(&self) -> usize {
        self.area.cursor().1
    }

    fn len(&self) -> usize {
        self.text().chars().count()
    }

    /// Inserts `c` at the cursor unless the line is full or `c` is a
    /// control character. Returns whether the text changed.
    pub fn insert(&mut self, c: char) -> bool {
        if c.is_control() || self.len() >= self.cap {
            return false;
        }
        self.area.insert_char(c);
        true
    }

    /// Inserts pasted text at the cursor: sanitized, line breaks and other
    /// control characters dropped, cut at the cap. Returns whether the text
    /// changed.
    pub fn paste(&mut self, text: &str) -> bool {
        let room = self.cap.saturating_sub(self.len());
        let clean: String = crate::sanitize::sanitize(text)
            .chars()
            .filter(|c| !c.is_control())
            .take(room)
            .collect();
        !clean.is_empty() && self.area.insert_str(clean)
    }

    /// Empties the line.
    pub fn clear(&mut self) {
        self.area.move_cursor(CursorMove::End);
        self.area.delete_line_by_head();
    }

    /// An editing key: characters, Backspace, Delete, Left/Right, Home/End
    /// (and Ctrl-A/Ctrl-E), Ctrl-W (the word before the cursor), Ctrl-U
    /// (clears the line). Returns whether the key was one of these; Enter,
    /// Esc and the rest are left to the caller.
    pub fn key(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('u') if ctrl => self.clear(),
            KeyCode::Char('w') if ctrl => {
                self.area.delete_word();
            }
            KeyCode::Char('a') if ctrl => self.area.move_cursor(CursorMove::Head),
            KeyCode::Char('e') if ctrl => self.area.move_cursor(CursorMove::End),
            KeyCode::Char(_) if ctrl => return false,
            KeyCode::Char(c) => {
                self.insert(c);
            }
            KeyCode::Backspace => {
                self.area.delete_char();
            }
            KeyCode::Delete => {
                self.area.delete_next_char();
            }
            KeyCode::Left => self.area.move_cursor(CursorMove::Back),
            KeyCode::Right => self.area.move_cursor(CursorMove::Forward),
            KeyCode::Home => self.area.move_cursor(CursorMove::Head),
            KeyCode::End => self.area.move_cursor(CursorMove::End),
            _ => return false,
        }
        true
    }
}

impl From<&str> for LineInput {
    fn from(text: &str) -> LineInput {
        LineInput::new(text)
    }
}

impl From<String> for LineInput {
    fn from(text: String) -> LineInput {
        LineInput::new(&text)
    }
}

/// Two inputs are equal when they hold the same text with the cursor at the
/// same place (the crate's undo history does not count).
impl PartialEq for LineInput {
    fn eq(&self, other: &LineInput) -> bool {
        self.text() == other.text() && self.cursor() == other.cursor()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn typed(text: &str) -> LineInput {
        let mut input = LineInput::default();
        for c in text.chars() {
            assert!(input.key(key(KeyCode::Char(c))));
        }
        input
    }

    #[test]
    fn the_cursor_moves_and_characters_go_in_where_it_stands() {
        let mut i = typed("wker");
        assert_eq!((i.text(), i.cursor()), ("wker", 4));
        i.key(key(KeyCode::Left));
        i.key(key(KeyCode::Left));
        i.key(key(KeyCode::Left));
        assert_eq!(i.cursor(), 1);
        i.key(key(KeyCode::Char('o')));
        assert_eq!((i.text(), i.cursor()), ("woker", 2));
        i.key(key(KeyCode::Char('r')));
        assert_eq!((i.text(), i.cursor()), ("worker", 3));
        i.key(key(KeyCode::Home));
        assert_eq!(i.cursor(), 0);
        i.key(key(KeyCode::Left));
        assert_eq!(i.cursor(), 0, "Left stops at the start");
        i.key(key(KeyCode::Delete));
        assert_eq!((i.text(), i.cursor()), ("orker", 0));
        i.key(key(KeyCode::End));
        i.key(key(KeyCode::Right));
        assert_eq!(i.cursor(), 5, "Right stops at the end");
        i.key(key(KeyCode::Backspace));
        assert_eq!((i.text(), i.cursor()), ("orke", 4));
        i.key(ctrl('a'));
        assert_eq!(i.cursor(), 0);
        i.key(ctrl('e'));
        assert_eq!(i.cursor(), 4);
    }

    #[test]
    fn wide_and_accented_characters_count_as_one_place() {
        let mut i = typed("né节");
        assert_eq!(i.cursor(), 3);
        i.key(key(KeyCode::Left));
        i.key(key(KeyCode::Backspace));
        assert_eq!((i.text(), i.cursor()), ("n节", 1));
    }

    #[test]
    fn ctrl_u_clears_and_ctrl_w_deletes_a_word() {
        let mut i = typed("kaas worker");
        i.key(ctrl('w'));
        assert_eq!(i.text(), "kaas ");
        i.key(ctrl('u'));
        assert_eq!((i.text(), i.cursor()), ("", 0));
    }

    #[test]
    fn the_line_holds_at_most_200_characters() {
        let mut i = typed(&"x".repeat(MAX_CHARS));
        assert!(!i.insert('y'));
        i.key(key(KeyCode::Char('y')));
        assert_eq!(i.text(), "x".repeat(MAX_CHARS));
        i.key(key(KeyCode::Home));
        assert!(!i.paste("abc"));
        assert_eq!(i.text().chars().count(), MAX_CHARS);
        i.key(key(KeyCode::Backspace)); // at the start: nothing to delete
        i.key(key(KeyCode::Delete));
        assert!(i.paste("abc"));
        assert_eq!(i.text().chars().count(), MAX_CHARS);
        assert!(i.text().starts_with('a') && i.text()[1..].starts_with('x'));
    }

    #[test]
    fn a_smaller_cap_holds() {
        let mut i = LineInput::with_cap(3);
        for c in "12345".chars() {
            i.key(key(KeyCode::Char(c)));
        }
        assert!(!i.paste("6"));
        assert_eq!(i.text(), "123");
    }

    #[test]
    fn a_paste_is_sanitized_and_stays_on_one_line() {
        let mut i = typed("ab");
        i.key(key(KeyCode::Left));
        assert!(i.paste("1\n2\r\x1b[31m3\t"));
        assert_eq!(i.text().lines().count(), 1);
        assert!(!i.text().contains('\x1b'), "{:?}", i.text());
        assert!(!i.text().chars().any(char::is_control), "{:?}", i.text());
        assert!(i.text().starts_with("a1") && i.text().ends_with('b'));
        assert_eq!(i.cursor(), i.text().chars().count() - 1);
        let long = LineInput::new(&"z".repeat(500));
        assert_eq!(long.text().chars().count(), MAX_CHARS);
    }

    #[test]
    fn enter_esc_and_tab_are_left_to_the_caller() {
        let mut i = typed("a");
        for k in [KeyCode::Enter, KeyCode::Esc, KeyCode::Tab] {
            assert!(!i.key(key(k)));
        }
        assert!(!i.key(ctrl('j')));
        assert!(!i.key(ctrl('m')));
        assert_eq!(i, LineInput::new("a"));
    }
}
