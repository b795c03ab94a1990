//! `kubectl` against the MCC 2.27+ kinds of the `plan` scenario: the
//! ClusterUpdatePlan, UpdateGroups and provider Machines (no printer columns
//! are documented, so kubectl prints NAME AGE), and the commence patch.

use mosk_console::sim::rbac::Rbac;
use mosk_console::sim::registry::Registry;
use mosk_console::sim::scenario::load_scenario;
use mosk_console::sim::world::SimWorld;
use serde_json::Value;

use crate::fixture::*;

/// A management cluster holding the `plan` scenario's kaas objects.
async fn plan_mgmt(k: std::path::PathBuf) -> (Served, SimWorld) {
    let s = Served::start(Registry::mgmt(), Rbac::allow_all("operator"), k).await;
    let w = SimWorld::new(load_scenario("plan").unwrap(), 1);
    for plural in [
        "clusterupdateplans",
        "updategroups",
        "updateautopauses",
        "machines",
    ] {
        for mut o in w.mgmt().list(plural, Some("child-ns")) {
            if let Some(m) = o["metadata"].as_object_mut() {
                for k in ["uid", "resourceVersion", "creationTimestamp"] {
                    m.remove(k);
                }
            }
            s.store.create(plural, o).unwrap();
        }
    }
    (s, w)
}

fn rows(out: &str) -> Vec<String> {
    out.lines().skip(1).map(squeeze).collect()
}

#[tokio::test]
#[ignore = "needs kubectl"]
async fn get_plans_update_groups_and_provider_machines() {
    let k = kubectl_path();
    let (s, w) = plan_mgmt(k).await;
    let plans = s
        .run(&["get", "clusterupdateplans", "-n", "child-ns"])
        .await;
    assert_eq!(header(&plans), "NAME AGE", "{plans}");
    assert_eq!(rows(&plans), ["child-cl-17.4.0 0s"]);
    let groups = s.run(&["get", "updategroups", "-n", "child-ns"]).await;
    assert_eq!(header(&groups), "NAME AGE", "{groups}");
    assert_eq!(
        rows(&groups),
        [
            "child-cl-computes-a 0s",
            "child-cl-computes-b 0s",
            "child-cl-control 0s",
            "child-cl-default 0s",
            "child-cl-gateways 0s"
        ]
    );
    let machines = s
        .run(&["get", "machines.cluster.k8s.io", "-n", "child-ns"])
        .await;
    assert_eq!(header(&machines), "NAME AGE", "{machines}");
    let mut names: Vec<String> = w
        .machines()
        .iter()
        .map(|m| format!("{} 0s", m.name))
        .collect();
    names.sort();
    assert_eq!(rows(&machines), names);
    // The update-group label selects a group's machines.
    let a = s
        .run(&[
            "get",
            "machines.cluster.k8s.io",
            "-n",
            "child-ns",
            "-l",
            "kaas.mirantis.com/update-group=child-cl-computes-a",
            "-o",
            "name",
        ])
        .await;
    assert_eq!(a.lines().count(), 3, "{a}");
    assert!(
        a.lines().all(|l| l.starts_with("machine.cluster.k8s.io/")),
        "{a}"
    );
    let ap = s
        .run(&[
            "get",
            "updateautopause",
            "child-cl",
            "-n",
            "child-ns",
            "-o",
            "json",
        ])
        .await;
    let ap: Value = serde_json::from_str(&ap).unwrap();
    assert_eq!(ap["spec"]["alerts"][0], "KubeDeploymentOutage");
}

#[tokio::test]
#[ignore = "needs kubectl"]
async fn kubectl_commences_a_step_and_a_stale_test_is_invalid() {
    let k = kubectl_path();
    let (s, _w) = plan_mgmt(k).await;
    let patch = r#"[{"op":"test","path":"/spec/steps/0/id","value":"openstack"},{"op":"test","path":"/spec/steps/0/commence","value":false},{"op":"replace","path":"/spec/steps/0/commence","value":true}]"#;
    let args = [
        "-n",
        "child-ns",
        "patch",
        "clusterupdateplan",
        "child-cl-17.4.0",
        "--type=json",
        "-p",
        patch,
    ];
    let out = s.run(&args).await;
    assert_eq!(
        out.trim(),
        "clusterupdateplan.kaas.mirantis.com/child-cl-17.4.0 patched"
    );
    let plan = s
        .store
        .get("clusterupdateplans", Some("child-ns"), "child-cl-17.4.0")
        .unwrap();
    assert_eq!(plan["spec"]["steps"][0]["commence"], true);
    // The same patch again: the commence test fails.
    let out = s.command(&args).output().await.unwrap();
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "The request is invalid: the server rejected our request due to an error in our request"
    );
}
