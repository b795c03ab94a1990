//! Tests of `progress`.
use super::*;
use crate::domain::fixtures::{self, names::*};
use crate::domain::objects::{MachineState, Object};
use std::sync::Arc;

/// The progress of `snap` joined whole, as `settle` computes it.
fn progress(snap: &Snapshot, history: &History, now: Timestamp) -> Progress {
    super::progress(
        snap,
        history,
        &crate::domain::join::machine_rows(snap),
        now,
        &[],
    )
}

#[test]
fn idle_cluster_is_all_done_without_eta() {
    let p = progress(&fixtures::idle(), &History::new(), fixtures::at("10:00"));
    assert!(!p.updating);
    assert_eq!((p.done, p.total), (7, 7));
    assert_eq!(p.eta, None);
    assert_eq!(p.elapsed, None);
    assert_eq!(p.ratio(), 1.0);
}

#[test]
fn mid_update_without_history_uses_release() {
    // Started at 10:30 with no history: masters and worker-1 are Ready on
    // the target release, so done; no machine finished under our eyes: no ETA.
    let now = fixtures::mid_update_now();
    let p = progress(&fixtures::mid_update(), &History::new(), now);
    assert!(p.updating);
    assert_eq!((p.done, p.total), (4, 7));
    assert_eq!(p.eta, None);
    // Elapsed from the request's creation time (08:05).
    assert_eq!(p.elapsed, Some(SignedDuration::from_mins(145)));
}

#[test]
fn ready_on_old_release_is_not_done_during_update() {
    let mut snap = fixtures::mid_update();
    let mut m = fixtures::machine(
        WORKER_4,
        crate::domain::objects::MachineType::Worker,
        MachineState::Ready,
        Some(NODE_W4),
        Some(6),
    );
    m.release = Some(CURRENT_RELEASE.into());
    snap.apply(Object::Machine(Arc::new(m)));
    let p = progress(&snap, &History::new(), fixtures::mid_update_now());
    assert_eq!(p.done, 4);
}

#[test]
fn eta_from_the_scenario() {
    let sc = fixtures::mid_update_scenario();
    let now = fixtures::mid_update_now();
    let p = progress(&sc.snap, &sc.history, now);
    assert_eq!((p.done, p.total), (4, 7));
    assert_eq!(p.samples, 4);
    // Workers: worker-1 took 25m (09:25 -> 09:50). Worker-2 (turn since
    // 09:51, 39m ago) and worker-3 (since 10:00, 30m ago) are past 25m:
    // each is given as long again as it overran (14m, 5m), not zero;
    // worker-4 has 25m left. Two workers ran at once: 44m / 2.
    assert_eq!(p.eta, Some(SignedDuration::from_mins(22)));
    assert_eq!(p.overdue, 2);
    assert_eq!(eta_basis(&p), "from 4 machines, 2 overdue");
    assert_eq!(p.elapsed, Some(SignedDuration::from_mins(145)));
}

#[test]
fn human_durations() {
    assert_eq!(human_duration(SignedDuration::from_secs(45)), "45s");
    assert_eq!(human_duration(SignedDuration::from_mins(12)), "12m");
    assert_eq!(human_duration(SignedDuration::from_mins(125)), "2h05m");
    assert_eq!(human_duration(SignedDuration::from_hours(76)), "3d04h");
    assert_eq!(human_duration(SignedDuration::from_secs(-90)), "-1m");
}

mod by_group {
    use super::*;
    use crate::domain::fixtures::update_groups::{self as ug, RACK_1};
    use crate::domain::objects::{PlanStep, UpdatePlan};

    const MIN: fn(i64) -> SignedDuration = SignedDuration::from_mins;

    fn eta_of(sc: &fixtures::Scenario) -> Progress {
        progress(&sc.snap, &sc.history, fixtures::mid_update_now())
    }

    #[test]
    fn groups_of_one_index_run_in_parallel_then_the_next_index() {
        // Workers take 25m (worker-1). Index 2: rack-1 x3 has worker-2
        // (39m in its turn: 14m overrun, as long again left) and three
        // waiting: 14m + 25m on three lanes = 39m; rack-2 x1 has worker-3
        // (30m: 5m left) and worker-4: 30m. Together: 39m (in sequence it
        // would be 69m). Index 3: rack-3 x2, two waiting: 25m. Worker-8
        // (rack-2) is disabled: left out.
        let p = eta_of(&ug::grouped_scenario());
        assert_eq!(p.eta, Some(MIN(39 + 25)));
        assert_eq!(p.eta_source, Some(EtaSource::UpdateGroups { groups: 3 }));
        assert_eq!(p.samples, 4);
        // 13 machines, one disabled; masters and worker-1 done.
        assert_eq!((p.done, p.total, p.disabled), (4, 12, 1));
    }

    #[test]
    fn concurrency_bounds_each_group() {
        // rack-1 at one machine at a time: 14m + 3 x 25m = 89m for index 2.
        let mut sc = ug::grouped_scenario();
        sc.snap
            .apply(Object::UpdateGroup(Arc::new(ug::group(RACK_1, 2, 1))));
        assert_eq!(eta_of(&sc).eta, Some(MIN(89 + 25)));
        // Seven at once: everything of rack-1 in one round (25m), rack-2's
        // 30m the longest of index 2.
        sc.snap
            .apply(Object::UpdateGroup(Arc::new(ug::group(RACK_1, 2, 7))));
        assert_eq!(eta_of(&sc).eta, Some(MIN(30 + 25)));
    }

