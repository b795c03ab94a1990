use std::collections::BTreeMap;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::domain::objects::{MalformedObject, Object};

/// An object of `kind` named `name` in its version `v` (the simplest
/// object that carries a kind, a name and a changing field).
fn obj(kind: Kind, name: &str, v: u32) -> Object {
    Object::Malformed(Arc::new(MalformedObject {
        kind,
        namespace: String::new(),
        name: name.into(),
        error: format!("v{v}"),
    }))
}

fn applied(kind: Kind, name: &str, v: u32) -> ClusterEvent {
    ClusterEvent::Applied(obj(kind, name, v))
}

fn deleted(kind: Kind, name: &str) -> ClusterEvent {
    ClusterEvent::Deleted(obj(kind, name, 0).key())
}

fn resynced(kind: Kind, objects: Vec<Object>) -> ClusterEvent {
    ClusterEvent::Resynced { kind, objects }
}

fn drain(rx: &mut EventReceiver) -> Vec<ClusterEvent> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

#[test]
fn the_latest_state_of_an_object_wins_in_the_place_of_the_latest() {
    let (tx, mut rx) = channel();
    for ev in [
        applied(Kind::Node, "a", 1),
        applied(Kind::Node, "b", 1),
        applied(Kind::Node, "a", 2),
        applied(Kind::NodeWorkloadLock, "a", 1),
    ] {
        tx.send(ev).unwrap();
    }
    assert_eq!(
        drain(&mut rx),
        [
            applied(Kind::Node, "b", 1),
            applied(Kind::Node, "a", 2),
            applied(Kind::NodeWorkloadLock, "a", 1),
        ]
    );
    assert_eq!(rx.stats().merged, 1);
}

#[test]
fn a_delete_after_an_apply_keeps_the_delete_and_an_apply_after_it_wins() {
    let (tx, mut rx) = channel();
    tx.send(applied(Kind::Node, "a", 1)).unwrap();
    tx.send(deleted(Kind::Node, "a")).unwrap();
    assert_eq!(drain(&mut rx), [deleted(Kind::Node, "a")]);
    tx.send(deleted(Kind::Node, "a")).unwrap();
    tx.send(applied(Kind::Node, "a", 3)).unwrap();
    assert_eq!(drain(&mut rx), [applied(Kind::Node, "a", 3)]);
}

#[test]
fn a_resync_replaces_the_pending_events_of_its_kind_only() {
    let (tx, mut rx) = channel();
    tx.send(applied(Kind::Node, "a", 1)).unwrap();
    tx.send(applied(Kind::NodeWorkloadLock, "l", 1)).unwrap();
    tx.send(deleted(Kind::Node, "b")).unwrap();
    tx.send(resynced(Kind::Node, vec![obj(Kind::Node, "x", 1)]))
        .unwrap();
    // After the list, a change of the kind comes after it again.
    tx.send(applied(Kind::Node, "x", 2)).unwrap();
    tx.send(resynced(Kind::NodeWorkloadLock, vec![])).unwrap();
    assert_eq!(
        drain(&mut rx),
        [
            resynced(Kind::Node, vec![obj(Kind::Node, "x", 1)]),
            applied(Kind::Node, "x", 2),
            resynced(Kind::NodeWorkloadLock, vec![]),
        ]
    );
    // A second list replaces the first; a missing kind replaces both.
    tx.send(resynced(Kind::Node, vec![obj(Kind::Node, "x", 1)]))
        .unwrap();
    tx.send(applied(Kind::Node, "y", 1)).unwrap();
    let missing = ClusterEvent::KindMissing {
        kind: Kind::Node,
        message: "gone".into(),
    };
    tx.send(missing.clone()).unwrap();
    assert_eq!(drain(&mut rx), [missing]);
}

#[test]
fn health_and_clocks_keep_their_latest_and_drift_adds_up() {
    let (tx, mut rx) = channel();
    let health = |connected| ClusterEvent::Health {
        kind: Kind::Node,
        health: crate::cluster::events::WatchHealth {
            cluster: ClusterId::Mosk,
            connected,
            last_event: None,
            last_error: None,
            retry_at: None,
            problem: Default::default(),
        },
    };
    let drift = |count| ClusterEvent::Drift {
        kind: Kind::Node,
        count,
    };
    let status = |m: &str| ClusterEvent::LogStatus { message: m.into() };
    for ev in [
        health(false),
        drift(2),
        status("reconnecting"),
        health(true),
        drift(3),
        status("following p"),
    ] {
        tx.send(ev).unwrap();
    }
    assert_eq!(
        drain(&mut rx),
        [health(true), drift(5), status("following p")]
    );
}

fn lines(pod: &str, from: usize, to: usize) -> ClusterEvent {
    ClusterEvent::LogLines {
        pod: pod.into(),
        lines: (from..to).map(|i| format!("line {i}")).collect(),
    }
}

