//! The watchers against the simulated API servers, over HTTP from a kubeconfig:
//! initial lists, changes, re-lists after 410, dropped connections, missing
//! CRDs, malformed objects, server errors.

mod cluster_support;

use cluster_support::*;
use mosk_console::cluster::{ClusterEvent, spawn_watchers};
use mosk_console::domain::objects::{ClusterId, Kind, Object};
use mosk_console::sim::registry::Registry;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const LCMMACHINES: &str = include_str!("../assets/crds/lcm.mirantis.com_lcmmachines.yaml");
const LCMCLUSTERSTATES: &str =
    include_str!("../assets/crds/lcm.mirantis.com_lcmclusterstates.yaml");

/// Kinds served by both default registries.
const ALL_KINDS: [Kind; 10] = Kind::ALL;

struct Running {
    pair: Pair,
    events: Events,
    cancel: CancellationToken,
    _tasks: tokio::task::JoinSet<()>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

async fn start(pair: Pair) -> Running {
    let clusters = pair.connect().await;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
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
async fn seeded() -> Pair {
    let p = pair(Registry::mgmt(), Registry::mosk()).await;
    let mosk = &p.mosk.store;
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
    let mgmt = &p.mgmt.store;
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
    p
}

#[tokio::test]
async fn every_kind_arrives_as_one_resync_then_changes_follow() {
    let mut r = start(seeded().await).await;
    r.events.synced(&ALL_KINDS).await;

    assert_eq!(r.events.names(Kind::Node), ["kaas-node-1", "kaas-node-2"]);
    assert_eq!(
        r.events.names(Kind::LcmMachine),
        ["m-worker-1", "m-worker-2"],
        "only the project namespace"
    );
    assert_eq!(
        r.events.names(Kind::VrouterPod),
        ["tf-vrouter-agent-abcde"],
        "only tf-vrouter pods in namespace tf"
    );
    assert_eq!(
        r.events.names(Kind::NodeMaintenanceRequest),
        ["kaas-node-1"]
    );
    assert!(
        !r.events.log.iter().any(|e| matches!(
            e,
            ClusterEvent::KindMissing { .. } | ClusterEvent::Applied(Object::Malformed(_))
        )),
        "{:#?}",
        r.events.log
    );

    // A lock changes state; a request goes away; a machine moves on.
    r.pair
        .mosk
        .store
        .update("nodeworkloadlocks", None, "openstack-kaas-node-1", |v| {
            v["status"]["state"] = json!("inactive")
        })
        .unwrap();
    let ev = r
        .events
        .until("the lock going inactive", |e| {
            matches!(e, ClusterEvent::Applied(o) if lock_state(o).as_deref() == Some("inactive"))
        })
        .await;
    let ClusterEvent::Applied(o) = ev else {
        unreachable!()
    };
    assert_eq!(o.key().name, "openstack-kaas-node-1");

    r.pair
        .mosk
        .store
        .delete(
            "nodemaintenancerequests",
            None,
            "kaas-node-1",
            &json!({}),
            false,
        )
        .unwrap();
    r.events
        .until("the request's deletion", |e| {
            matches!(e, ClusterEvent::Deleted(k) if k.kind == Kind::NodeMaintenanceRequest && k.name == "kaas-node-1")
        })
        .await;

    // A change in another namespace is not shown.
    r.pair
        .mgmt
        .store
        .update("lcmmachines", Some("other-ns"), "m-elsewhere", |v| {
            v["status"]["state"] = json!("Deploy")
        })
        .unwrap();
    r.pair
        .mgmt
        .store
        .update("lcmmachines", Some("child-ns"), "m-worker-2", |v| {
            v["status"]["state"] = json!("Prepare")
        })
        .unwrap();
    r.events
        .until("m-worker-2 in Prepare", |e| {
            matches!(e, ClusterEvent::Applied(Object::Machine(m)) if m.name == "m-worker-2" && m.state == "Prepare")
        })
        .await;
    assert!(
        !r.events
            .log
            .iter()
            .any(|e| matches!(e, ClusterEvent::Applied(o) if o.key().name == "m-elsewhere"))
    );
    assert_eq!(
        r.events.names(Kind::NodeMaintenanceRequest),
        Vec::<String>::new()
    );
}

#[tokio::test]
async fn after_a_410_the_relist_replaces_the_kind_with_what_the_server_has() {
    let mut r = start(seeded().await).await;
    r.events.synced(&ALL_KINDS).await;
    let resyncs_before = count_resyncs(&r.events, Kind::NodeWorkloadLock);

    live(&mut r, "openstack-kaas-node-1").await;

    // Changes, then every resource version seen so far expires (as after an
    // etcd compaction) and the connections drop: the lock watcher must re-list.
    let mosk = r.pair.mosk.store.clone();
    mosk.create("nodes", node("kaas-node-3")).unwrap();
    mosk.create(
        "nodeworkloadlocks",
        node_lock("openstack", "kaas-node-3", "active"),
    )
    .unwrap();
    mosk.delete(
        "nodeworkloadlocks",
        None,
        "openstack-kaas-node-2",
        &json!({}),
        false,
    )
    .unwrap();
    // A change no watcher sees, so that every watcher's version is older than the server's.
    mosk.create("namespaces", json!({"metadata": {"name": "bump"}}))
        .unwrap();
    r.pair.mosk.faults.expire_before(mosk.resource_version());
    r.pair.mosk.faults.drop_watches();

    // Every MOSK kind re-lists; the locks arrive as one Resynced holding
    // exactly the server's locks, and the snapshot matches the server.
    let fault_at = r.events.log.len();
    let mosk_kinds: Vec<Kind> = ALL_KINDS
        .into_iter()
        .filter(|k| k.cluster() == ClusterId::Mosk)
        .collect();
    r.events.synced(&mosk_kinds).await;
    let objects = r.events.log[fault_at..]
        .iter()
        .find_map(|e| match e {
            ClusterEvent::Resynced {
                kind: Kind::NodeWorkloadLock,
                objects,
            } => Some(objects.clone()),
            _ => None,
        })
        .expect("a re-list of the node locks");
    let mut listed: Vec<String> = objects.iter().map(|o| o.key().name).collect();
    listed.sort();
    let expected = store_names(&mosk, "nodeworkloadlocks", None);
    assert_eq!(expected, ["openstack-kaas-node-1", "openstack-kaas-node-3"]);
    assert_eq!(listed, expected);
    assert_eq!(r.events.names(Kind::NodeWorkloadLock), expected);
    assert!(count_resyncs(&r.events, Kind::NodeWorkloadLock) > resyncs_before);
    assert_eq!(
        r.events.names(Kind::Node),
        store_names(&mosk, "nodes", None)
    );

    // And the watch goes on after the re-list.
    mosk.update("nodeworkloadlocks", None, "openstack-kaas-node-3", |v| {
        v["status"]["state"] = json!("inactive")
    })
    .unwrap();
    r.events
        .until("a change after the re-list", |e| {
            matches!(e, ClusterEvent::Applied(o) if o.key().name == "openstack-kaas-node-3" && lock_state(o).as_deref() == Some("inactive"))
        })
        .await;
    // A 410 is routine: it is not reported as a broken watch.
    assert!(
        !r.events.log.iter().any(|e| matches!(
            e,
            ClusterEvent::Health { health, .. } if !health.connected
        )),
        "{:#?}",
        r.events.log
    );
}

/// Proves the node-lock watch is established: a change to `lock` arrives through it.
async fn live(r: &mut Running, lock: &str) {
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
async fn live_node(r: &mut Running, node: &str) {
    r.pair
        .mosk
        .store
        .update("nodes", None, node, |v| {
            v["metadata"]["labels"]["probe"] = json!("1")
        })
        .unwrap();
    r.events
        .until("the probe change", |e| {
            matches!(e, ClusterEvent::Applied(Object::Node(n)) if n.name == node && n.labels.contains_key("probe"))
        })
        .await;
}

fn count_resyncs(events: &Events, kind: Kind) -> usize {
    events
        .log
        .iter()
        .filter(|e| matches!(e, ClusterEvent::Resynced { kind: k, .. } if *k == kind))
        .count()
}

#[tokio::test]
async fn a_dropped_connection_resumes_without_duplicates_or_loss() {
    let mut r = start(seeded().await).await;
    r.events.synced(&ALL_KINDS).await;
    live_node(&mut r, "kaas-node-2").await;
    let seen_before = r.events.log.len();
    let mosk = r.pair.mosk.store.clone();

    r.pair.mosk.faults.drop_watches();
    // Changes made while the watchers reconnect.
    for i in 0..5 {
        mosk.update("nodes", None, "kaas-node-1", |v| {
            v["metadata"]["labels"]["step"] = json!(i.to_string())
        })
        .unwrap();
    }
    mosk.create("nodes", node("kaas-node-9")).unwrap();
    r.events
        .until(
            "kaas-node-9",
            |e| matches!(e, ClusterEvent::Applied(o) if o.key().name == "kaas-node-9"),
        )
        .await;
    // All five label steps arrived exactly once and in order, with no re-list.
    let after = &r.events.log[seen_before..];
    let steps: Vec<String> = after
        .iter()
        .filter_map(|e| match e {
            ClusterEvent::Applied(Object::Node(n)) if n.name == "kaas-node-1" => {
                n.labels.get("step").cloned()
            }
            _ => None,
        })
        .collect();
    assert_eq!(steps, ["0", "1", "2", "3", "4"]);
    assert!(
        !after.iter().any(|e| matches!(
            e,
            ClusterEvent::Resynced {
                kind: Kind::Node,
                ..
            }
        )),
        "a dropped connection resumes from its resource version: {after:#?}"
    );
    assert_eq!(
        r.events.names(Kind::Node),
        ["kaas-node-1", "kaas-node-2", "kaas-node-9"]
    );
}

#[tokio::test]
async fn a_missing_crd_is_reported_and_the_other_kinds_still_arrive() {
    // A management cluster without the LCMCluster CRD.
    let mgmt = Registry::with_crds(&[LCMMACHINES, LCMCLUSTERSTATES]).unwrap();
    let p = pair(mgmt, Registry::mosk()).await;
    p.mgmt
        .store
        .create(
            "lcmmachines",
            machine("m-1", "child-ns", "child-cl", "Ready"),
        )
        .unwrap();
    let mut r = start(p).await;
    let ev = r
        .events
        .until("KindMissing for LCMCluster", |e| {
            matches!(e, ClusterEvent::KindMissing { .. })
        })
        .await;
    let ClusterEvent::KindMissing { kind, message } = ev else {
        unreachable!()
    };
    assert_eq!(kind, Kind::LcmCluster);
    assert!(
        message.contains("LCMCluster CRD") && message.contains("not installed"),
        "{message}"
    );
    let others: Vec<Kind> = ALL_KINDS
        .into_iter()
        .filter(|k| *k != Kind::LcmCluster)
        .collect();
    r.events.synced(&others).await;
    assert_eq!(r.events.names(Kind::LcmMachine), ["m-1"]);
    assert!(
        !r.events.log.iter().any(|e| matches!(
            e,
            ClusterEvent::Resynced {
                kind: Kind::LcmCluster,
                ..
            } | ClusterEvent::Health {
                kind: Kind::LcmCluster,
                ..
            }
        )),
        "no watcher runs for the missing kind"
    );
}

#[tokio::test]
async fn a_malformed_lock_is_an_error_row_and_its_neighbours_still_arrive() {
    let p = seeded().await;
    p.mosk
        .store
        .create(
            "nodeworkloadlocks",
            json!({"metadata": {"name": "ceph-kaas-node-1"},
                   "spec": {"controllerName": "ceph", "nodeName": "kaas-node-1"},
                   "status": {"state": {"not": "a string"}}}),
        )
        .unwrap();
    let mut r = start(p).await;
    let ev = r
        .events
        .until("the node locks", |e| {
            matches!(
                e,
                ClusterEvent::Resynced {
                    kind: Kind::NodeWorkloadLock,
                    ..
                }
            )
        })
        .await;
    let ClusterEvent::Resynced { objects, .. } = ev else {
        unreachable!()
    };
    assert_eq!(objects.len(), 3, "{objects:#?}");
    let bad: Vec<_> = objects
        .iter()
        .filter_map(|o| match o {
            Object::Malformed(m) => Some(m),
            _ => None,
        })
        .collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0].name, "ceph-kaas-node-1");
    assert!(bad[0].error.contains("invalid type"), "{}", bad[0].error);

    // A good lock turning bad later becomes a Malformed row too, and back.
    let mosk = r.pair.mosk.store.clone();
    mosk.update("nodeworkloadlocks", None, "openstack-kaas-node-2", |v| {
        v["spec"]["nodeName"] = json!(42)
    })
    .unwrap();
    r.events
        .until("openstack-kaas-node-2 malformed", |e| {
            matches!(e, ClusterEvent::Applied(Object::Malformed(m)) if m.name == "openstack-kaas-node-2")
        })
        .await;
    mosk.update("nodeworkloadlocks", None, "ceph-kaas-node-1", |v| {
        v["status"]["state"] = json!("inactive")
    })
    .unwrap();
    r.events
        .until("ceph-kaas-node-1 readable again", |e| {
            matches!(e, ClusterEvent::Applied(o) if o.key().name == "ceph-kaas-node-1" && lock_state(o).as_deref() == Some("inactive"))
        })
        .await;
    assert_eq!(r.events.snapshot.malformed().count(), 1);
}

#[tokio::test]
async fn server_errors_mark_the_watch_degraded_until_it_recovers() {
    let mut r = start(seeded().await).await;
    r.events.synced(&ALL_KINDS).await;
    live_node(&mut r, "kaas-node-1").await;
    // The MOSK server fails the next requests with 500, and the watches drop.
    // (kube itself retries 503s a few times before reporting them.)
    r.pair.mosk.faults.fail_next(3, 500);
    r.pair.mosk.faults.drop_watches();
    let ev = r
        .events
        .until(
            "a degraded MOSK watch",
            |e| matches!(e, ClusterEvent::Health { health, .. } if !health.connected),
        )
        .await;
    let ClusterEvent::Health { kind, health } = ev else {
        unreachable!()
    };
    assert_eq!(kind.cluster(), ClusterId::Mosk);
    assert_eq!(health.cluster, ClusterId::Mosk);
    let error = health.last_error.unwrap_or_default();
    assert!(error.contains("500"), "{error}");

    // Once the server answers again the watch reports healthy and changes flow.
    r.events
        .until("the same watch healthy again", |e| {
            matches!(e, ClusterEvent::Health { kind: k, health } if *k == kind && health.connected && health.last_error.is_none())
        })
        .await;
    r.pair
        .mosk
        .store
        .create("nodes", node("kaas-node-7"))
        .unwrap();
    r.events
        .until(
            "kaas-node-7",
            |e| matches!(e, ClusterEvent::Applied(o) if o.key().name == "kaas-node-7"),
        )
        .await;
}
