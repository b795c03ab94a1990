//! The real binary in a pseudo-terminal, its screen read through a VT
//! parser (vt100). Shared by the end-to-end tests.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

pub const COLS: u16 = 120;
pub const ROWS: u16 = 36;

/// How long any harness wait lasts before it fails the test. A safety net
/// against a hung console, not a wait: every wait ends as soon as what it
/// waits for happens.
pub const PATIENCE: Duration = Duration::from_secs(90);

/// A running console in a pty, with its screen as a VT parser sees it.
pub struct Console {
    pub parser: vt100::Parser,
    /// Every byte the console wrote, in order.
    pub raw: Vec<u8>,
    rx: mpsc::Receiver<Vec<u8>>,
    writer: Box<dyn Write + Send>,
    master: Box<dyn portable_pty::MasterPty + Send>,
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    /// Stops the reader thread, which holds its own copy of the master's
    /// descriptor (the pty hangs up only when every copy is closed).
    stop: Arc<AtomicBool>,
    reader: std::thread::JoinHandle<()>,
    /// Kills the console when the test lets go of it without waiting for
    /// its exit (a failed wait panics): no console outlives its test.
    _reaper: KillOnDrop,
}

/// SIGKILL to a process through its pidfd when dropped: the pidfd names
/// that process only, so a pid reused after the exit is never hit, and a
/// process that has exited already is a no-op.
struct KillOnDrop(std::fs::File);

impl KillOnDrop {
    fn of(pid: u32) -> KillOnDrop {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
        assert!(
            fd >= 0,
            "pidfd_open({pid}): {}",
            std::io::Error::last_os_error()
        );
        // SAFETY: the descriptor is new and only this File owns it.
        KillOnDrop(unsafe { std::fs::File::from_raw_fd(fd as i32) })
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: a pidfd this value owns, a signal, no info, no flags.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                self.0.as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        };
    }
}

/// A copy of the master's descriptor, closed when dropped. Not
/// portable-pty's writer: dropping that one types newline and EOF into the
/// console first.
fn dup_master(master: &dyn portable_pty::MasterPty) -> std::fs::File {
    let fd = master.as_raw_fd().expect("the pty master's descriptor");
    // SAFETY: dup returns a new descriptor that only this File owns.
    let copy = unsafe { libc::dup(fd) };
    assert!(copy >= 0, "dup the pty master");
    unsafe { std::fs::File::from_raw_fd(copy) }
}

/// How the console is started besides its arguments.
pub struct Options<'a> {
    pub cols: u16,
    pub rows: u16,
    /// Extra environment (`TERM` is `xterm-256color` unless set here).
    pub env: &'a [(&'a str, &'a str)],
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            cols: COLS,
            rows: ROWS,
            env: &[],
        }
    }
}

impl Console {
    /// Starts the binary with `args`; its HOME and XDG state directory are
    /// `state` (so the trace and audit logs stay in the test's directory).
    pub fn start(args: &[&str], state: &std::path::Path) -> Console {
        Console::start_with(args, state, Options::default())
    }

    /// Like [`Console::start`], at a given size and with extra environment.
    pub fn start_with(args: &[&str], state: &std::path::Path, opts: Options) -> Console {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: opts.rows,
                cols: opts.cols,
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
        cmd.env_remove("NO_COLOR");
        for (k, v) in opts.env {
            cmd.env(k, v);
        }
        let child = pty.slave.spawn_command(cmd).expect("spawn mosk-console");
        let reaper = KillOnDrop::of(child.process_id().expect("the console's pid"));
        drop(pty.slave);
        let mut reader = dup_master(pty.master.as_ref());
        let writer = dup_master(pty.master.as_ref());
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let reader = std::thread::spawn(move || {
            use std::os::fd::AsRawFd;
            let mut buf = [0u8; 8192];
            while !stopped.load(Ordering::SeqCst) {
                let mut pfd = libc::pollfd {
                    fd: reader.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd. A bounded wait, so `stop` is seen.
                if unsafe { libc::poll(&mut pfd, 1, 50) } <= 0 {
                    continue;
                }
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
        Console {
            parser: vt100::Parser::new(opts.rows, opts.cols, 0),
            raw: Vec::new(),
            rx,
            writer: Box::new(writer),
            // Kept for as long as the console runs (and to resize it).
            master: pty.master,
            child,
            stop,
            reader,
            _reaper: reaper,
        }
    }

    /// Resizes the pty (the console gets SIGWINCH) and the parser's screen.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize the pty");
        self.parser.screen_mut().set_size(rows, cols);
    }

    fn feed(&mut self, bytes: &[u8]) {
        self.raw.extend_from_slice(bytes);
        self.parser.process(bytes);
    }

    pub fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// Feeds output to the parser until `pred` holds for the screen. The
    /// deadline is a safety net against a hung console, not a wait.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if pred(&self.screen()) {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(bytes) => self.feed(&bytes),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("waited {PATIENCE:?} for {what}; screen:\n{}", self.screen())
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => panic!(
                    "the console's output ended while waiting for {what}; screen:\n{}",
                    self.screen()
                ),
            }
        }
    }

