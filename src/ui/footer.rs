//! The footer: the current notice, or the keys of the current view (taken
//! from the active keymap, never hard-coded).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::model::{Model, NoticeLevel, View};
use crate::config::keymap::{KeyAction, KeyGroup};
use crate::config::theme::Theme;

/// The actions worth a hint in `view`, most useful first (the footer shows
/// as many as fit).
pub(crate) fn hint_actions(model: &Model) -> Vec<(KeyAction, &'static str)> {
    use KeyAction::*;
    let mut out: Vec<(KeyAction, &'static str)> = vec![(Help, "help")];
    match model.view {
        View::Overview => {
            out.push((AcknowledgeMigration, "ack migration"));
            // Only when there is an update plan with a step to commence.
            if crate::app::tables::update_plan::shown_plan(model)
                .and_then(crate::domain::plan::next_to_commence)
                .is_some()
            {
                out.push((CommenceStep, "commence step"));
            }
            out.extend([
                (ViewMachines, "machines"),
                (ViewLogs, "logs"),
                (Command, "view"),
            ])
        }
        View::Machines => {
            if model.detail_open {
                out.push((Back, "close details"));
            } else {
                out.push((Open, "details"));
            }
            out.extend([
                (Filter, "filter"),
                (ToggleSelect, "select"),
                (SetMigrationMode, "migration mode"),
                (AcknowledgeMigration, "ack migration"),
                (LogsForMachine, "logs"),
                (Sort, "sort"),
                (Command, "view"),
            ])
        }
        View::Vrouter => out.extend([
            (RestartVrouter, "restart pod"),
            (RestartAllVrouters, "restart all"),
            (Filter, "filter"),
            (Sort, "sort"),
            (Command, "view"),
        ]),
        View::Logs => out.extend([
            (LogFollow, "follow/pause"),
            (LogSearch, "search"),
            (LogNextMatch, "next"),
            (LogLevel, "level"),
            (LogWrap, "wrap"),
            (Command, "view"),
        ]),
        View::UpdatePlan => out.extend([
            (CommenceStep, "commence next step"),
            (Down, "step"),
            (ViewOverview, "overview"),
            (Command, "view"),
        ]),
        View::States | View::Locks | View::Requests | View::Events | View::Audit => out.extend([
            (Filter, "filter"),
            (Sort, "sort"),
            (ReverseSort, "reverse"),
            (Command, "view"),
        ]),
    }
    out.push((Quit, "quit"));
    out.retain(|(a, _)| !(model.session.read_only && a.group() == KeyGroup::Actions));
    out
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    if let Some(n) = &model.notice {
        let (style, prefix) = match n.level {
            NoticeLevel::Info => (theme.notice_info, ""),
            NoticeLevel::Warning => (theme.notice_warn, "warning: "),
            NoticeLevel::Error => (theme.notice_error, "error: "),
        };
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(
                format!(" {prefix}{}", n.text),
                style,
            ))),
            area,
        );
        return;
    }
    let mut spans: Vec<Span> = vec![Span::raw(" ")];
    let mut used = 1usize;
    for (action, label) in hint_actions(model) {
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
