//! Making untrusted text (names, messages, log lines) safe to draw in a terminal.
//!
//! Every string that comes from a cluster passes through [`sanitize`] in the
//! cluster layer before it reaches the model, so nothing a cluster sends can
//! move the cursor, recolour the screen, write the clipboard or reorder text.
//!
//! What is removed or replaced:
//! - ANSI/VT escape sequences (CSI, OSC, DCS, SOS/PM/APC, two-byte ESC
//!   sequences), by the `strip-ansi-escapes` crate (a `vte` state machine). An
//!   unterminated OSC/DCS string swallows the rest of the text: a terminal
//!   would do the same, and it is the safe reading.
//! - What the crate lets through: C0 controls, DEL and C1 controls (U+0080–
//!   U+009F) are dropped by our own final filter.
//! - Unicode bidirectional and invisible format characters (U+202A–202E,
//!   U+2066–2069, U+200E/F, U+061C, U+200B–200D, U+2060–2064, U+206A–206F,
//!   U+FEFF, U+FFF9–FFFB, U+180E, U+00AD and the tag characters U+E0000–E007F):
//!   they are not `char::is_control` but let a string display in another
//!   order than it reads (Trojan Source) or hide text.
//! - A tab becomes [`TAB_WIDTH`] spaces.
//! - Line breaks (`\n`, `\r\n`, lone `\r`, U+0085, U+2028, U+2029): [`sanitize`]
//!   makes each one a single space, so a value fits one table cell and reads
//!   as a sentence; [`sanitize_multiline`] keeps them as `\n` for detail panes.
//! - Text longer than [`MAX_LEN`] bytes is cut at a character boundary and
//!   ends with `…`.

/// Longest sanitized text, in bytes (before the ellipsis).
pub const MAX_LEN: usize = 16 * 1024;

/// Spaces a tab becomes.
pub const TAB_WIDTH: usize = 4;

/// Returns `s` on one line, with escape sequences, control characters and
/// bidirectional/invisible format characters removed; tabs become spaces and
/// line breaks become a space.
pub fn sanitize(s: &str) -> String {
    clean(s, false)
}

/// Like [`sanitize`] but keeps line breaks, normalized to `\n`.
pub fn sanitize_multiline(s: &str) -> String {
    clean(s, true)
}

/// A character that can reorder or hide text without being a control character.
pub fn is_format_char(c: char) -> bool {
    matches!(c,
        '\u{00AD}'
        | '\u{061C}'
        | '\u{180E}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E0000}'..='\u{E007F}')
}

fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{0085}' | '\u{2028}' | '\u{2029}')
}

/// Needs no work: printable ASCII only (the common case for names).
fn is_plain(s: &str) -> bool {
    s.len() <= MAX_LEN && s.bytes().all(|b| (0x20..0x7f).contains(&b))
}

fn clean(s: &str, keep_newlines: bool) -> String {
    if is_plain(s) {
        return s.to_string();
    }
    // Bound the work on absurd input: look at most at 4x the output cap.
    let (input, cut) = truncate(s, MAX_LEN * 4);
    // Normalize line breaks first: the escape stripper keeps `\n` but drops
    // `\r`, and tabs, which it also drops, become spaces.
    let mut pre = String::with_capacity(input.len());
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                pre.push('\n');
            }
            '\u{0085}' | '\u{2028}' | '\u{2029}' => pre.push('\n'),
            '\t' => pre.extend(std::iter::repeat_n(' ', TAB_WIDTH)),
            c => pre.push(c),
        }
    }
    let stripped = strip_ansi_escapes::strip_str(&pre);
    let mut out = String::with_capacity(stripped.len());
    for c in stripped.chars() {
        if is_line_break(c) {
            out.push(if keep_newlines { '\n' } else { ' ' });
        } else if c.is_control() || is_format_char(c) {
            // C0, DEL, C1 (including a lone ESC the parser let through) and
            // bidi/format characters: dropped.
        } else {
            out.push(c);
        }
    }
    let (kept, cut_again) = truncate(&out, MAX_LEN);
    let mut result = kept.to_string();
    if cut || cut_again {
        result.push('…');
    }
    result
}

