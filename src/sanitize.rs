//! Making untrusted text (names, messages, log lines) safe to draw in a terminal.
//!
//! Every string that comes from a cluster passes through [`sanitize`] where it
//! becomes text to draw: in the cluster layer before it reaches the model, and
//! again after any parsing that can turn inert text back into controls (a JSON
//! log line's `"\u001b"` is decoded in `app::logs`, then sanitized). Nothing a
//! cluster sends can move the cursor, recolour the screen, set the title,
//! write the clipboard, reorder text or hide text.
//!
//! What is removed or replaced, in this order:
//! 1. Line breaks (`\n`, `\r\n`, lone `\r`, U+0085 NEL, U+2028, U+2029) become
//!    `\n`; a tab becomes [`TAB_WIDTH`] spaces.
//! 2. 8-bit C1 controls (U+0080–U+009F) become their 7-bit form, `ESC` plus
//!    the code minus 0x40 (ECMA-48 §5.3): U+009B is `ESC [` (CSI), U+009D
//!    `ESC ]` (OSC), U+0090 `ESC P` (DCS), U+0098/9E/9F SOS/PM/APC, U+009C
//!    `ESC \` (ST). A terminal that honours 8-bit controls reads them so; by
//!    rewriting them the next step removes the *whole* sequence (U+009B `31m`
//!    leaves nothing), not only the introducer.
//! 3. Escape sequences, whole: CSI, OSC (incl. 0 title and 52 clipboard, with
//!    a BEL or ST terminator), DCS, SOS/PM/APC strings and two-byte `ESC x`
//!    sequences, by the `strip-ansi-escapes` crate (a `vte` state machine, the
//!    parser Alacritty uses; not hand-written). An unterminated OSC/DCS/APC
//!    string swallows the rest of the text: a terminal would do the same, and
//!    it is the safe reading.
//! 4. What the parser lets through: C0 controls, DEL, any C1 left, and the
//!    Unicode bidirectional and invisible format characters ([`is_format_char`]:
//!    overrides U+202A–202E, isolates U+2066–2069, marks U+200E/F and U+061C,
//!    zero-width space/joiners U+200B–200D, U+2060–2064, U+206A–206F, U+FEFF,
//!    U+FFF9–FFFB, U+180E, soft hyphen U+00AD and the tag characters
//!    U+E0000–E007F). They are not all `char::is_control` but let a string
//!    display in another order than it reads (Trojan Source) or hide text.
//! 5. Grapheme clusters (the `unicode-segmentation` crate, as ratatui splits
//!    cells): a cluster that takes no column (`unicode-width`) is dropped (a
//!    combining mark with no base would draw over the previous cell, e.g. a
//!    table border); a cluster keeps at most [`MAX_CLUSTER_CHARS`] code points
//!    (a base and four marks: enough for Vietnamese, Hangul jamo, keycaps,
//!    skin tones and Indic conjuncts; "Zalgo" text whose stacked marks would
//!    spill into the rows above and below is capped).
//! 6. Text longer than [`MAX_LEN`] bytes is cut at a character boundary and
//!    ends with `…`. Work is bounded before any of the above: input past
//!    `4 × MAX_LEN` bytes (a 1 MB annotation) is cut first.
//!
//! Decisions, and why:
//! - Zero-width joiners and spaces are removed everywhere, even inside an
//!   emoji sequence: 👨‍👩‍👧 shows as 👨👩👧. Terminals and ratatui disagree on
//!   the width of joined sequences, which shifts every column after it; an
//!   invisible joiner in a name also makes two different names look equal.
//!   Losing a ligature is the cheaper error.
//! - Combining marks stay (with their base, capped as above): accented names
//!   are legitimate and precomposed forms are not always used.
//! - Total width is bounded by the byte cap: every column costs at least one
//!   byte (a double-width character costs three or four), so a sanitized
//!   string is at most [`MAX_LEN`] + 1 columns wide; each view then clips to
//!   its cell.
//! - Invalid UTF-8 never reaches this function: readers decode lossily (a bad
//!   byte becomes U+FFFD, e.g. `cluster::logs::lines::decode`).
//! - Hand-written parts, and why: steps 1, 2 and 4 are short character maps
//!   no crate offers in this combination (`strip-ansi-escapes` keeps C0/C1
//!   and does not read UTF-8-encoded C1 as controls); step 5 is a loop over
//!   the crates' graphemes and widths.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Longest sanitized text, in bytes (before the ellipsis).
pub const MAX_LEN: usize = 16 * 1024;

