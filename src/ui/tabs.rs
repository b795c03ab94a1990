//! The tab bar: a digit and a name per view, and the session's badges.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::model::{Model, View};
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;

/// The key action that switches to `view`.
pub(crate) fn view_action(view: View) -> KeyAction {
    match view {
        View::Overview => KeyAction::ViewOverview,
        View::Machines => KeyAction::ViewMachines,
        View::States => KeyAction::ViewStates,
        View::Locks => KeyAction::ViewLocks,
        View::Requests => KeyAction::ViewRequests,
        View::Vrouter => KeyAction::ViewVrouter,
        View::Logs => KeyAction::ViewLogs,
        View::Events => KeyAction::ViewEvents,
        View::Audit => KeyAction::ViewAudit,
        View::UpdatePlan => KeyAction::ViewUpdatePlan,
        View::Ready => KeyAction::ViewReady,
    }
}

fn badges<'a>(model: &'a Model, theme: &Theme) -> Vec<Span<'a>> {
    let mut out = Vec::new();
    if model.session.read_only {
        out.push(Span::styled(" READ-ONLY ", theme.read_only_badge));
        out.push(Span::raw(" "));
    }
    if model.actions.off.is_some() && !model.session.read_only {
        out.push(Span::styled(" ACTIONS OFF ", theme.read_only_badge));
        out.push(Span::raw(" "));
    }
    if model.session.dry_run {
        out.push(Span::styled(" DRY-RUN ", theme.dry_run_badge));
        out.push(Span::raw(" "));
    }
    if let Some(scenario) = &model.session.demo {
        out.push(Span::styled(
            format!(" DEMO: {scenario} "),
            theme.demo_badge,
        ));
    }
    out
}

/// Tab labels in three lengths: full titles, command names, digits only;
/// the current view always shows its title.
fn labels(model: &Model, style: usize) -> Vec<String> {
    View::ALL
        .into_iter()
        .map(|v| {
            let key = model.keymap.first_key(view_action(v)).unwrap_or("");
            let name = match (style, v == model.view) {
                (0, _) | (_, true) => v.title(),
                (1, _) => v.command_name(),
                _ => "",
            };
            match (key.is_empty(), name.is_empty()) {
                (true, _) => format!(" {name} "),
                (false, true) => format!(" {key} "),
                (false, false) => format!(" {key} {name} "),
            }
        })
        .collect()
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let badges = badges(model, theme);
    let badge_width: usize = badges.iter().map(|s| s.width()).sum();
    let room = (area.width as usize).saturating_sub(badge_width + 1);
    let chosen = (0..3)
        .map(|style| labels(model, style))
        .find(|l| l.iter().map(|s| s.chars().count()).sum::<usize>() <= room)
        .unwrap_or_else(|| labels(model, 2));
    let mut spans: Vec<Span> = Vec::new();
    for (v, label) in View::ALL.into_iter().zip(chosen) {
        let style = if v == model.view {
            theme.tab_active
        } else {
            theme.tab
        };
        spans.push(Span::styled(label, style));
    }
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let pad = (area.width as usize).saturating_sub(used + badge_width);
    spans.push(Span::raw(" ".repeat(pad)));
    spans.extend(badges);
    frame.render_widget(Paragraph::new(Line::from(spans)).style(theme.base), area);
}
