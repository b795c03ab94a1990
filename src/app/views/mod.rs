//! The views, one module each, behind one seam. A view module holds the
//! view's state, `on_key(&mut State, KeyAction, &ViewCtx) -> Option<Outcome>`
//! and `hints(&State, &ViewCtx) -> Vec<Hint>`: the keys it handles and the
//! footer's hints for them live side by side, so they cannot disagree.
//!
//! [`ViewCtx`] is read-only (the snapshot, what is derived from it, the
//! last frame's report, the keymap, the session, the clock); [`Outcome`]
//! carries what may change outside the view (a notice, a modal to open, a
//! view to switch to, the rows selected with `space`), and only `update`
//! applies it to the model. A view never imports another view or
//! `update` (`tests/layering.rs`). Keys no view handles (quit, help, `:`,
//! the digits, the action keys) are `update`'s.
//!
//! Drawing stays in `crate::ui::<view>`: it reads the model, as every
//! frame does, and reports what it drew in the frame report.

pub mod details;
pub mod lists;
pub mod logs;
pub mod machines;
pub mod overview;
pub mod ready;
mod table_keys;
pub mod update_plan;
pub mod view;
pub mod vrouter;
pub mod wrapup;

pub use view::{TableCursor, View};

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;

use crate::app::derive::Derived;
use crate::app::frame::FrameReport;
use crate::app::logs::LogPane;
use crate::app::modal::Modal;
use crate::app::notices::NoticeLevel;
use crate::app::session::SessionInfo;
use crate::config::keymap::{KeyAction, KeyGroup, Keymap};
use crate::domain::objects::Snapshot;
use crate::domain::reminders::Reminder;

/// Every view's own state (the Logs view's is the log pane, which the
/// Overview also shows: `Model::logs`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Views {
    pub overview: overview::State,
    pub machines: machines::State,
    pub update_plan: update_plan::State,
    pub wrapup: wrapup::State,
    pub ready: ready::State,
    /// Cursor, sort and filter of each table view.
    pub cursors: BTreeMap<View, TableCursor>,
}

impl Views {
    pub fn cursor(&self, view: View) -> TableCursor {
        self.cursors.get(&view).cloned().unwrap_or_default()
    }

    pub fn cursor_mut(&mut self, view: View) -> &mut TableCursor {
        self.cursors.entry(view).or_default()
    }
}

/// The row under the cursor of `view`'s table, as `update` last settled it
/// (what the last frame drew).
pub fn selected_row<'a>(
    views: &Views,
    derived: &'a Derived,
    view: View,
) -> Option<&'a crate::app::tables::data::TableRow> {
    let t = derived.tables.get(&view)?;
    t.row(t.selected(&views.cursor(view))?)
}

/// What a view may read while it handles a key or names its hints.
pub struct ViewCtx<'a> {
    pub view: View,
    pub snapshot: &'a Snapshot,
    pub derived: &'a Derived,
    /// What the last frame drew: keys act only on what was on screen.
    pub frame: &'a FrameReport,
    pub keymap: &'a Keymap,
    pub session: &'a SessionInfo,
    pub now: Timestamp,
    /// Rows a table shows at the current terminal size (page keys).
    pub page_rows: usize,
    /// Node names selected with `space`.
    pub selected_nodes: &'a BTreeSet<String>,
    /// The migration settings this console changed (the audit log's).
    pub setting_changes: &'a [crate::domain::wrapup::SettingChange],
}

/// What a key asks for beyond the view's own state; `update` applies it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub notice: Option<(NoticeLevel, String)>,
    pub open: Option<Modal>,
    pub switch_to: Option<View>,
    /// `space`: this node joins the selection, or leaves it.
    pub toggle_node: Option<String>,
    /// Esc: the rows selected with `space` are let go.
    pub clear_selection: bool,
    /// `x`: this reminder is dismissed for the session.
    pub dismiss: Option<Reminder>,
    /// `l`: the Logs view shows the lines about these names.
    pub logs_for: Option<Vec<String>>,
}

