//! The `controllers` scenario and the rules ported from Rockoon's source:
//! what Nova and the locks say over the simulated clock.

use mosk_console::sim::scenario::nova::MIGRATING;
use mosk_console::sim::scenario::spec::Role;
use mosk_console::sim::scenario::text::left_new;
use mosk_console::sim::scenario::topology::MachineInfo;
use mosk_console::sim::world::SimWorld;

use super::*;

fn controllers() -> SimWorld {
    SimWorld::new(load_scenario("controllers").unwrap(), 7)
}

fn compute(w: &SimWorld, k: u32) -> MachineInfo {
    w.machines()
        .into_iter()
        .find(|m| m.role == Role::Compute && m.role_index == k)
        .unwrap()
}

fn message(w: &SimWorld, lock: &str) -> String {
    str_at(&nwl(w, lock), "/status/errorMessage").to_string()
}

#[test]
fn a_slow_live_migration_is_listed_while_migrating_and_never_started_twice() {
    let w = controllers();
    let m = compute(&w, 0);
    let lock = format!("openstack-{}", m.node);
    let mut rx = subscribe(&w);
    let mut msgs = Vec::new();
    let mut saw_migrating = Vec::new();
    assert!(w.step_until(3 * HOUR, |w| {
        drain_messages(&mut rx, &lock, &mut msgs);
        for s in w.nova_servers() {
            if s.status == MIGRATING && s.on(&m.node) {
                assert_eq!(s.task_state, Some("migrating"));
                if !saw_migrating.contains(&s.id) {
                    saw_migrating.push(s.id.clone());
                }
            }
        }
        str_at(&nwl(w, &lock), "/status/state") == "inactive"
    }));
    assert_eq!(
        saw_migrating.len(),
        2,
        "both servers went through MIGRATING"
    );
    let (a, b) = (&saw_migrating[0], &saw_migrating[1]);
    let start = |id: &str| format!("Starting migration for {id}");
    for id in [a, b] {
        assert_eq!(
            msgs.iter().filter(|x| **x == start(id)).count(),
            1,
            "one start for {id}: {msgs:?}"
        );
    }
    // While <a> migrates and <b> is still to start, the loop waits for <a>.
    let sa = msgs.iter().position(|x| *x == start(a)).unwrap();
    let sb = msgs.iter().position(|x| *x == start(b)).unwrap();
    assert!(sa < sb);
    assert!(
        msgs[sa + 1..sb]
            .iter()
            .all(|x| *x == format!("Waiting servers migration is completed: ['{a}']")),
        "{msgs:?}"
    );
    // Then nothing is left to start: the check lists <b>, MIGRATING, at each retry.
    let listed = left_new(&[], std::slice::from_ref(b));
    let after = &msgs[sb + 1..];
    assert!(after.len() >= 3, "{msgs:?}");
    assert!(after.iter().all(|x| *x == listed), "{msgs:?}");
    assert!(w.servers_on(&m.node).is_empty());
}

#[test]
fn a_refused_migration_is_started_again_at_every_handler_run() {
    let w = controllers();
    let m = compute(&w, 4);
    let bad = m.servers[0].id.clone();
    let error = m.servers[1].id.clone();
    let lock = format!("openstack-{}", m.node);
    let mut rx = subscribe(&w);
    let mut msgs = Vec::new();
    let mut both = vec![bad.clone(), error.clone()];
    both.sort();
    let listed = |msgs: &[String]| msgs.iter().filter(|x| **x == left_new(&[], &both)).count();
    assert!(w.step_until(3 * HOUR, |_| {
        drain_messages(&mut rx, &lock, &mut msgs);
        listed(&msgs) >= 3
    }));
    let start = format!("Starting migration for {bad}");
    let starts = msgs.iter().filter(|x| **x == start).count();
    let errors = msgs
        .iter()
        .filter(|x| x.starts_with(&format!("Got error while trying to migrate server {bad}: ")))
        .count();
    // Three handler runs so far, each with 3 attempts (fresh counters per run).
    assert!(
        starts >= 9 && errors == starts,
        "{starts} {errors} {msgs:?}"
    );
    assert!(
        !msgs
            .iter()
            .any(|x| *x == format!("Starting migration for {error}")),
        "an ERROR server is never started"
    );
    assert_eq!(str_at(&nwl(&w, &lock), "/status/state"), "active");
}