/// Spaces a tab becomes.
pub const TAB_WIDTH: usize = 4;

/// Most code points one grapheme cluster (one drawn cell) keeps.
pub const MAX_CLUSTER_CHARS: usize = 5;

/// Returns `s` on one line, with escape sequences, control characters and
/// bidirectional/invisible format characters removed; tabs become spaces and
/// line breaks become a space.
pub fn sanitize(s: &str) -> String {
    clean(s, false)
}

/// Like [`sanitize`] but keeps line breaks, normalized to `\n`.
/// Every string of a JSON value sanitized, object keys included. Parsing
/// turns an escaped control (`"\u001b"`) back into the character, so this
/// runs after parsing, never on the text before.
pub fn json(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(s) => Value::String(sanitize(&s)),
        Value::Array(a) => Value::Array(a.into_iter().map(json).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (sanitize(&k), json(v)))
                .collect(),
        ),
        other => other,
    }
}

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
    let pre = normalize(input);
    let stripped = strip_ansi_escapes::strip_str(&pre);
    let mut out = String::with_capacity(stripped.len());
    for c in stripped.chars() {
        if c == '\n' {
            out.push(if keep_newlines { '\n' } else { ' ' });
        } else if c.is_control() || is_format_char(c) {
            // C0, DEL, C1 (including a lone ESC the parser let through) and
            // bidi/format characters: dropped.
        } else {
            out.push(c);
        }
    }
    let out = bound_clusters(&out);
    let (kept, cut_again) = truncate(&out, MAX_LEN);
    let mut result = kept.to_string();
    if cut || cut_again {
        result.push('…');
    }
    result
}

/// Steps 1 and 2: line breaks to `\n`, tabs to spaces, 8-bit C1 controls to
/// their 7-bit `ESC` form so the escape parser removes their whole sequence.
fn normalize(input: &str) -> String {
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
            '\u{0080}'..='\u{009F}' => {
                pre.push('\x1b');
                pre.push(char::from(c as u8 - 0x40));
            }
            c => pre.push(c),
        }
    }
    pre
}

