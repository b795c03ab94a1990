//! Every object the simulator serves is one a strict client accepts: each
//! built-in kind against the required fields and types of the Kubernetes
//! 1.33 OpenAPI schema (the version `/version` reports), each custom kind
//! against its CRD's `openAPIV3Schema`, in list, get and watch answers, at
//! several moments of every built-in scenario.
//!
//! Run: `cargo test --test sim_schema`.

mod schema;

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use jiff::SignedDuration;
use mosk_console::sim::registry::ResourceInfo;
use mosk_console::sim::scenario::UpdatePhase;
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::world::{SimCluster, SimWorld, VERSION_MINOR};
use schema::{K8sSchema, validate_crd};
use serde_json::Value;
use tower::ServiceExt;

async fn get(world: &SimWorld, which: SimCluster, uri: &str) -> (StatusCode, Vec<u8>) {
    let req = Request::get(uri).body(Body::empty()).unwrap();
    let resp = world.router(which).oneshot(req).await.unwrap();
    let status = resp.status();
    let body = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, body.to_vec())
}

async fn get_json(world: &SimWorld, which: SimCluster, uri: &str) -> Value {
    let (status, body) = get(world, which, uri).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{uri}: {}",
        String::from_utf8_lossy(&body)
    );
    serde_json::from_slice(&body).unwrap()
}

fn collection(info: &ResourceInfo) -> String {
    if info.group.is_empty() {
        format!("/api/{}/{}", info.version, info.plural)
    } else {
        format!("/apis/{}/{}/{}", info.group, info.version, info.plural)
    }
}

fn object_path(info: &ResourceInfo, obj: &Value) -> String {
    let name = obj["metadata"]["name"].as_str().unwrap();
    let base = if info.group.is_empty() {
        format!("/api/{}", info.version)
    } else {
        format!("/apis/{}/{}", info.group, info.version)
    };
    match obj["metadata"]["namespace"].as_str() {
        Some(ns) if info.namespaced => format!("{base}/namespaces/{ns}/{}/{name}", info.plural),
        _ => format!("{base}/{}/{name}", info.plural),
    }
}

/// Checks objects and counts them per kind; collects every violation.
struct Checker {
    k8s: K8sSchema,
    /// plural -> objects checked (so a kind never served fails the test).
    seen: BTreeMap<String, usize>,
    errors: Vec<String>,
}

