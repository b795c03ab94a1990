//! The `plan` scenario (MCC 2.27+): a ClusterUpdatePlan whose steps the
//! operator commences over HTTP with the JSON patch the console sends,
//! UpdateGroups, the auto-pause, per-instance maintenance actions, a master
//! without collocated roles and a disabled worker.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use mosk_console::sim::scenario::spec::Role;
use serde_json::{Value, json};
use tower::ServiceExt;

use super::*;

const NS: &str = "child-ns";
const PLAN: &str = "child-cl-17.4.0";
const ALERT: &str = "KubeDeploymentOutage";

fn plan_world(seed: u64) -> SimWorld {
    SimWorld::new(load_scenario("plan").unwrap(), seed)
}

fn plan(w: &SimWorld) -> Value {
    get(w, false, "clusterupdateplans", Some(NS), PLAN).expect("the plan exists")
}

fn plan_status(w: &SimWorld) -> String {
    str_at(&plan(w), "/status/status").to_string()
}

fn step_status(w: &SimWorld, i: usize) -> String {
    str_at(&plan(w), &format!("/status/steps/{i}/status")).to_string()
}

fn commence_of(w: &SimWorld, i: usize) -> Option<Value> {
    plan(w)["spec"]["steps"][i].get("commence").cloned()
}

fn firing(w: &SimWorld) -> Value {
    get(w, false, "updateautopauses", Some(NS), "child-cl").unwrap()["status"]["firingAlerts"]
        .clone()
}

