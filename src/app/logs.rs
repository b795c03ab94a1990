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

use crate::sanitize::sanitize;

/// How many log lines the console keeps.
pub const LOG_CAPACITY: usize = 20_000;

/// Log severity, ordered from least to most severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
}

impl LogLevel {
    pub fn parse(s: &str) -> Option<LogLevel> {
        match s.to_ascii_lowercase().as_str() {
            "debug" | "trace" => Some(LogLevel::Debug),
            "info" => Some(LogLevel::Info),
            "warn" | "warning" => Some(LogLevel::Warn),
            "error" | "dpanic" | "panic" | "fatal" => Some(LogLevel::Error),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warn => "warn",
            LogLevel::Error => "error",
        }
    }
    /// The next minimum level when cycling with the log-level key.
    pub fn next(self) -> LogLevel {
        match self {
            LogLevel::Debug => LogLevel::Info,
            LogLevel::Info => LogLevel::Warn,
            LogLevel::Warn => LogLevel::Error,
            LogLevel::Error => LogLevel::Debug,
        }
    }
}

/// The level of a klog header's first word: its letter (`I`, `W`, `E`,
/// `F`) then the month and day (`1123`), as Kubernetes components and
/// client-go write them. `F` (fatal) counts as an error.
fn klog_level(word: &str) -> Option<LogLevel> {
    let mut chars = word.chars();
    let letter = chars.next()?;
    let digits = chars.as_str();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match letter {
        'I' => Some(LogLevel::Info),
        'W' => Some(LogLevel::Warn),
        'E' | 'F' => Some(LogLevel::Error),
        _ => None,
    }
}

/// One parsed log line.
#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    /// Increasing number of the line in this session (stable across trimming).
    pub seq: u64,
    /// The pod the line came from.
    pub pod: String,
    /// The line as received (sanitized).
    pub raw: String,
    /// Parsed severity, if the line said.
    pub level: Option<LogLevel>,
    pub ts: Option<String>,
    pub logger: Option<String>,
    /// The message (the whole line for plain text).
    pub msg: String,
    /// Other JSON fields, `key=value`, in the order they appeared.
    pub fields: Vec<(String, String)>,
}

impl LogLine {
    pub fn parse(seq: u64, pod: &str, raw: &str) -> LogLine {
        let mut line = LogLine {
            seq,
            pod: pod.to_string(),
            raw: raw.to_string(),
            level: None,
            ts: None,
            logger: None,
            msg: raw.to_string(),
            fields: Vec::new(),
        };
        let trimmed = raw.trim_start();
        if trimmed.starts_with('{')
            && let Ok(serde_json::Value::Object(map)) =
                serde_json::from_str::<serde_json::Value>(trimmed)
        {
            for (k, v) in map {
                let text = match &v {
                    serde_json::Value::String(s) => sanitize(s),
                    other => sanitize(&sanitized_json(other).to_string()),
                };
                match k.as_str() {
                    "level" => line.level = LogLevel::parse(&text),
                    "ts" | "time" | "timestamp" => line.ts = Some(text),
                    "logger" => line.logger = Some(text),
                    "msg" | "message" => line.msg = text,
                    _ => line.fields.push((sanitize(&k), text)),
                }
            }
            return line;
        }
        // Plain text: a klog header (`I1123 10:00:00.000000 1 file.go:70] …`)
        // or a leading word such as "ERROR".
        let first = trimmed.split_whitespace().next().unwrap_or("");
        line.level = klog_level(first)
            .or_else(|| LogLevel::parse(first.trim_matches(|c: char| !c.is_alphabetic())));
        line
    }

    /// Whether the line mentions `needle` (case-insensitive) anywhere.
    pub fn mentions(&self, needle_lower: &str) -> bool {
        self.raw.to_lowercase().contains(needle_lower)
    }
}

