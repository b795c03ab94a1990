//! The simulated MOSK update, driven by stepping the simulator clock (no sleeps).

use std::collections::BTreeSet;

use jiff::SignedDuration;
use mosk_console::sim::scenario::lcm::MachineStep;
use mosk_console::sim::scenario::spec::Role;
use mosk_console::sim::scenario::text::{ANN_INNER_STATE, left_new};
use mosk_console::sim::scenario::{ScenarioError, UpdatePhase, load_scenario, parse_scenario};
use mosk_console::sim::store::{EventType, StoreEvent, WatchFrom};
use mosk_console::sim::world::SimWorld;
use regex::Regex;
use serde_json::{Value, json};
use tokio::sync::broadcast;

const MIN: SignedDuration = SignedDuration::from_secs(60);
const HOUR: SignedDuration = SignedDuration::from_secs(3600);

fn quick(seed: u64) -> SimWorld {
    SimWorld::new(load_scenario("quick").unwrap(), seed)
}

fn custom(toml: &str) -> SimWorld {
    SimWorld::new(parse_scenario(toml, "test.toml").unwrap(), 42)
}

const SHORT_DURATIONS: &str = r#"
[durations]
update_start = "10s"
prepare = "20s"
openstack_update = "30s"
ceph_update = "20s"
tf_ready = "10s"
lcm_retry = "30s"
node_prepare = "5s"
live_migration = "20s"
drain = "10s"
swarm_drain = "5s"
deploy = "20s"
reboot = "20s"
reacquire = "10s"
finalization = "30s"
vrouter_pod_start = "10s"
"#;

fn get(w: &SimWorld, mosk: bool, plural: &str, ns: Option<&str>, name: &str) -> Option<Value> {
    let store = if mosk { w.mosk() } else { w.mgmt() };
    store.get(plural, ns, name)
}

fn nwl(w: &SimWorld, name: &str) -> Value {
    get(w, true, "nodeworkloadlocks", None, name).unwrap_or_else(|| panic!("lock {name}"))
}

fn str_at<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or_default()
}

fn machine_state(w: &SimWorld, name: &str) -> String {
    let m = get(w, false, "lcmmachines", Some("child-ns"), name).expect("machine");
    str_at(&m, "/status/state").to_string()
}

/// Merge-patches a Node annotation as an operator would (kubectl annotate --overwrite).
fn annotate(w: &SimWorld, node: &str, key: &str, value: &str) {
    let body = json!({"metadata": {"annotations": {key: value}}}).to_string();
    w.mosk()
        .patch(
            "nodes",
            None,
            node,
            None,
            "application/merge-patch+json",
            body.as_bytes(),
            false,
        )
        .expect("patch node");
}

const MODE: &str = "openstack.lcm.mirantis.com/instance_migration_mode";
const ATTEMPTS: &str = "openstack.lcm.mirantis.com/instance_migration_attempts";

/// The text of a Rockoon errorMessage after its `str(datetime.utcnow())` prefix.
fn strip_ts(msg: &str) -> String {
    let re = Regex::new(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})? ").unwrap();
    assert!(re.is_match(msg), "no Python UTC timestamp prefix: {msg:?}");
    re.replace(msg, "").to_string()
}

fn subscribe(w: &SimWorld) -> broadcast::Receiver<std::sync::Arc<StoreEvent>> {
    w.mosk()
        .watch(
            "nodeworkloadlocks",
            WatchFrom::Since(w.mosk().resource_version()),
        )
        .unwrap()
        .rx
}

/// errorMessages written to lock `name` since the last call, timestamps stripped.
fn drain_messages(
    rx: &mut broadcast::Receiver<std::sync::Arc<StoreEvent>>,
    name: &str,
    out: &mut Vec<String>,
) {
    while let Ok(ev) = rx.try_recv() {
        if ev.plural != "nodeworkloadlocks" || str_at(&ev.object, "/metadata/name") != name {
            continue;
        }
        let new = str_at(&ev.object, "/status/errorMessage");
        let old = ev
            .old
            .as_ref()
            .map(|o| str_at(o, "/status/errorMessage"))
            .unwrap_or_default();
        if !new.is_empty() && new != old {
            out.push(strip_ts(new));
        }
    }
}

