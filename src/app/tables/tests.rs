use super::*;
use crate::app::views::TableCursor;
use crate::config::keymap::Keymap;
use crate::domain::fixtures::{self, names::*};
use crate::domain::objects::{MachineState, MalformedObject, Object};
use std::sync::Arc;

fn model() -> Model {
    let mut m = Model::new(
        Default::default(),
        Keymap::default_keymap(),
        fixtures::mid_update_now(),
    );
    m.snapshot = fixtures::mid_update();
    // `update` settles what is derived from the new snapshot.
    crate::app::update::update(
        &mut m,
        crate::app::msg::Msg::Resize {
            width: 200,
            height: 17,
        },
    );
    m
}

fn cursor(filter: &str, sort_column: usize, sort_reverse: bool) -> TableCursor {
    TableCursor {
        filter: filter.into(),
        sort_column,
        sort_reverse,
        ..Default::default()
    }
}

fn ids<'a>(rows: &[&'a TableRow]) -> Vec<&'a str> {
    rows.iter().map(|r| r.id.as_str()).collect()
}

/// Rows of (name, count, age): each cell's text and the typed value the
/// builder would carry (`None`: no value, shown as `-`).
type Cell<'a> = (&'a str, Option<i64>);

fn data(rows: &[(&str, Cell, Cell)]) -> TableData {
    TableData {
        columns: vec![
            col("NAME", Width::Min(4), SortKind::Text, 0),
            col("COUNT", Width::Fixed(5), SortKind::Number, 0),
            col("AGE", Width::Fixed(5), SortKind::Age, 0),
        ],
        rows: rows
            .iter()
            .map(|(n, (c, ck), (a, ak))| TableRow {
                id: n.to_string(),
                cells: vec![(*n).into(), (*c).into(), (*a).into()],
                search: String::new(),
                tone: Tone::Normal,
                node: None,
                keys: [ck.map(|v| (1, v)), ak.map(|v| (2, v))]
                    .into_iter()
                    .flatten()
                    .collect(),
            })
            .collect(),
        ..Default::default()
    }
}

#[test]
fn filter_matches_node_names_and_messages_of_machines() {
    let m = model();
    let t = table(&m, View::Machines);
    // The node name is not a visible column at every width, but it matches.
    let rows = visible_rows(&t, &cursor(&NODE_W3[..20].to_uppercase(), 0, false));
    assert_eq!(ids(&rows), vec![WORKER_3]);
    // Words from the full lock message (the UUID of a server left on worker-2).
    let rows = visible_rows(
        &t,
        &cursor(&format!("{} still present", &SERVER_A[..8]), 0, false),
    );
    assert_eq!(ids(&rows), vec![WORKER_2]);
    // Every word must match.
    let rows = visible_rows(&t, &cursor("compute prepare", 0, false));
    assert_eq!(ids(&rows), vec![WORKER_3, WORKER_4]);
    assert!(visible_rows(&t, &cursor("compute nonsense", 0, false)).is_empty());
    assert_eq!(
        visible_rows(&t, &cursor("  ", 0, false)).len(),
        t.rows.len()
    );
}

#[test]
fn sort_is_numeric_for_number_columns_and_by_age() {
    let d = data(&[
        ("a", ("10", Some(10)), ("2h05m", Some(7500))),
        ("b", ("9", Some(9)), ("5s", Some(5))),
        ("c", ("-", None), ("-", None)),
        ("d", ("100", Some(100)), ("4m12s", Some(252))),
    ]);
    assert_eq!(
        ids(&visible_rows(&d, &cursor("", 1, false))),
        ["b", "a", "d", "c"]
    );
    assert_eq!(
        ids(&visible_rows(&d, &cursor("", 1, true))),
        ["c", "d", "a", "b"]
    );
    assert_eq!(
        ids(&visible_rows(&d, &cursor("", 2, false))),
        ["b", "d", "a", "c"]
    );
    assert_eq!(
        ids(&visible_rows(&d, &cursor("", 0, true))),
        ["d", "c", "b", "a"]
    );
    // A column index past the end keeps the builder's order.
    assert_eq!(
        ids(&visible_rows(&d, &cursor("", 9, false))),
        ["a", "b", "c", "d"]
    );
}

#[test]
fn ids_are_stable_and_the_cursor_follows_them() {
    let mut m = model();
    let before = table(&m, View::Machines);
    let mut c = cursor("", 0, false);
    c.selected_id = Some(WORKER_3.into());
    let rows = visible_rows(&before, &c);
    let i = selected_index(&rows, &c).unwrap();
    assert_eq!(rows[i].id, WORKER_3);
    // A machine appears and the order changes (sorted by name now):
    // the cursor stays on worker-3.
    let new = Object::Machine(Arc::new(fixtures::machine(
        "aaa-new",
        crate::domain::objects::MachineType::Worker,
        MachineState::Pending,
        None,
        None,
    )));
    crate::app::update::update(
        &mut m,
        crate::app::msg::Msg::Cluster(crate::cluster::events::ClusterEvent::Applied(new)),
    );
    let after = table(&m, View::Machines);
    c.sort_column = 1;
    let rows = visible_rows(&after, &c);
    assert_eq!(rows[0].id, "aaa-new");
    let i = selected_index(&rows, &c).unwrap();
    assert_eq!(rows[i].id, WORKER_3);
    // Ids are unique in every table.
    for v in View::ALL {
        let t = table(&m, v);
        let mut seen = std::collections::BTreeSet::new();
        for r in &t.rows {
            assert!(seen.insert(&r.id), "duplicate id {} in {v:?}", r.id);
            assert_eq!(r.cells.len(), t.columns.len(), "{v:?} row {}", r.id);
        }
    }
    // A vanished id falls back to the remembered index, clamped.
    c.selected_id = Some("gone".into());
    c.selected = 99;
    assert_eq!(selected_index(&rows, &c), Some(rows.len() - 1));
    assert_eq!(selected_index(&[], &c), None);
}

