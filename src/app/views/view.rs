//! What a view is called and where a table view's cursor stands: the two
//! facts about views that the model's state below them (derived tables,
//! the frame report) needs, kept apart so that it needs nothing else.

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
    /// The checks to read before an update starts.
    Ready,
    /// After the update: vRouter pods, the modes to restore, the checklist.
    Wrapup,
}

impl View {
    pub const ALL: [View; 12] = [
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
        View::Ready,
        View::Wrapup,
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
            View::Wrapup => "wrapup",
            View::Ready => "ready",
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
            View::Wrapup => "Wrap-up",
            View::Ready => "Readiness",
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
            "wrap-up" | "after" => Some(View::Wrapup),
            "readiness" | "preflight" => Some(View::Ready),
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
        !matches!(
            self,
            View::Overview | View::Logs | View::Wrapup | View::Ready
        )
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
