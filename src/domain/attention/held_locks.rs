//! Locks the update waits on: a node's workload lock
//! still `active` in the node's turn, a cluster lock still `active` while
//! the update waits on it. The root cause an operator looks for when LCM's
//! drain keeps retrying and the machine stalls: which lock, of which
//! controller, since when, saying what.

use jiff::{SignedDuration, Timestamp};

use super::{AttentionItem, AttentionKind, lock_key, machine_for_node, quote};
use crate::domain::blocking::blocking_locks;
use crate::domain::expected::Expected;
use crate::domain::history::History;
use crate::domain::objects::{
    ClusterState, ClusterStateType, Controller, LockState, Object, Snapshot, WorkloadLock,
};
use crate::domain::progress::human_duration;
use crate::domain::update_plan;

/// A lock whose message is about servers on the node belongs to the
/// migrations' rules (a running migration is progress; a failing one, a
/// manual migration or servers to notify are their items): not a held lock
/// here.
fn migration_lock(lock: &WorkloadLock) -> bool {
    lock.controller == Controller::Openstack
        && lock
            .error_message
            .as_ref()
            .is_some_and(|m| m.parsed().kind.is_about_servers())
}

/// What the lock itself says: its message, inner state and progress.
fn lock_says(lock: &WorkloadLock) -> String {
    let mut parts = Vec::new();
    match lock.error_message.as_ref().map(|m| m.parsed()) {
        Some(m) if !m.text.trim().is_empty() => parts.push(format!("it says {}", quote(&m.text))),
        _ => parts.push("it has no message".to_string()),
    }
    if let Some(s) = lock.inner_state.as_deref() {
        parts.push(format!("inner state {s}"));
    }
    if let Some(p) = lock.progress_percentage {
        let d = lock.progress_description.as_deref().unwrap_or("");
        parts.push(format!("progress {p}% {d}").trim_end().to_string());
    }
    parts.join("; ")
}

pub(super) fn held_locks(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    expected: &Expected,
    out: &mut Vec<AttentionItem>,
) {
    node_locks(snap, history, now, expected, out);
    cluster_locks(snap, history, now, expected, out);
}

fn node_locks(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    expected: &Expected,
    out: &mut Vec<AttentionItem>,
) {
    // The locks LCM waits on now (the one rule the Locks view marks too):
    // requested nodes, not queued by the OpenStack controller.
    let blocking = blocking_locks(snap);
    for r in snap.node_requests().filter(|r| !r.deleting) {
        let node = r.node_name.as_str();
        // The node's objects through the snapshot's index (2,000 machines,
        // a few requests): its machine (the last by key, as a map of every
        // machine by node kept), the active locks LCM waits on.
        let on_node = || snap.on_node(node);
        let machine = on_node()
            .filter_map(|o| match o {
                Object::Machine(m) => Some(&**m),
                _ => None,
            })
            .last();
        let locks: Vec<&WorkloadLock> = on_node()
            .filter_map(|o| match o {
                Object::NodeWorkloadLock(l) => Some(&**l),
                _ => None,
            })
            .filter(|l| l.state == LockState::Active && blocking.contains(&lock_key(l)))
            .collect();
        // The node's turn: its maintenance request's creation (exact), else
        // the console's first sight of it (a lower bound).
        let (turn, at_least) = match r.created {
            Some(c) => (c, false),
            None => (history.nmr_since(node).unwrap_or(now), true),
        };
        // Queued behind another node by the OpenStack controller, the
        // node's turn begins when the controller takes it up.
        let (turn, at_least) = match history.taken_up_after_queue(node) {
            Some(t) if t > turn => (t, false),
            _ => (turn, at_least),
        };
        // LCM's drain (cordon-drain, swarm-drain) of the node's machine
        // naming the controllers it waits for.
        let drain = machine.and_then(|m| drain_of(snap, &m.name));
        let named = drain
            .and_then(|s| s.message.as_ref())
            .and_then(|m| m.locks_still_active());
        for lock in locks {
            if migration_lock(lock) {
                continue;
            }
            let key = lock_key(lock);
            // Active since the turn began, or since it went active again
            // later in the turn.
            let since = match history.lock_since(&key) {
                Some(s) if s.observed && s.at > turn => s.at,
                _ => turn,
            };
            let waited = now.duration_since(since);
            let lcm_names_it = named.is_some_and(|n| n.names(lock.controller.as_str()));
            let (limit, limit_key): (SignedDuration, &str) = if lcm_names_it {
                (expected.lock_wait, "expected.lock_wait")
            } else {
                match machine {
                    Some(m) => expected.turn(&m.machine_type),
                    None => (expected.worker_turn, "expected.worker_turn"),
                }
            };
            if waited < limit {
                continue;
            }
            let mut why = format!(
                "{} NodeWorkloadLock {} is still active in the node's turn; {}",
                lock.controller,
                lock.name,
                lock_says(lock)
            );
            match drain {
                Some(s) if lcm_names_it => why.push_str(&format!(
                    "; LCM's {} waits for it: {}",
                    s.state_type,
                    quote(s.message.as_deref().unwrap_or_default())
                )),
                _ => why.push_str(&format!(
                    "; the node's turn has run longer than the expected {} ({limit_key})",
                    human_duration(limit)
                )),
            }
            out.push(AttentionItem {
                kind: AttentionKind::LockHeld,
                subject: machine
                    .map(|m| m.name.clone())
                    .or_else(|| machine_for_node(snap, node))
                    .unwrap_or_else(|| node.to_string()),
                node: Some(node.to_string()),
                why,
                since,
                at_least: at_least && since == turn,
                since_inferred: None,
                action: None,
                key,
                symptoms: Vec::new(),
                unraised_since: None,
            });
        }
    }
}

