//! The running watchers of a seeded pair of simulated clusters, and probes
//! that prove a watch is established.

use mosk_console::cluster::{ClusterEvent, WatchOptions, spawn_watchers};
use mosk_console::domain::objects::{Kind, MigrationMode, Object};
use mosk_console::sim::registry::Registry;
use mosk_console::sim::store::Store;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::cluster_support::inproc::{InSim, clusters};
use crate::cluster_support::*;

/// Kinds served by both default registries.
pub const ALL_KINDS: [Kind; Kind::ALL.len()] = Kind::ALL;

pub struct Running {
    pub pair: Pair,
    pub events: Events,
    pub cancel: CancellationToken,
    _tasks: tokio::task::JoinSet<()>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

pub async fn start(pair: Pair) -> Running {
    let clusters = pair.connect().await;
    // These tests check each event the watches send (each step of a resumed
    // watch, each report of an outage); the console's merging channel would
    // keep only the last (its own tests: `cluster::channel`).
    let (tx, rx) = mosk_console::cluster::channel::unmerged_channel();
    let cancel = CancellationToken::new();
    let tasks = spawn_watchers(&clusters, &fast_watch(), tx, cancel.clone());
    Running {
        pair,
        events: Events::new(rx),
        cancel,
        _tasks: tasks,
    }
}

/// A MOSK and a management cluster with a few objects of each kind.
pub async fn seeded() -> Pair {
    let p = pair(Registry::mgmt(), Registry::mosk()).await;
    seed(&p.mgmt.store, &p.mosk.store);
    p
}

/// The watchers of an in-process pair (tests on paused time).
pub struct RunningIn {
    #[allow(dead_code)] // for tests that act on the management server
    pub mgmt: InSim,
    pub mosk: InSim,
    pub events: Events,
    pub cancel: CancellationToken,
    _tasks: tokio::task::JoinSet<()>,
}

impl Drop for RunningIn {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// Seeds both in-process clusters (see [`seeded`]) and starts the watchers.
pub fn start_in(mgmt: InSim, mosk: InSim, opts: &WatchOptions) -> RunningIn {
    seed(&mgmt.store, &mosk.store);
    let clusters = clusters(&mgmt, &mosk);
    // Unmerged: see `start`.
    let (tx, rx) = mosk_console::cluster::channel::unmerged_channel();
    let cancel = CancellationToken::new();
    let tasks = spawn_watchers(&clusters, opts, tx, cancel.clone());
    RunningIn {
        mgmt,
        mosk,
        events: Events::new(rx),
        cancel,
        _tasks: tasks,
    }
}

/// A few objects of each kind.
pub fn seed(mgmt: &Store, mosk: &Store) {
    for n in ["kaas-node-1", "kaas-node-2"] {
        mosk.create("nodes", node(n)).unwrap();
        mosk.create("nodeworkloadlocks", node_lock("openstack", n, "active"))
            .unwrap();
    }
    mosk.create(
        "nodemaintenancerequests",
        json!({"metadata": {"name": "kaas-node-1"}, "spec": {"nodeName": "kaas-node-1", "scope": "os"}}),
    )
    .unwrap();
    mosk.create("namespaces", json!({"metadata": {"name": "tf"}}))
        .unwrap();
    mosk.create("pods", pod("tf-vrouter-agent-abcde", "tf", true))
        .unwrap();
    mosk.create("pods", pod("tf-control-0", "tf", true))
        .unwrap();
    mosk.create("pods", pod("tf-vrouter-agent-other-ns", "default", true))
        .unwrap();
    mgmt.create(
        "lcmmachines",
        machine("m-worker-1", "child-ns", "child-cl", "Ready"),
    )
    .unwrap();
    mgmt.create(
        "lcmmachines",
        machine("m-worker-2", "child-ns", "child-cl", "Ready"),
    )
    .unwrap();
    mgmt.create(
        "lcmmachines",
        machine("m-elsewhere", "other-ns", "other-cl", "Ready"),
    )
    .unwrap();
}

/// Proves the node-lock watch is established: a change to `lock` arrives through it.
pub async fn live(r: &mut Running, lock: &str) {
    r.pair
        .mosk
        .store
        .update("nodeworkloadlocks", None, lock, |v| {
            v["metadata"]["labels"] = json!({"probe": "1"})
        })
        .unwrap();
    r.events
        .until(
            "the probe change",
            |e| matches!(e, ClusterEvent::Applied(o) if o.key().name == lock),
        )
        .await;
}

/// Proves the node watch is established: a change to `node` arrives through it.
pub async fn live_node(r: &mut Running, node: &str) {
    r.pair
        .mosk
        .store
        .update("nodes", None, node, |v| {
            // A field the console keeps (it keeps only the labels it reads).
            v["metadata"]["annotations"][MigrationMode::ATTEMPTS_ANNOTATION] = json!("7")
        })
        .unwrap();
    r.events
        .until("the probe change", |e| {
            matches!(e, ClusterEvent::Applied(Object::Node(n))
                if n.name == node && n.migration_attempts.as_deref() == Some("7"))
        })
        .await;
}

pub fn count_resyncs(events: &Events, kind: Kind) -> usize {
    events
        .log
        .iter()
        .filter(|e| matches!(e, ClusterEvent::Resynced { kind: k, .. } if *k == kind))
        .count()
}
