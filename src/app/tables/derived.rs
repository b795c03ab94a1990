//! What the views compute from the snapshot (joined machine rows, …).
//!
//! Computed here from `model.snapshot` on every call until the model keeps it
//! (`Model::derived`, recomputed by `update` when the snapshot changes); then
//! [`derived`] returns that instead and nothing else changes.

use crate::app::model::Model;
use crate::domain::join::{MachineRow, machine_rows};

/// The derived data the UI draws from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Derived {
    /// Every machine joined across both clusters, masters first.
    pub rows: Vec<MachineRow>,
}

/// The derived data of `model`.
pub fn derived(model: &Model) -> Derived {
    Derived {
        rows: machine_rows(&model.snapshot),
    }
}
