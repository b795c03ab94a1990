//! The cluster layer's exec (`cluster::exec`) against the simulator over
//! HTTP, through the clients the console connects with: what the simulated
//! pod received and what came back, a failing command, one that cannot
//! run, a forbidden user, the deadline, the output's bound and sanitizing.

mod cluster_support;

use std::sync::Arc;
use std::time::Duration;

use cluster_support::{Pair, pair_of, serve, serve_app};
use mosk_console::cluster::exec::{
    ExecError, ExecLimits, KEYSTONE_CLIENT_CONTAINER, KEYSTONE_CLIENT_NAMESPACE, PodRef,
    exec_in_pod, keystone_client_pod,
};
use mosk_console::sim::clock::Clock;
use mosk_console::sim::exec::{Exec, ExecTarget, Programs, Ran};
use mosk_console::sim::faults::Faults;
use mosk_console::sim::rbac::{Rbac, RbacRule};
use mosk_console::sim::registry::Registry;
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::server::{ServerOptions, router};
use mosk_console::sim::store::Store;
use mosk_console::sim::world::{SimCluster, SimWorld};
use serde_json::json;

/// The `quick` scenario's clusters on loopback ports, and the kubeconfig.
async fn world(rbac: Option<Rbac>) -> (Arc<SimWorld>, Pair) {
    let world = Arc::new(SimWorld::new(load_scenario("quick").unwrap(), 3));
    if let Some(r) = rbac {
        world.set_rbac(SimCluster::Mosk, r);
    }
    let side = |which: SimCluster| {
        serve_app(
            world.router(which),
            world.store(which).clone(),
            world.faults(which).clone(),
        )
    };
    let mgmt = side(SimCluster::Mgmt).await;
    let mosk = side(SimCluster::Mosk).await;
    (world.clone(), pair_of(mgmt, mosk))
}

fn keystone_client(pod: &str) -> PodRef<'_> {
    PodRef {
        namespace: KEYSTONE_CLIENT_NAMESPACE,
        pod,
        container: Some(KEYSTONE_CLIENT_CONTAINER),
    }
}

fn compute_with_servers(w: &SimWorld) -> String {
    w.machines()
        .into_iter()
        .find(|m| !w.servers_on(&m.node).is_empty())
        .expect("a compute with servers")
        .node
}

#[tokio::test]
async fn a_command_returns_its_output_and_the_pod_received_it() {
    let (w, pair) = world(None).await;
    let clusters = pair.connect().await;
    let pod = keystone_client_pod(&clusters.mosk).await.unwrap();
    assert_eq!(pod, w.keystone_client_pod());
    let node = compute_with_servers(&w);
    let command = [
        "openstack",
        "server",
        "list",
        "--all-projects",
        "--host",
        &node,
        "--long",
        "-f",
        "json",
    ];
    let out = exec_in_pod(
        &clusters.mosk,
        keystone_client(&pod),
        &command,
        ExecLimits::default(),
    )
    .await
    .unwrap();
    assert_eq!(out.exit_code, 0);
    assert!(out.stderr.is_empty());
    let listed = out.stdout.json().unwrap();
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["ID"].as_str().unwrap())
        .collect();
    assert_eq!(ids, w.servers_on(&node));
    let received = w.exec(SimCluster::Mosk).received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].command, command);
    assert_eq!(
        (received[0].pod.as_str(), received[0].container.as_str()),
        (pod.as_str(), "keystone-client")
    );
}

#[tokio::test]
async fn a_failing_command_is_a_result_with_its_code_and_an_unknown_program_did_not_run() {
    let (w, pair) = world(None).await;
    let clusters = pair.connect().await;
    let pod = w.keystone_client_pod();
    let limits = ExecLimits::default();
    let out = exec_in_pod(
        &clusters.mosk,
        keystone_client(&pod),
        &["openstack", "server", "migrate", "--live-migration", "nope"],
        limits,
    )
    .await
    .unwrap();
    assert_eq!(out.exit_code, 1);
    assert_eq!(out.stderr.lines(), ["No Server found for nope"]);
    let out = exec_in_pod(
        &clusters.mosk,
        keystone_client(&pod),
        &["openstack", "foo"],
        limits,
    )
    .await
    .unwrap();
    assert_eq!(out.exit_code, 2);
    assert_eq!(
        out.stdout.lines()[0],
        "openstack: 'foo' is not an openstack command. See 'openstack --help'."
    );
    let err = exec_in_pod(
        &clusters.mosk,
        keystone_client(&pod),
        &["nova", "list"],
        limits,
    )
    .await
    .unwrap_err();
    let ExecError::NotRun(why) = err else {
        panic!("{err:?}")
    };
    assert!(
        why.contains("\"nova\": executable file not found in $PATH"),
        "{why}"
    );
    let err = exec_in_pod(
        &clusters.mosk,
        keystone_client("gone"),
        &["openstack"],
        limits,
    )
    .await
    .unwrap_err();
    assert_eq!(err, ExecError::NotFound("pods \"gone\" not found".into()));
}

