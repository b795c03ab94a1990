//! lcm-controller log lines.
//!
//! The lcm-controller's own log format is not public; the LCM agent writes
//! zap-style JSON lines (`{"level":..,"ts":..,"logger":..,"msg":..}`), so the
//! controller is assumed to do the same (inferred, reference §8). Now and then
//! a plain-text klog line appears, as client-go libraries write those.

use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::text::zap_ts;

/// Severity of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// Writes lcm-controller lines with monotonic timestamps and background noise.
#[derive(Debug)]
pub struct LcmLog {
    rng: SmallRng,
    last: Option<Timestamp>,
    next_noise: Timestamp,
    /// The gap between two noise lines, in microseconds, when a rate was
    /// set ([`LcmLog::set_noise_rate`]); `None`: 3 to 12 whole seconds.
    noise_gap_us: Option<(i64, i64)>,
}

impl LcmLog {
    pub fn new(seed: u64, start: Timestamp) -> LcmLog {
        LcmLog {
            rng: SmallRng::seed_from_u64(seed ^ 0x6c63_6d6c_6f67),
            last: None,
            next_noise: start,
            noise_gap_us: None,
        }
    }

    /// About `per_minute` noise lines a simulated minute (gaps drawn from
    /// 0.4 to 1.6 times the mean): a busier controller, for load tests
    /// (`sim serve --log-rate`). The default is 3 to 12 s apart, ~8 a minute.
    pub fn set_noise_rate(&mut self, per_minute: f64) {
        let mean = 60_000_000.0 / per_minute;
        let lo = (mean * 0.4).max(1.0) as i64;
        let hi = ((mean * 1.6) as i64).max(lo);
        self.noise_gap_us = Some((lo, hi));
    }

    /// A time just before `now` (sub-second jitter), never before the last line.
    fn stamp(&mut self, now: Timestamp) -> Timestamp {
        let jitter = SignedDuration::from_micros(self.rng.random_range(0..900_000));
        let mut ts = now.saturating_sub(jitter).unwrap_or(now);
        if let Some(last) = self.last
            && ts <= last
        {
            ts = last
                .saturating_add(SignedDuration::from_micros(1))
                .unwrap_or(last);
        }
        self.last = Some(ts);
        ts
    }

    /// One zap-style JSON line.
    pub fn line(
        &mut self,
        now: Timestamp,
        level: Level,
        msg: &str,
        fields: &[(&str, &str)],
    ) -> String {
        let ts = self.stamp(now);
        let q = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
        let mut out = format!(
            "{{\"level\":\"{}\",\"ts\":\"{}\",\"logger\":\"lcm-controller\",\"msg\":{}",
            level.as_str(),
            zap_ts(ts),
            q(msg)
        );
        for (k, v) in fields {
            out.push(',');
            out.push_str(&q(k));
            out.push(':');
            out.push_str(&q(v));
        }
        out.push('}');
        out
    }

    /// A plain-text klog line (`I0101 10:15:02.118734       1 file.go:123] msg`).
    pub fn klog(&mut self, now: Timestamp, severity: char, location: &str, msg: &str) -> String {
        let ts = self.stamp(now);
        let dt = ts.to_zoned(TimeZone::UTC).datetime();
        format!(
            "{severity}{} {:>7} {location}] {msg}",
            dt.strftime("%m%d %H:%M:%S%.6f"),
            1
        )
    }

