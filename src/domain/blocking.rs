//! Which workload locks block the update's progress now: the rule the Locks
//! view marks and the root causes reuse.
//!
//! A lock blocks when LCM waits for it to become `inactive` before it goes
//! on (mosk-lcm-api §2.4: `active` means "LCM must not touch the cluster or
//! node"; §9.1 [C: D-FLOW]):
//! - a NodeWorkloadLock that is not `inactive` while its node's
//!   NodeMaintenanceRequest exists (and is not being deleted): the machine's
//!   turn has come and LCM waits for every lock of the node before the drain
//!   (§9.1 step 4);
//! - a ClusterWorkloadLock that is not `inactive` while a
//!   ClusterMaintenanceRequest exists (and is not being deleted): LCM touches
//!   no machine while a cluster lock is held (§9.1 step 2).
//!
//! Inferred [I]: a `failed` lock blocks like an `active` one (LCM cannot go
//! on until it is `inactive`; no source says what LCM does with `failed`),
//! and a cluster lock still held after the machines were updated blocks the
//! finalization (the request's removal) — the reference says only that the
//! request is removed at the end. A request being deleted no longer waits on
//! anything: its node or cluster is being handed back.

use std::collections::BTreeSet;

use crate::domain::join::short_node as short;
use crate::domain::lockmsg::MessageKind;
use crate::domain::objects::{Kind, LockState, Object, ObjectKey, Snapshot, WorkloadLock};

/// Whether a lock's state holds LCM back (`active`, `failed`); an unknown
/// state is not counted (the console cannot tell what it means).
fn holds(lock: &WorkloadLock) -> bool {
    matches!(lock.state, LockState::Active | LockState::Failed)
}

fn key(kind: Kind, lock: &WorkloadLock) -> ObjectKey {
    ObjectKey {
        kind,
        namespace: String::new(),
        name: lock.name.clone(),
    }
}

/// The keys of the locks that block the update's progress now.
pub fn blocking_locks(snap: &Snapshot) -> BTreeSet<ObjectKey> {
    let mut out = BTreeSet::new();
    let update_running = snap.cluster_requests().any(|r| !r.deleting);
    if update_running {
        out.extend(
            snap.cluster_locks()
                .filter(|l| holds(l))
                .map(|l| key(Kind::ClusterWorkloadLock, l)),
        );
    }
    // The requested nodes by short name (what `same_node` compares); each
    // read through the snapshot's index of its objects, so the cost is
    // that of the nodes in maintenance, not of every lock.
    let requested: BTreeSet<&str> = snap
        .node_requests()
        .filter(|r| !r.deleting)
        .map(|r| short(&r.node_name))
        .collect();
    for node in requested {
        if queued(snap, node) {
            continue;
        }
        out.extend(snap.on_node(node).filter_map(|o| match o {
            Object::NodeWorkloadLock(l) if holds(l) => Some(key(Kind::NodeWorkloadLock, l)),
            _ => None,
        }));
    }
    out
}

/// The lock says the OpenStack controller deferred its node.
fn deferred(lock: &WorkloadLock) -> bool {
    lock.error_message
        .as_ref()
        .is_some_and(|m| matches!(m.parsed().kind, MessageKind::ConcurrencyDeferred { .. }))
}

/// Whether the OpenStack lock of `node` (any form of its name) says the
/// controller deferred it: another node holds the maintenance slot (E-CONC,
/// reference §3.9). Its request exists, but its turn has not come: LCM is
/// not waiting on its locks yet [I]. Read through the snapshot's index of
/// the node's objects.
pub fn queued(snap: &Snapshot, node: &str) -> bool {
    snap.on_node(node).any(|o| match o {
        Object::NodeWorkloadLock(l) => deferred(l),
        _ => false,
    })
}

#[cfg(test)]
mod tests;
