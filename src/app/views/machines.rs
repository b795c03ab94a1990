//! The Machines view: every machine joined across both clusters, its detail
//! pane beside the table (Enter opens and closes it, Esc closes it, `J`/`K`
//! scroll it), its log lines (`l`), grouping by update group (`u`), and the
//! node actions (`m`, `a`) on the cursor row or the rows selected with
//! `space`.

use crate::app::notices::NoticeLevel;
use crate::app::views::details::DetailsScroll;
use crate::app::views::table_keys::{self, selected_row};
use crate::app::views::view::TableCursor;
use crate::app::views::{Hint, Outcome, ViewCtx};
use crate::config::keymap::KeyAction;
use crate::domain::action::ActionId;

/// The Machines view's own state beyond its table cursor.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    /// Whether the detail pane of the selected row is shown: a split view,
    /// not a modal (see `crate::app::modal`); the table keeps the keys.
    pub detail_open: bool,
    /// How far the detail pane is scrolled.
    pub detail_scroll: DetailsScroll,
}

/// `l`: the Logs view, showing the lines about the machine under the
/// cursor and its node.
fn logs_for(cursor: &TableCursor, ctx: &ViewCtx) -> Option<Outcome> {
    let Some(row) = selected_row(cursor, ctx) else {
        return Outcome::notice(
            NoticeLevel::Info,
            "select a machine in the Machines view first",
        );
    };
    let names = std::iter::once(row.id.clone())
        .chain(row.node.clone())
        .collect();
    Some(Outcome {
        logs_for: Some(names),
        ..Default::default()
    })
}

/// `u`: sorts by update group first, or no longer. The cursor stays on
/// the machine it was on (`settle` re-sorts and finds it by id).
fn toggle_group(cursor: &mut TableCursor, ctx: &ViewCtx) -> Option<Outcome> {
    let known = ctx.derived.rows.iter().any(|r| r.update_group.is_some());
    let grouped = cursor.group_column.is_some();
    if !known && !grouped {
        return Outcome::notice(
            NoticeLevel::Info,
            "no update groups known: no UpdateGroup or provider Machine seen",
        );
    }
    let current = selected_row(cursor, ctx).map(|r| r.id.clone());
    cursor.group_column = if grouped {
        None
    } else {
        Some(crate::app::tables::refs::MACHINES_GROUP)
    };
    cursor.selected_id = current;
    Outcome::done()
}

pub fn on_key(
    state: &mut State,
    cursor: &mut TableCursor,
    action: KeyAction,
    ctx: &ViewCtx,
) -> Option<Outcome> {
    match action {
        KeyAction::Open => {
            state.detail_open = !state.detail_open;
            state.detail_scroll.reset();
        }
        KeyAction::Back if state.detail_open => state.detail_open = false,
        KeyAction::DetailsDown | KeyAction::DetailsUp if state.detail_open => {
            let id = selected_row(cursor, ctx).map(|r| r.id.as_str());
            return state.detail_scroll.on_key(action, id, ctx);
        }
        KeyAction::LogsForMachine => return logs_for(cursor, ctx),
        KeyAction::GroupByUpdateGroup => return toggle_group(cursor, ctx),
        _ => return table_keys::on_key(cursor, action, ctx),
    }
    Outcome::done()
}

pub fn hints(state: &State, cursor: &TableCursor, ctx: &ViewCtx) -> Vec<Hint> {
    let mut out = vec![if state.detail_open {
        Hint::key(KeyAction::Back, "close details")
    } else {
        Hint::key(KeyAction::Open, "details")
    }];
    if state.detail_open {
        let id = selected_row(cursor, ctx).map(|r| r.id.as_str());
        out.extend(state.detail_scroll.hints(id, ctx));
    }
    out.extend([
        Hint::key(KeyAction::Filter, "filter"),
        Hint::key(KeyAction::ToggleSelect, "select"),
        Hint::act(ActionId::SetMigrationMode),
        Hint::act(ActionId::AcknowledgeMigration),
        Hint::key(KeyAction::Servers, "servers"),
        Hint::key(KeyAction::LogsForMachine, "logs"),
        Hint::key(KeyAction::Sort, "sort"),
        Hint::key(KeyAction::Command, "view"),
    ]);
    out
}
