//! End to end, the real binary: what the screen says can be trusted.
//! - A terminal too small to draw lets no key act: `2 G k a y` (and the
//!   set-migration-mode keys) at 40x10 reach no write, and an open dialog
//!   stays open and unconfirmed.
//! - Killing the API servers under a running console marks the panes STALE;
//!   bringing them back removes the marks.
//! - No TTY, or `TERM=dumb`: one line that says to use `ssh -t`, exit code 2,
//!   no escape byte written.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use crate::pty_console::{COLS, Console, Options, ROWS};

fn audit_records(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

#[test]
fn keys_at_a_terminal_too_small_to_draw_reach_no_write() {
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
            "--audit-log",
            &audit_arg,
        ],
        state.path(),
    );
    c.wait_for("the Overview", |s| {
        s.contains("Overview") && s.contains("mgmt")
    });

    // Too small: the keys that would select the manual node and acknowledge
    // it, or set its migration mode, do nothing.
    c.resize(40, 10);
    c.wait_for("terminal too small", |s| s.contains("terminal too small"));
    let keys = "2Gkay2Gkmj\ry";
    c.send(keys);
    // Every key read while still too small: a key left to arrive after the
    // resize would act at full size.
    let ignored = format!("{} keys ignored", keys.chars().count());
    c.wait_for(&ignored, |s| s.contains(&ignored));
    c.resize(COLS, ROWS);
    c.wait_for("the Overview again, no dialog", |s| {
        s.contains("Update") && s.contains("Attention") && !s.contains("terminal too small")
    });
    let screen = c.screen();
    assert!(
        !screen.contains("Acknowledge") && !screen.contains("Set migration mode"),
        "{screen}"
    );

    // The same keys at full size open the dialogs (so the above can fail),
    // each sent once the screen shows what the previous one did: an action
    // key acts on the row the last frame drew under the cursor.
    c.send("2");
    c.wait_for("the Machines view with a cursor", |s| {
        s.contains("Machines (") && machine_cursor(s).is_some()
    });
    c.send("G");
    c.wait_for("the cursor on the last machine", |s| {
        machine_cursor(s).is_some_and(|(at, rows, _)| at + 1 == rows)
    });
    c.send("k");
    c.wait_for("the cursor on the manual compute above it", |s| {
        machine_cursor(s).is_some_and(|(at, rows, row)| at + 2 == rows && row.contains(" manual "))
    });
    c.send("m");
    c.wait_for("the migration-mode picker on manual", |s| {
        s.contains("Set migration mode") && s.contains("(*) manual")
    });
    c.send("j");
    c.wait_for("skip chosen", |s| s.contains("(*) skip"));
    c.send("\r");
    c.wait_for("the confirmation, Cancel focused, allowed", |s| {
        s.contains("Set migration mode")
            && s.contains("[> Cancel <]")
            && s.contains("permission: allowed")
    });
    // Shrunk with the dialog open: y, Tab and Enter do nothing.
    c.resize(40, 10);
    c.wait_for("terminal too small", |s| s.contains("terminal too small"));
    c.send("y\t\r");
    // All three read while too small (none left to arrive after the resize).
    c.wait_for("three keys ignored", |s| s.contains("3 keys ignored"));
    c.resize(COLS, ROWS);
    c.wait_for("the dialog still open, Cancel still focused", |s| {
        s.contains("Set migration mode") && s.contains("[> Cancel <]")
    });
    c.send("n");
    c.wait_for("the dialog closed", |s| !s.contains("Set migration mode"));
    c.send("q");
    let status = c.finish();
    assert!(status.success(), "{status:?}");
    assert_eq!(audit_records(&audit), Vec::<String>::new(), "no write");
}

/// The Machines table's cursor: its row's index, the number of rows and
/// the row's text (rows are the lines after the `NAME` header up to the
/// first blank one; the cursor's row starts with `>`).
fn machine_cursor(screen: &str) -> Option<(usize, usize, String)> {
    let rows: Vec<&str> = screen
        .lines()
        .skip_while(|l| !l.contains(" NAME "))
        .skip(1)
        .take_while(|l| {
            !l.trim_matches(|c: char| c == '│' || c.is_whitespace())
                .is_empty()
        })
        .collect();
    let at = rows.iter().position(|l| l.starts_with("│>"))?;
    Some((at, rows.len(), rows[at].to_string()))
}

