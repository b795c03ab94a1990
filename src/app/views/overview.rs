//! The Overview: the attention queue with its cursor (`j`/`k` move it,
//! Enter opens the item's full text, `x` dismisses a reminder), beside the
//! phase, progress and log panes. The action keys an item names (`a`, `R`,
//! `m`) act on the item under the cursor through the one action path
//! (`crate::app::attention_cursor`); a key acts only on an item the last
//! frame drew (`FrameReport::attention_shown`).

use crate::app::modal::Modal;
use crate::app::notices::NoticeLevel;
use crate::app::views::{Hint, Outcome, ViewCtx, clear_selection};
use crate::config::keymap::KeyAction;
use crate::domain::action::ActionId;
use crate::domain::attention::{AttentionItem, AttentionKind};

/// The Overview's own state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    /// The attention item under the cursor (its [`item_id`]); `None`: the
    /// first item.
    pub selected: Option<String>,
}

/// A stable id for an item: what it is and what it is about. The cursor
/// follows it while the queue changes around it.
pub fn item_id(item: &AttentionItem) -> String {
    format!(
        "{:?}/{}/{:?}/{}/{}",
        item.kind, item.subject, item.key.kind, item.key.namespace, item.key.name
    )
}

/// The index of the item under the cursor: the item with the remembered id,
/// else the first; `None` when the queue is empty.
pub fn selected_index(items: &[AttentionItem], selected: Option<&str>) -> Option<usize> {
    if items.is_empty() {
        return None;
    }
    Some(
        selected
            .and_then(|id| items.iter().position(|i| item_id(i) == id))
            .unwrap_or(0),
    )
}

/// The item under the cursor, if the queue has any.
pub fn selected_item<'a>(state: &State, items: &'a [AttentionItem]) -> Option<&'a AttentionItem> {
    selected_index(items, state.selected.as_deref()).map(|i| &items[i])
}

/// The item under the cursor if the last frame drew it; `Err` with the
/// reason when it is not on screen; `Ok(None)` when the queue is empty.
pub fn on_screen<'a>(
    state: &State,
    items: &'a [AttentionItem],
    shown: &[String],
) -> Result<Option<&'a AttentionItem>, String> {
    let Some(item) = selected_item(state, items) else {
        return Ok(None);
    };
    if shown.contains(&item_id(item)) {
        Ok(Some(item))
    } else {
        Err(format!(
            "the attention item under the cursor ({}) is not on screen: enlarge the terminal or move the cursor (j/k)",
            item.subject
        ))
    }
}

fn move_cursor(state: &mut State, items: &[AttentionItem], delta: isize) {
    let Some(at) = selected_index(items, state.selected.as_deref()) else {
        return;
    };
    let next = (at as isize + delta).clamp(0, items.len() as isize - 1) as usize;
    state.selected = Some(item_id(&items[next]));
}

fn move_to_end(state: &mut State, items: &[AttentionItem], bottom: bool) {
    let pick = if bottom { items.last() } else { items.first() };
    if let Some(item) = pick {
        state.selected = Some(item_id(item));
    }
}

/// `x`: the reminder under the cursor, else the first reminder the last
/// frame drew (never one off screen).
fn reminder_to_dismiss(state: &State, ctx: &ViewCtx) -> Option<Outcome> {
    let items = &ctx.derived.attention;
    let shown = &ctx.frame.attention_shown;
    let under_cursor = match on_screen(state, items, shown) {
        Ok(Some(item)) => match item.kind {
            AttentionKind::Reminder(r) => Some(r),
            _ => None,
        },
        _ => None,
    };
    let first = under_cursor.or_else(|| {
        items
            .iter()
            .filter(|i| shown.contains(&item_id(i)))
            .find_map(|i| match i.kind {
                AttentionKind::Reminder(r) => Some(r),
                _ => None,
            })
    });
    match first {
        Some(r) => Some(Outcome {
            dismiss: Some(r),
            ..Default::default()
        }),
        None => Outcome::notice(NoticeLevel::Info, "no reminder to dismiss"),
    }
}

pub fn on_key(state: &mut State, action: KeyAction, ctx: &ViewCtx) -> Option<Outcome> {
    use KeyAction::*;
    let items = &ctx.derived.attention;
    let page = ctx.page_rows as isize;
    match action {
        Down => move_cursor(state, items, 1),
        Up => move_cursor(state, items, -1),
        PageDown => move_cursor(state, items, page),
        PageUp => move_cursor(state, items, -page),
        Top => move_to_end(state, items, false),
        Bottom => move_to_end(state, items, true),
        Open => {
            if let Ok(Some(item)) = on_screen(state, items, &ctx.frame.attention_shown) {
                return Outcome::open(Modal::attention_text(item_id(item)));
            }
        }
        DismissReminder => return reminder_to_dismiss(state, ctx),
        Back => return clear_selection(ctx).or_else(Outcome::done),
        _ => return None,
    }
    Outcome::done()
}

/// The attention items name their own action and key
/// (`[a: acknowledge migration]`); only commence is offered here, and only
/// when the update plan has a step to commence.
pub fn hints(_state: &State, ctx: &ViewCtx) -> Vec<Hint> {
    let mut out = Vec::new();
    if ctx
        .derived
        .plan
        .as_ref()
        .is_some_and(|p| p.next_to_commence.is_some())
    {
        out.push(Hint::act(ActionId::CommenceStep));
    }
    out.extend([
        Hint::key(KeyAction::ViewMachines, "machines"),
        Hint::key(KeyAction::ViewLogs, "logs"),
        Hint::key(KeyAction::Command, "view"),
    ]);
    out
}