#[test]
fn an_unknown_mode_or_attempts_that_are_no_integer_fail_silently_with_the_lock_active() {
    let w = controllers();
    let five = compute(&w, 5);
    let six = compute(&w, 6);
    let l5 = format!("openstack-{}", five.node);
    let l6 = format!("openstack-{}", six.node);
    // Both handled (inner_state active), then nothing new is written for an hour.
    assert!(w.step_until(4 * HOUR, |w| {
        [&l5, &l6]
            .iter()
            .all(|l| str_at(&nwl(w, l), "/metadata/annotations/inner_state") == "active")
    }));
    w.step(MIN);
    let before = (message(&w, &l5), message(&w, &l6));
    let servers = (w.servers_on(&five.node), w.servers_on(&six.node));
    let mut rx = subscribe(&w);
    let (mut m5, mut m6) = (Vec::new(), Vec::new());
    for _ in 0..60 {
        w.step(MIN);
        drain_messages(&mut rx, &l5, &mut m5);
    }
    let mut rx = subscribe(&w);
    w.step(10 * MIN);
    drain_messages(&mut rx, &l6, &mut m6);
    assert!(m5.is_empty() && m6.is_empty(), "{m5:?} {m6:?}");
    assert_eq!((message(&w, &l5), message(&w, &l6)), before);
    for l in [&l5, &l6] {
        assert_eq!(str_at(&nwl(&w, l), "/status/state"), "active");
    }
    assert_eq!(
        (w.servers_on(&five.node), w.servers_on(&six.node)),
        servers,
        "nothing migrated"
    );
    assert!(!servers.0.is_empty() && !servers.1.is_empty());
    assert!(
        w.timeline()
            .iter()
            .any(|(_, e)| e.contains("KeyError: 'livee'") && e.contains(&five.node))
    );
    // Fixing the annotation is taken at the next retry.
    annotate(&w, &five.node, MODE, "live");
    assert!(w.step_until(5 * MIN, |w| {
        message(w, &l5).contains("Starting migration for")
    }));
}

#[test]
fn a_request_stuck_in_deletion_keeps_its_finalizer_and_the_next_nodes_wait() {
    let w = controllers();
    let m = compute(&w, 2);
    let lock = format!("openstack-{}", m.node);
    // Its lock is inactive and reads the timeout while the request is being deleted.
    assert!(w.step_until(4 * HOUR, |w| {
        message(w, &lock).ends_with("Timeout waiting for compute services up on the host.")
    }));
    let l = nwl(&w, &lock);
    assert_eq!(str_at(&l, "/status/state"), "inactive");
    assert_eq!(str_at(&l, "/metadata/annotations/inner_state"), "active");
    let nmr = get(&w, true, "nodemaintenancerequests", None, &m.node).expect("request kept");
    assert!(nmr["metadata"]["deletionTimestamp"].is_string(), "{nmr}");
    assert_eq!(
        nmr["metadata"]["finalizers"][0],
        "lcm.mirantis.com/rockoon.nodemaintenancerequest-finalizer"
    );
    // Another compute is deferred behind it (this node is also a gateway).
    let deferred = w.machines().into_iter().any(|o| {
        o.role == Role::Compute
            && o.node != m.node
            && message(&w, &format!("openstack-{}", o.node)).ends_with(&format!(
                "Number of inactive NodeWorkloadLocks exceeds allowed concurrency. Deferring processing for node {}",
                o.node
            ))
    });
    assert!(deferred);
    // The compute services come up: the lock is active again, the request gone.
    assert!(w.step_until(HOUR, |w| {
        get(w, true, "nodemaintenancerequests", None, &m.node).is_none()
    }));
    let l = nwl(&w, &lock);
    assert_eq!(str_at(&l, "/status/state"), "active");
    assert_eq!(str_at(&l, "/metadata/annotations/inner_state"), "inactive");
    assert!(l.pointer("/status/errorMessage").is_none());
}

