//! Tests of `history`.
use super::*;
use crate::domain::fixtures::{self, Scenario, at, names::*};
use crate::domain::objects::*;
use std::sync::Arc;

fn worker(state: MachineState) -> Object {
    Object::Machine(Arc::new(fixtures::machine(
        WORKER_4,
        MachineType::Worker,
        state,
        Some(NODE_W4),
        Some(6),
    )))
}

#[test]
fn machine_turn_and_finish() {
    let sc = fixtures::mid_update_scenario();
    let h = &sc.history;
    let f: Vec<(&str, i64)> = h
        .finished_this_update()
        .map(|f| (f.name.as_str(), f.duration().as_secs() / 60))
        .collect();
    assert_eq!(
        f,
        vec![
            (MASTER_0, 15),
            (MASTER_1, 15),
            (MASTER_2, 15),
            (WORKER_1, 25)
        ]
    );
    assert!(h.finished().all(|f| f.complete));
    assert!(h.is_done(MASTER_0) && h.is_done(WORKER_1));
    assert!(!h.is_done(WORKER_2));
    assert_eq!(h.turn_started(WORKER_2), Some(at("09:51")));
    assert_eq!(h.turn_started(WORKER_3), Some(at("10:00")));
    assert_eq!(h.turn_started(WORKER_4), None);
    assert_eq!(h.machine_state_since(WORKER_2), Some(at("09:55")));
    assert_eq!(h.machine_state_since(WORKER_4), Some(at("08:06")));
    assert_eq!(h.max_concurrency(&MachineType::Worker), 2);
    assert_eq!(h.max_concurrency(&MachineType::Control), 1);
    // Deploy: 13m for each master, 20m for worker-1.
    assert_eq!(h.state_samples(&MachineState::Deploy), 4);
    assert_eq!(
        h.median_state_duration(&MachineState::Deploy),
        Some(SignedDuration::from_mins(13))
    );
    assert_eq!(h.update_started(), Some(at("08:05")));
    assert!(h.cmr_present());
    assert_eq!(h.update_finished(), None);
}

#[test]
fn message_since_ignores_retries_but_not_new_conditions() {
    let sc = fixtures::mid_update_scenario();
    let lock2 = ObjectKey {
        kind: Kind::NodeWorkloadLock,
        namespace: String::new(),
        name: format!("openstack-{NODE_W2}"),
    };
    // "Starting migration" at 09:52, error at 10:00, servers present since 10:05
    // (re-written at 10:28 with a new timestamp: same condition).
    assert_eq!(sc.history.message_since(&lock2), Some(at("10:05")));
    // Its state never changed (active since first seen).
    assert_eq!(sc.history.lock_state_since(&lock2), Some(at("07:00")));
    // … a first sight, not a transition: its age is a lower bound.
    assert!(!sc.history.lock_since(&lock2).unwrap().observed);
    let lock_m0 = ObjectKey {
        name: format!("openstack-{NODE_M0}"),
        ..lock2.clone()
    };
    // Inactive at 08:41, active again at 08:56.
    assert_eq!(sc.history.lock_state_since(&lock_m0), Some(at("08:56")));
    assert!(sc.history.lock_since(&lock_m0).unwrap().observed);
    let cd = ObjectKey {
        kind: Kind::LcmClusterState,
        namespace: NAMESPACE.into(),
        name: format!("cd-{WORKER_2}"),
    };
    assert_eq!(sc.history.message_since(&cd), Some(at("09:56")));
    assert_eq!(sc.history.nmr_since(NODE_W2), Some(at("09:51")));
    assert_eq!(sc.history.nmr_since(NODE_W1), None);
}

#[test]
fn observe_returns_field_changes() {
    let mut h = History::new();
    let c = h.observe(None, Some(&worker(MachineState::Ready)), at("08:00"));
    assert_eq!(c.len(), 1);
    assert!(c[0].is_added());
    let c = h.observe(
        Some(&worker(MachineState::Ready)),
        Some(&worker(MachineState::Prepare)),
        at("08:06"),
    );
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].old.as_str(), c[0].new.as_str()), ("Ready", "Prepare"));
    assert_eq!(c[0].at, at("08:06"));
    assert!(
        h.observe(
            Some(&worker(MachineState::Prepare)),
            Some(&worker(MachineState::Prepare)),
            at("08:07")
        )
        .is_empty()
    );
    let c = h.observe(Some(&worker(MachineState::Prepare)), None, at("08:08"));
    assert!(c[0].is_removed());
    assert_eq!(h.changes().count(), 3);
    assert_eq!(h.machine_state_since(WORKER_4), None);
}

