//! The one channel from the cluster layer to the UI: bounded, and merging a
//! burst instead of queueing it.
//!
//! A flooding cluster (an object changed thousands of times a second, a
//! re-list storm) must not grow the console's memory with events the UI has
//! not read yet. What is pending is a sequence of events from which every
//! event a later one makes pointless has been taken out, so what the
//! receiver gets is a subsequence of what was sent, and the state it builds
//! from it is the state it would have built from everything:
//!
//! - an `Applied` or `Deleted` of an object replaces the pending event of
//!   that object (the latest state wins; a `Deleted` after an `Applied`
//!   stays a `Deleted`);
//! - a `Resynced` or `KindMissing` of a kind replaces every pending event of
//!   its objects and the kind's pending list (it says what the kind holds now);
//! - `Health`, `Capped`, `ClockOffset` and `LogStatus` replace their own
//!   previous one (per kind or cluster); `Drift` counts are added up;
//! - log lines are kept in order up to [`LOG_BACKLOG`]; beyond it the oldest
//!   pending lines are dropped, and the next lines the UI gets start with a
//!   line saying how many ([`dropped_lines_note`]).
//!
//! A replacing event takes the place of the one it replaces at the end of
//! the queue. Events that replace nothing (a new object) take a place each:
//! when [`CAPACITY`] are pending, a watch waits ([`EventSender::room`])
//! before it reads more from its server, which then waits on TCP. Sending
//! itself never waits, so the cluster layer's bookkeeping stays synchronous.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;
use tokio::sync::mpsc::error::TryRecvError;

use crate::cluster::events::ClusterEvent;
use crate::domain::objects::{ClusterId, Kind, ObjectKey};

/// Events pending before a watch waits for the UI to read them.
pub const CAPACITY: usize = 4096;
/// Log lines pending before the oldest of them are dropped (a line is at
/// most `LogOptions::max_line_chars`).
pub const LOG_BACKLOG: usize = 10_000;

/// The line put before the lines that follow a gap of `n` dropped lines.
pub fn dropped_lines_note(n: u64) -> String {
    format!(
        "[mosk-console] {n} log lines dropped here: they came faster than the console could show them"
    )
}

/// A new channel: the cluster layer's sending half (clone it for each
/// task) and the UI's receiving half.
pub fn channel() -> (EventSender, EventReceiver) {
    with_merging(true)
}

/// A channel that replaces nothing: every event is received, in order (log
/// lines are still bounded, and a watch still waits when [`CAPACITY`] are
/// pending). For tests of the sequence of events the cluster layer sends
/// (a resumed watch delivers each change once), which merging would shorten.
pub fn unmerged_channel() -> (EventSender, EventReceiver) {
    with_merging(false)
}

fn with_merging(merging: bool) -> (EventSender, EventReceiver) {
    let shared = Arc::new(Shared {
        pending: Mutex::new(Pending {
            senders: 1,
            merging,
            ..Pending::default()
        }),
        ready: Notify::new(),
        room: Notify::new(),
    });
    (
        EventSender {
            shared: shared.clone(),
        },
        EventReceiver { shared },
    )
}

/// The receiver is gone: nothing sent will be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