#[test]
fn the_cluster_lock_says_why_it_waits_before_the_health_check() {
    let w = controllers();
    let cwl = |w: &SimWorld| {
        let l = get(w, true, "clusterworkloadlocks", None, "openstack-osh-dev").unwrap();
        str_at(&l, "/status/errorMessage").to_string()
    };
    let mut seen: Vec<String> = Vec::new();
    assert!(w.step_until(HOUR, |w| {
        let m = cwl(w);
        if !m.is_empty() {
            let t = strip_ts(&m);
            if t.starts_with("OpenStackDeploymentStatus") {
                let l = get(w, true, "clusterworkloadlocks", None, "openstack-osh-dev").unwrap();
                assert_eq!(
                    str_at(&l, "/status/release"),
                    "17.4.0+25.1",
                    "reset by the new controller"
                );
                assert_eq!(str_at(&l, "/status/state"), "active");
            }
            if seen.last() != Some(&t) {
                seen.push(t);
            }
        }
        seen.last()
            .is_some_and(|t| t.starts_with("Waiting for all"))
    }));
    assert_eq!(
        seen,
        vec![
            "Current maintenancerequest 17.4.0+25.1 release does not match ours 17.3.4+24.3.4. Skipping handling.".to_string(),
            "OpenStackDeploymentStatus controller version is not updated yet.".to_string(),
            "Waiting osdpl status APPLIED, current state is APPLYING".to_string(),
            "Waiting for all OpenStack services are healthy.".to_string(),
        ]
    );
}

/// What the OpenStackDeploymentStatus says at one moment: state,
/// controller version, release, health, the components not Ready.
fn osdpl_status(w: &SimWorld) -> (String, String, String, String, Vec<String>) {
    let o = get(
        w,
        true,
        "openstackdeploymentstatus",
        Some("openstack"),
        "osh-dev",
    )
    .expect("the status is seeded");
    let mut not_ready = Vec::new();
    for (app, components) in o["status"]["health"].as_object().unwrap() {
        for (component, h) in components.as_object().unwrap() {
            if h["status"] != "Ready" {
                not_ready.push(format!("{app}/{component}"));
            }
        }
    }
    let osdpl = |f: &str| str_at(&o, &format!("/status/osdpl/{f}")).to_string();
    (
        osdpl("state"),
        osdpl("controller_version"),
        osdpl("release"),
        osdpl("health"),
        not_ready,
    )
}

/// The status moves as the cluster lock's messages say it does: the
/// controller's handler reads it (rockoon `cluster_maintenance_request_change_handler`).
#[test]
fn the_openstack_deployment_status_goes_applying_then_applied_in_step_with_the_cluster_lock() {
    let w = controllers();
    let before = osdpl_status(&w);
    assert_eq!(
        before,
        (
            "APPLIED".to_string(),
            "17.3.4".to_string(),
            "17.3.4+24.3.4".to_string(),
            "12/12".to_string(),
            vec![]
        )
    );
    let lock =
        |w: &SimWorld| get(w, true, "clusterworkloadlocks", None, "openstack-osh-dev").unwrap();
    let mut seen: Vec<String> = Vec::new();
    assert!(w.step_until(2 * HOUR, |w| {
        let l = lock(w);
        let (state, version, release, health, not_ready) = osdpl_status(w);
        if str_at(&l, "/status/state") == "inactive" {
            // Released: APPLIED by the new controller, every service healthy.
            assert_eq!(
                (
                    state.as_str(),
                    version.as_str(),
                    release.as_str(),
                    health.as_str()
                ),
                ("APPLIED", "17.4.0", "17.4.0+25.1", "12/12")
            );
            assert!(not_ready.is_empty(), "{not_ready:?}");
            return true;
        }
        let m = match str_at(&l, "/status/errorMessage") {
            "" => String::new(),
            m => strip_ts(m),
        };
        if m.starts_with("Current maintenancerequest") {
            assert_eq!((state.as_str(), version.as_str()), ("APPLIED", "17.3.4"));
        } else if m == "OpenStackDeploymentStatus controller version is not updated yet." {
            assert_eq!(version, "17.3.4", "the old controller's version");
        } else if m == "Waiting osdpl status APPLIED, current state is APPLYING" {
            assert_eq!((state.as_str(), version.as_str()), ("APPLYING", "17.4.0"));
            assert_eq!(not_ready, ["neutron/server"]);
        } else if m == "Waiting for all OpenStack services are healthy." {
            assert_eq!(
                (state.as_str(), release.as_str(), health.as_str()),
                ("APPLIED", "17.4.0+25.1", "11/12")
            );
            assert_eq!(not_ready, ["neutron/server"]);
        }
        if !m.is_empty() && seen.last() != Some(&m) {
            seen.push(m);
        }
        false
    }));
    assert_eq!(seen.len(), 4, "every wait was seen: {seen:?}");
}

