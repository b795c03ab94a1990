//! The confirmation dialog (also the acknowledge dialog: it lists the
//! servers the OpenStack lock names). Cancel is focused by default.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::{connection_line, context_line, dry_run_line, frame_box, hints, title};
use crate::app::actions::access::Availability;
use crate::app::actions::availability;
use crate::app::actions::commence::CommenceStep;
use crate::app::actions::dialog::{ConfirmDialog, ConfirmFocus};
use crate::app::actions::plan::commence_step;
use crate::app::actions::plan::{ActionPlan, Change};
use crate::app::frame::ConfirmView;
use crate::app::model::Model;
use crate::config::theme::Theme;
use crate::domain::action::ActionId;
use crate::domain::vrouter;

/// Draws the dialog; returns what of its body it showed and whether the
/// Confirm button was drawn whole.
pub(super) fn draw(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    c: &ConfirmDialog,
    theme: &Theme,
) -> ConfirmView {
    let plan = &c.plan;
    let mut body: Vec<Line> = vec![context_line(&plan.context, plan.cluster.label(), theme)];
    if plan.dry_run {
        body.push(dry_run_line(theme));
    }
    if let Some(line) = connection_line(model.session.transport(plan.cluster), theme) {
        body.push(line);
    }
    let n = plan.steps.len();
    let commence = commence_step(plan);
    if let Some(step) = commence {
        body.extend(commence_lines(plan, step, theme));
    } else {
        body.push(Line::from(match plan.action {
            ActionId::RestartVrouter | ActionId::RestartAllVrouters if n > 1 => {
                format!("{n} pods, restarted one at a time in this order:")
            }
            _ if n == 1 => "1 object:".to_string(),
            _ => format!("{n} objects:"),
        }));
    }
    let machines = vrouter::machines_by_node(&model.derived.rows);
    for (i, step) in plan.steps.iter().enumerate().filter(|_| commence.is_none()) {
        body.push(Line::from(vec![
            Span::raw(format!("{:>2}. ", i + 1)),
            Span::styled(step.target.display(), theme.title),
        ]));
        if let Change::RestartPod { node, .. } = &step.change {
            // The node's name alone (`kaas-node-<uuid>`) means nothing to
            // an operator: the machine's name beside it.
            body.push(Line::from(format!("    node {node}")));
            if let Some(m) = machines.get(node.as_str()) {
                body.push(Line::from(format!("    machine {m}")));
            }
        }
        body.push(Line::styled(
            format!("    uid {}", step.target.uid),
            theme.muted,
        ));
        body.push(Line::from(format!("    {}", step.change.describe())));
        body.extend(super::migration::acknowledge_lines(step, theme));
        if plan.action == ActionId::AcknowledgeMigration {
            let (lines, active) = crate::app::servers::acknowledge_lines(model, &step.node);
            body.extend(lines.into_iter().map(|l| Line::styled(l, theme.muted)));
            if active {
                body.push(Line::styled(
                    format!(
                        "! a server is still ACTIVE on {}: skip lets the node reboot under it",
                        step.node
                    ),
                    theme.warn,
                ));
            }
            let key = model
                .keymap
                .first_key(crate::config::keymap::KeyAction::Servers)
                .unwrap_or("o");
            body.push(Line::styled(
                format!("    {key}: read the servers on {}", step.node),
                theme.muted,
            ));
        }
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
            format!("permission: allowed ({})", access_text(model, plan.action)),
            theme.ok,
        ),
        Availability::NotVerified(why) => Line::styled(
            format!("{} ({why})", crate::app::actions::access::NOT_VERIFIED),
            theme.warn,
        ),
        Availability::Checking => Line::styled(
            format!(
                "permission: asking the server ({})",
                access_text(model, plan.action)
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
    let field_rows = if c.typed_name.is_some() { 1 } else { 0 };
    let inner = frame_box(
        frame,
        area,
        width,
        rows + 4 + field_rows,
        title(plan.action.label(), plan.dry_run, theme),
        theme,
    );
    let [body_area, _, field_area, buttons_area, hints_area] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(if inner.height > rows + 2 + field_rows {
            1
        } else {
            0
        }),
        Constraint::Length(field_rows),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    if let Some(t) = &c.typed_name {
        let label = "Type the step's name to confirm: ";
        let [label_area, input_area] =
            Layout::horizontal([Constraint::Length(label.len() as u16), Constraint::Fill(1)])
                .areas(field_area);
        frame.render_widget(
            Paragraph::new(Span::styled(label, theme.key_hint)),
            label_area,
        );
        let mut field = t.field.textarea().clone();
        field.set_style(theme.row_selected);
        field.set_cursor_line_style(theme.row_selected);
        field.set_placeholder_style(theme.muted);
        frame.render_widget(&field, input_area);
    }
    let total = wrapped_height(&body, body_area.width);
    frame.render_widget(
        Paragraph::new(body)
            .wrap(Wrap { trim: false })
            .scroll((c.scroll, 0)),
        body_area,
    );
    let confirm_label = match access {
        Availability::Unavailable(_) => "unavailable",
        _ if !c.name_typed() => "type the name first",
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
    // With a name to type, Enter confirms once it is typed: the Confirm
    // button lights up then (there is no focus to move).
    let (cancel_on, confirm_on) = match &c.typed_name {
        Some(_) => (false, c.name_typed()),
        None => (
            c.focus == ConfirmFocus::Cancel,
            c.focus == ConfirmFocus::Confirm,
        ),
    };
    let buttons = Line::from(vec![
        button("Cancel", cancel_on),
        Span::raw("    "),
        button(confirm_label, confirm_on),
    ]);
    let buttons_in_full =
        buttons_area.height >= 1 && buttons.width() <= buttons_area.width as usize;
    frame.render_widget(
        Paragraph::new(buttons).alignment(Alignment::Center),
        buttons_area,
    );
    let hint_pairs: &[(&str, &str)] = if c.typed_name.is_some() {
        &[
            ("Enter", "confirm (once the name is typed)"),
            ("Esc", "cancel"),
            ("Up/Down", "scroll"),
        ]
    } else {
        &[
            ("y", "confirm"),
            ("n/Esc", "cancel"),
            ("Enter", "focused button"),
            ("Tab", "switch"),
            ("j/k", "scroll"),
        ]
    };
    frame.render_widget(Paragraph::new(hints(hint_pairs, theme)), hints_area);
    ConfirmView {
        plan: plan.id,
        scroll: c.scroll,
        shown: body_area.height.min(total.saturating_sub(c.scroll)),
        total,
        buttons: buttons_in_full,
    }
}

/// What commencing the step means: the plan, the step (index, id, name),
/// its impact on users and workloads, its estimated duration, the change.
fn commence_lines<'a>(plan: &'a ActionPlan, s: &'a CommenceStep, theme: &Theme) -> Vec<Line<'a>> {
    let target = plan.steps.first().map(|p| &p.target);
    let impact_style = |i: &str| match i {
        "major" => theme.error,
        "minor" => theme.warn,
        _ => theme.base,
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled("update plan ", theme.muted),
            Span::styled(target.map(|t| t.display()).unwrap_or_default(), theme.title),
        ]),
        Line::from(vec![
            Span::styled("release ", theme.muted),
            Span::raw(s.releases.as_str()),
        ]),
        Line::from(vec![
            Span::styled("commence ", theme.muted),
            Span::styled(
                format!(
                    "step {} (id {}): {}",
                    s.index + 1,
                    s.id.as_deref().unwrap_or("none"),
                    s.name
                ),
                theme.title,
            ),
        ]),
        Line::from(vec![
            Span::styled("impact   ", theme.muted),
            Span::raw("users "),
            Span::styled(s.impact_users.as_str(), impact_style(&s.impact_users)),
            Span::raw(", workloads "),
            Span::styled(
                s.impact_workloads.as_str(),
                impact_style(&s.impact_workloads),
            ),
        ]),
    ];
    for info in &s.impact_info {
        lines.push(Line::styled(format!("         {info}"), theme.muted));
    }
    lines.push(Line::from(vec![
        Span::styled("estimate ", theme.muted),
        Span::raw(s.estimate.as_str()),
        Span::styled(
            format!(
                "  granularity {}",
                s.granularity.as_deref().unwrap_or("not given")
            ),
            theme.muted,
        ),
    ]));
    lines.push(Line::from(vec![
        Span::styled("change   ", theme.muted),
        Span::raw(s.describe()),
    ]));
    lines.push(Line::styled(
        "the patch tests the step's id and commence first: if the plan changed, nothing changes",
        theme.muted,
    ));
    lines
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

fn access_text(model: &Model, action: ActionId) -> String {
    crate::domain::action::access::AccessKey::all_for_action(action, &model.session.namespace)
        .iter()
        .map(|k| k.describe())
        .collect::<Vec<_>>()
        .join(", ")
}
