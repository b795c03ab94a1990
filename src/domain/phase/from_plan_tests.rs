//! Table tests: the update plan drives the phase.

use super::*;
use crate::domain::fixtures::blockers::{self, WAITING, completed, in_progress};
use crate::domain::objects::StepStatus;

fn with_plan(mut snap: Snapshot, steps: [blockers::StepAt; 4]) -> Snapshot {
    snap.apply(Object::UpdatePlan(Arc::new(blockers::update_plan(
        steps, None,
    ))));
    snap
}

/// Every cluster lock inactive and worker-1 updated: the objects alone say
/// phase 4.
fn workers_moving() -> Snapshot {
    let mut s = locks_released();
    machines(
        &mut s,
        (MachineState::Ready, TARGET_RELEASE),
        (MachineState::Prepare, CURRENT_RELEASE),
    );
    set_machine(&mut s, WORKER_1, MachineState::Ready, TARGET_RELEASE);
    s
}

struct PlanRow {
    what: &'static str,
    snap: Snapshot,
    want: Phase,
    /// The step label beside the phase.
    step: &'static str,
    /// Words the reason must hold.
    reason: &'static str,
}

fn plan_rows() -> Vec<PlanRow> {
    let done = || completed(at("08:00"), at("08:30"));
    let mut v = Vec::new();
    let mut row = |what, snap, want, step, reason| {
        v.push(PlanRow {
            what,
            snap,
            want,
            step,
            reason,
        })
    };
    row(
        "plan not started, cluster idle",
        with_plan(fixtures::idle(), [WAITING; 4]),
        Phase::Idle,
        "update plan not started: step 1/4 \"openstack\" waits for commence",
        "; no maintenance request; every machine is Ready",
    );
    row(
        // LCM's request is its own evidence that the update runs: the plan's
        // silence does not make the phase idle.
        "plan not started although a maintenance request and held locks exist",
        with_plan(requested(), [WAITING; 4]),
        Phase::ClusterLocks,
        "update plan not started: step 1/4 \"openstack\" waits for commence",
        "yet a ClusterMaintenanceRequest exists; OpenStack update under way",
    );
    row(
        "step 1 commenced, LCM has not created the request yet",
        with_plan(
            triggered(),
            [in_progress(at("08:00")), WAITING, WAITING, WAITING],
        ),
        Phase::Triggered,
        "step 1/4 \"openstack\" running",
        "waiting for LCM to create the maintenance request",
    );
    row(
        "step 1 commenced, the objects show nothing yet: triggered, not idle",
        with_plan(
            fixtures::idle(),
            [in_progress(at("08:00")), WAITING, WAITING, WAITING],
        ),
        Phase::Triggered,
        "step 1/4 \"openstack\" running",
        "no maintenance request",
    );
    row(
        "step 1 running, OpenStack lock held",
        with_plan(
            requested(),
            [in_progress(at("08:00")), WAITING, WAITING, WAITING],
        ),
        Phase::ClusterLocks,
        "step 1/4 \"openstack\" running",
        "OpenStack update under way",
    );
    row(
        "paused before step 3: every cluster lock released, masters not started",
        with_plan(locks_released(), [done(), done(), WAITING, WAITING]),
        Phase::ClusterLocks,
        "paused before step 3/4 \"k8s-controllers\" (waiting for commence)",
        "the objects alone would say phase 3 (master nodes)",
    );
    row(
        "paused before step 2: the OpenStack lock still active",
        with_plan(requested(), [done(), WAITING, WAITING, WAITING]),
        Phase::ClusterLocks,
        "paused before step 2/4 \"ceph\" (waiting for commence)",
        // Only the lock facts: "update under way" would claim work the pause holds back.
        "(waiting for commence); cluster lock openstack-osh-dev (openstack) still active",
    );
    row(
        "step 3 running while a worker already moved: no further than masters",
        with_plan(
            workers_moving(),
            [done(), done(), in_progress(at("09:00")), WAITING],
        ),
        Phase::Masters,
        "step 3/4 \"k8s-controllers\" running",
        "the objects alone would say phase 4 (worker nodes)",
    );
    row(
        "paused before step 4: masters done, workers wait",
        with_plan(workers_moving(), [done(), done(), done(), WAITING]),
        Phase::Masters,
        "paused before step 4/4 \"k8s-workers\" (waiting for commence)",
        "the objects alone would say phase 4",
    );
    row(
        "step 4 running",
        with_plan(
            workers_moving(),
            [done(), done(), done(), in_progress(at("09:30"))],
        ),
        Phase::Workers,
        "step 4/4 \"k8s-workers\" running",
        "; 3 of 4 workers not done",
    );
    let mut s = with_plan(
        workers_moving(),
        [
            done(),
            done(),
            done(),
            (false, Some(StepStatus::AutoPaused), Some(at("09:30")), None),
        ],
    );
    s.apply(Object::UpdateAutoPause(Arc::new(blockers::auto_pause(&[
        blockers::ALERT_CEPH,
    ]))));
    row(
        "step 4 auto-paused by an alert",
        s,
        Phase::Workers,
        "step 4/4 \"k8s-workers\" AUTO-PAUSED (CephClusterHealthCritical)",
        "3 of 4 workers not done",
    );
    let mut s = locks_released();
    machines(
        &mut s,
        (MachineState::Ready, TARGET_RELEASE),
        (MachineState::Ready, TARGET_RELEASE),
    );
    row(
        "plan done, the request still there: finalization",
        with_plan(s, [done(), done(), done(), done()]),
        Phase::Finalization,
        "update plan done",
        "every machine was updated",
    );
    v
}

