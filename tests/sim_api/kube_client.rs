//! Lists, patches, deletes, logs, RBAC and faults through kube-rs.

use futures::AsyncBufReadExt;
use jiff::SignedDuration;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, ListParams, LogParams, Patch,
    PatchParams, PostParams, Preconditions,
};
use kube::core::Status;
use mosk_console::sim::rbac::{Rbac, RbacRule};
use mosk_console::sim::registry::Registry;
use mosk_console::sim::store::WatchFrom;
use serde_json::json;

use crate::common::*;

fn api_error(e: kube::Error) -> Status {
    match e {
        kube::Error::Api(s) => *s,
        other => panic!("expected an API error, got {other:?}"),
    }
}

fn nwl_api(sim: &Sim) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("lcm.mirantis.com", "v1alpha1", "NodeWorkloadLock");
    Api::all_with(sim.client.clone(), &ApiResource::from_gvk(&gvk))
}

#[tokio::test]
async fn list_returns_seeded_objects_with_a_resource_version() {
    let sim = mosk();
    let nodes = Api::<Node>::all(sim.client.clone())
        .list(&ListParams::default())
        .await
        .unwrap();
    let names: Vec<_> = nodes
        .items
        .iter()
        .map(|n| n.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["kaas-node-1", "kaas-node-2", "kaas-node-3"]);
    assert_eq!(
        nodes.metadata.resource_version,
        Some(sim.store.resource_version().to_string())
    );
    // Namespaced kinds list per namespace and cluster-wide, with selectors.
    let pods = Api::<Pod>::namespaced(sim.client.clone(), "tf");
    let on_node2 = pods
        .list(&ListParams::default().fields("spec.nodeName=kaas-node-2"))
        .await
        .unwrap();
    assert_eq!(on_node2.items.len(), 1);
    let none = Api::<Pod>::namespaced(sim.client.clone(), "kaas")
        .list(&ListParams::default())
        .await
        .unwrap();
    assert!(none.items.is_empty());
    let all = Api::<Pod>::all(sim.client.clone())
        .list(&ListParams::default().labels("app in (tf-vrouter-agent),!missing"))
        .await
        .unwrap();
    assert_eq!(all.items.len(), 2);
}

#[tokio::test]
async fn list_pages_with_limit_and_continue() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    let first = api.list(&ListParams::default().limit(2)).await.unwrap();
    assert_eq!(first.items.len(), 2);
    let token = first.metadata.continue_.clone().expect("a continue token");
    // A change between pages does not leak into the second page (consistent snapshot).
    sim.store.create("nodes", node("kaas-node-4")).unwrap();
    let second = api
        .list(&ListParams::default().limit(2).continue_token(&token))
        .await
        .unwrap();
    let names: Vec<_> = second
        .items
        .iter()
        .map(|n| n.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["kaas-node-3"]);
    assert_eq!(second.metadata.continue_, None);
    assert_eq!(
        second.metadata.resource_version,
        first.metadata.resource_version
    );
}

#[tokio::test]
async fn merge_patch_sets_a_node_annotation() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    let patch = json!({"metadata": {"annotations": {"openstack.lcm.mirantis.com/instance_migration_mode": "manual"}}});
    let out = api
        .patch(
            "kaas-node-1",
            &PatchParams::default(),
            &Patch::Merge(&patch),
        )
        .await
        .unwrap();
    let ann = out.metadata.annotations.unwrap();
    assert_eq!(
        ann["openstack.lcm.mirantis.com/instance_migration_mode"],
        "manual"
    );
    let stored = sim.store.get("nodes", None, "kaas-node-1").unwrap();
    assert_eq!(
        stored["metadata"]["annotations"]["openstack.lcm.mirantis.com/instance_migration_mode"],
        "manual"
    );
}

#[tokio::test]
async fn dry_run_patch_changes_nothing_and_sends_no_event() {
    let sim = mosk();
    let rv = sim.store.resource_version();
    let api = Api::<Node>::all(sim.client.clone());
    let patch = json!({"metadata": {"labels": {"preview": "yes"}}});
    let out = api
        .patch(
            "kaas-node-1",
            &PatchParams::default().dry_run(),
            &Patch::Merge(&patch),
        )
        .await
        .unwrap();
    assert_eq!(out.metadata.labels.unwrap()["preview"], "yes");
    assert_eq!(sim.store.resource_version(), rv);
    let stored = sim.store.get("nodes", None, "kaas-node-1").unwrap();
    assert!(stored["metadata"]["labels"].get("preview").is_none());
    let w = sim.store.watch("nodes", WatchFrom::Since(rv)).unwrap();
    assert!(w.initial.is_empty(), "no event after a dry run");
}

