//! Simulator throughput with the `large` scenario (2,000 machines):
//! `SimWorld::step` (reported as simulated seconds per real second), store
//! lists, HTTP lists through the API router, and the fan-out of one
//! simulated second to the console's ten watches.
//!
//! `cargo bench --bench sim -- --warm-up-time 1 --measurement-time 3`

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, BodyDataStream};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::{FutureExt, StreamExt};
use http::Request;
use jiff::SignedDuration;
use tower::ServiceExt;

use mosk_console::domain::objects::Kind;
use mosk_console::sim::store::WatchFrom;
use mosk_console::sim::world::{SimCluster, SimWorld};

const SECOND: SignedDuration = SignedDuration::from_secs(1);

/// The API path a console watcher of `kind` lists and watches.
fn api_path(world: &SimWorld, kind: Kind) -> String {
    let store = world.store(common::sim_cluster(kind));
    let info = store
        .registry()
        .find_plural(kind.plural())
        .expect("every watched kind is served");
    let root = if info.group.is_empty() {
        format!("/api/{}", info.version)
    } else {
        format!("/apis/{}/{}", info.group, info.version)
    };
    if info.namespaced {
        let ns = common::watch_namespace(world, kind);
        format!("{root}/namespaces/{ns}/{}", info.plural)
    } else {
        format!("{root}/{}", info.plural)
    }
}

fn get(router: &Router, uri: &str) -> impl Future<Output = Body> + use<> {
    let req = Request::get(uri).body(Body::empty()).expect("request");
    let router = router.clone();
    let uri = uri.to_owned();
    async move {
        let resp = router.oneshot(req).await.expect("router is infallible");
        assert!(resp.status().is_success(), "GET {uri}: {}", resp.status());
        resp.into_body()
    }
}

/// Reads what the watches have ready until they stay quiet for a few
/// scheduler passes; returns (events, bytes).
async fn drain(streams: &mut [BodyDataStream]) -> (usize, usize) {
    let (mut events, mut bytes) = (0, 0);
    let mut quiet = 0;
    while quiet < 3 {
        let mut got = false;
        for s in streams.iter_mut() {
            while let Some(Some(Ok(chunk))) = s.next().now_or_never() {
                events += chunk.iter().filter(|b| **b == b'\n').count();
                bytes += chunk.len();
                got = true;
            }
        }
        quiet = if got { 0 } else { quiet + 1 };
        tokio::task::yield_now().await;
    }
    (events, bytes)
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");

    let build = Instant::now();
    let world = common::large_world();
    let built = build.elapsed();
    let start = Instant::now();
    world.step(common::MID_UPDATE);
    eprintln!(
        "sim: large world built in {:.2?}; first {} simulated minutes stepped in {:.2?}",
        built,
        common::MID_UPDATE.as_secs() / 60,
        start.elapsed()
    );

    let mut g = c.benchmark_group("step");
    // One simulated second per iteration: elements/s = simulated s per real s.
    g.throughput(Throughput::Elements(1));
    g.bench_function("one_second_mid_update", |b| b.iter(|| world.step(SECOND)));
    g.finish();

    let mut g = c.benchmark_group("store");
    for kind in [Kind::LcmMachine, Kind::Node, Kind::NodeWorkloadLock] {
        let ns = common::watch_namespace(&world, kind);
        let store = world.store(common::sim_cluster(kind));
        g.bench_function(format!("list_{}", kind.plural()), |b| {
            b.iter(|| black_box(store.list(kind.plural(), Some(&ns))))
        });
    }
    g.bench_function("watch_snapshot_lcmmachines", |b| {
        b.iter(|| black_box(world.mgmt().watch("lcmmachines", WatchFrom::Snapshot)))
    });
    g.finish();

    // A re-list as the console's watcher makes it: GET through the router
    // (serialisation included), whole body read.
    let mut g = c.benchmark_group("http_list");
    for kind in [Kind::LcmMachine, Kind::Node] {
        let router = world.router(common::sim_cluster(kind));
        let uri = api_path(&world, kind);
        g.bench_function(kind.plural(), |b| {
            b.iter(|| {
                rt.block_on(async {
                    let body = get(&router, &uri).await;
                    axum::body::to_bytes(body, usize::MAX)
                        .await
                        .expect("list body")
                        .len()
                })
            })
        });
    }
    g.finish();

    // Fan-out: the console's ten watches (one per kind, each with its own
    // connection) open on the two routers; each iteration steps one
    // simulated second and reads every watch until it is quiet.
    let fan = common::large_world_mid_update();
    let mgmt = fan.router(SimCluster::Mgmt);
    let mosk = fan.router(SimCluster::Mosk);
    let mut streams: Vec<BodyDataStream> = rt.block_on(async {
        let mut out = Vec::new();
        for kind in Kind::ALL {
            let rv = fan.store(common::sim_cluster(kind)).resource_version();
            let uri = format!(
                "{}?watch=true&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=3600",
                api_path(&fan, kind)
            );
            let router = match common::sim_cluster(kind) {
                SimCluster::Mgmt => &mgmt,
                SimCluster::Mosk => &mosk,
            };
            out.push(get(router, &uri).await.into_data_stream());
        }
        out
    });
    let mut g = c.benchmark_group("fanout");
    g.throughput(Throughput::Elements(1));
    let mut totals = (0u64, 0usize, 0usize);
    g.bench_function("step_and_read_10_watches", |b| {
        b.iter_custom(|iters| {
            let mut t = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                fan.step(SECOND);
                let (events, bytes) = rt.block_on(drain(&mut streams));
                t += start.elapsed();
                totals.0 += 1;
                totals.1 += events;
                totals.2 += bytes;
            }
            t
        })
    });
    g.finish();
    if totals.0 > 0 {
        eprintln!(
            "fanout: {} simulated seconds, {:.1} watch events and {:.1} KiB per simulated second over the 10 watches",
            totals.0,
            totals.1 as f64 / totals.0 as f64,
            totals.2 as f64 / totals.0 as f64 / 1024.0
        );
    }
}

criterion_group! {
    name = sim;
    config = common::quick_criterion();
    targets = benches
}
criterion_main!(sim);
