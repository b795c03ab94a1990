//! The Update plan view: the ClusterUpdatePlan's steps, one row each, and
//! commence (`c`) on the step that waits. The cursor moves between steps;
//! on the first visit it starts on the step that runs, else the one that
//! waits (`update::switch_view`).

use crate::app::views::table_keys;
use crate::app::views::{Hint, Outcome, TableCursor, ViewCtx};
use crate::config::keymap::KeyAction;
use crate::domain::action::ActionId;

pub fn on_key(cursor: &mut TableCursor, action: KeyAction, ctx: &ViewCtx) -> Option<Outcome> {
    table_keys::on_key(cursor, action, ctx)
}

pub fn hints(_ctx: &ViewCtx) -> Vec<Hint> {
    vec![
        Hint::act(ActionId::CommenceStep),
        Hint::key(KeyAction::Down, "step"),
        Hint::key(KeyAction::ViewOverview, "overview"),
        Hint::key(KeyAction::Command, "view"),
    ]
}
