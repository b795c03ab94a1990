//! What `update` settles after each batch of messages is what a fresh
//! computation from the model would give: the joined machine rows (also
//! when only some machines were re-joined), and the table of the view on
//! screen, filtered and sorted. Mixed batches of watch events, re-lists,
//! missing CRDs and keys, as the runtime applies them together.

use crate::domain::fixtures;
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jiff::SignedDuration;
use mosk_console::app::logs::OVERVIEW_TAIL_EVERY;
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::tables::{shown, table, visible_order};
use mosk_console::app::update::{update, update_batch};
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::domain::join::machine_rows;
use mosk_console::domain::objects::{
    ClusterStateType, Kind, LockState, MachineState, MigrationMode, Object, ObjectKey, Snapshot,
};
use mosk_console::domain::phase::phase;
use std::sync::Arc;

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

/// The rows, the phase and the current view's table equal a fresh
/// computation.
fn assert_settled(m: &Model, what: &str) {
    assert!(
        m.derived.rows == machine_rows(&m.snapshot),
        "{what}: machine rows differ from the whole join"
    );
    // The phase is kept while none of the kinds it reads moved.
    if let Some(kept) = &m.derived.phase {
        assert_eq!(
            *kept,
            phase(&m.snapshot, &m.history),
            "{what}: the phase differs from a fresh one"
        );
    }
    if m.view.is_table() {
        let t = shown(m, m.view).unwrap_or_else(|| panic!("{what}: no table for {:?}", m.view));
        let fresh = table(m, m.view);
        assert!(t.data == fresh, "{what}: {:?} table is stale", m.view);
        assert_eq!(
            t.order,
            visible_order(&fresh, &m.cursor(m.view)),
            "{what}: {:?} order",
            m.view
        );
    }
}

/// A small deterministic generator (no dependency needed for this).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// A change to one object of `snap` (a new version, or its deletion).
fn change(snap: &Snapshot, all: &Snapshot, rng: &mut Lcg) -> Msg {
    let keys: Vec<&ObjectKey> = all.objects().keys().collect();
    let k = keys[rng.below(keys.len())];
    let Some(current) = snap.objects().get(k) else {
        // Gone: it comes back.
        return Msg::Cluster(ClusterEvent::Applied(all.objects()[k].clone()));
    };
    let ev = match (current.clone(), rng.below(4)) {
        (_, 0) => ClusterEvent::Deleted(k.clone()),
        (Object::Machine(mut m), _) => {
            let m_ = Arc::make_mut(&mut m);
            m_.state = if m_.state == MachineState::Ready {
                MachineState::Deploy
            } else {
                MachineState::Ready
            };
            ClusterEvent::Applied(Object::Machine(m))
        }
        (Object::NodeWorkloadLock(mut l), _) => {
            let l_ = Arc::make_mut(&mut l);
            l_.state = match l_.state {
                LockState::Active => LockState::Inactive,
                _ => LockState::Active,
            };
            if rng.below(3) == 0 {
                // Onto another machine's node.
                l_.node_name = snap
                    .machines()
                    .nth(rng.below(8))
                    .and_then(|m| m.hostname.clone());
            }
            ClusterEvent::Applied(Object::NodeWorkloadLock(l))
        }
        (Object::Node(mut n), _) => {
            Arc::make_mut(&mut n).migration_mode = Some(MigrationMode::Manual);
            ClusterEvent::Applied(Object::Node(n))
        }
        // What the phase reads besides the machines and the requests: a
        // cluster lock held or released, the release LCM drives to, a
        // machine's state (a drain) pending or reached.
        (Object::ClusterWorkloadLock(mut l), _) => {
            let l_ = Arc::make_mut(&mut l);
            l_.state = match l_.state {
                LockState::Inactive => LockState::Active,
                _ => LockState::Inactive,
            };
            ClusterEvent::Applied(Object::ClusterWorkloadLock(l))
        }
        (Object::LcmCluster(mut c), _) => {
            let c_ = Arc::make_mut(&mut c);
            c_.target_release = match c_.target_release.as_deref() {
                Some("another-release") => c_.current_release.clone(),
                _ => Some("another-release".into()),
            };
            ClusterEvent::Applied(Object::LcmCluster(c))
        }
        (Object::ClusterState(mut cs), _) => {
            let cs_ = Arc::make_mut(&mut cs);
            cs_.state_type = ClusterStateType::CordonDrain;
            cs_.value = Some("true".into());
            cs_.actual_value = match cs_.actual_value.as_deref() {
                Some("true") => None,
                _ => Some("true".into()),
            };
            ClusterEvent::Applied(Object::ClusterState(cs))
        }
        (other, _) => ClusterEvent::Applied(other),
    };
    Msg::Cluster(ev)
}

