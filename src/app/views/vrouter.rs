//! The vRouter view: the `tf-vrouter` pods and their DaemonSets, which
//! are outdated, and the restarts (`R` one node, `ctrl-r` all outdated).

use crate::app::views::table_keys;
use crate::app::views::view::TableCursor;
use crate::app::views::{Hint, Outcome, ViewCtx};
use crate::config::keymap::KeyAction;
use crate::domain::action::ActionId;

pub fn on_key(cursor: &mut TableCursor, action: KeyAction, ctx: &ViewCtx) -> Option<Outcome> {
    table_keys::on_key(cursor, action, ctx)
}

pub fn hints(_ctx: &ViewCtx) -> Vec<Hint> {
    vec![
        Hint::act(ActionId::RestartVrouter),
        Hint::act(ActionId::RestartAllVrouters),
        Hint::key(KeyAction::Filter, "filter"),
        Hint::key(KeyAction::Sort, "sort"),
        Hint::key(KeyAction::Command, "view"),
    ]
}
