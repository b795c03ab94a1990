//! What the views compute from the snapshot (joined machine rows, phase,
//! attention queue, progress): `Model::derived`, which the runtime refreshes
//! before each frame.

use std::borrow::Cow;

pub use crate::app::model::Derived;
use crate::app::model::Model;

/// The derived data of `model`: `model.derived` when it is up to date;
/// otherwise (a caller that did not call `Model::refresh_derived`) computed
/// here the same way, so a frame never shows stale rows.
pub fn derived(model: &Model) -> Cow<'_, Derived> {
    if model.derived_fresh() {
        return Cow::Borrowed(&model.derived);
    }
    Cow::Owned(Derived::of(model))
}