/// `s` cut to at most `max` bytes at a character boundary, and whether it was cut.
fn truncate(s: &str, max: usize) -> (&str, bool) {
    if s.len() <= max {
        return (s, false);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nothing that a terminal would interpret is left.
    fn assert_inert(s: &str) {
        for c in s.chars() {
            assert!(!c.is_control(), "control char {:?} in {s:?}", c);
            assert!(!is_format_char(c), "format char {:?} in {s:?}", c);
        }
    }

    #[test]
    fn plain_text_unchanged() {
        assert_eq!(sanitize("kaas-node-1 Ready"), "kaas-node-1 Ready");
        assert_eq!(sanitize(""), "");
    }

    #[test]
    fn colours_and_cursor_movement_removed() {
        assert_eq!(sanitize("\x1b[31mred\x1b[0m text"), "red text");
        assert_eq!(sanitize("a\x1b[2J\x1b[H\x1b[10;20Hb"), "ab");
        assert_eq!(sanitize("up\x1b[5Adown\x1b[1;31;42mX"), "updownX");
        // Cursor save/restore and a private mode (alternate screen).
        assert_eq!(sanitize("\x1b7\x1b[?1049hhidden\x1b8"), "hidden");
    }

    #[test]
    fn osc_52_clipboard_and_title_removed() {
        let s = sanitize("before\x1b]52;c;cm0gLXJmIC8K\x07after");
        assert_eq!(s, "beforeafter");
        let s = sanitize("a\x1b]0;evil title\x1b\\b");
        assert_eq!(s, "ab");
        // OSC 8 hyperlink: the link goes, the text stays.
        let s = sanitize("\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\");
        assert_eq!(s, "click");
    }

    #[test]
    fn dcs_and_8bit_c1_removed() {
        let s = sanitize("x\x1bP1$r0m\x1b\\y");
        assert_eq!(s, "xy");
        // U+009B is the 8-bit CSI; U+009D the 8-bit OSC.
        let s = sanitize("p\u{9b}31mq\u{9d}r");
        assert_inert(&s);
        assert!(s.starts_with('p'));
        assert!(s.contains('q') || s.contains('r'));
    }

    #[test]
    fn lone_and_trailing_esc() {
        assert_eq!(sanitize("abc\x1b"), "abc");
        // A lone ESC starts a two-byte sequence: it takes the next character
        // with it (as a terminal would) and nothing more.
        assert_eq!(sanitize("a\x1bMYZ"), "aYZ");
        // ESC X opens an SOS string, which runs to the end like an unterminated OSC.
        assert_eq!(sanitize("a\x1bXYZ"), "a");
        assert_inert(&sanitize("\x1b\x1b\x1b["));
    }

    #[test]
    fn invalid_or_unterminated_sequences_are_inert() {
        for input in [
            "\x1b[",
            "\x1b[999999999999999999999999m",
            "\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30;31;32;33m",
            "\x1b]52;c;",
            "\x1bP",
            "\x1b[\x1b]\x1bP\x1b\\\x07",
            "\x1b[?25l",
            "\x1bc",
        ] {
            assert_inert(&sanitize(input));
        }
    }

    #[test]
    fn controls_and_del_removed() {
        assert_eq!(sanitize("a\x07b\x08c\x7fd\x00e"), "abcde");
        assert_eq!(sanitize("bell\u{7}"), "bell");
    }

    #[test]
    fn tabs_and_newlines() {
        assert_eq!(sanitize("a\tb"), "a    b");
        assert_eq!(
            sanitize("line1\nline2\r\nline3\rline4"),
            "line1 line2 line3 line4"
        );
        assert_eq!(
            sanitize_multiline("line1\nline2\r\nline3\u{2028}x"),
            "line1\nline2\nline3\nx"
        );
        // A carriage return cannot be used to overwrite the start of a line.
        assert_eq!(sanitize("safe\rEVIL"), "safe EVIL");
    }

    #[test]
    fn bidi_override_removed() {
        // "Trojan Source": RLO makes "exe.txt" display reversed.
        let s = sanitize("invoice\u{202E}txt.exe");
        assert_eq!(s, "invoicetxt.exe");
        let s = sanitize("\u{2066}a\u{2069}\u{200E}b\u{200F}\u{061C}c\u{200B}d\u{FEFF}");
        assert_eq!(s, "abcd");
        assert_inert(&sanitize(
            "x\u{202A}\u{202B}\u{202C}\u{202D}\u{2067}\u{2068}y",
        ));
    }

    #[test]
    fn emoji_cjk_and_accents_kept() {
        assert_eq!(sanitize("節点 ✅ 🚀 café Ελλάδα"), "節点 ✅ 🚀 café Ελλάδα");
        assert_eq!(sanitize("\x1b[1m日本語\x1b[0m"), "日本語");
        assert_eq!(sanitize_multiline("🙂\n🙃"), "🙂\n🙃");
    }

    #[test]
    fn absurd_length_is_capped() {
        let long = "x".repeat(MAX_LEN * 10);
        let s = sanitize(&long);
        assert!(s.ends_with('…'));
        assert_eq!(s.len(), MAX_LEN + '…'.len_utf8());
        // A cut never splits a multi-byte character.
        let wide = "節".repeat(MAX_LEN);
        let s = sanitize(&wide);
        assert!(s.ends_with('…'));
        assert!(s.len() <= MAX_LEN + '…'.len_utf8());
        assert!(s.trim_end_matches('…').chars().all(|c| c == '節'));
        // Exactly at the cap: untouched.
        let exact = "y".repeat(MAX_LEN);
        assert_eq!(sanitize(&exact), exact);
    }

    #[test]
    fn every_single_char_is_inert() {
        // Each code point, alone and between text, never yields a control or
        // format character.
        for cp in (0u32..0x3000)
            .chain(0xE0000..0xE0080)
            .chain(0xFE00..0x10000)
        {
            if let Some(c) = char::from_u32(cp) {
                let s = format!("a{c}b");
                assert_inert(&sanitize(&s));
                assert_inert(&sanitize_multiline(&s).replace('\n', ""));
            }
        }
    }
}
