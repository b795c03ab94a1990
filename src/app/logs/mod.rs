//! The lcm-controller log as the console keeps it: a bounded buffer of parsed
//! lines plus the log view's state (follow, wrap, level, search, machine filter).
//!
//! Lines arrive sanitized from the cluster layer. JSON lines are parsed as zap
//! style (`level`, `ts`, `logger`, `msg`, extra fields); the controller's
//! exact format is not documented (inferred from the LCM agent's zap lines),
//! so anything else is kept as plain text.
//!
//! JSON decoding turns inert text back into controls (`"\u001b]52;c;…\u0007"`
//! is an OSC 52 clipboard write once decoded), so every decoded key and value
//! is sanitized again here, after decoding: the point where it becomes text
//! to draw.

use std::collections::VecDeque;

mod line;
mod view;

pub use line::{LogLevel, LogLine, Parts};
pub use view::{Filtered, SearchJump, match_ranges};

/// How many log lines the console keeps.
pub const LOG_CAPACITY: usize = 20_000;

/// The log buffer and the log view's state.
#[derive(Debug, Clone)]
pub struct LogPane {
    pub lines: VecDeque<LogLine>,
    next_seq: u64,
    /// Lines dropped from the front because the buffer was full.
    pub dropped: u64,
    /// Follow the newest line; off when paused or scrolled up. The one
    /// source of the follow/paused state the header, the border and the
    /// status bar show ([`LogPane::paused`]).
    pub follow: bool,
    pub wrap: bool,
    /// Lines below this level are hidden (lines without a level are shown).
    pub min_level: LogLevel,
    /// Show only lines that mention one of these names (a machine and its
    /// node); empty shows every line.
    pub subject: Vec<String>,
    /// The search text; matches are highlighted and `n`/`N` jump between them.
    pub search: Option<String>,
    /// The `seq` of the match `n`/`N` last went to (drawn apart from the
    /// other matches).
    pub current_match: Option<u64>,
    /// The lines that pass the filters and the search matches, kept up to
    /// date by [`LogPane::push`] and the setters.
    filtered: Filtered,
    /// When not following: the `seq` of the line at the bottom of the screen.
    pub anchor: Option<u64>,
    /// What the log follower last said (connected to pod X, retrying, …).
    pub status: String,
    /// The newest line the Overview's tail shows (`None`: every line). It
    /// moves on at most every [`OVERVIEW_TAIL_EVERY`] of real time: each new
    /// line scrolls the whole pane, which over SSH costs ~3 KB a redraw.
    pub overview_upto: Option<u64>,
    /// When (this machine's clock) `overview_upto` last moved.
    overview_at: Option<jiff::Timestamp>,
}

/// The one word for a paused log view, on every part of the screen.
pub const PAUSED: &str = "PAUSED";
/// The word for a log view that follows the newest line.
pub const FOLLOWING: &str = "FOLLOWING";

/// How often the Overview's log tail moves on (the Logs view is live).
pub const OVERVIEW_TAIL_EVERY: jiff::SignedDuration = jiff::SignedDuration::from_secs(3);

impl Default for LogPane {
    fn default() -> Self {
        LogPane {
            lines: VecDeque::new(),
            next_seq: 0,
            dropped: 0,
            follow: true,
            wrap: false,
            min_level: LogLevel::Debug,
            subject: Vec::new(),
            search: None,
            current_match: None,
            filtered: Filtered::default(),
            anchor: None,
            status: "waiting for the lcm-controller pod".into(),
            overview_upto: None,
            overview_at: None,
        }
    }
}

impl LogPane {
    /// Appends lines from `pod`, trimming the oldest beyond the capacity.
    pub fn push(&mut self, pod: &str, raw_lines: &[String]) {
        self.settle();
        let pod: std::sync::Arc<str> = pod.into();
        for raw in raw_lines {
            let line = LogLine::parse(self.next_seq, pod.clone(), raw);
            self.next_seq += 1;
            self.lines.push_back(line);
            self.filtered_add(self.lines.len() - 1);
        }
        if self.lines.len() > LOG_CAPACITY {
            let excess = self.lines.len() - LOG_CAPACITY;
            self.lines.drain(..excess);
            self.dropped += excess as u64;
            self.filtered_drop();
        }
    }

    /// Whether the view is paused (not following the newest line): the
    /// header, the border and the status bar say so with [`PAUSED`].
    pub fn paused(&self) -> bool {
        !self.follow
    }

    /// On a tick at `local` (this machine's clock): the Overview's tail
    /// moves to the newest line when it last moved long enough ago.
    pub fn tick_overview(&mut self, local: jiff::Timestamp) {
        // Also when this machine's clock stepped back: never frozen.
        let due = self.overview_at.is_none_or(|at| {
            let since = local.duration_since(at);
            since >= OVERVIEW_TAIL_EVERY || since.is_negative()
        });
        if due {
            self.overview_upto = self.next_seq.checked_sub(1);
            self.overview_at = Some(local);
        }
    }

    /// The lines that pass the filters, oldest first.
    pub fn visible(&self) -> Vec<&LogLine> {
        let f = self.filtered();
        f.shown.iter().filter_map(|s| self.line(*s)).collect()
    }
}

#[cfg(test)]
mod tests;
