//! The Update plan view: the ClusterUpdatePlan's steps, one row each, and
//! commence (`c`) on the step that waits. The cursor moves between steps;
//! on the first visit it starts on the step that runs, else the one that
//! waits (`update::switch_view`).

use crate::app::views::table_keys;
use crate::app::views::view::TableCursor;
use crate::app::views::{Hint, Outcome, ViewCtx};
use crate::config::keymap::KeyAction;
use crate::domain::action::ActionId;

pub fn on_key(cursor: &mut TableCursor, action: KeyAction, ctx: &ViewCtx) -> Option<Outcome> {
    table_keys::on_key(cursor, action, ctx)
}

pub fn hints(ctx: &ViewCtx) -> Vec<Hint> {
    let mut out = vec![Hint::act(ActionId::CommenceStep)];
    // Moving between steps needs two of them.
    if table_keys::table(ctx).is_some_and(|t| t.order.len() > 1) {
        out.push(Hint::key(KeyAction::Down, "step"));
    }
    out.extend([
        Hint::key(KeyAction::ViewOverview, "overview"),
        Hint::key(KeyAction::Command, "view"),
    ]);
    out
}
