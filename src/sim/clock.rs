//! The simulator's clock. Tests step it by hand; `demo` and `sim serve`
//! advance it from real time at a speed factor. Nothing in the simulator
//! reads the wall clock for simulated behaviour.

use std::sync::{Arc, Mutex};

use jiff::{SignedDuration, Timestamp};
use tokio::sync::watch;

/// A shared, manually advanced clock.
#[derive(Debug)]
pub struct Clock {
    now: Mutex<Timestamp>,
    tx: watch::Sender<Timestamp>,
}

impl Clock {
    /// A clock standing at `start`.
    pub fn new(start: Timestamp) -> Arc<Clock> {
        let (tx, _rx) = watch::channel(start);
        Arc::new(Clock {
            now: Mutex::new(start),
            tx,
        })
    }

    /// The simulated time now.
    pub fn now(&self) -> Timestamp {
        *self.now.lock().expect("clock lock")
    }

    /// Moves the clock forward by `by` (negative durations are ignored).
    pub fn advance(&self, by: SignedDuration) {
        if by.is_negative() {
            return;
        }
        let mut now = self.now.lock().expect("clock lock");
        *now = now.saturating_add(by).unwrap_or(*now);
        self.tx.send_replace(*now);
    }

    /// A receiver that sees every change of the clock.
    pub fn subscribe(&self) -> watch::Receiver<Timestamp> {
        self.tx.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advances_only_forward() {
        let start: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let c = Clock::new(start);
        c.advance(SignedDuration::from_secs(90));
        assert_eq!(c.now(), "2026-01-01T00:01:30Z".parse::<Timestamp>().unwrap());
        c.advance(SignedDuration::from_secs(-10));
        assert_eq!(c.now(), "2026-01-01T00:01:30Z".parse::<Timestamp>().unwrap());
    }
}
