//! The lcm-controller log follower against the simulated management cluster,
//! over HTTP from a kubeconfig.
//!
//! The simulator stores log lines as text, so two faults are added by a thin
//! layer in front of its router: a marker in a line becomes a raw non-UTF-8
//! byte on the wire, and log streams can be cut (as an API server dropping
//! the connection) on demand. A second layer can cut a pod list answer short.

mod cluster_support;

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use cluster_support::inproc::{Countdown, cut_list_answer};
use cluster_support::*;
use futures::StreamExt;
use mosk_console::cluster::{ClusterEvent, LogOptions, spawn_log_follower};
use mosk_console::sim::faults::Faults;
use mosk_console::sim::registry::Registry;
use mosk_console::sim::server::{ServerOptions, router};
use mosk_console::sim::store::Store;
use serde_json::json;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

const NS: &str = "kaas";
const POD_A: &str = "lcm-lcm-controller-5d8f7c9b4-aaaaa";
const POD_B: &str = "lcm-lcm-controller-5d8f7c9b4-bbbbb";
const BAD: &str = "<BAD>";

/// Cuts every open log stream when its value changes.
#[derive(Clone)]
struct LogCut(Arc<watch::Sender<u64>>);

impl LogCut {
    fn cut(&self) {
        self.0.send_modify(|g| *g += 1);
    }
}

fn replace_marker(b: Bytes) -> Bytes {
    let marker = BAD.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(marker) {
            out.push(0xff);
            i += marker.len();
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Bytes::from(out)
}

async fn log_faults(State(cut): State<LogCut>, req: Request, next: Next) -> Response {
    let is_log = req.uri().path().ends_with("/log");
    let resp = next.run(req).await;
    if !is_log {
        return resp;
    }
    let mut cut_rx = cut.0.subscribe();
    cut_rx.borrow_and_update();
    let (parts, body) = resp.into_parts();
    let stream = body
        .into_data_stream()
        .map(|chunk| chunk.map(replace_marker))
        .take_until(async move {
            let _ = cut_rx.changed().await;
        });
    Response::from_parts(parts, Body::from_stream(stream))
}

struct Running {
    mgmt: Arc<Store>,
    faults: Arc<Faults>,
    cut: LogCut,
    /// Pod list answers still to be cut short.
    cut_pod_lists: Countdown,
    rx: mosk_console::cluster::channel::EventReceiver,
    /// Every `(pod, line)` received, in order.
    lines: Vec<(String, String)>,
    statuses: Vec<String>,
    cancel: CancellationToken,
    _pair: Pair,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

impl Running {
    /// Receives until a line equal to `text` arrived; fails after [`WAIT`].
    async fn until_line(&mut self, text: &str) {
        self.until(&format!("the line {text:?}"), |r| {
            r.lines.iter().any(|(_, l)| l == text)
        })
        .await;
    }

    async fn until_status(&mut self, part: &str) {
        self.until(&format!("a status containing {part:?}"), |r| {
            r.statuses.iter().any(|s| s.contains(part))
        })
        .await;
    }

    async fn until(&mut self, what: &str, done: impl Fn(&Running) -> bool) {
        let deadline = tokio::time::Instant::now() + WAIT;
        while !done(self) {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(ClusterEvent::LogLines { pod, lines })) => {
                    self.lines
                        .extend(lines.into_iter().map(|l| (pod.clone(), l)));
                }
                Ok(Some(ClusterEvent::LogStatus { message })) => self.statuses.push(message),
                Ok(Some(_)) => {}
                Ok(None) => panic!("channel closed waiting for {what}"),
                Err(_) => panic!(
                    "timed out waiting for {what}; lines {:#?}; statuses {:#?}",
                    self.lines, self.statuses
                ),
            }
        }
    }
}

async fn start(setup: impl FnOnce(&Store)) -> Running {
    let clock = mosk_console::sim::clock::Clock::new("2026-03-01T10:00:00Z".parse().unwrap());
    let store = Store::new(Registry::mgmt(), clock);
    setup(&store);
    let faults = Arc::new(Faults::new());
    let cut = LogCut(Arc::new(watch::channel(0).0));
    let cut_pod_lists = Countdown::default();
    let app = router(
        store.clone(),
        ServerOptions {
            faults: faults.clone(),
            ..ServerOptions::default()
        },
    )
    .layer(axum::middleware::from_fn_with_state(
        cut.clone(),
        log_faults,
    ))
    .layer(axum::middleware::from_fn_with_state(
        ("pods", cut_pod_lists.clone()),
        cut_list_answer,
    ));
    let mgmt = serve_app(app, store.clone(), faults.clone()).await;
    let mosk = serve(Registry::mosk()).await;
    let pair = pair_of(mgmt, mosk);
    let clusters = pair.connect().await;
    let (tx, rx) = mosk_console::cluster::channel::channel();
    let cancel = CancellationToken::new();
    let opts = LogOptions {
        backoff: fast_backoff(),
        switch_grace: Duration::from_secs(2),
        ..LogOptions::default()
    };
    spawn_log_follower(clusters.mgmt.clone(), opts, tx, cancel.clone());
    Running {
        mgmt: store,
        faults,
        cut,
        cut_pod_lists,
        rx,
        lines: Vec::new(),
        statuses: Vec::new(),
        cancel,
        _pair: pair,
    }
}

