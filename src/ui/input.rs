//! The input lines drawn over the footer: `/` filter, `:` command, log search.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::app::line_input::LineInput;
use crate::app::model::View;
use crate::config::theme::Theme;

fn draw_line(
    frame: &mut Frame,
    area: Rect,
    prompt: &str,
    input: &LineInput,
    hint: Vec<Span>,
    theme: &Theme,
) {
    let text = input.text();
    frame.render_widget(Clear, area);
    let mut spans = vec![
        Span::styled(prompt.to_string(), theme.key_hint),
        Span::raw(text.to_string()),
        Span::raw("  "),
    ];
    spans.extend(hint);
    frame.render_widget(Paragraph::new(Line::from(spans)).style(theme.dialog), area);
    let x = area.x + (prompt.chars().count() + input.cursor()) as u16;
    if x < area.right() {
        frame.set_cursor_position(Position::new(x, area.y));
    }
}

pub(crate) fn draw_filter(frame: &mut Frame, area: Rect, input: &LineInput, theme: &Theme) {
    let hint = vec![Span::styled(
        "(words match any column and hidden text; enter keeps, esc clears)",
        theme.muted,
    )];
    draw_line(frame, area, "/", input, hint, theme);
}

pub(crate) fn draw_command(frame: &mut Frame, area: Rect, input: &LineInput, theme: &Theme) {
    let typed = input
        .text()
        .trim()
        .trim_start_matches(':')
        .to_ascii_lowercase();
    let target = View::from_command(&typed);
    let mut hint = vec![Span::styled("views: ", theme.muted)];
    for v in View::ALL {
        let name = v.command_name();
        let style = if Some(v) == target || (!typed.is_empty() && name.starts_with(&typed)) {
            theme.key_hint
        } else {
            theme.muted
        };
        hint.push(Span::styled(name, style));
        hint.push(Span::raw(" "));
    }
    hint.push(Span::styled("· report", theme.muted));
    draw_line(frame, area, ":", input, hint, theme);
}

pub(crate) fn draw_log_search(frame: &mut Frame, area: Rect, input: &LineInput, theme: &Theme) {
    let hint = vec![Span::styled(
        "(enter searches, esc cancels; next/previous match from the keymap)",
        theme.muted,
    )];
    draw_line(frame, area, "search log: ", input, hint, theme);
}
