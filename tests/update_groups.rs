//! Update groups on the screen: the Machines view names each machine's
//! UpdateGroup (name, index, concurrency) and shows disabled machines; the
//! group-by key orders the rows by group while the cursor and the actions
//! keep targeting the machine under the cursor; the Overview's ETA says
//! whether it comes from the machines by update group or from the update
//! plan's estimates, and that disabled machines are not counted. Against
//! the simulator's `plan` scenario, the machines the watchers bring in
//! (kube-rs over HTTP) carry their groups.

mod cluster_support;
#[path = "support/domain.rs"]
mod domain;
mod ui_support;

use crate::domain::fixtures::names::*;
use crate::domain::fixtures::update_groups as ug;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::actions::target_nodes;
use mosk_console::app::model::{Model, NoticeLevel, TableCursor, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::tables::{self, selected_index, visible_rows};
use mosk_console::app::update::update;
use mosk_console::domain::objects::{Object, UpdatePlan};
use std::sync::Arc;
use ui_support::*;

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

/// The mid-update cluster with update groups; worker-4 (default group) disabled.
fn grouped(view: View) -> Model {
    let mut m = with_view(view);
    for o in ug::group_objects() {
        m.snapshot.apply(o);
    }
    let mut w4 = ug::provider(WORKER_4, None);
    w4.disabled = true;
    m.snapshot.apply(Object::ProviderMachine(Arc::new(w4)));
    settled(&mut m);
    m
}

fn order(m: &Model) -> Vec<String> {
    let data = tables::table(m, View::Machines);
    let cursor = m.cursor(View::Machines);
    visible_rows(&data, &cursor)
        .into_iter()
        .map(|r| r.id.clone())
        .collect()
}

fn selected(m: &Model) -> String {
    let data = tables::table(m, View::Machines);
    let cursor = m.cursor(View::Machines);
    let rows = visible_rows(&data, &cursor);
    rows[selected_index(&rows, &cursor).unwrap()].id.clone()
}

#[test]
fn machines_show_their_update_group_and_disabled_machines() {
    let m = grouped(View::Machines);
    let t = render(&m, 160, 48);
    insta::assert_snapshot!("machines_update_groups_160x48", t.backend());
    let text = text_of(t.backend().buffer());
    for needle in [
        "GROUP",
        "control #1 x1",
        "rack-1 #2 x3",
        "rack-2 #2 x1",
        "default #1 x1",
        "disabled (Prepare)",
        "disabled: out of LCM control",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
}

#[test]
fn the_detail_panel_names_the_update_group() {
    let mut m = grouped(View::Machines);
    open_detail(&mut m, WORKER_2);
    let text = text_of(render(&m, 160, 48).backend().buffer());
    assert!(
        text.contains("update group child-cl-rack-1 (index 2, up to 3 machines at once)"),
        "{text}"
    );
}

/// Columns do not come and go with the data: without update
/// groups GROUP is still a column, `-` for every machine.
#[test]
fn without_update_groups_the_group_column_says_none() {
    let text = text_of(
        render(&with_view(View::Machines), 160, 48)
            .backend()
            .buffer(),
    );
    assert!(text.contains("GROUP"), "{text}");
    assert!(!text.contains("rack-1"), "{text}");
}

#[test]
fn the_group_by_key_orders_by_group_and_keeps_the_cursor_on_its_machine() {
    let mut m = grouped(View::Machines);
    m.views.cursors.insert(
        View::Machines,
        TableCursor {
            selected_id: Some(WORKER_4.into()),
            selected: 6,
            ..Default::default()
        },
    );
    let update_order = [
        MASTER_0, MASTER_1, MASTER_2, WORKER_1, WORKER_2, WORKER_3, WORKER_4,
    ];
    assert_eq!(order(&m), update_order);

    update(&mut m, key('u'));
    // Control #1, default #1 (worker-4), rack-1 #2, rack-2 #2; the update
    // order within each group.
    assert_eq!(
        order(&m),
        [
            MASTER_0, MASTER_1, MASTER_2, WORKER_4, WORKER_1, WORKER_2, WORKER_3
        ]
    );
    assert_eq!(selected(&m), WORKER_4);
    assert_eq!(target_nodes(&m), vec![NODE_W4.to_string()]);
    let text = text_of(render(&m, 160, 48).backend().buffer());
    assert!(text.contains("GROUP≡"), "{text}");
    // Grouped, the GROUP column stays even at 80x24.
    let t = render(&m, 80, 24);
    insta::assert_snapshot!("machines_grouped_80x24", t.backend());
    assert!(text_of(t.backend().buffer()).contains("GROUP≡"));

    // Down moves in the grouped order: to worker-1, and the action targets it.
    update(&mut m, key('j'));
    assert_eq!(selected(&m), WORKER_1);
    assert_eq!(target_nodes(&m), vec![NODE_W1.to_string()]);

    // Sorting still works within the groups: by NAME, reversed.
    update(&mut m, key('s'));
    update(&mut m, key('S'));
    assert_eq!(
        order(&m),
        [
            MASTER_2, MASTER_1, MASTER_0, WORKER_4, WORKER_2, WORKER_1, WORKER_3
        ]
    );
    assert_eq!(selected(&m), WORKER_1);

    // Off again: the plain sort, the cursor still on worker-1.
    update(&mut m, key('u'));
    assert_eq!(m.cursor(View::Machines).group_column, None);
    assert_eq!(selected(&m), WORKER_1);
    assert_eq!(target_nodes(&m), vec![NODE_W1.to_string()]);
}

#[test]
fn the_group_by_key_says_when_no_group_is_known() {
    let mut m = with_view(View::Machines);
    update(&mut m, key('u'));
    assert_eq!(m.cursor(View::Machines).group_column, None);
    let notice = m.notice().expect("a notice");
    assert_eq!(notice.level, NoticeLevel::Info);
    assert!(notice.text.contains("no update groups known"), "{notice:?}");
}

fn overview_text(m: &Model) -> String {
    // Wide enough for the whole progress line while the update is blocked.
    text_of(render(m, 220, 48).backend().buffer())
}

fn grouped_scenario_model() -> Model {
    let mut m = with_view(View::Overview);
    let sc = ug::grouped_scenario();
    m.snapshot = sc.snap;
    m.history = sc.history;
    m
}

#[test]
fn the_overview_eta_comes_from_the_update_groups() {
    // Index 2 (rack-1 x3 and rack-2 x1 together) 25m, then index 3 25m;
    // worker-8 is disabled; the two workers past the mean wait for the
    // operator (their wait is shown apart: "blocked"), so nothing of their
    // turn is left after it (see `progress` tests for the arithmetic).
    // Blocked since 09:52: compute-2's live migration first started then
    // and keeps failing.
    let text = overview_text(&grouped_scenario_model());
    assert!(
        text.contains("ETA: blocked 38m00s, then 50m00s (from 4 machines, by group)"),
        "{text}"
    );
    // 13 machines, worker-8 disabled: left out of the count.
    assert!(text.contains("4/12 done, 1 disabled"), "{text}");
}

#[test]
fn the_overview_eta_comes_from_the_update_plan_when_it_has_estimates() {
    let mut m = grouped_scenario_model();
    let step = crate::domain::fixtures::update_plan::timed_step;
    // openstack took 78m for 60m estimated (x1.3); ceph (40m) runs since
    // 10:00; k8s-workers (60m) waits: 52m - 30m + 78m = 1h40m.
    m.snapshot.apply(Object::UpdatePlan(Arc::new(UpdatePlan {
        name: "child-cl-17.4.0".into(),
        namespace: NAMESPACE.into(),
        cluster: CLUSTER.into(),
        steps: vec![
            step(0, "openstack", 60, Some(("08:05", Some("09:23")))),
            step(1, "ceph", 40, Some(("10:00", None))),
            step(2, "k8s-workers", 60, None),
        ],
        ..UpdatePlan::default()
    })));
    let text = overview_text(&m);
    assert!(
        text.contains("ETA: blocked 38m00s, then 1h40m (plan estimates x1.3)"),
        "{text}"
    );
}

#[test]
fn groups_sort_by_index_as_a_number_then_by_name() {
    use mosk_console::app::tables::{Column, SortKind, TableData, TableRow, Width};
    // The builder carries each group's index as the typed rank (`#N`).
    let row = |id: &str| TableRow {
        id: id.into(),
        cells: vec![id.into()],
        search: String::new(),
        tone: Default::default(),
        node: None,
        keys: id
            .split_once(" #")
            .and_then(|(_, n)| n.split(' ').next()?.parse().ok())
            .map(|n| (0, n))
            .into_iter()
            .collect(),
    };
    let data = TableData {
        columns: vec![Column {
            title: "GROUP",
            width: Width::Min(10),
            sort: SortKind::Ranked,
            priority: 0,
            keep_end: false,
        }],
        rows: [
            "-",
            "rack-9 #10 x2",
            "rack-2 #2 x1",
            "control #1 x1",
            "default #1 x1",
        ]
        .into_iter()
        .map(row)
        .collect(),
        ..Default::default()
    };
    let cursor = TableCursor {
        group_column: Some(0),
        sort_column: 99,
        ..Default::default()
    };
    let ids: Vec<&str> = visible_rows(&data, &cursor)
        .into_iter()
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "control #1 x1",
            "default #1 x1",
            "rack-2 #2 x1",
            "rack-9 #10 x2",
            "-"
        ]
    );
}

