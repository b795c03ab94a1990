//! One log line as the console keeps it: parsed (zap JSON, klog header or
//! plain text), sanitized after decoding, and its text as shown.

use std::sync::Arc;

use crate::sanitize::sanitize;

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

/// One log line as the buffer keeps it: its text as shown, its level and
/// where its message starts. Nothing else is kept: at 20,000 lines a copy
/// of the raw line, the message and each field tripled the buffer
/// (874 bytes a line for ~225 bytes of text; docs/PERFORMANCE.md). The
/// parts of a structured line are [`Parts`], parsed on arrival.
#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    /// Increasing number of the line in this session (stable across trimming).
    pub seq: u64,
    /// The pod the line came from (one allocation per pod, shared by its lines).
    pub pod: Arc<str>,
    /// Parsed severity, if the line said.
    pub level: Option<LogLevel>,
    /// The line as the Logs view shows it: structured lines as
    /// `time LEVEL msg k=v`, plain lines as received (sanitized). Read it
    /// with [`LogLine::text`].
    text: Box<str>,
    /// The character column of [`LogLine::text`] where the message starts
    /// (after the time and level, or after a klog header's `] `): wrapped
    /// lines continue under it. 0 when the line has no header.
    pub msg_at: usize,
}

/// What a line says, decoded: zap JSON's level, time, logger, message and
/// other fields, each sanitized after decoding; for a plain line the whole
/// line is the message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parts {
    pub level: Option<LogLevel>,
    pub ts: Option<String>,
    pub logger: Option<String>,
    /// The message (the whole line for plain text).
    pub msg: String,
    /// Other JSON fields, `key=value`, in the order they appeared.
    pub fields: Vec<(String, String)>,
    /// The line was zap JSON.
    json: bool,
}

impl Parts {
    pub fn parse(raw: &str) -> Parts {
        let trimmed = raw.trim_start();
        if trimmed.starts_with('{')
            && let Ok(serde_json::Value::Object(map)) =
                serde_json::from_str::<serde_json::Value>(trimmed)
        {
            let mut parts = Parts {
                msg: raw.to_string(),
                json: true,
                ..Parts::default()
            };
            for (k, v) in map {
                let text = match &v {
                    serde_json::Value::String(s) => sanitize(s),
                    // Nested: every string and key decoded and sanitized, so it
                    // is drawn as JSON text without `\u001b` escapes of
                    // control characters: they are gone, not spelled out.
                    other => sanitize(&crate::sanitize::json(other.clone()).to_string()),
                };
                match k.as_str() {
                    "level" => parts.level = LogLevel::parse(&text),
                    "ts" | "time" | "timestamp" => parts.ts = Some(text),
                    "logger" => parts.logger = Some(text),
                    "msg" | "message" => parts.msg = text,
                    _ => parts.fields.push((sanitize(&k), text)),
                }
            }
            return parts;
        }
        // Plain text: a klog header (`I1123 10:00:00.000000 1 file.go:70] …`)
        // or a leading word such as "ERROR".
        let first = trimmed.split_whitespace().next().unwrap_or("");
        Parts {
            level: klog_level(first)
                .or_else(|| LogLevel::parse(first.trim_matches(|c: char| !c.is_alphabetic()))),
            msg: raw.to_string(),
            ..Parts::default()
        }
    }

    /// Whether the line has a time, logger or fields: it is shown as
    /// `time LEVEL msg k=v`, else as received.
    fn structured(&self) -> bool {
        self.json && (self.ts.is_some() || self.logger.is_some() || !self.fields.is_empty())
    }

    /// `time LEVEL msg k=v`.
    fn shown_text(&self) -> String {
        let mut s = String::new();
        if let Some(ts) = &self.ts {
            s.push_str(short_time(ts));
            s.push(' ');
        }
        let level = self.level.map(|l| l.as_str()).unwrap_or("-");
        s.push_str(&format!("{:<5} ", level.to_ascii_uppercase()));
        s.push_str(&self.msg);
        for (k, v) in &self.fields {
            s.push_str(&format!(" {k}={v}"));
        }
        s
    }
}

impl LogLine {
    pub fn parse(seq: u64, pod: impl Into<Arc<str>>, raw: &str) -> LogLine {
        let parts = Parts::parse(raw);
        let (text, msg_at) = if parts.structured() {
            // The time and the level column before the message.
            let msg_at = parts
                .ts
                .as_deref()
                .map_or(0, |ts| short_time(ts).chars().count() + 1)
                + 6;
            (parts.shown_text(), msg_at)
        } else if parts.json {
            // JSON with only a level and a message: shown as received.
            (raw.to_string(), 0)
        } else if parts.level.is_some()
            && klog_level(raw.split_whitespace().next().unwrap_or("")).is_some()
        {
            // A klog header ends at the first `] ` (`… file.go:70] msg`).
            let at = raw.find("] ").map_or(0, |at| raw[..at + 2].chars().count());
            (parts.msg, at)
        } else {
            (parts.msg, 0)
        };
        LogLine {
            seq,
            pod: pod.into(),
            level: parts.level,
            text: text.into_boxed_str(),
            msg_at,
        }
    }

    /// The line as the Logs view shows it: what search and the machine
    /// filter look at.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the line mentions `needle` (case-insensitive) anywhere in
    /// its shown text: the machine filter matches what the operator sees
    /// (a zap line's `logger` and full timestamp are not shown, so a name
    /// only there does not match).
    pub fn mentions(&self, needle_lower: &str) -> bool {
        self.text.to_lowercase().contains(needle_lower)
    }
}

/// `10:28:41` from a zap timestamp (`2025-03-04T10:28:41.123Z`), else the
/// text as it came (also when byte 8 is not a character boundary: the
/// timestamp is the cluster's text, not necessarily ASCII).
pub(crate) fn short_time(ts: &str) -> &str {
    ts.split_once('T')
        .and_then(|(_, rest)| rest.get(..8))
        .unwrap_or(ts)
}