impl Checker {
    fn object(
        &mut self,
        world: &SimWorld,
        which: SimCluster,
        info: &ResourceInfo,
        obj: &Value,
        how: &str,
    ) {
        *self
            .seen
            .entry(format!("{which:?}/{}", info.plural))
            .or_default() += 1;
        let name = obj["metadata"]["name"].as_str().unwrap_or("?");
        let at = format!("{which:?} {} {name} ({how}, {})", info.kind, world.now());
        let mut errors = Vec::new();
        if info.builtin {
            let def = self.k8s.def_of(&info.api_version(), &info.kind);
            errors = self.k8s.validate(&def, obj);
        } else {
            let crd = world
                .store(which)
                .registry()
                .crds()
                .iter()
                .find(|c| c["spec"]["names"]["plural"] == info.plural.as_str())
                .cloned()
                .unwrap();
            let version = crd["spec"]["versions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|v| v["name"] == info.version.as_str())
                .unwrap()
                .clone();
            let schema = &version["schema"]["openAPIV3Schema"];
            validate_crd(schema, obj, "$", &mut errors);
            // The parts every object has, whatever its CRD says.
            let meta_def = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
            errors.extend(
                self.k8s
                    .validate(meta_def, &obj["metadata"])
                    .into_iter()
                    .map(|e| e.replacen('$', "$.metadata", 1)),
            );
        }
        for e in ["apiVersion", "kind"] {
            if !obj[e].is_string() {
                errors.push(format!("$: no {e}"));
            }
        }
        self.errors
            .extend(errors.into_iter().map(|e| format!("{at}: {e}")));
    }

    /// List, get and (since `since`) watch every resource of one cluster.
    async fn moment(&mut self, world: &SimWorld, which: SimCluster, since: u64) {
        let infos: Vec<ResourceInfo> = world.store(which).registry().all().to_vec();
        for info in &infos {
            let list = get_json(world, which, &collection(info)).await;
            let list_kind = format!("{}List", info.kind);
            assert_eq!(list["kind"], list_kind.as_str());
            if info.builtin {
                let def = self.k8s.def_of(&info.api_version(), &list_kind);
                let mut envelope = list.clone();
                envelope["items"] = Value::Array(Vec::new());
                for e in self.k8s.validate(&def, &envelope) {
                    self.errors.push(format!("{which:?} {list_kind}: {e}"));
                }
            }
            let items = list["items"].as_array().unwrap().clone();
            for obj in &items {
                self.object(world, which, info, obj, "list");
                let one = get_json(world, which, &object_path(info, obj)).await;
                self.object(world, which, info, &one, "get");
            }
            let uri = format!(
                "{}?watch=1&resourceVersion={since}&timeoutSeconds=1&allowWatchBookmarks=true",
                collection(info)
            );
            let (status, body) = get(world, which, &uri).await;
            assert_eq!(status, StatusCode::OK, "{uri}");
            for line in body.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                let ev: Value = serde_json::from_slice(line)
                    .unwrap_or_else(|e| panic!("{uri}: a watch line is not JSON ({e})"));
                for e in self
                    .k8s
                    .validate("io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent", &ev)
                {
                    self.errors
                        .push(format!("{which:?} watch {}: {e}", info.plural));
                }
                match ev["type"].as_str() {
                    Some("BOOKMARK") => {}
                    Some("ERROR") => panic!("{uri}: {ev}"),
                    _ => self.object(world, which, info, &ev["object"], "watch"),
                }
            }
        }
    }
}

/// Steps `world` to each moment, checking both clusters at every one.
async fn check_scenario(name: &str, step: SignedDuration, limit: SignedDuration) -> Checker {
    check_scenario_with(name, step, limit, |_| {}).await
}

/// The same, with an operator acting before every moment.
async fn check_scenario_with(
    name: &str,
    step: SignedDuration,
    limit: SignedDuration,
    operator: impl Fn(&SimWorld),
) -> Checker {
    let world = SimWorld::new(load_scenario(name).unwrap(), 3);
    let mut checker = Checker {
        k8s: K8sSchema::load(),
        seen: BTreeMap::new(),
        errors: Vec::new(),
    };
    let end = world.now().checked_add(limit).unwrap();
    let mut since = [1u64, 1u64];
    loop {
        for (i, which) in [SimCluster::Mgmt, SimCluster::Mosk].into_iter().enumerate() {
            checker.moment(&world, which, since[i]).await;
            since[i] = world.store(which).resource_version();
        }
        if world.phase() == UpdatePhase::Done || world.now() >= end {
            break;
        }
        operator(&world);
        world.step(step);
    }
    checker
}

