//! The session report (`:report`): the `quick` scenario is run to the end
//! through the console — the operator acknowledges each manual migration
//! with keys, the writes go through the real executor to the simulated
//! cluster — then `:report` writes the Markdown file, whose content is
//! checked: the timeline, each machine's turn with its duration and what it
//! waited on, the attention items raised and cleared, the actions with
//! their outcomes, and the workload impact.
//!
//! The console sees the world as its watchers would: every few simulated
//! seconds a re-list of every kind goes through `update`, so the history and
//! the session log see the update happen. Time is tokio's paused clock and
//! the simulator's own; nothing sleeps.

#[path = "actions_sim/harness.rs"]
#[allow(dead_code)]
mod harness;
mod pty_console;

use std::time::Duration;

use crossterm::event::{KeyCode, KeyModifiers};
use harness::*;
use jiff::SignedDuration;
use kube::api::DynamicObject;
use mosk_console::app::actions::plan::acknowledge_offer;
use mosk_console::app::model::Model;
use mosk_console::app::msg::Msg;
use mosk_console::cluster::convert::{convert, is_wanted};
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::config::keymap::Keymap;
use mosk_console::domain::action::ActionId;
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::domain::attention::AttentionKind;
use mosk_console::domain::objects::{ClusterId, Kind};
use mosk_console::sim::scenario::UpdatePhase;

/// What the watchers would deliver now: the clock, then every kind re-listed.
async fn watch(h: &mut Harness) {
    let now = h.world.now();
    h.apply(Msg::Tick(now));
    for kind in Kind::ALL {
        let store = match kind.cluster() {
            ClusterId::Mgmt => h.world.mgmt(),
            ClusterId::Mosk => h.world.mosk(),
        };
        let objects = store
            .list(kind.plural(), None)
            .into_iter()
            .map(|v| serde_json::from_value::<DynamicObject>(v).unwrap())
            .filter(|o| is_wanted(kind, o, None))
            .map(|o| convert(kind, &o))
            .collect();
        h.apply(Msg::Cluster(ClusterEvent::Resynced { kind, objects }));
    }
    // The executor's answers (access reviews) that are due.
    while let Ok(Some(msg)) = tokio::time::timeout(Duration::from_millis(5), h.rx.recv()).await {
        h.apply(msg);
    }
}

fn typed(h: &mut Harness, text: &str) {
    for c in text.chars() {
        h.press(c);
    }
}

