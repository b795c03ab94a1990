//! The Logs view: the lcm-controller log with follow/pause, wrap, minimum
//! level, subject filter and search highlighting. Only the lines that fit on
//! screen are looked at and turned into widgets: the buffer holds up to
//! 20,000 lines.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::logs::{LOG_CAPACITY, LogLevel, LogLine, LogPane};
use crate::app::model::Model;
use crate::config::theme::Theme;
use crate::ui::pane;

fn level_style(theme: &Theme, level: Option<LogLevel>) -> Style {
    match level {
        Some(LogLevel::Debug) => theme.log_debug,
        Some(LogLevel::Info) => theme.log_info,
        Some(LogLevel::Warn) => theme.log_warn,
        Some(LogLevel::Error) => theme.log_error,
        None => theme.base,
    }
}

/// `10:28:41` from a zap timestamp (`2025-03-04T10:28:41.123Z`), else the
/// text as it came (also when byte 8 is not a character boundary: the
/// timestamp is the cluster's text, not necessarily ASCII).
fn short_time(ts: &str) -> &str {
    ts.split_once('T')
        .and_then(|(_, rest)| rest.get(..8))
        .unwrap_or(ts)
}

/// The text of a line as shown: structured lines as `time LEVEL msg k=v`,
/// plain lines as received.
pub(crate) fn line_text(line: &LogLine) -> String {
    let structured = line.ts.is_some() || line.logger.is_some() || !line.fields.is_empty();
    if !structured {
        return line.raw.clone();
    }
    let mut s = String::new();
    if let Some(ts) = &line.ts {
        s.push_str(short_time(ts));
        s.push(' ');
    }
    let level = line.level.map(|l| l.as_str()).unwrap_or("-");
    s.push_str(&format!("{:<5} ", level.to_ascii_uppercase()));
    s.push_str(&line.msg);
    for (k, v) in &line.fields {
        s.push_str(&format!(" {k}={v}"));
    }
    s
}

/// Char ranges of case-insensitive matches of `needle` in `hay`.
fn matches(hay: &[char], needle: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if needle.is_empty() || needle.len() > hay.len() {
        return out;
    }
    let eq = |a: char, b: char| a == b || a.to_lowercase().eq(b.to_lowercase());
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if hay[i..i + needle.len()]
            .iter()
            .zip(needle)
            .all(|(&a, &b)| eq(a, b))
        {
            out.push((i, i + needle.len()));
            i += needle.len();
        } else {
            i += 1;
        }
    }
    out
}

/// One log line as screen lines: styled by level, search matches
/// highlighted, cut to `width` (or wrapped at `width` characters).
fn render_line(
    line: &LogLine,
    search: &[char],
    width: usize,
    wrap: bool,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let text: Vec<char> = line_text(line).chars().collect();
    let base = level_style(theme, line.level);
    let hits = matches(&text, search);
    let style_at = |i: usize| {
        if hits.iter().any(|&(a, b)| i >= a && i < b) {
            base.patch(theme.search_match)
        } else {
            base
        }
    };
    let width = width.max(1);
    let chunks: Vec<(usize, usize)> = if wrap {
        (0..text.len().max(1))
            .step_by(width)
            .map(|a| (a, (a + width).min(text.len())))
            .collect()
    } else {
        vec![(0, text.len().min(width))]
    };
    chunks
        .into_iter()
        .map(|(a, b)| {
            let mut spans: Vec<Span> = Vec::new();
            let mut start = a;
            while start < b {
                let style = style_at(start);
                let mut end = start + 1;
                while end < b && style_at(end) == style {
                    end += 1;
                }
                spans.push(Span::styled(
                    text[start..end].iter().collect::<String>(),
                    style,
                ));
                start = end;
            }
            Line::from(spans)
        })
        .collect()
}

/// The screen lines to show, oldest first, ending at the anchor (or the
/// newest line when following); `true` when the oldest kept line is shown.
fn window(
    pane: &LogPane,
    height: usize,
    width: usize,
    theme: &Theme,
) -> (Vec<Line<'static>>, bool) {
    let search: Vec<char> = pane.search.as_deref().unwrap_or("").chars().collect();
    let end = match (pane.follow, pane.anchor) {
        (false, Some(seq)) => match pane.lines.binary_search_by_key(&seq, |l| l.seq) {
            Ok(i) => i + 1,
            Err(i) => i,
        },
        _ => pane.lines.len(),
    };
    let mut out: Vec<Vec<Line<'static>>> = Vec::new();
    let mut rows = 0;
    let mut reached_start = true;
    for (i, line) in pane.lines.range(..end).enumerate().rev() {
        if !pane.shows(line) {
            continue;
        }
        if rows >= height {
            reached_start = false;
            break;
        }
        let lines = render_line(line, &search, width, pane.wrap, theme);
        rows += lines.len();
        out.push(lines);
        if i == 0 {
            reached_start = true;
        }
    }
    let mut flat: Vec<Line<'static>> = out.into_iter().rev().flatten().collect();
    // A wrapped line that does not fit shows its end.
    if flat.len() > height {
        flat.drain(..flat.len() - height);
        reached_start = false;
    }
    (flat, reached_start)
}