struct Shared {
    pending: Mutex<Pending>,
    /// Wakes the receiver when an event is pending or the last sender left.
    ready: Notify,
    /// Wakes senders waiting for room.
    room: Notify,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What an event replaces: the pending event with the same slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Slot {
    Object(ObjectKey),
    List(Kind),
    Health(Kind),
    Capped(Kind),
    Drift(Kind),
    Clock(ClusterId),
    LogStatus,
}

fn slot(ev: &ClusterEvent) -> Option<Slot> {
    Some(match ev {
        ClusterEvent::Applied(o) => Slot::Object(o.key()),
        ClusterEvent::Deleted(k) => Slot::Object(k.clone()),
        ClusterEvent::Resynced { kind, .. } | ClusterEvent::KindMissing { kind, .. } => {
            Slot::List(*kind)
        }
        ClusterEvent::Health { kind, .. } => Slot::Health(*kind),
        ClusterEvent::Capped { kind, .. } => Slot::Capped(*kind),
        ClusterEvent::Drift { kind, .. } => Slot::Drift(*kind),
        ClusterEvent::ClockOffset { cluster, .. } => Slot::Clock(*cluster),
        ClusterEvent::LogStatus { .. } => Slot::LogStatus,
        ClusterEvent::LogLines { .. } => return None,
    })
}

#[derive(Default)]
struct Pending {
    /// By order of sending.
    events: BTreeMap<u64, ClusterEvent>,
    /// Where each slotted event is in `events`.
    slots: HashMap<Slot, u64>,
    /// Where the `LogLines` events are, oldest first.
    logs: VecDeque<u64>,
    log_lines: usize,
    next: u64,
    /// Lines dropped since the receiver last got lines.
    dropped_since: u64,
    stats: ChannelStats,
    senders: usize,
    /// The receiver is gone.
    closed: bool,
    /// Events replace the pending ones they make pointless.
    merging: bool,
}

/// What the channel did, for the trace log and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelStats {
    /// Events taken out because a later one replaced them.
    pub merged: u64,
    /// Log lines dropped because too many were pending.
    pub dropped_lines: u64,
    /// The most events pending at once.
    pub peak: usize,
}

impl Pending {
    fn push(&mut self, ev: ClusterEvent) {
        let seq = self.next;
        self.next += 1;
        match slot(&ev).filter(|_| self.merging) {
            Some(s) => {
                let mut ev = ev;
                if let Slot::List(kind) = s {
                    // What the kind holds now: its objects' pending events say nothing more.
                    let stale: Vec<Slot> = self
                        .slots
                        .keys()
                        .filter(|k| matches!(k, Slot::Object(o) if o.kind == kind))
                        .cloned()
                        .collect();
                    for k in stale {
                        if let Some(old) = self.slots.remove(&k) {
                            self.events.remove(&old);
                            self.stats.merged += 1;
                        }
                    }
                }
                if let Some(old) = self.slots.remove(&s)
                    && let Some(previous) = self.events.remove(&old)
                {
                    self.stats.merged += 1;
                    if let (
                        ClusterEvent::Drift { count: before, .. },
                        ClusterEvent::Drift { count, .. },
                    ) = (&previous, &mut ev)
                    {
                        *count += before;
                    }
                }
                self.slots.insert(s, seq);
                self.events.insert(seq, ev);
            }
            None => {
                let ClusterEvent::LogLines { pod, lines } = ev else {
                    self.events.insert(seq, ev);
                    self.stats.peak = self.stats.peak.max(self.events.len());
                    return;
                };
                if lines.is_empty() {
                    return;
                }
                self.log_lines += lines.len();
                // Lines of the same pod continue the last pending batch.
                let last = self.logs.back().copied();
                match last.and_then(|s| self.events.get_mut(&s)) {
                    Some(ClusterEvent::LogLines { pod: p, lines: l }) if *p == pod => {
                        l.extend(lines);
                    }
                    _ => {
                        self.logs.push_back(seq);
                        self.events
                            .insert(seq, ClusterEvent::LogLines { pod, lines });
                    }
                }
                self.drop_oldest_lines();
            }
        }
        self.stats.peak = self.stats.peak.max(self.events.len());
    }

    /// Drops the oldest pending lines beyond [`LOG_BACKLOG`].
    fn drop_oldest_lines(&mut self) {
        while self.log_lines > LOG_BACKLOG {
            let Some(&seq) = self.logs.front() else {
                return;
            };
            let Some(ClusterEvent::LogLines { lines, .. }) = self.events.get_mut(&seq) else {
                self.logs.pop_front();
                continue;
            };
            let n = (self.log_lines - LOG_BACKLOG).min(lines.len());
            lines.drain(..n);
            self.log_lines -= n;
            self.dropped_since += n as u64;
            self.stats.dropped_lines += n as u64;
            if lines.is_empty() {
                self.events.remove(&seq);
                self.logs.pop_front();
            }
        }
    }

