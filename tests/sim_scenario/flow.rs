//! The update flow end to end: phases, locks, requests, stuck drains, scale.

use std::collections::BTreeSet;

use mosk_console::sim::scenario::spec::Role;
use mosk_console::sim::scenario::text::ANN_INNER_STATE;
use mosk_console::sim::scenario::{UpdatePhase, load_scenario};
use mosk_console::sim::store::{EventType, WatchFrom};
use mosk_console::sim::world::SimWorld;
use serde_json::json;

use super::*;

#[test]
fn all_live_update_completes_and_puts_everything_back() {
    let w = custom(&format!(
        "name = \"t\"\nvrouter_manual_restart = false\n{SHORT_DURATIONS}\n\
         [[machines]]\nrole = \"control\"\ncount = 2\n\
         [[machines]]\nrole = \"storage\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\ninstances = 2\n"
    ));
    let machines = w.machines();
    let servers_before: BTreeSet<String> = machines
        .iter()
        .flat_map(|m| m.servers.iter().map(|s| s.id.clone()))
        .collect();
    assert_eq!(w.phase(), UpdatePhase::NotStarted);
    assert!(
        w.step_until(2 * HOUR, |w| w.phase() == UpdatePhase::Done),
        "phase {:?}",
        w.phase()
    );

    for m in &machines {
        let lm = get(&w, false, "lcmmachines", Some("child-ns"), &m.name).unwrap();
        assert_eq!(str_at(&lm, "/status/state"), "Ready", "{}", m.name);
        assert_eq!(str_at(&lm, "/status/release"), "mosk-17-4-0-25-1");
        assert_eq!(str_at(&lm, "/status/agentVersion"), "1.42.7");
        let node = get(&w, true, "nodes", None, &m.node).unwrap();
        assert!(
            node.pointer("/spec/unschedulable").is_none(),
            "{} still cordoned",
            m.node
        );
    }
    assert!(w.mosk().list("clustermaintenancerequests", None).is_empty());
    assert!(w.mosk().list("nodemaintenancerequests", None).is_empty());
    assert!(
        w.mgmt()
            .list("lcmclusterstates", Some("child-ns"))
            .is_empty()
    );
    for lock in w
        .mosk()
        .list("clusterworkloadlocks", None)
        .iter()
        .chain(w.mosk().list("nodeworkloadlocks", None).iter())
    {
        assert_eq!(
            str_at(lock, "/status/state"),
            "active",
            "{}",
            str_at(lock, "/metadata/name")
        );
        assert!(lock.pointer("/status/errorMessage").is_none(), "{lock}");
        assert_eq!(
            str_at(lock, "/status/release"),
            "17.4.0+25.1",
            "{}",
            str_at(lock, "/metadata/name")
        );
    }
    for m in machines.iter().filter(|m| m.role != Role::Storage) {
        let l = nwl(&w, &format!("openstack-{}", m.node));
        assert_eq!(
            str_at(&l, &format!("/metadata/annotations/{ANN_INNER_STATE}")),
            "inactive"
        );
    }
    let cl = get(&w, false, "lcmclusters", Some("child-ns"), "child-cl").unwrap();
    assert_eq!(str_at(&cl, "/status/release"), "mosk-17-4-0-25-1");
    // Every instance was live-migrated, none went down with its host.
    assert!(w.hard_reboots().is_empty(), "{:?}", w.hard_reboots());
    let servers_after: BTreeSet<String> = machines
        .iter()
        .flat_map(|m| w.servers_on(&m.node))
        .collect();
    assert_eq!(servers_before, servers_after);
    // 22.4+ behaviour: the TF operator restarted every vRouter pod.
    let ds = get(&w, true, "daemonsets", Some("tf"), "tf-vrouter-agent").unwrap();
    assert_eq!(ds["status"]["updatedNumberScheduled"], 2);
    assert_eq!(ds["status"]["numberReady"], 2);
    // Masters went first, one at a time, then workers.
    let starts: Vec<String> = w
        .timeline()
        .into_iter()
        .filter(|(_, t)| t.starts_with("maintenance started"))
        .map(|(_, t)| t)
        .collect();
    assert_eq!(starts.len(), machines.len());
    for (s, m) in starts.iter().zip(&machines) {
        assert!(s.contains(&m.name), "{s} vs {}", m.name);
    }
    // The log is zap-style JSON with the odd plain-text line.
    let log = w.lcm_log();
    assert!(
        log.iter()
            .any(|l| l.contains("\"msg\":\"Created NodeMaintenanceRequest\""))
    );
    assert!(
        log.iter()
            .any(|l| l.contains("\"msg\":\"Cluster update completed\""))
    );
    assert!(log.iter().any(|l| !l.starts_with('{')));
}

