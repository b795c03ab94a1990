//! End to end: the real binary in a pseudo-terminal on `demo --dry-run`.
//! Setting a migration mode goes through the dialogs, reaches the simulated
//! cluster as a dry run, lands in the audit log and in the Audit view.

use crate::pty_console::Console;

#[test]
fn a_dry_run_action_goes_through_the_dialogs_into_the_audit_log() {
    let state = tempfile::tempdir().unwrap();
    let audit = state.path().join("audit.jsonl");
    let audit_arg = audit.to_str().unwrap().to_string();
    let mut c = Console::start(
        &[
            "demo",
            "--scenario",
            "quick",
            "--speed",
            "1",
            "--dry-run",
            "--audit-log",
            &audit_arg,
        ],
        state.path(),
    );
    c.send("2");
    c.wait_for("machine rows", |s| s.contains("child-cl-control"));
    c.send("m");
    c.wait_for("the migration-mode picker", |s| {
        s.contains("Set migration mode") && s.contains("DRY-RUN") && s.contains("(*) live")
    });
    c.send("j\r");
    c.wait_for("the confirmation with Cancel focused", |s| {
        s.contains("[> Cancel <]") && s.contains("-> manual") && s.contains("sim-mosk")
    });
    c.wait_for("the permission answer", |s| {
        s.contains("permission: allowed")
    });
    c.send("y");
    c.wait_for("the dry run's outcome", |s| s.contains("nothing changed"));
    c.send("\r9");
    c.wait_for("the Audit view row", |s| {
        s.contains("Set migration mode") && s.contains("dry-run succeeded")
    });
    c.send("q");
    let status = c.finish();
    assert!(status.success(), "{status:?}");

    let text = std::fs::read_to_string(&audit).unwrap();
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2, "{text}");
    assert_eq!(records[0]["phase"], "intent");
    assert_eq!(records[1]["phase"], "result");
    assert_eq!(records[1]["outcome"], "succeeded");
    assert!(
        records
            .iter()
            .all(|r| r["dry_run"] == true && r["context"] == "sim-mosk")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&audit).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}

/// A scenario whose only compute's replacement vRouter pod never becomes
/// Ready, with short phases: a restart stays in flight for as long as the
/// console waits.
const NEVER_READY: &str = "name = \"exit-e2e\"\nvrouter_manual_restart = true\nrelease = { from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }\n\
    [[machines]]\nrole = \"control\"\ncount = 1\n\
    [[machines]]\nrole = \"compute\"\ncount = 1\ninstances = 0\n\
    [[overrides]]\nrole = \"compute\"\nindex = 0\nvrouter_never_ready = true\n";

/// Starts a live vRouter restart that never finishes, and returns once its
/// progress shows it waiting for the replacement.
fn restart_in_flight(state: &std::path::Path, audit: &str) -> Console {
    let scenario = state.join("never-ready.toml");
    let durations = include_str!("../data/short_durations.toml");
    std::fs::write(&scenario, format!("{NEVER_READY}{durations}")).unwrap();
    let mut c = Console::start(
        &[
            "demo",
            "--scenario",
            scenario.to_str().unwrap(),
            "--speed",
            "30",
            "--audit-log",
            audit,
        ],
        state,
    );
    c.send("2");
    c.wait_for("an outdated vRouter", |s| s.contains("outdated"));
    c.send("\x12"); // ctrl-r: restart all outdated vRouter pods
    c.wait_for("the confirmation, allowed", |s| {
        s.contains("[> Cancel <]") && s.contains("permission: allowed")
    });
    c.send("y");
    c.wait_for("the restart waiting for its replacement", |s| {
        s.contains("deleted; waiting for the replacement")
    });
    c
}

fn last_record(audit: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(audit).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

/// `q` with the write in flight asks first; `y` quits, the console waits a
/// few seconds for the answer, then records the outcome as unknown, says so
/// on stderr and exits non-zero.
#[test]
fn quit_with_a_write_in_flight_asks_then_records_the_outcome_as_unknown() {
    let state = tempfile::tempdir().unwrap();
    let audit = state.path().join("audit.jsonl");
    let mut c = restart_in_flight(state.path(), audit.to_str().unwrap());
    c.send("q");
    c.wait_for("the question", |s| {
        s.contains("a write is in flight: quit anyway? y/n")
    });
    c.send("y");
    let status = c.finish();
    assert!(!status.success(), "{status:?}");
    assert_eq!(status.exit_code(), 2, "{status:?}");
    let screen = c.screen();
    assert!(!c.parser.screen().alternate_screen());
    assert!(
        screen.contains("waiting up to 5 s for the write in flight")
            && screen.contains("interrupted, outcome unknown"),
        "{screen}"
    );
    let last = last_record(&audit);
    assert_eq!(last["phase"], "result", "{last}");
    assert_eq!(last["outcome"], "interrupted", "{last}");
    assert_eq!(last["kind"], "Pod", "{last}");
}

/// A hang-up (the SSH session dropped) does not ask, but waits the same way.
#[test]
fn a_hang_up_with_a_write_in_flight_records_the_outcome_as_unknown() {
    let state = tempfile::tempdir().unwrap();
    let audit = state.path().join("audit.jsonl");
    let mut c = restart_in_flight(state.path(), audit.to_str().unwrap());
    let pid = c.child.process_id().expect("the console's pid");
    let sent = std::process::Command::new("kill")
        .args(["-HUP".to_string(), pid.to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let status = c.finish();
    assert_eq!(status.exit_code(), 2, "{status:?}; screen:\n{}", c.screen());
    assert!(c.screen().contains("interrupted, outcome unknown"));
    assert_eq!(last_record(&audit)["outcome"], "interrupted");
}
