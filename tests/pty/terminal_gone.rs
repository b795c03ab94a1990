//! An SSH drop loses nothing: the real binary in a pseudo-terminal whose
//! master is closed (what sshd does when the connection drops: SIGHUP, then
//! `EIO` on every read and write of the tty) in the middle of an action. The
//! console waits its bounded time for the write in flight, records its
//! result (or `interrupted, outcome unknown`), starts no further step, writes
//! the session report and exits with its documented code, without a panic.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::pty_console::Console;
use serde_json::Value;

/// How long the console may take to exit after the hang-up: its 5 s wait for
/// the write in flight, and the time to stop (a safety net, not a wait).
const EXIT_DEADLINE: Duration = Duration::from_secs(60);

fn records(audit: &Path) -> Vec<Value> {
    std::fs::read_to_string(audit)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn reports(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("report-")
        })
        .collect()
}

/// The trace log has no panic and says the terminal went away.
fn trace_says_gone(state: &Path) {
    let trace = std::fs::read_to_string(state.join("state/mosk-console/mosk-console.log"))
        .unwrap_or_default();
    assert!(trace.contains("the terminal went away"), "{trace}");
    assert!(!trace.contains("panicked"), "{trace}");
}

/// The `legacy` scenario (MOSK 22.x, vRouter pods restarted by hand) whose
/// replacement vRouter pods never become Ready: the first restart is still
/// in flight when the console gives up waiting.
fn legacy_never_ready(dir: &Path) -> PathBuf {
    let mut toml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/scenarios/legacy.toml"
    ))
    .unwrap();
    // Compute 1 has its own override (manual mode, which holds the update
    // for the operator before the vRouter step): here it migrates live, and
    // the flag takes the override's place.
    let manual = "index = 1\nmigration_mode = \"manual\"\n";
    assert!(
        toml.contains(manual),
        "legacy.toml changed: update this test"
    );
    toml = toml.replace(manual, "index = 1\nvrouter_never_ready = true\n");
    for index in [0, 2] {
        toml.push_str(&format!(
            "\n[[overrides]]\nrole = \"compute\"\nindex = {index}\nvrouter_never_ready = true\n"
        ));
    }
    let path = dir.join("legacy-never-ready.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

#[test]
fn the_terminal_closed_mid_vrouter_restart_records_the_outcome_and_starts_no_next_pod() {
    let state = tempfile::tempdir().unwrap();
    let audit = state.path().join("audit.jsonl");
    let scenario = legacy_never_ready(state.path());
    let mut c = Console::start(
        &[
            "demo",
            "--scenario",
            scenario.to_str().unwrap(),
            "--speed",
            "60",
            "--audit-log",
            audit.to_str().unwrap(),
        ],
        state.path(),
    );
    c.send("6");
    c.wait_for("the vRouter DaemonSet rolled, no pod up to date", |s| {
        s.contains("0/3 up to date")
    });
    c.send("\x12"); // ctrl-r: restart every outdated vRouter pod, one at a time
    c.wait_for("the confirmation, allowed", |s| {
        s.contains("[> Cancel <]") && s.contains("permission: allowed")
    });
    c.send("y");
    c.wait_for("the first pod deleted, its replacement awaited", |s| {
        s.contains("deleted; waiting for the replacement")
    });
    let before = records(&audit);
    let intents_before = before.iter().filter(|r| r["phase"] == "intent").count();
    assert_eq!(intents_before, 1, "one pod at a time: {before:#?}");

    let status = c.hang_up(EXIT_DEADLINE);

    let after = records(&audit);
    let intents: Vec<&Value> = after.iter().filter(|r| r["phase"] == "intent").collect();
    assert_eq!(
        intents.len(),
        1,
        "no further pod after the hang-up: {after:#?}"
    );
    let last = after.last().unwrap();
    assert_eq!(last["phase"], "result", "{last}");
    assert_eq!(last["plan"], intents[0]["plan"], "{last}");
    assert_eq!(last["name"], intents[0]["name"], "{last}");
    // No answer within the 5 s wait: the outcome is unknown, and said so.
    assert_eq!(last["outcome"], "interrupted", "{last}");
    assert!(
        last["message"]
            .as_str()
            .unwrap()
            .starts_with("interrupted, outcome unknown"),
        "{last}"
    );
    assert_eq!(
        status.exit_code(),
        2,
        "an outcome unknown exits 2: {status:?}"
    );
    let reports = reports(state.path());
    assert_eq!(reports.len(), 1, "{reports:?}");
    let report = std::fs::read_to_string(&reports[0]).unwrap();
    assert!(
        report.contains(intents[0]["name"].as_str().unwrap()),
        "the report names the pod restarted:\n{report}"
    );
    trace_says_gone(state.path());
}

#[test]
fn the_terminal_closed_mid_acknowledge_records_its_result_and_the_report() {
    let state = tempfile::tempdir().unwrap();
    let audit = state.path().join("audit.jsonl");
    let mut c = Console::start(
        &[
            "demo",
            "--scenario",
            "quick",
            "--speed",
            "60",
            "--audit-log",
            audit.to_str().unwrap(),
        ],
        state.path(),
    );
    c.wait_for("the manual migration waiting", |s| {
        s.contains("[a: acknowledge migration]")
    });
    c.send("a");
    c.wait_for("the confirmation, allowed", |s| {
        s.contains("[> Cancel <]") && s.contains("permission: allowed")
    });
    c.send("y");
    c.wait_for("the confirmation gone", |s| !s.contains("[> Cancel <]"));

    let status = c.hang_up(EXIT_DEADLINE);

    let after = records(&audit);
    let ack: Vec<&Value> = after
        .iter()
        .filter(|r| r["action"] == "acknowledge-migration")
        .collect();
    assert_eq!(ack.len(), 2, "intent and result: {after:#?}");
    assert_eq!(ack[0]["phase"], "intent");
    assert_eq!(ack[1]["phase"], "result");
    assert_eq!(
        after.last().unwrap(),
        ack[1],
        "the result is the last record"
    );
    let outcome = ack[1]["outcome"].as_str().unwrap();
    // The simulator answers at once: the result arrives within the wait.
    assert_eq!(outcome, "succeeded", "{:#?}", ack[1]);
    assert_eq!(
        status.exit_code(),
        0,
        "every outcome known: {status:?}; trace:\n{}",
        std::fs::read_to_string(state.path().join("state/mosk-console/mosk-console.log"))
            .unwrap_or_default()
    );
    let reports = reports(state.path());
    assert_eq!(reports.len(), 1, "{reports:?}");
    let report = std::fs::read_to_string(&reports[0]).unwrap();
    assert!(
        report.contains(ack[1]["name"].as_str().unwrap()),
        "the report names the node acknowledged:\n{report}"
    );
    trace_says_gone(state.path());
}
