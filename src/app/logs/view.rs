//! The Logs view's filtered lines: the `seq` of every line that passes the
//! level and subject filters and of every one that matches the search, kept
//! up to date as lines arrive and are dropped, rebuilt only when a filter or
//! the search changes. Scrolling, `n`/`N` and drawing read these indices
//! instead of filtering the 20,000-line buffer on every key and frame.

use std::borrow::Cow;
use std::collections::VecDeque;

use super::{LogLevel, LogLine, LogPane};

/// What the filtered lines were built for.
#[derive(Debug, Clone, Default, PartialEq)]
struct FilterKey {
    min_level: Option<LogLevel>,
    subject: Vec<String>,
    search: Option<String>,
}

/// The lines that pass the filters and the search matches among them.
#[derive(Debug, Clone, Default)]
pub struct Filtered {
    key: FilterKey,
    subject_lower: Vec<String>,
    needle: Vec<char>,
    /// The `seq` of every line that passes the filters, oldest first.
    pub shown: VecDeque<u64>,
    /// The `seq` of every shown line whose text contains the search,
    /// oldest first.
    pub matches: VecDeque<u64>,
}

/// Where `n`/`N` (or a new search) took the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchJump {
    /// To the next match in the asked direction.
    Moved,
    /// Past the oldest match to the newest (`older`), or past the newest to
    /// the oldest.
    Wrapped { to_newest: bool },
    /// No shown line matches the search.
    NoMatch,
}

/// Char ranges of case-insensitive matches of `needle` in `hay`: what the
/// Logs view highlights and what counts as a match.
pub fn match_ranges(hay: &[char], needle: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if needle.is_empty() || needle.len() > hay.len() {
        return out;
    }
    let eq = |a: char, b: char| a == b || a.to_lowercase().eq(b.to_lowercase());
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if hay[i..i + needle.len()]
            .iter()
            .zip(needle)
            .all(|(&a, &b)| eq(a, b))
        {
            out.push((i, i + needle.len()));
            i += needle.len();
        } else {
            i += 1;
        }
    }
    out
}

impl Filtered {
    fn new(key: FilterKey) -> Filtered {
        Filtered {
            subject_lower: key.subject.iter().map(|s| s.to_lowercase()).collect(),
            needle: key.search.as_deref().unwrap_or("").chars().collect(),
            key,
            shown: VecDeque::new(),
            matches: VecDeque::new(),
        }
    }

    fn build<'a>(key: FilterKey, lines: impl Iterator<Item = &'a LogLine>) -> Filtered {
        let mut f = Filtered::new(key);
        for line in lines {
            f.add(line);
        }
        f
    }

    /// Whether a line passes the level and subject filters (lines without
    /// a level pass any level).
    pub fn passes(&self, line: &LogLine) -> bool {
        if let (Some(level), Some(min)) = (line.level, self.key.min_level)
            && level < min
        {
            return false;
        }
        self.subject_lower.is_empty() || self.subject_lower.iter().any(|s| line.mentions(s))
    }

    fn is_match(&self, line: &LogLine) -> bool {
        if self.needle.is_empty() {
            return false;
        }
        let hay: Vec<char> = line.text().chars().collect();
        !match_ranges(&hay, &self.needle).is_empty()
    }

    fn add(&mut self, line: &LogLine) {
        if !self.passes(line) {
            return;
        }
        self.shown.push_back(line.seq);
        if self.is_match(line) {
            self.matches.push_back(line.seq);
        }
    }

    /// Forgets the lines before `seq` (dropped from the buffer).
    fn drop_before(&mut self, seq: u64) {
        while self.shown.front().is_some_and(|s| *s < seq) {
            self.shown.pop_front();
        }
        while self.matches.front().is_some_and(|s| *s < seq) {
            self.matches.pop_front();
        }
    }

    /// How many shown lines come before `seq` (its index when shown).
    pub fn shown_before(&self, seq: u64) -> usize {
        self.shown.partition_point(|s| *s < seq)
    }
}

impl LogPane {
    fn filter_key(&self) -> FilterKey {
        FilterKey {
            min_level: Some(self.min_level),
            subject: self.subject.clone(),
            search: self.search.clone(),
        }
    }

    /// Whether the filtered lines were built for the filters as they are.
    fn filtered_fresh(&self) -> bool {
        let k = &self.filtered.key;
        k.min_level == Some(self.min_level) && k.subject == self.subject && k.search == self.search
    }

    /// Rebuilds the filtered lines if a filter or the search changed since
    /// they were built; forgets a current match that is no longer one.
    pub fn settle(&mut self) {
        if !self.filtered_fresh() {
            self.filtered = Filtered::build(self.filter_key(), self.lines.iter());
        }
        if let Some(seq) = self.current_match
            && self.filtered.matches.binary_search(&seq).is_err()
        {
            self.current_match = None;
        }
    }

    /// Adds a new line (already in the buffer) to the filtered lines.
    pub(super) fn filtered_add(&mut self, index: usize) {
        if self.filtered_fresh() {
            let line = &self.lines[index];
            self.filtered.add(line);
        }
    }

