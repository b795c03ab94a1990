//! End to end: the real binary in a pseudo-terminal on `demo --dry-run`.
//! Setting a migration mode goes through the dialogs, reaches the simulated
//! cluster as a dry run, lands in the audit log and in the Audit view.

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const COLS: u16 = 120;
const ROWS: u16 = 36;

struct Console {
    parser: vt100::Parser,
    rx: mpsc::Receiver<Vec<u8>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Console {
    fn start(args: &[&str], state: &std::path::Path) -> Console {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_mosk-console"));
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env("HOME", state);
        cmd.env("XDG_STATE_HOME", state.join("state"));
        cmd.env_remove("KUBECONFIG");
        let child = pty.slave.spawn_command(cmd).expect("spawn mosk-console");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().unwrap();
        let writer = pty.master.take_writer().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        std::mem::forget(pty.master);
        Console {
            parser: vt100::Parser::new(ROWS, COLS, 0),
            rx,
            writer,
            child,
        }
    }

    fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// Feeds output until `pred` holds; the deadline is a safety net only.
    fn wait_for(&mut self, what: &str, pred: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            if pred(&self.screen()) {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(bytes) => self.parser.process(&bytes),
                Err(_) => panic!("timed out waiting for {what}; screen:\n{}", self.screen()),
            }
        }
    }

    fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }
}

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
