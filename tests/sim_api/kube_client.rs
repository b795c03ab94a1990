//! Lists, gets, tables and logs through kube-rs.

use futures::AsyncBufReadExt;
use jiff::SignedDuration;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, ListParams, LogParams};
use mosk_console::sim::rbac::Rbac;
use mosk_console::sim::registry::Registry;
use serde_json::json;

use crate::common::*;

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
async fn the_remaining_count_is_given_only_for_a_list_without_selectors() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    let all = api.list(&ListParams::default().limit(1)).await.unwrap();
    assert_eq!(all.metadata.remaining_item_count, Some(2));
    // A selector would make the server's count include what it drops: none.
    let selected = api
        .list(
            &ListParams::default()
                .limit(1)
                .fields("metadata.name!=kaas-node-3"),
        )
        .await
        .unwrap();
    assert!(selected.metadata.continue_.is_some());
    assert_eq!(selected.metadata.remaining_item_count, None);
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

#[tokio::test]
async fn metadata_only_lists_and_gets() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    let list = api.list_metadata(&ListParams::default()).await.unwrap();
    assert_eq!(list.items.len(), 3);
    assert!(list.items[0].metadata.resource_version.is_some());
    let one = api.get_metadata("kaas-node-2").await.unwrap();
    assert_eq!(one.metadata.name.as_deref(), Some("kaas-node-2"));
}

#[tokio::test]
async fn kube_discovery_finds_the_lock_kinds() {
    let sim = mosk();
    let discovery = kube::Discovery::new(sim.client.clone())
        .run()
        .await
        .unwrap();
    let lcm = discovery.get("lcm.mirantis.com").expect("the lcm group");
    let kinds: Vec<String> = lcm
        .recommended_resources()
        .into_iter()
        .map(|(r, _)| r.kind)
        .collect();
    for k in [
        "NodeWorkloadLock",
        "ClusterWorkloadLock",
        "NodeMaintenanceRequest",
        "ClusterMaintenanceRequest",
    ] {
        assert!(kinds.iter().any(|x| x == k), "{k} in {kinds:?}");
    }
    let gvk = kube::api::GroupVersionKind::gvk("lcm.mirantis.com", "v1alpha1", "NodeWorkloadLock");
    let (ar, caps) = kube::discovery::pinned_kind(&sim.client, &gvk)
        .await
        .unwrap();
    assert_eq!(ar.plural, "nodeworkloadlocks");
    assert_eq!(caps.scope, kube::discovery::Scope::Cluster);
    // A kind the cluster does not serve is reported as missing, not as a hang.
    let missing = kube::api::GroupVersionKind::gvk("lcm.mirantis.com", "v1alpha1", "LCMMachine");
    assert!(
        kube::discovery::pinned_kind(&sim.client, &missing)
            .await
            .is_err()
    );
}
