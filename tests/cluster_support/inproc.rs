//! The simulated clusters served in-process (the router is the kube client's
//! service), for tests on tokio's paused clock: no sockets, so time only
//! moves when every task waits. Between the client and the router sits a
//! [`Wire`]: it records every request and can take the server down (every
//! request then fails as a refused connection would).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt;
use kube::client::ClientBuilder;
use mosk_console::cluster::{ClockSync, Clusters};
use mosk_console::domain::objects::ClusterId;
use mosk_console::sim::clock::Clock;
use mosk_console::sim::faults::Faults;
use mosk_console::sim::registry::Registry;
use mosk_console::sim::server::{ServerOptions, router};
use mosk_console::sim::store::Store;
use tokio::time::Instant;

/// One request as it reached the wire: when (paused clock), method, path and query.
#[derive(Debug, Clone)]
pub struct Seen {
    pub at: Instant,
    pub path: String,
    pub query: String,
    /// Whether it was answered (false: refused during an outage).
    pub answered: bool,
}

impl Seen {
    pub fn is_watch(&self) -> bool {
        self.query
            .split('&')
            .any(|p| p == "watch=true" || p == "watch=1")
    }
}

/// The switch and the record of one cluster's wire.
#[derive(Clone, Default)]
pub struct WireState {
    pub down: Arc<AtomicBool>,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl WireState {
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }

    /// The requests whose path ends with `suffix`, in order.
    pub fn requests_to(&self, suffix: &str) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.path.ends_with(suffix))
            .cloned()
            .collect()
    }
}

/// A tower service in front of a router: see the module documentation.
#[derive(Clone)]
pub struct Wire {
    router: Router,
    state: WireState,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl tower::Service<http::Request<kube::client::Body>> for Wire {
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<Result<Response, BoxError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<kube::client::Body>) -> Self::Future {
        let down = self.state.down.load(Ordering::SeqCst);
        self.state.seen.lock().unwrap().push(Seen {
            at: Instant::now(),
            path: req.uri().path().to_string(),
            query: req.uri().query().unwrap_or_default().to_string(),
            answered: !down,
        });
        if down {
            let err = std::io::Error::new(
                std::io::ErrorKind::ConnectionRefused,
                "Connection refused (simulated outage)",
            );
            return Box::pin(async move { Err(err.into()) });
        }
        let router = self.router.clone();
        Box::pin(async move {
            use tower::ServiceExt;
            let resp: Result<Response, Infallible> = router.oneshot(req.map(Body::new)).await;
            Ok(resp.unwrap_or_else(|never| match never {}))
        })
    }
}

/// One in-process simulated cluster.
pub struct InSim {
    pub store: Arc<Store>,
    pub faults: Arc<Faults>,
    pub wire: WireState,
    router: Router,
}

impl InSim {
    /// A cluster serving `registry`, its clock standing still.
    pub fn new(registry: Registry) -> InSim {
        let clock = Clock::new("2026-03-01T10:00:00Z".parse().unwrap());
        let store = Store::new(registry, clock);
        let faults = Arc::new(Faults::new());
        let router = router(
            store.clone(),
            ServerOptions {
                faults: faults.clone(),
                ..ServerOptions::default()
            },
        );
        InSim {
            store,
            faults,
            wire: WireState::default(),
            router,
        }
    }

    /// Wraps the router (e.g. in an axum middleware that damages answers).
    pub fn layer(mut self, f: impl FnOnce(Router) -> Router) -> InSim {
        self.router = f(self.router);
        self
    }
}

/// Clients for both in-process clusters, built as `connect` builds them (with
/// the clock layer), but without kubeconfig or probe.
pub fn clusters(mgmt: &InSim, mosk: &InSim) -> Clusters {
    let clock = ClockSync::new();
    let client = |sim: &InSim, id: ClusterId| {
        let wire = Wire {
            router: sim.router.clone(),
            state: sim.wire.clone(),
        };
        ClientBuilder::new(wire, "default")
            .with_layer(&clock.layer(id))
            .build()
    };
    Clusters {
        mgmt: client(mgmt, ClusterId::Mgmt),
        mosk: client(mosk, ClusterId::Mosk),
        mgmt_context: "sim-mgmt".into(),
        mosk_context: "sim-mosk".into(),
        mgmt_user: "sim-mgmt-admin".into(),
        mosk_user: "sim-mosk-admin".into(),
        mgmt_server: "in-process".into(),
        mosk_server: "in-process".into(),
        mgmt_transport: Default::default(),
        mosk_transport: Default::default(),
        clock,
    }
}

/// How many upcoming answers a damaging middleware still damages.
#[derive(Clone, Default)]
pub struct Countdown(pub Arc<AtomicU32>);

impl Countdown {
    pub fn arm(&self, n: u32) {
        self.0.store(n, Ordering::SeqCst);
    }

    /// Takes one, if any are left.
    pub fn take(&self) -> bool {
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }

    pub fn left(&self) -> u32 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The state of [`cut_watch_line`]: which resource's watch, which text marks
/// the event line to cut, and how many to cut.
#[derive(Clone)]
pub struct LineCut {
    pub resource: &'static str,
    pub marker: &'static str,
    pub count: Countdown,
}

/// An axum middleware: in watch answers for `resource`, the next event line
/// holding `marker` arrives cut short (half of it, then the newline), as a
/// line damaged on the wire. kube's client skips such a line without a word.
pub async fn cut_watch_line(State(cut): State<LineCut>, req: Request, next: Next) -> Response {
    let is_watch = req.uri().path().ends_with(&format!("/{}", cut.resource))
        && req
            .uri()
            .query()
            .is_some_and(|q| q.split('&').any(|p| p == "watch=true" || p == "watch=1"));
    let resp = next.run(req).await;
    if !is_watch {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let stream = body.into_data_stream().map(move |chunk| {
        chunk.map(|b| {
            let hit = b
                .windows(cut.marker.len())
                .any(|w| w == cut.marker.as_bytes());
            if hit && cut.count.take() {
                let mut short = b[..b.len() / 2].to_vec();
                short.push(b'\n');
                Bytes::from(short)
            } else {
                b
            }
        })
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

/// An axum middleware: the next list answers (not watches) whose path ends
/// with `/{resource}` are cut to half their length, as a truncated answer.
pub async fn cut_list_answer(
    State((resource, count)): State<(&'static str, Countdown)>,
    req: Request,
    next: Next,
) -> Response {
    let is_list = req.uri().path().ends_with(&format!("/{resource}"))
        && !req
            .uri()
            .query()
            .is_some_and(|q| q.split('&').any(|p| p == "watch=true" || p == "watch=1"));
    let resp = next.run(req).await;
    if !is_list || count.left() == 0 {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    if !parts.status.is_success() || !count.take() {
        return Response::from_parts(parts, Body::from(bytes));
    }
    parts.headers.remove(http::header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(bytes.slice(..bytes.len() / 2)))
}
