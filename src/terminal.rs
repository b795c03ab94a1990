//! The real terminal: raw mode and the alternate screen on, a panic hook that
//! restores it, keys read from crossterm's event stream into the message
//! channel, and SIGTERM/SIGHUP turned into a clean quit.
//!
//! Only the interactive binary uses this module: `EventStream` panics without
//! a TTY, so tests drive the loop through the message channel instead.
//!
//! **The terminal going away** (an SSH drop: SIGHUP, then `EIO` on every read
//! and write of the tty) is remembered once, process-wide ([`gone`]): from
//! then on nothing is drawn and no key read, and nothing here prints (a
//! `print!` to a dead tty panics); what is left to say goes to the trace log
//! and to stderr only where a write error is ignored.

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, Event, EventStream, KeyEventKind,
};
use crossterm::execute;
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::app::msg::Msg;

pub type Tui = Terminal<CrosstermBackend<Stdout>>;

static GONE: AtomicBool = AtomicBool::new(false);

/// Whether the terminal went away (hang-up, or the tty failing with `EIO`/`ENXIO`).
pub fn gone() -> bool {
    GONE.load(Ordering::SeqCst)
}

/// Records that the terminal went away: nothing is drawn from now on.
pub fn mark_gone(why: &str) {
    if !GONE.swap(true, Ordering::SeqCst) {
        tracing::warn!("the terminal went away ({why}): no more drawing or keys");
    }
}

/// Whether `e`, from a read or write of the tty, means the terminal is gone:
/// `EIO` (the pty's other end closed), `ENXIO` (no such device any more),
/// or a broken pipe.
pub fn is_gone_error(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
        || matches!(e.raw_os_error(), Some(code) if code == libc::EIO || code == libc::ENXIO)
}

/// Why this process cannot draw the console, checked before anything
/// writes to the terminal: `TERM=dumb`, or stdin or stdout not a terminal
/// (`ssh host mosk-console` without `-t`, a pipe, cron). One line, no escape
/// bytes; the caller prints it and exits with code 2.
pub fn unusable() -> Option<String> {
    use std::io::IsTerminal;
    unusable_with(
        std::env::var_os("TERM").as_deref(),
        io::stdin().is_terminal(),
        io::stdout().is_terminal(),
    )
}

/// [`unusable`] on given facts (for tests).
pub fn unusable_with(
    term: Option<&std::ffi::OsStr>,
    stdin_tty: bool,
    stdout_tty: bool,
) -> Option<String> {
    const HINT: &str = "run it in an interactive terminal; over SSH use `ssh -t HOST mosk-console`";
    if term.is_some_and(|t| t == "dumb") {
        return Some(format!(
            "the terminal is TERM=dumb and cannot draw the console: {HINT}"
        ));
    }
    let missing = match (stdin_tty, stdout_tty) {
        (true, true) => return None,
        (false, false) => "stdin and stdout are not a terminal",
        (false, true) => "stdin is not a terminal",
        (true, false) => "stdout is not a terminal",
    };
    Some(format!("{missing}: {HINT}"))
}

/// Enters raw mode and the alternate screen, with a panic hook that
/// restores the terminal before the panic report prints. If any step fails,
/// what was already switched on is switched off again, so the error prints
/// on a normal terminal. Not `ratatui::try_init`: its hook restores with an
/// `eprintln!`, which panics again inside the hook (an abort, exit 134) when
/// the terminal is gone.
pub fn enter() -> io::Result<Tui> {
    exit_after_panic();
    let entered = crossterm::terminal::enable_raw_mode()
        .and_then(|()| {
            execute!(
                io::stdout(),
                crossterm::terminal::EnterAlternateScreen,
                EnableBracketedPaste
            )
        })
        .and_then(|()| Terminal::new(CrosstermBackend::new(io::stdout())));
    if entered.is_err() {
        leave();
    }
    entered
}

/// A panic in any task ends the process once the terminal is restored and
/// the report printed: a console that lost a task would otherwise keep
/// drawing on a normal-mode screen.
fn exit_after_panic() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        leave();
        if gone() {
            // The report hook prints to stderr, and a print to a dead tty
            // panics inside the hook (an abort): the trace log gets it.
            tracing::error!("panic after the terminal went away: {info}");
        } else {
            report(info);
        }
        std::process::exit(101);
    }));
}

/// Leaves raw mode and the alternate screen. Safe to call more than once,
/// and after the terminal is gone (every error is ignored, nothing printed).
pub fn leave() {
    let _ = execute!(io::stdout(), DisableBracketedPaste);
    let _ = ratatui::try_restore();
}

/// Reads terminal events into `tx` until cancelled or the terminal goes away
/// (an SSH hang-up ends the stream: the console then quits instead of spinning).
pub fn spawn_input(tx: UnboundedSender<Msg>, cancel: CancellationToken) {
    tokio::spawn(async move {
        let mut events = EventStream::new();
        loop {
            let next = tokio::select! {
                _ = cancel.cancelled() => break,
                ev = events.next() => ev,
            };
            let msg = match next {
                Some(Ok(Event::Key(k))) if k.kind == KeyEventKind::Press => Msg::Key(k),
                Some(Ok(Event::Paste(text))) => Msg::Paste(text),
                Some(Ok(Event::Resize(width, height))) => Msg::Resize { width, height },
                Some(Ok(_)) => continue,
                // The terminal is gone (hang-up) or broken: quit.
                Some(Err(e)) => {
                    mark_gone(&format!("reading keys: {e}"));
                    let _ = tx.send(quit_msg());
                    break;
                }
                None => {
                    mark_gone("the key stream ended");
                    let _ = tx.send(quit_msg());
                    break;
                }
            };
            if tx.send(msg).is_err() {
                break;
            }
        }
    });
}

/// Turns SIGTERM, SIGHUP and SIGINT into a quit message. The handlers are
/// registered before this returns (only the waiting is spawned): call it
/// before entering raw mode, so no signal can kill the process between the
/// first frame and the handlers and leave the terminal in raw mode.
/// Must be called inside a tokio runtime.
pub fn spawn_signals(tx: UnboundedSender<Msg>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut hup), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
            signal(SignalKind::interrupt()),
        ) else {
            tracing::warn!(
                "cannot install the signal handlers: SIGTERM and SIGHUP kill the console without a clean quit"
            );
            return;
        };
        tokio::spawn(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = hup.recv() => mark_gone("SIGHUP"),
                _ = int.recv() => {}
            }
            let _ = tx.send(quit_msg());
        });
    }
}

/// A message that quits the console: Ctrl-C always quits.
fn quit_msg() -> Msg {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))
}

#[cfg(test)]
mod tests {
    use super::unusable_with;
    use std::ffi::OsStr;

    #[test]
    fn dumb_terminals_and_missing_ttys_are_refused_with_the_ssh_hint() {
        let xterm = Some(OsStr::new("xterm-256color"));
        assert_eq!(unusable_with(xterm, true, true), None);
        assert_eq!(unusable_with(None, true, true), None);
        for (term, stdin, stdout, what) in [
            (Some(OsStr::new("dumb")), true, true, "TERM=dumb"),
            (xterm, false, true, "stdin is not a terminal"),
            (xterm, true, false, "stdout is not a terminal"),
            (xterm, false, false, "stdin and stdout"),
        ] {
            let m = unusable_with(term, stdin, stdout).expect("refused");
            assert!(m.contains(what) && m.contains("ssh -t"), "{m}");
            assert!(!m.contains('\n') && !m.contains('\x1b'), "{m:?}");
        }
    }
}
