//! The wrap-up view (`:wrapup`), offered on the Overview when the update is
//! done: the vRouter DaemonSets' UP-TO-DATE against CURRENT, the migration
//! settings (mode, attempts) this console changed (from the audit log) with
//! their restore (`r`, through the one action path), and the update guide's
//! remaining steps as a checklist the operator ticks (Enter), kept in the
//! session report. One cursor walks the settings, then the steps.

use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::app::notices::NoticeLevel;
use crate::app::views::{Hint, Outcome, ViewCtx};
use crate::config::keymap::KeyAction;
use crate::domain::action::ActionId;
use crate::domain::wrapup::{RestoreOffer, Step, restore_offer};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    /// Place of the cursor among [`rows`].
    pub cursor: usize,
    /// The steps ticked, and when (the operator's clock as the screen
    /// shows it).
    pub ticked: BTreeMap<Step, Timestamp>,
}

/// One row the cursor stands on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// The n-th migration setting this console changed.
    Setting(usize),
    Step(Step),
}

/// The rows in order: the settings, then the steps.
pub fn rows(settings: usize) -> Vec<Row> {
    (0..settings)
        .map(Row::Setting)
        .chain(Step::ALL.into_iter().map(Row::Step))
        .collect()
}

/// The row under the cursor.
pub fn selected(state: &State, settings: usize) -> Row {
    let rows = rows(settings);
    rows[state.cursor.min(rows.len() - 1)]
}

pub fn on_key(state: &mut State, action: KeyAction, ctx: &ViewCtx) -> Option<Outcome> {
    let n = rows(ctx.setting_changes.len()).len();
    state.cursor = state.cursor.min(n - 1);
    match action {
        KeyAction::Down => state.cursor = (state.cursor + 1).min(n - 1),
        KeyAction::Up => state.cursor = state.cursor.saturating_sub(1),
        KeyAction::Top => state.cursor = 0,
        KeyAction::Bottom => state.cursor = n - 1,
        KeyAction::Open => match selected(state, ctx.setting_changes.len()) {
            Row::Step(step) => {
                let text = if state.ticked.remove(&step).is_some() {
                    format!("not done: {}", step.text())
                } else {
                    state.ticked.insert(step, ctx.now);
                    format!("done: {}", step.text())
                };
                return Outcome::notice(NoticeLevel::Info, text);
            }
            Row::Setting(_) => {
                return Outcome::notice(
                    NoticeLevel::Info,
                    "Enter ticks a step of the checklist; on a setting, r restores the value before",
                );
            }
        },
        _ => return None,
    }
    Outcome::done()
}

pub fn hints(state: &State, ctx: &ViewCtx) -> Vec<Hint> {
    let mut out = Vec::new();
    if let Row::Setting(i) = selected(state, ctx.setting_changes.len())
        && matches!(
            restore_offer(ctx.snapshot, &ctx.setting_changes[i]),
            RestoreOffer::Offered { .. }
        )
    {
        out.push(Hint::act(ActionId::RestoreMigrationSetting));
    }
    if let Row::Step(s) = selected(state, ctx.setting_changes.len()) {
        let label = if state.ticked.contains_key(&s) {
            "untick step"
        } else {
            "tick step"
        };
        out.push(Hint::key(KeyAction::Open, label));
    }
    out.extend([
        Hint::key(KeyAction::Down, "move"),
        Hint::key(KeyAction::Command, "view"),
    ]);
    out
}
