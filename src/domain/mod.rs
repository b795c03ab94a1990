//! Pure MOSK logic: the objects, the machine row joined across both clusters,
//! the update phase, the attention queue, progress and ETA. Knows nothing of
//! kube-rs or ratatui.
//!
//! How the console uses it: keep a [`objects::Snapshot`] and a
//! [`history::History`]; feed every watch event through
//! [`history::History::apply`] / [`remove`](history::History::remove) /
//! [`relist`](history::History::relist) (they update the Snapshot and return
//! the [`changes::Change`]s for the Events view); then derive, when drawing:
//! [`join::machine_rows`], [`phase::phase`], [`progress::progress`],
//! [`attention::queue`] (the attention items and the update guide's
//! [`reminders`] not dismissed), [`vrouter::daemonsets`] and
//! [`vrouter::restart_order`]. `fixtures` (`tests/support/fixtures/`, compiled
//! for tests only) builds realistic Snapshots for tests.

pub mod action;
pub mod attention;
pub mod blocking;
pub mod changes;
pub mod drainmsg;
pub mod expected;
#[cfg(test)]
#[path = "../../tests/support/fixtures/mod.rs"]
pub mod fixtures;
pub mod history;
pub mod join;
pub mod lockmsg;
pub mod migration;
pub mod next_step;
pub mod objects;
pub mod phase;
pub mod progress;
pub mod readiness;
pub mod reminders;
pub mod servers;
pub mod session_log;
pub mod update_groups;
pub mod update_plan;
pub mod vrouter;
pub mod which_cluster;
pub mod wrapup;
