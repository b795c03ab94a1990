//! A hostile cluster against the real binary: the console's memory stays
//! bounded and the operator is told what was not shown.
//!
//! The simulated MOSK API server (over TCP) is wrapped by a layer that
//! answers, at once and on every retry:
//! - the Node watch with an endless flood of MODIFIED events (1,000 nodes
//!   changing over and over, as fast as the console reads them);
//! - the NodeWorkloadLock watch with one event holding a 64 MiB object;
//! - the NodeMaintenanceRequest list with a 64 MiB object (a 64 MiB body);
//! - the vRouter pod watch with bytes that never end a line.
//!
//! The console runs in a pty with `--max-objects 500` (the 1,000 nodes are
//! over it). The test asserts the process's peak resident memory (VmHWM,
//! from /proc) stays under [`RSS_BOUND_KIB`], that the status bar names the
//! capped kind, that the views of the refused kinds and the trace log name
//! each answer that was not read.
//! Figures: docs/RELIABILITY.md, "Hostile cluster: bounded memory".
//!
//! Run: `cargo test --test flood -- --nocapture`.

#[path = "cluster_support/mod.rs"]
mod cluster_support;
mod pty_console;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use mosk_console::sim::clock::Clock;
use mosk_console::sim::faults::Faults;
use mosk_console::sim::registry::Registry;
use mosk_console::sim::server::{ServerOptions, router};
use mosk_console::sim::store::Store;

use cluster_support::{node, serve, serve_app, write_kubeconfig};
use pty_console::{Console, Options};

/// The peak resident memory the console may reach under the flood: about
/// twice the measured peak (120 MiB, of which a 64 MiB list body read
/// whole and copied once by kube before it is refused; docs/RELIABILITY.md).
const RSS_BOUND_KIB: u64 = 256 * 1024;
/// Nodes in the flood (the list and the watch), twice `--max-objects`.
const NODES: usize = 1_000;
const MAX_OBJECTS: &str = "500";
/// Flood events the server must have sent before the figures are read.
const FLOOD_EVENTS: u64 = 100_000;
/// Each oversized answer is sent this many times (the first and retries).
const OVERSIZED_ANSWERS: u64 = 3;
const MIB: usize = 1 << 20;
/// The size of the hostile object.
const HUGE: usize = 64 * MIB;

/// What the hostile layer has sent.
#[derive(Default)]
struct Sent {
    flood_events: AtomicU64,
    huge_events: AtomicU64,
    huge_lists: AtomicU64,
    endless_lines: AtomicU64,
}

struct Hostile {
    sent: Sent,
    /// The flood: chunks of 1,000 MODIFIED node events each, sent in turn.
    flood: Vec<Bytes>,
    /// 1 MiB of `a`, the filling of the huge object.
    filler: Bytes,
    /// 1 MiB of `x` without a line end.
    endless: Bytes,
}

fn flood_chunks() -> Vec<Bytes> {
    (0..4)
        .map(|round| {
            let mut chunk = String::new();
            for i in 0..NODES {
                chunk.push_str(&format!(
                    concat!(
                        r#"{{"type":"MODIFIED","object":{{"apiVersion":"v1","kind":"Node","#,
                        r#""metadata":{{"name":"flood-{i}","uid":"u-{i}","resourceVersion":"{rv}","#,
                        r#""annotations":{{"openstack.lcm.mirantis.com/instance_migration_attempts":"{round}"}}}},"#,
                        r#""status":{{"conditions":[{{"type":"Ready","status":"True"}}]}}}}}}"#,
                        "\n"
                    ),
                    i = i,
                    rv = 1_000_000 + round * NODES + i,
                    round = round,
                ));
            }
            Bytes::from(chunk)
        })
        .collect()
}

fn has(query: &str, flag: &str) -> bool {
    query
        .split('&')
        .any(|kv| kv == format!("{flag}=true") || kv == format!("{flag}=1"))
}

