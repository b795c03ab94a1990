//! The Logs view: the lcm-controller log with follow/pause, wrap, minimum
//! level, subject filter and search highlighting. Only the lines that fit on
//! screen are looked at and turned into widgets: the buffer holds up to
//! 20,000 lines.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::logs::{
    FOLLOWING, LOG_CAPACITY, LogLevel, LogLine, LogPane, OVERVIEW_TAIL_EVERY, PAUSED, match_ranges,
};
use crate::app::model::Model;
use crate::config::keymap::{KeyAction, Keymap};
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

/// How far wrapped continuation lines are indented: under the message when
/// that leaves room, else two columns; never at column 0 when there is room.
fn hanging_indent(line: &LogLine, width: usize) -> usize {
    if line.msg_at > 0 && line.msg_at <= width / 2 {
        line.msg_at
    } else if width >= 8 {
        2
    } else {
        0
    }
}

/// One log line as screen lines: styled by level, search matches
/// highlighted (the current match apart from the others), cut to `width`
/// (or wrapped at `width` characters, continuation lines indented).
fn render_line(
    line: &LogLine,
    search: &[char],
    current: bool,
    width: usize,
    wrap: bool,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let text: Vec<char> = line.text().chars().collect();
    let base = level_style(theme, line.level);
    let hits = match_ranges(&text, search);
    let hit_style = if current {
        current_match_style(theme)
    } else {
        theme.search_match
    };
    let style_at = |i: usize| {
        if hits.iter().any(|&(a, b)| i >= a && i < b) {
            base.patch(hit_style)
        } else {
            base
        }
    };
    let width = width.max(1);
    // (start, end, indent) of each screen line.
    let mut chunks: Vec<(usize, usize, usize)> = vec![(0, text.len().min(width), 0)];
    if wrap {
        let indent = hanging_indent(line, width);
        let rest = width - indent;
        let mut a = chunks[0].1;
        while a < text.len() {
            let b = (a + rest).min(text.len());
            chunks.push((a, b, indent));
            a = b;
        }
    }
    chunks
        .into_iter()
        .map(|(a, b, indent)| {
            let mut spans: Vec<Span> = Vec::new();
            if indent > 0 {
                spans.push(Span::raw(" ".repeat(indent)));
            }
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

/// The current search match: the match colours, bold and underlined, so it
/// stands apart from the other matches in any theme.
pub(crate) fn current_match_style(theme: &Theme) -> Style {
    theme
        .search_match
        .add_modifier(Modifier::BOLD | Modifier::UNDERLINED | Modifier::REVERSED)
}

/// The screen lines to show, oldest first, ending at the anchor (or the
/// newest line when following); `true` when the oldest shown line is on
/// screen. Reads only the lines that fit, through the filtered indices.
fn window(
    pane: &LogPane,
    height: usize,
    width: usize,
    theme: &Theme,
) -> (Vec<Line<'static>>, bool) {
    let filtered = pane.filtered();
    let search: Vec<char> = pane.search.as_deref().unwrap_or("").chars().collect();
    let end = match (pane.follow, pane.anchor) {
        (false, Some(seq)) => filtered.shown_before(seq.saturating_add(1)),
        _ => filtered.shown.len(),
    };
    let mut out: Vec<Vec<Line<'static>>> = Vec::new();
    let mut rows = 0;
    let mut reached_start = true;
    for &seq in filtered.shown.range(..end).rev() {
        if rows >= height {
            reached_start = false;
            break;
        }
        let Some(line) = pane.line(seq) else { continue };
        let current = pane.current_match == Some(seq);
        let lines = render_line(line, &search, current, width, pane.wrap, theme);
        rows += lines.len();
        out.push(lines);
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
/// the Overview: up to the line the Logs view is paused on, else up to
/// where the tail last moved on.
pub(crate) fn tail(pane: &LogPane, n: usize, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let filtered = pane.filtered();
    let end = match (pane.paused(), pane.anchor, pane.overview_upto) {
        (true, Some(seq), _) | (false, _, Some(seq)) => {
            filtered.shown_before(seq.saturating_add(1))
        }
        _ => filtered.shown.len(),
    };
    let mut out: Vec<Line<'static>> = filtered
        .shown
        .range(..end)
        .rev()
        .take(n)
        .filter_map(|s| pane.line(*s))
        .flat_map(|l| render_line(l, &[], false, width, false, theme))
        .collect();
    out.reverse();
    out
}

/// The filters of the Logs view in effect, in the words of its header
/// (`level ≥ warn`, `about child-cl-compute-2 or kaas-node-…`).
fn filters(pane: &LogPane) -> Vec<String> {
    let mut out = Vec::new();
    if pane.min_level > LogLevel::Debug {
        out.push(format!("level ≥ {}", pane.min_level.as_str()));
    }
    if !pane.subject.is_empty() {
        out.push(format!("about {}", pane.subject.join(" or ")));
    }
    out
}

/// The Overview log pane's title. The tail shows the Logs view's lines (its
/// pause and its filters, which `f` and `L` change from every view), so the
/// title says when they are paused (and how many newer lines wait) or
/// filtered; the status bar's `log: PAUSED` alone left a pane of old lines
/// under a title that called it live.
pub(crate) fn overview_title(pane: &LogPane, keymap: &Keymap, theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::raw(" lcm-controller log")];
    if pane.paused() {
        spans.push(Span::raw(": "));
        spans.push(Span::styled(PAUSED, theme.warn));
        let newer = match pane.anchor {
            Some(seq) => {
                let f = pane.filtered();
                f.shown.len() - f.shown_before(seq.saturating_add(1))
            }
            None => 0,
        };
        let mut more = String::new();
        if newer > 0 {
            let s = if newer == 1 { "" } else { "s" };
            more.push_str(&format!(", {newer} newer line{s}"));
        }
        if let Some(k) = keymap.first_key(KeyAction::LogFollow) {
            more.push_str(&format!(" ({k}: follow)"));
        }
        spans.push(Span::raw(more));
    }
    for f in filters(pane) {
        spans.push(Span::raw(format!(" · {f}")));
    }
    if !pane.paused() {
        // The tail moves on every few seconds (kinder to a slow link); the
        // Logs view is live.
        let every = OVERVIEW_TAIL_EVERY.as_secs();
        spans.push(Span::raw(match keymap.first_key(KeyAction::ViewLogs) {
            Some(k) => format!(" (every {every}s; {k}: live)"),
            None => format!(" (every {every}s)"),
        }));
    }
    spans.push(Span::raw(" "));
    Line::from(spans)
}

/// What the Overview's log pane says when it has no line to show: none has
/// arrived, or none passes the Logs view's filters (not the same thing).
pub(crate) fn overview_empty(pane: &LogPane) -> String {
    let filters = filters(pane);
    if pane.lines.is_empty() || filters.is_empty() {
        format!("no log lines yet ({})", pane.status)
    } else {
        format!("no line passes the filters ({})", filters.join(", "))
    }
}

/// The follow state in its one word: [`PAUSED`] or [`FOLLOWING`].
fn follow_word(pane: &LogPane) -> &'static str {
    if pane.paused() { PAUSED } else { FOLLOWING }
}

/// The status bar's log item and its priority (higher is dropped first
/// when short of room): `log: PAUSED` while paused, kept to the last; the
/// stream's state otherwise (the Logs border shows both).
pub(crate) fn status_bar_item(pane: &LogPane) -> (String, u8) {
    if pane.paused() {
        (format!("log: {PAUSED}"), 0)
    } else {
        (format!("log: {}", pane.status), 3)
    }
}

/// The search part of the header: `search "drain" · match 3/17`.
fn search_text(pane: &LogPane, search: &str) -> String {
    match pane.match_position() {
        (_, 0) => format!("\"{search}\" · no match"),
        (Some(at), total) => format!("\"{search}\" · match {at}/{total}"),
        (None, total) => format!("\"{search}\" · {total} matches"),
    }
}

fn status_line<'a>(pane: &'a LogPane, theme: &Theme) -> Line<'a> {
    let mut spans = vec![if pane.paused() {
        Span::styled(follow_word(pane), theme.warn)
    } else {
        Span::styled(follow_word(pane), theme.ok)
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
        add("search ", search_text(pane, s), theme.search_match);
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
    .title_bottom(if pane_state.paused() {
        Line::from(vec![
            Span::raw(" "),
            Span::styled(PAUSED, theme.warn),
            Span::styled(format!(" · {} ", pane_state.status), theme.muted),
        ])
    } else {
        Line::styled(format!(" {} ", pane_state.status), theme.muted)
    });
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