fn relist(all: &Snapshot, rng: &mut Lcg) -> Msg {
    let kind = Kind::ALL[rng.below(Kind::ALL.len())];
    let objects: Vec<Object> = all
        .of_kind(kind)
        .filter(|_| rng.below(3) != 0)
        .cloned()
        .collect();
    Msg::Cluster(ClusterEvent::Resynced { kind, objects })
}

#[test]
fn mixed_batches_settle_to_what_a_fresh_computation_gives() {
    let all = fixtures::mid_update();
    let mut m = with_view(View::Machines);
    let mut rng = Lcg(7);
    let keys = ['j', 'k', 's', 'S', '2', '3', '4', '5', '8', 'j'];
    for batch_no in 0..300 {
        let mut batch = Vec::new();
        for _ in 0..1 + rng.below(6) {
            batch.push(match rng.below(10) {
                0 => relist(&all, &mut rng),
                1 => key(keys[rng.below(keys.len())]),
                _ => change(&m.snapshot, &all, &mut rng),
            });
            if rng.below(4) == 0 {
                // Messages already applied in this batch change what the
                // next change sees.
                update_batch(&mut m, std::mem::take(&mut batch));
            }
        }
        update_batch(&mut m, batch);
        assert_settled(&m, &format!("batch {batch_no}"));
    }
}

#[test]
fn a_relist_between_two_changes_of_one_batch_is_not_lost() {
    let mut m = with_view(View::Machines);
    let snap = m.snapshot.clone();
    let mut machines = snap.machines().cloned();
    let (a, c) = (machines.next().unwrap(), machines.next().unwrap());
    // Every node lock released by a re-list, between two machine changes.
    let released: Vec<Object> = snap
        .node_locks()
        .map(|l| {
            let mut l = l.clone();
            l.state = LockState::Inactive;
            Object::NodeWorkloadLock(Arc::new(l))
        })
        .collect();
    update_batch(
        &mut m,
        [
            Msg::Cluster(ClusterEvent::Applied(Object::Machine(Arc::new(a)))),
            Msg::Cluster(ClusterEvent::Resynced {
                kind: Kind::NodeWorkloadLock,
                objects: released,
            }),
            Msg::Cluster(ClusterEvent::Applied(Object::Machine(Arc::new(c)))),
        ],
    );
    assert_settled(&m, "after the batch");
    assert!(
        m.derived
            .rows
            .iter()
            .all(|r| r.locks.iter().all(|l| l.lock.state == LockState::Inactive)),
        "a row still shows a lock the re-list released"
    );
}

#[test]
fn a_key_after_a_view_switch_in_one_batch_acts_on_the_new_views_rows_as_they_are() {
    let mut m = with_view(View::Locks);
    // The cursor on the last row: a node lock.
    update(&mut m, key('G'));
    let t = shown(&m, View::Locks).unwrap();
    let last = t.row(t.order.len() - 1).unwrap();
    assert!(last.node.is_some(), "{last:?}");
    update(&mut m, key('2'));
    // While the Machines view is shown, every node lock goes away.
    for l in m.snapshot.node_locks().cloned().collect::<Vec<_>>() {
        let k = Object::NodeWorkloadLock(Arc::new(l)).key();
        update(&mut m, Msg::Cluster(ClusterEvent::Deleted(k)));
    }
    // Back to Locks and `space` at once: the row under the cursor is a
    // cluster lock (not on a node), not a node lock from the last visit.
    update_batch(&mut m, [key('4'), key(' ')]);
    assert!(m.selected_nodes().is_empty(), "{:?}", m.selections);
    assert_settled(&m, "after the switch");
}

#[test]
fn a_crd_going_missing_is_said_even_when_no_object_changed() {
    let mut m = with_view(View::Requests);
    update(
        &mut m,
        Msg::Cluster(ClusterEvent::Resynced {
            kind: Kind::ClusterMaintenanceRequest,
            objects: Vec::new(),
        }),
    );
    update(
        &mut m,
        Msg::Cluster(ClusterEvent::Resynced {
            kind: Kind::NodeMaintenanceRequest,
            objects: Vec::new(),
        }),
    );
    let before = shown(&m, View::Requests).unwrap().data.missing.clone();
    assert!(before.is_empty());
    update(
        &mut m,
        Msg::Cluster(ClusterEvent::KindMissing {
            kind: Kind::NodeMaintenanceRequest,
            message: "the server could not find the requested resource".into(),
        }),
    );
    let after = &shown(&m, View::Requests).unwrap().data.missing;
    assert_eq!(after.len(), 1, "{after:?}");
    assert!(after[0].contains("NodeMaintenanceRequest"), "{after:?}");
}

