//! The details pane beside a table (the Machines view's machine, the
//! Update plan view's step): the table keeps j/k, the pane scrolls with its
//! own keys (`J`/`K` by default), half a pane at a time, never past its
//! last line (the last frame reports how far it can go:
//! `FrameReport::details_pane`). It shows one row's details: another row
//! starts at its top.

use crate::app::views::{Hint, Outcome, ViewCtx};
use crate::config::keymap::KeyAction;

/// How far down the details pane is scrolled, and for which row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DetailsScroll {
    /// The id of the row the pane was scrolled on.
    of: Option<String>,
    /// The first line shown.
    top: u16,
}

impl DetailsScroll {
    /// The first line to show for the row `id`: its own scroll, the top
    /// for another row.
    pub fn top_for(&self, id: Option<&str>) -> u16 {
        if id.is_some() && self.of.as_deref() == id {
            self.top
        } else {
            0
        }
    }

    /// Back to the top (the pane is opened again).
    pub fn reset(&mut self) {
        *self = DetailsScroll::default();
    }

    /// `J`/`K` on the pane showing row `id`; `None` for any other key.
    pub fn on_key(
        &mut self,
        action: KeyAction,
        id: Option<&str>,
        ctx: &ViewCtx,
    ) -> Option<Outcome> {
        if !matches!(action, KeyAction::DetailsDown | KeyAction::DetailsUp) {
            return None;
        }
        let Some(pane) = ctx.frame.details_pane else {
            // No pane was drawn: nothing to scroll.
            return Outcome::done();
        };
        let top = self.top_for(id).min(pane.most);
        let step = (pane.shown / 2).max(1);
        self.top = match action {
            KeyAction::DetailsDown => top.saturating_add(step).min(pane.most),
            _ => top.saturating_sub(step),
        };
        self.of = id.map(str::to_string);
        Outcome::done()
    }

    /// The keys that move the pane from where it is on row `id`: down
    /// while there is more below, up once it has left the top.
    pub fn hints(&self, id: Option<&str>, ctx: &ViewCtx) -> Vec<Hint> {
        let Some(pane) = ctx.frame.details_pane else {
            return Vec::new();
        };
        let top = self.top_for(id).min(pane.most);
        let mut out = Vec::new();
        if top < pane.most {
            out.push(Hint::key(KeyAction::DetailsDown, "more details"));
        }
        if top > 0 {
            out.push(Hint::key(KeyAction::DetailsUp, "details up"));
        }
        out
    }
}
