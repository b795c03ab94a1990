//! Moving around: the cursor in a table and the log, the sort column, the
//! rows selected with `space` (Esc clears them), jumping from a machine to
//! its log lines, and opening a row's details (Enter) and scrolling them.
//! Called by `update` for the navigation keys.

use crossterm::event::KeyEvent;

use crate::app::modal::Modal;
use crate::app::model::{Model, NoticeLevel, View};
use crate::app::tables::{TableRow, shown};
use crate::app::update::switch_view;
use crate::config::keymap::KeyAction;

/// The selected row of the current view (as `update` last settled its
/// table: what the last frame drew), if any.
pub(crate) fn selected_row(model: &Model) -> Option<&TableRow> {
    let t = shown(model, model.view)?;
    t.row(t.selected(&model.cursor(model.view))?)
}

/// Puts the cursor of `view` on place `i` of its settled order.
fn select(model: &mut Model, view: View, i: usize) {
    let id = shown(model, view)
        .and_then(|t| t.row(i))
        .map(|r| r.id.clone());
    let c = model.cursor_mut(view);
    c.selected = i;
    c.selected_id = id;
}

pub(crate) fn move_selection(model: &mut Model, delta: isize) {
    if model.view == View::Logs {
        scroll_logs(model, delta);
        return;
    }
    if !model.view.is_table() {
        return;
    }
    let view = model.view;
    let Some(t) = shown(model, view) else {
        return;
    };
    let Some(current) = t.selected(&model.cursor(view)) else {
        return;
    };
    let next = (current as isize + delta).clamp(0, t.order.len() as isize - 1) as usize;
    select(model, view, next);
}

/// `s`: sorts by the next column the last frame drew (the columns shown at
/// the terminal's width), after the last one back to the first. Before the
/// view's table was drawn, by the next of all its columns.
pub(crate) fn cycle_sort(model: &mut Model) {
    let view = model.view;
    if !view.is_table() {
        return;
    }
    let shown = match &model.frame.table_columns {
        Some((v, cols)) if *v == view && !cols.is_empty() => cols.clone(),
        _ => (0..shown(model, view).map_or(0, |t| t.data.columns.len())).collect(),
    };
    let current = model.cursor(view).sort_column;
    if let Some(next) = crate::app::tables::next_sort_column(current, &shown) {
        model.cursor_mut(view).sort_column = next;
    }
}

pub(crate) fn move_to_end(model: &mut Model, bottom: bool) {
    if model.view == View::Logs {
        if bottom {
            model.logs.follow_newest();
        } else {
            model.logs.to_oldest();
        }
        return;
    }
    let view = model.view;
    let n = shown(model, view).map_or(0, |t| t.order.len());
    if n == 0 {
        return;
    }
    select(model, view, if bottom { n - 1 } else { 0 });
}

fn scroll_logs(model: &mut Model, delta: isize) {
    model.logs.scroll(delta);
}

/// The machine name and node name of the selected Machines row.
fn selected_machine(model: &Model) -> Option<(String, Option<String>)> {
    if model.view != View::Machines {
        return None;
    }
    selected_row(model).map(|r| (r.id.clone(), r.node.clone()))
}

pub(crate) fn logs_for_selected_machine(model: &mut Model) {
    let Some((machine, node)) = selected_machine(model) else {
        model.notify(
            NoticeLevel::Info,
            "select a machine in the Machines view first",
        );
        return;
    };
    model
        .logs
        .set_subject(std::iter::once(machine).chain(node).collect());
    model.logs.follow_newest();
    switch_view(model, View::Logs);
}

pub(crate) fn toggle_selected_node(model: &mut Model) {
    if !model.view.is_table() {
        return;
    }
    let node = match selected_row(model) {
        Some(TableRow {
            node: Some(node), ..
        }) => node.clone(),
        Some(row) => {
            let text = format!("{} is not on a node; nothing to select", row.id);
            model.notify(NoticeLevel::Warning, text);
            return;
        }
        None => return,
    };
    if !model.selected_nodes.remove(&node) {
        model.selected_nodes.insert(node);
    }
    move_selection(model, 1);
}

/// The group-by key: the Machines view sorts by update group first, or no
/// longer. The cursor stays on the machine it was on.
pub(crate) fn toggle_group_by_update_group(model: &mut Model) {
    if model.view != View::Machines {
        model.notify(
            NoticeLevel::Info,
            "grouping by update group works in the Machines view",
        );
        return;
    }
    let known = model.derived.rows.iter().any(|r| r.update_group.is_some());
    let grouped = model.cursor(View::Machines).group_column.is_some();
    if !known && !grouped {
        model.notify(
            NoticeLevel::Info,
            "no update groups known: no UpdateGroup or provider Machine seen",
        );
        return;
    }
    // The cursor stays on its machine: `settle` re-sorts and finds it by id.
    let current = selected_row(model).map(|r| r.id.clone());
    let c = model.cursor_mut(View::Machines);
    c.group_column = if grouped {
        None
    } else {
        Some(crate::app::tables::machines::GROUP)
    };
    c.selected_id = current;
}

/// Enter on a row of the Locks, Requests or States view: the full text of
/// its object, in the modal stack (the one way details open; the Overview's
/// attention items open theirs through [`crate::app::attention_cursor::open`]).
pub(crate) fn open_detail(model: &mut Model) {
    let Some(row) = selected_row(model) else {
        return;
    };
    let of = match model.view {
        View::Locks => crate::app::tables::locks::detail_of(&row.id),
        View::Requests => crate::app::tables::requests::detail_of(&row.id),
        View::States => crate::app::tables::states::detail_of(&row.id),
        _ => return,
    };
    match of {
        Some(of) => model.modals.push(Modal::Detail { of, scroll: 0 }),
        None => {
            let text = format!("{}: the row says all the console could read", row.id);
            model.notify(NoticeLevel::Info, text);
        }
    }
}

/// Keys while a details modal is on top: Esc (or Enter, q) closes it,
/// `?` opens the help over it, the movement keys scroll it (the UI stops
/// at its last line).
pub(crate) fn on_detail_key(model: &mut Model, key: KeyEvent) {
    let page = model.page_rows.max(1) as u16;
    let action = model.keymap.action_for(&key);
    match action {
        Some(KeyAction::Back) | Some(KeyAction::Open) | Some(KeyAction::Quit) => {
            model.modals.pop();
            return;
        }
        Some(KeyAction::Help) => {
            model.modals.push(Modal::Help { scroll: 0 });
            return;
        }
        _ => {}
    }
    let most = model.frame.detail_scroll_max;
    let Some(Modal::Detail { scroll, .. }) = model.modals.top_mut() else {
        return;
    };
    let next = match action {
        Some(KeyAction::Down) => scroll.saturating_add(1),
        Some(KeyAction::Up) => scroll.saturating_sub(1),
        Some(KeyAction::PageDown) => scroll.saturating_add(page),
        Some(KeyAction::PageUp) => scroll.saturating_sub(page),
        Some(KeyAction::Top) => 0,
        Some(KeyAction::Bottom) => u16::MAX,
        _ => return,
    };
    // Never past the last line the last frame could show.
    *scroll = most.map_or(next, |m| next.min(m));
}

/// Esc with no modal open: clears the rows selected with `space`, saying
/// how many; `false` when none was selected.
pub(crate) fn clear_selection(model: &mut Model) -> bool {
    let n = model.selected_nodes.len();
    if n == 0 {
        return false;
    }
    model.selected_nodes.clear();
    let s = if n == 1 { "" } else { "s" };
    model.notify(NoticeLevel::Info, format!("selection cleared ({n} row{s})"));
    true
}
