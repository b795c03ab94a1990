//! The keys every table view shares: the cursor (j/k, pages, g/G), the
//! sort column, the `/` filter, `space` to select a row's node, and Esc.
//! Not a view: the table views call it for the keys they do not make
//! their own.

use crate::app::modal::Modal;
use crate::app::notices::NoticeLevel;
use crate::app::tables::cache::ViewTable;
use crate::app::tables::data::{TableRow, next_sort_column};
use crate::app::views::view::TableCursor;
use crate::app::views::{Outcome, ViewCtx, clear_selection};
use crate::config::keymap::KeyAction;

/// The table of the view on screen, as `update` last settled it (what the
/// last frame drew).
pub(super) fn table<'a>(ctx: &ViewCtx<'a>) -> Option<&'a ViewTable> {
    ctx.derived.tables.get(&ctx.view)
}

/// The row under the cursor.
pub(super) fn selected_row<'a>(cursor: &TableCursor, ctx: &ViewCtx<'a>) -> Option<&'a TableRow> {
    let t = table(ctx)?;
    t.row(t.selected(cursor)?)
}

/// Puts the cursor on place `i` of the settled order.
fn select(cursor: &mut TableCursor, t: &ViewTable, i: usize) {
    cursor.selected = i;
    cursor.selected_id = t.row(i).map(|r| r.id.clone());
}

fn move_by(cursor: &mut TableCursor, ctx: &ViewCtx, delta: isize) {
    let Some(t) = table(ctx) else {
        return;
    };
    let Some(current) = t.selected(cursor) else {
        return;
    };
    let next = (current as isize + delta).clamp(0, t.order.len() as isize - 1) as usize;
    select(cursor, t, next);
}

fn move_to_end(cursor: &mut TableCursor, ctx: &ViewCtx, bottom: bool) {
    let Some(t) = table(ctx) else {
        return;
    };
    let n = t.order.len();
    if n > 0 {
        select(cursor, t, if bottom { n - 1 } else { 0 });
    }
}

/// `s`: sorts by the next column the last frame drew (the columns shown at
/// the terminal's width), after the last one back to the first. Before the
/// view's table was drawn, by the next of all its columns.
fn cycle_sort(cursor: &mut TableCursor, ctx: &ViewCtx) {
    let shown = match &ctx.frame.table_columns {
        Some((v, cols)) if *v == ctx.view && !cols.is_empty() => cols.clone(),
        _ => (0..table(ctx).map_or(0, |t| t.data.columns.len())).collect(),
    };
    if let Some(next) = next_sort_column(cursor.sort_column, &shown) {
        cursor.sort_column = next;
    }
}

/// `space`: the node of the row under the cursor joins the selection (or
/// leaves it), and the cursor moves down.
fn toggle_select(cursor: &mut TableCursor, ctx: &ViewCtx) -> Option<Outcome> {
    let row = selected_row(cursor, ctx)?;
    let Some(node) = row.node.clone() else {
        let text = format!("{} is not on a node; nothing to select", row.id);
        return Outcome::notice(NoticeLevel::Warning, text);
    };
    move_by(cursor, ctx, 1);
    Some(Outcome {
        toggle_node: Some(node),
        ..Default::default()
    })
}

/// Esc with no modal open: clears the rows selected with `space`, saying
/// how many; with none selected, the view's filter.
pub(super) fn back(cursor: &mut TableCursor, ctx: &ViewCtx) -> Option<Outcome> {
    clear_selection(ctx).or_else(|| {
        cursor.filter.clear();
        Outcome::done()
    })
}

/// The keys every table shares; `None` for the others.
pub(super) fn on_key(
    cursor: &mut TableCursor,
    action: KeyAction,
    ctx: &ViewCtx,
) -> Option<Outcome> {
    use KeyAction::*;
    let page = ctx.page_rows as isize;
    match action {
        Down => move_by(cursor, ctx, 1),
        Up => move_by(cursor, ctx, -1),
        PageDown => move_by(cursor, ctx, page),
        PageUp => move_by(cursor, ctx, -page),
        Top => move_to_end(cursor, ctx, false),
        Bottom => move_to_end(cursor, ctx, true),
        Sort => cycle_sort(cursor, ctx),
        ReverseSort => cursor.sort_reverse = !cursor.sort_reverse,
        Filter => {
            return Outcome::open(Modal::FilterInput {
                text: cursor.filter.as_str().into(),
            });
        }
        ToggleSelect => return toggle_select(cursor, ctx).or_else(Outcome::done),
        Back => return back(cursor, ctx),
        _ => return None,
    }
    Outcome::done()
}
