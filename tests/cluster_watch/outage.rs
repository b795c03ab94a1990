//! Failures on paused time against in-process servers: an API outage (every
//! request refused) and a truncated list answer. The retry delays are capped
//! at 10 s and start over after a recovery; every degraded report says when
//! the next attempt starts; the health mark goes when the watch recovers.

use std::time::Duration;

use jiff::Timestamp;
use mosk_console::cluster::backoff::{DEFAULT_MAX, DEFAULT_MIN};
use mosk_console::cluster::{BackoffPolicy, ClusterEvent, WatchHealth, WatchOptions};
use mosk_console::domain::objects::Kind;
use mosk_console::sim::registry::Registry;
use serde_json::json;
use tokio::time::Instant;

use crate::cluster_support::inproc::{Countdown, InSim, cut_list_answer};
use crate::cluster_support::*;
use crate::fixture::*;

const GRACE: Duration = Duration::from_secs(1);

fn node_health(e: &ClusterEvent) -> Option<&WatchHealth> {
    match e {
        ClusterEvent::Health {
            kind: Kind::Node,
            health,
        } => Some(health),
        _ => None,
    }
}

fn healthy(h: &WatchHealth) -> bool {
    h.connected && h.last_error.is_none() && h.retry_at.is_none()
}

/// The times of the node watch's refused attempts since `from`.
fn refused_node_attempts(r: &RunningIn, from: Instant) -> Vec<Instant> {
    r.mosk
        .wire
        .requests_to("/api/v1/nodes")
        .into_iter()
        .filter(|s| !s.answered && s.at >= from)
        .map(|s| s.at)
        .collect()
}

fn gaps(times: &[Instant]) -> Vec<Duration> {
    times.windows(2).map(|w| w[1] - w[0]).collect()
}

#[tokio::test(start_paused = true)]
async fn after_an_outage_watches_return_within_ten_seconds() {
    // The policy real clusters get, with its jitter.
    let opts = WatchOptions {
        backoff: BackoffPolicy::Default,
        recovery_grace: GRACE,
        ..WatchOptions::default()
    };
    let mut r = start_in(
        InSim::new(Registry::mgmt()),
        InSim::new(Registry::mosk()),
        &opts,
    );
    r.events.synced(&ALL_KINDS).await;

    // The MOSK API server goes away for a minute: its watches break and
    // every request is refused.
    let down_at = Instant::now();
    r.mosk.wire.set_down(true);
    r.mosk.faults.drop_watches();
    let from = r.events.log.len();
    tokio::time::sleep(Duration::from_secs(60)).await;
    r.mosk.wire.set_down(false);
    let up_at = Instant::now();
    r.events
        .until_within(
            "the node watch healthy again",
            Duration::from_secs(60),
            |e| node_health(e).is_some_and(healthy),
        )
        .await;
    let back_after = Instant::now() - up_at;
    assert!(
        back_after <= DEFAULT_MAX + GRACE,
        "back {back_after:?} after the server"
    );

    // The attempts during the outage: never more than 10 s apart, and the
    // delays grew to the cap (with jitter: at least 70 % of it).
    let attempts = refused_node_attempts(&r, down_at);
    let intervals = gaps(&attempts);
    assert!(attempts.len() >= 6, "{intervals:?}");
    assert!(intervals.iter().all(|g| *g <= DEFAULT_MAX), "{intervals:?}");
    assert!(
        intervals.iter().any(|g| *g >= DEFAULT_MAX.mul_f64(0.7)),
        "{intervals:?}"
    );
    // Each report of the outage says when the next attempt starts (this
    // machine's clock; paused time does not move it).
    let reports: Vec<WatchHealth> = r
        .events
        .since(from, |e| node_health(e).is_some_and(|h| !h.connected))
        .iter()
        .filter_map(node_health)
        .cloned()
        .collect();
    assert!(reports.len() >= attempts.len() - 1, "{reports:#?}");
    let now = Timestamp::now();
    for h in &reports {
        let retry_in = h
            .retry_at
            .expect("retry_at while disconnected")
            .duration_since(now);
        assert!(
            retry_in <= jiff::SignedDuration::try_from(DEFAULT_MAX).unwrap(),
            "{h:?}"
        );
        let error = h.last_error.as_deref().unwrap_or_default();
        assert!(error.contains("refused"), "{error}");
    }

    // A second outage starts again from the shortest delay: the recovery
    // (no event came: nothing changed) reset the backoff.
    let second = Instant::now();
    r.mosk.wire.set_down(true);
    r.mosk.faults.drop_watches();
    tokio::time::sleep(Duration::from_secs(5)).await;
    let attempts = refused_node_attempts(&r, second);
    let first_gap = gaps(&attempts)[0];
    assert!(first_gap <= DEFAULT_MIN, "{first_gap:?}");
    r.mosk.wire.set_down(false);
}

#[tokio::test(start_paused = true)]
async fn a_truncated_list_answer_marks_the_watch_until_the_next_list() {
    let cut = Countdown::default();
    let mosk = InSim::new(Registry::mosk()).layer(|router| {
        router.layer(axum::middleware::from_fn_with_state(
            ("nodes", cut.clone()),
            cut_list_answer,
        ))
    });
    let mut r = start_in(InSim::new(Registry::mgmt()), mosk, &fast_watch());
    r.events.synced(&ALL_KINDS).await;

    // The next node list arrives cut in half, and a re-list is needed: every
    // version the watchers hold expires.
    cut.arm(1);
    let store = r.mosk.store.clone();
    store
        .create("namespaces", json!({"metadata": {"name": "bump"}}))
        .unwrap();
    r.mosk.faults.expire_before(store.resource_version());
    r.mosk.faults.drop_watches();

    let ev = r
        .events
        .until("the node watch degraded", |e| {
            node_health(e).is_some_and(|h| !h.connected)
        })
        .await;
    let error = node_health(&ev).unwrap().last_error.clone().unwrap();
    assert!(error.starts_with("list failed"), "{error}");
    assert_eq!(cut.left(), 0);
    // The next list succeeds: the mark goes, and the kind is listed whole.
    r.events
        .until("the node watch healthy again", |e| {
            node_health(e).is_some_and(healthy)
        })
        .await;
    r.events.synced(&[Kind::Node]).await;
    assert_eq!(r.events.names(Kind::Node), ["kaas-node-1", "kaas-node-2"]);
}
