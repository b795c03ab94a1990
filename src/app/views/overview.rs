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
use crate::domain::attention::{AttentionItem, AttentionKind, Cause};

/// The Overview's own state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    /// The attention item under the cursor (its [`AttentionItem::id`]);
    /// `None`: the first item.
    pub selected: Option<String>,
    /// Where the selected item stood in the queue and how the screen named
    /// it, when the queue last held it ([`follow`]): once it has left the
    /// queue, the cursor stays there and says which item cleared.
    pub last_seen: Option<(usize, String)>,
}

/// Where the cursor is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cursor<'a> {
    /// The queue is empty.
    Empty,
    /// On the item at this index.
    On(usize, &'a AttentionItem),
    /// The item the operator put the cursor on has left the queue: no key
    /// acts until the cursor is moved (`name` says which item it was; `at`
    /// is where it stood).
    Gone { name: &'a str, at: usize },
}

/// How the screen names an item the cursor was on: `subject (kind)`.
fn name(item: &AttentionItem) -> String {
    format!("{} ({})", item.subject, item.kind.label())
}

/// Where the cursor is in `items`.
pub fn cursor<'a>(state: &'a State, items: &'a [AttentionItem]) -> Cursor<'a> {
    let Some(id) = state.selected.as_deref() else {
        return match items.first() {
            Some(first) => Cursor::On(0, first),
            None => Cursor::Empty,
        };
    };
    if let Some(i) = items.iter().position(|i| i.id() == id) {
        return Cursor::On(i, &items[i]);
    }
    match &state.last_seen {
        Some((at, name)) => Cursor::Gone { name, at: *at },
        None => Cursor::Gone { name: id, at: 0 },
    }
}

/// Called by `update` each time the queue is settled: remembers where the
/// item under the cursor stands, for when it leaves the queue.
pub fn follow(state: &mut State, items: &[AttentionItem]) {
    if let Cursor::On(i, item) = cursor(state, items)
        && state.selected.is_some()
        && state
            .last_seen
            .as_ref()
            .is_none_or(|(at, n)| *at != i || *n != name(item))
    {
        state.last_seen = Some((i, name(item)));
    }
}

/// The index of the item under the cursor; `None` when the queue is empty
/// or the item has left it.
pub fn selected_index(state: &State, items: &[AttentionItem]) -> Option<usize> {
    match cursor(state, items) {
        Cursor::On(i, _) => Some(i),
        _ => None,
    }
}

/// The item under the cursor, if the queue has it.
pub fn selected_item<'a>(state: &State, items: &'a [AttentionItem]) -> Option<&'a AttentionItem> {
    selected_index(state, items).map(|i| &items[i])
}

/// The item under the cursor if the last frame drew it; `Err` with the
/// reason when it is not on screen or has left the queue; `Ok(None)` when
/// the queue is empty.
pub fn on_screen<'a>(
    state: &'a State,
    items: &'a [AttentionItem],
    shown: &[String],
) -> Result<Option<&'a AttentionItem>, String> {
    let item = match cursor(state, items) {
        Cursor::Empty => return Ok(None),
        Cursor::Gone { name, .. } => {
            return Err(format!(
                "the attention item under the cursor ({name}) has cleared: move the cursor (j/k) to the item you mean"
            ));
        }
        Cursor::On(_, item) => item,
    };
    if shown.contains(&item.id()) {
        Ok(Some(item))
    } else {
        Err(format!(
            "the attention item under the cursor ({}) is not on screen: enlarge the terminal or move the cursor (j/k)",
            item.subject
        ))
    }
}

fn select(state: &mut State, items: &[AttentionItem], at: usize) {
    let item = &items[at];
    state.selected = Some(item.id());
    state.last_seen = Some((at, name(item)));
}

