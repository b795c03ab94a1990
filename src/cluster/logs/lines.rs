//! Reading log lines: bytes to capped, lossily decoded lines; the timestamp
//! prefix; dropping lines already shown before a reconnect.

use std::collections::VecDeque;

use futures::io::{AsyncBufRead, AsyncBufReadExt};

/// Reads one line (up to and excluding `\n`) into `buf`, keeping at most `max`
/// bytes of it and discarding the rest of an over-long line. Returns false at
/// the end of the stream with nothing read.
///
/// Hand-written rather than `read_until`, which has no length limit: one line
/// without a newline could otherwise grow without bound.
pub async fn read_line_capped<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<bool> {
    buf.clear();
    let mut read_any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(read_any);
        }
        read_any = true;
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        let room = max.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        reader.consume_unpin(used);
        if done {
            return Ok(true);
        }
    }
}

/// Decodes a raw line lossily (a bad byte becomes U+FFFD, it never ends the
/// tail) and drops a trailing `\r`.
pub fn decode(raw: &[u8]) -> String {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    String::from_utf8_lossy(raw).into_owned()
}

/// Splits the RFC 3339 timestamp that `timestamps=true` puts before each line.
/// `None` when the line does not start with one.
pub fn split_timestamp(line: &str) -> Option<(jiff::Timestamp, &str)> {
    let (ts, rest) = line.split_once(' ').unwrap_or((line, ""));
    ts.parse::<jiff::Timestamp>().ok().map(|t| (t, rest))
}

/// Truncates `s` to at most `max` characters, marking the cut with `…`.
pub fn cap_chars(s: String, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => {
            let mut cut = s[..i].to_string();
            cut.push('…');
            cut
        }
        None => s,
    }
}

/// Remembers the newest timestamp seen and the lines seen with it, so that a
/// stream reopened with `sinceTime` (which the API server truncates to whole
/// seconds) can drop what was already shown.
#[derive(Debug, Default)]
pub struct Dedupe {
    last: Option<jiff::Timestamp>,
    at_last: VecDeque<String>,
    replay: Option<(jiff::Timestamp, VecDeque<String>)>,
}

/// At most this many lines are remembered for one timestamp.
const MAX_SAME_TIMESTAMP: usize = 1000;

impl Dedupe {
    /// The newest timestamp seen (the `sinceTime` to reconnect with).
    pub fn last_timestamp(&self) -> Option<jiff::Timestamp> {
        self.last
    }

    /// Called when the stream is reopened from `last_timestamp()`: lines up to
    /// and including the last one seen will be dropped.
    pub fn reopen(&mut self) {
        self.replay = self.last.map(|t| (t, self.at_last.clone()));
    }

    /// Whether a line with timestamp `ts` and text `body` is new; records it if so.
    pub fn admit(&mut self, ts: jiff::Timestamp, body: &str) -> bool {
        if let Some((replay_ts, seen)) = &mut self.replay {
            if ts < *replay_ts {
                return false;
            }
            if ts == *replay_ts {
                if let Some(i) = seen.iter().position(|l| l == body) {
                    seen.remove(i);
                    return false;
                }
            } else {
                self.replay = None;
            }
        }
        if self.last == Some(ts) {
            if self.at_last.len() == MAX_SAME_TIMESTAMP {
                self.at_last.pop_front();
            }
            self.at_last.push_back(body.to_string());
        } else if self.last.is_none_or(|l| ts > l) {
            self.last = Some(ts);
            self.at_last.clear();
            self.at_last.push_back(body.to_string());
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> jiff::Timestamp {
        s.parse().unwrap()
    }

    #[tokio::test]
    async fn capped_reader_survives_bad_bytes_and_long_lines() {
        let data: &[u8] = b"ok\nbad \xff byte\r\n0123456789abcdef\nlast-no-newline";
        let mut reader = futures::io::BufReader::with_capacity(4, data);
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        while read_line_capped(&mut reader, &mut buf, 10).await.unwrap() {
            lines.push(decode(&buf));
        }
        assert_eq!(
            lines,
            ["ok", "bad \u{fffd} byte", "0123456789", "last-no-ne"]
        );
    }

    #[test]
    fn timestamps_are_split_off() {
        let (t, rest) = split_timestamp("2025-03-04T10:15:02.118734Z hello world").unwrap();
        assert_eq!(t, ts("2025-03-04T10:15:02.118734Z"));
        assert_eq!(rest, "hello world");
        assert!(split_timestamp("no timestamp here").is_none());
    }

    #[test]
    fn cap_marks_the_cut() {
        assert_eq!(cap_chars("héllo".into(), 3), "hél…");
        assert_eq!(cap_chars("abc".into(), 3), "abc");
    }

    #[test]
    fn reopen_drops_lines_already_seen_but_keeps_new_ones_with_the_same_time() {
        let mut d = Dedupe::default();
        let t1 = ts("2025-01-01T00:00:01Z");
        let t2 = ts("2025-01-01T00:00:02Z");
        assert!(d.admit(t1, "a"));
        assert!(d.admit(t2, "b"));
        assert!(d.admit(t2, "c"));
        d.reopen();
        // The server replays from the start of the second (and earlier).
        assert!(!d.admit(t1, "a"));
        assert!(!d.admit(t2, "b"));
        assert!(!d.admit(t2, "c"));
        assert!(
            d.admit(t2, "d"),
            "a new line with the same timestamp is kept"
        );
        assert!(d.admit(ts("2025-01-01T00:00:03Z"), "e"));
        assert!(
            d.admit(ts("2025-01-01T00:00:03Z"), "e"),
            "a real repeat is kept"
        );
    }
}