#[test]
fn cluster_locks_go_inactive_openstack_then_ceph_before_masters() {
    let w = quick(1);
    let mut rx = w
        .mosk()
        .watch(
            "clusterworkloadlocks",
            WatchFrom::Since(w.mosk().resource_version()),
        )
        .unwrap()
        .rx;
    let mut seen: Vec<(String, String, String)> = Vec::new();
    let mut first_nmr_after = None;
    w.step_until(HOUR, |_| {
        while let Ok(ev) = rx.try_recv() {
            if ev.plural == "clusterworkloadlocks" {
                let o = &ev.object;
                seen.push((
                    str_at(o, "/metadata/name").into(),
                    str_at(o, "/status/state").into(),
                    str_at(o, "/status/errorMessage").into(),
                ));
            }
            if ev.plural == "nodemaintenancerequests" && first_nmr_after.is_none() {
                first_nmr_after = Some(seen.len());
            }
        }
        first_nmr_after.is_some()
    });
    let pos = |name: &str, state: &str| seen.iter().position(|(n, s, _)| n == name && s == state);
    let health = seen
        .iter()
        .position(|(n, _, m)| {
            n == "openstack-osh-dev"
                && m.ends_with(" Waiting for all OpenStack services are healthy.")
        })
        .expect("E-HEALTH on the OpenStack cluster lock");
    let os = pos("openstack-osh-dev", "inactive").expect("openstack inactive");
    let ceph = pos("ceph-child-cl", "inactive").expect("ceph inactive");
    let tf = pos("tf-openstack-tf", "inactive").expect("tf inactive");
    assert!(health < os && os < ceph, "{seen:?}");
    let nmr_at = first_nmr_after.expect("an NMR was created");
    assert!(
        ceph < nmr_at && tf < nmr_at,
        "masters started before all cluster locks were inactive"
    );
    assert_eq!(w.phase(), UpdatePhase::Masters);
    // The first maintenance goes to the first master.
    let m0 = &w.machines()[0];
    let nmr =
        get(&w, true, "nodemaintenancerequests", None, &m0.node).expect("NMR for the first master");
    assert_eq!(nmr["spec"]["nodeName"], m0.node.as_str());
    assert_eq!(nmr["spec"]["scope"], "os");
    assert_eq!(machine_state(&w, &w.machines()[3].name), "Prepare");
}

#[test]
fn node_maintenance_request_terminates_with_finalizer_and_locks_come_back() {
    let w = quick(2);
    let m0 = w.machines()[0].clone();
    let m1 = w.machines()[1].clone();
    let mut rx = w
        .mosk()
        .watch(
            "nodemaintenancerequests",
            WatchFrom::Since(w.mosk().resource_version()),
        )
        .unwrap()
        .rx;
    let mut terminating_seen = false;
    let mut deleted_seen = false;
    let mut os_msgs = Vec::new();
    let mut rx_locks = subscribe(&w);
    assert!(w.step_until(2 * HOUR, |w| {
        while let Ok(ev) = rx.try_recv() {
            if ev.plural != "nodemaintenancerequests"
                || str_at(&ev.object, "/metadata/name") != m0.node
            {
                continue;
            }
            if ev.kind == EventType::Modified
                && ev.object.pointer("/metadata/deletionTimestamp").is_some()
            {
                assert_eq!(
                    ev.object["metadata"]["finalizers"],
                    json!(["lcm.mirantis.com/rockoon.nodemaintenancerequest-finalizer"])
                );
                terminating_seen = true;
            }
            if ev.kind == EventType::Deleted {
                deleted_seen = true;
            }
        }
        drain_messages(
            &mut rx_locks,
            &format!("openstack-{}", m1.node),
            &mut os_msgs,
        );
        deleted_seen
            && machine_state(w, &m1.name) == "Ready"
            && get(w, true, "nodemaintenancerequests", None, &m1.node).is_none()
    }));
    assert!(terminating_seen, "NMR never showed Terminating");
    let l = nwl(&w, &format!("openstack-{}", m0.node));
    assert_eq!(str_at(&l, "/status/state"), "active");
    assert_eq!(str_at(&l, "/metadata/annotations/inner_state"), "inactive");
    // The next master's lock waited while the previous one was still being taken back.
    assert!(
        os_msgs.iter().any(|m| m == &format!("Number of inactive NodeWorkloadLocks exceeds allowed concurrency. Deferring processing for node {}", m1.node)),
        "{os_msgs:?}"
    );
}

