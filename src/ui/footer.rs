//! The footer: the current notice (wrapped on two lines when long, cut
//! with `… H notices` beyond), or the keys of the current view (taken from
//! the active keymap, never hard-coded); and the notices overlay.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::app::cluster_picker::ClusterPicker;
use crate::app::modal::Modal;
use crate::app::model::Model;
use crate::app::notices::{Notice, NoticeLevel};
use crate::app::views::Hint;
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;
use crate::ui::format;

/// The hints of the view on screen: the view names them beside the keys
/// it handles ([`crate::app::views::hints`]); the key shown is the keymap's.
pub(crate) fn hints(model: &Model) -> Vec<Hint> {
    if let Some(Modal::ClusterPicker(_)) = model.modals.top() {
        return ClusterPicker::HINTS
            .into_iter()
            .map(|(action, label)| Hint::key(action, label))
            .collect();
    }
    if let Some(Modal::Servers(_)) = model.modals.top() {
        return crate::app::servers::hints();
    }
    let ctx = model.view_ctx();
    crate::app::views::hints(&model.views, &model.logs, &ctx)
}

/// The most lines a notice takes in the footer; a longer one ends with
/// `… H notices` (the key that opens the notices whole).
const NOTICE_LINES: usize = 2;

fn notice_style(level: NoticeLevel, theme: &Theme) -> (Style, &'static str) {
    match level {
        NoticeLevel::Info => (theme.notice_info, prefix(level)),
        NoticeLevel::Warning => (theme.notice_warn, prefix(level)),
        NoticeLevel::Error => (theme.notice_error, prefix(level)),
    }
}

fn prefix(level: NoticeLevel) -> &'static str {
    match level {
        NoticeLevel::Info => "",
        NoticeLevel::Warning => "warning: ",
        NoticeLevel::Error => "error: ",
    }
}

/// The current notice's lines at `width`: wrapped, at most
/// [`NOTICE_LINES`], the last one ending with `… <key> notices` when cut.
fn notice_lines(model: &Model, n: &Notice, width: u16) -> Vec<String> {
    let width = width as usize;
    let text = format!("{}{}", prefix(n.level), n.text);
    let mut lines = format::wrap_indented(&text, width, 1);
    if lines.len() > NOTICE_LINES {
        lines.truncate(NOTICE_LINES);
        let key = model.keymap.first_key(KeyAction::Notices).unwrap_or("?");
        let more = format!("… {key} notices");
        let last = &mut lines[NOTICE_LINES - 1];
        let keep = width.saturating_sub(more.chars().count());
        *last = last
            .chars()
            .take(keep)
            .collect::<String>()
            .trim_end()
            .to_string();
        last.push_str(&more);
    }
    lines
}

/// The footer's height at `width`: two lines while a long notice is shown.
pub(crate) fn height(model: &Model, width: u16) -> u16 {
    if model.modals.iter().any(|m| m.input().is_some()) {
        return 1;
    }
    match model.notices.current() {
        Some(n) => notice_lines(model, n, width).len().clamp(1, NOTICE_LINES) as u16,
        None => 1,
    }
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    if let Some(n) = model.notices.current() {
        let (style, _) = notice_style(n.level, theme);
        let lines: Vec<Line> = notice_lines(model, n, area.width)
            .into_iter()
            .map(|l| Line::styled(l, style))
            .collect();
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    let mut spans: Vec<Span> = vec![Span::raw(" ")];
    let mut used = 1usize;
    for Hint { action, label } in hints(model) {
        let Some(key) = model.keymap.first_key(action) else {
            continue;
        };
        let w = key.chars().count() + label.chars().count() + 3;
        if used + w > area.width as usize {
            break;
        }
        used += w;
        spans.push(Span::styled(key.to_string(), theme.key_hint));
        spans.push(Span::styled(format!(" {label}  "), theme.muted));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The notices overlay: the recent notices, newest first, each whole with
/// the time it was raised (on the cluster clock, like every time shown).
pub(crate) fn draw_notices(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    scroll: u16,
    theme: &Theme,
) {
    let rect = crate::ui::centred_column(area, 100);
    let width = rect.width;
    let inner_width = width.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    for n in model.notices.recent().rev() {
        let (style, prefix) = notice_style(n.level, theme);
        // `10:30:00 ` then the text, continuation lines under the text.
        let text = format!("{prefix}{}", n.text);
        let wrapped = format::wrap_indented(&text, inner_width.saturating_sub(9), 0);
        for (i, l) in wrapped.into_iter().enumerate() {
            let l = if i == 0 {
                format!("{} {l}", format::clock(n.at))
            } else {
                format!("         {l}")
            };
            lines.push(Line::styled(l, style));
        }
    }
    if lines.is_empty() {
        lines.push(Line::styled("no notices yet", theme.muted));
    }
    let inner_height = rect.height.saturating_sub(2) as usize;
    let max_scroll = lines.len().saturating_sub(inner_height);
    let scroll = (scroll as usize).min(max_scroll);
    let hint = crate::ui::scroll_hint(model);
    let block = crate::ui::pane(" Notices (newest first) ", true, theme)
        .title_bottom(Line::styled(hint, theme.muted).right_aligned());
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines)
            .style(theme.dialog)
            .block(block)
            .scroll((scroll as u16, 0)),
        rect,
    );
}
