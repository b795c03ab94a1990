//! Fidelity: the real `kubectl` (the preinstalled dispatcher, which picks a
//! kubectl 1.27–1.33 from the server's `/version`) against the simulator
//! served on loopback TCP. Skipped with a message when kubectl is missing,
//! except with CI=true, where that is a failure.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use mosk_console::sim::clock::Clock;
use mosk_console::sim::rbac::{Rbac, RbacRule};
use mosk_console::sim::registry::Registry;
use mosk_console::sim::server::{ServerOptions, router};
use mosk_console::sim::store::Store;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// Safety net for each kubectl run; nothing here waits on purpose.
const PATIENCE: Duration = Duration::from_secs(60);

fn kubectl_path() -> Option<PathBuf> {
    let p = std::env::var_os("KUBECTL")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/bin/kubectl".into());
    if p.exists() {
        return Some(p);
    }
    let msg = format!(
        "kubectl not found at {}: skipping the kubectl fidelity tests",
        p.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg} (CI=true makes this a failure)");
    }
    eprintln!("{msg}");
    None
}

/// One simulated cluster on 127.0.0.1 with a kubeconfig pointing at it.
struct Served {
    store: Arc<Store>,
    dir: tempfile::TempDir,
    kubectl: PathBuf,
}

impl Served {
    async fn start(registry: Registry, rbac: Rbac, kubectl: PathBuf) -> Served {
        Served::start_minor(registry, rbac, kubectl, 30).await
    }

    async fn start_minor(registry: Registry, rbac: Rbac, kubectl: PathBuf, minor: u32) -> Served {
        let clock = Clock::new("2026-01-01T00:00:00Z".parse().unwrap());
        let store = Store::new(registry, clock);
        let opts = ServerOptions {
            rbac,
            version_minor: minor,
            ..ServerOptions::default()
        };
        let app = router(store.clone(), opts);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: http://127.0.0.1:{port}\n\
             contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: sim\n    namespace: default\n\
             current-context: sim\nusers:\n- name: sim\n  user: {{}}\n"
        );
        std::fs::write(dir.path().join("config"), kubeconfig).unwrap();
        Served {
            store,
            dir,
            kubectl,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.kubectl);
        c.arg("--kubeconfig")
            .arg(self.dir.path().join("config"))
            .arg("--cache-dir")
            .arg(self.dir.path().join("cache"))
            .args(args)
            .env("HOME", self.dir.path())
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        c
    }

    /// Runs kubectl to completion; panics on failure with its stderr.
    async fn run(&self, args: &[&str]) -> String {
        let out = tokio::time::timeout(PATIENCE, self.command(args).output())
            .await
            .expect("kubectl finished within the safety timeout")
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "kubectl {args:?} failed: {}\nstdout: {stdout}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }

    fn spawn(
        &self,
        args: &[&str],
    ) -> (
        Child,
        tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    ) {
        let mut child = self.command(args).spawn().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        (child, lines)
    }
}

async fn next_line(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
) -> Option<String> {
    tokio::time::timeout(PATIENCE, lines.next_line())
        .await
        .expect("kubectl printed within the safety timeout")
        .unwrap()
}

