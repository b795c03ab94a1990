//! How long to wait before retrying a failed watch, discovery or log stream.

use std::time::Duration;

use kube::runtime::utils::Backoff;
use kube::runtime::watcher::DefaultBackoff;
use tokio::time::Instant;

/// Waits until `deadline`, or forever when there is none (a `select!` arm
/// for an optional timer: a retry, a batch flush, a quiet period).
pub(crate) async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// The retry delays of the cluster layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackoffPolicy {
    /// kube's `default_backoff()` (client-go's: 0.8 s doubling to 30 s, with
    /// jitter, reset after 2 minutes of health). For real clusters.
    #[default]
    Default,
    /// Doubling from `min` to `max`, no jitter. Tests use a few milliseconds.
    Exponential { min: Duration, max: Duration },
}

impl BackoffPolicy {
    /// A fresh backoff iterator following this policy.
    pub fn build(self) -> RetryBackoff {
        match self {
            BackoffPolicy::Default => RetryBackoff::Default(Box::default()),
            BackoffPolicy::Exponential { min, max } => RetryBackoff::Exponential {
                min,
                max,
                next: min,
            },
        }
    }
}

/// A [`Backoff`] built from a [`BackoffPolicy`].
pub enum RetryBackoff {
    Default(Box<DefaultBackoff>),
    Exponential {
        min: Duration,
        max: Duration,
        next: Duration,
    },
}

impl Iterator for RetryBackoff {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        match self {
            RetryBackoff::Default(b) => b.next(),
            RetryBackoff::Exponential { max, next, .. } => {
                let now = *next;
                *next = (*next * 2).min(*max);
                Some(now)
            }
        }
    }
}

impl Backoff for RetryBackoff {
    fn reset(&mut self) {
        match self {
            RetryBackoff::Default(b) => b.reset(),
            RetryBackoff::Exponential { min, next, .. } => *next = *min,
        }
    }
}

impl RetryBackoff {
    /// The next delay; never gives up (falls back to 30 s should the policy end).
    pub fn delay(&mut self) -> Duration {
        self.next().unwrap_or(Duration::from_secs(30))
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
}
