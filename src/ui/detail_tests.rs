//! The detail panel reads the OpenStack lock's message: each list of
//! servers under its own heading, both message formats.

use super::*;
use crate::app::model::SessionInfo;
use crate::config::keymap::Keymap;
use crate::domain::fixtures::{self, names::*};
use crate::domain::join::machine_rows;
use crate::domain::objects::{Controller, DrainError, LockState, Object};
use std::sync::Arc;

fn text_for(machine: &str, node: &str, message: Option<&str>) -> Vec<String> {
    let mut model = Model::new(
        SessionInfo::default(),
        Keymap::default_keymap(),
        fixtures::mid_update_now(),
    );
    let mut snap = fixtures::mid_update();
    if let Some(msg) = message {
        snap.apply(Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
            Controller::Openstack,
            node,
            LockState::Active,
            Some(msg),
        ))));
    }
    model.snapshot = snap;
    let rows = machine_rows(&model.snapshot);
    let row = rows.iter().find(|r| r.name() == machine).expect("row");
    let theme = Theme::load("mono").expect("theme");
    detail_lines(row, &model, &History::new(), 200, &theme)
        .iter()
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn lists_of_the_25x_message_each_under_its_heading() {
    let lines = text_for(
        WORKER_3,
        NODE_W3,
        Some(&fixtures::both_lists_lock_message()),
    );
    for want in [
        format!("    > owners to notify (1): {SERVER_C}"),
        format!(
            "    > unset maintenance action (not migrated) (1): {}",
            fixtures::SERVER_D
        ),
    ] {
        assert!(lines.contains(&want), "{want:?} missing: {lines:#?}");
    }
}

#[test]
fn pre_25_1_message_is_one_list() {
    let lines = text_for(WORKER_2, NODE_W2, None);
    let want = format!("    > still on the node (2): {SERVER_A}, {SERVER_B}");
    assert!(lines.contains(&want), "{want:?} missing: {lines:#?}");
    assert!(lines.iter().all(|l| !l.contains("owners to notify")));
}

#[test]
fn migration_error_and_deferral_are_read_too() {
    let err = format!(
        "{} Got error while trying to migrate server {SERVER_A}: Migration pre-check error",
        fixtures::rockoon_stamp("10:00:03")
    );
    let lines = text_for(WORKER_2, NODE_W2, Some(&err));
    let want = format!("    > migration error (1): {SERVER_A}: Migration pre-check error");
    assert!(lines.contains(&want), "{want:?} missing: {lines:#?}");
    let conc = format!(
        "{} Number of inactive NodeWorkloadLocks exceeds allowed concurrency. Deferring processing for node {NODE_W2}",
        fixtures::rockoon_stamp("10:00:03")
    );
    let lines = text_for(WORKER_2, NODE_W2, Some(&conc));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("    > deferred: other nodes hold the maintenance slots")),
        "{lines:#?}"
    );
}

/// What else blocks the machine shows in its detail, with the exact texts.
#[test]
fn blockers_show_under_their_heading() {
    use crate::domain::fixtures::blockers::{node_notice, provider_machine};
    let mut model = Model::new(
        SessionInfo::default(),
        Keymap::default_keymap(),
        fixtures::mid_update_now(),
    );
    let mut snap = fixtures::mid_update();
    let mut m = snap
        .machines()
        .find(|m| m.name == WORKER_4)
        .cloned()
        .expect("worker 4");
    m.operation_stuck = true;
    m.drain_error = Some(DrainError::new(
        "Error: error when evicting pods/\"patroni-13-2\" -n \"stacklight\": global timeout reached: 10m0s",
    ));
    snap.apply(Object::Machine(Arc::new(m)));
    snap.apply(Object::ProviderMachine(Arc::new(provider_machine(
        WORKER_4, false, true,
    ))));
    snap.apply(Object::NodeDeletionRequest(Arc::new(node_notice(
        "ndr-w4",
        NODE_W4,
        fixtures::at("09:40"),
    ))));
    model.snapshot = snap;
    let rows = machine_rows(&model.snapshot);
    let row = rows.iter().find(|r| r.name() == WORKER_4).expect("row");
    let theme = Theme::load("mono").expect("theme");
    let lines: Vec<String> = detail_lines(row, &model, &History::new(), 100, &theme)
        .iter()
        .map(|l| l.to_string())
        .collect();
    let start = lines
        .iter()
        .position(|l| l == "Also blocking")
        .unwrap_or_else(|| panic!("no heading: {lines:#?}"));
    let end = lines.iter().position(|l| l == "Locks").expect("Locks");
    insta::assert_snapshot!(lines[start..end].join("\n"));
    // A machine with nothing else blocking it has no such heading.
    let row = rows.iter().find(|r| r.name() == WORKER_1).expect("row");
    let lines: Vec<String> = detail_lines(row, &model, &History::new(), 100, &theme)
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert!(!lines.iter().any(|l| l == "Also blocking"), "{lines:#?}");
}