#[test]
fn legacy_plays_the_manual_migration_with_the_22x_text() {
    let w = SimWorld::new(load_scenario("legacy").unwrap(), 5);
    let m = w
        .machines()
        .into_iter()
        .find(|m| m.role == Role::Compute && m.role_index == 1)
        .unwrap();
    let lock = format!("openstack-{}", m.node);
    assert!(w.step_until(4 * HOUR, |w| message(w, &lock).contains("Some servers")));
    // Its own servers and those live-migrated onto it from the computes before it.
    let ids = w.servers_on(&m.node);
    assert!(m.servers.iter().all(|s| ids.contains(&s.id)), "{ids:?}");
    let dict: Vec<String> = ids.iter().map(|id| format!("'{id}': 'ACTIVE'")).collect();
    assert_eq!(
        strip_ts(&message(&w, &lock)),
        format!(
            "Some servers {{{}}} are still present on host {}. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'",
            dict.join(", "),
            m.node
        )
    );
    // Nothing is migrated in manual mode; `skip` releases at once (before 25.1).
    w.step(10 * MIN);
    assert_eq!(w.servers_on(&m.node), ids);
    annotate(&w, &m.node, MODE, "skip");
    assert!(
        w.step_until(2 * MIN, |w| str_at(&nwl(w, &lock), "/status/state")
            == "inactive")
    );
}

#[test]
fn an_unknown_mode_raises_only_when_an_untagged_server_is_looked_at() {
    // Every server on the node is tagged: the node's mode is never looked up.
    let w = custom(&format!(
        "name = \"t\"\n{SHORT_DURATIONS}\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\ninstances = 1\n\
         [[overrides]]\nrole = \"compute\"\nindex = 0\nmigration_mode_value = \"livee\"\nserver_tags = [\"live_migrate\"]\n"
    ));
    let m = compute(&w, 0);
    let lock = format!("openstack-{}", m.node);
    assert!(
        w.step_until(HOUR, |w| str_at(&nwl(w, &lock), "/status/state")
            == "inactive")
    );
    let node = get(&w, true, "nodes", None, &m.node).unwrap();
    assert_eq!(
        str_at(
            &node,
            &format!("/metadata/annotations/{}", MODE.replace('/', "~1"))
        ),
        "livee"
    );
    assert!(
        !w.servers_on(&m.node).contains(&m.servers[0].id),
        "live-migrated by its tag"
    );
}