#[test]
fn the_overview_log_tail_moves_every_few_seconds_and_never_freezes() {
    let mut m = with_view(View::Overview);
    let t0 = now();
    update(&mut m, Msg::Tick(t0));
    let first = m.logs.overview_upto;
    assert!(first.is_some());
    let line = |text: &str| {
        Msg::Cluster(ClusterEvent::LogLines {
            pod: "lcm-controller".into(),
            lines: vec![text.to_string()],
        })
    };
    update(&mut m, line("one more line"));
    // Within the period the tail stays; after it, it moves.
    update(&mut m, Msg::Tick(t0 + SignedDuration::from_secs(1)));
    assert_eq!(m.logs.overview_upto, first);
    update(&mut m, Msg::Tick(t0 + OVERVIEW_TAIL_EVERY));
    assert_eq!(m.logs.overview_upto, first.map(|s| s + 1));
    // This machine's clock steps back an hour: the tail still moves.
    update(&mut m, line("after the step"));
    update(&mut m, Msg::Tick(t0 - SignedDuration::from_hours(1)));
    assert_eq!(m.logs.overview_upto, first.map(|s| s + 2));
}

/// The attention queue is computed again every `ATTENTION_EVERY` of model
/// time while nothing changes (ages are drawn live from each item's start),
/// at once when the clusters change, and an item that a clock threshold
/// raises shows up at most `ATTENTION_EVERY` late.
#[test]
fn the_attention_queue_follows_the_clock_every_few_seconds_and_changes_at_once() {
    use mosk_console::app::derive::ATTENTION_EVERY;
    use mosk_console::domain::attention::queue;
    let mut m = with_view(View::Overview);
    let fresh = |m: &Model, at| {
        queue(
            &m.snapshot,
            &m.history,
            at,
            &m.dismissed_reminders,
            &m.expected,
        )
    };
    // The first time after `from` at which the queue changes with the clock alone.
    let threshold = |m: &Model, from: jiff::Timestamp| {
        let mut t = from;
        let first = fresh(m, t);
        for _ in 0..4 * 3600 {
            t += SignedDuration::from_secs(1);
            if fresh(m, t) != first {
                return t;
            }
        }
        panic!("nothing in the queue depends on the clock within 4 hours");
    };
    let sec = SignedDuration::from_secs;
    let t0 = now();
    update(&mut m, Msg::Tick(t0));
    assert_eq!(m.derived.attention_at, Some(t0));
    // Within the period: kept; at its end: computed again.
    update(&mut m, Msg::Tick(t0 + sec(1)));
    update(&mut m, Msg::Tick(t0 + ATTENTION_EVERY - sec(1)));
    assert_eq!(m.derived.attention_at, Some(t0));
    assert_eq!(m.derived.attention, fresh(&m, t0));
    update(&mut m, Msg::Tick(t0 + ATTENTION_EVERY));
    assert_eq!(m.derived.attention_at, Some(t0 + ATTENTION_EVERY));
    // A change to the clusters computes it at once.
    let t1 = t0 + ATTENTION_EVERY + sec(1);
    update(&mut m, Msg::Tick(t1));
    let lock = m.snapshot.node_locks().next().cloned().unwrap();
    let mut changed = lock.clone();
    changed.state = LockState::Failed;
    update(
        &mut m,
        Msg::Cluster(ClusterEvent::Applied(Object::NodeWorkloadLock(Arc::new(
            changed,
        )))),
    );
    assert_eq!(m.derived.attention_at, Some(t1));
    assert_eq!(m.derived.attention, fresh(&m, t1));
    // A threshold the clock crosses: shown within the period, never later.
    let at = threshold(&m, t1);
    update(&mut m, Msg::Tick(at - sec(1)));
    let mut t = at - sec(1);
    while m.derived.attention != fresh(&m, at) {
        t += sec(1);
        assert!(t <= at + ATTENTION_EVERY, "not shown {t} (threshold {at})");
        update(&mut m, Msg::Tick(t));
    }
}
