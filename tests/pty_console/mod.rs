//! The real binary in a pseudo-terminal, its screen read through a VT
//! parser (vt100). Shared by the end-to-end tests.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

pub const COLS: u16 = 120;
pub const ROWS: u16 = 36;

/// A running console in a pty, with its screen as a VT parser sees it.
pub struct Console {
    pub parser: vt100::Parser,
    rx: mpsc::Receiver<Vec<u8>>,
    writer: Box<dyn Write + Send>,
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Console {
    /// Starts the binary with `args`; its HOME and XDG state directory are
    /// `state` (so the trace and audit logs stay in the test's directory).
    pub fn start(args: &[&str], state: &std::path::Path) -> Console {
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
        // Keep the master alive for as long as the console runs.
        std::mem::forget(pty.master);
        Console {
            parser: vt100::Parser::new(ROWS, COLS, 0),
            rx,
            writer,
            child,
        }
    }

    pub fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// Feeds output to the parser until `pred` holds for the screen. The
    /// deadline is a safety net against a hung console, not a wait.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&str) -> bool) {
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

    pub fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Reads the rest of the output and waits for the process to exit.
    pub fn finish(&mut self) -> portable_pty::ExitStatus {
        let status = self.child.wait().expect("wait for mosk-console");
        while let Ok(bytes) = self.rx.recv_timeout(Duration::from_millis(500)) {
            self.parser.process(&bytes);
        }
        status
    }
}
