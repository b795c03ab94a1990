//! The confirmation dialog (also the acknowledge dialog: it lists the
//! servers the OpenStack lock names). Cancel is focused by default.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::{context_line, dry_run_line, frame_box, hints, title};
use crate::app::actions::access::Availability;
use crate::app::actions::dialog::{ConfirmDialog, ConfirmFocus};
use crate::app::actions::{availability, registry::ActionId};
use crate::app::model::Model;
use crate::config::theme::Theme;

/// Draws the dialog; returns whether it was drawn in full (the whole body
/// from its first line, and the Confirm button).
pub(super) fn draw(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    c: &ConfirmDialog,
    theme: &Theme,
) -> bool {
    let plan = &c.plan;
    let mut body: Vec<Line> = vec![context_line(&plan.context, plan.cluster.label(), theme)];
    if plan.dry_run {
        body.push(dry_run_line(theme));
    }
    let n = plan.steps.len();
    body.push(Line::from(match plan.action {
        ActionId::RestartVrouter | ActionId::RestartAllVrouters if n > 1 => {
            format!("{n} pods, restarted one at a time in this order:")
        }
        _ if n == 1 => "1 object:".to_string(),
        _ => format!("{n} objects:"),
    }));
    for (i, step) in plan.steps.iter().enumerate() {
        body.push(Line::from(vec![
            Span::raw(format!("{:>2}. ", i + 1)),
            Span::styled(step.target.display(), theme.title),
        ]));
        body.push(Line::styled(
            format!("    uid {}", step.target.uid),
            theme.muted,
        ));
        body.push(Line::from(format!("    {}", step.change.describe())));
        body.extend(super::migration::acknowledge_lines(step, theme));
    }
    for w in &plan.warnings {
        body.push(Line::styled(format!("! {w}"), theme.warn));
    }
    for note in &plan.notes {
        body.push(Line::styled(format!("- left out: {note}"), theme.muted));
    }
    let access = availability(model, plan.action);
    body.push(match access.clone() {
        Availability::Available => Line::styled(
            format!("permission: allowed ({})", access_text(plan.action)),
            theme.ok,
        ),
        Availability::NotVerified(why) => Line::styled(
            format!("{} ({why})", crate::app::actions::access::NOT_VERIFIED),
            theme.warn,
        ),
        Availability::Checking => Line::styled(
            format!(
                "permission: asking the server ({})",
                access_text(plan.action)
            ),
            theme.muted,
        ),
        Availability::Unavailable(r) => Line::styled(format!("unavailable: {r}"), theme.error),
    });
    if let Some(e) = &c.error {
        body.push(Line::styled(e.clone(), theme.error));
    }

    let width = 78;
    let inner_w = width - 2;
    let rows: u16 = body
        .iter()
        .map(|l| (l.width() as u16).div_ceil(inner_w).max(1))
        .sum();
    let inner = frame_box(
        frame,
        area,
        width,
        rows + 4,
        title(plan.action.label(), plan.dry_run, theme),
        theme,
    );
    let [body_area, _, buttons_area, hints_area] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(if inner.height > rows + 2 { 1 } else { 0 }),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    let body_in_full = c.scroll == 0 && wrapped_height(&body, body_area.width) <= body_area.height;
    frame.render_widget(
        Paragraph::new(body)
            .wrap(Wrap { trim: false })
            .scroll((c.scroll, 0)),
        body_area,
    );
    let confirm_label = match access {
        Availability::Unavailable(_) => "unavailable",
        _ if plan.dry_run => "Send dry run",
        _ => "Confirm",
    };
    let button = |label: &str, focused: bool| {
        if focused {
            Span::styled(format!("[> {label} <]"), theme.row_selected)
        } else {
            Span::raw(format!("[  {label}  ]"))
        }
    };
    let buttons = Line::from(vec![
        button("Cancel", c.focus == ConfirmFocus::Cancel),
        Span::raw("    "),
        button(confirm_label, c.focus == ConfirmFocus::Confirm),
    ]);
    let buttons_in_full =
        buttons_area.height >= 1 && buttons.width() <= buttons_area.width as usize;
    frame.render_widget(
        Paragraph::new(buttons).alignment(Alignment::Center),
        buttons_area,
    );
    frame.render_widget(
        Paragraph::new(hints(
            &[
                ("y", "confirm"),
                ("n/Esc", "cancel"),
                ("Enter", "focused button"),
                ("Tab", "switch"),
                ("j/k", "scroll"),
            ],
            theme,
        )),
        hints_area,
    );
    body_in_full && buttons_in_full
}

/// How many rows `lines` take when wrapped to `width` (drawn off screen, so
/// the count is ratatui's own word wrapping).
fn wrapped_height(lines: &[Line], width: u16) -> u16 {
    if width == 0 {
        return u16::MAX;
    }
    let bound: usize = lines
        .iter()
        .map(|l| 2 * l.width().div_ceil(width as usize).max(1))
        .sum();
    let height = bound.clamp(1, 4000) as u16;
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    Paragraph::new(lines.to_vec())
        .wrap(Wrap { trim: false })
        .render(area, &mut buf);
    (0..height)
        .rev()
        .find(|&y| (0..width).any(|x| buf[(x, y)].symbol() != " "))
        .map_or(0, |y| y + 1)
}

fn access_text(action: ActionId) -> String {
    crate::app::actions::access::AccessKey::for_action(action).describe()
}
