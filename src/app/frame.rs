//! What the last frame showed, as far as keys depend on it. `ui::draw_reported`
//! returns a [`FrameReport`]; the runtime feeds it back to `update` as
//! `Msg::Drawn` after every frame, so `update` stays pure and a key can only
//! act on what the operator saw: nothing but quit acts while the terminal is
//! too small, and `y` confirms only a confirmation dialog drawn in full.

/// What the last frame drew.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameReport {
    /// Only "terminal too small" was drawn.
    pub too_small: bool,
    /// The id of the plan whose confirmation dialog was drawn in full: the
    /// Confirm button and every object of the plan visible (or summarised).
    pub confirm_in_full: Option<u64>,
}