/// A line with runs of spaces collapsed to one.
fn squeeze(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn header(out: &str) -> String {
    squeeze(out.lines().next().unwrap_or_default())
}

async fn mgmt(kubectl: PathBuf) -> Served {
    let s = Served::start(Registry::mgmt(), Rbac::allow_all("operator"), kubectl).await;
    let machine = |name: &str, state: &str, ip: &str| {
        json!({"metadata": {"name": name, "namespace": "child-ns"},
               "spec": {"clusterName": "child-cl", "type": "worker"},
               "status": {"state": state, "agentVersion": "v1.2.3",
                          "addresses": [{"type": "InternalIP", "address": ip},
                                        {"type": "Hostname", "address": format!("kaas-node-{ip}")}]}})
    };
    s.store
        .create(
            "lcmmachines",
            machine("child-cl-worker-a", "Ready", "10.0.0.11"),
        )
        .unwrap();
    s.store
        .create(
            "lcmmachines",
            machine("child-cl-worker-b", "Prepare", "10.0.0.12"),
        )
        .unwrap();
    s.store
        .create(
            "lcmclusterstates",
            json!({"metadata": {"name": "cd-child-cl-worker-a", "namespace": "child-ns"},
                   "spec": {"clusterName": "child-cl", "type": "cordon-drain", "arg": "child-cl-worker-a", "value": "true"},
                   "status": {"attempt": 0, "message": "Error: following NodeWorkloadLocks are still active - openstack: InProgress"}}),
        )
        .unwrap();
    s.store
        .create(
            "pods",
            json!({"metadata": {"name": "lcm-lcm-controller-5d9f8-abcde", "namespace": "kaas"},
                   "spec": {"containers": [{"name": "controller"}]}, "status": {"phase": "Running"}}),
        )
        .unwrap();
    s
}

async fn mosk(kubectl: PathBuf, rbac: Rbac) -> Served {
    let s = Served::start(Registry::mosk(), rbac, kubectl).await;
    s.store
        .create(
            "nodes",
            json!({"metadata": {"name": "kaas-node-1", "labels": {"node-role.kubernetes.io/worker": ""}},
                   "status": {"conditions": [{"type": "Ready", "status": "True"}],
                              "nodeInfo": {"kubeletVersion": "v1.30.5"}}}),
        )
        .unwrap();
    s.store
        .create(
            "nodeworkloadlocks",
            json!({"metadata": {"name": "openstack-kaas-node-1"},
                   "spec": {"controllerName": "openstack", "nodeName": "kaas-node-1"},
                   "status": {"state": "active"}}),
        )
        .unwrap();
    s.store
        .create(
            "daemonsets",
            json!({"metadata": {"name": "tf-vrouter-agent", "namespace": "tf"},
                   "spec": {"selector": {"matchLabels": {"app": "tf-vrouter-agent"}},
                            "updateStrategy": {"type": "OnDelete"},
                            "template": {"spec": {"nodeSelector": {"tfvrouter": "enabled"},
                                                  "containers": [{"name": "agent", "image": "vrouter:2"}]}}},
                   "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberReady": 3,
                              "updatedNumberScheduled": 1, "numberAvailable": 3}}),
        )
        .unwrap();
    s.store
        .create(
            "pods",
            json!({"metadata": {"name": "tf-vrouter-agent-x7k2p", "namespace": "tf"},
                   "spec": {"nodeName": "kaas-node-1", "containers": [{"name": "agent"}]},
                   "status": {"phase": "Running", "podIP": "10.0.0.21",
                              "containerStatuses": [{"name": "agent", "ready": true, "restartCount": 0, "state": {"running": {}}}]}}),
        )
        .unwrap();
    s
}

#[tokio::test]
async fn get_machines_and_cluster_states_print_the_crd_columns() {
    let Some(k) = kubectl_path() else { return };
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
async fn get_locks_nodes_daemonsets_and_pods() {
    let Some(k) = kubectl_path() else { return };
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
    let version = s.run(&["version", "-o", "json"]).await;
    let v: Value = serde_json::from_str(&version).unwrap();
    assert_eq!(v["serverVersion"]["minor"], "30");
}

#[tokio::test]
async fn get_watch_prints_a_changed_machine() {
    let Some(k) = kubectl_path() else { return };
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
async fn annotate_node_and_delete_vrouter_pod() {
    let Some(k) = kubectl_path() else { return };
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
async fn denied_delete_prints_the_forbidden_message() {
    let Some(k) = kubectl_path() else { return };
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
async fn logs_follow_streams_until_the_pod_is_deleted() {
    let Some(k) = kubectl_path() else { return };
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
async fn oldest_and_newest_dispatched_kubectl_accept_the_server() {
    let Some(k) = kubectl_path() else { return };
    for minor in [27, 33] {
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

#[tokio::test]
async fn waiting_delete_returns_when_the_grace_period_ends() {
    let Some(k) = kubectl_path() else { return };
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
