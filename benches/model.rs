//! Model update throughput at 2,000 machines (the `large` scenario, 26
//! simulated minutes in): converting a re-list, applying it, applying single
//! watch events, and the per-frame `Model::refresh_derived` with its parts.
//!
//! `cargo bench --bench model -- --warm-up-time 1 --measurement-time 3`

mod common;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jiff::SignedDuration;

use mosk_console::app::derive::Derived;
use mosk_console::app::logs::{LOG_CAPACITY, LogPane};
use mosk_console::app::model::View;
use mosk_console::app::msg::Msg;
use mosk_console::app::tables;
use mosk_console::app::update::{update, update_batch};
use mosk_console::cluster::convert::convert;
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::domain::attention::attention;
use mosk_console::domain::join::{self, machine_rows};
use mosk_console::domain::objects::{Kind, Object};
use mosk_console::domain::phase::phase;
use mosk_console::domain::progress::progress;
use mosk_console::domain::vrouter;

/// Simulated time recorded after loading, for the single-event benchmarks.
const RECORD: SignedDuration = SignedDuration::from_secs(600);

fn benches(c: &mut Criterion) {
    let world = common::large_world_mid_update();
    let lists: Vec<(Kind, Vec<serde_json::Value>)> = Kind::ALL
        .into_iter()
        .map(|k| (k, common::list_json(&world, k)))
        .collect();
    let objects: u64 = lists.iter().map(|(_, v)| v.len() as u64).sum();
    let resync = common::resync_events(&world);
    let base = common::loaded_model(&world);
    eprintln!(
        "model: {} objects listed, {} machine rows, {} attention items",
        objects,
        base.derived.rows.len(),
        base.derived.attention.len()
    );

    let mut g = c.benchmark_group("relist");
    g.sample_size(10);
    g.throughput(Throughput::Elements(objects));
    g.bench_function("convert_all_kinds", |b| {
        b.iter_batched(
            || lists.clone(),
            |lists| {
                for (kind, values) in lists {
                    for o in common::to_dynamic(&world, kind, values) {
                        black_box(convert(kind, &o));
                    }
                }
            },
            BatchSize::PerIteration,
        )
    });
    // The batch `update` settles once, as the runtime applies a burst.
    g.bench_function("apply_resynced_and_refresh", |b| {
        b.iter_batched(
            || (common::empty_model(world.now()), resync.clone()),
            |(mut model, events)| {
                update_batch(&mut model, events.into_iter().map(Msg::Cluster));
                model
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    // The events of the next ten simulated minutes, applied one at a time
    // to the loaded model, each followed by a refresh (the worst case: one
    // frame per event; the runtime coalesces bursts into one frame).
    let recorded = common::record_events(&world, RECORD);
    eprintln!(
        "model: {} watch events in {}s of simulated update ({} applied, {} deleted)",
        recorded.len(),
        RECORD.as_secs(),
        recorded
            .iter()
            .filter(|(_, e)| matches!(e, ClusterEvent::Applied(_)))
            .count(),
        recorded
            .iter()
            .filter(|(_, e)| matches!(e, ClusterEvent::Deleted(_)))
            .count(),
    );
    let mut g = c.benchmark_group("event");
    g.bench_function("applied_only", |b| {
        b.iter_custom(|iters| replay(&base, &recorded, iters, false))
    });
    g.sample_size(10);
    g.bench_function("applied_and_refresh", |b| {
        b.iter_custom(|iters| replay(&base, &recorded, iters, true))
    });
    g.finish();

    // Each of these takes ~1 s at 2,000 machines: ten samples are enough.
    let mut g = c.benchmark_group("derived");
    g.sample_size(10);
    let mut model = base.clone();
    // Everything at once: what a re-list of the machines costs.
    g.bench_function("refresh_derived", |b| {
        b.iter(|| Derived::compute(black_box(&model.snapshot), &model.history, model.now))
    });
    // A tick: only the timed part (no join).
    g.bench_function("tick_and_refresh", |b| {
        let mut now = model.now;
        b.iter(|| {
            now += SignedDuration::from_secs(1);
            update(&mut model, Msg::Tick(now));
        })
    });
    // One LCMMachine changed: its row re-joined, the phase and the timed part.
    let one = model
        .snapshot
        .machines()
        .nth(1000)
        .cloned()
        .expect("a machine");
    g.bench_function("one_machine_changed", |b| {
        let mut flip = false;
        b.iter(|| {
            flip = !flip;
            let mut m = one.clone();
            m.agent_version = Some(if flip { "a" } else { "b" }.into());
            update(
                &mut model,
                Msg::Cluster(ClusterEvent::Applied(Object::Machine(Arc::new(m)))),
            );
        })
    });
    let (snap, history, now) = (&base.snapshot, &base.history, base.now);
    g.bench_function("machine_rows", |b| b.iter(|| machine_rows(black_box(snap))));
    g.bench_function("phase", |b| b.iter(|| phase(black_box(snap), history)));
    g.bench_function("attention", |b| {
        b.iter(|| attention(black_box(snap), history, now))
    });
    // From the joined rows, as `settle` computes it each second.
    let rows = machine_rows(snap);
    g.bench_function("progress", |b| {
        b.iter(|| progress(black_box(snap), history, &rows, now, &[]))
    });
    g.finish();

    // Why the join is slow: `Snapshot::of_kind` walks every object of every
    // kind, and the join and attention call it per machine.
    let mut g = c.benchmark_group("snapshot");
    g.throughput(Throughput::Elements(snap.objects().len() as u64));
    g.bench_function("nodes_scan", |b| b.iter(|| black_box(snap).nodes().count()));
    g.finish();

    // The parts of joining one machine (the last compute in update order),
    // each a walk over the snapshot as `domain::join::machine_row` does it.
    let mut g = c.benchmark_group("join_one_machine");
    let machine = base
        .derived
        .rows
        .last()
        .map(|r| r.machine.clone())
        .expect("machines loaded");
    let host = machine.hostname.clone().unwrap_or_default();
    g.bench_function("machine_row", |b| {
        b.iter(|| join::machine_row(black_box(snap), &machine))
    });
    g.bench_function("node_find", |b| {
        b.iter(|| {
            snap.nodes()
                .find(|n| join::same_node(&n.name, black_box(&host)))
        })
    });
    g.bench_function("node_requests", |b| {
        b.iter(|| {
            snap.node_requests()
                .filter(|r| join::same_node(&r.node_name, black_box(&host)))
                .count()
        })
    });
    g.bench_function("node_locks", |b| {
        b.iter(|| {
            snap.node_locks()
                .filter(|l| {
                    l.node_name
                        .as_deref()
                        .is_some_and(|n| join::same_node(n, black_box(&host)))
                })
                .count()
        })
    });
    g.bench_function("cluster_states", |b| {
        b.iter(|| {
            snap.cluster_states()
                .filter(|s| s.arg.as_deref() == Some(black_box(machine.name.as_str())))
                .count()
        })
    });
    g.bench_function("vrouter_pods_with_status", |b| {
        b.iter(|| {
            snap.vrouter_pods()
                .filter(|p| {
                    p.node_name
                        .as_deref()
                        .is_some_and(|n| join::same_node(n, black_box(&host)))
                })
                .map(|p| vrouter::pod_status(snap, p))
                .collect::<Vec<_>>()
        })
    });
    g.finish();

    // How the per-frame cost grows with the number of machines.
    let mut g = c.benchmark_group("scaling_refresh_derived");
    g.sample_size(10);
    for n in [250u32, 500, 1000] {
        let world = common::scaled_world_mid_update(n);
        let model = common::loaded_model(&world);
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| Derived::compute(black_box(&model.snapshot), &model.history, model.now))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("keys");
    let mut machines = base.clone();
    machines.view = View::Machines;
    let down = Msg::Key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE));
    let up = Msg::Key(KeyEvent::new(KeyCode::Char('k'), KeyModifiers::NONE));
    g.bench_function("machines_down_up", |b| {
        b.iter(|| {
            update(&mut machines, down.clone());
            update(&mut machines, up.clone());
        })
    });
    // A key that arrives in the same batch as a watch event: the batch is
    // applied, then settled once.
    g.sample_size(10);
    let event = Msg::Cluster(ClusterEvent::Applied(Object::Machine(Arc::new(
        one.clone(),
    ))));
    g.bench_function("machines_down_with_stale_derived", |b| {
        b.iter(|| update_batch(&mut machines, [event.clone(), down.clone()]))
    });
    g.bench_function("machines_table_build", |b| {
        b.iter(|| tables::table(black_box(&machines), View::Machines))
    });
    g.finish();

    let mut g = c.benchmark_group("logs");
    let lines = common::log_lines(&world, LOG_CAPACITY);
    let mut pane = LogPane::default();
    pane.push("lcm-controller", &lines);
    let batch: Vec<String> = lines[..100].to_vec();
    g.throughput(Throughput::Elements(batch.len() as u64));
    g.bench_function("push_100_into_full_buffer", |b| {
        b.iter(|| pane.push("lcm-controller", black_box(&batch)))
    });
    g.finish();
}

/// Applies one event without settling: `update_batch` with the event now and
/// the settle deferred is not expressible, so this applies it to the
/// snapshot and history the way `update` does.
fn apply_only(model: &mut mosk_console::app::model::Model, ev: ClusterEvent) {
    let now = model.now;
    match ev {
        ClusterEvent::Applied(o) => {
            model.history.apply(&mut model.snapshot, o, now);
        }
        ClusterEvent::Deleted(k) => {
            model.history.remove(&mut model.snapshot, &k, now);
        }
        _ => {}
    }
}

/// Applies `iters` recorded events to clones of `base` (restarting from a
/// fresh clone when the recording runs out) and returns the time spent in
/// `update` (settling after each event when `refresh`, else only at the end
/// of the recording), not in cloning.
fn replay(
    base: &mosk_console::app::model::Model,
    recorded: &common::Recorded,
    iters: u64,
    refresh: bool,
) -> Duration {
    let mut total = Duration::ZERO;
    let mut model = base.clone();
    let mut next = 0;
    for _ in 0..iters {
        if next == recorded.len() {
            model = base.clone();
            next = 0;
        }
        let (at, ev) = recorded[next].clone();
        next += 1;
        let start = Instant::now();
        model.now = at;
        if refresh {
            update(&mut model, Msg::Cluster(ev));
        } else {
            apply_only(&mut model, ev);
        }
        total += start.elapsed();
    }
    total
}

criterion_group! {
    name = model;
    config = common::quick_criterion();
    targets = benches
}
criterion_main!(model);