/// LCM's drain of machine `name` (the last by key) whose message names
/// the controllers it waits for.
fn drain_of<'a>(snap: &'a Snapshot, name: &str) -> Option<&'a ClusterState> {
    snap.of_machine(name)
        .filter_map(|o| match o {
            Object::ClusterState(s) => Some(&**s),
            _ => None,
        })
        .filter(|s| {
            matches!(
                s.state_type,
                ClusterStateType::CordonDrain | ClusterStateType::SwarmDrain
            ) && s.arg.as_deref() == Some(name)
                && s.message
                    .as_ref()
                    .is_some_and(|m| m.locks_still_active().is_some())
        })
        .last()
}

fn cluster_locks(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    expected: &Expected,
    out: &mut Vec<AttentionItem>,
) {
    // Only while an update runs: outside one, cluster locks are active by
    // design (the controllers hold their workloads) [C: D-OBJ].
    let Some(started) = history
        .update_started()
        .or_else(|| snap.cluster_requests().filter_map(|r| r.created).min())
    else {
        return;
    };
    // A request being deleted: the controllers take their locks back.
    if !snap.cluster_requests().any(|r| !r.deleting) {
        return;
    }
    // An update plan that is not running (not started, paused before a
    // step, auto-paused, failed) holds the update itself: the locks wait
    // for its `commence`, which the plan's own items say.
    if let Some(plan) = update_plan::active_plan(snap, None) {
        let state = update_plan::state(plan, update_plan::auto_pause_for(snap, plan));
        if !matches!(
            state,
            update_plan::PlanState::Running { .. } | update_plan::PlanState::Done
        ) {
            return;
        }
    }
    // The first active lock in the update's order holds the others: Ceph
    // waits for OpenStack, LCM for every lock (reference §9.1 [C: D-FLOW]).
    let order = |c: &Controller| match c {
        Controller::Openstack => 0,
        Controller::Ceph => 1,
        Controller::Tungstenfabric => 2,
        _ => 3,
    };
    let first = snap
        .cluster_locks()
        .filter(|l| l.state == LockState::Active)
        .min_by_key(|l| (order(&l.controller), l.name.clone()));
    if let Some(lock) = first {
        let key = lock_key(lock);
        // Its turn began when the update started or, for a lock after the
        // first in the update's order, when the console saw the locks
        // before it released (Ceph's turn begins when OpenStack's ends);
        // later still if the console saw this one go active again.
        let turn = snap
            .cluster_locks()
            .filter(|l| {
                order(&l.controller) < order(&lock.controller) && l.state == LockState::Inactive
            })
            .filter_map(|l| history.lock_since(&lock_key(l)))
            .filter(|s| s.observed)
            .map(|s| s.at)
            .fold(started, Timestamp::max);
        let (since, at_least) = match history.lock_since(&key) {
            Some(s) if s.observed && s.at > turn => (s.at, false),
            _ => (turn, false),
        };
        let waited = now.duration_since(since);
        if waited < expected.cluster_lock {
            return;
        }
        out.push(AttentionItem {
            kind: AttentionKind::LockHeld,
            subject: lock.name.clone(),
            node: None,
            why: format!(
                "{} ClusterWorkloadLock {} is still active while the update waits on it, longer than the expected {} (expected.cluster_lock); {}",
                lock.controller,
                lock.name,
                human_duration(expected.cluster_lock),
                lock_says(lock)
            ),
            since,
            at_least,
            since_inferred: None,
            action: None,
            key,
            symptoms: Vec::new(),
            unraised_since: None,
        });
    }
}
