//! Faults a test or the demo can inject into the API server at run time:
//! dropped watch streams, forced 410 Gone, bursts of 5xx answers, latency.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::watch;

/// Run-time fault switches, shared as `Arc<Faults>` between the server and its driver.
#[derive(Debug)]
pub struct Faults {
    drop_gen: watch::Sender<u64>,
    fail_count: AtomicU32,
    fail_code: AtomicU16,
    latency: Mutex<Duration>,
    expire_before: AtomicU64,
    force_410: AtomicU32,
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
        }
    }

    /// Closes every open watch stream now (clients resume from their last version).
    pub fn drop_watches(&self) {
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
        self.fail_count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .ok()
            .map(|_| self.fail_code.load(Ordering::SeqCst))
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

    /// Takes one pending forced 410.
    pub fn take_forced_410(&self) -> bool {
        self.force_410
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
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
