//! How times and durations are written on screen, in one place: `5s`,
//! `4m12s`, `2h05m`, `3d04h`. Plain functions (no ratatui), so the table
//! builders use them too.

use jiff::Timestamp;

/// A duration in whole seconds, written short: `5s`, `4m12s`, `2h05m`,
/// `3d04h`. Negative durations (clock skew) are written as `0s`.
pub fn duration_secs(secs: i64) -> String {
    let s = secs.max(0);
    let (d, h, m, sec) = (s / 86_400, (s / 3600) % 24, (s / 60) % 60, s % 60);
    if d > 0 {
        format!("{d}d{h:02}h")
    } else if h > 0 {
        format!("{h}h{m:02}m")
    } else if m > 0 {
        format!("{m}m{sec:02}s")
    } else {
        format!("{sec}s")
    }
}

/// Seconds from `then` to `now` (0 when `then` is in the future).
pub fn secs_between(now: Timestamp, then: Timestamp) -> i64 {
    now.duration_since(then).as_secs().max(0)
}

/// What goes before an age: `≥` when its start is a lower bound (the
/// condition began before the console saw it), `~` when it is inferred
/// (no object records it), nothing when it is exact.
pub fn since_mark(at_least: bool, inferred: bool) -> &'static str {
    match (at_least, inferred) {
        (true, _) => "≥",
        (false, true) => "~",
        (false, false) => "",
    }
}

/// The age of `then` seen from `now`: `4m12s`.
pub fn age(now: Timestamp, then: Timestamp) -> String {
    duration_secs(secs_between(now, then))
}

/// The age of an optional time, `-` when unknown.
pub fn age_opt(now: Timestamp, then: Option<Timestamp>) -> String {
    then.map(|t| age(now, t)).unwrap_or_else(|| "-".into())
}

/// A wall-clock time in UTC, `14:03:07`, for event lists.
pub fn clock(t: Timestamp) -> String {
    t.strftime("%H:%M:%S").to_string()
}

/// Cuts `s` to at most `max` characters, ending with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// Cuts `s` to at most `max` characters by removing its middle, so both the
/// start and the distinguishing end stay visible (`kaas-node-…8f2c1`).
pub fn truncate_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    if max < 5 {
        return truncate(s, max);
    }
    let tail = (max - 1) / 2;
    let head = max - 1 - tail;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

/// Word-wraps `text` to lines of at most `width` characters, each starting
/// with `indent` spaces (words longer than a line are cut). Hand-written:
/// ratatui's wrapping cannot indent continuation lines, and textwrap is not
/// a dependency for these few lines.
pub fn wrap_indented(text: &str, width: usize, indent: usize) -> Vec<String> {
    let room = width.saturating_sub(indent).max(1);
    let pad = " ".repeat(indent);
    let mut out = Vec::new();
    let mut line = String::new();
    let mut len = 0usize;
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let need = if len == 0 {
                word.len()
            } else {
                len + 1 + word.len()
            };
            if need <= room {
                if len > 0 {
                    line.push(' ');
                }
                line.extend(word.iter());
                len = need;
                break;
            }
            if len > 0 {
                out.push(format!("{pad}{line}"));
                line.clear();
                len = 0;
                continue;
            }
            // A word longer than a line: cut it.
            let rest = word.split_off(room);
            out.push(format!("{pad}{}", word.iter().collect::<String>()));
            word = rest;
        }
    }
    if len > 0 || out.is_empty() {
        out.push(format!("{pad}{line}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_short_and_padded() {
        assert_eq!(duration_secs(0), "0s");
        assert_eq!(duration_secs(5), "5s");
        assert_eq!(duration_secs(252), "4m12s");
        assert_eq!(duration_secs(60), "1m00s");
        assert_eq!(duration_secs(2 * 3600 + 5 * 60 + 59), "2h05m");
        assert_eq!(duration_secs(3 * 86_400 + 4 * 3600), "3d04h");
        assert_eq!(duration_secs(-30), "0s");
    }

    #[test]
    fn ages_are_measured_from_now() {
        let now: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        let then: Timestamp = "2026-03-01T11:55:48Z".parse().unwrap();
        assert_eq!(age(now, then), "4m12s");
        assert_eq!(age(then, now), "0s", "future times do not go negative");
        assert_eq!(age_opt(now, None), "-");
        assert_eq!(clock(then), "11:55:48");
    }

    #[test]
    fn wrapping_keeps_the_indent() {
        assert_eq!(
            wrap_indented("Some servers are still present on the host.", 20, 4),
            vec![
                "    Some servers are",
                "    still present on",
                "    the host."
            ]
        );
        assert_eq!(
            wrap_indented("abcdefghij", 6, 2),
            vec!["  abcd", "  efgh", "  ij"]
        );
        assert_eq!(wrap_indented("", 6, 2), vec!["  "]);
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
        assert_eq!(truncate("abc", 0), "");
        assert_eq!(truncate_middle("kaas-node-0123456789", 11), "kaas-…56789");
        assert_eq!(truncate_middle("short", 11), "short");
        assert_eq!(truncate_middle("abcdef", 4), "abc…");
    }
}
