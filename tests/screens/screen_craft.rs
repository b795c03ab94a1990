//! Screen craft: notices live in real seconds, names keep
//! their distinguishing end, low-value columns go before names are cut,
//! numbers are never cut, columns do not come and go with the data, and
//! vRouter rows and dialogs name the machine beside the node. Every state
//! is reached by sending messages through `update`. Update the snapshots
//! with `INSTA_UPDATE=always cargo test --test screens screen_craft` and read them.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::fixtures::{self, names::*};
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jiff::SignedDuration;
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::{update, update_batch};
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::domain::objects::{DrainError, MachineState, MachineType, Object};

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

fn typed(m: &mut Model, text: &str) {
    for c in text.chars() {
        update(m, key(c));
    }
}

fn screen(m: &Model, w: u16, h: u16) -> String {
    text_of(render(m, w, h).backend().buffer())
}

/// The mid-update cluster with the Machines view opened by its key.
fn machines() -> Model {
    let mut m = base_model();
    update(&mut m, key('2'));
    assert_eq!(m.view, View::Machines);
    m
}

#[test]
fn machines_at_80_and_200_columns() {
    let m = machines();
    let t = render(&m, 80, 24);
    insta::assert_snapshot!("machines_mid_update_80x24", t.backend());
    let narrow = text_of(t.backend().buffer());
    // At 80 columns the columns that matter stay: the names whole, the
    // state, the migration mode the operator sets and what each machine
    // waits on (its start: the details read it whole).
    for needle in [
        WORKER_2,
        WORKER_3,
        "MODE",
        " manual ",
        "lock openstack active: servers",
    ] {
        assert!(narrow.contains(needle), "{needle} missing:\n{narrow}");
    }
    let t = render(&m, 200, 50);
    insta::assert_snapshot!("machines_mid_update_200x50", t.backend());
    let wide = text_of(t.backend().buffer());
    // At 200 columns the names are whole (the node's too) and the numbers
    // and the columns of value are there.
    for needle in [WORKER_2, NODE_W2, NODE_W3, "GROUP", "MODE", "NMR", "#▲"] {
        assert!(wide.contains(needle), "{needle} missing:\n{wide}");
    }
}

#[test]
fn long_names_keep_their_distinguishing_end() {
    let mut m = machines();
    let long = [
        "cz7503-child-cl-storage-worker-4gpjv",
        "cz7504-child-cl-storage-worker-xqrn4",
    ];
    update_batch(
        &mut m,
        long.iter().enumerate().map(|(i, name)| {
            Msg::Cluster(ClusterEvent::Applied(Object::Machine(Arc::new(
                fixtures::machine(
                    name,
                    MachineType::Worker,
                    MachineState::Ready,
                    None,
                    Some(20 + i as i64),
                ),
            ))))
        }),
    );
    let narrow = screen(&m, 80, 24);
    // Cut in the middle: the start and the end that tells them apart.
    for tail in ["worker-4gpjv", "worker-xqrn4"] {
        assert!(narrow.contains(tail), "{tail} missing:\n{narrow}");
    }
    assert!(narrow.contains("cz7503-"), "{narrow}");
    // With room, the names are whole.
    let wide = screen(&m, 200, 50);
    for name in long {
        assert!(wide.contains(name), "{name} cut at 200 columns:\n{wide}");
    }
}

#[test]
fn low_value_columns_go_before_names_are_cut() {
    let m = machines();
    // At 120 columns whole names and the whole MODE, not every column cut
    // a little: the lowest priorities are dropped instead.
    let text = screen(&m, 120, 30);
    for needle in [WORKER_2, "MODE", " manual ", "Prepare 2h24m"] {
        assert!(text.contains(needle), "{needle} missing at 120:\n{text}");
    }
}

#[test]
fn numbers_are_never_cut() {
    let mut m = machines();
    update_batch(
        &mut m,
        (0..2000).map(|i| {
            Msg::Cluster(ClusterEvent::Applied(Object::Machine(Arc::new(
                fixtures::machine(
                    &format!("w-{:04}", i + 10),
                    MachineType::Worker,
                    MachineState::Ready,
                    None,
                    Some(100 + i),
                ),
            ))))
        }),
    );
    // The last row: `#` is 2007 (# is the least valued column: it is
    // shown when there is room for every other one).
    update(&mut m, key('G'));
    let text = screen(&m, 260, 50);
    assert!(text.contains("2007"), "{text}");
    assert!(!text.contains("20…"), "{text}");
    let header = text.lines().nth(2).expect("the header");
    assert!(header.contains("#▲"), "the # column is shown: {header}");
}

