//! Table tests of `phase`: object states (and histories) -> the phase shown.

use super::*;
use crate::domain::fixtures::{self, Scenario, at, names::*};
use crate::domain::objects::*;
use std::sync::Arc;

fn lock(name: &str, controller: Controller, state: LockState) -> Object {
    Object::ClusterWorkloadLock(Arc::new(fixtures::cluster_lock(name, controller, state)))
}

/// The three cluster locks of the fixture cluster.
fn locks(snap: &mut Snapshot, openstack: LockState, ceph: LockState, tf: LockState) {
    snap.apply(lock(OPENSTACK_CWL, Controller::Openstack, openstack));
    snap.apply(lock(CEPH_CWL, Controller::Ceph, ceph));
    snap.apply(lock(TF_CWL, Controller::Tungstenfabric, tf));
}

/// Every master and worker in `state`, on `release`.
fn machines(snap: &mut Snapshot, masters: (MachineState, &str), workers: (MachineState, &str)) {
    for (name, ty, node, index) in fixtures::MACHINES {
        let (state, release) = if ty == MachineType::Control {
            masters.clone()
        } else {
            workers.clone()
        };
        let mut m = fixtures::machine(name, ty, state, Some(node), Some(index));
        m.release = Some(release.into());
        snap.apply(Object::Machine(Arc::new(m)));
    }
}

fn set_machine(snap: &mut Snapshot, name: &str, state: MachineState, release: &str) {
    let (_, ty, node, index) = fixtures::MACHINES
        .into_iter()
        .find(|(n, ..)| *n == name)
        .expect("fixture machine");
    let mut m = fixtures::machine(name, ty, state, Some(node), Some(index));
    m.release = Some(release.into());
    snap.apply(Object::Machine(Arc::new(m)));
}

/// The update triggered: LCMCluster driven to the target, machines preparing.
fn triggered() -> Snapshot {
    let mut snap = fixtures::idle();
    snap.apply(Object::LcmCluster(Arc::new(fixtures::lcm_cluster())));
    machines(
        &mut snap,
        (MachineState::Prepare, CURRENT_RELEASE),
        (MachineState::Prepare, CURRENT_RELEASE),
    );
    snap
}

/// Triggered, and the maintenance request exists.
fn requested() -> Snapshot {
    let mut snap = triggered();
    snap.apply(Object::ClusterMaintenanceRequest(Arc::new(fixtures::cmr(
        at("08:05"),
    ))));
    snap
}

/// The request exists and every cluster lock is inactive.
fn locks_released() -> Snapshot {
    let mut snap = requested();
    locks(
        &mut snap,
        LockState::Inactive,
        LockState::Inactive,
        LockState::Inactive,
    );
    snap
}

struct Row {
    what: &'static str,
    snap: Snapshot,
    want: Phase,
    reason: &'static str,
}

