//! `update` driven by messages — keys, watch events, ticks — with assertions
//! on the model an operator would see: joined rows, phase, attention items
//! appearing and clearing, view switching and filters.

use crate::domain::fixtures::{self, names};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jiff::{SignedDuration, Timestamp};
use mosk_console::app::modal::Modal;
use mosk_console::app::model::{Model, SessionInfo, View};
use mosk_console::app::msg::{Command, Msg};
use mosk_console::app::update::update;
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::config::keymap::Keymap;
use mosk_console::domain::attention::AttentionKind;
use mosk_console::domain::objects::{
    Controller, Kind, LockState, MigrationMode, Object, ObjectKey, Snapshot,
};
use std::sync::Arc;

fn model_at(now: Timestamp) -> Model {
    Model::new(SessionInfo::default(), Keymap::default_keymap(), now)
}

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

/// Feeds a snapshot to the model the way the cluster layer does: one
/// `Resynced` per kind.
fn load(model: &mut Model, snap: &Snapshot) {
    for kind in Kind::ALL {
        let objects: Vec<Object> = snap.of_kind(kind).cloned().collect();
        update(
            model,
            Msg::Cluster(ClusterEvent::Resynced { kind, objects }),
        );
    }
}

fn attention_kinds(model: &Model) -> Vec<(AttentionKind, String)> {
    model
        .derived
        .attention
        .iter()
        .map(|a| (a.kind, a.subject.clone()))
        .collect()
}

#[test]
fn watch_events_build_joined_rows_and_the_phase() {
    let mut m = model_at(fixtures::mid_update_now());
    load(&mut m, &fixtures::mid_update());
    let rows = &m.derived.rows;
    assert_eq!(rows.len(), 7);
    assert_eq!(rows[0].machine.name, names::MASTER_0, "masters first");
    let w3 = rows
        .iter()
        .find(|r| r.machine.name == names::WORKER_3)
        .unwrap();
    assert_eq!(w3.migration_mode, MigrationMode::Manual);
    assert!(
        w3.servers_present().is_some(),
        "worker-3's OpenStack lock says servers are present"
    );
    let phase = m.derived.phase.as_ref().unwrap();
    assert_eq!(
        phase.number(),
        Some(4),
        "workers are being updated: {phase:?}"
    );
    assert!(m.last_event.is_some());
}

#[test]
fn attention_item_appears_and_clears_when_the_lock_is_released() {
    let mut m = model_at(fixtures::mid_update_now());
    load(&mut m, &fixtures::mid_update());
    let before = attention_kinds(&m);
    assert!(
        before.contains(&(AttentionKind::ManualMigration, names::WORKER_3.to_string())),
        "{before:?}"
    );

    // The operator migrated the servers and set `skip`; Rockoon releases the lock.
    let lock = m
        .snapshot
        .node_locks()
        .find(|l| {
            l.controller == Controller::Openstack && l.node_name.as_deref() == Some(names::NODE_W3)
        })
        .cloned()
        .unwrap();
    let mut released = lock.clone();
    released.state = LockState::Inactive;
    released.error_message = None;
    update(
        &mut m,
        Msg::Cluster(ClusterEvent::Applied(Object::NodeWorkloadLock(Arc::new(
            released,
        )))),
    );
    let after = attention_kinds(&m);
    assert!(
        !after.contains(&(AttentionKind::ManualMigration, names::WORKER_3.to_string())),
        "{after:?}"
    );
    // The change is recorded for the Events view.
    assert!(
        m.history
            .changes()
            .any(|c| c.key.name == lock.name && c.field == "status.state" && c.new == "inactive"),
        "no status.state change recorded"
    );
}

#[test]
fn deleted_objects_leave_the_rows() {
    let mut m = model_at(fixtures::mid_update_now());
    load(&mut m, &fixtures::mid_update());
    let key = ObjectKey {
        kind: Kind::NodeMaintenanceRequest,
        namespace: String::new(),
        name: names::NODE_W3.to_string(),
    };
    assert!(m.snapshot.objects().contains_key(&key));
    update(&mut m, Msg::Cluster(ClusterEvent::Deleted(key.clone())));
    let w3 = m
        .derived
        .rows
        .iter()
        .find(|r| r.machine.name == names::WORKER_3)
        .unwrap();
    assert!(w3.maintenance.is_none(), "the request is gone from the row");
}

#[test]
fn ticks_move_the_clock_and_expire_notices() {
    let t0 = fixtures::mid_update_now();
    let mut m = model_at(t0);
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char(':'), KeyModifiers::NONE)),
    );
    for c in "bogus".chars() {
        update(&mut m, key(c));
    }
    update(&mut m, code(KeyCode::Enter));
    assert!(m.notice().as_ref().unwrap().text.contains("unknown view"));
    let later = t0.checked_add(SignedDuration::from_secs(11)).unwrap();
    update(&mut m, Msg::Tick(later));
    assert_eq!(m.now, later);
    // Notices live in the operator's time, not the cluster clock.
    assert!(
        m.notice().is_some(),
        "the cluster clock does not expire notices"
    );
    update(&mut m, Msg::RealTime(std::time::Duration::from_secs(11)));
    assert!(m.notice().is_none(), "notice expired after its time");
}