/// PATCHes the plan through the management cluster's HTTP API.
async fn patch_plan(w: &SimWorld, body: Value) -> (StatusCode, Value) {
    let req = Request::patch(format!(
        "/apis/kaas.mirantis.com/v1alpha1/namespaces/{NS}/clusterupdateplans/{PLAN}"
    ))
    .header("content-type", "application/json-patch+json")
    .body(Body::from(body.to_string()))
    .unwrap();
    let resp = w.mgmt_router().oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

/// The console's commence patch: test the step's id and its `commence:
/// false`, then replace it; after an auto-pause removed the key, `add`
/// without the commence test.
fn commence_patch(i: usize, id: &str, key_present: bool) -> Value {
    if key_present {
        json!([{"op": "test", "path": format!("/spec/steps/{i}/id"), "value": id},
               {"op": "test", "path": format!("/spec/steps/{i}/commence"), "value": false},
               {"op": "replace", "path": format!("/spec/steps/{i}/commence"), "value": true}])
    } else {
        json!([{"op": "test", "path": format!("/spec/steps/{i}/id"), "value": id},
               {"op": "add", "path": format!("/spec/steps/{i}/commence"), "value": true}])
    }
}

async fn commence(w: &SimWorld, i: usize, id: &str) {
    let present = commence_of(w, i).is_some();
    let (status, body) = patch_plan(w, commence_patch(i, id, present)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["spec"]["steps"][i]["commence"], true);
}

/// Sets `skip` on nodes whose OpenStack lock lists servers with no
/// maintenance action (the operator's answer to a failed live migration).
fn skip_unset(w: &SimWorld) {
    for lock in w.mosk().list("nodeworkloadlocks", None) {
        let msg = str_at(&lock, "/status/errorMessage");
        if msg.contains("Servers with unset maintenance action") {
            let node = str_at(&lock, "/spec/nodeName").to_string();
            annotate(w, &node, MODE, "skip");
        }
    }
}

fn has_nmr(w: &SimWorld, node: &str) -> bool {
    get(w, true, "nodemaintenancerequests", None, node).is_some()
}

fn cwl_state(w: &SimWorld, name: &str) -> String {
    let l = get(w, true, "clusterworkloadlocks", None, name).unwrap();
    str_at(&l, "/status/state").to_string()
}

#[tokio::test(start_paused = true)]
async fn plan_runs_to_the_end_when_each_step_is_commenced() {
    let w = plan_world(5);
    let machines = w.machines();
    let p = plan(&w);
    let ids: Vec<String> = p["spec"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        [
            "openstack",
            "ceph",
            "k8s-controllers",
            "k8s-workers",
            "stacklight"
        ]
    );
    for i in 0..5 {
        assert_eq!(commence_of(&w, i), Some(json!(false)), "step {i}");
    }
    assert_eq!(
        p["spec"]["steps"][3]["name"],
        "Update host OS and Kubernetes components on worker nodes"
    );

    // Nothing starts before step 1 is commenced.
    w.step(15 * MIN);
    assert_eq!(w.phase(), UpdatePhase::NotStarted);
    assert!(get(&w, true, "clustermaintenancerequests", None, "child-cl").is_none());
    assert_eq!(plan_status(&w), "NotStarted");

    commence(&w, 0, "openstack").await;
    assert!(w.step_until(HOUR, |w| step_status(w, 0) == "Completed"));
    assert_eq!(plan_status(&w), "InProgress");
    // Paused before `ceph`: the Ceph cluster lock stays active.
    w.step(10 * MIN);
    assert_eq!(step_status(&w, 1), "NotStarted");
    assert_eq!(cwl_state(&w, "ceph-child-cl"), "active");
    assert_eq!(w.phase(), UpdatePhase::ClusterLocks);

    commence(&w, 1, "ceph").await;
    assert!(w.step_until(HOUR, |w| step_status(w, 1) == "Completed"));
    // The ceph step (eta 1m) ran over its estimate.
    let st = &plan(&w)["status"]["steps"][1];
    let took = str_at(st, "/completedAt")
        .parse::<jiff::Timestamp>()
        .unwrap()
        .duration_since(str_at(st, "/startedAt").parse().unwrap());
    assert!(took > MIN, "ceph took {took:#}");
    // Paused before the masters.
    w.step(10 * MIN);
    assert_eq!(w.phase(), UpdatePhase::ClusterLocks);
    assert!(machines.iter().all(|m| !has_nmr(&w, &m.node)));

    commence(&w, 2, "k8s-controllers").await;
    let bare = machines.iter().find(|m| m.no_collocated_roles).unwrap();
    let mut bare_nmr = false;
    assert!(w.step_until(HOUR, |w| {
        bare_nmr |= has_nmr(w, &bare.node);
        step_status(w, 2) == "Completed"
    }));
    assert!(
        !bare_nmr,
        "a master without collocated roles gets no NodeMaintenanceRequest"
    );
    assert_eq!(machine_state(&w, &bare.name), "Ready");
    // Paused before the workers: none starts.
    w.step(10 * MIN);
    assert_eq!(w.phase(), UpdatePhase::Workers);
    assert!(machines.iter().all(|m| !has_nmr(&w, &m.node)));

    commence(&w, 3, "k8s-workers").await;
    // The alert fires during the worker step: auto-pause.
    assert!(w.step_until(HOUR, |w| {
        skip_unset(w);
        plan_status(w) == "AutoPaused"
    }));
    assert_eq!(step_status(&w, 3), "AutoPaused");
    assert_eq!(
        commence_of(&w, 3),
        None,
        "commence removed from the running worker step"
    );
    assert_eq!(
        commence_of(&w, 4),
        None,
        "commence removed from the step not started"
    );
    assert_eq!(commence_of(&w, 0), Some(json!(true)));
    assert_eq!(firing(&w), json!([ALERT]));
    let started = |w: &SimWorld| {
        w.timeline()
            .iter()
            .filter(|(_, t)| t.starts_with("maintenance started:"))
            .count()
    };
    // While paused no new worker starts (those in flight finish).
    w.step(3 * MIN);
    let before = started(&w);
    w.step(5 * MIN);
    assert_eq!(started(&w), before);

    // The operator stops watching the alert: it clears at once, but the
    // update stays paused until the worker step is commenced again.
    let ap = w
        .mgmt()
        .get("updateautopauses", Some(NS), "child-cl")
        .unwrap();
    let mut ap2 = ap.clone();
    ap2["spec"]["alerts"] = json!([]);
    w.mgmt()
        .replace("updateautopauses", Some(NS), "child-cl", None, ap2, false)
        .unwrap();
    w.step(5 * jiff::SignedDuration::from_secs(1));
    assert_eq!(firing(&w), json!([]));
    assert_eq!(plan_status(&w), "AutoPaused");
    w.step(5 * MIN);
    assert_eq!(started(&w), before);

    commence(&w, 3, "k8s-workers").await;
    commence(&w, 4, "stacklight").await;
    assert!(w.step_until(3 * HOUR, |w| {
        skip_unset(w);
        w.phase() == UpdatePhase::Done
    }));
    w.step(jiff::SignedDuration::from_secs(2));
    assert_eq!(plan_status(&w), "Completed");
    for i in 0..5 {
        assert_eq!(step_status(&w, i), "Completed", "step {i}");
    }
    let tl: Vec<String> = w
        .timeline()
        .iter()
        .map(|(t, s)| format!("{t} {s}"))
        .collect();
    eprintln!("{}", tl.join("\n"));
}

#[tokio::test(start_paused = true)]
async fn a_stale_commence_is_refused_with_the_apiservers_422() {
    let w = plan_world(5);
    let before = w.mgmt().resource_version();
    // The screen thought step 1 (index 0) was `ceph`: the id test fails.
    let (status, body) = patch_plan(&w, commence_patch(0, "ceph", true)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        body,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
               "message": "the server rejected our request due to an error in our request",
               "reason": "Invalid", "code": 422})
    );
    assert_eq!(commence_of(&w, 0), Some(json!(false)));
    assert_eq!(w.mgmt().resource_version(), before, "nothing was written");
    // Already commenced: the `commence: false` test fails too.
    commence(&w, 0, "openstack").await;
    let (status, _) = patch_plan(&w, commence_patch(0, "openstack", true)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    // `add` without the commence test is accepted where the key exists, too.
    let (status, body) = patch_plan(&w, commence_patch(1, "ceph", false)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(commence_of(&w, 1), Some(json!(true)));
}

/// Commences every step whose `commence` is not `true` (an operator who
/// always says yes), and answers failed live migrations with `skip`.
fn keep_commencing(w: &SimWorld) {
    skip_unset(w);
    let p = plan(w);
    for (i, s) in p["spec"]["steps"].as_array().unwrap().iter().enumerate() {
        if s.get("commence") != Some(&json!(true)) {
            let body =
                json!([{"op": "add", "path": format!("/spec/steps/{i}/commence"), "value": true}]);
            w.mgmt()
                .patch(
                    "clusterupdateplans",
                    Some(NS),
                    PLAN,
                    None,
                    "application/json-patch+json",
                    body.to_string().as_bytes(),
                    false,
                )
                .unwrap();
        }
    }
}

#[tokio::test(start_paused = true)]
async fn the_alert_clears_by_itself_and_the_update_stays_paused_until_commenced() {
    let w = plan_world(8);
    commence(&w, 0, "openstack").await;
    for (i, id) in [(1, "ceph"), (2, "k8s-controllers"), (3, "k8s-workers")] {
        commence(&w, i, id).await;
    }
    assert!(w.step_until(3 * HOUR, |w| {
        skip_unset(w);
        firing(w) == json!([ALERT])
    }));
    let fired = w.now();
    assert_eq!(plan_status(&w), "AutoPaused");
    assert!(
        str_at(&plan(&w), "/status/steps/3/message").contains(ALERT),
        "{}",
        plan(&w)["status"]
    );
    // `lasts = 10m` in the scenario file.
    assert!(w.step_until(HOUR, |w| firing(w) == json!([])));
    let cleared = w.now().duration_since(fired);
    assert!(
        cleared >= 10 * MIN && cleared < 10 * MIN + SignedDuration::from_secs(5),
        "{cleared:#}"
    );
    // Still paused: commence is gone from the worker step.
    w.step(30 * MIN);
    assert_eq!(plan_status(&w), "AutoPaused");
    assert_eq!(step_status(&w, 3), "AutoPaused");
    assert_eq!(commence_of(&w, 3), None);
    assert!(w.phase() < UpdatePhase::Finalization);
    assert!(w.step_until(3 * HOUR, |w| {
        keep_commencing(w);
        w.phase() == UpdatePhase::Done
    }));
}

#[test]
fn plan_scenario_shows_every_maintenance_action_and_the_25x_texts() {
    let w = plan_world(3);
    let machines = w.machines();
    let computes: Vec<_> = machines
        .iter()
        .filter(|m| m.role == Role::Compute)
        .collect();
    let mut rx = subscribe(&w);
    let mut msgs: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut max_a = 0;
    let mut gw_and_cmp = false;
    let group_a: Vec<&str> = computes[..3].iter().map(|m| m.node.as_str()).collect();
    let gateways: Vec<&str> = machines
        .iter()
        .filter(|m| m.role == Role::Gateway)
        .map(|m| m.node.as_str())
        .collect();
    assert!(w.step_until(4 * HOUR, |w| {
        keep_commencing(w);
        while let Ok(ev) = rx.try_recv() {
            let node = str_at(&ev.object, "/spec/nodeName").to_string();
            let new = str_at(&ev.object, "/status/errorMessage");
            let old = ev
                .old
                .as_ref()
                .map(|o| str_at(o, "/status/errorMessage"))
                .unwrap_or_default();
            if str_at(&ev.object, "/spec/controllerName") == "openstack"
                && !new.is_empty()
                && new != old
            {
                msgs.entry(node).or_default().push(strip_ts(new));
            }
        }
        let in_a = group_a.iter().filter(|n| has_nmr(w, n)).count();
        max_a = max_a.max(in_a);
        gw_and_cmp |= in_a > 0 && gateways.iter().any(|n| has_nmr(w, n));
        w.phase() == UpdatePhase::Done
    }));
    assert_eq!(max_a, 2, "computes-a updates two machines at once");
    assert!(
        gw_and_cmp,
        "gateways and computes-a (same index) run together"
    );
    let all: Vec<&String> = msgs.values().flatten().collect();
    let any = |p: &str| all.iter().any(|m| m.starts_with(p));
    assert!(any("Starting migration for "), "{all:?}");
    assert!(any("Waiting servers migration is completed: ['"), "{all:?}");
    assert!(any("Got error while trying to migrate server "), "{all:?}");
    assert!(
        any(
            "Number of inactive NodeWorkloadLocks exceeds allowed concurrency. Deferring processing for node kaas-node-"
        ),
        "{all:?}"
    );
    // Compute 1: a failed untagged server and a `notify` server, in one E-LEFT.
    let c1 = computes[1];
    let seeds = &c1.servers;
    let both = format!(
        "Some servers are still present on the host. Notify owners of the following server: ['{}'] Servers with unset maintenance action: ['{}']",
        seeds[1].id, seeds[0].id
    );
    assert!(msgs[&c1.node].contains(&both), "{:?}", msgs[&c1.node]);
    // Compute 0: the `poweroff` server stays and goes down with the host;
    // the others were live-migrated.
    let c0 = computes[0];
    let reboots = w.hard_reboots();
    let r0 = reboots.iter().find(|r| r.node == c0.node).unwrap();
    assert_eq!(r0.servers, vec![c0.servers[1].id.clone()]);
    // The `notify` server's owner shut it off: it did not go down with the host.
    // (Servers migrated in before the node was in maintenance may go down too.)
    let r1 = reboots.iter().find(|r| r.node == c1.node).unwrap();
    assert!(r1.servers.contains(&seeds[0].id), "{r1:?}");
    assert!(!r1.servers.contains(&seeds[1].id), "{r1:?}");
}

#[test]
fn disabled_worker_and_machine_objects() {
    let w = plan_world(2);
    let machines = w.machines();
    for m in &machines {
        let obj = get(&w, false, "machines", Some(NS), &m.name).expect("a Machine per LCMMachine");
        assert_eq!(obj["apiVersion"], "cluster.k8s.io/v1alpha1");
        let labels = &obj["metadata"]["labels"];
        assert_eq!(labels["cluster.sigs.k8s.io/cluster-name"], "child-cl");
        assert_eq!(
            labels.get("cluster.sigs.k8s.io/control-plane").is_some(),
            m.role == Role::Control,
            "{labels}"
        );
        assert_eq!(
            labels["kaas.mirantis.com/update-group"].as_str(),
            m.update_group.as_deref()
        );
        assert_eq!(obj["spec"]["providerSpec"]["value"]["disable"], m.disabled);
        assert_eq!(
            obj["spec"]["providerSpec"]["value"]["upgradeIndex"],
            m.index
        );
        assert_eq!(obj["status"]["providerStatus"]["ready"], !m.disabled);
    }
    let group =
        |m: &mosk_console::sim::scenario::topology::MachineInfo| m.update_group.clone().unwrap();
    assert!(
        machines
            .iter()
            .filter(|m| m.role == Role::Control)
            .all(|m| group(m) == "child-cl-control")
    );
    let groups: Vec<Value> = w.mgmt().list("updategroups", Some(NS));
    let spec_of = |name: &str| {
        groups
            .iter()
            .find(|g| g["metadata"]["name"] == name)
            .map(|g| g["spec"].clone())
            .unwrap()
    };
    assert_eq!(
        spec_of("child-cl-control"),
        json!({"index": 1, "concurrentUpdates": 1, "rebootIfUpdateRequires": false})
    );
    assert_eq!(spec_of("child-cl-computes-a")["concurrentUpdates"], 2);
    assert_eq!(
        spec_of("child-cl-computes-a")["index"],
        spec_of("child-cl-gateways")["index"]
    );
    let ap = get(&w, false, "updateautopauses", Some(NS), "child-cl").unwrap();
    assert_eq!(ap["spec"]["alerts"], json!([ALERT]));

    let off = machines.iter().find(|m| m.disabled).unwrap();
    let ndn = get(&w, true, "nodedisablenotifications", None, &off.node).unwrap();
    assert_eq!(ndn["spec"]["nodeName"], off.node.as_str());
    let mut touched = false;
    assert!(w.step_until(4 * HOUR, |w| {
        keep_commencing(w);
        touched |= has_nmr(w, &off.node) || machine_state(w, &off.name) != "Ready";
        w.phase() == UpdatePhase::Done
    }));
    assert!(!touched, "the disabled worker is skipped");
    let lm = get(&w, false, "lcmmachines", Some(NS), &off.name).unwrap();
    assert_eq!(lm["status"]["release"], "mosk-17-3-4-24-3-4");
}

#[test]
fn scenarios_without_a_plan_have_machines_but_no_plan_objects() {
    let w = quick(1);
    let machines = w.machines();
    assert_eq!(w.mgmt().list("machines", Some(NS)).len(), machines.len());
    for m in &machines {
        let obj = get(&w, false, "machines", Some(NS), &m.name).unwrap();
        assert!(
            obj["metadata"]["labels"]
                .get("kaas.mirantis.com/update-group")
                .is_none()
        );
    }
    for plural in ["clusterupdateplans", "updategroups", "updateautopauses"] {
        assert!(w.mgmt().list(plural, Some(NS)).is_empty(), "{plural}");
    }
    // The update starts by itself, as before.
    w.step(2 * MIN);
    assert_eq!(w.phase(), UpdatePhase::ClusterLocks);
}

#[test]
fn stuck_drain_reports_the_drain_error_then_a_stuck_operation() {
    let w = SimWorld::new(load_scenario("stuck-drain").unwrap(), 9);
    let m = w
        .machines()
        .into_iter()
        .find(|m| m.role == Role::Control && m.role_index == 1)
        .unwrap();
    let lm = |w: &SimWorld| get(w, false, "lcmmachines", Some(NS), &m.name).unwrap();
    assert!(
        w.step_until(2 * HOUR, |w| lm(w)["status"]["kubernetesCordonDrain"]
            == "cordondraining")
    );
    let t0 = w.now();
    assert!(w.step_until(HOUR, |w| {
        lm(w)["status"].get("kubernetesCordonDrainError").is_some()
    }));
    assert_eq!(
        str_at(&lm(&w), "/status/kubernetesCordonDrainError"),
        r#"Error: error when evicting pods/"patroni-13-2" -n "stacklight": global timeout reached: 10m0s"#
    );
    assert!(w.now().duration_since(t0) >= 10 * MIN);
    assert_ne!(lm(&w)["status"]["lcmOperationStuck"], true);
    assert!(w.step_until(HOUR, |w| lm(w)["status"]["lcmOperationStuck"] == true));
    assert!(w.now().duration_since(t0) >= 20 * MIN);
    // Then the pod goes and the drain finishes: both clear.
    assert!(
        w.step_until(HOUR, |w| lm(w)["status"]["kubernetesCordonDrain"]
            == "cordondrained")
    );
    assert!(lm(&w)["status"].get("kubernetesCordonDrainError").is_none());
    assert_eq!(lm(&w)["status"]["lcmOperationStuck"], false);
}