#[tokio::test]
async fn delete_with_a_stale_uid_is_a_conflict() {
    let sim = mosk();
    let pods = Api::<Pod>::namespaced(sim.client.clone(), "tf");
    let dp = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some("0000-stale".into()),
            resource_version: None,
        }),
        ..DeleteParams::default()
    };
    let e = api_error(
        pods.delete("tf-vrouter-agent-aaaaa", &dp)
            .await
            .unwrap_err(),
    );
    assert_eq!((e.code, e.reason.as_str()), (409, "Conflict"));
    assert!(
        sim.store
            .get("pods", Some("tf"), "tf-vrouter-agent-aaaaa")
            .is_some()
    );
    // The right uid deletes gracefully: the pod stays Terminating until the clock passes the grace.
    let uid = sim
        .store
        .get("pods", Some("tf"), "tf-vrouter-agent-aaaaa")
        .unwrap()["metadata"]["uid"]
        .as_str()
        .unwrap()
        .to_string();
    let dp = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some(uid),
            resource_version: None,
        }),
        ..DeleteParams::default()
    };
    let left = pods.delete("tf-vrouter-agent-aaaaa", &dp).await.unwrap();
    let pod = left.left().expect("the terminating pod comes back");
    assert!(pod.metadata.deletion_timestamp.is_some());
    sim.clock.advance(SignedDuration::from_secs(30));
    sim.store.tick();
    assert!(
        sim.store
            .get("pods", Some("tf"), "tf-vrouter-agent-aaaaa")
            .is_none()
    );
}

