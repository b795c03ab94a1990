//! A server that answers and refuses is not an unreachable one: a forbidden
//! list is named as a refusal (who may not do what, from the server's
//! message) and retried under the same capped backoff as an outage, the
//! lcm-controller pod lookup included; a kind whose CRD disappears is said
//! missing, its objects go, and it comes back when the CRD does. On paused
//! time against in-process servers, so the request rate is counted exactly.

use std::time::Duration;

use mosk_console::cluster::backoff::DEFAULT_MAX;
use mosk_console::cluster::{
    BackoffPolicy, ClusterEvent, LogOptions, WatchOptions, WatchProblem, spawn_log_follower,
};
use mosk_console::domain::objects::Kind;
use mosk_console::sim::registry::Registry;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::cluster_support::inproc::{InSim, clusters};
use crate::fixture::*;

fn real_backoff() -> WatchOptions {
    WatchOptions {
        backoff: BackoffPolicy::Default,
        recovery_grace: Duration::from_secs(1),
        ..WatchOptions::default()
    }
}

#[tokio::test(start_paused = true)]
async fn a_forbidden_list_is_named_a_refusal_and_retried_no_faster_than_an_outage() {
    let mgmt = InSim::new(Registry::mgmt());
    mgmt.faults.forbid_reads("lcmmachines", true);
    let mut r = start_in(mgmt, InSim::new(Registry::mosk()), &real_backoff());
    let ev = r
        .events
        .until("the LCMMachine watch refused", |e| {
            matches!(e, ClusterEvent::Health { kind: Kind::LcmMachine, health } if !health.connected)
        })
        .await;
    let ClusterEvent::Health { health, .. } = ev else {
        unreachable!()
    };
    assert_eq!(health.problem, WatchProblem::Refused, "{health:?}");
    assert_eq!(
        health.last_error.as_deref(),
        Some("forbidden: kubernetes-admin may not list lcmmachines in child-ns")
    );

    // A minute of refusals: the delays double to the 10 s cap, as in an outage.
    let from = Instant::now();
    tokio::time::sleep(Duration::from_secs(60)).await;
    let lists: Vec<Instant> = r
        .mgmt
        .wire
        .requests_to("/lcmmachines")
        .into_iter()
        .filter(|s| s.at >= from)
        .map(|s| s.at)
        .collect();
    assert!(
        (5..=12).contains(&lists.len()),
        "{} lists in 60 s",
        lists.len()
    );
    let gaps: Vec<Duration> = lists.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|g| *g <= DEFAULT_MAX), "{gaps:?}");

    // Allowed again: the watch lists and is healthy.
    r.mgmt.faults.forbid_reads("lcmmachines", false);
    r.events
        .until_within("the LCMMachines listed", Duration::from_secs(20), |e| {
            matches!(
                e,
                ClusterEvent::Resynced {
                    kind: Kind::LcmMachine,
                    ..
                }
            )
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn the_pod_lookup_backs_off_when_its_list_is_forbidden() {
    let mgmt = InSim::new(Registry::mgmt());
    let mosk = InSim::new(Registry::mosk());
    mgmt.faults.forbid_reads("pods", true);
    let c = clusters(&mgmt, &mosk);
    let (tx, mut rx) = mosk_console::cluster::channel::channel();
    let cancel = CancellationToken::new();
    spawn_log_follower(c.mgmt.clone(), LogOptions::default(), tx, cancel.clone());
    let status = loop {
        match tokio::time::timeout(Duration::from_secs(20), rx.recv()).await {
            Ok(Some(ClusterEvent::LogStatus { message })) if message.contains("forbidden") => {
                break message;
            }
            Ok(Some(_)) => {}
            other => panic!("no refusal status: {other:?}"),
        }
    };
    assert!(
        status.contains("forbidden: kubernetes-admin may not list pods in kaas"),
        "{status}"
    );
    let from = Instant::now();
    tokio::time::sleep(Duration::from_secs(60)).await;
    let lists = mgmt
        .wire
        .requests_to("/pods")
        .into_iter()
        .filter(|s| s.at >= from)
        .count();
    // Every ~0.7 s before (57 requests in 38 s on a real server); now the
    // capped backoff: 0.8, 1.6, 3.2, 6.4, then 10 s. (With kube's
    // `.backoff()`, reset by each retry's `Init`, the follower asked again
    // without waiting on this paused clock: the test did not finish.)
    assert!(lists <= 12, "{lists} pod lists in 60 s");
    cancel.cancel();
}

#[tokio::test(start_paused = true)]
async fn a_kind_whose_crd_disappears_is_said_missing_and_comes_back() {
    let mut r = start_in(
        InSim::new(Registry::mgmt()),
        InSim::new(Registry::mosk()),
        &real_backoff(),
    );
    r.events.synced(&ALL_KINDS).await;
    assert!(!r.events.names(Kind::LcmMachine).is_empty());

    // The CRD is deleted: the server answers `404 page not found` (text).
    r.mgmt.faults.hide_kind("lcmmachines", true);
    r.mgmt.faults.drop_watches();
    let ev = r
        .events
        .until_within("LCMMachine missing", Duration::from_secs(30), |e| {
            matches!(
                e,
                ClusterEvent::KindMissing {
                    kind: Kind::LcmMachine,
                    ..
                }
            )
        })
        .await;
    let ClusterEvent::KindMissing { message, .. } = ev else {
        unreachable!()
    };
    assert!(
        message.contains("The LCMMachine CRD (lcmmachines.lcm.mirantis.com) is no longer served"),
        "{message}"
    );
    assert!(!message.contains("Failed to parse"), "{message}");

    // Reinstalled: the next retry lists it again.
    r.mgmt.faults.hide_kind("lcmmachines", false);
    r.events
        .until_within("LCMMachines listed again", Duration::from_secs(30), |e| {
            matches!(e, ClusterEvent::Resynced { kind: Kind::LcmMachine, objects } if !objects.is_empty())
        })
        .await;
}