fn move_cursor(state: &mut State, items: &[AttentionItem], delta: isize) {
    let next = match cursor(state, items) {
        Cursor::Empty => return,
        Cursor::On(at, _) => at as isize + delta,
        // The items after the one that cleared moved up into its place:
        // down lands on the one now there, up on the one before it.
        Cursor::Gone { at, .. } if delta > 0 => at as isize + delta - 1,
        Cursor::Gone { at, .. } => at as isize + delta,
    };
    select(
        state,
        items,
        next.clamp(0, items.len() as isize - 1) as usize,
    );
}

fn move_to_end(state: &mut State, items: &[AttentionItem], bottom: bool) {
    if !items.is_empty() {
        select(state, items, if bottom { items.len() - 1 } else { 0 });
    }
}

/// `x`: the reminder under the cursor, drawn by the last frame; with the
/// cursor on anything else it dismisses nothing (a key acts on the item
/// under the cursor, never on another).
fn reminder_to_dismiss(state: &State, ctx: &ViewCtx) -> Option<Outcome> {
    let items = &ctx.derived.attention;
    match on_screen(state, items, &ctx.frame.attention_shown) {
        Ok(Some(AttentionItem {
            kind: AttentionKind::Reminder(r),
            ..
        })) => Some(Outcome {
            dismiss: Some(*r),
            ..Default::default()
        }),
        Ok(Some(item)) => Outcome::notice(
            NoticeLevel::Info,
            format!(
                "x dismisses the reminder under the cursor; {} is not a reminder: move the cursor (j/k) to one",
                name(item)
            ),
        ),
        Ok(None) => Outcome::notice(NoticeLevel::Info, "no reminder to dismiss"),
        Err(why) => Outcome::notice(NoticeLevel::Info, why),
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
        Open => match on_screen(state, items, &ctx.frame.attention_shown) {
            Ok(Some(item)) => return Outcome::open(Modal::attention_text(item.id())),
            Ok(None) => {}
            Err(why) => return Outcome::notice(NoticeLevel::Info, why),
        },
        DismissReminder => {
            let outcome = reminder_to_dismiss(state, ctx);
            // The dismissed reminder leaves the queue by the operator's own
            // key: the cursor goes to its neighbour, not to "cleared".
            if outcome.as_ref().is_some_and(|o| o.dismiss.is_some())
                && let Cursor::On(at, _) = cursor(state, items)
            {
                let next = if at + 1 < items.len() {
                    Some(at + 1)
                } else {
                    at.checked_sub(1)
                };
                match next {
                    Some(n) => {
                        select(state, items, n);
                        // It slides into the dismissed one's place.
                        state.last_seen = state.last_seen.take().map(|(_, name)| (at.min(n), name));
                    }
                    None => *state = State::default(),
                }
            }
            return outcome;
        }
        Back => return clear_selection(ctx).or_else(Outcome::done),
        _ => return None,
    }
    Outcome::done()
}

/// The hint an item shows beside its action when it is about the servers
/// on its node (its cause is the servers, [`AttentionKind::cause`]: a
/// manual migration, a failing one, servers left, owners to notify): `o`
/// opens that node's servers from the item (`actions::node_under_cursor`).
/// Not on an item of a lock, a request or the cluster, nor on a node's
/// other causes, where the servers are not what waits.
pub fn servers_hint(item: &AttentionItem) -> Option<Hint> {
    (item.kind.cause() == Cause::OfNode("servers") && item.node.is_some())
        .then(|| Hint::key(KeyAction::Servers, "servers"))
}

/// The attention items name their own action and key
/// (`[a: acknowledge migration]`, and [`servers_hint`]); only commence is offered here, and only
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
    // Before an update, its readiness checks are the Overview's news.
    if ctx.derived.no_update_runs() {
        out.push(Hint::key(KeyAction::ViewReady, "readiness"));
    }
    out.extend([
        Hint::key(KeyAction::Servers, "servers"),
        Hint::key(KeyAction::ViewMachines, "machines"),
        Hint::key(KeyAction::ViewLogs, "logs"),
        Hint::key(KeyAction::Command, "view"),
    ]);
    out
}
