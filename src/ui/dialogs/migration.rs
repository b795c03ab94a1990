//! The migration-mode picker: live | manual | skip with the current value
//! of each node, and the optional attempts field; and the acknowledge
//! dialog's lists of servers, each under its own heading with its warning.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{context_line, dry_run_line, frame_box, hints, title};
use crate::app::actions::dialog::{MODES, MigrationPicker, PickerFocus};
use crate::app::actions::plan::PlannedStep;
use crate::app::model::Model;
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;
use crate::domain::action::ActionId;
use crate::domain::objects::MigrationMode;
use crate::domain::reminders::{self, Reminder};
use crate::ui::format::wrap_indented;

/// What each mode means (the update procedure, Step 2).
fn meaning(mode: &MigrationMode) -> &'static str {
    match mode {
        MigrationMode::Live => "live-migrate every instance (the default; 3 attempts each)",
        MigrationMode::Manual => "wait for the operator to migrate the instances",
        MigrationMode::Skip => "skip the instance check: instances left go down with the reboot",
        MigrationMode::Other(_) => "",
    }
}

/// The inner width of the confirmation dialog (`confirm.rs`: 78 wide).
const ACK_INNER_WIDTH: usize = 76;

/// The acknowledge dialog's lines for one node: each list of servers the
/// OpenStack lock names, under its heading, with what `skip` does to it.
pub(super) fn acknowledge_lines(step: &PlannedStep, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if step.acknowledge.is_empty() && !step.servers.is_empty() {
        out.push(Line::styled(
            format!(
                "    servers still on the node ({}), per its OpenStack lock:",
                step.servers.len()
            ),
            theme.warn,
        ));
        for s in &step.servers {
            out.push(Line::from(format!("      - {s}")));
        }
        return out;
    }
    for g in &step.acknowledge {
        out.push(Line::styled(
            format!(
                "    {} ({}), per its OpenStack lock:",
                g.group.kind.heading(),
                g.group.servers.len()
            ),
            theme.header,
        ));
        for s in &g.group.servers {
            out.push(Line::from(format!("      - {s}")));
        }
        // Wrapped here to keep the indent under the list.
        for l in wrap_indented(&format!("! {}", g.warning), ACK_INNER_WIDTH, 6) {
            out.push(Line::styled(l, theme.warn));
        }
    }
    out
}

/// How many node rows the dialog lists before "and N more".
const MAX_NODE_ROWS: usize = 6;