fn assert_clean(name: &str, c: &Checker, every_kind: bool) {
    let shown: Vec<&String> = c.errors.iter().take(40).collect();
    assert!(
        c.errors.is_empty(),
        "{name}: {} violations, the first:\n{}",
        c.errors.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    if every_kind {
        let missing: Vec<&str> = BUILTIN_KINDS_SERVED
            .iter()
            .copied()
            .filter(|k| !c.seen.contains_key(*k))
            .collect();
        assert!(
            missing.is_empty(),
            "{name}: never served an object of {missing:?}"
        );
    }
}

/// The built-in kinds that hold objects in every scenario (the management
/// cluster has no Nodes, DaemonSets or Events of its own in the simulator).
const BUILTIN_KINDS_SERVED: &[&str] = &[
    "Mgmt/namespaces",
    "Mgmt/pods",
    "Mgmt/customresourcedefinitions",
    "Mosk/namespaces",
    "Mosk/nodes",
    "Mosk/pods",
    "Mosk/daemonsets",
    "Mosk/events",
    "Mosk/customresourcedefinitions",
];

#[test]
fn the_simulator_reports_the_schema_version() {
    assert_eq!(
        VERSION_MINOR, 33,
        "regenerate tests/data/k8s-schema for the new version"
    );
}

#[tokio::test(start_paused = true)]
async fn quick_serves_only_objects_strict_clients_accept() {
    let c = check_scenario(
        "quick",
        SignedDuration::from_mins(4),
        SignedDuration::from_hours(3),
    )
    .await;
    assert_clean("quick", &c, true);
}

#[tokio::test(start_paused = true)]
async fn standard_serves_only_objects_strict_clients_accept() {
    let c = check_scenario(
        "standard",
        SignedDuration::from_mins(15),
        SignedDuration::from_hours(8),
    )
    .await;
    assert_clean("standard", &c, true);
}

#[tokio::test(start_paused = true)]
async fn stuck_drain_serves_only_objects_strict_clients_accept() {
    let c = check_scenario(
        "stuck-drain",
        SignedDuration::from_mins(10),
        SignedDuration::from_hours(2),
    )
    .await;
    assert_clean("stuck-drain", &c, true);
}

#[tokio::test(start_paused = true)]
async fn controllers_serves_only_objects_strict_clients_accept() {
    // Every 3 minutes for 2 hours: the lock messages, the request stuck in
    // deletion (deletionTimestamp and finalizer) and the deferred nodes.
    let c = check_scenario(
        "controllers",
        SignedDuration::from_mins(3),
        SignedDuration::from_hours(2),
    )
    .await;
    assert_clean("controllers", &c, true);
}

/// Commences every step of the plan (again after an auto-pause) and sets
/// `skip` on nodes whose servers could not be moved.
fn operator_says_yes(world: &SimWorld) {
    let (ns, name) = ("child-ns", "child-cl-17.4.0");
    let plan = world
        .mgmt()
        .get("clusterupdateplans", Some(ns), name)
        .unwrap();
    let n = plan["spec"]["steps"].as_array().unwrap().len();
    let ops: Vec<Value> = (0..n)
        .map(|i| serde_json::json!({"op": "add", "path": format!("/spec/steps/{i}/commence"), "value": true}))
        .collect();
    world
        .mgmt()
        .patch(
            "clusterupdateplans",
            Some(ns),
            name,
            None,
            "application/json-patch+json",
            Value::Array(ops).to_string().as_bytes(),
            false,
        )
        .unwrap();
    for lock in world.mosk().list("nodeworkloadlocks", None) {
        if lock["status"]["errorMessage"]
            .as_str()
            .is_some_and(|m| m.contains("Some servers are still present"))
        {
            let node = lock["spec"]["nodeName"].as_str().unwrap().to_string();
            let body = serde_json::json!({"metadata": {"annotations": {
                "openstack.lcm.mirantis.com/instance_migration_mode": "skip"}}});
            world
                .mosk()
                .patch(
                    "nodes",
                    None,
                    &node,
                    None,
                    "application/merge-patch+json",
                    body.to_string().as_bytes(),
                    false,
                )
                .unwrap();
        }
    }
}

#[tokio::test(start_paused = true)]
async fn plan_serves_only_objects_strict_clients_accept() {
    let c = check_scenario_with(
        "plan",
        SignedDuration::from_mins(3),
        SignedDuration::from_hours(4),
        operator_says_yes,
    )
    .await;
    assert_clean("plan", &c, true);
    // The MCC 2.27+ kinds were served and checked against their CRDs.
    for kind in [
        "Mgmt/machines",
        "Mgmt/clusterupdateplans",
        "Mgmt/updategroups",
        "Mgmt/updateautopauses",
        "Mosk/nodedisablenotifications",
        "Mosk/openstackdeploymentstatus",
        "Mosk/cephdeploymenthealths",
    ] {
        assert!(c.seen.contains_key(kind), "never served {kind}");
    }
}