#[test]
fn machines_row_says_what_it_waits_on() {
    let m = model();
    let t = table(&m, View::Machines);
    let w2 = t.rows.iter().find(|r| r.id == WORKER_2).unwrap();
    let cell = |title: &str| {
        let i = t.columns.iter().position(|c| c.title == title).unwrap();
        &w2.cells[i]
    };
    assert_eq!(cell("STATE").words(), "Deploy");
    // The mode in effect; the details pane says it is the default.
    assert_eq!(cell("MODE"), &"live");
    // The request's age, counted when drawn (39m00s at 10:30).
    assert_eq!(
        cell("NMR"),
        &super::Cell::since(
            "os ",
            Some(fixtures::at("09:51")),
            crate::domain::objects::ClusterId::Mosk,
            ""
        )
    );
    assert_eq!(cell("LOCKS"), &"os:active tf:inactive");
    assert!(
        cell("DRAIN")
            .words()
            .starts_with("try 4: Error: following NodeWorkloadLocks")
    );
    assert_eq!(cell("VROUTER"), &"outdated");
    assert_eq!(
        cell("WAITING ON"),
        &"lock openstack active: servers present"
    );
    assert_eq!(w2.tone, Tone::Attention);
    assert_eq!(w2.node.as_deref(), Some(NODE_W2));
    let w1 = t.rows.iter().find(|r| r.id == WORKER_1).unwrap();
    assert_eq!(w1.tone, Tone::Ok);
}

#[test]
fn lock_messages_lose_the_timestamp_and_show_its_age() {
    let m = model();
    let t = table(&m, View::Locks);
    let l = t
        .rows
        .iter()
        .find(|r| r.node.as_deref() == Some(NODE_W2) && r.cells[2] == "openstack")
        .unwrap();
    // The age counts from the message's own time (1m18s at 10:30:00).
    let at = l.cells[9].since_time().expect("an age");
    assert_eq!(
        fixtures::mid_update_now().duration_since(at),
        jiff::SignedDuration::new(78, 879_666_000),
        "10:30:00 - 10:28:41.120334"
    );
    assert!(
        l.cells[10].words().starts_with("Some servers {"),
        "{:?}",
        l.cells[10]
    );
    assert_eq!(l.tone, Tone::Attention);
    let cwl = t.rows.iter().filter(|r| r.cells[0] == "cluster").count();
    assert_eq!(cwl, 3);
}

#[test]
fn malformed_objects_are_error_rows_and_missing_crds_are_said() {
    let mut m = model();
    m.snapshot
        .apply(Object::Malformed(Arc::new(MalformedObject {
            kind: Kind::NodeWorkloadLock,
            namespace: String::new(),
            name: "broken-lock".into(),
            error: "spec.nodeName: expected a string".into(),
        })));
    let t = table(&m, View::Locks);
    // Named where a lock's machine is (NAME shows only on the widest screens).
    let bad = t.rows.iter().find(|r| r.cells[3] == "broken-lock").unwrap();
    assert_eq!(bad.tone, Tone::Error);
    assert!(
        bad.cells[10]
            .words()
            .contains("MALFORMED NodeWorkloadLock: spec.nodeName")
    );
    assert_eq!(bad.cells[0], "node");
    assert!(t.missing.is_empty());
    m.snapshot
        .apply(Object::Malformed(Arc::new(MalformedObject {
            kind: Kind::ClusterMaintenanceRequest,
            namespace: String::new(),
            name: "broken-request".into(),
            error: "spec.scope: expected a string".into(),
        })));
    let t = table(&m, View::Requests);
    let bad = t
        .rows
        .iter()
        .find(|r| r.cells[2] == "broken-request")
        .unwrap();
    assert_eq!(bad.tone, Tone::Error);
    assert_eq!(bad.cells[0], "cluster");

    m.missing_kinds.insert(
        Kind::LcmClusterState,
        "the server could not find the requested resource".into(),
    );
    m.snapshot.replace_kind(Kind::LcmClusterState, vec![]);
    let t = table(&m, View::States);
    assert!(t.rows.is_empty());
    assert_eq!(t.missing.len(), 1);
    assert!(t.missing[0].contains("LCMClusterState") && t.missing[0].contains("mgmt"));
}

#[test]
fn empty_tables_say_no_rows_yet_of_their_kinds() {
    // The UI adds the state of the watches (`ui::cells` tests).
    let mut m = model();
    m.snapshot = Default::default();
    let t = table(&m, View::Requests);
    assert_eq!(
        t.empty,
        Empty::NotYet {
            noun: "maintenance requests",
            kinds: vec![
                Kind::ClusterMaintenanceRequest,
                Kind::NodeMaintenanceRequest
            ],
        }
    );
}
