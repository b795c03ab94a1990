//! The servers on a node, told apart by what the controller did: a running
//! live migration is never "failed" and never offered to acknowledge.

use std::sync::Arc;

use super::*;
use crate::domain::action::ActionId;
use crate::domain::attention::{AttentionItem, AttentionKind, attention};
use crate::domain::fixtures::{self, at, names::*};
use crate::domain::objects::{Controller, LockState, MigrationMode, Object};

const X: &str = "0ab4dd8f-ef0d-401d-9d5e-e9e97e077422";
const Y: &str = "1bc5ee90-f01e-412e-8e6f-f0a08f188533";

/// worker-3's cluster (mid-update) with worker-3's node in `mode` and an
/// empty history; `say` then writes messages on its OpenStack lock.
struct Node3 {
    snap: Snapshot,
    history: History,
}

impl Node3 {
    fn new(mode: Option<MigrationMode>) -> Node3 {
        let mut snap = fixtures::mid_update();
        let mut history = History::new();
        let mut n = fixtures::node(NODE_W3, true);
        n.migration_mode = mode;
        history.apply(&mut snap, Object::Node(Arc::new(n)), at("10:00"));
        Node3 { snap, history }
    }

    /// The controller writes `text` at `hh:mm:ss` (with Rockoon's prefix).
    fn say(&mut self, hh_mm_ss: &str, text: &str) {
        let msg = format!("{} {text}", fixtures::rockoon_stamp(hh_mm_ss));
        let mut l = fixtures::node_lock(
            Controller::Openstack,
            NODE_W3,
            LockState::Active,
            Some(&msg),
        );
        l.inner_state = Some("active".into());
        let when: Timestamp = format!("2025-03-04T{hh_mm_ss}Z").parse().unwrap();
        self.history
            .apply(&mut self.snap, Object::NodeWorkloadLock(Arc::new(l)), when);
    }

    fn items(&self, now: &str) -> Vec<AttentionItem> {
        attention(&self.snap, &self.history, at(now))
            .into_iter()
            .filter(|i| i.subject == WORKER_3)
            .collect()
    }

    fn offer(&self) -> Result<Vec<String>, String> {
        acknowledge_offer(&self.snap, &self.history, NODE_W3)
    }

    fn servers(&self) -> Vec<(String, ServerProgress)> {
        let lock = openstack_lock(&self.snap, NODE_W3).unwrap();
        node_migration(&self.snap, &self.history, lock)
            .map(|m| m.servers.into_iter().map(|s| (s.id, s.progress)).collect())
            .unwrap_or_default()
    }
}