#[test]
fn columns_do_not_come_and_go_with_the_data() {
    // No update groups in this cluster: GROUP is still a column (`-`).
    let m = machines();
    let before = screen(&m, 200, 50);
    let header = |s: &str| s.lines().nth(2).expect("header").to_string();
    assert!(header(&before).contains("GROUP"), "{before}");
    // A long drain message arrives: the same columns.
    let mut m2 = m.clone();
    let mut machine = fixtures::machine(
        WORKER_4,
        MachineType::Worker,
        MachineState::Prepare,
        None,
        Some(6),
    );
    machine.drain_error = Some(DrainError::new("x ".repeat(80)));
    update(
        &mut m2,
        Msg::Cluster(ClusterEvent::Applied(Object::Machine(Arc::new(machine)))),
    );
    let columns = |s: &str| {
        header(s)
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    for (w, h) in [(80, 24), (120, 30), (200, 50)] {
        assert_eq!(
            columns(&screen(&m, w, h)),
            columns(&screen(&m2, w, h)),
            "at {w} columns"
        );
    }
}

#[test]
fn a_notice_lives_ten_real_seconds_whatever_the_cluster_clock_does() {
    let mut m = machines();
    update(&mut m, Msg::RealTime(Duration::from_secs(100)));
    update(&mut m, key(':'));
    typed(&mut m, "bogus");
    update(&mut m, code(KeyCode::Enter));
    let shown = |m: &Model| screen(m, 120, 30).contains("unknown view");
    assert!(shown(&m), "{}", screen(&m, 120, 30));
    // A demo at --speed 60: five simulated minutes in five real seconds.
    let t0 = now();
    for s in 1..=5 {
        update_batch(
            &mut m,
            [
                Msg::RealTime(Duration::from_secs(100 + s)),
                Msg::Tick(t0 + SignedDuration::from_secs(60 * s as i64)),
            ],
        );
    }
    assert!(shown(&m), "5 simulated minutes: {}", screen(&m, 120, 30));
    // Ten real seconds later it is gone, whatever the cluster clock says.
    update_batch(
        &mut m,
        [
            Msg::RealTime(Duration::from_secs(111)),
            Msg::Tick(t0 + SignedDuration::from_secs(301)),
        ],
    );
    let text = screen(&m, 120, 30);
    assert!(!text.contains("unknown view"), "{text}");
    assert!(text.contains("? help"), "the keys are back: {text}");
}

#[test]
fn vrouter_rows_name_the_machine_beside_the_node() {
    let mut m = base_model();
    update(&mut m, key('6'));
    assert_eq!(m.view, View::Vrouter);
    let t = render(&m, 160, 48);
    insta::assert_snapshot!("vrouter_machines_160x48", t.backend());
    let text = text_of(t.backend().buffer());
    assert!(text.contains("MACHINE"), "{text}");
    for (node, machine) in [(NODE_W2, WORKER_2), (NODE_W3, WORKER_3)] {
        let row = text
            .lines()
            .find(|l| l.contains(node))
            .unwrap_or_else(|| panic!("{node} missing:\n{text}"));
        assert!(row.contains(machine), "{row}");
    }
}

#[test]
fn the_tab_bar_names_the_views_while_it_fits() {
    let tabs = |view: View, w: u16| {
        let mut m = base_model();
        m.view = view;
        screen(&m, w, 24).lines().next().unwrap().to_string()
    };
    // 80 columns: the current view by its title, the views around it by
    // the names `:` takes, only the farthest by their key alone.
    let at80 = tabs(View::Machines, 80);
    for named in [
        "1 overview",
        "2 Machines",
        "3 states",
        "4 locks",
        "5 requests",
    ] {
        assert!(at80.contains(named), "{named}: {at80}");
    }
    assert!(at80.contains(" 0 "), "{at80}");
    let at80 = tabs(View::Audit, 80);
    for named in ["6 vrouter", "7 logs", "8 events", "9 Audit", "0 plan"] {
        assert!(at80.contains(named), "{named}: {at80}");
    }
    // 120: every view with a key named (the wrap-up is reached by `:`
    // only and shown in the bar while it is on screen).
    let at120 = tabs(View::Machines, 120);
    for v in View::ALL
        .into_iter()
        .filter(|v| *v != View::Machines && *v != View::Wrapup)
    {
        assert!(at120.contains(v.command_name()), "{v:?}: {at120}");
    }
}

#[test]
fn every_table_that_shows_a_node_names_its_machine_at_80_and_120() {
    for (key_char, view) in [
        ('4', View::Locks),
        ('5', View::Requests),
        ('6', View::Vrouter),
    ] {
        let mut m = base_model();
        update(&mut m, key(key_char));
        assert_eq!(m.view, view);
        for (w, h) in [(80, 24), (120, 40)] {
            let text = screen(&m, w, h);
            let what = format!("{view:?} at {w}");
            assert!(text.contains("MACHINE"), "{what}:\n{text}");
            // Worker-2's row (its lock, its request, its vRouter pod) says
            // which machine it is about.
            assert!(text.contains(WORKER_2), "{what}:\n{text}");
            // A node is drawn whole or not at all: never cut to a
            // `kaas-nod…da15938` that takes the machine's room.
            let cut = text
                .split(|c: char| c.is_whitespace() || c == '│')
                .find(|t| t.starts_with("kaas-") && t.contains('…'));
            assert_eq!(cut, None, "{what}:\n{text}");
        }
    }
    // Events: a node lock's change names its machine from 120 columns.
    let mut m = base_model();
    update(&mut m, key('8'));
    let text = screen(&m, 120, 40);
    let row = text
        .lines()
        .find(|l| l.contains("nwl/openstack-") && l.contains("errorMessage"))
        .unwrap_or_else(|| panic!("no lock message change:\n{text}"));
    assert!(row.contains(WORKER_2) || row.contains(WORKER_3), "{text}");
}

#[test]
fn the_vrouter_restart_dialog_names_the_machine() {
    let mut m = base_model();
    update(&mut m, key('6'));
    // The row of worker 2's node (outdated), then restart.
    update(&mut m, code(KeyCode::Char('/')));
    typed(&mut m, WORKER_2);
    update(&mut m, code(KeyCode::Enter));
    update(&mut m, key('R'));
    let t = render(&m, 100, 40);
    insta::assert_snapshot!("vrouter_restart_dialog_100x40", t.backend());
    let text = text_of(t.backend().buffer());
    let node = text
        .lines()
        .position(|l| l.contains(&format!("node {NODE_W2}")))
        .unwrap_or_else(|| panic!("node line missing:\n{text}"));
    let next = text.lines().nth(node + 1).unwrap();
    assert!(next.contains(&format!("machine {WORKER_2}")), "{text}");
}

#[test]
fn a_long_notice_wraps_and_opens_whole() {
    let mut m = machines();
    update(&mut m, key(':'));
    typed(&mut m, "bogus");
    update(&mut m, code(KeyCode::Enter));
    // Two footer lines at 80 columns: the whole notice, to its last word.
    let text = screen(&m, 80, 24);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[22].contains("unknown view \"bogus\""), "{text}");
    assert!(
        lines[23]
            .trim_end()
            .ends_with("plan, ready, wrapup; or report"),
        "{text}"
    );
    assert!(!text.contains("H notices"), "nothing cut: {text}");

    // Longer than two lines: cut, and the footer names the key that opens it.
    let name = "x".repeat(150);
    update(&mut m, key(':'));
    typed(&mut m, &name);
    update(&mut m, code(KeyCode::Enter));
    let text = screen(&m, 80, 24);
    let footer = text.lines().nth(23).unwrap().trim_end().to_string();
    assert!(footer.ends_with("… H notices"), "{text}");
    // `H` is in the help.
    update(&mut m, key('?'));
    let help = screen(&m, 100, 60);
    assert!(help.contains("recent notices, whole"), "{help}");
    update(&mut m, code(KeyCode::Esc));
    // `H` opens the notices, newest first, whole.
    update(&mut m, key('H'));
    let t = render(&m, 80, 24);
    insta::assert_snapshot!("notices_overlay_80x24", t.backend());
    let text = text_of(t.backend().buffer());
    assert!(text.contains("Notices"), "{text}");
    assert!(text.contains("audit, plan"), "{text}");
    let newest = text.find(&"x".repeat(20)).expect("the long one");
    let older = text.find("\"bogus\"").expect("the first one");
    assert!(newest < older, "newest first: {text}");
    update(&mut m, code(KeyCode::Esc));
    assert!(m.modals.is_empty());
}