/// One table of the report: the rows under the heading `title`.
fn rows<'a>(report: &'a str, title: &str) -> Vec<&'a str> {
    let section = report
        .split(title)
        .nth(1)
        .unwrap_or_else(|| panic!("no {title:?} in:\n{report}"));
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_report_of_quick_run_to_the_end_tells_the_whole_update() {
    let mut h = Harness::new(quick_world(), Options::default());
    // A console that has seen nothing yet: all it knows comes through `update`.
    let session = h.model.session.clone();
    h.model = Model::new(session, Keymap::default_keymap(), h.world.now());
    let dir = h.audit_path.parent().unwrap().to_path_buf();
    h.exec.set_report_dir(&dir);
    watch(&mut h).await;

    let mut acknowledged: Vec<String> = Vec::new();
    let mut set_manual: Vec<String> = Vec::new();
    let mut steps = 0;
    while h.world.phase() != UpdatePhase::Done {
        steps += 1;
        assert!(steps < 3 * 720, "stalled in phase {:?}", h.world.phase());
        h.world.step(SignedDuration::from_secs(5));
        watch(&mut h).await;
        let Some(node) = waiting_node(&h.world, &acknowledged) else {
            continue;
        };
        // What the console offers for that node: acknowledge, or (a live
        // migration keeps failing) the mode manual first; while a
        // migration runs, nothing.
        let offered = acknowledge_offer(&h.model.snapshot, &h.model.history, &node).is_ok();
        let failing = !set_manual.contains(&node)
            && h.model.derived.attention.iter().any(|i| {
                i.kind == AttentionKind::MigrationFailing
                    && i.action == Some(ActionId::SetMigrationMode)
                    && i.node.as_deref() == Some(node.as_str())
            });
        if !offered && !failing {
            continue;
        }
        // On the Machines view, filter down to the waiting node's row and
        // act on it.
        h.press('2');
        h.press('/');
        typed(&mut h, &node);
        h.key(KeyCode::Enter, KeyModifiers::NONE);
        if offered {
            h.press('a');
            h.press('y');
        } else {
            h.press('m');
            h.press('j'); // manual
            h.key(KeyCode::Enter, KeyModifiers::NONE);
            h.press('y');
        }
        assert_eq!(
            h.run_to_end(false).await,
            RunOutcome::Completed { dry_run: false },
            "acting on {node}"
        );
        h.close();
        h.key(KeyCode::Esc, KeyModifiers::NONE);
        h.press('1');
        if offered {
            assert_eq!(h.annotation(&node, MODE).as_deref(), Some("skip"));
            acknowledged.push(node);
        } else {
            assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
            set_manual.push(node);
        }
    }
    // A few minutes more: the TF operator restarts the outdated vRouter
    // pods after the update (25.1), and the console sees the update over.
    for _ in 0..120 {
        h.world.step(SignedDuration::from_secs(5));
        watch(&mut h).await;
    }
    assert!(acknowledged.len() >= 2, "{acknowledged:?}");

    h.press(':');
    typed(&mut h, "report");
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    let written = h.next_msg().await;
    let Msg::ReportWritten(Ok(path)) = written else {
        panic!("{written:?}");
    };
    assert_eq!(path.parent(), Some(dir.as_path()));
    let notice = h.model.notice().as_ref().unwrap().text.clone();
    assert!(notice.contains(&path.display().to_string()), "{notice}");
    let report = std::fs::read_to_string(&path).unwrap();
    assert!(!report.contains('\x1b'), "{report}");
    // `SHOW_REPORT=1 cargo test --test session_report -- --nocapture` shows it.
    if std::env::var_os("SHOW_REPORT").is_some() {
        eprintln!("{report}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    // The timeline: the phases the update went through, in order, with times.
    let timeline = rows(&report, "## Timeline");
    let phases: Vec<&str> = [
        "phase 2/5 OpenStack and Ceph",
        "phase 3/5 master nodes",
        "phase 4/5 worker nodes",
        "phase 5/5 finalization",
        "phase done",
    ]
    .into_iter()
    .collect();
    let mut at = 0;
    for p in &phases {
        let i = timeline[at..]
            .iter()
            .position(|l| l.contains(p))
            .unwrap_or_else(|| panic!("{p} after row {at} of the timeline:\n{report}"));
        assert!(
            timeline[at + i].starts_with("| 2026-01-01 1"),
            "{}",
            timeline[at + i]
        );
        at += i + 1;
    }

    // Every machine's turn, ended, with a duration; the acknowledged nodes
    // waited on their manual migration.
    let machines = rows(&report, "## Machines");
    let names: Vec<String> = h.world.machines().into_iter().map(|m| m.name).collect();
    assert_eq!(names.len(), 7);
    for name in &names {
        let row = machines
            .iter()
            .find(|r| r.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no turn of {name}:\n{report}"));
        let cells: Vec<&str> = row.split(" | ").collect();
        assert!(cells[3].starts_with("2026-01-01"), "turn ended: {row}");
        assert!(
            cells[4].ends_with('s') && cells[4] != "0s",
            "a duration: {row}"
        );
    }
    for node in &acknowledged {
        let row = machines
            .iter()
            .find(|r| r.contains(&format!("| {node} |")))
            .unwrap_or_else(|| panic!("no turn of {node}:\n{report}"));
        assert!(
            row.contains("| manual migration") || row.contains("| migration failing"),
            "waited on its migration: {row}"
        );
    }

    // The attention items: raised and cleared, none left open at the end.
    let items = rows(&report, "## Attention items");
    for node in &acknowledged {
        let item = items
            .iter()
            .find(|r| {
                r.contains(node.as_str())
                    && (r.contains("| manual migration") || r.contains("| migration failing"))
            })
            .unwrap_or_else(|| panic!("no migration item for {node}:\n{report}"));
        let cells: Vec<&str> = item.split(" | ").collect();
        assert!(cells[0].starts_with("| 2026-01-01"), "raised: {item}");
        assert!(cells[1].starts_with("2026-01-01"), "cleared: {item}");
    }
    assert!(
        !items
            .iter()
            .any(|r| r.contains("| manual migration") && r.contains("still open")),
        "{report}"
    );

    // The actions, each with its outcome.
    let actions = rows(&report, "## Actions");
    assert_eq!(
        actions.len(),
        acknowledged.len() + set_manual.len(),
        "{report}"
    );
    for node in &acknowledged {
        let row = actions
            .iter()
            .find(|r| r.contains(&format!("Node/{node}")) && r.contains("Acknowledge migration"))
            .unwrap_or_else(|| panic!("no acknowledgement of {node}:\n{report}"));
        assert!(row.contains("skip"), "{row}");
        assert!(row.contains("| succeeded"), "{row}");
    }

    // The workload impact: the servers each acknowledged node still held
    // went down with its reboot; the vRouter pods the TF operator replaced.
    let skipped = rows(
        &report,
        "### Servers rebooted with their node after migration mode `skip`",
    );
    for node in &acknowledged {
        let servers = h
            .audit()
            .into_iter()
            .find(|r| r.name == *node)
            .unwrap()
            .servers;
        let row = skipped
            .iter()
            .find(|r| r.starts_with(&format!("| {node} |")))
            .unwrap_or_else(|| panic!("no impact row for {node}:\n{report}"));
        for s in &servers {
            assert!(row.contains(s.as_str()), "{s} in {row}");
        }
    }
    let replaced = rows(&report, "vRouter pods replaced");
    let computes = h.computes();
    for node in &computes {
        assert!(
            replaced
                .iter()
                .any(|r| r.starts_with(&format!("| {node} |"))),
            "a replaced vRouter pod on {node}:\n{report}"
        );
    }
}

/// The real binary in a pseudo-terminal: quitting after an attention item
/// was raised writes the report next to the audit log and names it on the
/// terminal once it is restored.
#[test]
fn quitting_after_an_attention_item_writes_the_report_and_names_it() {
    let state = tempfile::tempdir().unwrap();
    let audit = state.path().join("audit.jsonl");
    let mut c = pty_console::Console::start(
        &[
            "demo",
            "--scenario",
            "quick",
            "--speed",
            "60",
            "--dry-run",
            "--audit-log",
            audit.to_str().unwrap(),
        ],
        state.path(),
    );
    c.wait_for("the first attention item", |s| s.contains("write freeze"));
    c.send("q");
    let status = c.finish();
    assert!(status.success(), "{status:?}");
    assert!(!c.parser.screen().alternate_screen());
    let screen = c.screen();
    assert!(screen.contains("session report written to"), "{screen}");
    let reports: Vec<std::path::PathBuf> = std::fs::read_dir(state.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("report-demo-child-cl-")
        })
        .collect();
    assert_eq!(reports.len(), 1, "{reports:?}");
    let text = std::fs::read_to_string(&reports[0]).unwrap();
    assert!(text.contains("| reminder | write freeze |"), "{text}");
    assert!(
        text.contains("No action was taken in this session."),
        "{text}"
    );
}