#[test]
fn finish_without_request_uses_left_ready() {
    let mut sc = Scenario::new();
    sc.apply(worker(MachineState::Ready), at("08:00"));
    sc.apply(worker(MachineState::Prepare), at("08:10"));
    sc.apply(worker(MachineState::Ready), at("08:40"));
    let f: Vec<_> = sc.history.finished().collect();
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].started, at("08:10"));
    assert!(f[0].complete);
    // First seen mid-way: a lower bound, flagged incomplete.
    let mut sc = Scenario::new();
    sc.apply(worker(MachineState::Deploy), at("09:00"));
    sc.apply(worker(MachineState::Ready), at("09:20"));
    let f: Vec<_> = sc.history.finished().collect();
    assert_eq!(f[0].started, at("09:00"));
    assert!(!f[0].complete);
    // Its Deploy duration was not observed from the start: no sample.
    assert_eq!(sc.history.state_samples(&MachineState::Deploy), 0);
}

#[test]
fn request_seen_before_machine_sets_turn() {
    let mut sc = Scenario::new();
    sc.apply(
        Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(NODE_W4, "os", at("09:00")))),
        at("09:30"),
    );
    sc.apply(worker(MachineState::Prepare), at("09:30"));
    assert_eq!(sc.history.turn_started(WORKER_4), Some(at("09:00")));
}

#[test]
fn new_update_resets_done_and_cmr_removal_finishes() {
    let mut sc = fixtures::mid_update_scenario();
    let cmr = Object::ClusterMaintenanceRequest(Arc::new(fixtures::cmr(at("08:05"))));
    sc.remove(&cmr.key(), at("11:00"));
    assert_eq!(sc.history.update_finished(), Some(at("11:00")));
    assert!(sc.history.is_done(MASTER_0));
    let mut next = fixtures::cmr(at("12:00"));
    next.name = "child-cl-2".into();
    sc.apply(
        Object::ClusterMaintenanceRequest(Arc::new(next)),
        at("12:00"),
    );
    assert!(!sc.history.is_done(MASTER_0));
    assert_eq!(sc.history.update_started(), Some(at("12:00")));
    assert_eq!(sc.history.finished_this_update().count(), 0);
    // Durations learned earlier are kept.
    assert_eq!(sc.history.finished().count(), 4);
}

#[test]
fn memory_is_bounded() {
    let mut h = History::new();
    let mut before: Option<Object> = None;
    for i in 0..(MAX_CHANGES + 500) {
        let l = Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
            Controller::Openstack,
            NODE_W4,
            LockState::Active,
            Some(&format!(
                "2025-03-04 10:00:00 Starting migration for srv-{i}"
            )),
        )));
        h.observe(before.as_ref(), Some(&l), at("10:00"));
        before = Some(l);
    }
    assert_eq!(h.changes().len(), MAX_CHANGES);
    assert_eq!(h.total_changes(), (MAX_CHANGES + 500) as u64);
    // The newest change is kept, the oldest dropped.
    assert!(h.changes().next_back().unwrap().new.contains("srv-5499"));
    h.observe(before.as_ref(), None, at("10:01"));
    assert_eq!(h.tracked_objects(), 0);
    // Many objects coming and going leave no per-object data behind.
    for i in 0..2000 {
        let mut r = fixtures::nmr(&format!("kaas-node-{i}"), "os", at("10:00"));
        r.name = format!("n{i}");
        let o = Object::NodeMaintenanceRequest(Arc::new(r));
        h.observe(None, Some(&o), at("10:00"));
        h.observe(Some(&o), None, at("10:01"));
    }
    assert_eq!(h.tracked_objects(), 0);
    assert!(h.nmr_since("kaas-node-5").is_none());
}