fn stream_of(parts: impl Iterator<Item = Bytes> + Send + 'static) -> Response {
    let body = Body::from_stream(futures::stream::iter(
        parts.map(Ok::<Bytes, std::io::Error>),
    ));
    Response::builder()
        .header("content-type", "application/json")
        .body(body)
        .unwrap()
}

/// `head`, `HUGE` bytes of filler, then `tail`.
fn huge_body(h: &Hostile, head: &'static str, tail: &'static str) -> Response {
    let filler = h.filler.clone();
    stream_of(
        std::iter::once(Bytes::from_static(head.as_bytes()))
            .chain(std::iter::repeat_n(filler, HUGE / MIB))
            .chain(std::iter::once(Bytes::from_static(tail.as_bytes()))),
    )
}

async fn hostile(State(h): State<Arc<Hostile>>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or_default().to_string();
    let watch = has(&query, "watch");
    if path == "/api/v1/nodes" && watch {
        let h2 = h.clone();
        let chunks = (0..).map(move |i: usize| {
            h2.sent
                .flood_events
                .fetch_add(NODES as u64, Ordering::Relaxed);
            h2.flood[i % h2.flood.len()].clone()
        });
        return stream_of(chunks);
    }
    if path.ends_with("/nodeworkloadlocks") && watch {
        h.sent.huge_events.fetch_add(1, Ordering::Relaxed);
        return huge_body(
            &h,
            concat!(
                r#"{"type":"MODIFIED","object":{"apiVersion":"lcm.mirantis.com/v1alpha1","#,
                r#""kind":"NodeWorkloadLock","metadata":{"name":"huge","resourceVersion":"99999999"},"#,
                r#""spec":{"nodeName":""#
            ),
            "\"}}}\n",
        );
    }
    if path.ends_with("/nodemaintenancerequests") && !watch {
        h.sent.huge_lists.fetch_add(1, Ordering::Relaxed);
        return huge_body(
            &h,
            concat!(
                r#"{"kind":"NodeMaintenanceRequestList","apiVersion":"lcm.mirantis.com/v1alpha1","#,
                r#""metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"huge"},"#,
                r#""spec":{"nodeName":""#
            ),
            "\"}}]}",
        );
    }
    if path == "/api/v1/namespaces/tf/pods" && watch {
        h.sent.endless_lines.fetch_add(1, Ordering::Relaxed);
        let endless = h.endless.clone();
        return stream_of(std::iter::repeat(endless));
    }
    next.run(req).await
}

