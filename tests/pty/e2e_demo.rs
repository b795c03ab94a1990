//! End to end: the real binary in a pseudo-terminal, read through a VT
//! parser. `demo` on the `quick` scenario shows the machines, the node set to
//! manual migration reaches the attention queue, `q` quits and the terminal
//! is restored.

use crate::pty_console::Console;

#[test]
fn demo_shows_the_update_and_quits_cleanly() {
    let state = tempfile::tempdir().unwrap();
    let mut c = Console::start(
        &["demo", "--scenario", "quick", "--speed", "60"],
        state.path(),
    );
    c.wait_for("the Overview", |s| {
        s.contains("Overview") && s.contains("mgmt")
    });
    assert!(
        c.parser.screen().alternate_screen(),
        "the console uses the alternate screen"
    );

    // Machines view: the seeded machines are listed.
    c.send("2");
    c.wait_for("machine rows", |s| {
        s.contains("child-cl-control") && s.contains("Ready")
    });

    // The node in manual migration mode reaches the attention queue.
    c.send("1");
    c.wait_for("the manual-migration node in the attention queue", |s| {
        s.contains("Attention (") && s.contains("manual migration")
    });

    c.quit_ok();
    let screen = c.parser.screen();
    assert!(!screen.alternate_screen(), "alternate screen left on quit");
    assert!(!screen.hide_cursor(), "cursor shown again on quit");
}

#[test]
fn demo_runs_the_controllers_scenario() {
    let state = tempfile::tempdir().unwrap();
    let mut c = Console::start(
        &["demo", "--scenario", "controllers", "--speed", "600"],
        state.path(),
    );
    c.send("2");
    c.wait_for("the controllers scenario's computes", |s| {
        s.contains("child-cl-compute") && s.contains("child-cl-control")
    });
    c.quit_ok();
}

#[test]
fn a_bad_kubeconfig_gets_a_clear_error_and_no_raw_mode() {
    let state = tempfile::tempdir().unwrap();
    let mut c = Console::start(&["--kubeconfig", "/nonexistent/kubeconfig"], state.path());
    let status = c.finish();
    assert!(!status.success());
    let screen = c.screen();
    assert!(screen.contains("/nonexistent/kubeconfig"), "{screen}");
    assert!(!c.parser.screen().alternate_screen());
}

/// SIGTERM (systemd, `kill`) and SIGHUP (the SSH session dropped) quit the
/// console cleanly: exit 0, alternate screen left, cursor shown again.
#[test]
fn sigterm_and_sighup_quit_and_restore_the_terminal() {
    for signal in ["TERM", "HUP"] {
        let state = tempfile::tempdir().unwrap();
        let mut c = Console::start(
            &["demo", "--scenario", "quick", "--speed", "60"],
            state.path(),
        );
        c.wait_for("the Overview", |s| {
            s.contains("Overview") && s.contains("mgmt")
        });
        assert!(c.parser.screen().alternate_screen());
        let pid = c.child.process_id().expect("the console's pid");
        let sent = std::process::Command::new("kill")
            .args([format!("-{signal}"), pid.to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -{signal} {pid}");
        let status = c.finish();
        assert!(
            status.success(),
            "SIG{signal}: exit status {status:?}; screen:\n{}",
            c.screen()
        );
        let screen = c.parser.screen();
        assert!(
            !screen.alternate_screen(),
            "SIG{signal}: alternate screen left on"
        );
        assert!(!screen.hide_cursor(), "SIG{signal}: cursor still hidden");
    }
}

/// `demo` keeps its own files: its audit log and report go to the state
/// directory's `demo/` folder, never into the real audit log, and every
/// record, the report and the Audit view say they are simulated.
#[test]
fn demo_writes_its_own_audit_log_and_report_marked_simulated() {
    let state = tempfile::tempdir().unwrap();
    let mut c = Console::start(
        &["demo", "--scenario", "quick", "--speed", "60"],
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
    c.wait_for("the acknowledge done", |s| s.contains("1 of 1 done"));
    c.send("\r");
    c.wait_for("the progress closed", |s| !s.contains("1 of 1 done"));
    c.send("9");
    c.wait_for("the Audit view, marked simulated", |s| {
        s.contains("Audit: SIMULATED (demo)") && s.contains("Acknowledge migration")
    });
    c.quit_ok();

    let real = state.path().join("state/mosk-console");
    assert!(
        !real.join("audit.jsonl").exists(),
        "the real audit log is untouched"
    );
    let demo = real.join("demo");
    let text = std::fs::read_to_string(demo.join("audit.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2, "{text}");
    assert!(records.iter().all(|r| r["simulated"] == true), "{text}");
    let reports: Vec<std::path::PathBuf> = std::fs::read_dir(&demo)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    assert_eq!(reports.len(), 1, "{reports:?}");
    let name = reports[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(name.starts_with("report-demo-"), "{name}");
    let report = std::fs::read_to_string(&reports[0]).unwrap();
    assert!(report.contains("**SIMULATED:**"), "{report}");
    assert!(
        !std::fs::read_dir(&real).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("report-")),
        "no report among the real ones"
    );
}
