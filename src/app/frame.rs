//! What the last frame showed, as far as keys depend on it. `ui::draw_reported`
//! returns a [`FrameReport`]; the runtime feeds it back to `update` as
//! `Msg::Drawn` after every frame, so `update` stays pure and a key can only
//! act on what the operator saw: nothing but quit acts while the terminal is
//! too small, `y` confirms only a confirmation dialog drawn in full, `s`
//! sorts only by a column that was drawn, and an action key on the Overview
//! acts only on an attention item that was drawn.

use crate::app::model::View;

/// What the last frame drew.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameReport {
    /// Only "terminal too small" was drawn.
    pub too_small: bool,
    /// The id of the plan whose confirmation dialog was drawn in full: the
    /// Confirm button and every object of the plan visible (or summarised).
    pub confirm_in_full: Option<u64>,
    /// The table drawn: its view and the indices of the columns shown at
    /// this width, in column order.
    pub table_columns: Option<(View, Vec<usize>)>,
    /// The ids ([`crate::app::attention_cursor::item_id`]) of the attention
    /// items whose head line the Overview drew.
    pub attention_shown: Vec<String>,
}
