//! The Update plan view: the ClusterUpdatePlan's steps, one row each, and
//! commence (`c`) on the step that waits. The cursor moves between steps;
//! on the first visit it starts on the step that runs, else the one that
//! waits (`update::switch_view`). The selected step's details show below
//! the table and scroll with `J`/`K`.

use crate::app::views::details::DetailsScroll;
use crate::app::views::table_keys::{self, selected_row};
use crate::app::views::view::TableCursor;
use crate::app::views::{Hint, Outcome, ViewCtx};
use crate::config::keymap::KeyAction;
use crate::domain::action::ActionId;

/// The Update plan view's own state beyond its table cursor.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    /// How far the selected step's details are scrolled.
    pub step_scroll: DetailsScroll,
}

pub fn on_key(
    state: &mut State,
    cursor: &mut TableCursor,
    action: KeyAction,
    ctx: &ViewCtx,
) -> Option<Outcome> {
    let id = selected_row(cursor, ctx).map(|r| r.id.as_str());
    state
        .step_scroll
        .on_key(action, id, ctx)
        .or_else(|| table_keys::on_key(cursor, action, ctx))
}

pub fn hints(state: &State, cursor: &TableCursor, ctx: &ViewCtx) -> Vec<Hint> {
    let mut out = vec![Hint::act(ActionId::CommenceStep)];
    // Moving between steps needs two of them.
    if table_keys::table(ctx).is_some_and(|t| t.order.len() > 1) {
        out.push(Hint::key(KeyAction::Down, "step"));
    }
    let id = selected_row(cursor, ctx).map(|r| r.id.as_str());
    out.extend(state.step_scroll.hints(id, ctx));
    out.extend([
        Hint::key(KeyAction::ViewOverview, "overview"),
        Hint::key(KeyAction::Command, "view"),
    ]);
    out
}
