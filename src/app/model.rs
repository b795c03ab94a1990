//! The model: everything the screen shows, and nothing else. Changed only by
//! `update`; read by `ui::draw`.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

use crate::app::actions::ActionsState;
pub use crate::app::derive::Derived;
use crate::app::derive::Pending;
use crate::app::frame::FrameReport;
use crate::app::freshness::Freshness;
use crate::app::logs::LogPane;
use crate::app::modal::ModalStack;
use crate::app::notices::Notices;
pub use crate::app::notices::{Notice, NoticeLevel};
pub use crate::app::session::SessionInfo;
use crate::app::views::ViewCtx;
pub use crate::app::views::{TableCursor, View, Views};
use crate::cluster::events::WatchHealth;
use crate::config::keymap::Keymap;
use crate::domain::history::History;
use crate::domain::objects::{ClusterId, Kind, Snapshot};
use crate::domain::reminders::Reminder;
use crate::domain::session_log::SessionLog;

/// The whole state of the console.
#[derive(Debug, Clone)]
pub struct Model {
    pub session: SessionInfo,
    pub keymap: Keymap,
    /// How long parts of the update are expected to take (config file).
    pub expected: crate::domain::expected::Expected,
    pub view: View,
    /// Every watched object, as last seen.
    pub snapshot: Snapshot,
    /// What changed and when (feeds the Events view, phase, ETA and stalls).
    pub history: History,
    /// What the screen shows that is computed from the snapshot, history and
    /// clock; brought up to date by `update` ([`crate::app::derive::settle`]).
    pub derived: Derived,
    /// The changes applied since `derived` was last settled.
    pub pending: Pending,
    /// Per-kind watch health.
    pub health: BTreeMap<Kind, WatchHealth>,
    /// Kinds whose CRD is missing, with the reason.
    pub missing_kinds: BTreeMap<Kind, String>,
    /// Kinds with more objects than the per-kind cap, and how many are not shown.
    pub over_cap: BTreeMap<Kind, crate::cluster::events::OverCap>,
    /// When the last cluster event arrived.
    pub last_event: Option<Timestamp>,
    /// Per kind: listed once yet, last confirmed, unhealthy since.
    pub freshness: Freshness,
    /// What the last frame drew (keys act only on what was on screen).
    pub frame: FrameReport,
    /// The lcm-controller log and its view state.
    pub logs: LogPane,
    /// Each view's own state: the Overview's attention cursor, the table
    /// cursors, the Machines detail pane ([`crate::app::views`]).
    pub views: Views,
    /// Help, input lines, an attention item's text and the action dialogs:
    /// the top one takes the keys ([`crate::app::modal`]).
    pub modals: ModalStack,
    /// The footer's notice and the recent ones ([`crate::app::notices`]).
    pub notices: Notices,
    /// Node names selected with `space` for actions on many nodes, per
    /// view: a selection is counted and acted on only in the view it was
    /// made in (the rows of another view may not show those nodes at all).
    /// Read the view on screen's through [`Model::selected_nodes`].
    pub selections: BTreeMap<View, BTreeSet<String>>,
    /// The time used for ages and clocks (injected, so tests are stable).
    pub now: Timestamp,
    /// When the console started.
    pub started: Timestamp,
    /// How long the console has run on this machine's monotonic clock
    /// (`Msg::RealTime`): the operator's time, for what must last real
    /// seconds (notices) whatever the cluster clock does.
    pub real_time: Duration,
    /// Rows a table can show at the current terminal size (for page up/down).
    pub page_rows: usize,
    /// Operator actions: the open dialog, RBAC answers, this session's audit
    /// records, the running plan.
    pub actions: ActionsState,
    /// Each API server's clock minus this machine's (from the `Date` of its
    /// answers). `now` is on the management API server's clock.
    pub clock_offsets: BTreeMap<ClusterId, SignedDuration>,
    /// Changes the periodic re-lists found that the watches had lost.
    pub drift_found: u64,
    pub quit: bool,
    /// Reminders the operator dismissed (`x`): gone for the session.
    pub dismissed_reminders: BTreeSet<Reminder>,
    /// Keys pressed while the terminal was too small to draw: ignored, and
    /// said so on that screen (zero again once a full frame is drawn).
    pub keys_ignored: u32,
    /// What happened over the session, for the session report (`:report`).
    pub session_log: SessionLog,
    /// The servers read on each node (`crate::app::servers`).
    pub servers: crate::app::servers_state::ServersState,
}

