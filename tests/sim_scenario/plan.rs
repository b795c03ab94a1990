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
