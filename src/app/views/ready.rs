//! The Readiness view: the checks to read before an update starts
//! (`domain::readiness`), one per line with its verdict, then the evidence
//! and the source of each. The text is longer than a screen on a large
//! cluster: `j`/`k` scroll it.

use crate::app::views::{Hint, Outcome, ViewCtx};
use crate::config::keymap::KeyAction;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    /// The first line shown.
    pub scroll: usize,
}

/// The last line to scroll to: as the last frame drew the view (wrapped
/// at its width), else one per check, evidence and source.
fn last(ctx: &ViewCtx) -> usize {
    match ctx.frame.ready_scroll_max {
        Some(most) => most as usize,
        None => ctx.derived.readiness.as_ref().map_or(0, |r| {
            r.checks
                .iter()
                .map(|c| 2 + c.evidence.len())
                .sum::<usize>()
                .saturating_sub(1)
        }),
    }
}

pub fn on_key(state: &mut State, action: KeyAction, ctx: &ViewCtx) -> Option<Outcome> {
    let last = last(ctx);
    let page = ctx.page_rows.max(1);
    let to = match action {
        KeyAction::Down => state.scroll + 1,
        KeyAction::Up => state.scroll.saturating_sub(1),
        KeyAction::PageDown => state.scroll + page,
        KeyAction::PageUp => state.scroll.saturating_sub(page),
        KeyAction::Top => 0,
        KeyAction::Bottom => last,
        _ => return None,
    };
    state.scroll = to.min(last);
    Outcome::done()
}

pub fn hints(_state: &State, ctx: &ViewCtx) -> Vec<Hint> {
    let mut out = Vec::new();
    // Scrolling needs more text than the screen shows.
    if last(ctx) > 0 {
        out.push(Hint::key(KeyAction::Down, "scroll"));
    }
    out.extend([
        Hint::key(KeyAction::ViewOverview, "overview"),
        Hint::key(KeyAction::Command, "view"),
    ]);
    out
}