#[tokio::test]
async fn log_follow_streams_clock_stamped_lines_until_the_pod_goes() {
    let sim = mosk();
    let ns = "tf";
    let pod = "tf-vrouter-agent-aaaaa";
    sim.store.append_log(ns, pod, "agent", "old line");
    sim.clock.advance(SignedDuration::from_secs(60));
    sim.store.append_log(ns, pod, "agent", "first");
    let api = Api::<Pod>::namespaced(sim.client.clone(), ns);
    // Not following: tail and since.
    let text = api
        .logs(
            pod,
            &LogParams {
                tail_lines: Some(1),
                ..LogParams::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(text, "first\n");
    let text = api
        .logs(
            pod,
            &LogParams {
                since_seconds: Some(30),
                timestamps: true,
                ..LogParams::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(text, "2026-01-01T00:01:00.000000000Z first\n");
    // Following.
    let lp = LogParams {
        follow: true,
        timestamps: true,
        ..LogParams::default()
    };
    let reader = api.log_stream(pod, &lp).await.unwrap();
    let mut reader = Box::pin(reader);
    let mut buf = Vec::new();
    macro_rules! read_line {
        () => {{
            buf.clear();
            let fut = reader.read_until(b'\n', &mut buf);
            tokio::time::timeout(PATIENCE, fut).await.unwrap().unwrap()
        }};
    }
    read_line!();
    assert_eq!(
        String::from_utf8_lossy(&buf),
        "2026-01-01T00:00:00.000000000Z old line\n"
    );
    read_line!();
    assert_eq!(
        String::from_utf8_lossy(&buf),
        "2026-01-01T00:01:00.000000000Z first\n"
    );
    sim.clock.advance(SignedDuration::from_secs(5));
    sim.store.append_log(ns, pod, "agent", "live");
    read_line!();
    assert_eq!(
        String::from_utf8_lossy(&buf),
        "2026-01-01T00:01:05.000000000Z live\n"
    );
    // Deleting the pod ends the stream.
    sim.store
        .delete(
            "pods",
            Some(ns),
            pod,
            &json!({"gracePeriodSeconds": 0}),
            false,
        )
        .unwrap();
    let n = read_line!();
    assert_eq!(n, 0, "stream ended: {:?}", String::from_utf8_lossy(&buf));
}

#[tokio::test]
async fn rbac_denies_with_the_apiserver_message_and_access_reviews_agree() {
    let rbac = Rbac {
        user: "operator".into(),
        groups: vec!["system:authenticated".into()],
        deny: vec![RbacRule {
            verb: "delete".into(),
            group: "".into(),
            resource: "pods".into(),
            namespace: Some("tf".into()),
        }],
    };
    let sim = sim_with(Registry::mosk(), rbac, 1000);
    sim.store
        .create("pods", pod("tf", "tf-vrouter-agent-aaaaa", "n1"))
        .unwrap();
    let pods = Api::<Pod>::namespaced(sim.client.clone(), "tf");
    let e = api_error(
        pods.delete("tf-vrouter-agent-aaaaa", &DeleteParams::default())
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, 403);
    assert_eq!(
        e.message,
        "pods \"tf-vrouter-agent-aaaaa\" is forbidden: User \"operator\" cannot delete resource \"pods\" in API group \"\" in the namespace \"tf\""
    );
    assert!(pods.get("tf-vrouter-agent-aaaaa").await.is_ok());
    let review = |verb: &str| SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.into()),
                resource: Some("pods".into()),
                namespace: Some("tf".into()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let ssar = Api::<SelfSubjectAccessReview>::all(sim.client.clone());
    let denied = ssar
        .create(&PostParams::default(), &review("delete"))
        .await
        .unwrap();
    assert!(!denied.status.unwrap().allowed);
    let allowed = ssar
        .create(&PostParams::default(), &review("get"))
        .await
        .unwrap();
    assert!(allowed.status.unwrap().allowed);
}

#[tokio::test]
async fn lock_status_subresource_and_strategic_merge_rules() {
    let sim = mosk();
    sim.store
        .create(
            "nodeworkloadlocks",
            json!({"metadata": {"name": "openstack-kaas-node-1"},
                   "spec": {"controllerName": "openstack", "nodeName": "kaas-node-1"},
                   "status": {"state": "active"}}),
        )
        .unwrap();
    let api = nwl_api(&sim);
    let p = json!({"status": {"state": "inactive"}});
    let main = api
        .patch(
            "openstack-kaas-node-1",
            &PatchParams::default(),
            &Patch::Merge(&p),
        )
        .await
        .unwrap();
    assert_eq!(
        main.data["status"]["state"], "active",
        "main resource ignores status"
    );
    let st = api
        .patch_status(
            "openstack-kaas-node-1",
            &PatchParams::default(),
            &Patch::Merge(&p),
        )
        .await
        .unwrap();
    assert_eq!(st.data["status"]["state"], "inactive");
    let e = api_error(
        api.patch(
            "openstack-kaas-node-1",
            &PatchParams::default(),
            &Patch::Strategic(&p),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!((e.code, e.reason.as_str()), (415, "UnsupportedMediaType"));
    // Built-in kinds take strategic merge patches (cordon does this).
    let cordon = json!({"spec": {"unschedulable": true}});
    let n = Api::<Node>::all(sim.client.clone())
        .patch(
            "kaas-node-1",
            &PatchParams::default(),
            &Patch::Strategic(&cordon),
        )
        .await
        .unwrap();
    assert_eq!(n.spec.unwrap().unschedulable, Some(true));
}

#[tokio::test]
async fn injected_5xx_burst_fails_then_recovers() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    sim.faults.fail_next(2, 500);
    for _ in 0..2 {
        let e = api_error(api.list(&ListParams::default()).await.unwrap_err());
        assert_eq!(e.code, 500);
    }
    assert_eq!(
        api.list(&ListParams::default()).await.unwrap().items.len(),
        3
    );
}

#[tokio::test]
async fn table_answers_carry_printer_columns() {
    let sim = sim_with(Registry::mgmt(), Rbac::allow_all("operator"), 1000);
    sim.store
        .create(
            "lcmmachines",
            json!({"metadata": {"name": "m1", "namespace": "child-ns"},
                   "spec": {"clusterName": "child-cl", "type": "worker"},
                   "status": {"state": "Ready"}}),
        )
        .unwrap();
    let req = http::Request::get("/apis/lcm.mirantis.com/v1alpha1/namespaces/child-ns/lcmmachines")
        .header(
            "Accept",
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
        )
        .body(Vec::new())
        .unwrap();
    let table: serde_json::Value = sim.client.request(req).await.unwrap();
    assert_eq!(table["kind"], "Table");
    let cols: Vec<_> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["priority"] == 0)
        .map(|c| c["name"].as_str().unwrap().to_uppercase())
        .collect();
    assert_eq!(cols, ["NAME", "CLUSTERNAME", "TYPE", "STATE"]);
    assert_eq!(
        table["rows"][0]["cells"].as_array().unwrap()[..4],
        [
            json!("m1"),
            json!("child-cl"),
            json!("worker"),
            json!("Ready")
        ]
    );
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
}
