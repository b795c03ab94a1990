//! What the views compute from the snapshot (joined machine rows, phase,
//! attention queue, progress): `Model::derived`, kept up to date by `update`
//! ([`crate::app::derive::settle`]).

pub use crate::app::derive::Derived;
use crate::app::model::Model;

/// The derived data of `model`, as `update` last settled it.
pub fn derived(model: &Model) -> &Derived {
    &model.derived
}
