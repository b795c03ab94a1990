//! The runtime: receives messages, runs `update`, executes the commands it
//! returns, and redraws after each batch and each 1 s tick (ages and clocks
//! move), at most ~30 frames a second. When nothing happens it sleeps.
//!
//! The operator's keys and the actions' reports are applied as they come.
//! The clusters' events are too until every list is in (the first full
//! screen); from then on they are read once a tick, with the tick, so that
//! however fast the clusters change, the console settles what it derives
//! and draws at most once a second for them: a change reaches the screen
//! within a second. While they wait, the cluster channel merges them (an
//! object changed ten times is read once). A read that fills a batch (a
//! re-list) is followed by the next at once, until the channel is empty.

use std::time::Duration;

use jiff::Timestamp;
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::time::{Instant, MissedTickBehavior};

use crate::app::model::Model;
use crate::app::msg::{Command, Msg};
use crate::app::update::{update, update_batch};
use crate::config::theme::Theme;
use crate::console::inbox::Inbox;

/// The shortest time between two frames (~30 frames a second).
pub const FRAME_BUDGET: Duration = Duration::from_millis(33);
/// The slow tick that moves clocks and ages on screen.
pub const TICK: Duration = Duration::from_secs(1);
/// At most this many queued messages are applied before a frame may be
/// drawn: as many as the cluster channel holds before its watches wait, so
/// that a burst (hundreds of machines changing at once, a re-list) is one
/// batch and one settling of what is derived, not one per few hundred
/// events (each re-joining every machine: ~5 ms at 2,000).
const BATCH: usize = crate::cluster::channel::CAPACITY;

/// Where the runtime sends commands that have effects outside the model.
pub trait Effects {
    fn run(&mut self, command: Command);
}

/// Effects that do nothing (for tests of the loop itself).
pub struct NoEffects;

impl Effects for NoEffects {
    fn run(&mut self, _command: Command) {}
}

/// Runs the console until the model asks to quit or the message channel
/// closes. `now` is the clock (the real one, or a test's).
pub async fn run<B: Backend>(
    terminal: &mut Terminal<B>,
    model: &mut Model,
    theme: &Theme,
    rx: &mut impl Inbox,
    effects: &mut dyn Effects,
    now: impl Fn() -> Timestamp,
) -> std::io::Result<RunStats>
where
    B::Error: Into<std::io::Error>,
{
    let mut stats = RunStats::default();
    // The operator's time (monotonic; tokio's clock, so paused in tests):
    // sent with every batch and tick, apart from the cluster clock `now`.
    let started = Instant::now();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut dirty = true;
    let mut last_draw: Option<Instant> = None;
    // Cluster events wait for the tick (every list is in and the last read
    // emptied the channel).
    let mut paced = false;
    // The first frame drawn with every list in was logged (for measuring
    // the start: `benches/side_by_side.sh` prints it).
    let mut full_logged = false;
    loop {
        if dirty
            && !crate::terminal::gone()
            && last_draw.is_none_or(|t| t.elapsed() >= FRAME_BUDGET)
        {
            let mut report = Default::default();
            let drawn = terminal
                .draw(|f| report = crate::ui::draw_reported(f, model, theme))
                .map(|_| ())
                .map_err(Into::into);
            if let Err(e) = drawn {
                if !crate::terminal::is_gone_error(&e) {
                    return Err(e);
                }
                // An SSH drop: quit as a hang-up does (the write in flight
                // is waited for after the loop), drawing nothing more.
                crate::terminal::mark_gone(&format!("drawing: {e}"));
                apply(
                    model,
                    started.elapsed(),
                    vec![hang_up()],
                    effects,
                    &mut stats,
                );
                break;
            }
            // What was on screen, for the keys that come next (not a change to redraw).
            update(model, Msg::Drawn(report));
            stats.frames += 1;
            if !full_logged && loaded(model) {
                full_logged = true;
                tracing::info!(after = ?started.elapsed(), frames = stats.frames, "first full screen drawn");
            }
            dirty = false;
            last_draw = Some(Instant::now());
        }
        let next_frame = last_draw
            .map(|t| t + FRAME_BUDGET)
            .unwrap_or_else(Instant::now);
        let cluster = !paced;
        tokio::select! {
            msg = rx.recv(cluster) => {
                let Some(msg) = msg else { break };
                // Coalesce a burst (a re-list, a flood of log lines) into one
                // batch: `update` settles what is derived once, and one frame.
                let mut batch = vec![msg];
                let full = fill(rx, &mut batch, cluster);
                apply(model, started.elapsed(), batch, effects, &mut stats);
                paced = !full && loaded(model);
                dirty = true;
            }
            _ = tick.tick() => {
                let mut batch = Vec::new();
                let full = fill(rx, &mut batch, true);
                batch.push(Msg::Tick(now()));
                apply(model, started.elapsed(), batch, effects, &mut stats);
                paced = !full && loaded(model);
                dirty = true;
            }
            _ = tokio::time::sleep_until(next_frame), if dirty => {}
        }
        if model.quit {
            break;
        }
    }
    Ok(stats)
}

/// Adds waiting messages to `batch` (cluster events only when `cluster`)
/// until none waits or it holds [`BATCH`]; whether it is full (more may wait).
fn fill(rx: &mut impl Inbox, batch: &mut Vec<Msg>, cluster: bool) -> bool {
    while batch.len() < BATCH {
        match rx.try_recv(cluster) {
            Ok(msg) => batch.push(msg),
            Err(_) => return false,
        }
    }
    true
}

/// Every watch has listed once: the first full screen is drawn, and the
/// clusters' events can wait for the tick.
fn loaded(model: &Model) -> bool {
    crate::app::freshness::loading(model).is_none()
}

/// What a hang-up sends: Ctrl-C, which quits without asking.
fn hang_up() -> Msg {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))
}

/// Applies `batch` after the operator's time `real` (not counted as a message).
fn apply(
    model: &mut Model,
    real: Duration,
    batch: Vec<Msg>,
    effects: &mut dyn Effects,
    stats: &mut RunStats,
) {
    stats.messages += batch.len() as u64;
    stats.batches += 1;
    let batch = std::iter::once(Msg::RealTime(real)).chain(batch);
    for command in update_batch(model, batch) {
        effects.run(command);
    }
}

/// Counters for benchmarks and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunStats {
    pub messages: u64,
    /// Batches applied: each settles what is derived once.
    pub batches: u64,
    pub frames: u64,
}

#[cfg(test)]
mod tests;