    /// After lines were dropped from the front of the buffer.
    pub(super) fn filtered_drop(&mut self) {
        let front = self.lines.front().map_or(u64::MAX, |l| l.seq);
        self.filtered.drop_before(front);
        if self.current_match.is_some_and(|s| s < front) {
            self.current_match = None;
        }
    }

    /// The lines that pass the filters and the matches among them: the kept
    /// ones, or built now when a field was set directly (tests) without
    /// [`LogPane::settle`].
    pub fn filtered(&self) -> Cow<'_, Filtered> {
        if self.filtered_fresh() {
            Cow::Borrowed(&self.filtered)
        } else {
            Cow::Owned(Filtered::build(self.filter_key(), self.lines.iter()))
        }
    }

    /// The kept line numbered `seq`.
    pub fn line(&self, seq: u64) -> Option<&LogLine> {
        let front = self.lines.front()?.seq;
        self.lines
            .get(usize::try_from(seq.checked_sub(front)?).ok()?)
    }

    pub fn set_search(&mut self, search: Option<String>) {
        self.search = search.filter(|s| !s.is_empty());
        self.current_match = None;
        self.settle();
    }

    pub fn set_subject(&mut self, subject: Vec<String>) {
        self.subject = subject;
        self.settle();
    }

    pub fn cycle_min_level(&mut self) {
        self.min_level = self.min_level.next();
        self.settle();
    }

    /// Esc in the Logs view: no subject, no search.
    pub fn clear_filters(&mut self) {
        self.subject.clear();
        self.search = None;
        self.current_match = None;
        self.settle();
    }

    /// Shows the newest line as it arrives.
    pub fn follow_newest(&mut self) {
        self.follow = true;
        self.anchor = None;
    }

    /// Stops at `seq` (the line at the bottom of the screen).
    fn pause_at(&mut self, seq: Option<u64>) {
        self.follow = false;
        self.anchor = seq;
    }

    /// `f`: pauses on the newest shown line, or follows again.
    pub fn toggle_follow(&mut self) {
        self.settle();
        if self.follow {
            let newest = self.filtered.shown.back().copied();
            self.pause_at(newest);
        } else {
            self.follow_newest();
        }
    }

    /// `g`: pauses on the oldest shown line.
    pub fn to_oldest(&mut self) {
        self.settle();
        let oldest = self.filtered.shown.front().copied();
        self.pause_at(oldest);
    }

    /// Moves the bottom of the screen by `delta` shown lines; reaching the
    /// newest line going down follows again.
    pub fn scroll(&mut self, delta: isize) {
        self.settle();
        let shown = &self.filtered.shown;
        if shown.is_empty() {
            return;
        }
        let last = shown.len() - 1;
        let at = match (self.follow, self.anchor) {
            (false, Some(a)) => self.filtered.shown_before(a).min(last),
            _ => last,
        };
        let next = (at as isize + delta).clamp(0, last as isize) as usize;
        if next == last && delta > 0 {
            self.follow_newest();
        } else {
            let seq = shown[next];
            self.pause_at(Some(seq));
        }
    }

    /// The bottom of the screen: the anchor when paused, else the newest.
    fn bottom(&self) -> u64 {
        match (self.follow, self.anchor) {
            (false, Some(a)) => a,
            _ => u64::MAX,
        }
    }

    /// A new search: the view goes to the nearest match at or above the
    /// bottom of the screen (the newest one when none is above).
    pub fn search_for(&mut self, text: &str) -> SearchJump {
        let bottom = self.bottom();
        self.set_search(Some(text.trim().to_string()));
        let m = &self.filtered.matches;
        let Some(&newest) = m.back() else {
            return SearchJump::NoMatch;
        };
        let above = m.partition_point(|s| *s <= bottom);
        let seq = if above > 0 { m[above - 1] } else { newest };
        self.current_match = Some(seq);
        self.pause_at(Some(seq));
        SearchJump::Moved
    }

    /// `n` (`older`: up, the way a search from the bottom goes) or `N`
    /// (down): the next match from the current one, or from the bottom of
    /// the screen; wraps at either end.
    pub fn step_match(&mut self, older: bool) -> SearchJump {
        self.settle();
        let m = &self.filtered.matches;
        let n = m.len();
        if n == 0 {
            return SearchJump::NoMatch;
        }
        // `[0, above)`: the matches before the starting point.
        let (above, at_current) = match self.current_match.and_then(|c| m.binary_search(&c).ok()) {
            Some(i) => (i, true),
            None => (m.partition_point(|s| *s <= self.bottom()), false),
        };
        let (target, wrapped) = if older {
            if above == 0 {
                (n - 1, true)
            } else {
                (above - 1, false)
            }
        } else {
            let next = if at_current { above + 1 } else { above };
            if next >= n { (0, true) } else { (next, false) }
        };
        let seq = m[target];
        self.current_match = Some(seq);
        self.pause_at(Some(seq));
        if wrapped {
            SearchJump::Wrapped { to_newest: older }
        } else {
            SearchJump::Moved
        }
    }

    /// The current match's place among the matches (1-based) and how many
    /// shown lines match the search.
    pub fn match_position(&self) -> (Option<usize>, usize) {
        let f = self.filtered();
        let at = self
            .current_match
            .and_then(|c| f.matches.binary_search(&c).ok())
            .map(|i| i + 1);
        (at, f.matches.len())
    }
}
