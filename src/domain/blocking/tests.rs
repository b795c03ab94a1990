use super::*;
use crate::domain::fixtures::names::*;
use crate::domain::fixtures::{self, *};
use crate::domain::objects::{Controller, Object};
use std::sync::Arc;

fn names(set: &BTreeSet<ObjectKey>) -> Vec<(Kind, String)> {
    set.iter().map(|k| (k.kind, k.name.clone())).collect()
}

#[test]
fn node_locks_held_under_their_nodes_request_block_and_no_other() {
    let snap = fixtures::mid_update();
    // Workers 2 and 3 have requests; their OpenStack locks and worker-3's
    // TF lock are active. The masters' and worker-1's locks are active too
    // but no request waits on them; worker-2's TF lock is inactive; every
    // cluster lock is inactive.
    assert_eq!(
        names(&blocking_locks(&snap)),
        [
            (Kind::NodeWorkloadLock, format!("openstack-{NODE_W2}")),
            (Kind::NodeWorkloadLock, format!("openstack-{NODE_W3}")),
            (Kind::NodeWorkloadLock, format!("tf-{NODE_W3}")),
        ]
    );
}

#[test]
fn a_request_being_deleted_waits_on_nothing_and_failed_blocks_like_active() {
    let mut snap = fixtures::mid_update();
    let mut r = nmr(NODE_W2, "os", at("09:51"));
    r.deleting = true;
    snap.apply(Object::NodeMaintenanceRequest(Arc::new(r)));
    snap.apply(Object::NodeWorkloadLock(Arc::new(node_lock(
        Controller::Ceph,
        NODE_W3,
        LockState::Failed,
        None,
    ))));
    assert_eq!(
        names(&blocking_locks(&snap)),
        [
            (Kind::NodeWorkloadLock, format!("ceph-{NODE_W3}")),
            (Kind::NodeWorkloadLock, format!("openstack-{NODE_W3}")),
            (Kind::NodeWorkloadLock, format!("tf-{NODE_W3}")),
        ]
    );
}

#[test]
fn a_cluster_lock_blocks_only_while_the_cluster_request_exists() {
    let mut snap = fixtures::mid_update();
    snap.apply(Object::ClusterWorkloadLock(Arc::new(cluster_lock(
        CEPH_CWL,
        Controller::Ceph,
        LockState::Active,
    ))));
    let blocking = blocking_locks(&snap);
    assert!(
        blocking.contains(&ObjectKey {
            kind: Kind::ClusterWorkloadLock,
            namespace: String::new(),
            name: CEPH_CWL.into(),
        }),
        "{blocking:?}"
    );
    // The update is over (no request): the held lock waits for the next one.
    let idle = fixtures::idle();
    assert!(idle.cluster_locks().any(|l| l.state == LockState::Active));
    assert!(blocking_locks(&idle).is_empty());
}

#[test]
fn a_node_queued_by_the_openstack_controller_blocks_nothing_yet() {
    let mut snap = fixtures::mid_update();
    // Worker-3's OpenStack lock says another node holds the slot (E-CONC).
    snap.apply(Object::NodeWorkloadLock(Arc::new(node_lock(
        Controller::Openstack,
        NODE_W3,
        LockState::Active,
        Some(&format!(
            "{} Number of inactive NodeWorkloadLocks exceeds allowed concurrency. Deferring processing for node {NODE_W3}",
            rockoon_stamp("10:01:00")
        )),
    ))));
    assert_eq!(
        names(&blocking_locks(&snap)),
        [(Kind::NodeWorkloadLock, format!("openstack-{NODE_W2}"))]
    );
}