fn log(store: &Store, pod: &str, line: &str) {
    store.append_log(NS, pod, "controller", line);
}

#[tokio::test]
async fn the_log_is_followed_across_a_bad_byte_and_a_pod_replacement() {
    let mut r = start(|s| {
        s.create("pods", pod(POD_A, NS, true)).unwrap();
        // Another pod in kaas that is not lcm-controller.
        s.create("pods", pod("kaas-ui-7c9f-xxxxx", NS, true))
            .unwrap();
        for l in ["one", "two", "three"] {
            log(s, POD_A, l);
        }
        log(s, "kaas-ui-7c9f-xxxxx", "not this one");
    })
    .await;
    r.until_line("three").await;
    r.until_status(&format!("connected to {POD_A} (container controller)"))
        .await;

    // One bad byte does not end the tail: it shows as U+FFFD and lines keep coming.
    log(&r.mgmt, POD_A, &format!("bad {BAD} byte"));
    log(&r.mgmt, POD_A, "after the bad byte");
    r.until_line("after the bad byte").await;

    // The Deployment replaces the pod: a new Ready pod appears, the old one goes.
    r.mgmt.create("pods", pod(POD_B, NS, true)).unwrap();
    log(&r.mgmt, POD_B, "b starting");
    log(&r.mgmt, POD_A, "a last words");
    r.mgmt
        .delete(
            "pods",
            Some(NS),
            POD_A,
            &json!({"gracePeriodSeconds": 0}),
            false,
        )
        .unwrap();
    r.until_status(&format!("{POD_A} was replaced; connected to {POD_B}"))
        .await;
    log(&r.mgmt, POD_B, "b running");
    r.until_line("b running").await;

    let expected: Vec<(String, String)> = [
        (POD_A, "one"),
        (POD_A, "two"),
        (POD_A, "three"),
        (POD_A, "bad \u{fffd} byte"),
        (POD_A, "after the bad byte"),
        (POD_A, "a last words"),
        (POD_B, "b starting"),
        (POD_B, "b running"),
    ]
    .iter()
    .map(|(p, l)| (p.to_string(), l.to_string()))
    .collect();
    assert_eq!(r.lines, expected);
}

#[tokio::test]
async fn a_reconnect_repeats_no_line_and_loses_none() {
    let mut r = start(|s| {
        s.create("pods", pod(POD_A, NS, true)).unwrap();
        // The simulated clock stands still: these share one timestamp.
        for l in ["alpha", "beta", "beta", "gamma"] {
            log(s, POD_A, l);
        }
    })
    .await;
    r.until_line("gamma").await;

    // The API server drops the stream; a line with the same timestamp is
    // written meanwhile, then one a second later.
    r.cut.cut();
    log(&r.mgmt, POD_A, "delta");
    r.until_status(&format!("reconnected to {POD_A}")).await;
    r.mgmt.clock().advance(jiff::SignedDuration::from_secs(1));
    log(&r.mgmt, POD_A, "epsilon");
    r.until_line("epsilon").await;

    // Once more, now that the last line seen is a second later.
    r.cut.cut();
    r.until("a second reconnect", |r| {
        r.statuses
            .iter()
            .filter(|s| s.starts_with("reconnected to"))
            .count()
            >= 2
    })
    .await;
    log(&r.mgmt, POD_A, "zeta");
    r.until_line("zeta").await;

    let lines: Vec<&str> = r.lines.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(
        lines,
        ["alpha", "beta", "beta", "gamma", "delta", "epsilon", "zeta"]
    );
}

#[tokio::test]
async fn without_an_lcm_controller_pod_the_status_says_so_until_one_appears() {
    let mut r = start(|_| {}).await;
    r.until_status("no lcm-controller pod (lcm-lcm-controller-*) in namespace kaas")
        .await;
    r.mgmt.create("pods", pod(POD_A, NS, true)).unwrap();
    log(&r.mgmt, POD_A, "hello");
    r.until_line("hello").await;
}

