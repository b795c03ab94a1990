//! Shared setup: a seeded store, its clock and faults, and a kube Client on the router.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode};
use futures::{Stream, StreamExt};
use kube::Client;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind};
use kube::core::Status;
use mosk_console::sim::clock::Clock;
use mosk_console::sim::faults::Faults;
use mosk_console::sim::rbac::Rbac;
use mosk_console::sim::registry::Registry;
use mosk_console::sim::server::{ServerOptions, router};
use mosk_console::sim::store::Store;
use serde_json::{Value, json};
use tower::ServiceExt;

pub struct Sim {
    pub store: Arc<Store>,
    pub clock: Arc<Clock>,
    pub faults: Arc<Faults>,
    pub client: Client,
    pub router: axum::Router,
    /// Every request URI the server saw, in order.
    pub requests: tokio::sync::watch::Receiver<Vec<String>>,
}

impl Sim {
    /// How many requests so far were plain lists of `plural`.
    pub fn list_requests(&self, plural: &str) -> usize {
        self.requests
            .borrow()
            .iter()
            .filter(|u| {
                let path = u.split('?').next().unwrap_or_default();
                path.ends_with(&format!("/{plural}")) && !u.contains("watch=")
            })
            .count()
    }

    /// Waits (bounded) until at least `n` watch requests were made.
    pub async fn wait_for_watches(&self, n: usize) {
        let mut rx = self.requests.clone();
        let fut = rx.wait_for(|v| {
            v.iter()
                .filter(|u| u.contains("watch=true") || u.contains("watch=1"))
                .count()
                >= n
        });
        tokio::time::timeout(PATIENCE, fut)
            .await
            .expect("watch request within the safety timeout")
            .unwrap();
    }
}

/// A safety net for waits; tests never sleep to let things happen.
pub const PATIENCE: Duration = Duration::from_secs(10);

pub fn node(name: &str) -> Value {
    json!({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
           "status": {"conditions": [{"type": "Ready", "status": "True"}],
                      "nodeInfo": {"kubeletVersion": "v1.30.5"}}})
}

pub fn pod(ns: &str, name: &str, node: &str) -> Value {
    json!({"metadata": {"name": name, "namespace": ns, "labels": {"app": "tf-vrouter-agent"}},
           "spec": {"nodeName": node, "containers": [{"name": "agent", "image": "vrouter:1"}]},
           "status": {"phase": "Running"}})
}

pub fn sim_with(registry: Registry, rbac: Rbac, window: usize) -> Sim {
    let clock = Clock::new("2026-01-01T00:00:00Z".parse().unwrap());
    let store = Store::with_window(registry, clock.clone(), window);
    let faults = Arc::new(Faults::new());
    let opts = ServerOptions {
        rbac,
        faults: faults.clone(),
        version_minor: 30,
        ..ServerOptions::default()
    };
    let (log_tx, requests) = tokio::sync::watch::channel(Vec::<String>::new());
    let log_tx = Arc::new(log_tx);
    let router = router(store.clone(), opts).layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| {
            let log_tx = log_tx.clone();
            async move {
                log_tx.send_modify(|v| v.push(req.uri().to_string()));
                next.run(req).await
            }
        },
    ));
    let client = Client::new(router.clone(), "default");
    Sim {
        store,
        clock,
        faults,
        client,
        router,
        requests,
    }
}

/// A MOSK store seeded with three nodes and two vRouter pods.
pub fn mosk() -> Sim {
    let sim = sim_with(Registry::mosk(), Rbac::allow_all("operator"), 1000);
    for n in ["kaas-node-1", "kaas-node-2", "kaas-node-3"] {
        sim.store.create("nodes", node(n)).unwrap();
    }
    sim.store
        .create("pods", pod("tf", "tf-vrouter-agent-aaaaa", "kaas-node-1"))
        .unwrap();
    sim.store
        .create("pods", pod("tf", "tf-vrouter-agent-bbbbb", "kaas-node-2"))
        .unwrap();
    sim
}

/// The next item of a stream, or a panic after [`PATIENCE`].
pub async fn next<S: Stream + Unpin>(s: &mut S) -> S::Item {
    tokio::time::timeout(PATIENCE, s.next())
        .await
        .expect("stream item within the safety timeout")
        .expect("stream not ended")
}

/// The API error inside a kube error (panics on any other error).
pub fn api_error(e: kube::Error) -> Status {
    match e {
        kube::Error::Api(s) => *s,
        other => panic!("expected an API error, got {other:?}"),
    }
}

/// NodeWorkloadLocks as dynamic objects.
pub fn nwl_api(sim: &Sim) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("lcm.mirantis.com", "v1alpha1", "NodeWorkloadLock");
    Api::all_with(sim.client.clone(), &ApiResource::from_gvk(&gvk))
}

pub async fn call(
    sim: &Sim,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = sim
        .router
        .clone()
        .oneshot(req.body(Body::from(body)).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    let v = serde_json::from_slice(&bytes)
        .unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, v)
}

/// The lines of a streamed body, until it ends (bounded by the safety timeout).
pub async fn stream_lines(sim: &Sim, uri: &str, accept: Option<&str>) -> Vec<Value> {
    let mut req = Request::get(uri);
    if let Some(a) = accept {
        req = req.header("Accept", a);
    }
    let resp = sim
        .router
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let mut body = resp.into_body().into_data_stream();
    let mut buf = Vec::new();
    let read = async {
        while let Some(chunk) = body.next().await {
            let chunk: Bytes = chunk.unwrap();
            buf.extend_from_slice(&chunk);
        }
    };
    tokio::time::timeout(PATIENCE, read)
        .await
        .expect("stream ends within the safety timeout");
    buf.split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// Asserts a `Status` error body with this code.
pub fn assert_status(got: (StatusCode, Value), code: u16, what: &str) {
    let (status, body) = got;
    assert_eq!(status.as_u16(), code, "{what}: {body}");
    assert_eq!(body["kind"], "Status", "{what}: {body}");
    assert_eq!(body["code"], code, "{what}: {body}");
    assert!(
        body["reason"].as_str().is_some_and(|r| !r.is_empty()),
        "{what}: {body}"
    );
}
