//! The progress of a running (or just finished) plan: one row per object,
//! the vRouter DaemonSets' UP-TO-DATE vs CURRENT, and how it ended.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{context_line, dry_run_line, frame_box, hints, title};
use crate::app::actions::plan::Change;
use crate::app::model::Model;
use crate::config::theme::Theme;
use crate::domain::action::run::{RunOutcome, StepStatus};
use crate::domain::vrouter;

pub(super) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let Some(run) = &model.actions.running else {
        return;
    };
    let plan = &run.plan;
    let mut body: Vec<Line> = vec![context_line(&plan.context, plan.cluster.label(), theme)];
    if plan.dry_run {
        body.push(dry_run_line(theme));
    }
    body.push(Line::from(format!(
        "{} of {} done",
        run.done_count(),
        plan.steps.len()
    )));
    let machines = vrouter::machines_by_node(&model.derived.rows);
    for (step, status) in plan.steps.iter().zip(&run.steps) {
        let mut line = vec![
            Span::styled(
                format!("{:<9}", status.label()),
                status_style(status, theme),
            ),
            Span::raw(step.target.display()),
        ];
        if let Change::RestartPod { node, .. } = &step.change
            && let Some(m) = machines.get(node.as_str())
        {
            // The machine, not `kaas-node-<uuid>` (the confirmation named both).
            line.push(Span::styled(format!(" ({m})"), theme.muted));
        }
        body.push(Line::from(line));
        let detail = status.detail();
        if !detail.is_empty() {
            body.push(Line::styled(format!("         {detail}"), theme.muted));
        }
    }
    if plan
        .steps
        .iter()
        .any(|s| matches!(s.change, Change::RestartPod { .. }))
    {
        for ds in vrouter::daemonsets(&model.snapshot) {
            body.push(Line::from(format!(
                "{}: UP-TO-DATE {} / CURRENT {}{}",
                ds.name,
                ds.updated,
                ds.current,
                if ds.up_to_date() {
                    " (all current)"
                } else {
                    ""
                }
            )));
        }
    }
    let (outcome, keys): (Line, Vec<(&str, &str)>) = match &run.outcome {
        Some(o) => (
            Line::styled(o.summary(), outcome_style(o, theme)),
            vec![("Enter/Esc", "close")],
        ),
        None if run.cancel_requested => (
            Line::styled(
                "cancelling: the current object finishes, the next ones are not sent",
                theme.warn,
            ),
            vec![],
        ),
        None => (
            Line::styled("running…", theme.muted),
            vec![("Esc/c", "cancel before the next object")],
        ),
    };
    body.push(outcome);
    let rows: u16 = body
        .iter()
        .map(|l| (l.width() as u16).div_ceil(76).max(1))
        .sum();
    let inner = frame_box(
        frame,
        area,
        78,
        rows + 3,
        title(plan.action.label(), plan.dry_run, theme),
        theme,
    );
    let [body_area, hints_area] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(inner);
    // Keep the end (the outcome) visible when the list is long.
    let scroll = rows.saturating_sub(body_area.height);
    frame.render_widget(
        Paragraph::new(body)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        body_area,
    );
    frame.render_widget(Paragraph::new(hints(&keys, theme)), hints_area);
}

fn status_style(s: &StepStatus, theme: &Theme) -> Style {
    match s {
        StepStatus::Done(_) => theme.ok,
        StepStatus::Failed(_) => theme.error,
        StepStatus::Sending | StepStatus::Waiting(_) => theme.warn,
        StepStatus::Pending | StepStatus::NotSent(_) => theme.muted,
    }
}

fn outcome_style(o: &RunOutcome, theme: &Theme) -> Style {
    match o {
        RunOutcome::Completed { .. } => theme.ok,
        RunOutcome::Cancelled { .. } => theme.warn,
        RunOutcome::Failed { .. } | RunOutcome::Refused { .. } => theme.error,
    }
}