#[test]
fn relist_reports_only_differences() {
    let mut sc = fixtures::mid_update_scenario();
    let before = sc.history.changes().len();
    // A re-list after a watch restart: worker-4 moved on, worker-1 vanished,
    // a new machine appeared, the others are unchanged.
    let mut objs: Vec<Object> = sc
        .snap
        .machines()
        .filter(|m| m.name != WORKER_1)
        .cloned()
        .map(|o| Object::Machine(Arc::new(o)))
        .collect();
    for o in objs.iter_mut() {
        if let Object::Machine(m) = o
            && m.name == WORKER_4
        {
            Arc::make_mut(m).state = MachineState::Deploy;
        }
    }
    objs.push(Object::Machine(Arc::new(fixtures::machine(
        "child-cl-compute-5",
        MachineType::Worker,
        MachineState::Pending,
        None,
        Some(7),
    ))));
    let c = sc
        .history
        .relist(&mut sc.snap, Kind::LcmMachine, objs, at("10:40"));
    let mut got: Vec<(String, String, String)> = c
        .iter()
        .map(|c| (c.key.name.clone(), c.field.clone(), c.new.clone()))
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            (WORKER_1.into(), "object".into(), "removed".into()),
            (WORKER_4.into(), "status.state".into(), "Deploy".into()),
            ("child-cl-compute-5".into(), "object".into(), "added".into()),
        ]
    );
    assert_eq!(sc.history.changes().len(), before + 3);
    assert_eq!(sc.snap.machines().count(), 7);
    assert_eq!(sc.history.machine_state_since(WORKER_4), Some(at("10:40")));
    // The finished record of a vanished machine is kept; its "done" mark is not.
    assert!(!sc.history.is_done(WORKER_1));
    assert!(sc.history.finished().any(|f| f.name == WORKER_1));
}

#[test]
fn a_node_queued_by_the_openstack_controller_starts_its_turn_when_taken_up() {
    // Rockoon defers a node while another holds its slot (E-CONC); the time
    // queued is not the node's turn.
    let mut snap = Snapshot::default();
    let mut h = History::new();
    h.apply(&mut snap, worker(MachineState::Ready), at("09:00"));
    h.apply(
        &mut snap,
        Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(NODE_W4, "os", at("10:00")))),
        at("10:00"),
    );
    assert_eq!(h.turn_started(WORKER_4), Some(at("10:00")));
    let lock = |text: &str, hh_mm_ss: &str| {
        let msg = format!("{} {text}", fixtures::rockoon_stamp(hh_mm_ss));
        Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
            Controller::Openstack,
            NODE_W4,
            LockState::Active,
            Some(&msg),
        )))
    };
    h.apply(
        &mut snap,
        lock(
            &format!("Inactive NodeWorkloadLocks for openstack detected. Deferring processing for node {NODE_W4}"),
            "10:00:05",
        ),
        at("10:00"),
    );
    assert_eq!(h.taken_up_after_queue(NODE_W4), None);
    h.apply(
        &mut snap,
        lock(
            "Starting migration for 0ab4dd8f-ef0d-401d-9d5e-e9e97e077422",
            "10:30:00",
        ),
        at("10:30"),
    );
    assert_eq!(h.taken_up_after_queue(NODE_W4), Some(at("10:30")));
    assert_eq!(h.turn_started(WORKER_4), Some(at("10:30")));
}