/// Sets `skip` on any node whose OpenStack lock waits for the operator, and steps to the end.
fn drive_to_done(w: &SimWorld, limit: SignedDuration) {
    let done = w.step_until(limit, |w| {
        for lock in w.mosk().list("nodeworkloadlocks", None) {
            if str_at(&lock, "/status/errorMessage").contains("Some servers are still present") {
                let node = str_at(&lock, "/spec/nodeName").to_string();
                annotate(w, &node, MODE, "skip");
            }
        }
        w.phase() == UpdatePhase::Done
    });
    assert!(
        done,
        "update did not finish; phase {:?}; timeline tail {:?}",
        w.phase(),
        w.timeline().iter().rev().take(5).collect::<Vec<_>>()
    );
}

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
fn manual_node_waits_for_the_operator_then_skip_hard_reboots_its_servers() {
    let w = quick(3);
    let m = w
        .machines()
        .into_iter()
        .find(|m| m.role == Role::Compute && m.role_index == 1)
        .unwrap();
    let lock = format!("openstack-{}", m.node);
    let left = |w: &SimWorld| {
        str_at(&nwl(w, &lock), "/status/errorMessage")
            .contains("Notify owners of the following server:")
    };
    // Other nodes waiting for the operator are released so the update reaches this one.
    assert!(w.step_until(3 * HOUR, |w| {
        for other in w.mosk().list("nodeworkloadlocks", None) {
            let node = str_at(&other, "/spec/nodeName");
            if node != m.node
                && str_at(&other, "/status/errorMessage").contains("Some servers are still present")
            {
                annotate(w, node, MODE, "skip");
            }
        }
        left(w)
    }));
    let servers = w.servers_on(&m.node);
    assert!(servers.len() >= 2, "{servers:?}");
    let l = nwl(&w, &lock);
    let first = str_at(&l, "/status/errorMessage").to_string();
    assert_eq!(strip_ts(&first), left_new(&servers, &[]));
    assert_eq!(str_at(&l, "/status/state"), "active");
    assert_eq!(str_at(&l, "/metadata/annotations/inner_state"), "active");

    // Nothing moves while the operator does nothing; the controller re-checks every minute.
    let cd_name = format!("cd-{}", m.name);
    let attempt = |w: &SimWorld| {
        get(w, false, "lcmclusterstates", Some("child-ns"), &cd_name).unwrap()["status"]["attempt"]
            .as_u64()
            .unwrap()
    };
    let a0 = attempt(&w);
    w.step(10 * MIN);
    let l = nwl(&w, &lock);
    assert_eq!(str_at(&l, "/status/state"), "active");
    let later = str_at(&l, "/status/errorMessage").to_string();
    assert_ne!(
        later, first,
        "the message is rewritten with a new timestamp at each retry"
    );
    assert_eq!(strip_ts(&later), left_new(&servers, &[]));
    assert_eq!(machine_state(&w, &m.name), "Prepare");
    assert!(matches!(
        w.machine_step(m.index),
        MachineStep::WaitingLocks { .. }
    ));
    assert!(
        attempt(&w) >= a0 + 15,
        "cordon-drain attempts {} -> {}",
        a0,
        attempt(&w)
    );
    let cd = get(&w, false, "lcmclusterstates", Some("child-ns"), &cd_name).unwrap();
    assert_eq!(
        str_at(&cd, "/status/message"),
        "Error: following NodeWorkloadLocks are still active - openstack: InProgress"
    );
    assert_eq!(cd["spec"]["value"], "true");
    assert!(cd["status"].get("value").is_none());
    let sd = get(
        &w,
        false,
        "lcmclusterstates",
        Some("child-ns"),
        &format!("sd-{}", m.name),
    )
    .unwrap();
    assert_eq!(
        str_at(&sd, "/status/message"),
        format!(
            "Error: waiting for kubernetes node {} to be drained first",
            m.node
        )
    );

    // The operator migrated by hand (not modelled) and confirms with `skip`.
    let t_skip = w.now();
    annotate(&w, &m.node, MODE, "skip");
    assert!(
        w.step_until(2 * MIN, |w| str_at(&nwl(w, &lock), "/status/state")
            == "inactive")
    );
    assert!(
        w.now().duration_since(t_skip) <= SignedDuration::from_secs(62),
        "taken at the next retry"
    );
    assert!(nwl(&w, &lock).pointer("/status/errorMessage").is_none());
    assert!(w.step_until(30 * MIN, |w| machine_state(w, &m.name) == "Ready"));
    let hr = w.hard_reboots();
    let rec = hr
        .iter()
        .find(|r| r.node == m.node)
        .expect("hard reboot recorded");
    assert_eq!(rec.machine, m.name);
    assert_eq!(
        rec.servers.iter().cloned().collect::<BTreeSet<_>>(),
        servers.into_iter().collect::<BTreeSet<_>>()
    );
}

