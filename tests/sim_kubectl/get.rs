//! `kubectl get` (plain, wide, watch) prints what it prints against a real apiserver.

use mosk_console::sim::rbac::Rbac;
use mosk_console::sim::registry::Registry;
use serde_json::{Value, json};

use crate::fixture::*;

#[tokio::test]
#[ignore = "needs kubectl"]
async fn get_machines_and_cluster_states_print_the_crd_columns() {
    let k = kubectl_path();
    let s = mgmt(k).await;
    let out = s.run(&["get", "lcmmachines", "-n", "child-ns"]).await;
    assert_eq!(header(&out), "NAME CLUSTERNAME TYPE STATE", "{out}");
    let rows: Vec<String> = out.lines().skip(1).map(squeeze).collect();
    assert_eq!(
        rows,
        [
            "child-cl-worker-a child-cl worker Ready",
            "child-cl-worker-b child-cl worker Prepare"
        ]
    );
    let wide = s
        .run(&["get", "lcmmachines", "-n", "child-ns", "-o", "wide"])
        .await;
    assert_eq!(
        header(&wide),
        "NAME CLUSTERNAME TYPE STATE INTERNALIP HOSTNAME AGENTVERSION",
        "{wide}"
    );
    assert!(
        squeeze(&wide).contains(
            "child-cl-worker-a child-cl worker Ready 10.0.0.11 kaas-node-10.0.0.11 v1.2.3"
        ),
        "{wide}"
    );
    let states = s
        .run(&["get", "lcmclusterstates", "-n", "child-ns", "-o", "wide"])
        .await;
    assert_eq!(
        header(&states),
        "NAME CLUSTERNAME TYPE ARG VALUE ACTUALVALUE ATTEMPT MESSAGE",
        "{states}"
    );
    // The empty ACTUALVALUE cell prints as blank, as with a real apiserver.
    assert!(
        squeeze(&states).contains("cd-child-cl-worker-a child-cl cordon-drain child-cl-worker-a true 0 Error: following NodeWorkloadLocks are still active - openstack: InProgress"),
        "{states}"
    );
}

#[tokio::test]
#[ignore = "needs kubectl"]
async fn get_locks_nodes_daemonsets_and_pods() {
    let k = kubectl_path();
    let s = mosk(k, Rbac::allow_all("operator")).await;
    let locks = s.run(&["get", "nodeworkloadlocks"]).await;
    assert_eq!(header(&locks), "NAME AGE", "{locks}");
    assert_eq!(
        squeeze(locks.lines().nth(1).unwrap()),
        "openstack-kaas-node-1 0s"
    );
    let nodes = s.run(&["get", "nodes"]).await;
    assert_eq!(header(&nodes), "NAME STATUS ROLES AGE VERSION", "{nodes}");
    assert_eq!(
        squeeze(nodes.lines().nth(1).unwrap()),
        "kaas-node-1 Ready worker 0s v1.30.5"
    );
    let ds = s.run(&["-n", "tf", "get", "ds"]).await;
    assert_eq!(
        header(&ds),
        "NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE",
        "{ds}"
    );
    assert_eq!(
        squeeze(ds.lines().nth(1).unwrap()),
        "tf-vrouter-agent 3 3 3 1 3 tfvrouter=enabled 0s"
    );
    let pods = s.run(&["-n", "tf", "get", "pods", "-o", "wide"]).await;
    assert_eq!(
        header(&pods),
        "NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES",
        "{pods}"
    );
    assert_eq!(
        squeeze(pods.lines().nth(1).unwrap()),
        "tf-vrouter-agent-x7k2p 1/1 Running 0 0s 10.0.0.21 kaas-node-1 <none> <none>"
    );
    status_kinds_print_their_columns(&s).await;
    let version = s.run(&["version", "-o", "json"]).await;
    let v: Value = serde_json::from_str(&version).unwrap();
    assert_eq!(v["serverVersion"]["minor"], "30");
}

