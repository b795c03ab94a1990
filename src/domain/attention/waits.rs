//! Each wait keeps one identity for its life.
//!
//! The queue is computed again from the objects at every change, and the
//! objects do not hold still while a node waits: the OpenStack controller
//! rewrites its lock's message at every retry (a start, an error, the
//! servers left, a start again, about a minute apart), so what one
//! computation reads as "migration failing" the next may read as "servers
//! left", or as nothing for a few seconds. Shown as computed, the item
//! flapped: raised and cleared about once a minute, its age reset each
//! time, the cursor thrown off it, the session report one row per cycle.
//!
//! [`Waits`] carries the items across computations:
//! - an item is known by its [`AttentionItem::id`]: the cause and the node
//!   (or the object when no node applies), not the message's wording, so it
//!   changes its kind in place when the evidence changes;
//! - its age counts from the first evidence of that cause over its life
//!   (the earliest `since` any computation gave it);
//! - an item a computation no longer raises is cleared at once only on
//!   evidence that its cause is gone (its object deleted, its lock
//!   released, or it is its own cause: a plan's pause, a reminder);
//!   otherwise it is held for [`HOLD`], marked as not raised
//!   since its last sighting, so that a gap between two messages is not
//!   taken for a clearance.

use std::collections::{HashMap, HashSet};

use jiff::{SignedDuration, Timestamp};

use super::{AttentionItem, Cause, sort};
use crate::domain::join::same_node;
use crate::domain::objects::{LockState, Object, Snapshot};

/// How long an item that is no longer raised stays in the queue without
/// evidence that its cause is gone: longer than the OpenStack controller's
/// retry interval (kopf's 60 s in MOSK, `retry_interval` in the scenarios),
/// with room for the migration attempt between two messages. [I] The
/// retry interval is the chart's default; a slower controller would still
/// flap, with items marked "not raised since" while held.
pub const HOLD: SignedDuration = SignedDuration::from_secs(150);

/// The items of the queue across its computations. See the module
/// documentation.
#[derive(Debug, Clone, Default)]
pub struct Waits {
    open: HashMap<String, Open>,
}

#[derive(Debug, Clone)]
struct Open {
    /// The first evidence of the cause.
    since: Timestamp,
    at_least: bool,
    since_inferred: Option<&'static str>,
    /// When a computation last raised it.
    last_raised: Timestamp,
    /// The item as last raised.
    item: AttentionItem,
}

impl Waits {
    pub fn new() -> Waits {
        Waits::default()
    }

    /// The queue to show, from a fresh computation `fresh` at `now`: every
    /// item aged from the first evidence of its cause, and the items no
    /// longer raised held while nothing says their cause is gone.
    pub fn carry(
        &mut self,
        fresh: Vec<AttentionItem>,
        snap: &Snapshot,
        now: Timestamp,
    ) -> Vec<AttentionItem> {
        let mut out = Vec::with_capacity(fresh.len());
        let mut raised = HashSet::with_capacity(fresh.len());
        for mut item in fresh {
            let id = item.id();
            match self.open.get_mut(&id) {
                Some(open) => {
                    let earlier = (item.since, !item.at_least) < (open.since, !open.at_least);
                    if earlier {
                        open.since = item.since;
                        open.at_least = item.at_least;
                        open.since_inferred = item.since_inferred;
                    } else {
                        item.since = open.since;
                        item.at_least = open.at_least;
                        item.since_inferred = open.since_inferred;
                    }
                    open.last_raised = now;
                    open.item = item.clone();
                }
                None => {
                    self.open.insert(
                        id.clone(),
                        Open {
                            since: item.since,
                            at_least: item.at_least,
                            since_inferred: item.since_inferred,
                            last_raised: now,
                            item: item.clone(),
                        },
                    );
                }
            }
            raised.insert(id);
            out.push(item);
        }
        let shown = out.len();
        self.open.retain(|id, open| {
            if raised.contains(id) {
                return true;
            }
            let held_for = now.duration_since(open.last_raised);
            if held_for > HOLD
                || held_for.is_negative()
                || cause_gone(&open.item, snap)
                || folded_elsewhere(&open.item, &out[..shown])
            {
                return false;
            }
            let mut item = open.item.clone();
            item.since = open.since;
            item.at_least = open.at_least;
            item.since_inferred = open.since_inferred;
            item.unraised_since = Some(open.last_raised);
            out.push(item);
            true
        });
        sort(&mut out);
        out
    }
}

