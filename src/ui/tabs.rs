//! The tab bar: a digit and a name per view, and the session's badges.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::model::{Model, View};
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;

/// The key action that switches to `view`; `None` for a view reached by
/// `:` only (the wrap-up).
pub(crate) fn view_action(view: View) -> Option<KeyAction> {
    Some(match view {
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
        View::Wrapup => return None,
    })
}

/// The views in the tab bar: those with a key, and the view on screen.
fn tabbed(model: &Model) -> impl Iterator<Item = View> + '_ {
    View::ALL
        .into_iter()
        .filter(|v| view_action(*v).is_some() || *v == model.view)
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

/// One tab: ` 2 Machines `, ` 3 states `, ` 4 ` (no name).
fn label(model: &Model, v: View, name: &str) -> String {
    let key = view_action(v)
        .and_then(|a| model.keymap.first_key(a))
        .unwrap_or("");
    match (key.is_empty(), name.is_empty()) {
        (true, _) => format!(" {name} "),
        (false, true) => format!(" {key} "),
        (false, false) => format!(" {key} {name} "),
    }
}

/// The tab labels in `room` cells: every view by its title; else by its
/// command name (what `:` takes), the current view by its title; and while
/// that does not fit, the views farthest from the current one lose their
/// name first (their key stays), so the views named are those around it.
fn labels(model: &Model, room: usize) -> Vec<String> {
    let fits = |l: &[String]| l.iter().map(|s| s.chars().count()).sum::<usize>() <= room;
    let views: Vec<View> = tabbed(model).collect();
    let titles: Vec<String> = views.iter().map(|v| label(model, *v, v.title())).collect();
    if fits(&titles) {
        return titles;
    }
    let current = views.iter().position(|v| *v == model.view).unwrap_or(0);
    let named_labels = |named: &[bool]| -> Vec<String> {
        views
            .iter()
            .copied()
            .enumerate()
            .map(|(i, v)| match (i == current, named[i]) {
                (true, _) => label(model, v, v.title()),
                (false, true) => label(model, v, v.command_name()),
                (false, false) => label(model, v, ""),
            })
            .collect()
    };
    let mut named = vec![true; views.len()];
    // Farthest from the current view first; of two as far, the later.
    let mut drop: Vec<usize> = (0..named.len()).filter(|&i| i != current).collect();
    drop.sort_by_key(|&i| std::cmp::Reverse((i.abs_diff(current), i)));
    let mut labels = named_labels(&named);
    for i in drop {
        if fits(&labels) {
            break;
        }
        named[i] = false;
        labels = named_labels(&named);
    }
    labels
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let badges = badges(model, theme);
    let badge_width: usize = badges.iter().map(|s| s.width()).sum();
    let room = (area.width as usize).saturating_sub(badge_width + 1);
    let chosen = labels(model, room);
    let mut spans: Vec<Span> = Vec::new();
    for (v, label) in tabbed(model).zip(chosen) {
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