impl Model {
    pub fn new(session: SessionInfo, keymap: Keymap, now: Timestamp) -> Model {
        Model {
            session,
            keymap,
            expected: Default::default(),
            view: View::Overview,
            snapshot: Snapshot::default(),
            history: History::new(),
            derived: Derived::default(),
            pending: Pending::default(),
            health: BTreeMap::new(),
            missing_kinds: BTreeMap::new(),
            over_cap: BTreeMap::new(),
            last_event: None,
            freshness: Freshness::new(),
            frame: FrameReport::default(),
            logs: LogPane::default(),
            views: Views::default(),
            modals: ModalStack::default(),
            notices: Notices::default(),
            selections: BTreeMap::new(),
            now,
            started: now,
            real_time: Duration::ZERO,
            page_rows: 10,
            actions: ActionsState::default(),
            clock_offsets: BTreeMap::new(),
            drift_found: 0,
            quit: false,
            dismissed_reminders: BTreeSet::new(),
            keys_ignored: 0,
            session_log: SessionLog::new(),
            servers: Default::default(),
        }
    }

    /// `cluster`'s API server clock minus this machine's.
    pub fn clock_offset(&self, cluster: ClusterId) -> SignedDuration {
        self.clock_offsets
            .get(&cluster)
            .copied()
            .unwrap_or_default()
    }

    /// A time on this machine's clock moved to the clock the model keeps
    /// (`now`, ages, history): the management API server's, which stamps the
    /// LCM objects. Ages of what the MOSK API server stamped use
    /// [`Model::now_on`].
    pub fn server_time(&self, local: Timestamp) -> Timestamp {
        local
            .checked_add(self.clock_offset(ClusterId::Mgmt))
            .unwrap_or(local)
    }

    /// `now` on `cluster`'s API server clock: for ages of what that server
    /// stamped (the MOSK cluster's requests and pods).
    pub fn now_on(&self, cluster: ClusterId) -> Timestamp {
        let shift = self.clock_offset(cluster) - self.clock_offset(ClusterId::Mgmt);
        self.now.checked_add(shift).unwrap_or(self.now)
    }

    /// A new clock offset for `cluster`; `now` moves with the management one.
    pub fn set_clock_offset(&mut self, cluster: ClusterId, offset: SignedDuration) {
        let old = self.clock_offset(cluster);
        self.clock_offsets.insert(cluster, offset);
        if cluster == ClusterId::Mgmt
            && let Ok(now) = self.now.checked_add(offset - old)
        {
            self.now = now;
        }
    }

    /// Raises a notice in the footer (and the recent ones), stamped with
    /// the cluster clock and the operator's time.
    pub fn notify(&mut self, level: NoticeLevel, text: impl Into<String>) {
        self.notices.raise(Notice {
            text: text.into(),
            level,
            at: self.now,
            real_at: self.real_time,
        });
    }

    /// The notice the footer shows, if one is up.
    pub fn notice(&self) -> Option<Notice> {
        self.notices.current().cloned()
    }

    /// What the view on screen may read (its hints, for the footer).
    /// `update` builds the same from the model's fields while the view's
    /// own state is borrowed apart.
    pub fn view_ctx(&self) -> ViewCtx<'_> {
        ViewCtx {
            view: self.view,
            snapshot: &self.snapshot,
            derived: &self.derived,
            frame: &self.frame,
            keymap: &self.keymap,
            session: &self.session,
            now: self.now,
            page_rows: self.page_rows,
            selected_nodes: self.selected_nodes(),
            setting_changes: &self.actions.setting_changes,
        }
    }

    /// The nodes selected with `space` in the view on screen.
    pub fn selected_nodes(&self) -> &BTreeSet<String> {
        static NONE: BTreeSet<String> = BTreeSet::new();
        self.selections.get(&self.view).unwrap_or(&NONE)
    }

    /// The selection of the view on screen, to change it.
    pub fn selected_nodes_mut(&mut self) -> &mut BTreeSet<String> {
        self.selections.entry(self.view).or_default()
    }

    pub fn cursor(&self, view: View) -> TableCursor {
        self.views.cursor(view)
    }

    pub fn cursor_mut(&mut self, view: View) -> &mut TableCursor {
        self.views.cursor_mut(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_name_views() {
        assert_eq!(View::from_command(":machines"), Some(View::Machines));
        assert_eq!(View::from_command("ma"), Some(View::Machines));
        assert_eq!(View::from_command("states"), Some(View::States));
        assert_eq!(View::from_command("nwl"), Some(View::Locks));
        assert_eq!(View::from_command("l"), None, "ambiguous: locks, logs");
        assert_eq!(View::from_command("bogus"), None);
        for v in View::ALL {
            assert_eq!(View::from_command(v.command_name()), Some(v));
        }
    }
}
