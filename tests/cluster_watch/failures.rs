//! Missing CRDs, malformed objects and server errors: reported, and the
//! other kinds still arrive.

use mosk_console::cluster::ClusterEvent;
use mosk_console::domain::objects::{ClusterId, Kind, Object};
use mosk_console::sim::registry::Registry;
use serde_json::json;

use crate::cluster_support::*;
use crate::fixture::*;

const LCMMACHINES: &str = include_str!("../../assets/crds/lcm.mirantis.com_lcmmachines.yaml");
const LCMCLUSTERSTATES: &str =
    include_str!("../../assets/crds/lcm.mirantis.com_lcmclusterstates.yaml");
/// The MCC 2.27+ kinds, served so that only LCMCluster is missing.
const KAAS_CRDS: [&str; 4] = [
    include_str!("../../assets/crds/derived-by-us_machines.yaml"),
    include_str!("../../assets/crds/derived-by-us_clusterupdateplans.yaml"),
    include_str!("../../assets/crds/derived-by-us_updateautopauses.yaml"),
    include_str!("../../assets/crds/derived-by-us_updategroups.yaml"),
];

#[tokio::test]
async fn a_missing_crd_is_reported_and_the_other_kinds_still_arrive() {
    // A management cluster without the LCMCluster CRD.
    let mut crds = vec![LCMMACHINES, LCMCLUSTERSTATES];
    crds.extend(KAAS_CRDS);
    let mgmt = Registry::with_crds(&crds).unwrap();
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