    /// Background lines due by `now`: reconcile chatter, lease renewals, the odd klog line.
    /// `machines` gives names to mention; `namespace`/`cluster` the LCMCluster.
    pub fn noise(
        &mut self,
        now: Timestamp,
        namespace: &str,
        cluster: &str,
        machines: &[&str],
    ) -> Vec<String> {
        let mut out = Vec::new();
        while self.next_noise <= now {
            let at = self.next_noise;
            let pick = self.rng.random_range(0..100);
            let cl = format!("{namespace}/{cluster}");
            let line = match pick {
                0..=24 => self.line(at, Level::Info, "Reconciling LCMCluster", &[("lcmcluster", &cl)]),
                25..=39 => {
                    let release = ["stacklight", "ceph-controller", "openstack-operator", "tungstenfabric-operator", "metallb"]
                        [self.rng.random_range(0..5)];
                    self.line(
                        at,
                        Level::Debug,
                        "HelmBundle release is up to date",
                        &[("helmbundle", &cl), ("release", release)],
                    )
                }
                40..=64 if !machines.is_empty() => {
                    let m = machines[self.rng.random_range(0..machines.len())].to_string();
                    self.line(at, Level::Debug, "Checked LCMMachine state items", &[("machine", &m)])
                }
                65..=79 => self.line(
                    at,
                    Level::Debug,
                    "Successfully renewed lease",
                    &[("lease", "kaas/lcm-controller-leader-election")],
                ),
                80..=89 => self.line(at, Level::Info, "Updated LCMCluster status", &[("lcmcluster", &cl)]),
                90..=94 => self.klog(
                    at,
                    'I',
                    "reflector.go:359",
                    "Listing and watching *v1alpha1.LCMMachine from pkg/mod/k8s.io/client-go@v0.29.3/tools/cache/reflector.go:229",
                ),
                _ => self.klog(
                    at,
                    'W',
                    "warnings.go:70",
                    "metadata.finalizers: \"lcm.mirantis.com/machine-finalizer\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers",
                ),
            };
            out.push(line);
            let gap = match self.noise_gap_us {
                None => SignedDuration::from_secs(self.rng.random_range(3..=12)),
                Some((lo, hi)) => SignedDuration::from_micros(self.rng.random_range(lo..=hi)),
            };
            self.next_noise = at.saturating_add(gap).unwrap_or(at);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_zap_json_with_fields_in_order() {
        let t0: Timestamp = "2026-01-01T10:00:05Z".parse().unwrap();
        let mut log = LcmLog::new(1, t0);
        let l = log.line(
            t0,
            Level::Info,
            "Machine state changed",
            &[("machine", "m-1"), ("node", "kaas-node-x")],
        );
        assert!(
            l.starts_with("{\"level\":\"info\",\"ts\":\"2026-01-01T10:00:0"),
            "{l}"
        );
        assert!(l.contains("\"logger\":\"lcm-controller\",\"msg\":\"Machine state changed\",\"machine\":\"m-1\",\"node\":\"kaas-node-x\"}"), "{l}");
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["node"], "kaas-node-x");
    }

    #[test]
    fn a_noise_rate_sets_how_many_lines_a_minute() {
        let t0: Timestamp = "2026-01-01T10:00:00Z".parse().unwrap();
        let count = |rate: Option<f64>| {
            let mut log = LcmLog::new(7, t0);
            if let Some(r) = rate {
                log.set_noise_rate(r);
            }
            (0..=600)
                .map(|s| {
                    log.noise(t0 + SignedDuration::from_secs(s), "ns", "cl", &["a"])
                        .len()
                })
                .sum::<usize>()
        };
        // Ten simulated minutes.
        let default = count(None);
        assert!((60..=110).contains(&default), "{default}");
        let busy = count(Some(600.0));
        assert!((5_500..=6_500).contains(&busy), "{busy}");
        // The top of the range is honoured too: gaps of microseconds
        // around a mean of 1 ms (milliseconds made it 1 ms flat).
        let mut log = LcmLog::new(7, t0);
        log.set_noise_rate(crate::sim::serve::MAX_LOG_RATE);
        assert_eq!(log.noise_gap_us, Some((400, 1600)));
    }

    #[test]
    fn noise_is_deterministic_and_monotonic() {
        let t0: Timestamp = "2026-01-01T10:00:00Z".parse().unwrap();
        let run = || {
            let mut log = LcmLog::new(7, t0);
            let mut all = Vec::new();
            for s in 0..600 {
                all.extend(log.noise(
                    t0 + SignedDuration::from_secs(s),
                    "child-ns",
                    "child-cl",
                    &["a", "b"],
                ));
            }
            all
        };
        let a = run();
        assert_eq!(a, run());
        assert!(a.len() > 40, "{}", a.len());
        assert!(
            a.iter().any(|l| !l.starts_with('{')),
            "some plain-text lines"
        );
        let json_ts: Vec<String> = a
            .iter()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .map(|v| v["ts"].as_str().unwrap().to_string())
            .collect();
        let mut sorted = json_ts.clone();
        sorted.sort();
        assert_eq!(json_ts, sorted);
    }
}
