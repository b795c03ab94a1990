//! Shared by the `cluster_*` tests: two simulated API servers (management and
//! MOSK) served over TCP on 127.0.0.1, a kubeconfig pointing at them, and an
//! event collector that waits on the cluster layer's channel with a bounded
//! timeout (a safety net only; nothing sleeps).

#![allow(dead_code)]

pub mod inproc;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mosk_console::cluster::{BackoffPolicy, ClusterEvent, Clusters, Target, WatchOptions, connect};
use mosk_console::domain::objects::{Kind, Object, Snapshot};
use mosk_console::sim::clock::Clock;
use mosk_console::sim::faults::Faults;
use mosk_console::sim::registry::Registry;
use mosk_console::sim::server::{ServerOptions, router};
use mosk_console::sim::store::Store;
use serde_json::{Value, json};

/// How long any single wait may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// One simulated cluster served on a local port.
pub struct Sim {
    pub store: Arc<Store>,
    pub faults: Arc<Faults>,
    pub url: String,
}

/// Serves `registry` on 127.0.0.1 (a free port), with a clock standing still.
pub async fn serve(registry: Registry) -> Sim {
    let clock = Clock::new("2026-03-01T10:00:00Z".parse().unwrap());
    let store = Store::new(registry, clock);
    let faults = Arc::new(Faults::new());
    let app = router(
        store.clone(),
        ServerOptions {
            faults: faults.clone(),
            ..ServerOptions::default()
        },
    );
    serve_app(app, store, faults).await
}

/// Serves an already built router (e.g. one with an extra layer).
pub async fn serve_app(app: axum::Router, store: Arc<Store>, faults: Arc<Faults>) -> Sim {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Sim { store, faults, url }
}

/// Both clusters plus the kubeconfig naming them `sim-mgmt` (current) and `sim-mosk`.
pub struct Pair {
    pub mgmt: Sim,
    pub mosk: Sim,
    pub dir: tempfile::TempDir,
    pub kubeconfig: PathBuf,
}

pub async fn pair(mgmt: Registry, mosk: Registry) -> Pair {
    let mgmt = serve(mgmt).await;
    let mosk = serve(mosk).await;
    pair_of(mgmt, mosk)
}

pub fn pair_of(mgmt: Sim, mosk: Sim) -> Pair {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = write_kubeconfig(
        dir.path(),
        "kubeconfig",
        &[("sim-mgmt", &mgmt.url), ("sim-mosk", &mosk.url)],
    );
    Pair {
        mgmt,
        mosk,
        dir,
        kubeconfig,
    }
}

impl Pair {
    /// Connects through the kubeconfig, as the console does.
    pub async fn connect(&self) -> Clusters {
        connect(&Target {
            kubeconfig: Some(self.kubeconfig.clone()),
            ..Default::default()
        })
        .await
        .expect("connect to the simulated clusters")
    }
}

/// Writes a kubeconfig with one context per `(name, server)`, the first being current.
pub fn write_kubeconfig(dir: &Path, file: &str, contexts: &[(&str, &str)]) -> PathBuf {
    let mut yaml = String::from("apiVersion: v1\nkind: Config\n");
    if let Some((first, _)) = contexts.first() {
        yaml.push_str(&format!("current-context: {first}\n"));
    }
    yaml.push_str("clusters:\n");
    for (name, server) in contexts {
        yaml.push_str(&format!(
            "- name: {name}\n  cluster:\n    server: {server}\n"
        ));
    }
    yaml.push_str("users:\n");
    for (name, _) in contexts {
        yaml.push_str(&format!(
            "- name: {name}-admin\n  user:\n    token: t-{name}\n"
        ));
    }
    yaml.push_str("contexts:\n");
    for (name, _) in contexts {
        yaml.push_str(&format!(
            "- name: {name}\n  context:\n    cluster: {name}\n    user: {name}-admin\n"
        ));
    }
    let path = dir.join(file);
    std::fs::write(&path, yaml).unwrap();
    path
}

/// Watch options for tests: short backoff and recovery grace.
pub fn fast_watch() -> WatchOptions {
    WatchOptions {
        backoff: fast_backoff(),
        recovery_grace: Duration::from_millis(300),
        ..WatchOptions::default()
    }
}

pub fn fast_backoff() -> BackoffPolicy {
    BackoffPolicy::Exponential {
        min: Duration::from_millis(20),
        max: Duration::from_millis(200),
    }
}

/// Receives cluster events, keeping a [`Snapshot`] as the console's model would.
pub struct Events {
    pub rx: mosk_console::cluster::channel::EventReceiver,
    pub snapshot: Snapshot,
    /// Every event received so far, in order.
    pub log: Vec<ClusterEvent>,
}

