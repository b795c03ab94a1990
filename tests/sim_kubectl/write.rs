//! `kubectl annotate`, `delete`, `logs -f` and RBAC denials.

use mosk_console::sim::rbac::{Rbac, RbacRule};

use crate::fixture::*;

#[tokio::test]
#[ignore = "needs kubectl"]
async fn annotate_node_and_delete_vrouter_pod() {
    let k = kubectl_path();
    let s = mosk(k, Rbac::allow_all("operator")).await;
    let out = s
        .run(&[
            "annotate",
            "node",
            "kaas-node-1",
            "openstack.lcm.mirantis.com/instance_migration_mode=manual",
            "--overwrite",
        ])
        .await;
    assert_eq!(out.trim(), "node/kaas-node-1 annotated");
    let node = s.store.get("nodes", None, "kaas-node-1").unwrap();
    assert_eq!(
        node["metadata"]["annotations"]["openstack.lcm.mirantis.com/instance_migration_mode"],
        "manual"
    );
    let out = s
        .run(&[
            "-n",
            "tf",
            "delete",
            "pod",
            "tf-vrouter-agent-x7k2p",
            "--wait=false",
        ])
        .await;
    assert_eq!(out.trim(), "pod \"tf-vrouter-agent-x7k2p\" deleted");
    let pod = s
        .store
        .get("pods", Some("tf"), "tf-vrouter-agent-x7k2p")
        .unwrap();
    assert!(
        pod["metadata"]["deletionTimestamp"].is_string(),
        "graceful: still there, terminating"
    );
    let pods = s.run(&["-n", "tf", "get", "pods"]).await;
    assert!(
        squeeze(&pods).contains("tf-vrouter-agent-x7k2p 1/1 Terminating"),
        "{pods}"
    );
}

#[tokio::test]
#[ignore = "needs kubectl"]
async fn denied_delete_prints_the_forbidden_message() {
    let k = kubectl_path();
    let rbac = Rbac {
        user: "operator".into(),
        groups: vec![],
        deny: vec![RbacRule {
            verb: "delete".into(),
            group: "".into(),
            resource: "pods".into(),
            namespace: Some("tf".into()),
        }],
    };
    let s = mosk(k, rbac).await;
    let out = tokio::time::timeout(
        PATIENCE,
        s.command(&[
            "-n",
            "tf",
            "delete",
            "pod",
            "tf-vrouter-agent-x7k2p",
            "--wait=false",
        ])
        .output(),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Error from server (Forbidden): pods \"tf-vrouter-agent-x7k2p\" is forbidden: User \"operator\" cannot delete resource \"pods\" in API group \"\" in the namespace \"tf\""),
        "{err}"
    );
    let can = s
        .command(&["auth", "can-i", "delete", "pods", "-n", "tf"])
        .output()
        .await
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&can.stdout).trim(), "no");
    let can = s.run(&["auth", "can-i", "get", "pods", "-n", "tf"]).await;
    assert_eq!(can.trim(), "yes");
}

#[tokio::test]
#[ignore = "needs kubectl"]
async fn logs_follow_streams_until_the_pod_is_deleted() {
    let k = kubectl_path();
    let s = mgmt(k).await;
    let pod = "lcm-lcm-controller-5d9f8-abcde";
    s.store.append_log(
        "kaas",
        pod,
        "controller",
        r#"{"level":"info","msg":"first"}"#,
    );
    let (mut child, mut lines) =
        s.spawn(&["-n", "kaas", "logs", "-f", pod, "--request-timeout=60s"]);
    assert_eq!(
        next_line(&mut lines).await.unwrap(),
        r#"{"level":"info","msg":"first"}"#
    );
    s.store.append_log(
        "kaas",
        pod,
        "controller",
        r#"{"level":"info","msg":"second"}"#,
    );
    assert_eq!(
        next_line(&mut lines).await.unwrap(),
        r#"{"level":"info","msg":"second"}"#
    );
    s.store
        .remove_finalizers_and_delete("pods", Some("kaas"), pod)
        .unwrap();
    assert_eq!(
        next_line(&mut lines).await,
        None,
        "the stream ends with the pod"
    );
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
#[ignore = "needs kubectl"]
async fn waiting_delete_returns_when_the_grace_period_ends() {
    let k = kubectl_path();
    let s = mosk(k, Rbac::allow_all("operator")).await;
    let pod = "tf-vrouter-agent-x7k2p";
    let mut events = s
        .store
        .watch(
            "pods",
            mosk_console::sim::store::WatchFrom::Since(s.store.resource_version()),
        )
        .unwrap()
        .rx;
    let mut child = s
        .command(&["-n", "tf", "delete", "pod", pod])
        .spawn()
        .unwrap();
    // Wait for the server to mark the pod terminating.
    let marked = async {
        loop {
            let ev = events.recv().await.unwrap();
            if ev.object["metadata"]["deletionTimestamp"].is_string() {
                break;
            }
        }
    };
    tokio::time::timeout(PATIENCE, marked)
        .await
        .expect("pod marked terminating");
    assert!(
        child.try_wait().unwrap().is_none(),
        "kubectl waits while the pod terminates"
    );
    s.store.clock().advance(jiff::SignedDuration::from_secs(30));
    s.store.tick();
    let out = tokio::time::timeout(PATIENCE, child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("pod \"{pod}\" deleted")
    );
}

#[tokio::test]
#[ignore = "needs kubectl"]
async fn cordon_status_patch_describe_and_whoami() {
    let k = kubectl_path();
    let s = mosk(k, Rbac::allow_all("operator")).await;
    let out = s.run(&["cordon", "kaas-node-1"]).await;
    assert_eq!(out.trim(), "node/kaas-node-1 cordoned");
    let node = s.store.get("nodes", None, "kaas-node-1").unwrap();
    assert_eq!(node["spec"]["unschedulable"], true);
    let nodes = s.run(&["get", "nodes"]).await;
    assert!(
        squeeze(&nodes).contains("kaas-node-1 Ready,SchedulingDisabled worker"),
        "{nodes}"
    );
    // The lock's status only changes through the status subresource.
    let patch = r#"{"status":{"state":"inactive"}}"#;
    s.run(&[
        "patch",
        "nodeworkloadlock",
        "openstack-kaas-node-1",
        "--type=merge",
        "-p",
        patch,
    ])
    .await;
    let lock = s
        .store
        .get("nodeworkloadlocks", None, "openstack-kaas-node-1")
        .unwrap();
    assert_eq!(lock["status"]["state"], "active");
    s.run(&[
        "patch",
        "nodeworkloadlock",
        "openstack-kaas-node-1",
        "--subresource=status",
        "--type=merge",
        "-p",
        patch,
    ])
    .await;
    let lock = s
        .store
        .get("nodeworkloadlocks", None, "openstack-kaas-node-1")
        .unwrap();
    assert_eq!(lock["status"]["state"], "inactive");
    let described = s
        .run(&["describe", "nodeworkloadlock", "openstack-kaas-node-1"])
        .await;
    assert!(
        described.contains("Controller Name:  openstack"),
        "{described}"
    );
    let described = s
        .run(&["-n", "tf", "describe", "pod", "tf-vrouter-agent-x7k2p"])
        .await;
    assert!(
        described.contains("Node:") && described.contains("kaas-node-1"),
        "{described}"
    );
    let whoami = s.run(&["auth", "whoami"]).await;
    assert!(squeeze(&whoami).contains("Username operator"), "{whoami}");
}
