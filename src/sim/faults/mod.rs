//! Faults a test or the demo can inject into the API server at run time:
//! dropped watch streams, forced 410 Gone, bursts of 5xx answers, latency,
//! an outage, closed log streams, watch events cut short on the wire, reads
//! of a kind refused (403) and a kind whose CRD disappears and comes back.
//! It also keeps the last requests it received ([`Faults::seen`]: who sent
//! them, with which field manager) so that tests can assert on them.
//!
//! [`Faults`] are the switches one API server reads; [`spec::FaultPlan`] is
//! the `--faults SPEC` of `sim serve` (the same plan in-process, through
//! [`crate::sim::world::SimWorld::set_fault_plan`]); [`schedule`] flips the
//! switches as the simulated clock passes the plan's times; [`service`] is the
//! in-process equivalent of a refused connection.

pub mod schedule;
pub mod service;
pub mod spec;

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::watch;

/// How many faults of each sort were injected so far (for soak reports).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultCounts {
    /// Times every open watch was closed.
    pub watch_drops: u64,
    /// Requests answered with an injected 5xx.
    pub injected_5xx: u64,
    /// Watches answered with 410 Gone (forced or expired by a fault).
    pub gone: u64,
    /// Connections or requests cut during an outage.
    pub refused: u64,
    /// Outages begun.
    pub outages: u64,
    /// Times every followed log stream was closed.
    pub log_closes: u64,
    /// Watch events cut short on the wire.
    pub truncated_events: u64,
}

/// Run-time fault switches, shared as `Arc<Faults>` between the server and its driver.
#[derive(Debug)]
pub struct Faults {
    drop_gen: watch::Sender<u64>,
    fail_count: AtomicU32,
    fail_code: AtomicU16,
    latency: Mutex<Duration>,
    expire_before: AtomicU64,
    force_410: AtomicU32,
    outage: AtomicBool,
    logs_gen: watch::Sender<u64>,
    /// Pending truncations, each for one resource (plural) or any (`None`).
    truncations: Mutex<Vec<Option<String>>>,
    counts: Mutex<FaultCounts>,
    /// Resources (plurals) whose get, list and watch are answered 403.
    forbidden: Mutex<Vec<String>>,
    /// Resources (plurals) served as if their CRD had been deleted.
    hidden: Mutex<Vec<String>>,
    /// The last [`SEEN_KEPT`] requests received.
    seen: Mutex<VecDeque<SeenRequest>>,
}

/// How many requests [`Faults::seen`] keeps.
pub const SEEN_KEPT: usize = 4096;

/// One request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenRequest {
    pub method: String,
    pub path: String,
    /// The `User-Agent` header, empty when absent.
    pub user_agent: String,
    /// The `fieldManager` query parameter, if any.
    pub field_manager: Option<String>,
}

impl Default for Faults {
    fn default() -> Self {
        Faults::new()
    }
}

impl Faults {
    /// No faults.
    pub fn new() -> Faults {
        Faults {
            drop_gen: watch::channel(0).0,
            fail_count: AtomicU32::new(0),
            fail_code: AtomicU16::new(500),
            latency: Mutex::new(Duration::ZERO),
            expire_before: AtomicU64::new(0),
            force_410: AtomicU32::new(0),
            outage: AtomicBool::new(false),
            logs_gen: watch::channel(0).0,
            truncations: Mutex::new(Vec::new()),
            counts: Mutex::new(FaultCounts::default()),
            forbidden: Mutex::new(Vec::new()),
            hidden: Mutex::new(Vec::new()),
            seen: Mutex::new(VecDeque::new()),
        }
    }

    fn count(&self, f: impl FnOnce(&mut FaultCounts)) {
        f(&mut self.counts.lock().unwrap_or_else(|p| p.into_inner()));
    }