/// `mosk-console sim serve` on fixed loopback ports, ready when it says so.
fn serve(dir: &std::path::Path, ports: (u16, u16)) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mosk-console"))
        .args(["sim", "serve", "--scenario", "quick", "--speed", "1"])
        .args(["--mgmt-port", &ports.0.to_string()])
        .args(["--mosk-port", &ports.1.to_string()])
        .arg("--kubeconfig-out")
        .arg(dir.join("kubeconfig"))
        .env("HOME", dir)
        .env("XDG_STATE_HOME", dir.join("state"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start sim serve");
    let out = child.stdout.take().unwrap();
    let mut lines = BufReader::new(out).lines();
    for line in lines.by_ref() {
        if line.expect("sim serve output").contains("Press Ctrl-C") {
            break;
        }
    }
    // Keep draining its output so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    child
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn killing_the_api_servers_marks_the_panes_stale_until_they_return() {
    let dir = tempfile::tempdir().unwrap();
    let ports = (free_port(), free_port());
    let mut sim = serve(dir.path(), ports);
    let kubeconfig = dir.path().join("kubeconfig");
    let mut c = Console::start(
        &[
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "--mgmt-context",
            "sim-mgmt",
            "--mosk-context",
            "sim-mosk",
        ],
        dir.path(),
    );
    c.wait_for("the Overview, every watch listed", |s| {
        s.contains("watches 18/18 ok") && s.contains("phase") && !s.contains("loading")
    });
    assert!(!c.screen().contains("STALE"), "{}", c.screen());

    sim.kill().unwrap();
    sim.wait().unwrap();
    let killed = std::time::Instant::now();
    c.wait_for("the STALE marks", |s| {
        s.contains("STALE: mgmt and mosk APIs unreachable")
            && s.contains("(stale)")
            && !s.contains("nothing waits for a human")
    });

    eprintln!(
        "STALE marks on screen {:?} after the kill",
        killed.elapsed()
    );
    let mut sim = serve(dir.path(), ports);
    let back = std::time::Instant::now();
    c.wait_for("the marks gone", |s| {
        !s.contains("STALE") && !s.contains("(stale)") && s.contains("watches 18/18 ok")
    });
    eprintln!(
        "marks gone {:?} after the servers came back",
        back.elapsed()
    );
    c.send("q");
    let status = c.finish();
    sim.kill().unwrap();
    sim.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn without_a_tty_one_line_says_to_use_ssh_t_and_exits_2() {
    let state = tempfile::tempdir().unwrap();
    for args in [
        &["demo", "--scenario", "quick"][..],
        &["--kubeconfig", "/nonexistent/kubeconfig"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mosk-console"))
            .args(args)
            .env("TERM", "xterm-256color")
            .env("HOME", state.path())
            .env("XDG_STATE_HOME", state.path().join("state"))
            .env_remove("NO_COLOR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("ssh -t"), "{stderr}");
        assert!(stderr.contains("not a terminal"), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(out.stdout.is_empty(), "{:?}", out.stdout);
        assert!(!out.stderr.contains(&0x1b), "an escape byte: {stderr:?}");
    }
}

#[test]
fn term_dumb_gets_one_line_no_escape_bytes_and_exit_2() {
    let state = tempfile::tempdir().unwrap();
    let mut c = Console::start_with(
        &["demo", "--scenario", "quick"],
        state.path(),
        Options {
            env: &[("TERM", "dumb")],
            ..Options::default()
        },
    );
    let status = c.finish();
    assert_eq!(status.exit_code(), 2, "{}", c.screen());
    let text = String::from_utf8_lossy(&c.raw).to_string();
    assert!(
        text.contains("TERM=dumb") && text.contains("ssh -t"),
        "{text}"
    );
    assert!(!c.raw.contains(&0x1b), "an escape byte: {text:?}");
    assert_eq!(text.trim_end().lines().count(), 1, "{text:?}");
}