#[tokio::test]
async fn a_user_without_pods_exec_is_refused() {
    let rbac = Rbac {
        user: "operator".into(),
        groups: vec![],
        deny: vec![RbacRule {
            verb: "*".into(),
            group: String::new(),
            resource: "pods/exec".into(),
            namespace: Some("openstack".into()),
        }],
    };
    let (w, pair) = world(Some(rbac)).await;
    let clusters = pair.connect().await;
    let pod = w.keystone_client_pod();
    let err = exec_in_pod(
        &clusters.mosk,
        keystone_client(&pod),
        &["openstack", "project", "list"],
        ExecLimits::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err,
        ExecError::Refused(format!(
            "pods \"{pod}\" is forbidden: User \"operator\" cannot get resource \"pods/exec\" in API group \"\" in the namespace \"openstack\""
        ))
    );
    assert!(err.to_string().starts_with("refused: "));
    assert!(w.exec(SimCluster::Mosk).received().is_empty());
}

#[tokio::test]
async fn the_deadline_ends_a_command_without_an_answer() {
    let (w, pair) = world(None).await;
    let clusters = pair.connect().await;
    // From now on the server takes a minute to answer anything.
    w.faults(SimCluster::Mosk).latency(Duration::from_secs(60));
    let limits = ExecLimits {
        deadline: Duration::from_millis(200),
        ..ExecLimits::default()
    };
    let pod = w.keystone_client_pod();
    let err = exec_in_pod(
        &clusters.mosk,
        keystone_client(&pod),
        &["openstack"],
        limits,
    )
    .await
    .unwrap_err();
    assert_eq!(err, ExecError::Timeout(Duration::from_millis(200)));
}

/// A program whose output is hostile: `big` writes far more than the
/// limit, `json` a JSON document with escape sequences in keys and values.
#[derive(Debug)]
struct Hostile;

impl Programs for Hostile {
    fn run(&self, _: ExecTarget<'_>, command: &[String]) -> Ran {
        let stderr = "\u{1b}[2Jwarning: \u{202e}txt.exe\n";
        match command[0].as_str() {
            "big" => Ran::exited(0, "x".repeat(3 << 20), stderr),
            _ => Ran::exited(
                0,
                "[{\"Na\\u001b[8mme\": \"vm\\u001b]0;pwned\\u0007-1\"}]\n",
                stderr,
            ),
        }
    }
}

#[tokio::test]
async fn output_is_bounded_and_comes_out_sanitized() {
    let store = Store::new(
        Registry::mosk(),
        Clock::new("2026-03-01T10:00:00Z".parse().unwrap()),
    );
    store
        .create(
            "pods",
            json!({"metadata": {"name": "p", "namespace": "openstack"},
                   "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Running"}}),
        )
        .unwrap();
    let faults = Arc::new(Faults::new());
    let app = router(
        store.clone(),
        ServerOptions {
            faults: faults.clone(),
            exec: Arc::new(Exec::new(Arc::new(Hostile))),
            ..ServerOptions::default()
        },
    );
    let mosk = serve_app(app, store, faults).await;
    let pair = pair_of(serve(Registry::mgmt()).await, mosk);
    let clusters = pair.connect().await;
    let target = PodRef {
        namespace: "openstack",
        pod: "p",
        container: None,
    };
    let limits = ExecLimits {
        max_output: 1 << 20,
        ..ExecLimits::default()
    };
    let out = exec_in_pod(&clusters.mosk, target, &["big"], limits)
        .await
        .unwrap();
    // The command ran to its end; what is kept stops at the limit.
    assert_eq!(out.exit_code, 0);
    assert!(out.stdout.truncated());
    assert_eq!(out.stdout.len(), 1 << 20);
    // A line is drawn at most `sanitize::MAX_LEN` long.
    assert!(out.stdout.lines()[0].ends_with('…'));
    assert!(out.stdout.json().is_err(), "a cut output is not parsed");
    assert_eq!(out.stderr.lines(), ["warning: txt.exe"]);
    let out = exec_in_pod(&clusters.mosk, target, &["json"], limits)
        .await
        .unwrap();
    assert!(!out.stdout.truncated());
    assert_eq!(out.stdout.json().unwrap(), json!([{"Name": "vm-1"}]));
}

#[tokio::test]
async fn read_servers_lists_the_node_with_each_show_and_the_project_names() {
    use mosk_console::cluster::openstack::read_servers;
    let (w, pair) = world(None).await;
    let clusters = pair.connect().await;
    let node = compute_with_servers(&w);
    let read = read_servers(&clusters.mosk, &node).await.unwrap();
    let mut ids: Vec<String> = read.servers.iter().map(|s| s.id.clone()).collect();
    ids.sort();
    let mut on = w.servers_on(&node);
    on.sort();
    assert_eq!(ids, on);
    let nova = w.nova_servers();
    for s in &read.servers {
        let n = nova.iter().find(|n| n.id == s.id).unwrap();
        assert_eq!(s.name, n.name);
        assert_eq!(s.tags.as_ref(), Some(&n.tags), "tags from server show");
        assert_eq!(
            read.projects.get(&s.project_id).map(String::as_str),
            Some(n.project.as_str())
        );
    }
    let received: Vec<String> = w
        .exec(SimCluster::Mosk)
        .received()
        .iter()
        .map(|r| r.command[..3].join(" "))
        .collect();
    assert_eq!(received[0], "openstack server list");
    assert_eq!(
        received
            .iter()
            .filter(|c| *c == "openstack server show")
            .count(),
        read.servers.len()
    );
    assert_eq!(
        received.last().map(String::as_str),
        Some("openstack project list")
    );
}
