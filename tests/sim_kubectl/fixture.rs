//! Shared fixture for the kubectl fidelity tests: the real `kubectl` (found
//! on `PATH`, or `$KUBECTL`) against the simulator served on loopback TCP.
//! The tests are `#[ignore = "needs kubectl"]`, so a machine without kubectl
//! reports them ignored, not passed; `cargo test -- --ignored` (as `.ci/run`
//! does) runs them, and there a missing kubectl fails them.

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

/// The kubectl to run: `$KUBECTL`, else the first `kubectl` on `PATH`.
/// Panics when there is none: the caller is an ignored test run on purpose.
pub fn kubectl_path() -> PathBuf {
    if let Some(p) = std::env::var_os("KUBECTL").map(PathBuf::from) {
        assert!(p.is_file(), "KUBECTL={} is not a file", p.display());
        return p;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("kubectl"))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .unwrap_or_else(|| {
            panic!(
                "no kubectl on PATH ({}) and KUBECTL is not set: these tests need one",
                path.to_string_lossy()
            )
        })
}

/// The Google Cloud SDK's dispatching kubectl (its client version ends in
/// `-dispatcher`), which runs the `kubectl.1.<minor>` beside it that matches
/// the server's `/version`. A plain kubectl is one version for every server,
/// so the test that needs the dispatcher fails with it; this says so instead.
pub fn dispatching_kubectl(minors: &[u32]) -> PathBuf {
    let k = kubectl_path();
    let out = std::process::Command::new(&k)
        .args(["version", "--client", "-o", "json"])
        .env_remove("KUBECONFIG")
        .output()
        .unwrap_or_else(|e| panic!("run {} version: {e}", k.display()));
    let version: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{} version --client -o json: {e}: {}",
            k.display(),
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let git = version["clientVersion"]["gitVersion"]
        .as_str()
        .unwrap_or_default();
    let real = std::fs::canonicalize(&k).unwrap_or_else(|e| panic!("{}: {e}", k.display()));
    let dir = real.parent().expect("kubectl's directory");
    let missing: Vec<String> = minors
        .iter()
        .map(|minor| dir.join(format!("kubectl.1.{minor}")))
        .filter(|p| !p.is_file())
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        git.ends_with("-dispatcher") && missing.is_empty(),
        "{} (client {git}, really {}) is not the Google Cloud SDK's dispatching kubectl \
         with the versions this test needs (missing: {missing:?}); this test needs that \
         kubectl: install the Google Cloud SDK's kubectl component or point KUBECTL at \
         its dispatcher",
        k.display(),
        real.display(),
    );
    k
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
        Served::serve_app(app, store, kubectl).await
    }

    /// Serves an already built router (a simulated world's) whose objects are in `store`.
    pub async fn serve_app(app: axum::Router, store: Arc<Store>, kubectl: PathBuf) -> Served {
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