/// The last `n` lines that pass the log view's filters, cut to `width`, for
/// the Overview.
pub(crate) fn tail(pane: &LogPane, n: usize, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = pane
        .lines
        .iter()
        .rev()
        .filter(|l| pane.overview_upto.is_none_or(|upto| l.seq <= upto))
        .filter(|l| pane.shows(l))
        .take(n)
        .flat_map(|l| render_line(l, &[], width, false, theme))
        .collect();
    out.reverse();
    out
}

fn status_line<'a>(pane: &'a LogPane, theme: &Theme) -> Line<'a> {
    let mut spans = vec![if pane.follow {
        Span::styled("FOLLOWING", theme.ok)
    } else {
        Span::styled("PAUSED", theme.warn)
    }];
    let mut add = |k: &'static str, v: String, style: Style| {
        spans.push(Span::styled("  │ ", theme.muted));
        spans.push(Span::styled(k, theme.muted));
        spans.push(Span::styled(v, style));
    };
    add(
        "wrap ",
        if pane.wrap { "on" } else { "off" }.into(),
        Style::new(),
    );
    add("level ≥ ", pane.min_level.as_str().into(), Style::new());
    if !pane.subject.is_empty() {
        add("about ", pane.subject.join(" or "), theme.key_hint);
    }
    if let Some(s) = &pane.search {
        add("search ", format!("\"{s}\""), theme.search_match);
    }
    add("lines ", pane.lines.len().to_string(), Style::new());
    if pane.dropped > 0 {
        add("dropped ", pane.dropped.to_string(), theme.warn);
    }
    Line::from(spans)
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let pane_state = &model.logs;
    let block = pane(
        " Logs: lcm-controller ",
        !model.modals.overlay_open(),
        theme,
    )
    .title_bottom(Line::styled(
        format!(" {} ", pane_state.status),
        theme.muted,
    ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height < 2 {
        return;
    }
    let [status, body] =
        Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(inner);
    frame.render_widget(Paragraph::new(status_line(pane_state, theme)), status);

    if pane_state.lines.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!("no log lines yet ({})", pane_state.status),
                theme.muted,
            )),
            body,
        );
        return;
    }
    let (mut lines, reached_start) =
        window(pane_state, body.height as usize, body.width as usize, theme);
    if lines.is_empty() {
        let mut why = format!(
            "no line passes the filters (level ≥ {}",
            pane_state.min_level.as_str()
        );
        if !pane_state.subject.is_empty() {
            why.push_str(&format!(", about {}", pane_state.subject.join(" or ")));
        }
        why.push(')');
        frame.render_widget(Paragraph::new(Line::styled(why, theme.muted)), body);
        return;
    }
    if reached_start && pane_state.dropped > 0 {
        if lines.len() >= body.height as usize {
            lines.remove(0);
        }
        lines.insert(
            0,
            Line::styled(
                format!(
                    "…{} lines dropped (the console keeps the last {LOG_CAPACITY})",
                    pane_state.dropped
                ),
                theme.muted,
            ),
        );
    }
    frame.render_widget(Paragraph::new(lines), body);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_time_keeps_odd_timestamps_whole() {
        assert_eq!(short_time("2025-03-04T10:28:41.123Z"), "10:28:41");
        assert_eq!(short_time("2025-03-04T10:28"), "2025-03-04T10:28");
        // Byte 8 after the `T` falls inside `é`: no panic, the text as it came.
        assert_eq!(short_time("xT1234567é"), "xT1234567é");
    }

    #[test]
    fn search_matches_ignore_case() {
        let hay: Vec<char> = "Drain failed; DRAIN again".chars().collect();
        let needle: Vec<char> = "drain".chars().collect();
        assert_eq!(matches(&hay, &needle), vec![(0, 5), (14, 19)]);
        assert!(matches(&hay, &[]).is_empty());
    }

    #[test]
    fn only_the_lines_that_fit_are_rendered() {
        let mut pane = LogPane::default();
        let lines: Vec<String> = (0..LOG_CAPACITY + 5)
            .map(|i| format!(r#"{{"level":"info","ts":"2025-03-04T10:00:00Z","msg":"line {i}"}}"#))
            .collect();
        pane.push("p", &lines);
        let theme = Theme::default_theme();
        let (shown, start) = window(&pane, 10, 80, &theme);
        assert_eq!(shown.len(), 10);
        assert!(!start);
        let last: String = shown[9].spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(last, format!("10:00:00 INFO  line {}", LOG_CAPACITY + 4));
        // Paused on an older line: the window ends there.
        pane.follow = false;
        pane.anchor = Some(100);
        let (shown, start) = window(&pane, 3, 80, &theme);
        assert!(!start, "line 5 (the oldest kept) is not on screen");
        let last: String = shown[2].spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(last.ends_with("line 100"), "{last}");
        pane.anchor = Some(6);
        let (_, start) = window(&pane, 3, 80, &theme);
        assert!(start);
    }
}