/// Step 5: drops grapheme clusters that take no column and caps the code
/// points of each cluster (combining-mark runs).
fn bound_clusters(s: &str) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for g in s.graphemes(true) {
        if g == "\n" {
            out.push('\n');
        } else if g.width() > 0 {
            out.extend(g.chars().take(MAX_CLUSTER_CHARS));
        }
    }
    out
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
        // The whole 8-bit sequence goes, not only its introducer; the
        // unterminated OSC swallows the rest, as a terminal would.
        assert_eq!(sanitize("p\u{9b}31mq\u{9d}r"), "pq");
        assert_eq!(sanitize("a\u{9b}2Jb"), "ab");
        // 8-bit OSC 0 and 52 ended by the 8-bit ST, and by BEL.
        assert_eq!(sanitize("a\u{9d}0;evil title\u{9c}b"), "ab");
        assert_eq!(sanitize("a\u{9d}52;c;cm0gLXJmIC8K\u{7}b"), "ab");
        // 8-bit DCS, APC, PM and SOS strings.
        assert_eq!(sanitize("x\u{90}1$r0m\u{9c}y"), "xy");
        assert_eq!(sanitize("x\u{9f}payload\u{9c}y"), "xy");
        assert_eq!(sanitize("x\u{9e}privacy\u{9c}y"), "xy");
        assert_eq!(sanitize("x\u{98}string\u{9c}y"), "xy");
        // Other C1 controls (IND, RI, HTS) vanish without eating text.
        assert_eq!(sanitize("a\u{84}b\u{8d}c\u{88}d"), "abcd");
    }

    #[test]
    fn apc_pm_and_sos_strings_removed_whole() {
        assert_eq!(sanitize("a\x1b_Gf=100;AAAA\x1b\\b"), "ab");
        assert_eq!(sanitize("a\x1b^secret\x1b\\b"), "ab");
        assert_eq!(sanitize("a\x1bXsos text\x1b\\b"), "ab");
        // A DCS XTGETTCAP request.
        assert_eq!(sanitize("a\x1bP+q544e\x1b\\b"), "ab");
    }

    #[test]
    fn combining_marks_stay_with_their_base_but_runs_are_capped() {
        // Decomposed accents are kept.
        assert_eq!(sanitize("cafe\u{301}"), "cafe\u{301}");
        assert_eq!(sanitize("e\u{302}\u{323}"), "e\u{302}\u{323}");
        // "Zalgo": 40 marks on one base keep the base and four marks.
        let zalgo = format!("Z{}a", "\u{336}\u{334}\u{335}\u{337}".repeat(10));
        let s = sanitize(&zalgo);
        assert_eq!(s.chars().count(), MAX_CLUSTER_CHARS + 1, "{s:?}");
        assert!(s.starts_with('Z') && s.ends_with('a'));
        // A mark with no base (it would draw over the previous cell) goes.
        assert_eq!(sanitize("\u{301}abc"), "abc");
        assert_eq!(sanitize("\u{20DD}"), "");
    }

    #[test]
    fn zero_width_joiners_split_emoji_sequences() {
        // Man, ZWJ, woman, ZWJ, girl: drawn as three emoji of known width.
        assert_eq!(
            sanitize("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"),
            "\u{1F468}\u{1F469}\u{1F467}"
        );
        // An invisible joiner cannot make two names look the same.
        assert_eq!(sanitize("kaas\u{200D}-node-1"), "kaas-node-1");
        assert_eq!(sanitize("a\u{2060}b\u{200C}c"), "abc");
    }

    #[test]
    fn width_is_bounded_by_the_byte_cap() {
        use unicode_width::UnicodeWidthStr;
        for s in [
            "x".repeat(MAX_LEN * 3),
            "節".repeat(MAX_LEN),
            "🚀".repeat(MAX_LEN),
        ] {
            let out = sanitize(&s);
            assert!(out.width() <= MAX_LEN + 1, "{}", out.width());
        }
    }

    #[test]
    fn a_megabyte_of_escapes_is_bounded_and_inert() {
        let s = "\x1b]52;c;QUJD\x07\u{9b}2J\u{202e}x\u{301}\u{301}".repeat(60_000);
        assert!(s.len() > 1_000_000);
        let out = sanitize(&s);
        assert!(out.len() <= MAX_LEN + '…'.len_utf8());
        assert!(out.ends_with('…'));
        assert_inert(&out);
        assert!(
            !out.contains("52;") && !out.contains("2J"),
            "{}",
            out.chars().take(20).collect::<String>()
        );
    }

    #[test]
    fn sanitizing_twice_changes_nothing() {
        for s in [
            "a\x1b[31mb\u{9b}1mc\u{202e}d\u{301}\u{301}",
            "\u{1F468}\u{200D}\u{1F469} e\u{301}",
            &"y".repeat(MAX_LEN * 2),
            &format!("{}\n", "節".repeat(MAX_LEN)),
        ] {
            let once = sanitize(s);
            assert_eq!(sanitize(&once), once);
            let once = sanitize_multiline(s);
            assert_eq!(sanitize_multiline(&once), once);
        }
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