    /// The faults injected so far.
    pub fn counts(&self) -> FaultCounts {
        *self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts or ends an outage. While it lasts, new connections are closed
    /// at once and every request fails without an answer; starting one
    /// also cuts every open watch and log stream.
    pub fn set_outage(&self, on: bool) {
        let was = self.outage.swap(on, Ordering::SeqCst);
        if on && !was {
            self.count(|c| c.outages += 1);
            self.drop_gen.send_modify(|g| *g += 1);
            self.logs_gen.send_modify(|g| *g += 1);
        }
    }

    /// Whether an outage is on.
    pub fn in_outage(&self) -> bool {
        self.outage.load(Ordering::SeqCst)
    }

    /// Counts one connection or request cut by the outage.
    pub fn count_refused(&self) {
        self.count(|c| c.refused += 1);
    }

    /// Counts one 410 Gone answered to a watch.
    pub fn count_gone(&self) {
        self.count(|c| c.gone += 1);
    }

    /// Closes every followed log stream now (clients reconnect).
    pub fn close_logs(&self) {
        self.count(|c| c.log_closes += 1);
        self.logs_gen.send_modify(|g| *g += 1);
    }

    /// A receiver that changes whenever log streams are to be closed.
    pub fn log_close_signal(&self) -> watch::Receiver<u64> {
        self.logs_gen.subscribe()
    }

    /// The next MODIFIED watch event of `plural` (any resource: `None`) is
    /// cut short on the wire.
    pub fn truncate_next_event(&self, plural: Option<&str>) {
        self.truncations
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(plural.map(str::to_string));
    }

    /// Takes one pending truncation that applies to `plural`.
    pub fn take_truncation(&self, plural: &str) -> bool {
        let mut t = self.truncations.lock().unwrap_or_else(|p| p.into_inner());
        let Some(i) = t
            .iter()
            .position(|p| p.as_deref().is_none_or(|p| p == plural))
        else {
            return false;
        };
        t.remove(i);
        drop(t);
        self.count(|c| c.truncated_events += 1);
        true
    }

    /// Closes every open watch stream now (clients resume from their last version).
    pub fn drop_watches(&self) {
        self.count(|c| c.watch_drops += 1);
        self.drop_gen.send_modify(|g| *g += 1);
    }

    /// A receiver that changes whenever [`Faults::drop_watches`] is called.
    pub fn drop_signal(&self) -> watch::Receiver<u64> {
        self.drop_gen.subscribe()
    }

    /// The next `n` requests fail with HTTP `code` (a 5xx is expected).
    pub fn fail_next(&self, n: u32, code: u16) {
        self.fail_code.store(code, Ordering::SeqCst);
        self.fail_count.store(n, Ordering::SeqCst);
    }

    /// Takes one pending failure, if any: the code to answer with.
    pub fn take_failure(&self) -> Option<u16> {
        let code = self
            .fail_count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .ok()
            .map(|_| self.fail_code.load(Ordering::SeqCst));
        if code.is_some() {
            self.count(|c| c.injected_5xx += 1);
        }
        code
    }

    /// Delay added before every answer.
    pub fn latency(&self, d: Duration) {
        *self.latency.lock().unwrap_or_else(|p| p.into_inner()) = d;
    }

    /// The current added delay.
    pub fn current_latency(&self) -> Duration {
        *self.latency.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Watches (and exact lists) from a resource version below `rv` get 410 Gone,
    /// as if the window had been compacted up to `rv`.
    pub fn expire_before(&self, rv: u64) {
        self.expire_before.store(rv, Ordering::SeqCst);
    }

    /// Whether `rv` counts as expired by [`Faults::expire_before`].
    pub fn is_expired(&self, rv: u64) -> bool {
        rv < self.expire_before.load(Ordering::SeqCst)
    }

    /// The next watch (of any resource) is answered with a 410 ERROR event.
    pub fn force_410_next_watch(&self) {
        self.force_410.fetch_add(1, Ordering::SeqCst);
    }

    /// Refuses (403, the server's Forbidden message for its user) or allows
    /// again get, list and watch of the resource `plural`, as an RBAC change
    /// on a real server would.
    pub fn forbid_reads(&self, plural: &str, on: bool) {
        set_member(&self.forbidden, plural, on);
    }

    /// Whether reads of `plural` are refused.
    pub fn reads_forbidden(&self, plural: &str) -> bool {
        lock(&self.forbidden).iter().any(|p| p == plural)
    }

    /// Serves `plural` as if its CRD were deleted (`on`) or installed again:
    /// discovery leaves it out, and every request for it gets a real server's
    /// `404 page not found` (text, not a Status).
    pub fn hide_kind(&self, plural: &str, on: bool) {
        set_member(&self.hidden, plural, on);
    }

    /// Whether `plural` is hidden.
    pub fn kind_hidden(&self, plural: &str) -> bool {
        lock(&self.hidden).iter().any(|p| p == plural)
    }

    /// Notes one request received (the oldest beyond [`SEEN_KEPT`] is forgotten).
    pub fn note_request(&self, req: SeenRequest) {
        let mut seen = lock(&self.seen);
        if seen.len() >= SEEN_KEPT {
            seen.pop_front();
        }
        seen.push_back(req);
    }

    /// The requests received, oldest first (at most [`SEEN_KEPT`]).
    pub fn seen(&self) -> Vec<SeenRequest> {
        lock(&self.seen).iter().cloned().collect()
    }

    /// Takes one pending forced 410.
    pub fn take_forced_410(&self) -> bool {
        self.force_410
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn set_member(set: &Mutex<Vec<String>>, plural: &str, on: bool) {
    let mut v = lock(set);
    v.retain(|p| p != plural);
    if on {
        v.push(plural.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_and_forced_410_are_counted_down() {
        let f = Faults::new();
        assert_eq!(f.take_failure(), None);
        f.fail_next(2, 503);
        assert_eq!(f.take_failure(), Some(503));
        assert_eq!(f.take_failure(), Some(503));
        assert_eq!(f.take_failure(), None);
        f.force_410_next_watch();
        assert!(f.take_forced_410());
        assert!(!f.take_forced_410());
        f.expire_before(10);
        assert!(f.is_expired(9));
        assert!(!f.is_expired(10));
        assert_eq!(f.counts().injected_5xx, 2);
    }

    #[test]
    fn truncations_apply_to_their_resource_once() {
        let f = Faults::new();
        f.truncate_next_event(Some("nodes"));
        f.truncate_next_event(None);
        assert!(f.take_truncation("pods"));
        assert!(!f.take_truncation("pods"));
        assert!(f.take_truncation("nodes"));
        assert!(!f.take_truncation("nodes"));
        assert_eq!(f.counts().truncated_events, 2);
    }

    #[test]
    fn an_outage_cuts_watches_and_logs_once() {
        let f = Faults::new();
        let (w, l) = (f.drop_signal(), f.log_close_signal());
        f.set_outage(true);
        f.set_outage(true);
        assert!(f.in_outage());
        assert!(w.has_changed().unwrap() && l.has_changed().unwrap());
        f.set_outage(false);
        assert!(!f.in_outage());
        assert_eq!(f.counts().outages, 1);
    }

    #[test]
    fn drop_watches_signals_receivers() {
        let f = Faults::new();
        let rx = f.drop_signal();
        assert!(!rx.has_changed().unwrap());
        f.drop_watches();
        assert!(rx.has_changed().unwrap());
    }
}
