//! What the last frame showed, as far as keys depend on it. `ui::draw_reported`
//! returns a [`FrameReport`]; the runtime feeds it back to `update` as
//! `Msg::Drawn` after every frame (`update::on_drawn` takes it in), so `update` stays pure and a key can only
//! act on what the operator saw: nothing but quit acts while the terminal is
//! too small, `y` confirms only a confirmation dialog drawn in full, `s`
//! sorts only by a column that was drawn, and an action key on the Overview
//! acts only on an attention item that was drawn.

use crate::app::views::view::View;

/// What the last frame drew.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameReport {
    /// Only "terminal too small" was drawn.
    pub too_small: bool,
    /// The id of the plan whose confirmation dialog was drawn in full: the
    /// Confirm button and every object of the plan visible (or summarised).
    /// `update` sets it from [`FrameReport::confirm_view`]: a body taller
    /// than the screen counts as read once every line of it was on screen,
    /// scrolled through from the top.
    pub confirm_in_full: Option<u64>,
    /// What the confirmation dialog's body showed this frame.
    pub confirm_view: Option<ConfirmView>,
    /// The table drawn: its view and the indices of the columns shown at
    /// this width, in column order.
    pub table_columns: Option<(View, Vec<usize>)>,
    /// The ids ([`crate::domain::attention::AttentionItem::id`]) of the attention
    /// items whose head line the Overview drew.
    pub attention_shown: Vec<String>,
    /// The last line a details modal can scroll to at this size (its
    /// wrapped lines less the lines it shows), when one was drawn.
    pub detail_scroll_max: Option<u16>,
    /// The details pane beside a table (Machines, Update plan), when one
    /// was drawn: how far it can scroll at this size.
    pub details_pane: Option<PaneScroll>,
    /// The last line the Readiness view can scroll to at this size, when
    /// it was drawn.
    pub ready_scroll_max: Option<u16>,
}

/// How far a details pane can scroll at the size it was drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PaneScroll {
    /// The last first line: its wrapped lines less the lines it shows.
    pub most: u16,
    /// How many lines it shows.
    pub shown: u16,
}

/// The part of a confirmation dialog's body one frame showed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConfirmView {
    /// The action plan's id.
    pub plan: u64,
    /// The first body line shown.
    pub scroll: u16,
    /// How many body lines were shown.
    pub shown: u16,
    /// How many lines the whole body has (wrapped).
    pub total: u16,
    /// The Confirm button was drawn whole.
    pub buttons: bool,
}
