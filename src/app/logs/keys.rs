//! What the Logs view's search keys do to the model: the jump and the
//! notice that says where it went (no match, wrapped at an end).

use super::SearchJump;
use crate::app::model::{Model, NoticeLevel};

/// Enter in the log search input: searches for `text` (empty: no search).
pub(crate) fn search(model: &mut Model, text: &str) {
    if text.trim().is_empty() {
        model.logs.set_search(None);
        return;
    }
    let jump = model.logs.search_for(text);
    tell(model, jump);
}

/// `n` (`older`) or `N`: the next match up or down.
pub(crate) fn step(model: &mut Model, older: bool) {
    let jump = model.logs.step_match(older);
    tell(model, jump);
}

fn tell(model: &mut Model, jump: SearchJump) {
    match jump {
        SearchJump::Moved => {}
        SearchJump::NoMatch => model.notify(
            NoticeLevel::Warning,
            if model.logs.search.is_some() {
                "no log line matches the search"
            } else {
                "no log search yet"
            },
        ),
        SearchJump::Wrapped { to_newest } => model.notify(
            NoticeLevel::Info,
            if to_newest {
                "search wrapped: past the oldest match, back to the newest"
            } else {
                "search wrapped: past the newest match, back to the oldest"
            },
        ),
    }
}
