//! The health of one watch, reported as [`ClusterEvent::Health`] when it changes.

use std::time::Duration;

use jiff::Timestamp;
use tokio::time::Instant;

use crate::cluster::channel::EventSender;
use crate::cluster::events::{ClusterEvent, WatchHealth, WatchProblem};
use crate::domain::objects::Kind;

/// How often a healthy watch re-reports its `last_event`.
pub const HEALTH_REFRESH: Duration = Duration::from_secs(5);

/// Sends [`ClusterEvent::Health`] when a watch's health changes, and at most
/// every [`HEALTH_REFRESH`] otherwise (to move `last_event` on).
pub(super) struct HealthReport {
    kind: Kind,
    tx: EventSender,
    connected: bool,
    last_error: Option<String>,
    problem: WatchProblem,
    last_event: Option<Timestamp>,
    retry_at: Option<Timestamp>,
    last_sent: Option<Instant>,
}

impl HealthReport {
    pub(super) fn new(kind: Kind, tx: EventSender) -> Self {
        HealthReport {
            kind,
            tx,
            connected: false,
            last_error: None,
            problem: WatchProblem::Failing,
            last_event: None,
            retry_at: None,
            last_sent: None,
        }
    }

    /// An event arrived, or a list succeeded: the watch is confirmed healthy
    /// now. Returns false when the receiver is gone.
    pub(super) fn ok(&mut self) -> bool {
        let changed = !self.connected || self.last_error.is_some() || self.retry_at.is_some();
        let stale = self.last_sent.is_none_or(|t| t.elapsed() >= HEALTH_REFRESH);
        self.connected = true;
        self.last_error = None;
        self.retry_at = None;
        self.last_event = Some(Timestamp::now());
        if changed || stale {
            return self.send();
        }
        true
    }

    /// A retry has gone without errors for a while (a resumed watch yields
    /// nothing until something changes). Returns false when the receiver is gone.
    pub(super) fn recovered(&mut self) -> bool {
        if self.connected {
            return true;
        }
        self.connected = true;
        self.last_error = None;
        self.retry_at = None;
        self.send()
    }

    /// An error happened; the next attempt starts after `retry_in`. Returns
    /// false when the receiver is gone.
    pub(super) fn error(
        &mut self,
        text: String,
        problem: WatchProblem,
        retry_in: Duration,
    ) -> bool {
        self.connected = false;
        self.last_error = Some(text);
        self.problem = problem;
        // Sent on every error, so that "retrying in 8 s" counts down to the right attempt.
        self.retry_at = Timestamp::now().checked_add(retry_in).ok();
        self.send()
    }

    fn send(&mut self) -> bool {
        self.last_sent = Some(Instant::now());
        let health = WatchHealth {
            cluster: self.kind.cluster(),
            connected: self.connected,
            last_event: self.last_event,
            last_error: self.last_error.clone(),
            retry_at: self.retry_at,
            problem: self.problem,
        };
        self.tx
            .send(ClusterEvent::Health {
                kind: self.kind,
                health,
            })
            .is_ok()
    }
}
