//! Creates, patches, deletes and RBAC through kube-rs.

use jiff::SignedDuration;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams,
    PostParams, Preconditions,
};
use mosk_console::sim::rbac::{Rbac, RbacRule};
use mosk_console::sim::registry::Registry;
use mosk_console::sim::store::WatchFrom;
use serde_json::json;

use crate::common::*;

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
async fn create_json_patch_compare_and_swap_and_dry_run_delete() {
    let sim = mosk();
    let api = nwl_api(&sim);
    let gvk = GroupVersionKind::gvk("lcm.mirantis.com", "v1alpha1", "NodeWorkloadLock");
    let mut obj = DynamicObject::new("tf-kaas-node-1", &ApiResource::from_gvk(&gvk)).data(json!({
        "spec": {"controllerName": "tf", "nodeName": "kaas-node-1"},
        "status": {"state": "inactive"}
    }));
    obj.metadata.annotations = Some([("owner".to_string(), "tf".to_string())].into());
    let created = api.create(&PostParams::default(), &obj).await.unwrap();
    assert!(created.metadata.uid.is_some());
    assert_eq!(created.metadata.generation, Some(1));
    assert!(
        created.data.get("status").is_none(),
        "status is not set through create"
    );
    // JSON patch with a `test` op: a compare-and-swap on an annotation.
    let cas = |from: &str, to: &str| {
        serde_json::from_value::<json_patch::Patch>(json!([
            {"op": "test", "path": "/metadata/annotations/owner", "value": from},
            {"op": "replace", "path": "/metadata/annotations/owner", "value": to},
        ]))
        .unwrap()
    };
    let out = api
        .patch(
            "tf-kaas-node-1",
            &PatchParams::default(),
            &Patch::Json::<()>(cas("tf", "operator")),
        )
        .await
        .unwrap();
    assert_eq!(out.metadata.annotations.unwrap()["owner"], "operator");
    let e = api_error(
        api.patch(
            "tf-kaas-node-1",
            &PatchParams::default(),
            &Patch::Json::<()>(cas("tf", "x")),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(e.code, 422);
    // A dry-run delete (dryRun in the DeleteOptions body) leaves the lock in place.
    let rv = sim.store.resource_version();
    api.delete("tf-kaas-node-1", &DeleteParams::default().dry_run())
        .await
        .unwrap();
    assert!(
        sim.store
            .get("nodeworkloadlocks", None, "tf-kaas-node-1")
            .is_some()
    );
    assert_eq!(sim.store.resource_version(), rv);
    api.delete("tf-kaas-node-1", &DeleteParams::default())
        .await
        .unwrap();
    assert!(
        sim.store
            .get("nodeworkloadlocks", None, "tf-kaas-node-1")
            .is_none()
    );
}