#[tokio::test]
async fn a_failed_pod_list_is_reported_until_the_next_list_succeeds() {
    let mut r = start(|s| {
        s.create("pods", pod(POD_A, NS, true)).unwrap();
        log(s, POD_A, "one");
    })
    .await;
    r.until_line("one").await;
    let following = format!("connected to {POD_A} (container controller)");
    r.until_status(&following).await;

    // The pod watch must list again (its version expired), and the next list
    // answer arrives cut short.
    r.cut_pod_lists.arm(1);
    r.mgmt
        .create("pods", pod("kaas-ui-7c9f-xxxxx", NS, true))
        .unwrap();
    // Up to and including the newest version: the watcher may already have
    // seen the pod just created, and resuming from it must still be refused.
    r.faults.expire_before(r.mgmt.resource_version() + 1);
    r.faults.drop_watches();
    r.until_status("cannot watch the lcm-controller pods: list failed")
        .await;
    let failed_at = r.statuses.len();

    // The retry lists fine: the failure is no longer shown, and the status is
    // the stream's again while lines go on arriving.
    r.until("the status after the recovery", |r| {
        r.statuses.len() > failed_at
    })
    .await;
    assert_eq!(r.statuses.last(), Some(&following), "{:#?}", r.statuses);
    assert_eq!(r.cut_pod_lists.left(), 0);
    log(&r.mgmt, POD_A, "two");
    r.until_line("two").await;
    assert_eq!(r.statuses.last(), Some(&following), "{:#?}", r.statuses);
}

/// Receives until a log status satisfies `done`; returns it. Fails after
/// [`WAIT`] with every status seen.
async fn status_until(
    rx: &mut mosk_console::cluster::channel::EventReceiver,
    seen: &mut Vec<String>,
    what: &str,
    done: impl Fn(&str) -> bool,
) -> String {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(ClusterEvent::LogStatus { message })) => {
                seen.push(message.clone());
                if done(&message) {
                    return message;
                }
            }
            Ok(Some(_)) => {}
            Ok(None) => panic!("channel closed waiting for {what}"),
            Err(_) => panic!("timed out waiting for {what}; statuses {seen:#?}"),
        }
    }
}

/// `sim serve --faults outage=…` over TCP, on the simulator's clock: the
/// outage cuts the pod watch and refuses its retries; once it is over the
/// watch works again though no pod changes (kube yields nothing then), and
/// the failure leaves the status after the recovery grace, not at the next
/// change of a pod.
#[tokio::test]
async fn after_an_outage_the_pod_watch_failure_leaves_the_status_with_no_pod_changing() {
    use mosk_console::cluster::{Target, connect};
    use mosk_console::sim::faults::spec::FaultPlan;
    use mosk_console::sim::serve::{ServeOptions, start};
    use mosk_console::sim::world::SimCluster;

    let dir = tempfile::tempdir().unwrap();
    let sim = start(ServeOptions {
        kubeconfig_out: dir.path().join("kc"),
        start: Some("2026-01-01T10:00:00Z".parse().unwrap()),
        // The driver all but stands still: the test steps the clock.
        speed: 1e-9,
        faults: FaultPlan::parse("outage=60s+60s").unwrap(),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let clusters = connect(&Target {
        kubeconfig: Some(sim.kubeconfig.clone()),
        ..Default::default()
    })
    .await
    .unwrap();
    let (tx, mut rx) = mosk_console::cluster::channel::channel();
    let cancel = CancellationToken::new();
    let opts = LogOptions {
        backoff: fast_backoff(),
        recovery_grace: Duration::from_millis(300),
        ..LogOptions::default()
    };
    spawn_log_follower(clusters.mgmt.clone(), opts, tx, cancel.clone());
    let pod = sim.world.lcm_pod();
    let pods = |world: &mosk_console::sim::world::SimWorld| -> Vec<String> {
        world
            .store(SimCluster::Mgmt)
            .list("pods", Some(NS))
            .iter()
            .map(|p| p["metadata"]["resourceVersion"].to_string())
            .collect()
    };
    let pods_before = pods(&sim.world);
    let mut seen = Vec::new();
    let connected = format!("connected to {pod} (container controller)");
    status_until(&mut rx, &mut seen, "the stream", |s| s == connected).await;

    // 60 s in, the outage begins: the pod watch is cut and refused.
    sim.world.step(jiff::SignedDuration::from_secs(60));
    status_until(&mut rx, &mut seen, "the pod watch failing", |s| {
        s.starts_with("cannot watch the lcm-controller pods:")
    })
    .await;
    // 60 s later it is over; no pod changed meanwhile.
    sim.world.step(jiff::SignedDuration::from_secs(60));
    assert!(!sim.world.faults(SimCluster::Mgmt).in_outage());
    let after = status_until(&mut rx, &mut seen, "the failure cleared", |s| {
        !s.starts_with("cannot watch")
    })
    .await;
    assert_eq!(
        after,
        format!("reconnected to {pod} (container controller)")
    );
    assert_eq!(pods(&sim.world), pods_before, "a pod changed");
    assert_eq!(sim.world.faults(SimCluster::Mgmt).counts().outages, 1);
    cancel.cancel();
    sim.shutdown().await;
}
