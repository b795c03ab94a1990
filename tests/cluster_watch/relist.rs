//! The periodic re-list, on paused time against in-process servers: a change
//! whose watch event was cut short on the wire reaches the console at the
//! next re-list; when nothing differs, nothing is sent.

use std::time::Duration;

use mosk_console::cluster::{ClusterEvent, WatchOptions};
use mosk_console::domain::objects::{Kind, Object};
use mosk_console::sim::registry::Registry;
use serde_json::json;

use crate::cluster_support::inproc::{Countdown, InSim, LineCut, cut_watch_line};
use crate::cluster_support::*;
use crate::fixture::*;

const RESYNC: Duration = Duration::from_secs(60);

fn opts() -> WatchOptions {
    WatchOptions {
        resync_every: RESYNC,
        // One object per page: the seeded kinds need a `continue`.
        page_size: 1,
        ..fast_watch()
    }
}

fn is_lock(e: &ClusterEvent, name: &str, state: &str) -> bool {
    matches!(e, ClusterEvent::Applied(o) if o.key().name == name && lock_state(o).as_deref() == Some(state))
}

#[tokio::test(start_paused = true)]
async fn a_change_lost_on_the_wire_arrives_with_the_next_relist() {
    let cut = LineCut {
        resource: "nodeworkloadlocks",
        marker: "\"inactive\"",
        count: Countdown::default(),
    };
    let mosk = InSim::new(Registry::mosk()).layer(|r| {
        r.layer(axum::middleware::from_fn_with_state(
            cut.clone(),
            cut_watch_line,
        ))
    });
    let mut r = start_in(InSim::new(Registry::mgmt()), mosk, &opts());
    r.events.synced(&ALL_KINDS).await;
    let listed_at = tokio::time::Instant::now();
    let store = r.mosk.store.clone();

    // The lock goes inactive, but its watch event arrives cut in half.
    cut.count.arm(1);
    store
        .update("nodeworkloadlocks", None, "openstack-kaas-node-1", |v| {
            v["status"]["state"] = json!("inactive")
        })
        .unwrap();
    // The watch goes on: a later change of another lock arrives…
    store
        .update("nodeworkloadlocks", None, "openstack-kaas-node-2", |v| {
            v["metadata"]["labels"] = json!({"later": "1"})
        })
        .unwrap();
    let from = r.events.log.len();
    r.events
        .until(
            "the later change",
            |e| matches!(e, ClusterEvent::Applied(o) if o.key().name == "openstack-kaas-node-2"),
        )
        .await;
    assert_eq!(cut.count.left(), 0, "the event line was cut");
    // …but the lost one did not: the console still shows the lock active.
    assert!(
        r.events
            .since(from, |e| is_lock(e, "openstack-kaas-node-1", "inactive"))
            .is_empty()
    );
    let shown = r
        .events
        .snapshot
        .of_kind(Kind::NodeWorkloadLock)
        .find(|o| o.key().name == "openstack-kaas-node-1")
        .and_then(lock_state);
    assert_eq!(shown.as_deref(), Some("active"));

    // The periodic re-list repairs it: the one difference, then the drift count.
    r.events
        .until_within("the repair", RESYNC * 2, |e| {
            is_lock(e, "openstack-kaas-node-1", "inactive")
        })
        .await;
    let repaired_after = tokio::time::Instant::now() - listed_at;
    assert!(
        repaired_after >= RESYNC - Duration::from_secs(1)
            && repaired_after < RESYNC + Duration::from_secs(5),
        "{repaired_after:?}"
    );
    let drift = r
        .events
        .until("the drift count", |e| {
            matches!(e, ClusterEvent::Drift { .. })
        })
        .await;
    assert_eq!(
        drift,
        ClusterEvent::Drift {
            kind: Kind::NodeWorkloadLock,
            count: 1
        }
    );
    let shown = r
        .events
        .snapshot
        .of_kind(Kind::NodeWorkloadLock)
        .find(|o| o.key().name == "openstack-kaas-node-1")
        .and_then(lock_state);
    assert_eq!(shown.as_deref(), Some("inactive"));
    // Only the difference was sent: no full replacement of the kind.
    assert!(
        r.events
            .since(from, |e| matches!(e, ClusterEvent::Resynced { .. }))
            .is_empty()
    );

    // The watch after the re-list still delivers.
    store
        .update("nodeworkloadlocks", None, "openstack-kaas-node-2", |v| {
            v["status"]["state"] = json!("inactive")
        })
        .unwrap();
    r.events
        .until("a change after the re-list", |e| {
            is_lock(e, "openstack-kaas-node-2", "inactive")
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn a_relist_that_finds_nothing_new_sends_nothing_and_is_paginated() {
    let mut r = start_in(
        InSim::new(Registry::mgmt()),
        InSim::new(Registry::mosk()),
        &opts(),
    );
    r.events.synced(&ALL_KINDS).await;
    let from = r.events.log.len();
    let lists_before = node_lists(&r);

    // Three re-list periods pass with no change on the servers.
    tokio::time::sleep(RESYNC * 3 + Duration::from_secs(1)).await;
    // A change made now still arrives (the watches run), and proves the
    // channel has been drained up to here.
    r.mosk.store.create("nodes", node("kaas-node-3")).unwrap();
    r.events
        .until(
            "kaas-node-3",
            |e| matches!(e, ClusterEvent::Applied(Object::Node(n)) if n.name == "kaas-node-3"),
        )
        .await;

    let lists = node_lists(&r);
    assert!(
        lists.len() >= lists_before.len() + 3 * 2,
        "three re-lists of two nodes, one page each: {lists:#?}"
    );
    assert!(
        lists.iter().all(|q| q.contains("limit=1")),
        "paginated: {lists:#?}"
    );
    assert!(lists.iter().any(|q| q.contains("continue=")), "{lists:#?}");
    let sent = r.events.since(from, |e| {
        matches!(
            e,
            ClusterEvent::Resynced { .. }
                | ClusterEvent::Applied(_)
                | ClusterEvent::Deleted(_)
                | ClusterEvent::Drift { .. }
        )
    });
    assert_eq!(sent.len(), 1, "only kaas-node-3: {sent:#?}");
}

/// The query strings of the node lists (not watches) so far.
fn node_lists(r: &RunningIn) -> Vec<String> {
    r.mosk
        .wire
        .requests_to("/api/v1/nodes")
        .into_iter()
        .filter(|s| !s.is_watch())
        .map(|s| s.query)
        .collect()
}
