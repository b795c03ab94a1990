//! Keys while a dialog is open. They are read before the keymap, so a
//! dialog's keys (y, n, Enter, Esc, digits) never trigger a view action.
//! The dialog reads its key in place ([`Dialog::on_key`], it is never
//! taken off the stack to do so) and answers with a [`DialogOutcome`];
//! [`on_dialog_key`] applies what reaches beyond the dialog.

use crossterm::event::{KeyCode, KeyEvent};

use crate::app::actions::access::Availability;
use crate::app::actions::dialog::{
    ConfirmDialog, ConfirmFocus, Dialog, MODES, MigrationPicker, PickerFocus, RunningAction,
};
use crate::app::actions::plan::{self, PlanContext};
use crate::app::actions::precondition;
use crate::app::actions::{access_key, assign_id, availability, check_access};
use crate::app::model::{Model, NoticeLevel};
use crate::app::msg::Command;
use crate::domain::action::ActionId;

/// What a key did to a dialog, for [`on_dialog_key`] to apply to the model.
/// The dialog stays on the stack while its keys are read; only an outcome
/// that ends it takes it off.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogOutcome {
    /// The key moved something inside the dialog, or did nothing.
    Stay,
    /// Closed with nothing planned and nothing sent, said so.
    Cancelled(ActionId),
    /// Closed silently (the picker's Esc: nothing was planned yet).
    Close,
    /// Enter in the migration-mode picker: plan what it shows.
    SubmitPicker,
    /// The confirmation is given: check what must still hold, then send.
    Confirm,
    /// "Act on": the chosen nodes, on through the one action path.
    Chosen(ActionId, Vec<String>),
    /// "quit anyway?": yes.
    QuitConfirmed,
    /// "quit anyway?": no, back to the running plan.
    QuitDeclined,
    /// `q` over a running plan: asks "quit anyway?".
    AskQuit,
    /// Esc or `c` over a running plan: cancel the steps not yet sent.
    CancelRun,
    /// A finished plan's progress is closed.
    Dismissed,
}

impl Dialog {
    /// A key while this dialog is on top. `run_finished`: the running plan
    /// (what the progress dialog shows) is over, or there is none.
    pub fn on_key(&mut self, key: KeyEvent, run_finished: bool) -> DialogOutcome {
        match self {
            Dialog::MigrationMode(picker) => picker_key(picker, key),
            Dialog::Confirm(confirm) => confirm_key(confirm, key),
            Dialog::Progress => progress_key(key, run_finished),
            Dialog::ConfirmQuit => match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => DialogOutcome::QuitConfirmed,
                KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => {
                    DialogOutcome::QuitDeclined
                }
                _ => DialogOutcome::Stay,
            },
            Dialog::WhichSet(w) => match key.code {
                KeyCode::Char('c') | KeyCode::Char('C') => {
                    DialogOutcome::Chosen(w.action, w.cursor_nodes.clone())
                }
                KeyCode::Char('s') | KeyCode::Char('S') => {
                    DialogOutcome::Chosen(w.action, w.selected.clone())
                }
                KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Char('q') => {
                    DialogOutcome::Cancelled(w.action)
                }
                _ => DialogOutcome::Stay,
            },
        }
    }
}