/// A nested JSON value with every string (and key) in it decoded and
/// sanitized, so that it is drawn as JSON text without `\u001b` escapes of
/// control characters: they are gone, not spelled out.
fn sanitized_json(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(s) => Value::String(sanitize(s)),
        Value::Array(a) => Value::Array(a.iter().map(sanitized_json).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (sanitize(k), sanitized_json(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The log buffer and the log view's state.
#[derive(Debug, Clone)]
pub struct LogPane {
    pub lines: VecDeque<LogLine>,
    next_seq: u64,
    /// Lines dropped from the front because the buffer was full.
    pub dropped: u64,
    /// Follow the newest line; off when paused or scrolled up.
    pub follow: bool,
    pub wrap: bool,
    /// Lines below this level are hidden (lines without a level are shown).
    pub min_level: LogLevel,
    /// Show only lines that mention one of these names (a machine and its
    /// node); empty shows every line.
    pub subject: Vec<String>,
    /// The search text; matches are highlighted and `n`/`N` jump between them.
    pub search: Option<String>,
    /// When not following: the `seq` of the line at the bottom of the screen.
    pub anchor: Option<u64>,
    /// What the log follower last said (following pod X, reconnecting, …).
    pub status: String,
    /// The newest line the Overview's tail shows (`None`: every line). It
    /// moves on at most every [`OVERVIEW_TAIL_EVERY`] of real time: each new
    /// line scrolls the whole pane, which over SSH costs ~3 KB a redraw.
    pub overview_upto: Option<u64>,
    /// When (this machine's clock) `overview_upto` last moved.
    overview_at: Option<jiff::Timestamp>,
}

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
        for raw in raw_lines {
            let line = LogLine::parse(self.next_seq, pod, raw);
            self.next_seq += 1;
            self.lines.push_back(line);
        }
        while self.lines.len() > LOG_CAPACITY {
            self.lines.pop_front();
            self.dropped += 1;
        }
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

    /// Whether a line passes the level and subject filters.
    pub fn shows(&self, line: &LogLine) -> bool {
        if let Some(level) = line.level
            && level < self.min_level
        {
            return false;
        }
        self.subject.is_empty()
            || self
                .subject
                .iter()
                .any(|s| line.mentions(&s.to_lowercase()))
    }

    /// The lines that pass the filters, oldest first.
    pub fn visible(&self) -> Vec<&LogLine> {
        self.lines.iter().filter(|l| self.shows(l)).collect()
    }

    /// The `seq` of the next (or previous) visible line matching the search,
    /// starting from the anchor (or the newest line).
    pub fn find_match(&self, forward: bool) -> Option<u64> {
        let needle = self.search.as_ref()?.to_lowercase();
        if needle.is_empty() {
            return None;
        }
        let visible = self.visible();
        let from = self
            .anchor
            .unwrap_or_else(|| visible.last().map(|l| l.seq).unwrap_or(0));
        if forward {
            visible
                .iter()
                .find(|l| l.seq > from && l.mentions(&needle))
                .map(|l| l.seq)
        } else {
            visible
                .iter()
                .rev()
                .find(|l| l.seq < from && l.mentions(&needle))
                .map(|l| l.seq)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn klog_lines_get_their_level_from_the_header_letter() {
        let level = |raw: &str| LogLine::parse(0, "p", raw).level;
        let header = " 01:03:05.976662       1 warnings.go:70] metadata.finalizers";
        assert_eq!(level(&format!("I1124{header}")), Some(LogLevel::Info));
        assert_eq!(level(&format!("W1124{header}")), Some(LogLevel::Warn));
        assert_eq!(level(&format!("E1124{header}")), Some(LogLevel::Error));
        assert_eq!(level(&format!("F1124{header}")), Some(LogLevel::Error));
        // Not a klog header: no level guessed from a word that only starts
        // like one.
        assert_eq!(level("I11 not a header"), None);
        assert_eq!(level("Installing 3 charts"), None);
        // `level ≥ error` hides klog info and warning lines.
        let mut pane = LogPane {
            min_level: LogLevel::Error,
            ..Default::default()
        };
        pane.push(
            "p",
            &[
                format!("I1124{header}"),
                format!("W1124{header}"),
                format!("E1124{header}"),
            ],
        );
        let shown: Vec<Option<LogLevel>> = pane.visible().iter().map(|l| l.level).collect();
        assert_eq!(shown, vec![Some(LogLevel::Error)]);
    }

    #[test]
    fn parses_zap_json_and_plain_text() {
        let j = LogLine::parse(
            0,
            "p",
            r#"{"level":"error","ts":"2026-01-01T00:00:00Z","logger":"lcm-controller","msg":"drain failed","machine":"m-1"}"#,
        );
        assert_eq!(j.level, Some(LogLevel::Error));
        assert_eq!(j.msg, "drain failed");
        assert_eq!(j.logger.as_deref(), Some("lcm-controller"));
        assert_eq!(j.fields, vec![("machine".to_string(), "m-1".to_string())]);
        let p = LogLine::parse(1, "p", "WARNING: something odd");
        assert_eq!(p.level, Some(LogLevel::Warn));
        assert_eq!(p.msg, "WARNING: something odd");
        let broken = LogLine::parse(2, "p", "{not json");
        assert_eq!(broken.msg, "{not json");
        assert_eq!(broken.level, None);
    }

    #[test]
    fn json_escapes_are_sanitized_after_decoding() {
        // The line as the cluster layer passes it on: sanitized, the escapes
        // still JSON text.
        let raw = r#"{"level":"info","msg":"a\u001b]0;evil title\u0007b\u001b[2Jc\u202ed\r\u009b31me","\u001b]52;c;Zm9v\u0007key":"\u009d52;c;Zm9v\u009cv\u001bP1$r0m\u001b\\w","logger":"x\u001b_apc\u001b\\y","ts":"\u2066t\u2069"}"#;
        assert_eq!(crate::sanitize::sanitize(raw), raw, "inert before decoding");
        let l = LogLine::parse(0, "p", raw);
        assert_eq!(l.msg, "abcd e");
        assert_eq!(l.logger.as_deref(), Some("xy"));
        assert_eq!(l.ts.as_deref(), Some("t"));
        assert_eq!(l.fields, vec![("key".to_string(), "vw".to_string())]);
        let all = format!("{}{:?}{:?}{:?}", l.msg, l.logger, l.ts, l.fields);
        assert!(
            !all.chars()
                .any(|c| c.is_control() || crate::sanitize::is_format_char(c)),
            "{all:?}"
        );
        // A nested value is drawn as JSON text, its strings decoded and
        // sanitized: the sequence is gone, not spelled out as `\u001b[31m`.
        let nested = LogLine::parse(
            1,
            "p",
            r#"{"msg":"m","err":{"e\u202e":["\u001b[31mred","\u009d0;t\u0007x"]}}"#,
        );
        assert_eq!(nested.fields[0].1, r#"{"e":["red","x"]}"#);
    }

    #[test]
    fn buffer_is_bounded_and_filters() {
        let mut pane = LogPane::default();
        let lines: Vec<String> = (0..LOG_CAPACITY + 10)
            .map(|i| {
                format!(
                    r#"{{"level":"info","msg":"line {i}","node":"kaas-node-{}"}}"#,
                    i % 3
                )
            })
            .collect();
        pane.push("p", &lines);
        assert_eq!(pane.lines.len(), LOG_CAPACITY);
        assert_eq!(pane.dropped, 10);
        assert_eq!(pane.lines.front().unwrap().msg, "line 10");
        pane.subject = vec!["KAAS-NODE-1".into()];
        assert!(pane.visible().iter().all(|l| l.raw.contains("kaas-node-1")));
        pane.subject.clear();
        pane.min_level = LogLevel::Warn;
        assert!(pane.visible().is_empty());
    }

    #[test]
    fn search_moves_between_matches() {
        let mut pane = LogPane::default();
        let lines: Vec<String> = ["a", "needle 1", "b", "needle 2", "c"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        pane.push("p", &lines);
        pane.search = Some("NEEDLE".into());
        assert_eq!(pane.find_match(false), Some(3));
        pane.anchor = Some(3);
        assert_eq!(pane.find_match(false), Some(1));
        pane.anchor = Some(1);
        assert_eq!(pane.find_match(true), Some(3));
        pane.anchor = Some(3);
        assert_eq!(pane.find_match(true), None);
    }
}
