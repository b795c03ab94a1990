//! The config file (`--config PATH`): for now its `[expected]` table, the
//! durations stall detection compares with when there are no peers to
//! compare with ([`crate::domain::expected`]; defaults there, documented in
//! the README). Every key is optional; an unknown key, a bad duration or an
//! unreadable file is an error that names the file and the key.
//!
//! ```toml
//! [expected]
//! master_turn = "45m"
//! worker_turn = "1h"
//! lock_wait = "15m"
//! cluster_lock = "90m"
//! finalization = "45m"
//! request_deletion = "15m"
//! ```

use std::path::Path;

use jiff::SignedDuration;
use serde::Deserialize;

use crate::domain::expected::Expected;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    expected: Table,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Table {
    master_turn: Option<String>,
    worker_turn: Option<String>,
    lock_wait: Option<String>,
    cluster_lock: Option<String>,
    finalization: Option<String>,
    request_deletion: Option<String>,
}

/// Reads the config file's `[expected]` table over the defaults.
pub fn load(path: &Path) -> Result<Expected, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("config file {}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("config file {}: {e}", path.display()))
}

/// Parses a config file's text.
pub fn parse(text: &str) -> Result<Expected, String> {
    let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut out = Expected::default();
    let t = file.expected;
    for (key, value, slot) in [
        ("master_turn", t.master_turn, &mut out.master_turn),
        ("worker_turn", t.worker_turn, &mut out.worker_turn),
        ("lock_wait", t.lock_wait, &mut out.lock_wait),
        ("cluster_lock", t.cluster_lock, &mut out.cluster_lock),
        ("finalization", t.finalization, &mut out.finalization),
        (
            "request_deletion",
            t.request_deletion,
            &mut out.request_deletion,
        ),
    ] {
        if let Some(v) = value {
            *slot = duration(&v).map_err(|e| format!("expected.{key} = {v:?}: {e}"))?;
        }
    }
    Ok(out)
}

fn duration(s: &str) -> Result<SignedDuration, String> {
    let d: SignedDuration = s
        .trim()
        .parse()
        .map_err(|_| "not a duration (write e.g. \"45m\", \"1h30m\")".to_string())?;
    if d <= SignedDuration::ZERO {
        return Err("must be longer than zero".into());
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_override_the_defaults_and_the_rest_stay() {
        let e = parse("[expected]\nworker_turn = \"2h\"\nlock_wait = \"5m\"\n").unwrap();
        assert_eq!(e.worker_turn, SignedDuration::from_hours(2));
        assert_eq!(e.lock_wait, SignedDuration::from_mins(5));
        assert_eq!(e.master_turn, Expected::default().master_turn);
        assert_eq!(parse("").unwrap(), Expected::default());
    }

    #[test]
    fn bad_input_names_the_key() {
        let e = parse("[expected]\nworker_turn = \"soon\"\n").unwrap_err();
        assert!(e.contains("expected.worker_turn = \"soon\""), "{e}");
        let e = parse("[expected]\nmaster_turn = \"0s\"\n").unwrap_err();
        assert!(e.contains("longer than zero"), "{e}");
        let e = parse("[expected]\nworker_trun = \"1h\"\n").unwrap_err();
        assert!(e.contains("worker_trun"), "{e}");
    }
}
