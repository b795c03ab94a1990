//! What the views compute from the snapshot: joined machine rows, phase,
//! attention queue, progress, and the history they are learned from.
//!
//! Until the model keeps this (`Model::derived`, recomputed by `update` when
//! the snapshot changes, with the `History` fed by every watch event),
//! [`derived`] computes it on each call from `model.snapshot`, with a history
//! that has seen every object once, at `model.started`: ages then count from
//! the console's start, and no change is known. When the model has it,
//! `derived` returns `&model.derived` and nothing else changes.

use crate::app::model::Model;
use crate::domain::attention::{AttentionItem, attention};
use crate::domain::history::History;
use crate::domain::join::{MachineRow, machine_rows};
use crate::domain::objects::Snapshot;
use crate::domain::phase::{PhaseInfo, phase};
use crate::domain::progress::{Progress, progress};

/// The derived data the UI draws from.
#[derive(Debug, Clone)]
pub struct Derived {
    /// Every machine joined across both clusters, masters first.
    pub rows: Vec<MachineRow>,
    pub phase: PhaseInfo,
    /// Everything waiting for a human, oldest first.
    pub attention: Vec<AttentionItem>,
    pub progress: Progress,
    /// What the console has seen happen (Events view, "since" ages, ETA).
    pub history: History,
}

impl Derived {
    /// Computes everything from a snapshot and its history at `model.now`.
    pub fn compute(snap: &Snapshot, history: History, model: &Model) -> Derived {
        Derived {
            rows: machine_rows(snap),
            phase: phase(snap, &history),
            attention: attention(snap, &history, model.now),
            progress: progress(snap, &history, model.now),
            history,
        }
    }
}

/// The derived data of `model`.
pub fn derived(model: &Model) -> Derived {
    let mut history = History::new();
    let mut seen = Snapshot::default();
    for o in model.snapshot.objects.values() {
        history.apply(&mut seen, o.clone(), model.started);
    }
    Derived::compute(&model.snapshot, history, model)
}