#[test]
fn stuck_drain_keeps_the_cordon_drain_attempt_at_zero_as_the_seed_shows() {
    let w = SimWorld::new(load_scenario("stuck-drain").unwrap(), 9);
    let m = w
        .machines()
        .into_iter()
        .find(|m| m.role == Role::Storage)
        .unwrap();
    let cd_name = format!("cd-{}", m.name);
    let sd_name = format!("sd-{}", m.name);
    let attempt = |w: &SimWorld, name: &str| {
        get(w, false, "lcmclusterstates", Some("child-ns"), name)
            .and_then(|c| c["status"]["attempt"].as_u64())
    };
    assert!(w.step_until(2 * HOUR, |w| attempt(w, &cd_name).is_some()));
    let warns = |w: &SimWorld| {
        w.lcm_log()
            .iter()
            .filter(|l| l.contains("\"level\":\"warn\"") && l.contains(&m.name))
            .count()
    };
    let w0 = warns(&w);
    // The seed (`kubectl get lcmclusterstates -o wide`, 22.2 procedure) shows
    // ATTEMPT 0 on both states while the node locks are still active.
    for _ in 0..3 {
        w.step(10 * MIN);
        assert_eq!(attempt(&w, &cd_name), Some(0));
        assert_eq!(attempt(&w, &sd_name), Some(0));
    }
    let cd = get(&w, false, "lcmclusterstates", Some("child-ns"), &cd_name).unwrap();
    assert_eq!(
        str_at(&cd, "/status/message"),
        "Error: following NodeWorkloadLocks are still active - ceph: UpdatingController"
    );
    assert_eq!(
        str_at(&nwl(&w, &format!("ceph-{}", m.node)), "/status/state"),
        "active"
    );
    assert_eq!(machine_state(&w, &m.name), "Prepare");
    assert_eq!(w.phase(), UpdatePhase::Workers);
    // LCM still re-checks every `lcm_retry` (30 s here) and logs each time.
    let more = warns(&w) - w0;
    assert!(more >= 55, "a log line per re-check: {more}");
}

#[test]
fn quick_runs_to_the_end_with_operator_help() {
    let w = quick(6);
    let t0 = w.now();
    drive_to_done(&w, 3 * HOUR);
    let took = w.now().duration_since(t0);
    // The two computes that needed `skip` went down with their instances.
    assert_eq!(w.hard_reboots().len(), 2, "{:?}", w.hard_reboots());
    assert!(took < HOUR, "quick took {took:#} simulated");
}

#[test]
fn large_scenario_seeds_two_thousand_machines() {
    let w = SimWorld::new(load_scenario("large").unwrap(), 1);
    assert_eq!(w.mgmt().list("lcmmachines", Some("child-ns")).len(), 2000);
    assert_eq!(w.mosk().list("nodes", None).len(), 2000);
    assert_eq!(w.mosk().list("pods", Some("tf")).len(), 1900);
    w.step(5 * MIN);
    assert_eq!(w.phase(), UpdatePhase::ClusterLocks);
}

#[test]
fn drain_scope_updates_without_migration_or_reboot() {
    let w = custom(&format!(
        "name = \"t\"\nreboot = false\n{SHORT_DURATIONS}\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\ninstances = 1\n"
    ));
    let m = w.machines()[1].clone();
    assert!(w.step_until(HOUR, |w| {
        get(w, true, "nodemaintenancerequests", None, &m.node).is_some()
    }));
    let nmr = get(&w, true, "nodemaintenancerequests", None, &m.node).unwrap();
    assert_eq!(nmr["spec"]["scope"], "drain");
    let mut states = BTreeSet::new();
    assert!(w.step_until(2 * HOUR, |w| {
        states.insert(machine_state(w, &m.name));
        w.phase() == UpdatePhase::Done
    }));
    assert!(!states.contains("Reboot"), "{states:?}");
    assert!(states.contains("Deploy"), "{states:?}");
    // scope drain: instances stay where they are and nothing is rebooted.
    assert_eq!(w.servers_on(&m.node), vec![m.servers[0].id.clone()]);
    assert!(w.hard_reboots().is_empty());
}

#[test]
fn workers_run_concurrently_but_tf_releases_one_node_at_a_time() {
    let w = custom(&format!(
        "name = \"t\"\nworker_concurrency = 2\nvrouter_manual_restart = false\n{SHORT_DURATIONS}\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 4\n"
    ));
    let (mut max_nmr, mut max_tf_inactive) = (0, 0);
    assert!(w.step_until(3 * HOUR, |w| {
        let nmrs = w.mosk().list("nodemaintenancerequests", None);
        max_nmr = max_nmr.max(
            nmrs.iter()
                .filter(|n| n.pointer("/metadata/deletionTimestamp").is_none())
                .count(),
        );
        let tf_inactive = w
            .mosk()
            .list("nodeworkloadlocks", None)
            .iter()
            .filter(|l| {
                l["spec"]["controllerName"] == "tungstenfabric"
                    && l["status"]["state"] == "inactive"
            })
            .count();
        max_tf_inactive = max_tf_inactive.max(tf_inactive);
        w.phase() == UpdatePhase::Done
    }));
    assert_eq!(max_nmr, 2, "two workers at a time");
    assert_eq!(max_tf_inactive, 1, "TF handles one node at a time");
    let cl = get(&w, false, "lcmclusters", Some("child-ns"), "child-cl").unwrap();
    assert_eq!(cl["spec"]["maxWorkerUpgradeCount"], 2);
}