impl Outcome {
    /// Handled inside the view: nothing beyond it changes.
    pub fn done() -> Option<Outcome> {
        Some(Outcome::default())
    }

    pub fn notice(level: NoticeLevel, text: impl Into<String>) -> Option<Outcome> {
        Some(Outcome {
            notice: Some((level, text.into())),
            ..Default::default()
        })
    }

    pub fn open(modal: Modal) -> Option<Outcome> {
        Some(Outcome {
            open: Some(modal),
            ..Default::default()
        })
    }
}

/// Esc over rows selected with `space`: lets them go, saying how many;
/// `None` when none is selected.
pub fn clear_selection(ctx: &ViewCtx) -> Option<Outcome> {
    let n = ctx.selected_nodes.len();
    if n == 0 {
        return None;
    }
    let s = if n == 1 { "" } else { "s" };
    Some(Outcome {
        clear_selection: true,
        notice: Some((NoticeLevel::Info, format!("selection cleared ({n} row{s})"))),
        ..Default::default()
    })
}

/// One hint of the footer: a key's action and what it does here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub action: KeyAction,
    pub label: Cow<'static, str>,
}

impl Hint {
    pub fn key(action: KeyAction, label: &'static str) -> Hint {
        Hint {
            action,
            label: Cow::Borrowed(label),
        }
    }

    /// An operator action's hint: its one label.
    pub fn act(id: crate::domain::action::ActionId) -> Hint {
        Hint {
            action: KeyAction::Act(id),
            label: Cow::Owned(id.hint()),
        }
    }
}

/// A key in the view on screen; `None`: the view has no use for it (and
/// `update` may handle it for every view).
pub fn on_key(
    views: &mut Views,
    log: &mut LogPane,
    action: KeyAction,
    ctx: &ViewCtx,
) -> Option<Outcome> {
    let view = ctx.view;
    match view {
        View::Overview => overview::on_key(&mut views.overview, action, ctx),
        View::Machines => {
            let cursor = views.cursors.entry(view).or_default();
            machines::on_key(&mut views.machines, cursor, action, ctx)
        }
        View::Vrouter => vrouter::on_key(views.cursor_mut(view), action, ctx),
        View::UpdatePlan => {
            let cursor = views.cursors.entry(view).or_default();
            update_plan::on_key(&mut views.update_plan, cursor, action, ctx)
        }
        View::Logs => logs::on_key(log, action, ctx),
        View::Wrapup => wrapup::on_key(&mut views.wrapup, action, ctx),
        View::Ready => ready::on_key(&mut views.ready, action, ctx),
        View::States | View::Locks | View::Requests | View::Events | View::Audit => {
            lists::on_key(views.cursor_mut(view), action, ctx)
        }
    }
}

/// The footer's hints for the view on screen, most useful first (it shows
/// as many as fit): help first, quit last, no action in a read-only session.
pub fn hints(views: &Views, log: &LogPane, ctx: &ViewCtx) -> Vec<Hint> {
    let view = ctx.view;
    let own = match view {
        View::Overview => overview::hints(&views.overview, ctx),
        View::Machines => machines::hints(&views.machines, &views.cursor(view), ctx),
        View::Vrouter => vrouter::hints(ctx),
        View::UpdatePlan => update_plan::hints(&views.update_plan, &views.cursor(view), ctx),
        View::Logs => logs::hints(log, ctx),
        View::Wrapup => wrapup::hints(&views.wrapup, ctx),
        View::Ready => ready::hints(&views.ready, ctx),
        View::States | View::Locks | View::Requests | View::Events | View::Audit => {
            lists::hints(ctx)
        }
    };
    let mut out = vec![Hint::key(KeyAction::Help, "help")];
    out.extend(own);
    out.push(Hint::key(KeyAction::Quit, "quit"));
    out.retain(|h| !(ctx.session.read_only && h.action.group() == KeyGroup::Actions));
    out
}
