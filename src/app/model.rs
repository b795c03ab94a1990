//! The model: everything the screen shows, and nothing else. Changed only by
//! `update`; read by `ui::draw`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

use crate::app::actions::ActionsState;
pub use crate::app::derive::Derived;
use crate::app::derive::Pending;
use crate::app::frame::FrameReport;
use crate::app::freshness::Freshness;
use crate::app::logs::LogPane;
use crate::app::modal::ModalStack;
use crate::cluster::connect::Transport;
use crate::cluster::events::WatchHealth;
use crate::config::keymap::Keymap;
use crate::domain::history::History;
use crate::domain::objects::{ClusterId, Kind, Snapshot};
use crate::domain::reminders::Reminder;
use crate::domain::session_log::SessionLog;

/// The views, in the order of their digit keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum View {
    Overview,
    Machines,
    States,
    Locks,
    Requests,
    Vrouter,
    Logs,
    Events,
    Audit,
    /// The ClusterUpdatePlan of the cluster: its steps, and commence.
    UpdatePlan,
}

impl View {
    pub const ALL: [View; 10] = [
        View::Overview,
        View::Machines,
        View::States,
        View::Locks,
        View::Requests,
        View::Vrouter,
        View::Logs,
        View::Events,
        View::Audit,
        View::UpdatePlan,
    ];

    /// The name typed after `:` to switch to the view.
    pub fn command_name(self) -> &'static str {
        match self {
            View::Overview => "overview",
            View::Machines => "machines",
            View::States => "states",
            View::Locks => "locks",
            View::Requests => "requests",
            View::Vrouter => "vrouter",
            View::Logs => "logs",
            View::Events => "events",
            View::Audit => "audit",
            View::UpdatePlan => "plan",
        }
    }

    /// The title shown in the tab bar.
    pub fn title(self) -> &'static str {
        match self {
            View::Overview => "Overview",
            View::Machines => "Machines",
            View::States => "Cluster states",
            View::Locks => "Locks",
            View::Requests => "Maintenance requests",
            View::Vrouter => "vRouter",
            View::Logs => "Logs",
            View::Events => "Events",
            View::Audit => "Audit",
            View::UpdatePlan => "Update plan",
        }
    }

    /// Parses a `:` command (`machines`, `:machines`, a unique prefix, or a
    /// common alias such as `nodes` or `cs`).
    pub fn from_command(cmd: &str) -> Option<View> {
        let c = cmd.trim().trim_start_matches(':').to_ascii_lowercase();
        if c.is_empty() {
            return None;
        }
        let alias = match c.as_str() {
            "nodes" | "machine" | "lcmmachines" => Some(View::Machines),
            "cs" | "clusterstates" | "lcmclusterstates" => Some(View::States),
            "nwl" | "cwl" | "lock" => Some(View::Locks),
            "nmr" | "cmr" | "request" | "maintenance" => Some(View::Requests),
            "log" => Some(View::Logs),
            "tf" | "vr" => Some(View::Vrouter),
            "updateplan" | "update-plan" | "cup" | "clusterupdateplan" | "clusterupdateplans" => {
                Some(View::UpdatePlan)
            }
            _ => None,
        };
        if alias.is_some() {
            return alias;
        }
        let matches: Vec<View> = View::ALL
            .into_iter()
            .filter(|v| v.command_name().starts_with(&c))
            .collect();
        match matches.as_slice() {
            [one] => Some(*one),
            _ => View::ALL.into_iter().find(|v| v.command_name() == c),
        }
    }

    /// Whether the view is a table that `/` filters and j/k move in.
    pub fn is_table(self) -> bool {
        !matches!(self, View::Overview | View::Logs)
    }
}

/// Where the cursor is in one table, remembered per view.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableCursor {
    /// The id of the selected row (stable across updates).
    pub selected_id: Option<String>,
    /// The selected index, used when the id disappears.
    pub selected: usize,
    /// Sort column index and direction.
    pub sort_column: usize,
    pub sort_reverse: bool,
    /// The applied filter (matches any text of a row).
    pub filter: String,
    /// Rows are grouped by this column first (the Machines view's group-by
    /// update group), then sorted by `sort_column` within each group.
    pub group_column: Option<usize>,
}