#[test]
fn log_lines_are_bounded_and_the_gap_is_named_where_it_is() {
    let (tx, mut rx) = channel();
    tx.send(lines("p", 0, 10)).unwrap();
    assert_eq!(drain(&mut rx), [lines("p", 0, 10)]);
    // A flood: far more lines than may wait, in batches of 200.
    let total = LOG_BACKLOG + 2_500;
    for from in (10..10 + total).step_by(200) {
        tx.send(lines("p", from, (from + 200).min(10 + total)))
            .unwrap();
    }
    let got = drain(&mut rx);
    let [ClusterEvent::LogLines { pod, lines: l }] = got.as_slice() else {
        panic!("one batch of lines expected: {got:?}");
    };
    assert_eq!(pod, "p");
    assert_eq!(l.len(), LOG_BACKLOG + 1);
    assert_eq!(l[0], dropped_lines_note(2_500));
    // The newest lines are kept, in order, after the note.
    assert_eq!(l[1], "line 2510");
    assert_eq!(l[LOG_BACKLOG], format!("line {}", 10 + total - 1));
    assert_eq!(rx.stats().dropped_lines, 2_500);
    // Nothing dropped since: no note.
    tx.send(lines("p", 0, 1)).unwrap();
    assert_eq!(drain(&mut rx), [lines("p", 0, 1)]);
}

#[test]
fn lines_of_another_pod_stay_a_batch_of_their_own() {
    let (tx, mut rx) = channel();
    tx.send(lines("old", 0, 2)).unwrap();
    tx.send(lines("new", 0, 1)).unwrap();
    tx.send(lines("new", 1, 2)).unwrap();
    assert_eq!(drain(&mut rx), [lines("old", 0, 2), lines("new", 0, 2)]);
}

/// Random bursts of changes, deletes and lists over a few objects, read at
/// random moments: what the receiver builds is always what the sender built,
/// and what is pending never exceeds one event per object and slot.
#[test]
fn a_final_state_is_never_lost() {
    let kinds = [Kind::Node, Kind::NodeWorkloadLock];
    for seed in 0..200 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let (tx, mut rx) = channel();
        let mut truth: BTreeMap<ObjectKey, Object> = BTreeMap::new();
        let mut seen: BTreeMap<ObjectKey, Object> = BTreeMap::new();
        let apply = |state: &mut BTreeMap<ObjectKey, Object>, ev: &ClusterEvent| match ev {
            ClusterEvent::Applied(o) => {
                state.insert(o.key(), o.clone());
            }
            ClusterEvent::Deleted(k) => {
                state.remove(k);
            }
            ClusterEvent::Resynced { kind, objects } => {
                state.retain(|k, _| k.kind != *kind);
                state.extend(objects.iter().map(|o| (o.key(), o.clone())));
            }
            _ => {}
        };
        for step in 0..400u32 {
            let kind = kinds[rng.random_range(0..kinds.len())];
            let name = format!("o{}", rng.random_range(0..6));
            let ev = match rng.random_range(0..10) {
                0..6 => applied(kind, &name, step),
                6..9 => deleted(kind, &name),
                _ => {
                    let objects = (0..rng.random_range(0..4))
                        .map(|i| obj(kind, &format!("o{i}"), step))
                        .collect();
                    resynced(kind, objects)
                }
            };
            apply(&mut truth, &ev);
            tx.send(ev).unwrap();
            assert!(rx.len() <= 2 * (6 + 1), "seed {seed}: {} pending", rx.len());
            if rng.random_range(0..8) == 0 {
                for _ in 0..rng.random_range(0..5) {
                    match rx.try_recv() {
                        Ok(ev) => apply(&mut seen, &ev),
                        Err(_) => break,
                    }
                }
            }
        }
        for ev in drain(&mut rx) {
            apply(&mut seen, &ev);
        }
        assert_eq!(seen, truth, "seed {seed}");
    }
}

#[test]
fn an_unmerged_channel_keeps_every_event_in_order() {
    let (tx, mut rx) = unmerged_channel();
    let sent = [
        applied(Kind::Node, "a", 1),
        applied(Kind::Node, "a", 2),
        deleted(Kind::Node, "a"),
        resynced(Kind::Node, vec![]),
        applied(Kind::Node, "a", 3),
    ];
    for ev in sent.clone() {
        tx.send(ev).unwrap();
    }
    assert_eq!(drain(&mut rx), sent);
    assert_eq!(rx.stats().merged, 0);
}

#[tokio::test(start_paused = true)]
async fn a_full_channel_makes_the_watch_wait_until_the_ui_reads() {
    let (tx, mut rx) = channel();
    for i in 0..CAPACITY {
        tx.send(applied(Kind::Node, &format!("n{i}"), 0)).unwrap();
    }
    let waiting = tokio::spawn({
        let tx = tx.clone();
        async move { tx.room().await }
    });
    tokio::task::yield_now().await;
    assert!(!waiting.is_finished());
    // Merging needs no room and never waits.
    tx.send(applied(Kind::Node, "n0", 1)).unwrap();
    assert_eq!(rx.len(), CAPACITY);
    rx.try_recv().unwrap();
    waiting.await.unwrap();
    tx.room().await;
}

#[tokio::test(start_paused = true)]
async fn the_receiver_ends_after_the_last_sender_and_senders_see_it_gone() {
    let (tx, mut rx) = channel();
    let tx2 = tx.clone();
    tx.send(applied(Kind::Node, "a", 1)).unwrap();
    drop(tx);
    drop(tx2);
    assert_eq!(rx.recv().await, Some(applied(Kind::Node, "a", 1)));
    assert_eq!(rx.recv().await, None);

    let (tx, rx) = channel();
    for i in 0..CAPACITY {
        tx.send(applied(Kind::Node, &format!("n{i}"), 0)).unwrap();
    }
    let waiting = tokio::spawn({
        let tx = tx.clone();
        async move { tx.room().await }
    });
    tokio::task::yield_now().await;
    drop(rx);
    waiting.await.unwrap();
    assert!(tx.is_closed());
    assert_eq!(tx.send(applied(Kind::Node, "a", 1)), Err(Closed));
}
