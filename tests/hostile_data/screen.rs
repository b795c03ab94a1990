//! What the real crossterm backend writes, checked byte by byte: drawn with
//! ratatui's `CrosstermBackend` over a `Vec<u8>` (no TTY needed) and read
//! back with the `vte` parser (the one Alacritty uses).
//!
//! Allowed: printable characters, and the console's own styling (SGR,
//! `CSI … m`), cursor moves (CUP, `CSI row;col H`) and cursor hide/show
//! (`CSI ? 25 l/h`). Anything else (another CSI, OSC, DCS, SOS/PM/APC, a
//! two-byte ESC sequence, a C0 or C1 control, DEL, a bidi or invisible
//! format character) is a violation.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::time::{Duration, Instant};

use mosk_console::app::model::Model;
use mosk_console::config::theme::Theme;
use mosk_console::sanitize::is_format_char;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::{TerminalOptions, Viewport};
use vte::{Params, Parser, Perform};

use super::inputs::FORBIDDEN;

/// What one frame wrote.
#[derive(Debug, Default)]
pub struct FrameCheck {
    pub bytes: usize,
    /// Escape sequences of the console's own (SGR, CUP, cursor show/hide).
    pub own_sequences: usize,
    pub violations: Vec<String>,
    /// The rows of the frame, as the terminal shows them.
    pub rows: Vec<String>,
}

#[derive(Default)]
struct Reader {
    own: usize,
    violations: Vec<String>,
}

impl Reader {
    fn bad(&mut self, what: String) {
        if self.violations.len() < 8 {
            self.violations.push(what);
        }
    }
}

impl Perform for Reader {
    fn print(&mut self, c: char) {
        if c.is_control() || is_format_char(c) {
            self.bad(format!("printed control/format character {c:?}"));
        }
    }
    fn execute(&mut self, byte: u8) {
        self.bad(format!("C0/C1 control 0x{byte:02x} executed"));
    }
    fn hook(&mut self, _: &Params, _: &[u8], _: bool, action: char) {
        self.bad(format!("DCS {action:?}"));
    }
    fn put(&mut self, _: u8) {}
    fn osc_dispatch(&mut self, params: &[&[u8]], _: bool) {
        let first = params
            .first()
            .map(|p| String::from_utf8_lossy(p).into_owned());
        self.bad(format!("OSC {first:?}"));
    }
    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        let cursor_toggle = intermediates == b"?"
            && matches!(action, 'h' | 'l')
            && params.iter().flatten().copied().collect::<Vec<u16>>() == [25];
        let own =
            !ignore && (cursor_toggle || (intermediates.is_empty() && matches!(action, 'm' | 'H')));
        if own {
            self.own += 1;
        } else {
            self.bad(format!(
                "CSI {:?} {:?} {action:?}",
                String::from_utf8_lossy(intermediates),
                params.iter().collect::<Vec<_>>()
            ));
        }
    }
    fn esc_dispatch(&mut self, intermediates: &[u8], _: bool, byte: u8) {
        self.bad(format!("ESC {intermediates:?} {:?}", byte as char));
    }
}

/// Checks the bytes of one frame.
pub fn check_bytes(bytes: &[u8]) -> (usize, Vec<String>) {
    let mut reader = Reader::default();
    let mut parser = Parser::new();
    parser.advance(&mut reader, bytes);
    // vte ignores SOS/PM/APC strings silently: count ESC bytes as well, each
    // must have started one of the console's own sequences.
    let escapes = bytes.iter().filter(|&&b| b == 0x1b).count();
    if escapes != reader.own {
        reader.bad(format!(
            "{escapes} ESC bytes but {} own sequences",
            reader.own
        ));
    }
    match std::str::from_utf8(bytes) {
        Err(e) => reader.bad(format!("output is not UTF-8: {e}")),
        Ok(text) => {
            if let Some(c) = text
                .chars()
                .find(|&c| c != '\x1b' && (c.is_control() || is_format_char(c)))
            {
                reader.bad(format!("raw control/format character {c:?} written"));
            }
        }
    }
    (reader.own, reader.violations)
}

/// Remnants of injected sequences on screen.
pub fn remnants(rows: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for f in FORBIDDEN {
            if row.contains(f) {
                found.push(format!("{f:?} drawn on row {y}: {row:?}"));
            }
        }
    }
    found
}

/// How long a frame took.
#[derive(Debug, Clone, Copy)]
pub struct Took {
    pub wall: Duration,
    pub cpu: Duration,
}

/// CPU time used by this thread so far.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// A writer the test can read back after ratatui has written to it.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn rows_of(buf: &Buffer) -> Vec<String> {
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

/// Draws `model` on a fresh crossterm terminal of `w`x`h` (so every cell is
/// written, not only a diff) and checks what it wrote. Returns the check and
/// how long the frame took (derived data and `ui::draw` through the backend,
/// as the runtime draws one frame): wall clock, and the CPU time of this
/// thread (what the frame cost, whatever else the machine runs).
pub fn draw_and_check(model: &mut Model, theme: &Theme, w: u16, h: u16) -> (FrameCheck, Took) {
    let out = Shared::default();
    let backend = CrosstermBackend::new(out.clone());
    let mut terminal = Terminal::with_options(
        backend,
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, w, h)),
        },
    )
    .expect("a terminal over a Vec");
    let start = Instant::now();
    let cpu_start = thread_cpu();
    // A batch's `update` (which settles what is derived), then the frame.
    mosk_console::app::update::update(
        model,
        mosk_console::app::msg::Msg::Resize {
            width: w,
            height: h,
        },
    );
    let rows = {
        let frame = terminal
            .draw(|f| mosk_console::ui::draw(f, model, theme))
            .expect("draw");
        rows_of(frame.buffer)
    };
    let took = Took {
        wall: start.elapsed(),
        cpu: thread_cpu().saturating_sub(cpu_start),
    };
    let bytes = out.0.borrow();
    let (own_sequences, violations) = check_bytes(&bytes);
    (
        FrameCheck {
            bytes: bytes.len(),
            own_sequences,
            violations,
            rows,
        },
        took,
    )
}

#[test]
fn the_checker_catches_what_it_must() {
    // Own output passes.
    let ok = b"\x1b[1;1H\x1b[38;5;2mabc\x1b[0m\x1b[?25l";
    assert!(check_bytes(ok).1.is_empty(), "{:?}", check_bytes(ok).1);
    for bad in [
        &b"\x1b]52;c;QUJD\x07"[..],
        b"\x1b]0;title\x1b\\",
        b"\x1b[2J",
        b"\x1bP1$r0m\x1b\\",
        b"\x1b_apc\x1b\\",
        b"\x1b^pm\x1b\\",
        b"\x1bXsos\x1b\\",
        b"a\rb",
        b"\x07",
        "\u{9b}31m".as_bytes(),
        "x\u{202e}y".as_bytes(),
        b"\x1b7",
        b"\xff",
    ] {
        assert!(!check_bytes(bad).1.is_empty(), "not caught: {bad:?}");
    }
    assert_eq!(remnants(&["a ]52;c b".into()]).len(), 1);
    assert!(remnants(&["kaas-node-1 Ready".into()]).is_empty());
}