#[test]
fn a_migration_that_nova_aborts_is_listed_while_it_runs_and_started_again_next_run() {
    let w = custom(&format!(
        "name = \"t\"\n{SHORT_DURATIONS}\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\ninstances = 1\n\
         [[overrides]]\nrole = \"compute\"\nindex = 0\nunmigratable = [\"not-converging\"]\nlive_migration = \"90s\"\n"
    ));
    let m = compute(&w, 0);
    let id = m.servers[0].id.clone();
    let lock = format!("openstack-{}", m.node);
    let mut rx = subscribe(&w);
    let mut msgs = Vec::new();
    let start = format!("Starting migration for {id}");
    assert!(w.step_until(HOUR, |_| {
        drain_messages(&mut rx, &lock, &mut msgs);
        msgs.iter().filter(|x| **x == start).count() >= 3
    }));
    // Start, then the check lists it (MIGRATING) at each retry until Nova
    // aborts it, then the next handler run starts it again.
    let listed = left_new(&[], std::slice::from_ref(&id));
    let starts: Vec<usize> = msgs
        .iter()
        .enumerate()
        .filter(|(_, x)| **x == start)
        .map(|(k, _)| k)
        .collect();
    for pair in starts.windows(2) {
        let between = &msgs[pair[0] + 1..pair[1]];
        assert!(!between.is_empty(), "{msgs:?}");
        assert!(between.iter().all(|x| *x == listed), "{msgs:?}");
    }
    assert!(w.servers_on(&m.node).contains(&id));
    assert_eq!(str_at(&nwl(&w, &lock), "/status/state"), "active");
}

/// Ceph's health as its controller reports it: HEALTH_OK before the update,
/// HEALTH_WARN with its health check while Ceph is updated (its cluster
/// lock active, OpenStack's released), HEALTH_OK once its lock is released.
#[test]
fn the_ceph_deployment_health_warns_while_ceph_is_updated() {
    let w = controllers();
    let cluster = w.spec().cluster.clone();
    let health = |w: &SimWorld| {
        let h = ceph_deployment_health(w);
        (
            str_at(
                &h,
                "/status/healthReport/rookCephObjects/cephCluster/ceph/health",
            )
            .to_string(),
            str_at(&h, "/status/state").to_string(),
        )
    };
    let lock = |w: &SimWorld, name: &str| {
        let l = get(w, true, "clusterworkloadlocks", None, name).unwrap();
        str_at(&l, "/status/state").to_string()
    };
    assert_eq!(health(&w), ("HEALTH_OK".to_string(), "Ok".to_string()));
    let ceph_lock = format!("ceph-{cluster}");
    let mut warned = false;
    assert!(w.step_until(4 * HOUR, |w| {
        let (h, state) = health(w);
        if lock(w, &ceph_lock) == "inactive" {
            assert_eq!((h.as_str(), state.as_str()), ("HEALTH_OK", "Ok"));
            return true;
        }
        if h == "HEALTH_WARN" {
            assert_eq!(
                lock(w, "openstack-osh-dev"),
                "inactive",
                "Ceph updates after OpenStack"
            );
            assert_eq!(state, "Failed");
            warned = true;
        }
        false
    }));
    assert!(warned, "HEALTH_WARN while Ceph was updated");
}

/// The Ceph controller stamps its report at every 30 s check, changed or
/// not (pelagia `requeueAfterInterval`, `updateCephDeploymentHealthStatus`):
/// a console judging the report's age sees it move.
#[test]
fn the_ceph_deployment_health_is_stamped_at_every_check() {
    let w = controllers();
    let checked = |w: &SimWorld| {
        str_at(&ceph_deployment_health(w), "/status/lastHealthCheck")
            .parse::<jiff::Timestamp>()
            .expect("RFC 3339")
    };
    let first = checked(&w);
    for _ in 0..6 {
        w.step(jiff::SignedDuration::from_secs(10));
    }
    let later = checked(&w);
    assert!(
        later.duration_since(first) >= jiff::SignedDuration::from_secs(30),
        "{first} -> {later}"
    );
    assert!(w.now().duration_since(later) < jiff::SignedDuration::from_secs(30));
}

/// The Ceph controller's CephDeploymentHealth, as the simulator serves it.
fn ceph_deployment_health(w: &SimWorld) -> Value {
    get(
        w,
        true,
        "cephdeploymenthealths",
        Some("ceph-lcm-mirantis"),
        "cephcluster",
    )
    .expect("the health is seeded")
}
