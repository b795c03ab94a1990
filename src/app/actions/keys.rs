//! Keys while a dialog is open. They are read before the keymap, so a
//! dialog's keys (y, n, Enter, Esc, digits) never trigger a view action.

use crossterm::event::{KeyCode, KeyEvent};

use crate::app::actions::access::Availability;
use crate::app::actions::dialog::{
    ConfirmDialog, ConfirmFocus, Dialog, MODES, MigrationPicker, PickerFocus, RunningAction,
    WhichSet,
};
use crate::app::actions::plan::{self, PlanContext};
use crate::app::actions::precondition;
use crate::app::actions::{access_key, assign_id, availability, check_access};
use crate::app::model::{Model, NoticeLevel};
use crate::app::msg::Command;
use crate::app::update::notify;

/// Handles a key while a dialog is open.
pub fn on_dialog_key(model: &mut Model, key: KeyEvent) -> Vec<Command> {
    let Some(dialog) = model.modals.close_dialog() else {
        return Vec::new();
    };
    match dialog {
        Dialog::MigrationMode(picker) => on_picker_key(model, picker, key),
        Dialog::Confirm(confirm) => on_confirm_key(model, confirm, key),
        Dialog::Progress => on_progress_key(model, key),
        Dialog::ConfirmQuit => on_quit_key(model, key),
        Dialog::WhichSet(w) => on_which_set_key(model, w, key),
    }
}

/// "Act on: [c] the cursor row / [s] the selected rows": the answer goes on
/// through the one action path; Esc (or n) cancels, nothing planned.
fn on_which_set_key(model: &mut Model, w: WhichSet, key: KeyEvent) -> Vec<Command> {
    match key.code {
        KeyCode::Char('c') | KeyCode::Char('C') => {
            crate::app::actions::start_chosen(model, w.action, w.cursor_nodes)
        }
        KeyCode::Char('s') | KeyCode::Char('S') => {
            crate::app::actions::start_chosen(model, w.action, w.selected)
        }
        KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Char('q') => {
            notify(
                model,
                NoticeLevel::Info,
                format!("{}: cancelled, nothing sent", w.action.label()),
            );
            Vec::new()
        }
        _ => {
            model.modals.open_dialog(Dialog::WhichSet(w));
            Vec::new()
        }
    }
}

/// "a write is in flight: quit anyway? y/n".
fn on_quit_key(model: &mut Model, key: KeyEvent) -> Vec<Command> {
    match key.code {
        KeyCode::Char('y') | KeyCode::Char('Y') => {
            model.quit = true;
            vec![Command::Quit]
        }
        KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => {
            // Back to the running plan's progress, if it is still there.
            if model.actions.running.is_some() {
                model.modals.open_dialog(Dialog::Progress);
            }
            Vec::new()
        }
        _ => {
            model.modals.open_dialog(Dialog::ConfirmQuit);
            Vec::new()
        }
    }
}

fn on_picker_key(
    model: &mut Model,
    mut picker: Box<MigrationPicker>,
    key: KeyEvent,
) -> Vec<Command> {
    match key.code {
        KeyCode::Esc => return Vec::new(), // closed: nothing planned, nothing sent
        KeyCode::Tab | KeyCode::BackTab => {
            picker.focus = match picker.focus {
                PickerFocus::Mode => PickerFocus::Attempts,
                PickerFocus::Attempts => PickerFocus::Mode,
            };
        }
        KeyCode::Enter => return submit_picker(model, picker),
        _ if picker.focus == PickerFocus::Mode => match key.code {
            KeyCode::Up | KeyCode::Left | KeyCode::Char('k') | KeyCode::Char('h') => {
                picker.choice = picker.choice.saturating_sub(1);
            }
            KeyCode::Down | KeyCode::Right | KeyCode::Char('j') | KeyCode::Char('l') => {
                picker.choice = (picker.choice + 1).min(MODES.len() - 1);
            }
            _ => {}
        },
        _ => {
            // The attempts field: one line, at most 16 characters.
            picker.attempts.key(key);
            picker.error = None;
        }
    }
    model.modals.open_dialog(Dialog::MigrationMode(picker));
    Vec::new()
}

fn submit_picker(model: &mut Model, mut picker: Box<MigrationPicker>) -> Vec<Command> {
    let attempts = match plan::parse_attempts(&picker.attempts_text()) {
        Ok(a) => a,
        Err(e) => {
            picker.error = Some(e.0);
            picker.focus = PickerFocus::Attempts;
            model.modals.open_dialog(Dialog::MigrationMode(picker));
            return Vec::new();
        }
    };
    let ctx = PlanContext {
        mosk_context: model.session.mosk_context.clone(),
        dry_run: model.session.dry_run,
    };
    let nodes: Vec<String> = picker.nodes.iter().map(|n| n.node.clone()).collect();
    match plan::plan_set_mode(&model.snapshot, &ctx, &nodes, picker.mode(), attempts) {
        Ok(p) => {
            let p = assign_id(model, p);
            model
                .modals
                .open_dialog(Dialog::Confirm(ConfirmDialog::new(p)));
        }
        Err(e) => {
            picker.error = Some(e.0);
            model.modals.open_dialog(Dialog::MigrationMode(picker));
        }
    }
    Vec::new()
}

