//! Messages: everything that can change the model. Keys, terminal resizes,
//! clock ticks and cluster events all arrive as one of these.

use std::time::Duration;

use crossterm::event::KeyEvent;
use jiff::Timestamp;

use crate::app::frame::FrameReport;
use crate::app::report::document::Report;
use crate::cluster::events::ClusterEvent;
use crate::cluster::openstack::{CliError, ServersRead};
use crate::cluster::writes::WriteEvent;
use crate::domain::action::access::AccessKey;
use crate::domain::action::plan::ActionPlan;
use crate::domain::which_cluster::ClusterRef;

// Messages are moved through a channel and consumed at once, never stored in
// bulk, so boxing the large cluster events would only add an allocation each.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// A key press (release and repeat events are dropped before this).
    Key(KeyEvent),
    /// Pasted text (bracketed paste), for the input lines.
    Paste(String),
    /// The terminal was resized.
    Resize { width: u16, height: u16 },
    /// The slow clock tick: ages and clocks on screen move on.
    Tick(Timestamp),
    /// The operator's time: how long the console has run, on this
    /// machine's monotonic clock (not the cluster's, which a demo runs
    /// faster). The runtime sends it before every batch and tick; notices
    /// live in it.
    RealTime(Duration),
    /// Something the cluster layer observed.
    Cluster(ClusterEvent),
    /// A report from the action executor (RBAC answers, audit records, progress).
    Action(WriteEvent),
    /// A frame was drawn (sent by the runtime after each draw): what keys
    /// may act on.
    Drawn(FrameReport),
    /// The session report was written (its path), or why not.
    ReportWritten(Result<std::path::PathBuf, String>),
    /// The audit log's node writes of earlier sessions, read back when the
    /// console starts (the wrap-up's migration modes).
    AuditReadBack(crate::audit::ReadBack),
    /// A read of the servers on `node` asked at `asked` came back.
    ServersRead {
        node: String,
        asked: Timestamp,
        result: Result<ServersRead, CliError>,
    },
}

/// What `update` asks the runtime to do. `update` itself does no I/O.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Leave the console (the runtime restores the terminal).
    Quit,
    /// Execute a confirmed plan (the executor writes the audit log and sends).
    Execute(ActionPlan),
    /// Ask the server (SelfSubjectAccessReview) whether these are allowed.
    CheckAccess(Vec<AccessKey>),
    /// Stop the running plan before its next object.
    CancelRun,
    /// Write the session report to the state directory (`:report`).
    WriteReport(Report),
    /// Start watching the cluster the operator chose in the cluster
    /// picker (the runtime starts the cluster layer's watchers for it).
    FollowCluster(ClusterRef),
    /// Read the servers on `node` through the OpenStack CLI in the
    /// `keystone-client` pod; the answer comes back as `Msg::ServersRead`.
    ReadServers { node: String, asked: Timestamp },
}
