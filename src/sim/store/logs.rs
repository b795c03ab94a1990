//! Pod logs: clock-stamped lines per container, with live followers.

use std::collections::VecDeque;
use std::sync::Arc;

use jiff::Timestamp;
use tokio::sync::broadcast;

use super::{Store, StoreEvent};

/// Lines kept per container.
const MAX_LINES: usize = 10_000;

/// One log line and when it was written (simulated time).
#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    pub ts: Timestamp,
    pub line: String,
}

/// A log line as broadcast to followers.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRecord {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    pub line: LogLine,
}

/// What a follower starts from: the lines so far, then new lines and object
/// events (to notice the pod going away), subscribed atomically.
#[derive(Debug)]
pub struct LogFollow {
    pub backlog: Vec<LogLine>,
    pub lines: broadcast::Receiver<Arc<LogRecord>>,
    pub events: broadcast::Receiver<Arc<StoreEvent>>,
}

impl Store {
    /// Appends a line (split on newlines) to a container's log, stamped with
    /// the clock; followers see it at once. The pod need not exist yet.
    pub fn append_log(&self, ns: &str, pod: &str, container: &str, line: &str) {
        let ts = self.clock.now();
        let mut inner = self.lock();
        let buf = inner
            .logs
            .entry((ns.to_string(), pod.to_string(), container.to_string()))
            .or_default();
        for part in line.split('\n') {
            let l = LogLine {
                ts,
                line: part.trim_end_matches('\r').to_string(),
            };
            if buf.len() >= MAX_LINES {
                buf.pop_front();
            }
            buf.push_back(l.clone());
            let _ = self.log_tx.send(Arc::new(LogRecord {
                namespace: ns.to_string(),
                pod: pod.to_string(),
                container: container.to_string(),
                line: l,
            }));
        }
    }

    /// The lines of one container so far.
    pub fn logs(&self, ns: &str, pod: &str, container: &str) -> Vec<LogLine> {
        self.lock()
            .logs
            .get(&(ns.to_string(), pod.to_string(), container.to_string()))
            .map(|b| b.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The containers that have logged something for a pod.
    pub fn log_containers(&self, ns: &str, pod: &str) -> Vec<String> {
        let inner = self.lock();
        let mut out: Vec<String> = inner
            .logs
            .keys()
            .filter(|(n, p, _)| n == ns && p == pod)
            .map(|(_, _, c)| c.clone())
            .collect();
        out.sort();
        out
    }

    /// The lines so far plus live subscriptions, taken together so no line is lost.
    pub fn follow_logs(&self, ns: &str, pod: &str, container: &str) -> LogFollow {
        let inner = self.lock();
        let backlog = inner
            .logs
            .get(&(ns.to_string(), pod.to_string(), container.to_string()))
            .map(|b: &VecDeque<LogLine>| b.iter().cloned().collect())
            .unwrap_or_default();
        LogFollow {
            backlog,
            lines: self.log_tx.subscribe(),
            events: self.events.subscribe(),
        }
    }
}
