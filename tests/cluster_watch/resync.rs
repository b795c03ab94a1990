//! Initial lists, changes, re-lists after 410 Gone, dropped connections.

use mosk_console::cluster::ClusterEvent;
use mosk_console::domain::objects::{ClusterId, Kind, MachineState, MigrationMode, Object};
use serde_json::json;

use crate::cluster_support::*;
use crate::fixture::*;

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
            matches!(e, ClusterEvent::Applied(Object::Machine(m)) if m.name == "m-worker-2" && m.state == MachineState::Prepare)
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
            // A field the console keeps (it keeps only the labels it reads).
            v["metadata"]["annotations"][MigrationMode::ATTEMPTS_ANNOTATION] = json!(i.to_string())
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
    // All five steps arrived exactly once and in order, with no re-list.
    let after = &r.events.log[seen_before..];
    let steps: Vec<String> = after
        .iter()
        .filter_map(|e| match e {
            ClusterEvent::Applied(Object::Node(n)) if n.name == "kaas-node-1" => {
                n.migration_attempts.clone()
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