/// The objects say the cause is gone: the object the item is about was
/// deleted, or the lock it waits on (or reads the servers from) was
/// released. An item that is its own cause (a plan's pause or step, a
/// reminder, a malformed object) is read from one object's fields, not
/// from a controller's cycling message: when it is not raised, it is gone.
fn cause_gone(item: &AttentionItem, snap: &Snapshot) -> bool {
    if item.kind.cause() == Cause::Own {
        return true;
    }
    match snap.objects().get(&item.key) {
        None => true,
        Some(Object::NodeWorkloadLock(l) | Object::ClusterWorkloadLock(l)) => {
            l.state == LockState::Inactive
        }
        Some(_) => false,
    }
}

/// A symptom standing alone that the last computation folded under a
/// cause of the same node: the wait goes on under that item.
fn folded_elsewhere(item: &AttentionItem, raised: &[AttentionItem]) -> bool {
    let Some(node) = &item.node else {
        return false;
    };
    super::is_symptom(item.kind)
        && raised.iter().any(|r| {
            r.node.as_deref().is_some_and(|n| same_node(n, node))
                && r.symptoms.iter().any(|s| s.kind == item.kind)
        })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::domain::attention::{AttentionKind, attention};
    use crate::domain::fixtures::{self, names::*};

    /// The mid-update fixture's manual-migration item on worker 3, and the
    /// snapshot it was computed from.
    fn manual() -> (AttentionItem, Snapshot, Timestamp) {
        let sc = fixtures::mid_update_scenario();
        let now = fixtures::mid_update_now();
        let item = attention(&sc.snap, &sc.history, now)
            .into_iter()
            .find(|i| i.kind == AttentionKind::ManualMigration && i.subject == WORKER_3)
            .unwrap();
        (item, sc.snap, now)
    }

    #[test]
    fn a_new_reading_of_the_same_cause_changes_the_item_in_place_and_keeps_its_first_evidence() {
        let (item, snap, now) = manual();
        let mut waits = Waits::new();
        let first = waits.carry(vec![item.clone()], &snap, now);
        assert_eq!(first.len(), 1);
        // A minute later the message reads as a failing migration, counted
        // from a later start.
        let mut failing = item.clone();
        failing.kind = AttentionKind::MigrationFailing;
        failing.since = now + SignedDuration::from_secs(30);
        let later = now + SignedDuration::from_mins(1);
        let q = waits.carry(vec![failing], &snap, later);
        assert_eq!(q.len(), 1, "{q:#?}");
        assert_eq!(q[0].kind, AttentionKind::MigrationFailing);
        assert_eq!(q[0].id(), item.id());
        assert_eq!(q[0].since, item.since, "aged from the first evidence");
        // An earlier evidence found later moves the start back.
        let mut earlier = item.clone();
        earlier.since = item.since - SignedDuration::from_mins(5);
        let q = waits.carry(vec![earlier.clone()], &snap, later);
        assert_eq!(q[0].since, earlier.since);
    }

    #[test]
    fn an_item_no_longer_raised_is_held_then_cleared() {
        let (item, snap, now) = manual();
        let mut waits = Waits::new();
        waits.carry(vec![item.clone()], &snap, now);
        // A message gap: not raised for a minute, its lock still active.
        let q = waits.carry(Vec::new(), &snap, now + SignedDuration::from_mins(1));
        assert_eq!(q.len(), 1, "held through the gap");
        assert_eq!(q[0].unraised_since, Some(now));
        assert_eq!(q[0].since, item.since);
        // Raised again: no longer marked.
        let q = waits.carry(
            vec![item.clone()],
            &snap,
            now + SignedDuration::from_mins(2),
        );
        assert_eq!(q[0].unraised_since, None);
        // Not raised for longer than the hold: cleared.
        let gone_at = now + SignedDuration::from_mins(2) + HOLD + SignedDuration::from_secs(1);
        assert!(waits.carry(Vec::new(), &snap, gone_at).is_empty());
    }

    #[test]
    fn a_released_lock_clears_its_item_at_once() {
        let (item, mut snap, now) = manual();
        let mut waits = Waits::new();
        waits.carry(vec![item.clone()], &snap, now);
        let Some(Object::NodeWorkloadLock(lock)) = snap.objects().get(&item.key).cloned() else {
            panic!("the item is about a lock: {:?}", item.key);
        };
        let mut lock = lock;
        Arc::make_mut(&mut lock).state = LockState::Inactive;
        snap.apply(Object::NodeWorkloadLock(lock));
        let q = waits.carry(Vec::new(), &snap, now + SignedDuration::from_secs(10));
        assert!(q.is_empty(), "{q:#?}");
    }

    #[test]
    fn a_deleted_object_clears_its_item_at_once() {
        let (item, mut snap, now) = manual();
        let mut waits = Waits::new();
        waits.carry(vec![item.clone()], &snap, now);
        snap.remove(&item.key);
        assert!(
            waits
                .carry(Vec::new(), &snap, now + SignedDuration::from_secs(10))
                .is_empty()
        );
    }
}