fn on_confirm_key(model: &mut Model, mut confirm: ConfirmDialog, key: KeyEvent) -> Vec<Command> {
    if confirm.typed_name.is_some() {
        return on_typed_name_key(model, confirm, key);
    }
    match key.code {
        KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('N') => {
            notify(
                model,
                NoticeLevel::Info,
                format!("{}: cancelled, nothing sent", confirm.plan.action.label()),
            );
            return Vec::new();
        }
        KeyCode::Char('y') | KeyCode::Char('Y') => return confirm_plan(model, confirm),
        KeyCode::Enter => match confirm.focus {
            ConfirmFocus::Cancel => {
                notify(
                    model,
                    NoticeLevel::Info,
                    format!("{}: cancelled, nothing sent", confirm.plan.action.label()),
                );
                return Vec::new();
            }
            ConfirmFocus::Confirm => return confirm_plan(model, confirm),
        },
        KeyCode::Tab
        | KeyCode::BackTab
        | KeyCode::Left
        | KeyCode::Right
        | KeyCode::Char('h')
        | KeyCode::Char('l') => {
            confirm.focus = match confirm.focus {
                ConfirmFocus::Cancel => ConfirmFocus::Confirm,
                ConfirmFocus::Confirm => ConfirmFocus::Cancel,
            };
        }
        KeyCode::Down | KeyCode::Char('j') => confirm.scroll = confirm.scroll.saturating_add(1),
        KeyCode::Up | KeyCode::Char('k') => confirm.scroll = confirm.scroll.saturating_sub(1),
        _ => {}
    }
    model.modals.open_dialog(Dialog::Confirm(confirm));
    Vec::new()
}

/// A dialog that asks for the step's name: letters go to the field (so `y`
/// is typed, not a confirmation), Enter confirms once the name is typed,
/// Esc cancels, Up/Down scroll.
fn on_typed_name_key(model: &mut Model, mut confirm: ConfirmDialog, key: KeyEvent) -> Vec<Command> {
    match key.code {
        KeyCode::Esc => {
            notify(
                model,
                NoticeLevel::Info,
                format!("{}: cancelled, nothing sent", confirm.plan.action.label()),
            );
            return Vec::new();
        }
        KeyCode::Enter if confirm.name_typed() => return confirm_plan(model, confirm),
        KeyCode::Enter => {
            let expected = confirm
                .typed_name
                .as_ref()
                .map(|t| t.expected.clone())
                .unwrap_or_default();
            confirm.error = Some(format!(
                "not confirmed: type the step's name \"{expected}\" exactly, then Enter; nothing was sent"
            ));
        }
        KeyCode::Down => confirm.scroll = confirm.scroll.saturating_add(1),
        KeyCode::Up => confirm.scroll = confirm.scroll.saturating_sub(1),
        _ => {
            // One line, at most 200 characters.
            if let Some(t) = confirm.typed_name.as_mut() {
                t.field.key(key);
            }
            confirm.error = None;
        }
    }
    model.modals.open_dialog(Dialog::Confirm(confirm));
    Vec::new()
}

fn confirm_plan(model: &mut Model, mut confirm: ConfirmDialog) -> Vec<Command> {
    if !confirm.name_typed() {
        confirm.error =
            Some("not confirmed: the step's name is not typed; nothing was sent".into());
        model.modals.open_dialog(Dialog::Confirm(confirm));
        return Vec::new();
    }
    let action = confirm.plan.action;
    if model.actions.busy() {
        confirm.error = Some("an action is already running; wait for it to finish".into());
        model.modals.open_dialog(Dialog::Confirm(confirm));
        return Vec::new();
    }
    // What the dialog showed must still be true: else nothing is sent.
    let changed = precondition::changed_since_shown(&model.snapshot, &confirm.plan, |node| {
        plan::acknowledge_offer(&model.snapshot, &model.history, node)
    });
    if !changed.is_empty() {
        let why = format!(
            "not sent: changed since this dialog opened: {}; close it (Esc) and look again",
            changed.join("; ")
        );
        notify(
            model,
            NoticeLevel::Warning,
            format!("{}: {why}", confirm.plan.action.label()),
        );
        confirm.error = Some(why);
        model.modals.open_dialog(Dialog::Confirm(confirm));
        return Vec::new();
    }
    match availability(model, action) {
        // Not verified: offered; the server authorizes the write itself.
        Availability::Available | Availability::NotVerified(_) => {}
        Availability::Checking => {
            let key = access_key(model, action);
            confirm.error = Some(format!(
                "still asking the server whether you may {}; press y again in a moment",
                key.describe()
            ));
            model.modals.open_dialog(Dialog::Confirm(confirm));
            return check_access(model);
        }
        Availability::Unavailable(reason) => {
            confirm.error = Some(format!("not allowed: {reason}"));
            model.modals.open_dialog(Dialog::Confirm(confirm));
            return Vec::new();
        }
    }
    // The execute-time check reads the same answer as this one: the plan
    // carries it to the executor, which asks the server only without one.
    let mut plan = confirm.plan;
    plan.access = model
        .actions
        .access
        .fresh(&access_key(model, action), model.now)
        .cloned();
    model.actions.running = Some(RunningAction::new(plan.clone()));
    model.modals.open_dialog(Dialog::Progress);
    vec![Command::Execute(plan)]
}

fn on_progress_key(model: &mut Model, key: KeyEvent) -> Vec<Command> {
    let finished = model.actions.running.as_ref().is_none_or(|r| r.finished());
    let close = matches!(key.code, KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q'));
    if finished {
        if !close {
            model.modals.open_dialog(Dialog::Progress);
        } else {
            model.actions.running = None;
        }
        return Vec::new();
    }
    model.modals.open_dialog(Dialog::Progress);
    if key.code == KeyCode::Char('q') {
        return crate::app::actions::quit(model);
    }
    if matches!(key.code, KeyCode::Esc | KeyCode::Char('c'))
        && let Some(r) = model.actions.running.as_mut()
        && !r.cancel_requested
    {
        r.cancel_requested = true;
        notify(
            model,
            NoticeLevel::Warning,
            "cancelling: the current object finishes, the next ones are not sent",
        );
        return vec![Command::CancelRun];
    }
    Vec::new()
}