#[test]
fn update_plan_phase_table() {
    let mut failures = Vec::new();
    for r in plan_rows() {
        let p = phase(&r.snap, &History::new());
        if p.phase != r.want || p.step.as_deref() != Some(r.step) || !p.reason.contains(r.reason) {
            failures.push(format!(
                "{}: got {:?} step {:?} reason {:?}; want {:?} step {:?} with {:?}",
                r.what, p.phase, p.step, p.reason, r.want, r.step, r.reason
            ));
        }
        if r.step.starts_with("paused before") && p.reason.contains("under way") {
            failures.push(format!(
                "{}: paused, yet the reason claims work under way: {:?}",
                r.what, p.reason
            ));
        }
        if !p.reason.starts_with(r.step) {
            failures.push(format!(
                "{}: the reason does not lead with the step: {:?}",
                r.what, p.reason
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn without_a_plan_there_is_no_step() {
    let p = phase(&locks_released(), &History::new());
    assert_eq!(p.step, None);
    assert_eq!(p.phase, Phase::Masters);
}

/// Whatever the objects show, the phase never goes past what the plan's
/// steps let the flow reach — except a plan not started while LCM's
/// ClusterMaintenanceRequest exists, where the objects decide.
#[test]
fn the_plan_bounds_the_phase_for_every_object_state() {
    let done = || completed(at("08:00"), at("08:30"));
    let objects: Vec<Snapshot> = vec![
        fixtures::idle(),
        triggered(),
        requested(),
        locks_released(),
        workers_moving(),
        fixtures::mid_update(),
    ];
    let plans: Vec<([blockers::StepAt; 4], Phase)> = vec![
        ([WAITING; 4], Phase::Idle),
        (
            [in_progress(at("08:00")), WAITING, WAITING, WAITING],
            Phase::ClusterLocks,
        ),
        ([done(), WAITING, WAITING, WAITING], Phase::ClusterLocks),
        ([done(), done(), WAITING, WAITING], Phase::ClusterLocks),
        (
            [done(), done(), in_progress(at("09:00")), WAITING],
            Phase::Masters,
        ),
        ([done(), done(), done(), WAITING], Phase::Masters),
        (
            [done(), done(), done(), in_progress(at("09:30"))],
            Phase::Workers,
        ),
    ];
    let mut checked = 0;
    for o in &objects {
        for (steps, cap) in &plans {
            let p = phase(&with_plan(o.clone(), steps.clone()), &History::new());
            let cap = if *cap == Phase::Idle && o.cluster_requests().next().is_some() {
                phase(o, &History::new()).phase
            } else {
                *cap
            };
            assert!(p.phase <= cap, "{steps:?} over {o:?}: {p:?}");
            assert!(p.step.is_some(), "{p:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 42);
}
