//! `q` while a write is in flight: a small "quit anyway? y/n" that names
//! the object in flight and what quitting does to it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::{hints, question};
use crate::app::actions::EXIT_WAIT;
use crate::app::model::Model;
use crate::config::theme::Theme;
use crate::domain::action::run::StepStatus;

pub(super) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let mut body: Vec<Line> = vec![Line::styled(
        "a write is in flight: quit anyway? y/n",
        theme.warn,
    )];
    if let Some(run) = &model.actions.running {
        for (step, status) in run.plan.steps.iter().zip(&run.steps) {
            if matches!(status, StepStatus::Sending | StepStatus::Waiting(_)) {
                body.push(Line::from(format!(
                    "  {} ({})",
                    step.target.display(),
                    status.label()
                )));
            }
        }
    }
    body.push(Line::from(format!(
        "Quitting stops before the next object and waits up to {} s for this answer;",
        EXIT_WAIT.as_secs()
    )));
    body.push(Line::from(
        "without it the audit log records the outcome as unknown.",
    ));
    question(
        frame,
        area,
        78,
        Line::styled(" Quit ", theme.title),
        body,
        hints(&[("y", "quit"), ("n/Esc", "stay")], theme),
        theme,
    );
}
