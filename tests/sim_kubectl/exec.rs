//! `kubectl exec` into the simulated keystone-client pod: kubectl's
//! WebSocket executor (v5.channel.k8s.io over GET), the `openstack`
//! command's output and exit code as kubectl reports them.

use std::sync::Arc;

use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::world::{SimCluster, SimWorld};
use serde_json::Value;

use crate::fixture::*;

#[tokio::test]
#[ignore = "needs kubectl"]
async fn kubectl_exec_runs_openstack_in_the_keystone_client_pod() {
    let world = Arc::new(SimWorld::new(load_scenario("quick").unwrap(), 3));
    let s = Served::serve_app(world.mosk_router(), world.mosk().clone(), kubectl_path()).await;
    let pod = world.keystone_client_pod();
    let node = world
        .machines()
        .into_iter()
        .find(|m| !world.servers_on(&m.node).is_empty())
        .expect("a compute with servers")
        .node;
    let out = s
        .run(&[
            "-n",
            "openstack",
            "exec",
            &pod,
            "--",
            "openstack",
            "server",
            "list",
            "--all-projects",
            "--host",
            &node,
            "--long",
            "-f",
            "json",
        ])
        .await;
    let listed: Vec<Value> = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let ids: Vec<&str> = listed.iter().map(|s| s["ID"].as_str().unwrap()).collect();
    assert_eq!(ids, world.servers_on(&node));
    let received = world.exec(SimCluster::Mosk).received();
    assert_eq!(received.len(), 1);
    assert_eq!(
        (
            received[0].container.as_str(),
            received[0].protocol.as_str()
        ),
        ("keystone-client", "v5.channel.k8s.io")
    );
    assert_eq!(received[0].command[..3], ["openstack", "server", "list"]);

    // A failing command: its stderr, then kubectl's line, and its exit code.
    let failed = tokio::time::timeout(
        PATIENCE,
        s.command(&[
            "-n",
            "openstack",
            "exec",
            &pod,
            "--",
            "openstack",
            "server",
            "show",
            "nope",
        ])
        .output(),
    )
    .await
    .expect("kubectl finished within the safety timeout")
    .unwrap();
    assert_eq!(failed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.starts_with("No Server found for nope\n"), "{stderr}");
    assert!(
        stderr.contains("command terminated with exit code 1"),
        "{stderr}"
    );
}
