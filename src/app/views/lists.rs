//! The list views that share one behaviour: Cluster states, Locks,
//! Maintenance requests, Events and Audit. A table with a cursor, sort and
//! filter; Enter opens the full text of a lock, a request or a cluster
//! state.

use crate::app::modal::{DetailOf, Modal};
use crate::app::notices::NoticeLevel;
use crate::app::tables::refs;
use crate::app::views::table_keys::{self, selected_row};
use crate::app::views::view::{TableCursor, View};
use crate::app::views::{Hint, Outcome, ViewCtx};
use crate::config::keymap::KeyAction;

/// What Enter opens for the row `id` of `view`, if the view has details.
fn detail_of(view: View, id: &str) -> Option<Option<DetailOf>> {
    match view {
        View::Locks => Some(refs::lock_of(id)),
        View::Requests => Some(refs::request_of(id)),
        View::States => Some(refs::state_of(id)),
        _ => None,
    }
}

/// Enter: the full text of the row's object, in the modal stack.
fn open(cursor: &TableCursor, ctx: &ViewCtx) -> Option<Outcome> {
    let row = selected_row(cursor, ctx)?;
    match detail_of(ctx.view, &row.id)? {
        Some(of) => Outcome::open(Modal::Detail { of, scroll: 0 }),
        None => Outcome::notice(
            NoticeLevel::Info,
            format!("{}: the row says all the console could read", row.id),
        ),
    }
}

pub fn on_key(cursor: &mut TableCursor, action: KeyAction, ctx: &ViewCtx) -> Option<Outcome> {
    match action {
        KeyAction::Open => open(cursor, ctx),
        _ => table_keys::on_key(cursor, action, ctx),
    }
}

/// Enter (details) is in `?`, not in the footer, which keeps room for
/// the keys every list has.
pub fn hints(_ctx: &ViewCtx) -> Vec<Hint> {
    vec![
        Hint::key(KeyAction::Filter, "filter"),
        Hint::key(KeyAction::Sort, "sort"),
        Hint::key(KeyAction::ReverseSort, "reverse"),
        Hint::key(KeyAction::Command, "view"),
    ]
}