fn picker_key(picker: &mut MigrationPicker, key: KeyEvent) -> DialogOutcome {
    match key.code {
        KeyCode::Esc => return DialogOutcome::Close,
        KeyCode::Tab | KeyCode::BackTab => {
            picker.focus = match picker.focus {
                PickerFocus::Mode => PickerFocus::Attempts,
                PickerFocus::Attempts => PickerFocus::Mode,
            };
        }
        KeyCode::Enter => return DialogOutcome::SubmitPicker,
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
    DialogOutcome::Stay
}

fn confirm_key(confirm: &mut ConfirmDialog, key: KeyEvent) -> DialogOutcome {
    let action = confirm.plan.action;
    if confirm.typed_name.is_some() {
        return typed_name_key(confirm, key);
    }
    match key.code {
        KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('N') => {
            return DialogOutcome::Cancelled(action);
        }
        KeyCode::Char('y') | KeyCode::Char('Y') => return DialogOutcome::Confirm,
        KeyCode::Enter => match confirm.focus {
            ConfirmFocus::Cancel => return DialogOutcome::Cancelled(action),
            ConfirmFocus::Confirm => return DialogOutcome::Confirm,
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
    DialogOutcome::Stay
}

/// A dialog that asks for the step's name: letters go to the field (so `y`
/// is typed, not a confirmation), Enter confirms once the name is typed,
/// Esc cancels, Up/Down scroll.
fn typed_name_key(confirm: &mut ConfirmDialog, key: KeyEvent) -> DialogOutcome {
    match key.code {
        KeyCode::Esc => return DialogOutcome::Cancelled(confirm.plan.action),
        KeyCode::Enter if confirm.name_typed() => return DialogOutcome::Confirm,
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
    DialogOutcome::Stay
}

fn progress_key(key: KeyEvent, run_finished: bool) -> DialogOutcome {
    let close = matches!(key.code, KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q'));
    if run_finished {
        return if close {
            DialogOutcome::Dismissed
        } else {
            DialogOutcome::Stay
        };
    }
    match key.code {
        KeyCode::Char('q') => DialogOutcome::AskQuit,
        KeyCode::Esc | KeyCode::Char('c') => DialogOutcome::CancelRun,
        _ => DialogOutcome::Stay,
    }
}

/// Handles a key while a dialog is on top: the dialog reads it
/// ([`Dialog::on_key`]), then what it asks for is applied here.
pub fn on_dialog_key(model: &mut Model, key: KeyEvent) -> Vec<Command> {
    let run_finished = model.actions.running.as_ref().is_none_or(|r| r.finished());
    let Some(dialog) = model.modals.dialog_mut() else {
        return Vec::new();
    };
    match dialog.on_key(key, run_finished) {
        DialogOutcome::Stay => Vec::new(),
        DialogOutcome::Cancelled(action) => {
            model.modals.close_dialog();
            model.notify(
                NoticeLevel::Info,
                format!("{}: cancelled, nothing sent", action.label()),
            );
            Vec::new()
        }
        DialogOutcome::Close => {
            model.modals.close_dialog();
            Vec::new()
        }
        DialogOutcome::SubmitPicker => submit_picker(model),
        DialogOutcome::Confirm => confirm_plan(model),
        DialogOutcome::Chosen(action, nodes) => {
            model.modals.close_dialog();
            crate::app::actions::start_chosen(model, action, nodes)
        }
        DialogOutcome::QuitConfirmed => {
            model.modals.close_dialog();
            model.quit = true;
            vec![Command::Quit]
        }
        DialogOutcome::QuitDeclined => {
            // Back to the running plan's progress, if it is still there.
            if model.actions.running.is_some() {
                model.modals.open_dialog(Dialog::Progress);
            } else {
                model.modals.close_dialog();
            }
            Vec::new()
        }
        DialogOutcome::AskQuit => crate::app::actions::quit(model),
        DialogOutcome::CancelRun => {
            if let Some(r) = model.actions.running.as_mut()
                && !r.cancel_requested
            {
                r.cancel_requested = true;
                model.notify(
                    NoticeLevel::Warning,
                    "cancelling: the current object finishes, the next ones are not sent",
                );
                return vec![Command::CancelRun];
            }
            Vec::new()
        }
        DialogOutcome::Dismissed => {
            model.modals.close_dialog();
            model.actions.running = None;
            Vec::new()
        }
    }
}

/// The picker on top, to read it or say why its Enter was refused.
fn picker(model: &mut Model) -> Option<&mut MigrationPicker> {
    match model.modals.dialog_mut() {
        Some(Dialog::MigrationMode(p)) => Some(p),
        _ => None,
    }
}

/// The confirmation dialog on top.
fn confirmation(model: &mut Model) -> Option<&mut ConfirmDialog> {
    match model.modals.dialog_mut() {
        Some(Dialog::Confirm(c)) => Some(c),
        _ => None,
    }
}

/// Refuses the confirmation, saying why in the dialog (it stays open).
fn refuse(model: &mut Model, why: String) {
    if let Some(c) = confirmation(model) {
        c.error = Some(why);
    }
}

fn submit_picker(model: &mut Model) -> Vec<Command> {
    let Some(p) = picker(model) else {
        return Vec::new();
    };
    let (text, nodes, mode) = (
        p.attempts_text(),
        p.nodes.iter().map(|n| n.node.clone()).collect::<Vec<_>>(),
        p.mode().clone(),
    );
    let attempts = match plan::parse_attempts(&text) {
        Ok(a) => a,
        Err(e) => {
            p.error = Some(e.0);
            p.focus = PickerFocus::Attempts;
            return Vec::new();
        }
    };
    let ctx = PlanContext {
        mosk_context: model.session.mosk_context.clone(),
        dry_run: model.session.dry_run,
    };
    match plan::plan_set_mode(&model.snapshot, &ctx, &nodes, &mode, attempts) {
        Ok(p) => {
            let p = assign_id(model, p);
            model
                .modals
                .open_dialog(Dialog::Confirm(ConfirmDialog::new(p)));
        }
        Err(e) => {
            if let Some(p) = picker(model) {
                p.error = Some(e.0);
            }
        }
    }
    Vec::new()
}

fn confirm_plan(model: &mut Model) -> Vec<Command> {
    let Some(confirm) = confirmation(model) else {
        return Vec::new();
    };
    if !confirm.name_typed() {
        confirm.error =
            Some("not confirmed: the step's name is not typed; nothing was sent".into());
        return Vec::new();
    }
    let plan = confirm.plan.clone();
    let action = plan.action;
    if model.actions.busy() {
        refuse(
            model,
            "an action is already running; wait for it to finish".into(),
        );
        return Vec::new();
    }
    // Every action's precondition: refused through the executor, which
    // sends nothing and writes the refusal to the audit log.
    if let Some(why) = precondition::refusal(model) {
        model.notify(
            NoticeLevel::Error,
            format!("{}: refused, nothing sent: {why}", action.label()),
        );
        let mut plan = plan;
        plan.refused = Some(why);
        model.actions.running = Some(RunningAction::new(plan.clone()));
        model.modals.open_dialog(Dialog::Progress);
        return vec![Command::Execute(plan)];
    }
    // What the dialog showed must still be true: else nothing is sent.
    let changed = precondition::changed_since_shown(&model.snapshot, &plan, |node| {
        plan::acknowledge_offer(&model.snapshot, &model.history, node)
    });
    if !changed.is_empty() {
        let why = format!(
            "not sent: changed since this dialog opened: {}; close it (Esc) and look again",
            changed.join("; ")
        );
        model.notify(NoticeLevel::Warning, format!("{}: {why}", action.label()));
        refuse(model, why);
        return Vec::new();
    }
    match availability(model, action) {
        // Not verified: offered; the server authorizes the write itself.
        Availability::Available | Availability::NotVerified(_) => {}
        Availability::Checking => {
            let key = access_key(model, action);
            refuse(
                model,
                format!(
                    "still asking the server whether you may {}; press y again in a moment",
                    key.describe()
                ),
            );
            return check_access(model);
        }
        Availability::Unavailable(reason) => {
            refuse(model, format!("not allowed: {reason}"));
            return Vec::new();
        }
    }
    // The execute-time check reads the same answer as this one: the plan
    // carries it to the executor, which asks the server only without one.
    let mut plan = plan;
    plan.access = super::fresh_access(model, action);
    model.actions.running = Some(RunningAction::new(plan.clone()));
    model.modals.open_dialog(Dialog::Progress);
    vec![Command::Execute(plan)]
}