    /// Like [`Console::wait_for`], but gives up after `within` and says
    /// whether `pred` came to hold (for a test that reports what it measured
    /// either way, not for trying a step again).
    pub fn try_wait_for(&mut self, within: Duration, pred: impl Fn(&str) -> bool) -> bool {
        let deadline = Instant::now() + within;
        loop {
            if pred(&self.screen()) {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(bytes) => self.feed(&bytes),
                Err(_) => return false,
            }
        }
    }

    pub fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Reads the rest of the output and waits for the process to exit.
    /// Presses `q` and waits for the console to exit; it must exit with
    /// success (the screen is shown otherwise).
    pub fn quit_ok(&mut self) {
        self.send("q");
        let status = self.finish();
        assert!(
            status.success(),
            "exit status {status:?}; screen:\n{}",
            self.screen()
        );
    }

    /// Waits for the console to exit, then reads its output to the end (the
    /// pty hangs up once the console is gone). Each wait fails the test after
    /// [`PATIENCE`], saying what it waited for and showing the screen.
    pub fn finish(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        let pid = self.child.process_id().expect("the console's pid");
        if !exited_by(pid, deadline) {
            // Show the screen as it is now, not as it was at the last wait.
            while let Ok(bytes) = self.rx.try_recv() {
                self.feed(&bytes);
            }
            panic!(
                "waited {PATIENCE:?} for mosk-console (pid {pid}) to exit; screen:\n{}",
                self.screen()
            );
        }
        // It has exited: this returns at once.
        let status = self.child.wait().expect("wait for mosk-console");
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(bytes) => self.feed(&bytes),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => panic!(
                    "mosk-console exited ({status:?}) but its pty did not hang up within \
                     {PATIENCE:?} (something else holds the terminal?); screen:\n{}",
                    self.screen()
                ),
            }
        }
        status
    }

    /// Closes the terminal as an SSH drop does: every descriptor of the
    /// pty's master is closed, so the console gets SIGHUP and `EIO` on its
    /// tty. Returns the exit status, waiting at most `within`.
    pub fn hang_up(mut self, within: Duration) -> portable_pty::ExitStatus {
        self.stop.store(true, Ordering::SeqCst);
        self.reader.join().expect("the pty reader thread");
        // Fields, not `feed`: the reader is moved out of `self` already.
        while let Ok(bytes) = self.rx.try_recv() {
            self.parser.process(&bytes);
        }
        let screen = self.parser.screen().contents();
        drop(self.writer);
        drop(self.master);
        let mut child = self.child;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        match rx.recv_timeout(within) {
            Ok(status) => status.expect("wait for mosk-console"),
            Err(_) => panic!(
                "waited {within:?} for mosk-console to exit after the hang-up; \
                 screen before the hang-up:\n{screen}"
            ),
        }
    }
}

/// Whether process `pid` (a child of this one, not yet reaped) has exited by
/// `deadline`: polls a pidfd, which becomes readable when the process exits,
/// so the wait ends at the exit rather than at a sleep's end.
fn exited_by(pid: u32, deadline: Instant) -> bool {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    assert!(
        fd >= 0,
        "pidfd_open({pid}): {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: the descriptor is new and only this File owns it.
    let pidfd = unsafe { std::fs::File::from_raw_fd(fd as i32) };
    loop {
        use std::os::fd::AsRawFd;
        let left = deadline.saturating_duration_since(Instant::now());
        let mut pfd = libc::pollfd {
            fd: pidfd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = left.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd.
        match unsafe { libc::poll(&mut pfd, 1, ms) } {
            1.. => return true,
            0 => return false,
            _ => {
                let err = std::io::Error::last_os_error();
                assert_eq!(
                    err.kind(),
                    std::io::ErrorKind::Interrupted,
                    "poll a pidfd: {err}"
                );
            }
        }
    }
}