/// `VmHWM` (peak) and `VmRSS` of a process, in KiB.
fn memory_kib(pid: u32) -> (u64, u64) {
    // Empty once the process is gone.
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

#[test]
fn a_flooding_hostile_cluster_keeps_memory_bounded_and_says_what_was_not_shown() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let h = Arc::new(Hostile {
        sent: Sent::default(),
        flood: flood_chunks(),
        filler: Bytes::from(vec![b'a'; MIB]),
        endless: Bytes::from(vec![b'x'; MIB]),
    });
    let (mgmt, mosk) = rt.block_on(async {
        let mgmt = serve(Registry::mgmt()).await;
        // The one cluster of the management cluster, which the console follows.
        mgmt.store
            .create(
                "lcmclusters",
                serde_json::json!({"apiVersion": "lcm.mirantis.com/v1alpha1", "kind": "LCMCluster",
                    "metadata": {"name": "child-cl", "namespace": "child-ns"}}),
            )
            .unwrap();
        let clock = Clock::new("2026-03-01T10:00:00Z".parse().unwrap());
        let store = Store::new(Registry::mosk(), clock);
        for i in 0..NODES {
            store.create("nodes", node(&format!("flood-{i}"))).unwrap();
        }
        let faults = Arc::new(Faults::new());
        let app = router(
            store.clone(),
            ServerOptions {
                faults: faults.clone(),
                ..ServerOptions::default()
            },
        )
        .layer(axum::middleware::from_fn_with_state(h.clone(), hostile));
        let mosk = serve_app(app, store, faults).await;
        (mgmt, mosk)
    });
    let state = tempfile::tempdir().unwrap();
    let kubeconfig = write_kubeconfig(
        state.path(),
        "kubeconfig",
        &[("sim-mgmt", &mgmt.url), ("sim-mosk", &mosk.url)],
    );
    let mut c = Console::start_with(
        &[
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "--read-only",
            "--max-objects",
            MAX_OBJECTS,
        ],
        state.path(),
        Options {
            cols: 160,
            ..Options::default()
        },
    );
    let pid = c.child.process_id().expect("the console's pid");
    let started = std::time::Instant::now();
    let peak_sampled = AtomicU64::new(0);
    let done = c.try_wait_for(Duration::from_secs(120), |screen| {
        let rss = memory_kib(pid).1;
        peak_sampled.fetch_max(rss, Ordering::Relaxed);
        // Over the bound already: stop here rather than watch it grow
        // (without the limits it reached 4 GiB within a minute).
        if rss >= RSS_BOUND_KIB {
            return true;
        }
        h.sent.flood_events.load(Ordering::Relaxed) >= FLOOD_EVENTS
            && h.sent.huge_events.load(Ordering::Relaxed) >= OVERSIZED_ANSWERS
            && h.sent.huge_lists.load(Ordering::Relaxed) >= OVERSIZED_ANSWERS
            && h.sent.endless_lines.load(Ordering::Relaxed) >= OVERSIZED_ANSWERS
            && screen.contains("Node: 500-object cap reached, 500 not shown")
    });
    let elapsed = started.elapsed();
    let (hwm, rss) = memory_kib(pid);
    let flood = h.sent.flood_events.load(Ordering::Relaxed);
    let screen = c.screen();
    println!(
        "flood: {flood} node events sent in {:.1} s ({:.0}/s); oversized answers sent: \
         {} watch events of 64 MiB, {} lists of 64 MiB, {} endless lines; \
         console memory: peak (VmHWM) {} MiB, resident now {} MiB, highest sampled {} MiB",
        elapsed.as_secs_f64(),
        flood as f64 / elapsed.as_secs_f64(),
        h.sent.huge_events.load(Ordering::Relaxed),
        h.sent.huge_lists.load(Ordering::Relaxed),
        h.sent.endless_lines.load(Ordering::Relaxed),
        hwm / 1024,
        rss / 1024,
        peak_sampled.load(Ordering::Relaxed) / 1024,
    );
    if let Some(bar) = screen.lines().find(|l| l.contains("cap reached")) {
        println!("status bar: {}", bar.trim_end());
    }
    let peak = hwm.max(peak_sampled.load(Ordering::Relaxed));
    if peak >= RSS_BOUND_KIB || !done {
        let _ = c.child.kill();
    }
    assert!(
        peak < RSS_BOUND_KIB,
        "peak resident memory {peak} KiB over the bound {RSS_BOUND_KIB} KiB"
    );
    assert!(done, "the flood did not run its course; screen:\n{screen}");
    // Each refused answer is named where its kind is shown: the empty
    // Requests and Locks tables say why they are empty.
    c.send("5");
    c.wait_for("the Requests view naming the refused list", |s| {
        s.contains("NodeMaintenanceRequest: watch disconnected") && s.contains("over 64 MiB")
    });
    c.send("4");
    c.wait_for("the Locks view naming the refused watch event", |s| {
        s.contains("NodeWorkloadLock: watch disconnected") && s.contains("over 8 MiB")
    });
    c.quit_ok();

    let trace = std::fs::read_to_string(
        state
            .path()
            .join("state/mosk-console")
            .join(mosk_console::logging::TRACE_FILE),
    )
    .unwrap();
    for said in [
        "the server sent a watch event over 8 MiB (no line end): not read",
        "the server's answer is over 64 MiB: not read",
        "object cap reached: objects not shown",
    ] {
        assert!(trace.contains(said), "the trace log does not say {said:?}");
    }
    // The flood was merged, not queued.
    let stats = trace
        .lines()
        .find(|l| l.contains("the cluster layer's channel"))
        .expect("the channel's figures at quit");
    println!("{stats}");
    drop(rt);
}