/// The `plan` scenario served over HTTP, watched by the console's cluster
/// layer; the machines joined from what the watchers received.
#[tokio::test]
async fn the_plan_scenario_machines_arrive_with_their_update_groups() {
    use cluster_support::{Events, fast_watch, pair_of, serve_app};
    use mosk_console::cluster::spawn_watchers;
    use mosk_console::domain::join::machine_rows;
    use mosk_console::domain::objects::Kind;
    use mosk_console::sim::scenario::load::load_scenario;
    use mosk_console::sim::world::{SimCluster, SimWorld};

    let world = SimWorld::new(load_scenario("plan").unwrap(), 1);
    let mgmt = serve_app(
        world.mgmt_router(),
        world.mgmt().clone(),
        world.faults(SimCluster::Mgmt).clone(),
    )
    .await;
    let mosk = serve_app(
        world.mosk_router(),
        world.mosk().clone(),
        world.faults(SimCluster::Mosk).clone(),
    )
    .await;
    let pair = pair_of(mgmt, mosk);
    let clusters = pair.connect().await;
    let (tx, rx) = mosk_console::cluster::channel::channel();
    let cancel = tokio_util::sync::CancellationToken::new();
    let _tasks = spawn_watchers(&clusters, &fast_watch(), tx, cancel.clone());
    let mut events = Events::new(rx);
    events.synced(&Kind::ALL).await;
    cancel.cancel();

    let rows = machine_rows(&events.snapshot);
    let groups: Vec<(String, String, bool)> = rows
        .iter()
        .map(|r| {
            (
                r.name().to_string(),
                mosk_console::app::tables::machines::group_text(r),
                r.disabled,
            )
        })
        .collect();
    // The scenario's groups: control #1 x1 (masters), default #1 x1 (the
    // storage worker), gateways #2 x1, computes-a #2 x2 (three computes),
    // computes-b #3 x1 (the last two, the very last disabled).
    let of_role = |role: &str| -> Vec<(String, bool)> {
        groups
            .iter()
            .filter(|(name, ..)| name.contains(&format!("-child-cl-{role}-")))
            .map(|(_, g, d)| (g.clone(), *d))
            .collect()
    };
    let g = |s: &str, d: bool| (s.to_string(), d);
    assert_eq!(
        of_role("control"),
        vec![g("control #1 x1", false); 3],
        "{groups:#?}"
    );
    assert_eq!(of_role("storage-worker"), vec![g("default #1 x1", false)]);
    assert_eq!(of_role("gateway"), vec![g("gateways #2 x1", false); 2]);
    assert_eq!(
        of_role("compute"),
        vec![
            g("computes-a #2 x2", false),
            g("computes-a #2 x2", false),
            g("computes-a #2 x2", false),
            g("computes-b #3 x1", false),
            g("computes-b #3 x1", true),
        ]
    );
    // The disabled compute is left out of the machines counted.
    let p = mosk_console::domain::progress::progress(
        &events.snapshot,
        &mosk_console::domain::history::History::new(),
        &mosk_console::domain::join::machine_rows(&events.snapshot),
        world.now(),
        &[],
    );
    assert_eq!((p.total, p.disabled), (10, 1));
}