#[test]
fn failing_live_migration_falls_back_after_the_annotated_attempts() {
    let w = quick(4);
    let m = w
        .machines()
        .into_iter()
        .find(|m| m.role == Role::Compute && m.role_index == 2)
        .unwrap();
    let bad = m
        .servers
        .iter()
        .find(|s| s.problem.is_some())
        .unwrap()
        .id
        .clone();
    let lock = format!("openstack-{}", m.node);
    let mut rx = subscribe(&w);
    let mut msgs = Vec::new();
    let e_left_only_bad = left_new(&[], std::slice::from_ref(&bad));
    let lefts = |msgs: &[String]| {
        msgs.iter()
            .filter(|m| m.starts_with("Some servers are still present"))
            .count()
    };
    assert!(
        w.step_until(4 * HOUR, |w| {
            for other in w.mosk().list("nodeworkloadlocks", None) {
                let node = str_at(&other, "/spec/nodeName");
                if node != m.node
                    && str_at(&other, "/status/errorMessage")
                        .contains("Some servers are still present")
                {
                    annotate(w, node, MODE, "skip");
                }
            }
            drain_messages(&mut rx, &lock, &mut msgs);
            msgs.contains(&e_left_only_bad)
        }),
        "{msgs:?}"
    );
    // One round between two checks: exactly 2 attempts (annotation) for the bad server.
    let last_left = msgs.len() - 1;
    let prev_left = msgs[..last_left]
        .iter()
        .rposition(|x| x.starts_with("Some servers are still present"))
        .expect("an earlier check");
    let round = &msgs[prev_left + 1..last_left];
    let starts = round
        .iter()
        .filter(|x| **x == format!("Starting migration for {bad}"))
        .count();
    let errors: Vec<&String> = round
        .iter()
        .filter(|x| x.starts_with(&format!("Got error while trying to migrate server {bad}: ")))
        .collect();
    assert_eq!((starts, errors.len()), (2, 2), "{round:?}");
    assert!(
        errors[0].contains("Migration pre-check error"),
        "{}",
        errors[0]
    );

    // A new attempts value applies at the next retry.
    annotate(&w, &m.node, ATTEMPTS, "4");
    let n = lefts(&msgs);
    assert!(w.step_until(5 * MIN, |_| {
        drain_messages(&mut rx, &lock, &mut msgs);
        lefts(&msgs) > n
    }));
    let round = &msgs[last_left + 1..msgs.len() - 1];
    let errors = round
        .iter()
        .filter(|x| x.starts_with(&format!("Got error while trying to migrate server {bad}")))
        .count();
    assert_eq!(errors, 4, "{round:?}");
    assert_eq!(msgs.last().unwrap(), &e_left_only_bad);
    // The good instance was live-migrated away, the bad one is still there.
    assert_eq!(w.servers_on(&m.node), vec![bad.clone()]);
    assert_eq!(str_at(&nwl(&w, &lock), "/status/state"), "active");
}

#[test]
fn old_message_format_lists_servers_with_status_and_host() {
    let w = custom(&format!(
        "name = \"t\"\nmessage_format = \"old\"\n{SHORT_DURATIONS}\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\ninstances = 1\nmigration_mode = \"manual\"\n"
    ));
    let m = w.machines()[1].clone();
    let lock = format!("openstack-{}", m.node);
    assert!(w.step_until(HOUR, |w| {
        str_at(&nwl(w, &lock), "/status/errorMessage").contains("Some servers")
    }));
    let msg = strip_ts(str_at(&nwl(&w, &lock), "/status/errorMessage"));
    assert_eq!(
        msg,
        format!(
            "Some servers {{'{}': 'ACTIVE'}} are still present on host {}. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'",
            m.servers[0].id, m.node
        )
    );
}