fn rows() -> Vec<Row> {
    let mut v = Vec::new();
    let mut row = |what, snap, want, reason| {
        v.push(Row {
            what,
            snap,
            want,
            reason,
        })
    };
    row(
        "idle",
        fixtures::idle(),
        Phase::Idle,
        "no maintenance request; every machine is Ready",
    );
    row(
        "triggered, the request not created yet",
        triggered(),
        Phase::Triggered,
        "mosk-17-3-0-24-3 -> mosk-17-4-0-25-1; waiting for LCM to create the maintenance request",
    );
    // Mistake 1: this was shown as phase 1.
    row(
        "request present, OpenStack cluster lock active: the OpenStack update runs",
        requested(),
        Phase::ClusterLocks,
        "OpenStack update under way: cluster lock openstack-osh-dev (openstack) still active; also cluster lock ceph-child-cl (ceph) still active",
    );
    let mut s = requested();
    locks(
        &mut s,
        LockState::Failed,
        LockState::Active,
        LockState::Active,
    );
    row(
        "OpenStack cluster lock failed",
        s,
        Phase::ClusterLocks,
        "cluster lock openstack-osh-dev (openstack) failed",
    );
    let mut s = requested();
    locks(
        &mut s,
        LockState::Inactive,
        LockState::Active,
        LockState::Inactive,
    );
    row(
        "OpenStack released, Ceph updating",
        s,
        Phase::ClusterLocks,
        "OpenStack done; Ceph update under way: cluster lock ceph-child-cl (ceph) still active",
    );
    // Mistake 3: this was shown as "phase 3 masters" (machines in Prepare).
    let mut s = requested();
    locks(
        &mut s,
        LockState::Inactive,
        LockState::Inactive,
        LockState::Active,
    );
    row(
        "tungstenfabric cluster lock stuck active",
        s,
        Phase::ClusterLocks,
        "OpenStack and Ceph done; LCM waits for every cluster lock: cluster lock tf-openstack-tf (tungstenfabric) still active",
    );
    let mut s = locks_released();
    s.apply(lock(
        "stacklight-lock",
        Controller::Other("stacklight".into()),
        LockState::Other(String::new()),
    ));
    row(
        "a cluster lock of another controller, no state yet",
        s,
        Phase::ClusterLocks,
        "cluster lock stacklight-lock (stacklight) without a state yet",
    );
    let mut s = requested();
    for (name, controller) in [
        (OPENSTACK_CWL, Controller::Openstack),
        (CEPH_CWL, Controller::Ceph),
        (TF_CWL, Controller::Tungstenfabric),
    ] {
        s.remove(&lock(name, controller, LockState::Active).key());
    }
    row(
        "request present, no cluster lock seen, nothing moving",
        s,
        Phase::ClusterLocks,
        "no cluster lock seen",
    );
    // Mistake 2: this was shown as "phase 5 finalization".
    let mut s = locks_released();
    machines(
        &mut s,
        (MachineState::Ready, CURRENT_RELEASE),
        (MachineState::Ready, CURRENT_RELEASE),
    );
    row(
        "cluster locks inactive, every machine Ready on the old release",
        s,
        Phase::Masters,
        "every cluster lock is inactive; 3 of 3 masters not seen updated yet",
    );
    row(
        "cluster locks inactive, machines still in Prepare",
        locks_released(),
        Phase::Masters,
        "3 of 3 masters not seen updated yet (child-cl-control-0 Prepare, child-cl-control-1 Prepare and 1 more)",
    );
    let mut s = locks_released();
    machines(
        &mut s,
        (MachineState::Ready, CURRENT_RELEASE),
        (MachineState::Prepare, CURRENT_RELEASE),
    );
    s.apply(Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(
        NODE_M1,
        "drain",
        at("08:40"),
    ))));
    row(
        "a Ready master under a maintenance request",
        s,
        Phase::Masters,
        "master child-cl-control-1 Ready",
    );
    let mut s = locks_released();
    set_machine(&mut s, MASTER_0, MachineState::Ready, TARGET_RELEASE);
    set_machine(&mut s, MASTER_1, MachineState::Deploy, CURRENT_RELEASE);
    row(
        "a master without collocated roles (no request) in Deploy",
        s,
        Phase::Masters,
        "master child-cl-control-1 Deploy",
    );
    row(
        "mid-update",
        fixtures::mid_update(),
        Phase::Workers,
        "3 of 4 workers not done: child-cl-compute-2 Deploy, child-cl-compute-3 Prepare and 1 more",
    );
    let mut s = locks_released();
    machines(
        &mut s,
        (MachineState::Ready, TARGET_RELEASE),
        (MachineState::Prepare, CURRENT_RELEASE),
    );
    row(
        "masters updated, workers waiting for their turn",
        s,
        Phase::Workers,
        "4 of 4 workers not done: child-cl-compute-1 Prepare, child-cl-compute-2 Prepare and 2 more; none in maintenance now",
    );
    let mut s = locks_released();
    machines(
        &mut s,
        (MachineState::Ready, CURRENT_RELEASE),
        (MachineState::Prepare, CURRENT_RELEASE),
    );
    set_machine(&mut s, WORKER_1, MachineState::Deploy, CURRENT_RELEASE);
    row(
        "a worker in Deploy while no master was seen updated (console started late)",
        s,
        Phase::Workers,
        "4 of 4 workers not done: child-cl-compute-1 Deploy",
    );
    let mut s = locks_released();
    machines(
        &mut s,
        (MachineState::Ready, TARGET_RELEASE),
        (MachineState::Ready, TARGET_RELEASE),
    );
    row(
        "every machine Ready on the target release",
        s,
        Phase::Finalization,
        "every machine was updated",
    );
    let mut s = locks_released();
    machines(
        &mut s,
        (MachineState::Ready, CURRENT_RELEASE),
        (MachineState::Ready, TARGET_RELEASE),
    );
    s.apply(Object::Machine(Arc::new(fixtures::machine(
        MASTER_2,
        MachineType::Control,
        MachineState::Ready,
        Some(NODE_M2),
        Some(2),
    ))));
    row(
        "workers on the target, masters without evidence",
        s,
        Phase::Workers,
        "every worker was updated but master child-cl-control-0 Ready, child-cl-control-1 Ready and 1 more was not seen updated",
    );
    // LCM deleted the request; the controllers' delete handlers take their
    // cluster locks back while it is Terminating: not phase 2 again.
    let mut s = locks_released();
    machines(
        &mut s,
        (MachineState::Ready, TARGET_RELEASE),
        (MachineState::Ready, TARGET_RELEASE),
    );
    s.apply(Object::ClusterMaintenanceRequest(Arc::new(
        ClusterMaintenanceRequest {
            deleting: true,
            deletion: Some(at("11:00")),
            ..fixtures::cmr(at("08:05"))
        },
    )));
    locks(
        &mut s,
        LockState::Active,
        LockState::Active,
        LockState::Inactive,
    );
    row(
        "every machine updated, the request being deleted, cluster locks taken back",
        s,
        Phase::Finalization,
        "every machine was updated; the maintenance request is being deleted (the controllers take their cluster locks back)",
    );
    let mut s = locks_released();
    s.remove(&Object::ClusterMaintenanceRequest(Arc::new(fixtures::cmr(at("08:05")))).key());
    machines(
        &mut s,
        (MachineState::Ready, TARGET_RELEASE),
        (MachineState::Ready, TARGET_RELEASE),
    );
    row(
        "request gone, every machine on the target, LCMCluster status not written yet",
        s,
        Phase::Done,
        "no maintenance request; every machine is Ready on mosk-17-4-0-25-1",
    );
    v
}

