//! The columns a table draws at a width come from its columns alone (titles,
//! declared widths, priorities), never from its cells: `s` through every
//! column of the Machines view, over rows of every length, draws the same
//! columns at each width, the sorted one among them. Keys and frame
//! reports go through `update` as in the runtime.

use std::sync::Arc;

use crate::domain::fixtures;
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jiff::SignedDuration;
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::tables::shown;
use mosk_console::app::update::{update, update_batch};
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::config::theme::Theme;
use mosk_console::domain::objects::{DrainError, MachineState, MachineType, Object};

const HEIGHT: u16 = 24;

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn applied(o: Object) -> Msg {
    Msg::Cluster(ClusterEvent::Applied(o))
}

/// The deletion of what `msg` applied.
fn deleted(msg: Msg) -> Msg {
    match msg {
        Msg::Cluster(ClusterEvent::Applied(o)) => Msg::Cluster(ClusterEvent::Deleted(o.key())),
        other => other,
    }
}

/// The mid-update cluster and 40 machines more, more than a screen holds:
/// names and node names of 4 to 23 characters, drain messages of 1 to 20,
/// maintenance requests from seconds to days old.
fn machines() -> Model {
    let mut m = base_model();
    update(&mut m, key('2'));
    assert_eq!(m.view, View::Machines);
    let msgs = (0..40).flat_map(|i| machine(&format!("a{i:02}"), i, i * 7 % 20, i * 11 % 20));
    update_batch(&mut m, msgs.collect::<Vec<_>>());
    m
}

/// A worker `<prefix>-xxx…` (`long` x's) on node `<prefix>-yyy…` (as
/// many y's), in Prepare with a drain message of `drain` characters when
/// `i` is odd, with a maintenance request 7·3^k seconds old unless `i` is a
/// multiple of 3.
fn machine(prefix: &str, i: usize, long: usize, drain: usize) -> Vec<Msg> {
    let name = format!("{prefix}-{}", "x".repeat(long));
    let node = format!("{prefix}-{}", "y".repeat(long));
    let state = [MachineState::Ready, MachineState::Prepare][i % 2].clone();
    let mut machine = fixtures::machine(&name, MachineType::Worker, state, Some(&node), None);
    if i % 2 == 1 {
        machine.drain_error = Some(DrainError::new("d".repeat(1 + drain)));
    }
    let mut msgs = vec![
        applied(Object::Machine(Arc::new(machine))),
        applied(Object::Node(Arc::new(fixtures::node(&node, true)))),
    ];
    if !i.is_multiple_of(3) {
        let age = SignedDuration::from_secs(7 * 3_i64.pow(i as u32 % 11));
        msgs.push(applied(Object::NodeMaintenanceRequest(Arc::new(
            fixtures::nmr(&node, "os", now() - age),
        ))));
    }
    msgs
}

/// Draws a frame, reports it to `update` as the runtime does, and returns
/// the titles of the columns drawn (each checked to be in the header line)
/// and the screen.
fn frame(m: &mut Model, w: u16) -> (Vec<&'static str>, String) {
    let mut drawn = m.clone();
    settled(&mut drawn);
    let report = mosk_console::ui::report_at(&drawn, &Theme::default_theme(), w, HEIGHT);
    let columns = match &report.table_columns {
        Some((View::Machines, cols)) => cols.clone(),
        other => panic!("no Machines table drawn: {other:?}"),
    };
    update(m, Msg::Drawn(report));
    let screen = text_of(render(m, w, HEIGHT).backend().buffer());
    let header = screen.lines().nth(2).expect("a header line").to_string();
    let table = shown(m, View::Machines).expect("a settled table");
    let titles: Vec<&'static str> = columns
        .iter()
        .map(|&i| table.data.columns[i].title)
        .collect();
    // A title is cut only where even the columns that are always drawn do
    // not fit (a message squeezed at 80 after a sort chosen at 200).
    for t in &titles {
        let least = &t[..t.len().min(6)];
        assert!(
            header.contains(least),
            "{w}: {t} not in the header:\n{screen}"
        );
    }
    (titles, screen)
}

/// The sorted column's title carries the sort marker in the header.
fn assert_sorted_drawn(m: &Model, screen: &str, what: &str) {
    let table = shown(m, View::Machines).expect("a settled table");
    let title = table.data.columns[m.cursor(View::Machines).sort_column].title;
    let header = screen.lines().nth(2).expect("a header line");
    assert!(
        header.contains(&format!("{title}▲")),
        "{what}: sorted by {title}, not drawn:\n{screen}"
    );
    assert!(!screen.contains("sorted by"), "{what}:\n{screen}");
}

#[test]
fn s_through_every_column_draws_the_same_columns_at_each_width() {
    for w in [80, 120, 200] {
        let mut m = machines();
        let (first, screen) = frame(&mut m, w);
        assert_sorted_drawn(&m, &screen, &format!("{w}: at first"));
        // Every column drawn is sorted by once, and the first again.
        for press in 1..=first.len() + 1 {
            // The cluster moves on between presses: the one machine with
            // long cells comes and goes (as its node, drain message and
            // request do during an update).
            let long = machine("v", 1, 46, 80);
            let msgs: Vec<Msg> = if press % 2 == 1 {
                long
            } else {
                long.into_iter().map(deleted).collect()
            };
            update_batch(&mut m, msgs);
            update(&mut m, key('s'));
            let (titles, screen) = frame(&mut m, w);
            let what = format!("{w}: after {press} s");
            assert_eq!(titles, first, "{what}: other columns:\n{screen}");
            assert_sorted_drawn(&m, &screen, &what);
        }
    }
}

#[test]
fn a_column_sorted_by_on_a_wide_screen_stays_drawn_on_a_narrow_one() {
    let mut m = machines();
    let (all, _) = frame(&mut m, 200);
    for _ in 0..all.len() {
        update(&mut m, key('s'));
        frame(&mut m, 200);
        for w in [80, 120] {
            let mut narrow = m.clone();
            let (_, screen) = frame(&mut narrow, w);
            assert_sorted_drawn(&narrow, &screen, &format!("{w} after 200"));
        }
    }
}
