//! Shared fixture for the kubectl fidelity tests: the real `kubectl` (the preinstalled dispatcher, which picks a
//! kubectl 1.27–1.33 from the server's `/version`) against the simulator
//! served on loopback TCP. Skipped with a message when kubectl is missing,
//! except with CI=true, where that is a failure.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use mosk_console::sim::clock::Clock;
use mosk_console::sim::rbac::Rbac;
use mosk_console::sim::registry::Registry;
use mosk_console::sim::server::{ServerOptions, router};
use mosk_console::sim::store::Store;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// Safety net for each kubectl run; nothing here waits on purpose.
pub const PATIENCE: Duration = Duration::from_secs(60);

pub fn kubectl_path() -> Option<PathBuf> {
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
pub struct Served {
    pub store: Arc<Store>,
    dir: tempfile::TempDir,
    kubectl: PathBuf,
}

impl Served {
    pub async fn start(registry: Registry, rbac: Rbac, kubectl: PathBuf) -> Served {
        Served::start_minor(registry, rbac, kubectl, 30).await
    }

    pub async fn start_minor(
        registry: Registry,
        rbac: Rbac,
        kubectl: PathBuf,
        minor: u32,
    ) -> Served {
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

    pub fn command(&self, args: &[&str]) -> Command {
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
    pub async fn run(&self, args: &[&str]) -> String {
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

    pub fn spawn(
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

pub async fn next_line(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
) -> Option<String> {
    tokio::time::timeout(PATIENCE, lines.next_line())
        .await
        .expect("kubectl printed within the safety timeout")
        .unwrap()
}

/// A line with runs of spaces collapsed to one.
pub fn squeeze(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub fn header(out: &str) -> String {
    squeeze(out.lines().next().unwrap_or_default())
}

pub async fn mgmt(kubectl: PathBuf) -> Served {
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

pub async fn mosk(kubectl: PathBuf, rbac: Rbac) -> Served {
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
