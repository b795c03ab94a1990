//! Memory: heap held by the model with the `large` scenario loaded, and by
//! the log buffer at capacity. Measured with a counting global allocator
//! (live bytes = allocated - freed, as requested from the allocator; the
//! allocator's own overhead is not counted), with VmRSS from
//! /proc/self/status alongside for comparison.
//!
//! `cargo bench --bench memory`

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use mosk_console::app::logs::{LOG_CAPACITY, LogPane};
use mosk_console::app::model::Model;
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;

/// Counts live heap bytes and their peak; hand-written because it is a few
/// lines over `System` and only this bench binary uses it.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Resets the peak to the current live size.
fn reset_peak() {
    PEAK.store(live(), Ordering::Relaxed);
}

fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// VmRSS in bytes, if /proc says.
fn rss() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn rss_delta(before: Option<usize>, after: Option<usize>) -> String {
    match (before, after) {
        (Some(b), Some(a)) => format!("{:+.1} MiB", (a as f64 - b as f64) / (1024.0 * 1024.0)),
        _ => "n/a".into(),
    }
}

/// Heap held by a clone of `value` (a close estimate of the heap the value
/// itself holds; clones do not keep spare capacity).
fn clone_size<T: Clone>(value: &T) -> usize {
    let before = live();
    let copy = black_box(value.clone());
    let size = live() - before;
    drop(copy);
    size
}

fn main() {
    // `cargo test --benches` runs bench binaries without `--bench`: stay quick there.
    if !std::env::args().any(|a| a == "--bench") {
        println!("memory: run with `cargo bench --bench memory`");
        return;
    }

    let (l0, r0) = (live(), rss());
    reset_peak();
    let world = common::large_world_mid_update();
    println!(
        "simulated world (large, 26 simulated minutes): heap {} (peak {}), VmRSS {}",
        mib(live() - l0),
        mib(peak() - l0),
        rss_delta(r0, rss())
    );

    // The model, loaded as the console loads it: one re-list per kind
    // (JSON -> DynamicObject -> Object, then `update`), derived data fresh.
    let (l1, r1) = (live(), rss());
    reset_peak();
    let mut model = common::empty_model(world.now());
    for ev in common::resync_events(&world) {
        update(&mut model, Msg::Cluster(ev));
    }
    let model_heap = live() - l1;
    println!(
        "model with the large scenario loaded ({} objects, {} machine rows): heap {} (peak while loading {}), VmRSS {}",
        model.snapshot.objects().len(),
        model.derived.rows.len(),
        mib(model_heap),
        mib(peak() - l1),
        rss_delta(r1, rss())
    );
    println!(
        "  of which (clone sizes: a clone shares the objects, so these leave them out): snapshot {}, history {}, derived {}",
        mib(clone_size(&model.snapshot)),
        mib(clone_size(&model.history)),
        mib(clone_size(&model.derived))
    );
    // The derived rows by part: what they copy (a shared object counts
    // 0.0 here; "keep one copy of what is shown").
    let rows = &model.derived.rows;
    let part = |f: &dyn Fn(&mosk_console::domain::join::MachineRow) -> usize| -> usize {
        rows.iter().map(f).sum()
    };
    println!(
        "  derived rows {} ({} machine rows): machines {}, nodes {}, locks {}, cluster states {}, vRouter pods {}; tables {}",
        mib(clone_size(rows)),
        rows.len(),
        mib(part(&|r| clone_size(&r.machine))),
        mib(part(&|r| clone_size(&r.node))),
        mib(part(&|r| clone_size(&r.locks))),
        mib(part(&|r| clone_size(&r.cluster_states))),
        mib(part(&|r| clone_size(&r.vrouter))),
        mib(clone_size(&model.derived.tables)),
    );
    println!(
        "  inline sizes: Object {} B, ObjectKey {} B, MachineRow {} B, LockRow {} B (a BTreeMap keeps keys and values inline)",
        std::mem::size_of::<mosk_console::domain::objects::Object>(),
        std::mem::size_of::<mosk_console::domain::objects::ObjectKey>(),
        std::mem::size_of::<mosk_console::domain::join::MachineRow>(),
        std::mem::size_of::<mosk_console::domain::join::LockRow>(),
    );
    println!(
        "  a whole Model clone (what a test or bench copy costs): {}",
        mib(clone_size::<Model>(&model))
    );

    // The log buffer at capacity, filled with the simulator's lcm-controller
    // lines (parsed into LogLine: raw text, message, fields).
    let lines = common::log_lines(&world, LOG_CAPACITY);
    let raw_bytes: usize = lines.iter().map(String::len).sum();
    let (l2, r2) = (live(), rss());
    let mut pane = LogPane::default();
    pane.push("lcm-controller-5d8f7c9b6-x2k4q", &lines);
    let pane_heap = live() - l2;
    println!(
        "log buffer at capacity ({} lines, {} of raw text): heap {} ({} bytes a line), VmRSS {}",
        pane.lines.len(),
        mib(raw_bytes),
        mib(pane_heap),
        pane_heap / pane.lines.len().max(1),
        rss_delta(r2, rss())
    );
    // Past capacity the buffer stays bounded: another 20,000 lines in
    // batches of 100 (as the log follower delivers them), then in one batch
    // (the deque holds 40,000 lines for a moment and keeps that capacity).
    let l3 = live();
    for batch in lines.chunks(100) {
        pane.push("lcm-controller-5d8f7c9b6-x2k4q", batch);
    }
    println!(
        "log buffer after another {} lines in batches of 100: heap change {:+.1} MiB, {} lines dropped",
        lines.len(),
        (live() as f64 - l3 as f64) / (1024.0 * 1024.0),
        pane.dropped
    );
    let l4 = live();
    pane.push("lcm-controller-5d8f7c9b6-x2k4q", &lines);
    println!(
        "log buffer after another {} lines in one batch: heap change {:+.1} MiB",
        lines.len(),
        (live() as f64 - l4 as f64) / (1024.0 * 1024.0),
    );
    black_box((&world, &model, &pane));
}