fn left_unset(ids: &[&str]) -> String {
    let list = ids
        .iter()
        .map(|i| format!("'{i}'"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "Some servers are still present on the host. Servers with unset maintenance action: [{list}]"
    )
}

fn left_old(pairs: &[(&str, &str)]) -> String {
    let dict = pairs
        .iter()
        .map(|(id, st)| format!("'{id}': '{st}'"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "Some servers {{{dict}}} are still present on host {NODE_W3}. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'"
    )
}

#[test]
fn a_server_still_migrating_after_the_loop_is_neither_failed_nor_acknowledgeable() {
    // Rockoon's loop ends as soon as X is MIGRATING (no longer a candidate);
    // the completion check lists it; each retry lists it again without
    // starting it again.
    let mut n = Node3::new(None);
    n.say("10:10:00", &format!("Starting migration for {X}"));
    n.say("10:10:10", &left_unset(&[X]));
    n.say("10:11:10", &left_unset(&[X]));
    n.say("10:12:10", &left_unset(&[X]));
    assert_eq!(
        n.servers(),
        vec![(
            X.to_string(),
            ServerProgress::Migrating {
                since: Some(at("10:10"))
            }
        )]
    );
    let items = n.items("10:13");
    assert!(
        items
            .iter()
            .all(|i| i.kind != AttentionKind::MigrationFailing
                && i.action != Some(ActionId::AcknowledgeMigration)),
        "{items:#?}"
    );
    let e = n.offer().unwrap_err();
    assert!(e.contains("live migration may be running"), "{e}");
}

#[test]
fn the_old_message_saying_migrating_is_taken_as_fact() {
    let mut n = Node3::new(None);
    n.say("10:10:10", &left_old(&[(X, "MIGRATING")]));
    assert!(matches!(n.servers()[0].1, ServerProgress::Migrating { .. }));
    assert!(
        n.items("10:11")
            .iter()
            .all(|i| i.action.is_none() || i.action != Some(ActionId::AcknowledgeMigration))
    );
    assert!(n.offer().is_err());
    // Once the status says ACTIVE again, the run gave up on it: failing.
    n.say("10:11:10", &left_old(&[(X, "ACTIVE")]));
    assert!(matches!(n.servers()[0].1, ServerProgress::Failing { .. }));
}

#[test]
fn a_migration_started_again_has_failed_and_the_item_survives_the_loop() {
    let mut n = Node3::new(None);
    n.say("10:10:00", &format!("Starting migration for {X}"));
    n.say("10:10:10", &left_unset(&[X]));
    n.say("10:11:10", &format!("Starting migration for {X}"));
    n.say("10:11:20", &left_unset(&[X]));
    let items = n.items("10:12");
    assert_eq!(items.len(), 1, "{items:#?}");
    let failing = &items[0];
    assert_eq!(failing.kind, AttentionKind::MigrationFailing);
    // Live mode: the way out is to stop the controller's retries first.
    assert_eq!(failing.action, Some(ActionId::SetMigrationMode));
    assert_eq!(failing.since, at("10:10"));
    assert!(
        failing
            .why
            .contains("live migration started 2 times, each came back"),
        "{}",
        failing.why
    );
    assert!(!failing.why.contains("gave up"), "{}", failing.why);
    // The next run starts it again: the same item, the same age.
    n.say("10:12:20", &format!("Starting migration for {X}"));
    let again = n.items("10:13");
    assert_eq!(again.len(), 1, "{again:#?}");
    assert_eq!(again[0].kind, AttentionKind::MigrationFailing);
    assert_eq!(again[0].since, at("10:10"));
    let e = n.offer().unwrap_err();
    assert!(e.contains("set the mode to manual first"), "{e}");
}

#[test]
fn a_failed_start_is_failing_and_names_the_error() {
    let mut n = Node3::new(None);
    n.say("10:10:00", &format!("Starting migration for {X}"));
    n.say(
        "10:10:01",
        &format!("Got error while trying to migrate server {X}: No valid host was found."),
    );
    n.say("10:10:20", &left_unset(&[X]));
    let items = n.items("10:11");
    assert_eq!(items[0].kind, AttentionKind::MigrationFailing);
    assert!(
        items[0].why.contains("No valid host was found."),
        "{}",
        items[0].why
    );
}

#[test]
fn a_server_the_controller_never_starts_is_named_after_two_checks() {
    // An ERROR server is no candidate: the checks list it, no start comes.
    let mut n = Node3::new(None);
    n.say("10:10:00", &left_unset(&[X]));
    assert_eq!(n.servers()[0].1, ServerProgress::Unknown);
    assert!(
        n.items("10:10").is_empty()
            || n.items("10:10")
                .iter()
                .all(|i| i.kind != AttentionKind::MigrationFailing)
    );
    n.say("10:11:00", &left_unset(&[X]));
    let items = n.items("10:12");
    // Not "failing": it may be migrating since before the console saw the
    // node. The item says both and offers nothing.
    assert_eq!(items[0].kind, AttentionKind::ServersLeft);
    assert_eq!(items[0].action, None);
    assert!(
        items[0]
            .why
            .contains("has not started its migration in 2 checks"),
        "{}",
        items[0].why
    );
    // Live mode: the way out is manual first, whatever the server does.
    assert!(
        n.offer()
            .unwrap_err()
            .contains("set the mode to manual first")
    );
}

#[test]
fn servers_tagged_notify_on_a_live_node_are_not_acknowledgeable() {
    // skip frees only untagged servers (compute_get_server_maintenance_action).
    let mut n = Node3::new(None);
    n.say(
        "10:10:00",
        &format!("Some servers are still present on the host. Notify owners of the following server: ['{X}']"),
    );
    let items = n.items("10:11");
    assert_eq!(items[0].kind, AttentionKind::NotifyOwners);
    assert_eq!(items[0].action, None);
    assert!(
        items[0]
            .why
            .contains("does not free a server tagged notify"),
        "{}",
        items[0].why
    );
    assert!(n.offer().is_err());
}

#[test]
fn manual_mode_waits_for_the_operator_unless_a_migration_runs() {
    let mut n = Node3::new(Some(MigrationMode::Manual));
    n.say(
        "10:10:00",
        &format!("Some servers are still present on the host. Notify owners of the following server: ['{X}']"),
    );
    let items = n.items("10:11");
    assert_eq!(items[0].kind, AttentionKind::ManualMigration);
    assert_eq!(items[0].action, Some(ActionId::AcknowledgeMigration));
    assert_eq!(n.offer(), Ok(vec![X.to_string()]));
    // A server tagged live_migrate is migrated even in manual mode; while
    // it runs, acknowledging would reboot the node under it.
    n.say("10:11:00", &format!("Starting migration for {Y}"));
    n.say(
        "10:11:10",
        &format!("Some servers are still present on the host. Notify owners of the following server: ['{X}'] Servers with unset maintenance action: ['{Y}']"),
    );
    let items = n.items("10:12");
    assert_eq!(items[0].kind, AttentionKind::ManualMigration);
    assert_eq!(items[0].action, None);
    assert!(
        items[0].why.contains("A live migration is running"),
        "{}",
        items[0].why
    );
    assert!(n.offer().unwrap_err().contains(Y));
}

#[test]
fn an_empty_list_offers_nothing_to_acknowledge() {
    let mut n = Node3::new(Some(MigrationMode::Manual));
    n.say(
        "10:10:00",
        "Some servers are still present on the host. Notify owners of the following server: []",
    );
    let e = n.offer().unwrap_err();
    assert!(e.contains("names no server"), "{e}");
    assert!(
        n.items("10:11")
            .iter()
            .all(|i| i.action != Some(ActionId::AcknowledgeMigration))
    );
}

#[test]
fn unknown_mode_and_attempts_that_are_not_integers_are_raised() {
    let mut snap = fixtures::mid_update();
    let mut bad_mode = fixtures::node(NODE_W4, true);
    bad_mode.migration_mode = Some(MigrationMode::Other("livee".into()));
    snap.apply(Object::Node(Arc::new(bad_mode)));
    let mut bad_attempts = fixtures::node(NODE_W1, true);
    bad_attempts.migration_attempts = Some("three".into());
    snap.apply(Object::Node(Arc::new(bad_attempts)));
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    let invalid: Vec<&AttentionItem> = items
        .iter()
        .filter(|i| i.kind == AttentionKind::MigrationSettingsInvalid)
        .collect();
    assert_eq!(invalid.len(), 2, "{items:#?}");
    let w4 = invalid.iter().find(|i| i.subject == WORKER_4).unwrap();
    assert!(
        w4.why
            .contains("instance_migration_mode \"livee\" is none of live, manual, skip"),
        "{}",
        w4.why
    );
    assert!(w4.why.contains("without writing a message"), "{}", w4.why);
    assert_eq!(w4.action, Some(ActionId::SetMigrationMode));
    let w1 = invalid.iter().find(|i| i.subject == WORKER_1).unwrap();
    assert!(w1.why.contains("\"three\" is not an integer"), "{}", w1.why);
}

#[test]
fn attempts_are_read_as_python_reads_them() {
    for (text, want) in [
        ("3", Some(3)),
        (" 5 ", Some(5)),
        ("+2", Some(2)),
        ("-1", Some(-1)),
        ("1_0", Some(10)),
        ("three", None),
        ("3.0", None),
        ("", None),
        ("_1", None),
        ("1__0", None),
    ] {
        assert_eq!(parse_python_int(text), want, "{text:?}");
    }
}
