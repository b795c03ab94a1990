//! The help overlay (`?`): every key of the active keymap, grouped, with
//! what it does. Scrollable; fits 80x24.

use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState};

use crate::app::model::Model;
use crate::config::keymap::{KeyAction, KeyGroup};
use crate::config::theme::Theme;
use crate::ui::pane;

const KEY_COLUMN: usize = 18;

/// The help text: a heading per group, then `keys  description` lines.
pub(crate) fn help_lines(model: &Model, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let mut group: Option<KeyGroup> = None;
    for action in KeyAction::ALL {
        if group != Some(action.group()) {
            if group.is_some() {
                out.push(Line::raw(""));
            }
            group = Some(action.group());
            let mut title = action.group().title().to_string();
            if action.group() == KeyGroup::Actions && model.session.read_only {
                title.push_str(": unavailable, read-only session");
            } else if action.group() == KeyGroup::Actions && model.session.dry_run {
                title.push_str(": dry-run, nothing is changed");
            }
            out.push(Line::styled(title, theme.header));
        }
        let keys = model.keymap.keys_of(action);
        let keys = if keys.is_empty() {
            "(no key)".to_string()
        } else {
            keys
        };
        let pad = KEY_COLUMN.saturating_sub(keys.chars().count()).max(1);
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(keys, theme.key_hint),
            Span::raw(" ".repeat(pad)),
            Span::raw(action.description()),
        ]));
    }
    out
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, scroll: u16, theme: &Theme) {
    let rect = crate::ui::centred_column(area, 84);
    let lines = help_lines(model, theme);
    let inner_height = rect.height.saturating_sub(2) as usize;
    let max_scroll = lines.len().saturating_sub(inner_height);
    let scroll = (scroll as usize).min(max_scroll);
    let more = if scroll < max_scroll {
        format!(" {} more below ", max_scroll - scroll)
    } else {
        String::new()
    };
    let hint = crate::ui::scroll_hint(model);
    let block = pane(" Keys ", true, theme)
        .title_bottom(Line::styled(more, theme.muted))
        .title_bottom(Line::styled(hint, theme.muted).right_aligned());
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines.clone())
            .style(theme.dialog)
            .block(block)
            .scroll((scroll as u16, 0)),
        rect,
    );
    if max_scroll > 0 {
        let mut sb = ScrollbarState::new(max_scroll)
            .position(scroll)
            .viewport_content_length(inner_height);
        frame.render_stateful_widget(
            Scrollbar::new(ScrollbarOrientation::VerticalRight)
                .begin_symbol(None)
                .end_symbol(None),
            rect.inner(Margin {
                horizontal: 0,
                vertical: 1,
            }),
            &mut sb,
        );
    }
}
