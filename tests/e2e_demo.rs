//! End to end: the real binary in a pseudo-terminal, read through a VT
//! parser. `demo` on the `quick` scenario shows the machines, the node set to
//! manual migration reaches the attention queue, `q` quits and the terminal
//! is restored.

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const COLS: u16 = 120;
const ROWS: u16 = 36;

/// A running console in a pty, with its screen as a VT parser sees it.
struct Console {
    parser: vt100::Parser,
    rx: mpsc::Receiver<Vec<u8>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    _state: tempfile::TempDir,
}

impl Console {
    fn start(args: &[&str]) -> Console {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pty");
        let state = tempfile::tempdir().unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_mosk-console"));
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env("HOME", state.path());
        cmd.env("XDG_STATE_HOME", state.path().join("state"));
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
        // Keep the master alive for as long as the console runs.
        std::mem::forget(pty.master);
        Console {
            parser: vt100::Parser::new(ROWS, COLS, 0),
            rx,
            writer,
            child,
            _state: state,
        }
    }

    fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// Feeds output to the parser until `pred` holds for the screen. The
    /// deadline is a safety net against a hung console, not a wait.
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

    /// Reads the rest of the output and waits for the process to exit.
    fn finish(&mut self) -> portable_pty::ExitStatus {
        let status = self.child.wait().expect("wait for mosk-console");
        while let Ok(bytes) = self.rx.recv_timeout(Duration::from_millis(500)) {
            self.parser.process(&bytes);
        }
        status
    }
}

#[test]
fn demo_shows_the_update_and_quits_cleanly() {
    let mut c = Console::start(&["demo", "--scenario", "quick", "--speed", "60"]);
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
        s.to_lowercase().contains("manual migration")
    });

    c.send("q");
    let status = c.finish();
    assert!(
        status.success(),
        "exit status {status:?}; screen:\n{}",
        c.screen()
    );
    let screen = c.parser.screen();
    assert!(!screen.alternate_screen(), "alternate screen left on quit");
    assert!(!screen.hide_cursor(), "cursor shown again on quit");
}

#[test]
fn a_bad_kubeconfig_gets_a_clear_error_and_no_raw_mode() {
    let mut c = Console::start(&["--kubeconfig", "/nonexistent/kubeconfig"]);
    let status = c.finish();
    assert!(!status.success());
    let screen = c.screen();
    assert!(screen.contains("/nonexistent/kubeconfig"), "{screen}");
    assert!(!c.parser.screen().alternate_screen());
}
