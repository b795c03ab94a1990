//! How long to wait before retrying a failed watch, discovery or log stream.

use std::time::Duration;

use kube::runtime::utils::Backoff;
use rand::Rng;
use tokio::time::Instant;

/// Waits until `deadline`, or forever when there is none (a `select!` arm
/// for an optional timer: a retry, a batch flush, a quiet period).
pub(crate) async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// The first delay of the default policy.
pub const DEFAULT_MIN: Duration = Duration::from_millis(800);
/// No delay of the default policy is longer: after an API outage every watch
/// is back within this long of the server answering again.
pub const DEFAULT_MAX: Duration = Duration::from_secs(10);
/// The default policy takes up to this share off each delay, at random, so
/// that ten watches failing together do not retry together.
pub const DEFAULT_JITTER: f64 = 0.3;

/// The retry delays of the cluster layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackoffPolicy {
    /// For real clusters: [`DEFAULT_MIN`] doubling up to [`DEFAULT_MAX`], each
    /// shortened by up to [`DEFAULT_JITTER`] at random (never longer than the
    /// cap). The callers reset it after a successful list or event, or after
    /// a retry that stays free of errors.
    ///
    /// (kube's `default_backoff()` caps at 30 s and resets only after two
    /// minutes without errors: after an outage watches took 30–60 s to return.)
    #[default]
    Default,
    /// Doubling from `min` to `max`, no jitter. Tests use a few milliseconds.
    Exponential { min: Duration, max: Duration },
}

impl BackoffPolicy {
    /// A fresh backoff iterator following this policy.
    pub fn build(self) -> RetryBackoff {
        let (min, max, jitter) = match self {
            BackoffPolicy::Default => (DEFAULT_MIN, DEFAULT_MAX, DEFAULT_JITTER),
            BackoffPolicy::Exponential { min, max } => (min, max, 0.0),
        };
        RetryBackoff {
            min,
            max,
            jitter,
            next: min,
        }
    }
}

/// A [`Backoff`] built from a [`BackoffPolicy`]: exponential, capped, with
/// optional jitter.
#[derive(Debug, Clone)]
pub struct RetryBackoff {
    min: Duration,
    max: Duration,
    /// The largest share taken off a delay at random (0: none).
    jitter: f64,
    /// The next delay before jitter.
    next: Duration,
}

impl Iterator for RetryBackoff {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        let base = self.next.min(self.max);
        self.next = (self.next * 2).min(self.max);
        if self.jitter <= 0.0 {
            return Some(base);
        }
        let cut = rand::rng().random_range(0.0..self.jitter);
        Some(base.mul_f64(1.0 - cut))
    }
}

impl Backoff for RetryBackoff {
    fn reset(&mut self) {
        self.next = self.min;
    }
}

impl RetryBackoff {
    /// The next delay (the policy never ends).
    pub fn delay(&mut self) -> Duration {
        self.next().unwrap_or(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_doubles_up_to_max_and_resets() {
        let mut b = BackoffPolicy::Exponential {
            min: Duration::from_millis(10),
            max: Duration::from_millis(35),
        }
        .build();
        let got: Vec<_> = (0..4).map(|_| b.delay().as_millis()).collect();
        assert_eq!(got, [10, 20, 35, 35]);
        b.reset();
        assert_eq!(b.delay(), Duration::from_millis(10));
    }

    #[test]
    fn the_default_grows_to_ten_seconds_with_jitter_and_never_beyond() {
        let mut b = BackoffPolicy::Default.build();
        let delays: Vec<Duration> = (0..200).map(|_| b.delay()).collect();
        assert!(delays[0] <= DEFAULT_MIN, "{delays:?}");
        assert!(delays.iter().all(|d| *d <= DEFAULT_MAX), "{delays:?}");
        // Once at the cap, delays stay between 70 % and 100 % of it, and vary.
        let capped = &delays[10..];
        let floor = DEFAULT_MAX.mul_f64(1.0 - DEFAULT_JITTER);
        assert!(capped.iter().all(|d| *d >= floor), "{capped:?}");
        assert!(
            capped.iter().any(|d| *d != capped[0]),
            "no jitter: {capped:?}"
        );
        b.reset();
        assert!(b.delay() <= DEFAULT_MIN);
    }
}
