//! How far each API server's clock is from this machine's, estimated from the
//! `Date` header of its answers.
//!
//! Ages, elapsed times and the ETA compare timestamps the API server wrote
//! (on its clock) with "now"; a jump host a few minutes off would skew every
//! one of them. Every answer through a client built by [`connect`] carries a
//! `Date` (RFC 9110, whole seconds, stamped while the server answered): with
//! `sent` and `received` on this machine's clock, the offset lies in
//! `[date - received, date + 1 s - sent]`. The estimate is the middle of the
//! intersection of the recent intervals (NTP's idea, without the maths); when
//! they no longer intersect (a clock was set) it starts over from the newest.
//! Changes smaller than [`REPORT_STEP`] are not reported.
//!
//! The clock probe ([`report_offsets`], started with the watchers) sends the
//! estimates to the UI and asks both servers for `/version` every
//! `WatchOptions::clock_probe_every`, so that there are samples while only
//! long-lived watches are open (a watch's `Date` is that of its start).
//!
//! [`connect`]: crate::cluster::connect()

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::cluster::channel::EventSender;
use crate::cluster::connect::{Clusters, PROBE_TIMEOUT};
use crate::cluster::events::ClusterEvent;
use crate::domain::objects::ClusterId;

/// The smallest change of an estimate that is reported (the `Date` header
/// has whole seconds).
pub const REPORT_STEP: SignedDuration = SignedDuration::from_secs(1);
/// How many recent answers the estimate is made from.
const WINDOW: usize = 16;

/// The clock offsets of both clusters (`server - local`), shared by the
/// clients' layers (which record samples) and whoever reports them.
#[derive(Debug, Clone)]
pub struct ClockSync {
    estimators: Arc<[Mutex<Estimator>; 2]>,
    reported: Arc<watch::Sender<[SignedDuration; 2]>>,
}

impl Default for ClockSync {
    fn default() -> Self {
        ClockSync::new()
    }
}

fn index(cluster: ClusterId) -> usize {
    match cluster {
        ClusterId::Mgmt => 0,
        ClusterId::Mosk => 1,
    }
}

impl ClockSync {
    /// No samples yet: both offsets are zero.
    pub fn new() -> ClockSync {
        ClockSync {
            estimators: Arc::new([
                Mutex::new(Estimator::default()),
                Mutex::new(Estimator::default()),
            ]),
            reported: Arc::new(watch::channel([SignedDuration::ZERO; 2]).0),
        }
    }

    /// The tower layer that samples the `Date` of every answer of `cluster`'s
    /// client: `ClientBuilder::…​.with_layer(&clock.layer(cluster))`.
    pub fn layer(&self, cluster: ClusterId) -> DateLayer {
        DateLayer {
            clock: self.clone(),
            cluster,
        }
    }

    /// The offset last reported for `cluster` (`server - local`; positive:
    /// the server is ahead).
    pub fn offset(&self, cluster: ClusterId) -> SignedDuration {
        self.reported.borrow()[index(cluster)]
    }

    /// A receiver that changes whenever a reported offset changes.
    pub fn subscribe(&self) -> watch::Receiver<[SignedDuration; 2]> {
        self.reported.subscribe()
    }

    /// Records one answer: asked at `sent`, answered at `received` (local
    /// clock) with `Date: date`.
    pub fn sample(
        &self,
        cluster: ClusterId,
        sent: Timestamp,
        received: Timestamp,
        date: Timestamp,
    ) {
        let estimate = {
            let mut e = self.estimators[index(cluster)]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            e.add(sent, received, date)
        };
        let i = index(cluster);
        self.reported.send_if_modified(|r| {
            if (estimate - r[i]).abs() >= REPORT_STEP {
                tracing::info!(?cluster, offset = %estimate, "API server clock offset");
                r[i] = estimate;
                true
            } else {
                false
            }
        });
    }

    fn sample_headers(
        &self,
        cluster: ClusterId,
        sent: Timestamp,
        received: Timestamp,
        headers: &http::HeaderMap,
    ) {
        let Some(date) = headers
            .get(http::header::DATE)
            .and_then(|v| v.to_str().ok())
            .and_then(|s| {
                jiff::fmt::rfc2822::DateTimeParser::new()
                    .parse_timestamp(s)
                    .ok()
            })
        else {
            return;
        };
        self.sample(cluster, sent, received, date);
    }
}