#[test]
fn a_relist_counts_the_machines_in_their_turn_once_after_its_last_object() {
    let w = |name: &str, node: &str, state: MachineState| {
        Object::Machine(Arc::new(fixtures::machine(
            name,
            MachineType::Worker,
            state,
            Some(node),
            Some(6),
        )))
    };
    let mut h = History::new();
    let mut snap = Snapshot::default();
    // compute-2 is in its turn (Deploy, seen leaving Ready), compute-1 is Ready.
    h.relist(
        &mut snap,
        Kind::LcmMachine,
        vec![
            w(WORKER_1, NODE_W1, MachineState::Ready),
            w(WORKER_2, NODE_W2, MachineState::Ready),
        ],
        at("09:00"),
    );
    h.relist(
        &mut snap,
        Kind::LcmMachine,
        vec![
            w(WORKER_1, NODE_W1, MachineState::Ready),
            w(WORKER_2, NODE_W2, MachineState::Deploy),
        ],
        at("09:01"),
    );
    assert_eq!(h.max_concurrency(&MachineType::Worker), 1);
    // One list later compute-2 is done and compute-1 started: compute-1
    // comes first in the list, but the two were never in their turn at once.
    h.relist(
        &mut snap,
        Kind::LcmMachine,
        vec![
            w(WORKER_1, NODE_W1, MachineState::Deploy),
            w(WORKER_2, NODE_W2, MachineState::Ready),
        ],
        at("09:20"),
    );
    assert_eq!(h.max_concurrency(&MachineType::Worker), 1);
    // Seen one event at a time, both in their turn is counted.
    h.observe(
        Some(&w(WORKER_2, NODE_W2, MachineState::Ready)),
        Some(&w(WORKER_2, NODE_W2, MachineState::Deploy)),
        at("09:21"),
    );
    assert_eq!(h.max_concurrency(&MachineType::Worker), 2);
}

#[test]
fn a_node_request_finds_its_machine_by_the_hostname_it_has_now() {
    let m = |host: &str| {
        Object::Machine(Arc::new(fixtures::machine(
            WORKER_1,
            MachineType::Worker,
            MachineState::Ready,
            Some(host),
            Some(6),
        )))
    };
    let nmr = |node: &str, at_: &str| {
        Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(node, "os", at(at_))))
    };
    let mut h = History::new();
    h.observe(None, Some(&m(NODE_W1)), at("09:00"));
    // The machine now runs on another node: a request for the old node is
    // not its own.
    h.observe(Some(&m(NODE_W1)), Some(&m(NODE_W2)), at("09:01"));
    h.observe(None, Some(&nmr(NODE_W1, "09:02")), at("09:02"));
    assert_eq!(h.turn_started(WORKER_1), None);
    // By its short name (a lock or request may name the node without its domain).
    h.observe(
        None,
        Some(&nmr(&format!("{NODE_W2}.example.net"), "09:03")),
        at("09:03"),
    );
    assert_eq!(h.turn_started(WORKER_1), Some(at("09:03")));
    // Gone: its requests find nothing (and nothing fails).
    h.observe(Some(&m(NODE_W2)), None, at("09:04"));
    h.observe(None, Some(&nmr(NODE_W2, "09:05")), at("09:05"));
    assert_eq!(h.turn_started(WORKER_1), None);
}

#[test]
fn a_drain_failure_and_a_stuck_operation_are_aged_from_their_appearance() {
    let failing = |error: Option<&str>, stuck: bool| {
        let mut m = fixtures::machine(
            WORKER_4,
            MachineType::Worker,
            MachineState::Prepare,
            Some(NODE_W4),
            Some(6),
        );
        m.drain_error = error.map(DrainError::new);
        m.operation_stuck = stuck;
        Object::Machine(Arc::new(m))
    };
    let mut h = History::new();
    let mut snap = Snapshot::default();
    // Already failed at first sight: since then at least.
    h.apply(&mut snap, failing(Some("Error: a"), false), at("09:00"));
    let first = Since {
        at: at("09:00"),
        observed: false,
    };
    assert_eq!(h.drain_failed_since(WORKER_4), Some(first));
    assert_eq!(h.operation_stuck_since(WORKER_4), None);
    // The drain failing again with another text is the same failure.
    h.apply(&mut snap, failing(Some("Error: b"), true), at("09:10"));
    assert_eq!(h.drain_failed_since(WORKER_4), Some(first));
    let stuck = Since {
        at: at("09:10"),
        observed: true,
    };
    assert_eq!(h.operation_stuck_since(WORKER_4), Some(stuck));
    // Gone, then back: seen to appear, so exact.
    h.apply(&mut snap, failing(None, false), at("09:20"));
    assert_eq!(h.drain_failed_since(WORKER_4), None);
    assert_eq!(h.operation_stuck_since(WORKER_4), None);
    h.apply(&mut snap, failing(Some("Error: c"), false), at("09:30"));
    assert_eq!(
        h.drain_failed_since(WORKER_4),
        Some(Since {
            at: at("09:30"),
            observed: true
        })
    );
}
