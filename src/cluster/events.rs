//! What the cluster layer tells the rest of the console. Every string inside
//! has been sanitized already.

use jiff::{SignedDuration, Timestamp};

use crate::domain::objects::{ClusterId, Kind, Object, ObjectKey};

/// One thing the cluster layer observed.
// Events are moved through a channel and consumed at once, never stored in
// bulk (as `Msg`), so boxing the object of `Applied` would only add an
// allocation per watch event.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum ClusterEvent {
    /// An object was added or changed.
    Applied(Object),
    /// An object was deleted.
    Deleted(ObjectKey),
    /// A (re-)list finished: these are now all the objects of `kind`.
    Resynced { kind: Kind, objects: Vec<Object> },
    /// The health of the watch on `kind` changed.
    Health { kind: Kind, health: WatchHealth },
    /// The kind's CRD is not installed (or not served) on its cluster.
    KindMissing { kind: Kind, message: String },
    /// New lines from the lcm-controller log, in order, without duplicates.
    LogLines { pod: String, lines: Vec<String> },
    /// The log follower's state changed (connected to pod X, reconnecting, no pod, …).
    LogStatus { message: String },
    /// A periodic re-list of `kind` found `count` objects that differed from
    /// what the watch had delivered (a change lost on the wire); the
    /// differences were sent as `Applied`/`Deleted` just before this.
    Drift { kind: Kind, count: usize },
    /// The kind has more objects than the console holds per kind
    /// (`WatchOptions::max_objects`). Sent when the count changes;
    /// `not_shown == 0` says the cap is no longer reached.
    Capped { kind: Kind, over: OverCap },
    /// How far `cluster`'s API server clock is from this machine's
    /// (`server - local`, positive: the server is ahead), estimated from the
    /// `Date` of its answers; sent when it changes by a second or more.
    ClockOffset {
        cluster: ClusterId,
        offset: SignedDuration,
    },
}

/// How many objects of a kind are over the per-kind cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverCap {
    pub cap: usize,
    pub not_shown: usize,
    /// More may be over: the count stopped at the cap.
    pub at_least: bool,
}

impl OverCap {
    /// `Node: 20000-object cap reached, 31 not shown`.
    pub fn warning(&self, kind: Kind) -> String {
        format!(
            "{}: {}-object cap reached, {}{} not shown",
            kind.api_kind(),
            self.cap,
            if self.at_least { "at least " } else { "" },
            self.not_shown
        )
    }
}

/// The state of one watch.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchHealth {
    pub cluster: ClusterId,
    pub connected: bool,
    /// When the last event (of any type) arrived on this watch, or the last
    /// list succeeded. Like `retry_at`, on this machine's clock as sent; the
    /// model moves both to the API server's clock.
    pub last_event: Option<Timestamp>,
    /// The last error seen, if the watch is degraded.
    pub last_error: Option<String>,
    /// While disconnected: when the next retry starts (wall clock), so a pane
    /// can say "retrying in 8 s".
    pub retry_at: Option<Timestamp>,
    /// What the last error was, so that a refusal is not called unreachable.
    pub problem: WatchProblem,
}

/// What kind of failure a watch's last error was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WatchProblem {
    /// No answer, a broken stream, a 5xx: the server may be unreachable.
    #[default]
    Failing,
    /// The server answered 401 or 403: it is reachable and refuses this
    /// user (`last_error` says who may not do what).
    Refused,
}