pub(super) fn draw(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    p: &MigrationPicker,
    theme: &Theme,
) {
    let dry_run = model.session.dry_run;
    let mut top: Vec<Line> = vec![context_line(&model.session.mosk_context, "mosk", theme)];
    if dry_run {
        top.push(dry_run_line(theme));
    }
    top.push(Line::styled(
        format!("{:<52} {:<8} {}", "NODE", "MODE", "ATTEMPTS"),
        theme.header,
    ));
    for n in p.nodes.iter().take(MAX_NODE_ROWS) {
        top.push(Line::from(format!(
            "{:<52} {:<8} {}",
            n.node,
            n.mode.as_deref().unwrap_or("(live)"),
            n.attempts.as_deref().unwrap_or("(3)")
        )));
    }
    if p.nodes.len() > MAX_NODE_ROWS {
        top.push(Line::styled(
            format!("and {} more", p.nodes.len() - MAX_NODE_ROWS),
            theme.muted,
        ));
    }
    let shown = reminder_lines(model, p, theme);
    let reminded = !shown.is_empty();
    top.extend(shown);
    let mut choice = vec![Span::styled(
        "New mode: ",
        if p.focus == PickerFocus::Mode {
            theme.key_hint
        } else {
            theme.muted
        },
    )];
    for (i, m) in MODES.iter().enumerate() {
        let label = if i == p.choice {
            format!("(*) {}", m.as_str())
        } else {
            format!("( ) {}", m.as_str())
        };
        let style = if i == p.choice && p.focus == PickerFocus::Mode {
            theme.row_selected
        } else if i == p.choice {
            theme.title
        } else {
            theme.dialog
        };
        choice.push(Span::styled(label, style));
        choice.push(Span::raw("   "));
    }
    let meaning_line = Line::styled(format!("  {}", meaning(p.mode())), theme.muted);
    let error = p
        .error
        .as_ref()
        .map(|e| Line::styled(e.clone(), theme.error))
        .unwrap_or_default();

    let height = top.len() as u16 + 9;
    let inner = frame_box(
        frame,
        area,
        78,
        height,
        title(ActionId::SetMigrationMode.label(), dry_run, theme),
        theme,
    );
    let [
        top_area,
        _,
        choice_area,
        meaning_area,
        attempts_area,
        error_area,
        _,
        hints_area,
    ] = Layout::vertical([
        Constraint::Length(top.len() as u16),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(2),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(top), top_area);
    frame.render_widget(Paragraph::new(Line::from(choice)), choice_area);
    frame.render_widget(Paragraph::new(meaning_line), meaning_area);
    let label = "Attempts (1-100, empty keeps): ";
    let [label_area, field_area] = Layout::horizontal([
        Constraint::Length(label.len() as u16),
        Constraint::Length(12),
    ])
    .areas(attempts_area);
    let label_style = if p.focus == PickerFocus::Attempts {
        theme.key_hint
    } else {
        theme.muted
    };
    frame.render_widget(Paragraph::new(Span::styled(label, label_style)), label_area);
    let mut field = p.attempts.textarea().clone();
    let field_style = if p.focus == PickerFocus::Attempts {
        theme.row_selected
    } else {
        theme.dialog
    };
    field.set_style(field_style);
    field.set_cursor_line_style(field_style);
    field.set_placeholder_style(theme.muted);
    if p.focus != PickerFocus::Attempts {
        field.set_cursor_style(field_style);
    }
    frame.render_widget(&field, field_area);
    frame.render_widget(
        Paragraph::new(error).wrap(ratatui::widgets::Wrap { trim: false }),
        error_area,
    );
    let dismiss = model
        .keymap
        .first_key(KeyAction::DismissReminder)
        .filter(|_| reminded && p.focus == PickerFocus::Mode);
    let mut pairs = vec![
        ("j/k", "choose"),
        ("Tab", "attempts"),
        ("Enter", "review the change"),
        ("Esc", "cancel"),
    ];
    if let Some(k) = dismiss {
        pairs.push((k, "dismiss"));
    }
    frame.render_widget(Paragraph::new(hints(&pairs, theme)), hints_area);
}

/// The update guide's reminders for these nodes that were not dismissed
/// (`domain::reminders`), each wrapped under a `!`.
fn reminder_lines(model: &Model, p: &MigrationPicker, theme: &Theme) -> Vec<Line<'static>> {
    let nodes: Vec<String> = p.nodes.iter().map(|n| n.node.clone()).collect();
    let mut out = Vec::new();
    for r in reminders::for_migration_dialog(&model.snapshot, &nodes, p.mode()) {
        if model.dismissed_reminders.contains(&r) {
            continue;
        }
        let text = match r {
            Reminder::ManualWithoutCompute => {
                let without: Vec<&str> = nodes
                    .iter()
                    .filter(|n| {
                        model
                            .snapshot
                            .nodes()
                            .any(|x| &x.name == *n && !reminders::is_compute(x))
                    })
                    .map(String::as_str)
                    .collect();
                let who = match without.as_slice() {
                    [one] => one.to_string(),
                    many => format!("{} nodes", many.len()),
                };
                format!("! {who}: no compute role; {}", r.text())
            }
            _ => format!("! {}", r.text()),
        };
        for l in wrap_indented(&text, ACK_INNER_WIDTH, 2) {
            out.push(Line::styled(l, theme.warn));
        }
    }
    out
}

#[cfg(test)]
#[path = "migration_tests.rs"]
mod tests;