/// The clock probe: sends [`ClusterEvent::ClockOffset`] for each cluster whose offset changed
/// (at once for offsets already known from the start-up probe), asking both
/// servers for `/version` every `every` so that there are samples to go on.
pub(crate) async fn report_offsets(clusters: Clusters, every: Duration, tx: EventSender) {
    let clock: ClockSync = clusters.clock.clone();
    let mut rx = clock.subscribe();
    let mut sent = [SignedDuration::ZERO; 2];
    let mut probe = tokio::time::interval_at(Instant::now() + every, every);
    probe.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let now = *rx.borrow_and_update();
        for (i, cluster) in [ClusterId::Mgmt, ClusterId::Mosk].into_iter().enumerate() {
            if now[i] != sent[i] {
                sent[i] = now[i];
                let ev = ClusterEvent::ClockOffset {
                    cluster,
                    offset: now[i],
                };
                if tx.send(ev).is_err() {
                    return;
                }
            }
        }
        tokio::select! {
            changed = rx.changed() => if changed.is_err() {
                return;
            },
            _ = probe.tick() => {
                // Only the answers' Date matters here; failures are the watches' to report.
                let _ = tokio::join!(
                    tokio::time::timeout(PROBE_TIMEOUT, clusters.mgmt.apiserver_version()),
                    tokio::time::timeout(PROBE_TIMEOUT, clusters.mosk.apiserver_version()),
                );
            }
        }
    }
}

/// The recent bounds on one server's offset.
#[derive(Debug, Default)]
struct Estimator {
    /// `(low, high)` bounds of the offset, newest last.
    bounds: VecDeque<(SignedDuration, SignedDuration)>,
}

impl Estimator {
    /// Adds a sample; returns the current estimate.
    fn add(&mut self, sent: Timestamp, received: Timestamp, date: Timestamp) -> SignedDuration {
        let low = date.duration_since(received);
        let high = date.duration_since(sent) + SignedDuration::from_secs(1);
        self.bounds.push_back((low, high));
        while self.bounds.len() > WINDOW {
            self.bounds.pop_front();
        }
        let (mut lo, mut hi) = self.intersection();
        if lo > hi {
            // The intervals disagree: a clock was set. Start over from this answer.
            self.bounds.clear();
            self.bounds.push_back((low, high));
            (lo, hi) = (low, high);
        }
        lo + (hi - lo) / 2
    }

    fn intersection(&self) -> (SignedDuration, SignedDuration) {
        self.bounds.iter().fold(
            (SignedDuration::MIN, SignedDuration::MAX),
            |(lo, hi), (l, h)| (lo.max(*l), hi.min(*h)),
        )
    }
}

/// A tower layer recording the `Date` of each answer in a [`ClockSync`].
#[derive(Debug, Clone)]
pub struct DateLayer {
    clock: ClockSync,
    cluster: ClusterId,
}

impl<S> tower::Layer<S> for DateLayer {
    type Service = DateService<S>;

    fn layer(&self, inner: S) -> DateService<S> {
        DateService {
            inner,
            clock: self.clock.clone(),
            cluster: self.cluster,
        }
    }
}

/// See [`DateLayer`].
#[derive(Debug, Clone)]
pub struct DateService<S> {
    inner: S,
    clock: ClockSync,
    cluster: ClusterId,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

impl<S, ReqBody, ResBody> tower::Service<http::Request<ReqBody>> for DateService<S>
where
    S: tower::Service<http::Request<ReqBody>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<ReqBody>) -> Self::Future {
        let sent = Timestamp::now();
        let fut = self.inner.call(req);
        let clock = self.clock.clone();
        let cluster = self.cluster;
        Box::pin(async move {
            let resp = fut.await?;
            clock.sample_headers(cluster, sent, Timestamp::now(), resp.headers());
            Ok(resp)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: f64) -> Timestamp {
        Timestamp::from_millisecond((s * 1000.0) as i64).unwrap()
    }

    #[test]
    fn whole_second_dates_narrow_to_the_true_offset() {
        // The server is 300.4 s ahead; answers take 10 ms; its Date is whole seconds.
        let clock = ClockSync::new();
        let mut rx = clock.subscribe();
        for i in 0..12 {
            let sent = 1000.0 + i as f64 * 1.37;
            let server = (sent + 0.005 + 300.4).floor();
            clock.sample(ClusterId::Mgmt, at(sent), at(sent + 0.01), at(server));
        }
        let got = clock.offset(ClusterId::Mgmt).as_secs_f64();
        assert!((got - 300.4).abs() <= 0.5, "{got}");
        assert!(rx.has_changed().unwrap());
        assert_eq!(clock.offset(ClusterId::Mosk), SignedDuration::ZERO);
        rx.borrow_and_update();
        // The same offset again is not reported again.
        clock.sample(ClusterId::Mgmt, at(2000.0), at(2000.01), at(2300.0));
        assert!(!rx.has_changed().unwrap());
    }

    #[test]
    fn a_clock_that_is_set_starts_the_estimate_over() {
        let clock = ClockSync::new();
        clock.sample(ClusterId::Mosk, at(100.0), at(100.01), at(160.0));
        assert_eq!(clock.offset(ClusterId::Mosk).as_secs(), 60);
        // The server's clock is set back by a minute.
        clock.sample(ClusterId::Mosk, at(200.0), at(200.01), at(200.0));
        assert!(clock.offset(ClusterId::Mosk).as_secs_f64().abs() <= 1.0);
    }
}