/// A short message in the footer.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub text: String,
    pub level: NoticeLevel,
    pub at: Timestamp,
    /// When it was raised, in the operator's time ([`Model::real_time`]):
    /// it leaves the footer after real seconds, not simulated ones.
    pub real_at: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// Fixed facts about this session, shown in the status bar.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub mgmt_context: String,
    pub mosk_context: String,
    /// The MOSK cluster's project namespace in the management cluster.
    pub namespace: String,
    pub cluster_name: String,
    pub read_only: bool,
    pub dry_run: bool,
    /// Set in demo mode: the scenario name.
    pub demo: Option<String>,
    /// In demo mode: how many simulated seconds pass per real second.
    pub demo_speed: Option<f64>,
    /// How each cluster's connection is protected (badges, audit records).
    pub mgmt_transport: Transport,
    pub mosk_transport: Transport,
}

impl SessionInfo {
    /// The connection to `cluster`.
    pub fn transport(&self, cluster: crate::domain::objects::ClusterId) -> Transport {
        match cluster {
            crate::domain::objects::ClusterId::Mgmt => self.mgmt_transport,
            crate::domain::objects::ClusterId::Mosk => self.mosk_transport,
        }
    }
}

impl Default for SessionInfo {
    fn default() -> Self {
        SessionInfo {
            mgmt_context: "mgmt".into(),
            mosk_context: "mosk".into(),
            namespace: "child-ns".into(),
            cluster_name: "child-cl".into(),
            read_only: false,
            dry_run: false,
            demo: None,
            demo_speed: None,
            mgmt_transport: Transport::Verified,
            mosk_transport: Transport::Verified,
        }
    }
}

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
    /// Cursor, sort and filter of each table view.
    pub cursors: BTreeMap<View, TableCursor>,
    /// Whether the Machines view shows the detail panel of the selected row.
    /// A split view, not a modal (see [`crate::app::modal`]).
    pub detail_open: bool,
    /// Help, input lines, an attention item's text and the action dialogs:
    /// the top one takes the keys ([`crate::app::modal`]).
    pub modals: ModalStack,
    pub notice: Option<Notice>,
    /// Node names selected with `space` for actions on many nodes.
    pub selected_nodes: BTreeSet<String>,
    /// The time used for ages and clocks (injected, so tests are stable).
    pub now: Timestamp,
    /// When the console started.
    pub started: Timestamp,
    /// How long the console has run on this machine's monotonic clock
    /// (`Msg::RealTime`): the operator's time, for what must last real
    /// seconds (notices) whatever the cluster clock does.
    pub real_time: Duration,
    /// Recent notices, newest last (bounded).
    pub notices: VecDeque<Notice>,
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
    /// The attention item under the Overview's cursor (its
    /// [`crate::app::attention_cursor::item_id`]); `None`: the first item.
    pub attention_selected: Option<String>,
    /// Keys pressed while the terminal was too small to draw: ignored, and
    /// said so on that screen (zero again once a full frame is drawn).
    pub keys_ignored: u32,
    /// What happened over the session, for the session report (`:report`).
    pub session_log: SessionLog,
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
            cursors: BTreeMap::new(),
            detail_open: false,
            modals: ModalStack::default(),
            notice: None,
            selected_nodes: BTreeSet::new(),
            now,
            started: now,
            real_time: Duration::ZERO,
            notices: VecDeque::new(),
            page_rows: 10,
            actions: ActionsState::default(),
            clock_offsets: BTreeMap::new(),
            drift_found: 0,
            quit: false,
            dismissed_reminders: BTreeSet::new(),
            attention_selected: None,
            keys_ignored: 0,
            session_log: SessionLog::new(),
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

    pub fn cursor(&self, view: View) -> TableCursor {
        self.cursors.get(&view).cloned().unwrap_or_default()
    }

    pub fn cursor_mut(&mut self, view: View) -> &mut TableCursor {
        self.cursors.entry(view).or_default()
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
