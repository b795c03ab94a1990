//! Fires a [`FaultPlan`] as the simulated clock passes its times: called by
//! the world after every clock step, so a test stepping the clock by hand
//! gets the same faults at the same simulated moments as `sim serve`.

use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};

use super::Faults;
use super::spec::{FaultPlan, Truncate};
use crate::sim::store::Store;

/// One API server's switches and store.
pub struct Target<'a> {
    pub faults: &'a Faults,
    pub store: &'a Arc<Store>,
}

/// A plan and how far along the clock it has been applied.
#[derive(Debug, Clone)]
pub struct FaultSchedule {
    plan: FaultPlan,
    start: Timestamp,
    /// Simulated time since `start` already handled.
    done: SignedDuration,
}

/// Whether a multiple of `period` lies in `(from, to]`.
fn crossed(period: Option<SignedDuration>, from: SignedDuration, to: SignedDuration) -> bool {
    let Some(p) = period.filter(|p| p.is_positive()) else {
        return false;
    };
    let n = |d: SignedDuration| d.as_nanos().div_euclid(p.as_nanos());
    n(to) > n(from)
}

/// Whether `at` lies in `(from, to]`, or is zero and `from` is the very start.
fn passed(at: SignedDuration, from: SignedDuration, to: SignedDuration, first: bool) -> bool {
    (from < at && at <= to) || (first && at.is_zero())
}

impl FaultSchedule {
    /// Starts counting the plan's times from `start`; faults due at once
    /// (`truncate-event=N`, an outage at 0) are applied to `targets` now.
    pub fn new(plan: FaultPlan, start: Timestamp, targets: &[Target]) -> FaultSchedule {
        let s = FaultSchedule {
            plan,
            start,
            done: SignedDuration::ZERO,
        };
        if let Some((Truncate::Count(n), plural)) = &s.plan.truncate {
            for t in targets {
                for _ in 0..*n {
                    t.faults.truncate_next_event(plural.as_deref());
                }
            }
        }
        s.apply(SignedDuration::ZERO, SignedDuration::ZERO, true, targets);
        s
    }

    pub fn plan(&self) -> &FaultPlan {
        &self.plan
    }

    /// Applies every fault whose time came between the last call and `now`.
    pub fn advance(&mut self, now: Timestamp, targets: &[Target]) {
        let to = now.duration_since(self.start);
        if to <= self.done {
            return;
        }
        let from = self.done;
        self.apply(from, to, false, targets);
        self.done = to;
    }

    fn apply(&self, from: SignedDuration, to: SignedDuration, first: bool, targets: &[Target]) {
        let p = &self.plan;
        if let Some((at, len)) = p.outage {
            if passed(at, from, to, first) {
                tracing::info!(target: "sim", "fault: outage begins for {len:?}");
                for t in targets {
                    t.faults.set_outage(true);
                }
            }
            if passed(at + len, from, to, false) {
                tracing::info!(target: "sim", "fault: outage ends");
                for t in targets {
                    t.faults.set_outage(false);
                }
            }
        }
        if first {
            return;
        }
        if crossed(p.drop_watch_every, from, to) {
            tracing::info!(target: "sim", "fault: dropping every watch");
            for t in targets {
                t.faults.drop_watches();
            }
        }
        if let Some((period, count, code)) = p.burst
            && crossed(Some(period), from, to)
        {
            tracing::info!(target: "sim", "fault: the next {count} requests get {code}");
            for t in targets {
                t.faults.fail_next(count, code);
            }
        }
        if crossed(p.gone_every, from, to) {
            tracing::info!(target: "sim", "fault: every watch must re-list (410 Gone)");
            for t in targets {
                // Every version before now is too old to resume from (a
                // client already at the newest version resumes, as it would
                // from a compacted apiserver).
                t.faults.expire_before(t.store.resource_version());
                t.faults.drop_watches();
            }
        }
        if crossed(p.close_logs_every, from, to) {
            tracing::info!(target: "sim", "fault: closing followed log streams");
            for t in targets {
                t.faults.close_logs();
            }
        }
        if let Some((Truncate::Every(period), plural)) = &p.truncate
            && crossed(Some(*period), from, to)
        {
            for t in targets {
                t.faults.truncate_next_event(plural.as_deref());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::clock::Clock;
    use crate::sim::registry::Registry;

    #[test]
    fn periodic_faults_fire_once_per_period_and_the_outage_has_two_edges() {
        let start: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let store = Store::new(Registry::mosk(), Clock::new(start));
        let faults = Faults::new();
        let plan =
            FaultPlan::parse("drop-watch=30s,outage=100s+20s,gone=every:60s,truncate-event=2")
                .unwrap();
        let targets = [Target {
            faults: &faults,
            store: &store,
        }];
        let mut s = FaultSchedule::new(plan, start, &targets);
        let at = |secs: i64| start.checked_add(SignedDuration::from_secs(secs)).unwrap();
        for t in 1..=99 {
            s.advance(at(t), &targets);
        }
        // 30, 60 (drop) + 60 (gone, which drops too) + 90 (drop)
        assert_eq!(faults.counts().watch_drops, 4);
        assert!(!faults.in_outage());
        s.advance(at(100), &targets);
        assert!(faults.in_outage());
        s.advance(at(119), &targets);
        assert!(faults.in_outage());
        // A big step crosses the end and one more drop period at once.
        s.advance(at(155), &targets);
        assert!(!faults.in_outage());
        assert_eq!(faults.counts().outages, 1);
        assert!(faults.is_expired(store.resource_version() - 1));
        assert!(!faults.is_expired(store.resource_version()));
        assert!(faults.take_truncation("pods") && faults.take_truncation("nodes"));
        assert!(!faults.take_truncation("pods"));
    }
}
