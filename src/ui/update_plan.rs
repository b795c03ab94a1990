//! The update plan view (`:plan`): the cluster's ClusterUpdatePlan, source
//! -> target and release notes, where the update stands, one row per step
//! (the running step marked `▶`, the step waiting for `commence` marked
//! `◇`), and the full detail of the selected step below the table (scrolled
//! with `J`/`K`, as the Machines view's details).

use crate::ui::Drawn;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::freshness::Pane;
use crate::app::model::{Model, View};
use crate::app::tables::plan_steps::{
    commence_text, estimate_text, plan_state, row_id, shown_plan, status_text,
};
use crate::app::tables::{self};
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;
use crate::domain::action::ActionId;
use crate::domain::objects::{PlanStep, UpdatePlan};
use crate::domain::update_plan::{self, PlanState};
use crate::ui::detail::details_pane;
use crate::ui::{format, fresh_pane, pane, table};

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme, drawn: &mut Drawn) {
    let table = tables::shown(model, View::UpdatePlan);
    let Some(p) = shown_plan(model) else {
        // Missing CRD, loading, or no plan: the table says which.
        table::draw_titled(
            frame,
            area,
            model,
            View::UpdatePlan,
            "Update plan",
            theme,
            drawn,
        );
        return;
    };
    let header = header_lines(model, p, theme);
    let header_height = header.len() as u16 + 2;
    let table_height = (table.map_or(0, |t| t.data.rows.len()) as u16 + 3)
        .min(area.height.saturating_sub(header_height) / 2)
        .max(4);
    let [top, mid, bottom] = Layout::vertical([
        Constraint::Length(header_height),
        Constraint::Length(table_height),
        Constraint::Fill(1),
    ])
    .areas(area);
    let block = fresh_pane(
        format!(" Update plan {} ", p.name),
        false,
        model,
        Pane::View(View::UpdatePlan),
        top,
        theme,
    );
    let inner = block.inner(top);
    frame.render_widget(block, top);
    frame.render_widget(Paragraph::new(header), inner);
    table::draw_titled(frame, mid, model, View::UpdatePlan, "Steps", theme, drawn);

    let cursor = model.cursor(View::UpdatePlan);
    let step = table
        .and_then(|t| t.selected(&cursor).and_then(|i| t.row(i)))
        .and_then(|r| p.steps.iter().find(|s| row_id(s.index) == r.id));
    let title = match step {
        Some(s) => format!(" Step {}: {} ", s.index + 1, s.label()),
        None => " Step ".to_string(),
    };
    let block = pane(title, false, theme);
    match step {
        Some(s) => {
            let id = row_id(s.index);
            let top = model.views.update_plan.step_scroll.top_for(Some(&id));
            let lines = step_lines(model, p, s, theme);
            details_pane(frame, bottom, block, lines, top, model, theme, drawn);
        }
        None => frame.render_widget(block, bottom),
    }
}

/// Source -> target, release notes, where the update stands (and the commence key).
fn header_lines<'a>(model: &Model, p: &'a UpdatePlan, theme: &Theme) -> Vec<Line<'a>> {
    let state = plan_state(model);
    let mut lines = vec![Line::from(vec![
        Span::styled("release ", theme.muted),
        Span::raw(p.source.clone().unwrap_or_else(|| "?".into())),
        Span::raw(" -> "),
        Span::styled(p.target.clone().unwrap_or_else(|| "?".into()), theme.phase),
        Span::styled(
            format!("  cluster {} in {}", p.cluster, p.namespace),
            theme.muted,
        ),
    ])];
    lines.push(match &p.release_notes {
        Some(url) => Line::from(vec![
            Span::styled("release notes ", theme.muted),
            Span::raw(url.as_str()),
        ]),
        None => Line::styled(
            "release notes: not given by the plan (before MCC 2.29)",
            theme.muted,
        ),
    });
    let style = match &state {
        PlanState::AutoPaused { .. } | PlanState::Failed { .. } => theme.error,
        PlanState::NotStarted | PlanState::PausedBefore { .. } => theme.attention,
        PlanState::Done => theme.ok,
        PlanState::Running { .. } => theme.base,
    };
    let mut spans = vec![Span::styled(update_plan::summary(p, &state), style)];
    if let Some(next) = update_plan::next_to_commence(p)
        && state != PlanState::Done
    {
        let key = model
            .keymap
            .first_key(KeyAction::Act(ActionId::CommenceStep))
            .unwrap_or("");
        // Paused: the summary names the step. Running: say which step
        // commencing now lets run without a pause.
        let what = match state {
            PlanState::NotStarted | PlanState::PausedBefore { .. } => "commence".to_string(),
            _ => format!("commence step {} ahead", next.index + 1),
        };
        let hint = if model.session.read_only {
            format!("  ({what}: read-only)")
        } else if key.is_empty() {
            format!("  ({what})")
        } else {
            format!("  {key}: {what}")
        };
        spans.push(Span::styled(hint, theme.key_hint));
    }
    lines.push(Line::from(spans));
    lines
}

/// Every field of the step, labelled.
fn step_lines<'a>(model: &Model, p: &UpdatePlan, s: &'a PlanStep, theme: &Theme) -> Vec<Line<'a>> {
    let label = |l: &str| Span::styled(format!("{l:<12}"), theme.muted);
    let list = |items: &[String]| {
        if items.is_empty() {
            "-".to_string()
        } else {
            items.join(" ")
        }
    };
    let mut lines = vec![
        Line::from(vec![
            label("name"),
            Span::styled(s.name.as_str(), theme.title),
        ]),
        Line::from(vec![
            label("status"),
            Span::raw(status_text(p, s, model.now)),
        ]),
        Line::from(vec![
            label("impact"),
            Span::raw(format!(
                "users {}, workloads {}",
                s.impact_users.as_ref().map_or("not given", |i| i.as_str()),
                s.impact_workloads
                    .as_ref()
                    .map_or("not given", |i| i.as_str()),
            )),
        ]),
        Line::from(vec![label("commence"), Span::raw(commence_text(s))]),
        Line::from(vec![
            label("estimate"),
            Span::raw(estimate_text(s)),
            Span::styled(
                format!("  granularity {}", s.granularity.as_deref().unwrap_or("-")),
                theme.muted,
            ),
        ]),
    ];
    let times = [("started", s.started_at), ("finished", s.completed_at)];
    let when: Vec<String> = times
        .iter()
        .filter_map(|(l, t)| {
            t.map(|t| {
                format!(
                    "{l} {} ({} ago)",
                    format::clock(t),
                    format::age(model.now, t)
                )
            })
        })
        .collect();
    if !when.is_empty() {
        lines.push(Line::from(vec![label("times"), Span::raw(when.join(", "))]));
    }
    if let Some(m) = s.message.as_deref().filter(|m| !m.is_empty()) {
        lines.push(Line::from(vec![
            label("message"),
            Span::styled(m, theme.warn),
        ]));
    }
    lines.push(Line::from(vec![
        label("description"),
        Span::raw(list(&s.description)),
    ]));
    lines.push(Line::from(vec![
        label("constraints"),
        Span::raw(list(&s.constraints)),
    ]));
    if !s.impact_info.is_empty() {
        lines.push(Line::from(vec![
            label("impact info"),
            Span::raw(list(&s.impact_info)),
        ]));
    }
    if !s.duration_info.is_empty() {
        lines.push(Line::from(vec![
            label("duration"),
            Span::raw(list(&s.duration_info)),
        ]));
    }
    lines
}
