//! The Logs view: the lcm-controller log, followed or paused, filtered by
//! level and subject, searched. Its state is the log pane
//! (`crate::app::logs::LogPane`), which the Overview also shows; the log
//! keys (`f`, `w`, `L`, `n`, `N`) act on it from every view.

use crate::app::logs::{LogPane, SearchJump};
use crate::app::modal::Modal;
use crate::app::notices::NoticeLevel;
use crate::app::views::{Hint, Outcome, ViewCtx};
use crate::config::keymap::KeyAction;

/// What a search jump says in the footer, if anything.
fn told(pane: &LogPane, jump: SearchJump) -> Option<Outcome> {
    match jump {
        SearchJump::Moved => Outcome::done(),
        SearchJump::NoMatch => Outcome::notice(
            NoticeLevel::Warning,
            if pane.search.is_some() {
                "no log line matches the search"
            } else {
                "no log search yet"
            },
        ),
        SearchJump::Wrapped { to_newest } => Outcome::notice(
            NoticeLevel::Info,
            if to_newest {
                "search wrapped: past the oldest match, back to the newest"
            } else {
                "search wrapped: past the newest match, back to the oldest"
            },
        ),
    }
}

/// Enter in the log search input: searches for `text` (empty: no search).
pub fn search(pane: &mut LogPane, text: &str) -> Option<Outcome> {
    if text.trim().is_empty() {
        pane.set_search(None);
        return Outcome::done();
    }
    let jump = pane.search_for(text);
    told(pane, jump)
}

/// The log keys, which act on the log pane from every view.
pub fn on_log_key(pane: &mut LogPane, action: KeyAction) -> Option<Outcome> {
    match action {
        KeyAction::LogFollow => pane.toggle_follow(),
        KeyAction::LogWrap => pane.wrap = !pane.wrap,
        KeyAction::LogLevel => pane.cycle_min_level(),
        KeyAction::LogNextMatch | KeyAction::LogPreviousMatch => {
            let jump = pane.step_match(action == KeyAction::LogNextMatch);
            return told(pane, jump);
        }
        _ => return None,
    }
    Outcome::done()
}

pub fn on_key(pane: &mut LogPane, action: KeyAction, ctx: &ViewCtx) -> Option<Outcome> {
    use KeyAction::*;
    let page = ctx.page_rows as isize;
    match action {
        Down => pane.scroll(1),
        Up => pane.scroll(-1),
        PageDown => pane.scroll(page),
        PageUp => pane.scroll(-page),
        Top => pane.to_oldest(),
        Bottom => pane.follow_newest(),
        Filter => {
            return Outcome::open(Modal::LogSearchInput {
                text: pane.search.as_deref().unwrap_or_default().into(),
            });
        }
        Back => pane.clear_filters(),
        _ => return on_log_key(pane, action),
    }
    Outcome::done()
}

pub fn hints(_pane: &LogPane, _ctx: &ViewCtx) -> Vec<Hint> {
    vec![
        Hint::key(KeyAction::LogFollow, "follow/pause"),
        Hint::key(KeyAction::LogSearch, "search"),
        Hint::key(KeyAction::LogNextMatch, "next"),
        Hint::key(KeyAction::LogLevel, "level"),
        Hint::key(KeyAction::LogWrap, "wrap"),
        Hint::key(KeyAction::Command, "view"),
    ]
}