impl Events {
    pub fn new(rx: mosk_console::cluster::channel::EventReceiver) -> Events {
        Events {
            rx,
            snapshot: Snapshot::default(),
            log: Vec::new(),
        }
    }

    /// Receives events until one satisfies `pred`; fails the test after [`WAIT`].
    pub async fn until(
        &mut self,
        what: &str,
        pred: impl FnMut(&ClusterEvent) -> bool,
    ) -> ClusterEvent {
        self.until_within(what, WAIT, pred).await
    }

    /// As [`Events::until`], failing after `wait` (on paused time, a wait for
    /// a periodic re-list may be minutes of the test's clock).
    pub async fn until_within(
        &mut self,
        what: &str,
        wait: Duration,
        mut pred: impl FnMut(&ClusterEvent) -> bool,
    ) -> ClusterEvent {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let ev = match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(ev)) => ev,
                Ok(None) => panic!("the event channel closed while waiting for {what}"),
                Err(_) => panic!(
                    "timed out waiting for {what}; events so far:\n{:#?}",
                    self.log
                ),
            };
            self.apply(&ev);
            self.log.push(ev.clone());
            if pred(&ev) {
                return ev;
            }
        }
    }

    /// Every event received since `from` (an index into `log`) that satisfies `pred`.
    pub fn since(&self, from: usize, pred: impl Fn(&ClusterEvent) -> bool) -> Vec<ClusterEvent> {
        self.log[from..]
            .iter()
            .filter(|e| pred(e))
            .cloned()
            .collect()
    }

    /// Waits until a `Resynced` has arrived for every kind in `kinds`.
    pub async fn synced(&mut self, kinds: &[Kind]) {
        let mut left: Vec<Kind> = kinds.to_vec();
        while !left.is_empty() {
            let ev = self
                .until(&format!("Resynced for {left:?}"), |e| {
                    matches!(e, ClusterEvent::Resynced { .. })
                })
                .await;
            if let ClusterEvent::Resynced { kind, .. } = ev {
                left.retain(|k| *k != kind);
            }
        }
    }

    fn apply(&mut self, ev: &ClusterEvent) {
        match ev {
            ClusterEvent::Applied(o) => {
                self.snapshot.apply(o.clone());
            }
            ClusterEvent::Deleted(k) => {
                self.snapshot.remove(k);
            }
            ClusterEvent::Resynced { kind, objects } => {
                self.snapshot.replace_kind(*kind, objects.clone())
            }
            _ => {}
        }
    }

    /// The names of the objects of `kind` in the snapshot, sorted.
    pub fn names(&self, kind: Kind) -> Vec<String> {
        let mut v: Vec<String> = self.snapshot.of_kind(kind).map(|o| o.key().name).collect();
        v.sort();
        v
    }
}

/// The names of the objects of `plural` in a store, sorted.
pub fn store_names(store: &Store, plural: &str, ns: Option<&str>) -> Vec<String> {
    let mut v: Vec<String> = store
        .list(plural, ns)
        .iter()
        .map(|o| {
            o["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    v.sort();
    v
}

// ---- objects ---------------------------------------------------------------

pub fn node(name: &str) -> Value {
    json!({"metadata": {"name": name, "labels": {"openstack-compute-node": "enabled"}},
           "spec": {},
           "status": {"conditions": [{"type": "Ready", "status": "True"}]}})
}

pub fn node_lock(controller: &str, node: &str, state: &str) -> Value {
    json!({"metadata": {"name": format!("{controller}-{node}")},
           "spec": {"controllerName": controller, "nodeName": node},
           "status": {"state": state}})
}

pub fn machine(name: &str, ns: &str, cluster: &str, state: &str) -> Value {
    json!({"metadata": {"name": name, "namespace": ns},
           "spec": {"clusterName": cluster, "type": "worker"},
           "status": {"state": state}})
}

pub fn pod(name: &str, ns: &str, ready: bool) -> Value {
    json!({"metadata": {"name": name, "namespace": ns,
                        "labels": {"pod-template-generation": "1", "controller-revision-hash": "abc"}},
           "spec": {"nodeName": "kaas-node-1", "containers": [{"name": "controller", "image": "x"}]},
           "status": {"phase": "Running",
                      "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]}})
}

/// Whether `o` is a lock in `state`.
pub fn lock_state(o: &Object) -> Option<String> {
    match o {
        Object::NodeWorkloadLock(l) | Object::ClusterWorkloadLock(l) => {
            Some(l.state.as_str().to_string())
        }
        _ => None,
    }
}