#[tokio::test]
#[ignore = "needs kubectl"]
async fn get_watch_prints_a_changed_machine() {
    let k = kubectl_path();
    let s = mgmt(k).await;
    let (mut child, mut lines) = s.spawn(&["get", "lcmmachines", "-n", "child-ns", "-w"]);
    assert_eq!(
        squeeze(&next_line(&mut lines).await.unwrap()),
        "NAME CLUSTERNAME TYPE STATE"
    );
    assert!(
        next_line(&mut lines)
            .await
            .unwrap()
            .starts_with("child-cl-worker-a")
    );
    assert!(
        next_line(&mut lines)
            .await
            .unwrap()
            .starts_with("child-cl-worker-b")
    );
    s.store
        .update("lcmmachines", Some("child-ns"), "child-cl-worker-b", |m| {
            m["status"]["state"] = json!("Deploy");
        })
        .unwrap();
    assert_eq!(
        squeeze(&next_line(&mut lines).await.unwrap()),
        "child-cl-worker-b child-cl worker Deploy"
    );
    child.kill().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the Google Cloud SDK's dispatching kubectl (kubectl.1.27 and kubectl.1.33 beside it); a plain kubectl fails it"]
async fn oldest_and_newest_dispatched_kubectl_accept_the_server() {
    const MINORS: [u32; 2] = [27, 33];
    let k = dispatching_kubectl(&MINORS);
    for minor in MINORS {
        let s = Served::start_minor(
            Registry::mosk(),
            Rbac::allow_all("operator"),
            k.clone(),
            minor,
        )
        .await;
        s.store
            .create(
                "nodeworkloadlocks",
                json!({"metadata": {"name": "ceph-kaas-node-1"},
                    "spec": {"controllerName": "ceph", "nodeName": "kaas-node-1"}}),
            )
            .unwrap();
        status_kinds_print_their_columns(&s).await;
        let version = s.run(&["version", "-o", "json"]).await;
        let v: Value = serde_json::from_str(&version).unwrap();
        assert_eq!(v["serverVersion"]["minor"], minor.to_string());
        let client_minor = v["clientVersion"]["minor"].as_str().unwrap().to_string();
        assert!(
            client_minor.starts_with(&minor.to_string()),
            "dispatched kubectl 1.{client_minor} for server 1.{minor}"
        );
        let locks = s.run(&["get", "nodeworkloadlocks"]).await;
        assert_eq!(header(&locks), "NAME AGE", "kubectl 1.{minor}: {locks}");
        // A waiting delete: kubectl watches with a name field selector until the object is gone.
        let out = s
            .run(&["delete", "nodeworkloadlock", "ceph-kaas-node-1"])
            .await;
        assert_eq!(
            out.trim(),
            "nodeworkloadlock.lcm.mirantis.com \"ceph-kaas-node-1\" deleted"
        );
        assert!(
            s.store
                .get("nodeworkloadlocks", None, "ceph-kaas-node-1")
                .is_none()
        );
    }
}

/// `kubectl -n tf get ds` after the vRouter DaemonSet's spec was edited
/// outside its template (the `vrouter_spec_edit_after` knob) and the update
/// replaced every pod: the generation (3) is ahead of the template
/// generation (2), and UP-TO-DATE still equals CURRENT, as the console says.
#[tokio::test]
#[ignore = "needs kubectl"]
async fn get_ds_after_a_spec_edit_outside_the_template() {
    let k = kubectl_path();
    let spec = mosk_console::sim::scenario::parse_scenario(
        "name = \"t\"\nvrouter_spec_edit_after = \"1m\"\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 3\ninstances = 0\n",
        "t.toml",
    )
    .unwrap();
    let w = mosk_console::sim::world::SimWorld::new(spec, 1);
    assert!(w.step_until(jiff::SignedDuration::from_hours(2), |w| {
        let d = w
            .mosk()
            .get("daemonsets", Some("tf"), "tf-vrouter-agent")
            .unwrap();
        w.phase() == mosk_console::sim::scenario::UpdatePhase::Done
            && d["metadata"]["generation"] == 3
            && d["status"]["updatedNumberScheduled"] == 3
    }));
    let s = Served::start(Registry::mosk(), Rbac::allow_all("operator"), k).await;
    let mut ds = w
        .mosk()
        .get("daemonsets", Some("tf"), "tf-vrouter-agent")
        .unwrap();
    let status = ds["status"].clone();
    for f in ["uid", "resourceVersion", "creationTimestamp"] {
        ds["metadata"].as_object_mut().unwrap().remove(f);
    }
    let limit = ds["spec"]["revisionHistoryLimit"].as_i64().unwrap();
    // A created object starts at generation 1: two spec edits bring the
    // copy to the world's generation 3, with the world's spec and status.
    ds["spec"]["revisionHistoryLimit"] = (limit - 2).into();
    s.store.create("daemonsets", ds).unwrap();
    for l in [limit - 1, limit] {
        s.store
            .update("daemonsets", Some("tf"), "tf-vrouter-agent", |o| {
                o["spec"]["revisionHistoryLimit"] = l.into();
                o["status"] = status.clone();
            })
            .unwrap();
    }
    let out = s.run(&["-n", "tf", "get", "ds"]).await;
    assert_eq!(
        squeeze(out.lines().nth(1).unwrap()),
        "tf-vrouter-agent 3 3 3 3 3 tfvrouter=enabled 0s",
        "{out}"
    );
    let g = s
        .run(&[
            "-n",
            "tf",
            "get",
            "ds",
            "tf-vrouter-agent",
            "-o",
            "jsonpath={.metadata.generation} {.metadata.annotations.deprecated\\.daemonset\\.template\\.generation} {.status.observedGeneration}",
        ])
        .await;
    assert_eq!(g.trim(), "3 2 3");
}

/// Rockoon's OpenStackDeploymentStatus and Pelagia's CephDeploymentHealth,
/// each by its short name with its CRD's printer columns.
async fn status_kinds_print_their_columns(s: &Served) {
    // Rockoon's OpenStackDeploymentStatus by its short name, with the
    // chart's printer columns (and no AGE: the CRD names its columns).
    s.store
        .create(
            "openstackdeploymentstatus",
            mosk_console::sim::scenario::osdpl_status::object(
                "17.4.0+25.1",
                jiff::Timestamp::UNIX_EPOCH,
            ),
        )
        .unwrap();
    let st = s.run(&["-n", "openstack", "get", "osdplst"]).await;
    assert_eq!(
        header(&st),
        "NAME OPENSTACK VERSION CONTROLLER VERSION STATE LCM PROGRESS HEALTH MOSK RELEASE",
        "{st}"
    );
    assert_eq!(
        squeeze(st.lines().nth(1).unwrap()),
        "osh-dev caracal 17.4.0 APPLIED 15/15 12/12 17.4.0+25.1"
    );
    // Pelagia's CephDeploymentHealth by its short name.
    s.store
        .create(
            "cephdeploymenthealths",
            mosk_console::sim::scenario::ceph_health::object(jiff::Timestamp::UNIX_EPOCH),
        )
        .unwrap();
    let cdh = s.run(&["-n", "ceph-lcm-mirantis", "get", "cdh"]).await;
    assert_eq!(
        header(&cdh),
        "NAME AGE STATE LAST CHECK LAST UPDATE",
        "{cdh}"
    );
    assert!(
        squeeze(cdh.lines().nth(1).unwrap()).starts_with("cephcluster "),
        "{cdh}"
    );
}
