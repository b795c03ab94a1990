//! The trace log records every action step: it and the state directory that
//! holds it (with the audit log) are private, whether they are new or were
//! left wider by an older version. One test per binary: it installs the
//! process-wide tracing subscriber.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use mosk_console::logging::{TRACE_FILE, init_in};

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_trace_log_and_state_dir_are_private_and_a_narrowing_is_logged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("state/mosk-console");
    // As an older version left them: world-readable.
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let log = dir.join(TRACE_FILE);
    std::fs::write(&log, "an older line\n").unwrap();
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();

    let (path, guard) = init_in(&dir).expect("tracing starts");
    assert_eq!(path, log);
    assert_eq!(mode(&dir), 0o700, "state directory");
    assert_eq!(mode(&log), 0o600, "trace log");
    tracing::info!("action step: patch node kaas-node-1");
    drop(guard); // flushes the writer thread

    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.starts_with("an older line\n"),
        "appended, not truncated: {text}"
    );
    assert!(
        text.contains("action step: patch node kaas-node-1"),
        "{text}"
    );
    assert!(text.contains("was mode 755: narrowed to 700"), "{text}");
    assert!(text.contains("was mode 644: narrowed to 600"), "{text}");

    // A fresh state directory and log are created private.
    let fresh = tmp.path().join("fresh/mosk-console");
    mosk_console::logging::private_dir(&fresh).unwrap();
    let (_f, _) = mosk_console::logging::private_file(&fresh.join(TRACE_FILE)).unwrap();
    assert_eq!(mode(&fresh), 0o700);
    assert_eq!(mode(&fresh.join(TRACE_FILE)), 0o600);
}