    #[test]
    fn a_disabled_machine_is_left_out_until_enabled() {
        let mut sc = ug::grouped_scenario();
        let mut p = ug::provider("child-cl-compute-8", Some(ug::RACK_2));
        p.disabled = false;
        sc.snap.apply(Object::ProviderMachine(Arc::new(p)));
        // rack-2 x1: worker-3 (5m), worker-4 and worker-8: 55m for index 2.
        let p = eta_of(&sc);
        assert_eq!(p.eta, Some(MIN(55 + 25)));
        assert_eq!((p.done, p.total, p.disabled), (4, 13, 0));
    }

    #[test]
    fn without_groups_the_eta_is_unchanged() {
        let sc = fixtures::mid_update_scenario();
        let p = eta_of(&sc);
        assert_eq!(p.eta, Some(MIN(22)));
        assert_eq!(p.eta_source, Some(EtaSource::Machines));
        assert_eq!(p.disabled, 0);
    }

    use crate::domain::fixtures::update_plan::timed_step as step;

    fn plan(steps: Vec<PlanStep>) -> UpdatePlan {
        UpdatePlan {
            name: "child-cl-17.4.0".into(),
            namespace: NAMESPACE.into(),
            cluster: CLUSTER.into(),
            steps,
            ..UpdatePlan::default()
        }
    }

    #[test]
    fn the_update_plan_estimates_win_corrected_by_the_finished_steps() {
        // openstack: 60m estimated, took 78m (08:05 -> 09:23): x1.3.
        // ceph: 40m estimated, running since 10:00 (30m ago): 52m - 30m = 22m.
        // k8s-workers: 60m estimated: 78m. Left: 100m.
        let mut sc = ug::grouped_scenario();
        sc.snap.apply(Object::UpdatePlan(Arc::new(plan(vec![
            step(0, "openstack", 60, Some(("08:05", Some("09:23")))),
            step(1, "ceph", 40, Some(("10:00", None))),
            step(2, "k8s-workers", 60, None),
        ]))));
        let p = eta_of(&sc);
        assert_eq!(p.eta, Some(MIN(100)));
        match p.eta_source {
            Some(EtaSource::UpdatePlan { factor }) => assert!((factor - 1.3).abs() < 1e-9),
            other => panic!("ETA from {other:?}"),
        }
    }

    #[test]
    fn a_step_without_estimate_falls_back_to_the_machines() {
        let mut sc = ug::grouped_scenario();
        let mut last = step(1, "k8s-workers", 60, None);
        last.estimated = None;
        sc.snap.apply(Object::UpdatePlan(Arc::new(plan(vec![
            step(0, "openstack", 60, Some(("08:05", Some("09:23")))),
            last,
        ]))));
        let p = eta_of(&sc);
        assert_eq!(p.eta, Some(MIN(39 + 25)));
        assert_eq!(p.eta_source, Some(EtaSource::UpdateGroups { groups: 3 }));
    }
}

#[test]
fn the_eta_says_what_it_is_based_on() {
    let mut p = progress(
        &fixtures::mid_update_scenario().snap,
        &fixtures::mid_update_scenario().history,
        fixtures::mid_update_now(),
    );
    assert_eq!(eta_basis(&p), "from 4 machines, 2 overdue");
    p.eta_source = Some(EtaSource::UpdateGroups { groups: 3 });
    assert_eq!(eta_basis(&p), "from 4 machines, by group, 2 overdue");
    p.eta_source = Some(EtaSource::Machines);
    p.overdue = 0;
    assert_eq!(eta_basis(&p), "from 4 machines");
    p.eta_source = Some(EtaSource::UpdateGroups { groups: 3 });
    assert_eq!(eta_basis(&p), "from 4 machines, by group");
    p.eta_source = Some(EtaSource::UpdatePlan { factor: 1.3 });
    assert_eq!(eta_basis(&p), "plan estimates x1.3");
    p.eta_source = Some(EtaSource::UpdatePlan { factor: 1.0 });
    assert_eq!(eta_basis(&p), "plan estimates");
}

#[test]
fn the_eta_grows_with_a_late_machines_wait_and_is_never_zero_while_one_is_in_its_turn() {
    // Worker-2 in its turn since 09:51, worker-3 since 10:00, worker-4 not
    // started; the finished workers took 25m. Half an hour later both late
    // workers have overrun 30m more: the ETA grows by that much (two lanes:
    // 2 x 30m / 2), where it used to stay at worker-4's share alone.
    let sc = fixtures::mid_update_scenario();
    let now = fixtures::mid_update_now();
    let early = progress(&sc.snap, &sc.history, now).eta.unwrap();
    let later = progress(&sc.snap, &sc.history, now + SignedDuration::from_mins(30))
        .eta
        .unwrap();
    assert_eq!(later - early, SignedDuration::from_mins(30));
    assert!(later >= SignedDuration::from_mins(30));
}

#[test]
fn a_machine_waiting_for_a_human_counts_only_what_is_left_after_its_wait() {
    // Worker-2 and worker-3 wait on their servers (the screen shows that
    // wait as "blocked …"): after it, nothing of their mean is left; only
    // worker-4's 25m, on two lanes. Neither is called overdue.
    let sc = fixtures::mid_update_scenario();
    let rows = crate::domain::join::machine_rows(&sc.snap);
    let now = fixtures::mid_update_now();
    let p = super::progress(&sc.snap, &sc.history, &rows, now, &[WORKER_2, WORKER_3]);
    assert_eq!(p.eta, Some(SignedDuration::from_secs(12 * 60 + 30)));
    assert_eq!(p.overdue, 0);
    assert_eq!(eta_basis(&p), "from 4 machines");
}