    fn pop(&mut self) -> Option<ClusterEvent> {
        let (seq, mut ev) = self.events.pop_first()?;
        match slot(&ev) {
            Some(s) => {
                if self.slots.get(&s) == Some(&seq) {
                    self.slots.remove(&s);
                }
            }
            None => {
                self.logs.retain(|s| *s != seq);
                if let ClusterEvent::LogLines { lines, .. } = &mut ev {
                    self.log_lines -= lines.len();
                    if self.dropped_since > 0 {
                        let n = std::mem::take(&mut self.dropped_since);
                        tracing::warn!(
                            dropped = n,
                            "log lines dropped: they came faster than the console could show them"
                        );
                        lines.insert(0, dropped_lines_note(n));
                    }
                }
            }
        }
        Some(ev)
    }
}

/// The cluster layer's half. Cloned for every task that sends.
pub struct EventSender {
    shared: Arc<Shared>,
}

impl Clone for EventSender {
    fn clone(&self) -> Self {
        self.shared.lock().senders += 1;
        EventSender {
            shared: self.shared.clone(),
        }
    }
}

impl Drop for EventSender {
    fn drop(&mut self) {
        let last = {
            let mut p = self.shared.lock();
            p.senders -= 1;
            p.senders == 0
        };
        if last {
            self.shared.ready.notify_one();
        }
    }
}

impl EventSender {
    /// Queues `ev`, merging it with what is pending (see the module
    /// documentation). Never waits; `Err` when the receiver is gone.
    pub fn send(&self, ev: ClusterEvent) -> Result<(), Closed> {
        {
            let mut p = self.shared.lock();
            if p.closed {
                return Err(Closed);
            }
            p.push(ev);
        }
        self.shared.ready.notify_one();
        Ok(())
    }

    /// Waits until fewer than [`CAPACITY`] events are pending (or the
    /// receiver is gone): a watch calls it before it reads on, so that a
    /// flood waits on the wire rather than in memory.
    pub async fn room(&self) {
        loop {
            let notified = self.shared.room.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            {
                let p = self.shared.lock();
                if p.closed || p.events.len() < CAPACITY {
                    return;
                }
            }
            notified.await;
        }
    }

    /// Whether the receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.shared.lock().closed
    }
}

/// The UI's half.
pub struct EventReceiver {
    shared: Arc<Shared>,
}

impl Drop for EventReceiver {
    fn drop(&mut self) {
        {
            let mut p = self.shared.lock();
            p.closed = true;
            p.events.clear();
            p.slots.clear();
            p.logs.clear();
        }
        self.shared.room.notify_waiters();
    }
}

impl EventReceiver {
    /// The next event; `None` once every sender is gone and nothing is pending.
    /// Cancel-safe: an event is taken only when it is returned.
    pub async fn recv(&mut self) -> Option<ClusterEvent> {
        loop {
            match self.try_recv() {
                Ok(ev) => return Some(ev),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => self.shared.ready.notified().await,
            }
        }
    }

    /// The next event if one is pending.
    pub fn try_recv(&mut self) -> Result<ClusterEvent, TryRecvError> {
        let (ev, room) = {
            let mut p = self.shared.lock();
            match p.pop() {
                Some(ev) => (ev, p.events.len() < CAPACITY),
                None if p.senders == 0 => return Err(TryRecvError::Disconnected),
                None => return Err(TryRecvError::Empty),
            }
        };
        if room {
            self.shared.room.notify_waiters();
        }
        Ok(ev)
    }

    /// How many events are pending.
    pub fn len(&self) -> usize {
        self.shared.lock().events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the channel merged and dropped so far.
    pub fn stats(&self) -> ChannelStats {
        self.shared.lock().stats
    }
}

#[cfg(test)]
#[path = "channel_tests.rs"]
mod tests;