#[test]
fn phase_table() {
    let mut failures = Vec::new();
    for r in rows() {
        let p = phase(&r.snap, &History::new());
        if p.phase != r.want || !p.reason.contains(r.reason) {
            failures.push(format!(
                "{}: got {:?} {:?}, want {:?} with {:?}",
                r.what, p.phase, p.reason, r.want, r.reason
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn numbers_follow_the_seed() {
    let want = [
        (Phase::Idle, None),
        (Phase::Triggered, Some(1)),
        (Phase::ClusterLocks, Some(2)),
        (Phase::Masters, Some(3)),
        (Phase::Workers, Some(4)),
        (Phase::Finalization, Some(5)),
        (Phase::Done, None),
    ];
    for (p, n) in want {
        assert_eq!(p.number(), n, "{p:?}");
    }
}

/// Every machine returned to Ready under the console's eyes: phase 5 from the
/// History alone, where the releases prove nothing (LCMCluster spec = status).
#[test]
fn history_proves_every_machine_updated() {
    let mut sc = fixtures::mid_update_scenario();
    let no_release_evidence = Object::LcmCluster(Arc::new(LcmCluster {
        current_release: Some(TARGET_RELEASE.into()),
        ..fixtures::lcm_cluster()
    }));
    sc.apply(no_release_evidence.clone(), at("10:30"));
    for (i, (name, node)) in [
        (WORKER_2, NODE_W2),
        (WORKER_3, NODE_W3),
        (WORKER_4, NODE_W4),
    ]
    .into_iter()
    .enumerate()
    {
        let t = at(&format!("10:{}", 40 + i * 5));
        sc.remove(
            &Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(node, "os", t))).key(),
            t,
        );
        set_state(&mut sc, name, MachineState::Deploy, t);
        set_state(&mut sc, name, MachineState::Ready, t);
    }
    let p = phase(&sc.snap, &sc.history);
    assert_eq!(p.phase, Phase::Finalization, "{}", p.reason);

    // The same objects seen for the first time: nothing proves the machines
    // were updated, so the phase cannot be 5.
    let p = phase(&sc.snap, &History::new());
    assert_eq!(p.phase, Phase::Masters, "{}", p.reason);
    assert!(p.reason.contains("not seen updated"), "{}", p.reason);
}

fn set_state(sc: &mut Scenario, name: &str, state: MachineState, t: jiff::Timestamp) {
    let Some(Object::Machine(m)) = sc
        .snap
        .machines()
        .find(|m| m.name == name)
        .cloned()
        .map(|o| Object::Machine(Arc::new(o)))
    else {
        panic!("no machine {name}");
    };
    let mut m = m;
    Arc::make_mut(&mut m).state = state;
    sc.apply(Object::Machine(m), t);
}

#[test]
fn done_needs_history() {
    let mut snap = fixtures::idle();
    let mut h = History::new();
    let cmr = Object::ClusterMaintenanceRequest(Arc::new(fixtures::cmr(at("08:05"))));
    h.observe(None, Some(&cmr), at("08:05"));
    h.observe(Some(&cmr), None, at("11:00"));
    assert_eq!(phase(&snap, &h).phase, Phase::Done);
    assert_eq!(phase(&snap, &History::new()).phase, Phase::Idle);
    // A new update starts: phase 2 while the OpenStack lock is active.
    snap.apply(cmr.clone());
    h.observe(None, Some(&cmr), at("12:00"));
    assert_eq!(phase(&snap, &h).phase, Phase::ClusterLocks);
}

/// Over every combination of cluster lock states, request and machine
/// states, the phase never runs ahead of the flow.
#[test]
fn no_state_produces_a_phase_the_flow_has_not_reached() {
    use LockState::*;
    let lock_states = [Active, Inactive, Failed];
    let machine_states = [
        (MachineState::Ready, CURRENT_RELEASE, false),
        (MachineState::Ready, TARGET_RELEASE, false),
        (MachineState::Prepare, CURRENT_RELEASE, false),
        (MachineState::Deploy, CURRENT_RELEASE, false),
        (MachineState::Ready, CURRENT_RELEASE, true),
    ];
    let mut checked = 0;
    for os in &lock_states {
        for ceph in &lock_states {
            for tf in &lock_states {
                for request in [false, true] {
                    for m in &machine_states {
                        for w in &machine_states {
                            let mut s = triggered();
                            if request {
                                s.apply(Object::ClusterMaintenanceRequest(Arc::new(
                                    fixtures::cmr(at("08:05")),
                                )));
                            }
                            locks(&mut s, os.clone(), ceph.clone(), tf.clone());
                            machines(&mut s, (m.0.clone(), m.1), (w.0.clone(), w.1));
                            if m.2 {
                                s.apply(Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(
                                    NODE_M0,
                                    "drain",
                                    at("08:40"),
                                ))));
                            }
                            if w.2 {
                                s.apply(Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(
                                    NODE_W1,
                                    "os",
                                    at("09:40"),
                                ))));
                            }
                            let p = phase(&s, &History::new());
                            let ctx = format!(
                                "{os:?} {ceph:?} {tf:?} request {request} masters {m:?} workers {w:?}: {p:?}"
                            );
                            let all_inactive = [os, ceph, tf].iter().all(|l| **l == Inactive);
                            if !request {
                                assert!(matches!(p.phase, Phase::Triggered | Phase::Done), "{ctx}");
                            } else {
                                assert!(p.phase >= Phase::ClusterLocks, "{ctx}");
                            }
                            if p.phase >= Phase::Masters && p.phase != Phase::Done {
                                assert!(all_inactive, "{ctx}");
                            }
                            let updated = |x: &(MachineState, &str, bool)| {
                                x.0 == MachineState::Ready && x.1 == TARGET_RELEASE && !x.2
                            };
                            let moved = |x: &(MachineState, &str, bool)| {
                                updated(x) || x.0 == MachineState::Deploy || x.2
                            };
                            if p.phase == Phase::Workers {
                                assert!(updated(m) || moved(w), "{ctx}");
                            }
                            if p.phase == Phase::Finalization {
                                assert!(updated(m) && updated(w), "{ctx}");
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, 27 * 2 * 25);
}

#[path = "from_plan_tests.rs"]
mod from_plan;

/// A master LCM drains without a maintenance request the console can see
/// (no workload roles, so no lock to hold it): its pending cordon-drain
/// state is its turn, not "waiting for LCM to start the next".
#[test]
fn a_master_being_drained_is_in_its_turn() {
    let mut snap = locks_released();
    let p = phase(&snap, &History::new());
    assert_eq!(p.phase, Phase::Masters);
    assert!(
        p.reason.contains("waiting for LCM to start the next"),
        "{}",
        p.reason
    );
    snap.apply(Object::ClusterState(Arc::new(fixtures::cluster_state(
        ClusterStateType::CordonDrain,
        MASTER_0,
        "true",
        None,
        0,
        None,
    ))));
    let p = phase(&snap, &History::new());
    assert_eq!(p.phase, Phase::Masters);
    assert!(
        p.reason.starts_with(&format!("master {MASTER_0}")),
        "{}",
        p.reason
    );
}
