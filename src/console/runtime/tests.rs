//! How the runtime reads the clusters' events: at once until every list
//! is in, then once a tick (and at once again while a read fills a batch);
//! the operator's keys always at once.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport, backend::CrosstermBackend};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::*;
use crate::app::model::SessionInfo;
use crate::cluster::channel::{EventSender, channel};
use crate::cluster::events::ClusterEvent;
use crate::config::keymap::Keymap;
use crate::console::inbox::ConsoleInbox;
use crate::domain::fixtures::{self, mid_update_now};
use crate::domain::objects::{Kind, Node, Object};

/// The mid-update cluster's objects, one `Resynced` per kind: `listed` of
/// the kinds (every kind when `None`).
fn lists(listed: Option<usize>) -> Vec<ClusterEvent> {
    let snap = fixtures::mid_update();
    Kind::ALL
        .iter()
        .take(listed.unwrap_or(Kind::ALL.len()))
        .map(|&kind| ClusterEvent::Resynced {
            kind,
            objects: snap.of_kind(kind).cloned().collect(),
        })
        .collect()
}

/// A node of the fixture named `name`, with `labels` set to `i`.
fn node(name: &str, i: usize) -> ClusterEvent {
    let snap = fixtures::mid_update();
    let mut n: Node = snap.nodes().next().expect("a node").clone();
    n.name = name.to_string();
    n.labels.insert("test/version".into(), i.to_string());
    ClusterEvent::Applied(Object::Node(Arc::new(n)))
}

fn ctrl_c() -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))
}

/// Runs the runtime on a fresh model while `drive` sends on the cluster
/// channel and the console's own; the stats, the model and how long the
/// run took on tokio's (paused) clock.
async fn run_with<F, Fut>(drive: F) -> (RunStats, Model, Duration)
where
    F: FnOnce(EventSender, UnboundedSender<Msg>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut model = Model::new(
        SessionInfo::default(),
        Keymap::default_keymap(),
        mid_update_now(),
    );
    let (tx, msgs) = unbounded_channel();
    let (ctx, cluster) = channel();
    let mut inbox = ConsoleInbox { msgs, cluster };
    let mut terminal = Terminal::with_options(
        CrosstermBackend::new(Vec::<u8>::new()),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, 100, 30)),
        },
    )
    .unwrap();
    let theme = Theme::default_theme();
    let mut effects = NoEffects;
    let start = Instant::now();
    let run = run(
        &mut terminal,
        &mut model,
        &theme,
        &mut inbox,
        &mut effects,
        mid_update_now,
    );
    let (stats, ()) = tokio::join!(run, drive(ctx, tx));
    (stats.unwrap(), model, start.elapsed())
}

fn version(model: &Model, name: &str) -> Option<String> {
    model
        .snapshot
        .nodes()
        .find(|n| n.name == name)
        .and_then(|n| n.labels.get("test/version").cloned())
}

#[tokio::test(start_paused = true)]
async fn once_every_list_is_in_a_seconds_changes_are_one_batch() {
    let (stats, model, _) = run_with(|ctx, tx| async move {
        for ev in lists(None) {
            ctx.send(ev).unwrap();
        }
        // 50 changes to one node, 100 ms apart.
        for i in 0..50 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            ctx.send(node("paced", i)).unwrap();
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        tx.send(ctrl_c()).unwrap();
    })
    .await;
    // The lists; one a tick over ~6.5 s (each with the changes of its
    // second); the key. Read as they came, the changes would be 50 batches.
    assert!(
        stats.batches <= 10,
        "{} batches for 50 changes over 5 s",
        stats.batches
    );
    assert_eq!(
        version(&model, "paced").as_deref(),
        Some("49"),
        "the last change"
    );
}

#[tokio::test(start_paused = true)]
async fn until_every_list_is_in_events_are_read_as_they_come() {
    let (stats, model, _) = run_with(|ctx, tx| async move {
        // One kind is not listed yet: the first full screen is not drawn.
        for ev in lists(Some(Kind::ALL.len() - 1)) {
            ctx.send(ev).unwrap();
        }
        for i in 0..20 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            ctx.send(node("loading", i)).unwrap();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        tx.send(ctrl_c()).unwrap();
    })
    .await;
    assert!(
        stats.batches >= 20,
        "{} batches: the events waited for ticks while loading",
        stats.batches
    );
    assert_eq!(version(&model, "loading").as_deref(), Some("19"));
}

#[tokio::test(start_paused = true)]
async fn a_key_does_not_wait_for_the_tick_and_brings_no_cluster_event() {
    let (_, model, took) = run_with(|ctx, tx| async move {
        for ev in lists(None) {
            ctx.send(ev).unwrap();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        ctx.send(node("waiting", 1)).unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        tx.send(ctrl_c()).unwrap();
    })
    .await;
    // Quit at 0.3 s, before the tick at 1 s that would have read the change.
    assert!(took < TICK, "the key waited: the run took {took:?}");
    assert_eq!(version(&model, "waiting"), None);
}

#[tokio::test(start_paused = true)]
async fn a_relist_larger_than_a_batch_is_read_at_once_after_its_first_batch() {
    // More than a batch: the first read fills it.
    const NODES: usize = BATCH + 1000;
    let (stats, model, _) = run_with(|ctx, tx| async move {
        for ev in lists(None) {
            ctx.send(ev).unwrap();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        for i in 0..NODES {
            ctx.send(node(&format!("relisted-{i}"), 0)).unwrap();
        }
        // After the first tick, before the second.
        tokio::time::sleep(Duration::from_millis(1100)).await;
        tx.send(ctrl_c()).unwrap();
    })
    .await;
    let read = model
        .snapshot
        .nodes()
        .filter(|n| n.name.starts_with("relisted-"))
        .count();
    assert_eq!(read, NODES, "{stats:?}");
}
