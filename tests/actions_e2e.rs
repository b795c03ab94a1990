//! End to end: the real binary in a pseudo-terminal on `demo --dry-run`.
//! Setting a migration mode goes through the dialogs, reaches the simulated
//! cluster as a dry run, lands in the audit log and in the Audit view.

mod pty_console;

use pty_console::Console;

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
    let status = c.child.wait().unwrap();
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
