//! Snapshots of the acknowledge dialog's lists of servers: each list under
//! its own heading with the warning that is true for it (MOSK 25.1 lists,
//! per node mode), at 80x40.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;

use crate::app::actions::access::{AccessVerdict, all_keys};
use crate::app::actions::dialog::Dialog;
use crate::app::model::{Model, SessionInfo};
use crate::app::msg::Msg;
use crate::app::update::update;
use crate::config::keymap::Keymap;
use crate::config::theme::Theme;
use crate::domain::fixtures::{self, names::*};
use crate::domain::objects::{Controller, LockState, MigrationMode, Object};

/// The mid-update cluster with `message` on worker-3's OpenStack lock and
/// the node in `mode`, the controller seen writing it at two retries (no
/// migration started in between); worker-3 selected and `a` pressed.
fn acknowledge_worker3(message: &str, mode: Option<MigrationMode>) -> Model {
    let m = press_a_on_worker3(message, mode);
    assert!(
        matches!(m.modals.dialog(), Some(Dialog::Confirm(_))),
        "the acknowledge dialog opens: {:?}",
        m.notice()
    );
    m
}

fn press_a_on_worker3(message: &str, mode: Option<MigrationMode>) -> Model {
    let session = SessionInfo {
        mosk_context: "sim-mosk".into(),
        ..SessionInfo::default()
    };
    let mut m = Model::new(
        session,
        Keymap::default_keymap(),
        fixtures::mid_update_now(),
    );
    m.snapshot = fixtures::mid_update();
    let mut n = fixtures::node(NODE_W3, true);
    n.migration_mode = mode;
    let at = fixtures::mid_update_now();
    m.history
        .apply(&mut m.snapshot, Object::Node(Arc::new(n)), at);
    // The same check at two retries, a minute apart (Rockoon rewrites its
    // message with a new timestamp each time), each after a start of the
    // server with an unset action that came back: its migration fails and
    // does not run now.
    let (_, text) = crate::domain::lockmsg::split_timestamp(message);
    for (stamp, when) in [
        ("10:28:00", at - jiff::SignedDuration::from_mins(2)),
        ("10:29:00", at),
    ] {
        let mut started = fixtures::node_lock(
            Controller::Openstack,
            NODE_W3,
            LockState::Active,
            Some(&format!(
                "{} Starting migration for {}",
                fixtures::rockoon_stamp(stamp),
                fixtures::SERVER_D
            )),
        );
        started.inner_state = Some("active".into());
        m.history.apply(
            &mut m.snapshot,
            Object::NodeWorkloadLock(Arc::new(started)),
            when - jiff::SignedDuration::from_secs(30),
        );
        let mut l = fixtures::node_lock(
            Controller::Openstack,
            NODE_W3,
            LockState::Active,
            Some(&format!("{} {text}", fixtures::rockoon_stamp(stamp))),
        );
        l.inner_state = Some("active".into());
        m.history
            .apply(&mut m.snapshot, Object::NodeWorkloadLock(Arc::new(l)), when);
    }
    for k in all_keys("child-ns") {
        m.actions.access.record(k, AccessVerdict::Allowed, m.now);
    }
    m.selected_nodes_mut().insert(NODE_W3.into());
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::NONE)),
    );
    m
}

fn render(m: &Model) -> String {
    let mut t = Terminal::new(TestBackend::new(80, 40)).unwrap();
    let theme = Theme::load("mono").unwrap();
    t.draw(|f| super::super::draw(f, f.area(), m, &theme))
        .unwrap();
    format!("{}", t.backend())
}

/// Node mode manual: an untagged server is `notify` too, a server with an
/// unset action must be tagged `live_migrate`.
#[test]
fn acknowledge_25x_lists_under_manual_mode() {
    let m = acknowledge_worker3(
        &fixtures::both_lists_lock_message(),
        Some(MigrationMode::Manual),
    );
    let screen = render(&m);
    for want in [
        "owners to notify (1), per its OpenStack lock:",
        SERVER_C,
        "unset maintenance action (not migrated) (1), per its OpenStack lock:",
        fixtures::SERVER_D,
        "tagged live_migrate: skip does not release them",
    ] {
        assert!(screen.contains(want), "{want} missing:\n{screen}");
    }
    let Some(Dialog::Confirm(c)) = m.modals.dialog() else {
        unreachable!()
    };
    let warnings: Vec<&str> = c.plan.steps[0]
        .acknowledge
        .iter()
        .map(|g| g.warning)
        .collect();
    assert!(
        warnings.iter().all(|w| !w.contains("skip lets LCM reboot")),
        "the pre-25.1 warning is not true here: {warnings:?}"
    );
    insta::assert_snapshot!(screen);
}

/// Node mode unset (live): the controller still retries the servers it
/// migrates, and skip frees no server tagged notify: acknowledging is not
/// offered; the notice says to set manual first.
#[test]
fn acknowledge_25x_lists_under_live_mode_is_refused() {
    let m = press_a_on_worker3(&fixtures::both_lists_lock_message(), None);
    assert!(m.modals.dialog().is_none());
    let notice = m.notice().clone().map(|n| n.text).unwrap_or_default();
    assert!(notice.contains("set the mode to manual first"), "{notice}");
}

/// The pre-25.1 message keeps its one list and its warning.
#[test]
fn acknowledge_pre_25_1_list() {
    let m = acknowledge_worker3(
        &fixtures::worker2_lock_message().replace(NODE_W2, NODE_W3),
        Some(MigrationMode::Manual),
    );
    let screen = render(&m);
    for want in [
        "still on the node (2), per its OpenStack lock:",
        SERVER_A,
        SERVER_B,
        "! confirm only after these servers are migrated or shut down",
    ] {
        assert!(screen.contains(want), "{want} missing:\n{screen}");
    }
    assert!(!screen.contains("owners to notify"), "{screen}");
    insta::assert_snapshot!(screen);
}