/// DaemonSet status must match its pods at every moment.
fn check_ds_consistent(w: &SimWorld) -> Value {
    let ds = get(w, true, "daemonsets", Some("tf"), "tf-vrouter-agent").unwrap();
    let generation = ds["metadata"]["generation"].as_i64().unwrap();
    let pods: Vec<Value> = w
        .mosk()
        .list("pods", Some("tf"))
        .into_iter()
        .filter(|p| p.pointer("/metadata/deletionTimestamp").is_none())
        .collect();
    let ready = pods
        .iter()
        .filter(|p| {
            p["status"]["conditions"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|c| c["type"] == "Ready" && c["status"] == "True")
            })
        })
        .count();
    let updated = pods
        .iter()
        .filter(|p| {
            p["metadata"]["labels"]["pod-template-generation"] == generation.to_string().as_str()
        })
        .count();
    let st = &ds["status"];
    assert_eq!(st["observedGeneration"], generation);
    assert_eq!(st["currentNumberScheduled"], pods.len(), "{st}");
    assert_eq!(st["updatedNumberScheduled"], updated, "{st}");
    assert_eq!(st["numberReady"], ready, "{st}");
    assert_eq!(st["numberAvailable"], ready, "{st}");
    ds
}

#[test]
fn vrouter_daemonset_converges_only_after_old_pods_are_deleted() {
    let w = quick(5);
    assert_eq!(
        check_ds_consistent(&w)["spec"]["updateStrategy"]["type"],
        "OnDelete"
    );
    drive_to_done(&w, 4 * HOUR);
    let ds = check_ds_consistent(&w);
    assert_eq!(ds["metadata"]["generation"], 2);
    assert_eq!(ds["status"]["desiredNumberScheduled"], 3);
    assert_eq!(ds["status"]["currentNumberScheduled"], 3);
    assert_eq!(ds["status"]["updatedNumberScheduled"], 0);
    w.step(10 * MIN);
    assert_eq!(
        check_ds_consistent(&w)["status"]["updatedNumberScheduled"],
        0,
        "OnDelete: nothing restarts by itself"
    );

    let pod_name = Regex::new(r"^tf-vrouter-agent-[a-z0-9]{5}$").unwrap();
    let computes: Vec<_> = w
        .machines()
        .into_iter()
        .filter(|m| m.role == Role::Compute)
        .collect();
    for (k, m) in computes.iter().enumerate() {
        let old = w
            .mosk()
            .list("pods", Some("tf"))
            .into_iter()
            .find(|p| p["spec"]["nodeName"] == m.node.as_str())
            .unwrap();
        let old_name = str_at(&old, "/metadata/name").to_string();
        let old_rev = str_at(&old, "/metadata/labels/controller-revision-hash").to_string();
        assert_eq!(old["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
        w.mosk()
            .delete("pods", Some("tf"), &old_name, &Value::Null, false)
            .unwrap();
        // The DaemonSet controller sees the deletion at its next step, like a real one.
        w.step(SignedDuration::from_secs(1));
        let mut saw_pending = false;
        assert!(w.step_until(2 * MIN, |w| {
            let ds = check_ds_consistent(w);
            let new = w.mosk().list("pods", Some("tf")).into_iter().find(|p| {
                p["spec"]["nodeName"] == m.node.as_str() && str_at(p, "/metadata/name") != old_name
            });
            if let Some(p) = &new {
                saw_pending |= p["status"]["phase"] == "Pending";
            }
            ds["status"]["updatedNumberScheduled"] == k + 1 && ds["status"]["numberReady"] == 3
        }));
        assert!(saw_pending, "replacement went through Pending");
        let new = w
            .mosk()
            .list("pods", Some("tf"))
            .into_iter()
            .find(|p| p["spec"]["nodeName"] == m.node.as_str())
            .unwrap();
        assert_eq!(new["metadata"]["labels"]["pod-template-generation"], "2");
        assert_ne!(
            str_at(&new, "/metadata/labels/controller-revision-hash"),
            old_rev
        );
        assert!(pod_name.is_match(str_at(&new, "/metadata/name")));
    }
    let ds = check_ds_consistent(&w);
    assert_eq!(
        ds["status"]["updatedNumberScheduled"],
        ds["status"]["currentNumberScheduled"]
    );
}

#[test]
fn a_replacement_vrouter_pod_can_be_made_to_never_become_ready() {
    let w = custom(&format!(
        "name = \"t\"\nvrouter_manual_restart = true\n{SHORT_DURATIONS}\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\n\
         [[overrides]]\nrole = \"compute\"\nindex = 0\nvrouter_never_ready = true\n"
    ));
    assert!(w.step_until(2 * HOUR, |w| w.phase() == UpdatePhase::Done));
    let node = w.machines()[1].node.clone();
    let old = w
        .mosk()
        .list("pods", Some("tf"))
        .into_iter()
        .find(|p| p["spec"]["nodeName"] == node.as_str())
        .unwrap();
    w.mosk()
        .delete(
            "pods",
            Some("tf"),
            str_at(&old, "/metadata/name"),
            &Value::Null,
            false,
        )
        .unwrap();
    w.step(10 * MIN);
    let ds = check_ds_consistent(&w);
    assert_eq!(ds["status"]["numberReady"], 1);
    let new = w
        .mosk()
        .list("pods", Some("tf"))
        .into_iter()
        .find(|p| p["spec"]["nodeName"] == node.as_str())
        .unwrap();
    assert_eq!(new["status"]["phase"], "Running");
    assert!(
        new["status"]["containerStatuses"][0]["restartCount"]
            .as_u64()
            .unwrap()
            > 5
    );
}

#[test]
fn stuck_drain_keeps_counting_cordon_drain_attempts() {
    let w = SimWorld::new(load_scenario("stuck-drain").unwrap(), 9);
    let m = w
        .machines()
        .into_iter()
        .find(|m| m.role == Role::Storage)
        .unwrap();
    let cd_name = format!("cd-{}", m.name);
    let attempt = |w: &SimWorld| {
        get(w, false, "lcmclusterstates", Some("child-ns"), &cd_name)
            .and_then(|c| c["status"]["attempt"].as_u64())
    };
    assert!(w.step_until(2 * HOUR, |w| attempt(w).is_some()));
    w.step(5 * MIN);
    let a1 = attempt(&w).unwrap();
    w.step(10 * MIN);
    let a2 = attempt(&w).unwrap();
    w.step(10 * MIN);
    let a3 = attempt(&w).unwrap();
    assert!(a2 >= a1 + 15 && a3 >= a2 + 15, "{a1} {a2} {a3}");
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
    let warns = w
        .lcm_log()
        .iter()
        .filter(|l| l.contains("\"level\":\"warn\"") && l.contains(&m.name))
        .count();
    assert!(warns as u64 >= a3 - 1, "a log line per attempt: {warns}");
}

#[test]
fn bad_scenario_file_error_names_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.toml");
    std::fs::write(&path, "name = \"b\"\n[[machines]]\nrole = \"control\"\ncount = 1\n[durations]\ndrain = \"fast\"\n").unwrap();
    let e = load_scenario(path.to_str().unwrap()).unwrap_err();
    assert!(matches!(e, ScenarioError::Parse { .. }));
    let text = e.to_string();
    assert!(
        text.contains("broken.toml") && text.contains("durations.drain") && text.contains("line 6"),
        "{text}"
    );

    std::fs::write(
        &path,
        "name = \"b\"\nworker_concurrency = 500\n[[machines]]\nrole = \"control\"\ncount = 1\n",
    )
    .unwrap();
    let text = load_scenario(path.to_str().unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("broken.toml")
            && text.contains("`worker_concurrency`")
            && text.contains("out of range"),
        "{text}"
    );
}

/// Both stores with the store-made uids and resource versions taken out.
fn snapshot(w: &SimWorld) -> Value {
    fn scrub(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("uid");
                m.remove("resourceVersion");
                m.values_mut().for_each(scrub);
            }
            Value::Array(a) => a.iter_mut().for_each(scrub),
            _ => {}
        }
    }
    let mut v = json!({"mgmt": w.mgmt().dump(), "mosk": w.mosk().dump()});
    scrub(&mut v);
    v
}

#[test]
fn same_seed_same_world_other_seed_other_names() {
    let a = quick(11);
    let b = quick(11);
    a.step(40 * MIN);
    b.step(40 * MIN);
    assert_eq!(snapshot(&a), snapshot(&b));
    assert_eq!(a.lcm_log(), b.lcm_log());
    assert_eq!(a.timeline(), b.timeline());
    let c = quick(12);
    assert_ne!(a.machines()[0].name, c.machines()[0].name);
    assert_ne!(a.machines()[0].node, c.machines()[0].node);
    // Names look like the documented ones.
    let m = &a.machines()[3];
    assert!(
        Regex::new(r"^cz75\d\d-child-cl-storage-worker-[a-z0-9]{5}$")
            .unwrap()
            .is_match(&m.name),
        "{}",
        m.name
    );
    assert!(
        Regex::new(
            r"^kaas-node-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"
        )
        .unwrap()
        .is_match(&m.node),
        "{}",
        m.node
    );
    assert!(
        Regex::new(r"^lcm-lcm-controller-[a-z0-9]{10}-[a-z0-9]{5}$")
            .unwrap()
            .is_match(&a.lcm_pod())
    );
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