#[test]
fn digits_and_commands_switch_views_and_q_quits() {
    let mut m = model_at(fixtures::mid_update_now());
    update(&mut m, key('2'));
    assert_eq!(m.view, View::Machines);
    update(&mut m, key('7'));
    assert_eq!(m.view, View::Logs);
    update(&mut m, key(':'));
    for c in "locks".chars() {
        update(&mut m, key(c));
    }
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.view, View::Locks);
    update(&mut m, code(KeyCode::Tab));
    assert_eq!(m.view, View::Requests);
    update(&mut m, key('?'));
    assert!(matches!(m.modals.top(), Some(Modal::Help { .. })));
    // q inside help closes help; it does not quit.
    assert!(update(&mut m, key('q')).is_empty());
    assert!(m.modals.is_empty() && !m.quit);
    assert_eq!(update(&mut m, key('q')), vec![Command::Quit]);
    assert!(m.quit);
}

#[test]
fn log_lines_follow_and_pause() {
    let mut m = model_at(fixtures::mid_update_now());
    let lines: Vec<String> = (0..5)
        .map(|i| {
            format!(
                r#"{{"level":"info","msg":"step {i}","machine":"{}"}}"#,
                names::WORKER_1
            )
        })
        .collect();
    update(
        &mut m,
        Msg::Cluster(ClusterEvent::LogLines {
            pod: "lcm-lcm-controller-1".into(),
            lines,
        }),
    );
    assert_eq!(m.logs.lines.len(), 5);
    update(&mut m, key('7'));
    assert!(m.logs.follow);
    update(&mut m, key('k'));
    assert!(!m.logs.follow, "scrolling up pauses the follow");
    update(&mut m, key('G'));
    assert!(m.logs.follow, "G follows again");
    update(&mut m, key('f'));
    assert!(!m.logs.follow, "f pauses");
}

fn visible_ids(m: &Model) -> Vec<String> {
    use mosk_console::app::tables::{table, visible_rows};
    let data = table(m, m.view);
    visible_rows(&data, &m.cursor(m.view))
        .into_iter()
        .map(|r| r.id.clone())
        .collect()
}

#[test]
fn slash_filters_by_node_name_enter_keeps_esc_clears() {
    let mut m = model_at(fixtures::mid_update_now());
    load(&mut m, &fixtures::mid_update());
    update(&mut m, key('2'));
    assert_eq!(visible_ids(&m).len(), 7);
    update(&mut m, key('/'));
    // Part of worker-3's node name: the filter matches text that is not a column.
    for c in "e41a610a".chars() {
        update(&mut m, key(c));
    }
    assert_eq!(
        visible_ids(&m),
        vec![names::WORKER_3.to_string()],
        "filters while typing"
    );
    update(&mut m, code(KeyCode::Enter));
    assert!(m.modals.is_empty());
    assert_eq!(
        visible_ids(&m),
        vec![names::WORKER_3.to_string()],
        "Enter keeps the filter"
    );
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(visible_ids(&m).len(), 7, "Esc clears the filter");

    // A filter that matches nothing, then Esc while typing, also clears it.
    update(&mut m, key('/'));
    update(&mut m, key('z'));
    assert!(visible_ids(&m).is_empty());
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(visible_ids(&m).len(), 7);
}

#[test]
fn space_marks_the_selected_rows_node_and_moves_down() {
    let mut m = model_at(fixtures::mid_update_now());
    load(&mut m, &fixtures::mid_update());
    update(&mut m, key('2'));
    update(&mut m, key(' '));
    update(&mut m, key(' '));
    assert_eq!(m.selected_nodes().iter().cloned().collect::<Vec<_>>(), {
        let mut v = vec![names::NODE_M0.to_string(), names::NODE_M1.to_string()];
        v.sort();
        v
    });
    update(&mut m, key('k'));
    update(&mut m, key(' '));
    assert!(
        !m.selected_nodes().contains(names::NODE_M1),
        "space again unmarks"
    );
}

#[test]
fn a_selection_belongs_to_the_view_it_was_made_in() {
    use crate::ui_support::{render, text_of};
    use mosk_console::app::actions::target_nodes;
    let mut m = model_at(fixtures::mid_update_now());
    load(&mut m, &fixtures::mid_update());
    // Two machines' nodes selected in Machines.
    update(&mut m, key('2'));
    update(&mut m, key(' '));
    update(&mut m, key(' '));
    let screen = text_of(render(&m, 120, 30).backend().buffer());
    assert!(screen.contains("· 2 selected"), "{screen}");
    // Locks: its title counts nothing and an action targets its own cursor
    // row, not the nodes selected elsewhere.
    update(&mut m, key('4'));
    let screen = text_of(render(&m, 120, 30).backend().buffer());
    assert!(!screen.contains("selected"), "{screen}");
    assert!(m.selected_nodes().is_empty());
    let targets = target_nodes(&m);
    assert!(targets.len() <= 1, "the cursor row only: {targets:?}");
    // Esc in Locks has nothing to clear; back in Machines the selection is
    // still there.
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, key('2'));
    assert_eq!(m.selected_nodes().len(), 2);
    let screen = text_of(render(&m, 120, 30).backend().buffer());
    assert!(screen.contains("· 2 selected"), "{screen}");
}
