//! The footer: the current notice, or the keys of the current view (taken
//! from the active keymap, never hard-coded).

use std::borrow::Cow;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::model::{Model, NoticeLevel, View};
use crate::config::keymap::{KeyAction, KeyGroup};
use crate::config::theme::Theme;
use crate::domain::action::ActionId;

/// The actions worth a hint in `view`, most useful first (the footer shows
/// as many as fit). An operator action's hint is its one label
/// ([`ActionId::hint`]); the key shown is the keymap's.
pub(crate) fn hint_actions(model: &Model) -> Vec<(KeyAction, Cow<'static, str>)> {
    use KeyAction::*;
    let act = |id: ActionId| (Act(id), Cow::Owned(id.hint()));
    let key = |a: KeyAction, label: &'static str| (a, Cow::Borrowed(label));
    let mut out = vec![key(Help, "help")];
    match model.view {
        View::Overview => {
            // The attention items name their own action and key
            // (`[a: acknowledge migration]`); only commence is offered here.
            // Only when there is an update plan with a step to commence.
            if crate::app::tables::update_plan::shown_plan(model)
                .and_then(crate::domain::plan::next_to_commence)
                .is_some()
            {
                out.push(act(ActionId::CommenceStep));
            }
            out.extend([
                key(ViewMachines, "machines"),
                key(ViewLogs, "logs"),
                key(Command, "view"),
            ])
        }
        View::Machines => {
            if model.detail_open {
                out.push(key(Back, "close details"));
            } else {
                out.push(key(Open, "details"));
            }
            out.extend([
                key(Filter, "filter"),
                key(ToggleSelect, "select"),
                act(ActionId::SetMigrationMode),
                act(ActionId::AcknowledgeMigration),
                key(LogsForMachine, "logs"),
                key(Sort, "sort"),
                key(Command, "view"),
            ])
        }
        View::Vrouter => out.extend([
            act(ActionId::RestartVrouter),
            act(ActionId::RestartAllVrouters),
            key(Filter, "filter"),
            key(Sort, "sort"),
            key(Command, "view"),
        ]),
        View::Logs => out.extend([
            key(LogFollow, "follow/pause"),
            key(LogSearch, "search"),
            key(LogNextMatch, "next"),
            key(LogLevel, "level"),
            key(LogWrap, "wrap"),
            key(Command, "view"),
        ]),
        View::UpdatePlan => out.extend([
            act(ActionId::CommenceStep),
            key(Down, "step"),
            key(ViewOverview, "overview"),
            key(Command, "view"),
        ]),
        View::States | View::Locks | View::Requests | View::Events | View::Audit => out.extend([
            key(Filter, "filter"),
            key(Sort, "sort"),
            key(ReverseSort, "reverse"),
            key(Command, "view"),
        ]),
    }
    out.push(key(Quit, "quit"));
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
