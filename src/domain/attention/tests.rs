//! Tests of `attention`.
use super::*;
use crate::domain::fixtures::{self, CORDON_DRAIN_MESSAGE, at, names::*};
use crate::domain::objects::*;
use std::sync::Arc;

fn kinds(items: &[AttentionItem]) -> Vec<(AttentionKind, &str)> {
    items.iter().map(|i| (i.kind, i.subject.as_str())).collect()
}

#[test]
fn mid_update_queue_oldest_first() {
    let sc = fixtures::mid_update_scenario();
    let items = attention(&sc.snap, &sc.history, fixtures::mid_update_now());
    // Worker-2's cordon-drain retries because its servers are still there:
    // one item for that cause, LCM's retry folded under it.
    // Worker-2's failing migration counts from its first start (09:52):
    // the controller started SERVER_A then, and it is still on the node.
    assert_eq!(
        kinds(&items),
        vec![
            (AttentionKind::MigrationFailing, WORKER_2),
            (AttentionKind::ManualMigration, WORKER_3),
        ]
    );
    assert_eq!(
        items.iter().map(|i| i.since).collect::<Vec<_>>(),
        vec![at("09:52"), at("10:02")]
    );
    let manual = &items[1];
    assert_eq!(manual.action, Some(ActionId::AcknowledgeMigration));
    assert_eq!(manual.node.as_deref(), Some(NODE_W3));
    assert!(manual.why.contains(SERVER_C), "{}", manual.why);
    assert!(
        manual.why.contains("1 server still on the node"),
        "{}",
        manual.why
    );
    // In Prepare 30 minutes into its turn where others took 2: a stall, and
    // a symptom of the wait for the operator.
    assert_eq!(
        manual
            .symptoms
            .iter()
            .map(|s| (s.kind, s.since))
            .collect::<Vec<_>>(),
        vec![(AttentionKind::Stall, at("10:00"))],
        "{:#?}",
        manual.symptoms
    );
    let gave_up = &items[0];
    // The old message's status ACTIVE: the controller's run spent its
    // attempts (never "gave up": the next retry starts it again).
    assert!(
        gave_up.why.contains("live migration failing for 2 servers"),
        "{}",
        gave_up.why
    );
    assert!(
        gave_up.why.contains("spent its attempts"),
        "{}",
        gave_up.why
    );
    assert!(
        gave_up.why.contains("Some servers {'0ab4dd8f"),
        "{}",
        gave_up.why
    );
    assert_eq!(gave_up.symptoms.len(), 1, "{:#?}", gave_up.symptoms);
    let retry = &gave_up.symptoms[0];
    assert_eq!(retry.kind, AttentionKind::ClusterStateRetrying);
    assert_eq!(retry.since, at("09:56"));
    assert!(retry.why.contains("cordon-drain at attempt 4"));
    assert!(retry.why.contains(CORDON_DRAIN_MESSAGE));
}

#[test]
fn without_history_since_comes_from_message_timestamps() {
    let now = fixtures::mid_update_now();
    let items = attention(&fixtures::mid_update(), &History::new(), now);
    let since: Vec<(AttentionKind, Timestamp)> = items.iter().map(|i| (i.kind, i.since)).collect();
    assert_eq!(
        since,
        vec![
            (
                AttentionKind::MigrationFailing,
                "2025-03-04T10:28:41.120334Z".parse().unwrap()
            ),
            (
                AttentionKind::ManualMigration,
                "2025-03-04T10:29:05.120334Z".parse().unwrap()
            ),
        ]
    );
    // LCM's retry is folded under the servers that cause it.
    assert_eq!(
        items[0]
            .symptoms
            .iter()
            .map(|s| (s.kind, s.since))
            .collect::<Vec<_>>(),
        vec![(AttentionKind::ClusterStateRetrying, now)]
    );
}

#[test]
fn attempt_below_threshold_or_reached_value_is_quiet() {
    let mut snap = fixtures::mid_update();
    let now = fixtures::mid_update_now();
    snap.apply(Object::ClusterState(Arc::new(fixtures::cluster_state(
        ClusterStateType::CordonDrain,
        WORKER_2,
        "true",
        None,
        2,
        Some(CORDON_DRAIN_MESSAGE),
    ))));
    let items = attention(&snap, &History::new(), now);
    assert!(
        items
            .iter()
            .all(|i| i.kind != AttentionKind::ClusterStateRetrying)
    );
    snap.apply(Object::ClusterState(Arc::new(fixtures::cluster_state(
        ClusterStateType::CordonDrain,
        WORKER_2,
        "true",
        Some("true"),
        5,
        Some(CORDON_DRAIN_MESSAGE),
    ))));
    let items = attention(&snap, &History::new(), now);
    assert!(
        items
            .iter()
            .all(|i| i.kind != AttentionKind::ClusterStateRetrying)
    );
}

#[test]
fn skip_mode_with_servers_has_no_acknowledge() {
    let mut snap = fixtures::mid_update();
    let mut n = fixtures::node(NODE_W3, true);
    n.migration_mode = Some(MigrationMode::Skip);
    snap.apply(Object::Node(Arc::new(n)));
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    let w3 = items.iter().find(|i| i.subject == WORKER_3).unwrap();
    // MOSK 25.1: under skip only a notify tag keeps the server there.
    assert_eq!(w3.kind, AttentionKind::NotifyOwners);
    assert_eq!(w3.action, None);
    assert!(
        w3.why.starts_with(&format!(
            "1 server tagged notify still on the node: {SERVER_C}; tell the owners"
        )),
        "{}",
        w3.why
    );
    assert!(
        w3.why.contains("does not free a server tagged notify"),
        "{}",
        w3.why
    );
}

/// Put `message` on worker-3's OpenStack lock, with the node in `mode`.
fn worker3_says(message: &str, mode: Option<MigrationMode>) -> AttentionItem {
    let mut snap = fixtures::mid_update();
    let mut l = fixtures::node_lock(
        Controller::Openstack,
        NODE_W3,
        LockState::Active,
        Some(message),
    );
    l.inner_state = Some("active".into());
    snap.apply(Object::NodeWorkloadLock(Arc::new(l)));
    let mut n = fixtures::node(NODE_W3, true);
    n.migration_mode = mode;
    snap.apply(Object::Node(Arc::new(n)));
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    items
        .into_iter()
        .find(|i| i.subject == WORKER_3)
        .expect("an item for worker-3")
}

#[test]
fn new_format_lists_are_told_apart() {
    let msg = fixtures::both_lists_lock_message();
    let live = worker3_says(&msg, None);
    // Live mode: the notify list is servers tagged notify, which skip does
    // not free: nothing to acknowledge.
    assert_eq!(live.kind, AttentionKind::NotifyOwners);
    assert_eq!(live.action, None);
    assert!(
        live.why.starts_with(&format!(
            "1 server tagged notify still on the node: {SERVER_C}; tell the owners"
        )),
        "{}",
        live.why
    );
    let manual = worker3_says(&msg, Some(MigrationMode::Manual));
    assert_eq!(manual.kind, AttentionKind::ManualMigration);
    assert!(
        manual
            .why
            .starts_with("migration mode manual: 2 servers still on the node"),
        "{}",
        manual.why
    );
    assert!(manual.why.contains(SERVER_C), "{}", manual.why);
    // An unset-only list with nothing seen before: the server may be
    // migrating right now (the loop ends once it is MIGRATING): no item.
    let mut snap = fixtures::mid_update();
    let mut l = fixtures::node_lock(
        Controller::Openstack,
        NODE_W3,
        LockState::Active,
        Some(&fixtures::unset_only_lock_message()),
    );
    l.inner_state = Some("active".into());
    snap.apply(Object::NodeWorkloadLock(Arc::new(l)));
    snap.apply(Object::Node(Arc::new(fixtures::node(NODE_W3, true))));
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    assert!(
        items.iter().all(|i| !(i.subject == WORKER_3
            && matches!(
                i.kind,
                AttentionKind::MigrationFailing | AttentionKind::ManualMigration
            ))),
        "{items:#?}"
    );
}

#[test]
fn long_lists_name_three_servers_in_the_item() {
    let ids: Vec<String> = (0..5)
        .map(|i| format!("00000000-0000-4000-8000-00000000000{i}"))
        .collect();
    let list = ids
        .iter()
        .map(|i| format!("'{i}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let msg = format!(
        "{} Some servers are still present on the host. Notify owners of the following server: [{list}]",
        fixtures::rockoon_stamp("10:29:05")
    );
    let item = worker3_says(&msg, Some(MigrationMode::Live));
    assert!(
        item.why.contains(&format!(
            "5 servers tagged notify still on the node: {}, {}, {} and 2 more",
            ids[0], ids[1], ids[2]
        )),
        "{}",
        item.why
    );
}

#[test]
fn released_lock_is_not_a_migration_wait() {
    let mut snap = fixtures::mid_update();
    snap.apply(Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
        Controller::Openstack,
        NODE_W3,
        LockState::Inactive,
        Some(&fixtures::worker3_lock_message()),
    ))));
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    assert!(items.iter().all(|i| i.subject != WORKER_3));
}

#[test]
fn failed_locks_node_and_cluster() {
    let mut snap = fixtures::mid_update();
    snap.apply(Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
        Controller::Ceph,
        NODE_W4,
        LockState::Failed,
        Some("2025-03-04 09:00:00 OSD down"),
    ))));
    snap.apply(Object::ClusterWorkloadLock(Arc::new(
        fixtures::cluster_lock(TF_CWL, Controller::Tungstenfabric, LockState::Failed),
    )));
    let now = fixtures::mid_update_now();
    let items = attention(&snap, &History::new(), now);
    let failed: Vec<&AttentionItem> = items
        .iter()
        .filter(|i| i.kind == AttentionKind::LockFailed)
        .collect();
    assert_eq!(failed.len(), 2);
    assert_eq!(failed[0].subject, WORKER_4);
    assert_eq!(failed[0].since, at("09:00"));
    assert!(failed[0].why.contains("OSD down"));
    assert_eq!(failed[1].subject, TF_CWL);
    assert!(failed[1].why.contains("without a message"));
}

#[test]
fn stall_after_three_times_the_median() {
    let sc = fixtures::mid_update_scenario();
    // Worker-2 is compared with the workers before it, not the masters: the
    // workers' Deploy median is worker-1's 20m (the masters' 13m would
    // have called it stalled at 10:35); it entered Deploy at 09:55.
    let quiet = attention(&sc.snap, &sc.history, at("10:54"));
    assert!(
        quiet
            .iter()
            .filter(|i| i.subject == WORKER_2)
            .flat_map(|i| &i.symptoms)
            .all(|s| s.kind != AttentionKind::Stall)
    );
    let items = attention(&sc.snap, &sc.history, at("10:56"));
    // Worker-2 waits for its servers: the stall is a symptom of that cause.
    let host = items
        .iter()
        .find(|i| i.subject == WORKER_2)
        .expect("worker-2's item");
    assert_eq!(host.kind, AttentionKind::MigrationFailing);
    assert!(items.iter().all(|i| i.kind != AttentionKind::Stall));
    let stall: Vec<&Symptom> = host
        .symptoms
        .iter()
        .filter(|s| s.kind == AttentionKind::Stall)
        .collect();
    assert_eq!(stall.len(), 1);
    assert_eq!(stall[0].since, at("09:55"));
    assert!(
        stall[0].why.contains("in Deploy for 1h01m"),
        "{}",
        stall[0].why
    );
    assert!(
        stall[0].why.contains("median 20m of 1 machine(s)"),
        "{}",
        stall[0].why
    );
    // Worker-4 waits in Prepare without a request: never a stall.
    let late = attention(&sc.snap, &sc.history, at("23:00"));
    assert!(late.iter().all(|i| i.subject != WORKER_4));
}

/// The mid-update fixture with the update over (every machine Ready on the
/// target, requests and cluster states gone at 11:40) but three vRouter pods
/// still on the old template, the LCMCluster targeting `target`.
fn update_over_with_old_vrouters(target: Option<&str>) -> fixtures::Scenario {
    let mut sc = fixtures::mid_update_scenario();
    let mut cl = fixtures::lcm_cluster();
    cl.target_release = target.map(str::to_string);
    sc.apply(Object::LcmCluster(Arc::new(cl)), at("08:00"));
    assert!(
        attention(&sc.snap, &sc.history, at("12:00"))
            .iter()
            .all(|i| i.kind != AttentionKind::VrouterOutdated
                && i.kind != AttentionKind::VrouterStillOutdated)
    );
    // Finish: every machine Ready, requests and cluster states gone.
    let keys: Vec<ObjectKey> = sc
        .snap
        .objects()
        .keys()
        .filter(|k| {
            matches!(
                k.kind,
                Kind::NodeMaintenanceRequest
                    | Kind::ClusterMaintenanceRequest
                    | Kind::LcmClusterState
            )
        })
        .cloned()
        .collect();
    for (name, ty, node, idx) in fixtures::MACHINES {
        let mut m = fixtures::machine(name, ty, MachineState::Ready, Some(node), Some(idx));
        m.release = Some(TARGET_RELEASE.into());
        sc.apply(Object::Machine(Arc::new(m)), at("11:30"));
    }
    for k in &keys {
        sc.remove(k, at("11:40"));
    }
    for l in [NODE_W2, NODE_W3] {
        sc.apply(
            Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
                Controller::Openstack,
                l,
                LockState::Active,
                None,
            ))),
            at("11:40"),
        );
    }
    sc
}

#[test]
fn vrouter_outdated_only_after_the_update_on_a_manual_release() {
    let sc = update_over_with_old_vrouters(Some("mosk-8-8-0-22-2"));
    let items = attention(&sc.snap, &sc.history, at("11:41"));
    assert_eq!(
        kinds(&items),
        vec![(AttentionKind::VrouterOutdated, VROUTER_DS)]
    );
    assert_eq!(items[0].kind.label(), "vRouter outdated");
    assert_eq!(items[0].action, Some(ActionId::RestartVrouter));
    assert_eq!(items[0].since, at("11:40"));
    assert_eq!(
        items[0].why,
        "the update is over but 3 vRouter pod(s) run the old template (UP-TO-DATE 1 of CURRENT 4); MOSK 22.2 restarts vRouter pods by hand (automatic since 22.4): restart them one node at a time"
    );
}

#[test]
fn vrouter_on_an_automatic_release_waits_for_the_restart_then_says_still_outdated() {
    let sc = update_over_with_old_vrouters(Some(TARGET_RELEASE));
    // MOSK 25.1 restarts the pods itself: no prompt right after the update …
    for t in ["11:41", "12:09"] {
        assert!(
            attention(&sc.snap, &sc.history, at(t)).is_empty(),
            "{t}: {:?}",
            attention(&sc.snap, &sc.history, at(t))
        );
    }
    // … but once the grace period is over, the pods left need a human.
    let items = attention(&sc.snap, &sc.history, at("12:10"));
    assert_eq!(
        kinds(&items),
        vec![(AttentionKind::VrouterStillOutdated, VROUTER_DS)]
    );
    assert_eq!(items[0].kind.label(), "vRouter pods still outdated");
    assert_eq!(items[0].action, Some(ActionId::RestartVrouter));
    assert_eq!(items[0].since, at("11:40"));
    assert_eq!(
        items[0].why,
        "30m after the update 3 vRouter pod(s) run the old template (UP-TO-DATE 1 of CURRENT 4); the automatic restart (MOSK 25.1, 22.4+) should have replaced them [I: 30m grace]: restart them one node at a time"
    );
}

#[test]
fn vrouter_on_an_unknown_release_asks_to_check() {
    for (target, named) in [
        (Some("custom-build"), "\u{201c}custom-build\u{201d}"),
        (None, "the target release"),
    ] {
        let sc = update_over_with_old_vrouters(target);
        let items = attention(&sc.snap, &sc.history, at("11:41"));
        assert_eq!(
            kinds(&items),
            vec![(AttentionKind::VrouterOutdated, VROUTER_DS)]
        );
        assert_eq!(
            items[0].why,
            format!(
                "the update is over but 3 vRouter pod(s) run the old template (UP-TO-DATE 1 of CURRENT 4); the MOSK version of {named} is unknown: check whether your release restarts vRouter automatically (22.4+), else restart them one node at a time"
            )
        );
    }
}

#[test]
fn malformed_objects_are_listed() {
    let mut snap = fixtures::idle();
    snap.apply(Object::Malformed(Arc::new(MalformedObject {
        kind: Kind::NodeWorkloadLock,
        namespace: String::new(),
        name: "openstack-broken".into(),
        error: "status.state: expected a string".into(),
    })));
    let items = attention(&snap, &History::new(), at("10:00"));
    assert_eq!(
        kinds(&items),
        vec![(AttentionKind::Malformed, "openstack-broken")]
    );
    assert!(items[0].why.contains("NodeWorkloadLock openstack-broken"));
    assert!(items[0].why.contains("expected a string"));
}

#[test]
fn idle_cluster_needs_nobody() {
    assert!(attention(&fixtures::idle(), &History::new(), at("10:00")).is_empty());
}

#[test]
fn a_request_stuck_in_deletion_names_the_request_and_the_locks_reason() {
    // Rockoon's delete handler: the lock is already inactive and says why
    // the node cannot be brought back; the request keeps its finalizer.
    let mut snap = fixtures::mid_update();
    let mut r = fixtures::nmr(NODE_W2, "os", at("09:51"));
    r.deleting = true;
    r.deletion = Some(at("10:20"));
    snap.apply(Object::NodeMaintenanceRequest(Arc::new(r)));
    let msg = format!(
        "{} Timeout waiting for compute services up on the host.",
        fixtures::rockoon_stamp("10:25:00")
    );
    snap.apply(Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
        Controller::Openstack,
        NODE_W2,
        LockState::Inactive,
        Some(&msg),
    ))));
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    let stuck: Vec<&AttentionItem> = items
        .iter()
        .filter(|i| i.kind == AttentionKind::RequestStuckDeleting)
        .collect();
    assert_eq!(stuck.len(), 1, "{items:#?}");
    assert_eq!(stuck[0].subject, WORKER_2);
    assert_eq!(stuck[0].since, at("10:20"));
    assert!(
        stuck[0].why.contains(&format!(
            "NodeMaintenanceRequest {NODE_W2} has been in deletion for 10m"
        )),
        "{}",
        stuck[0].why
    );
    assert!(
        stuck[0]
            .why
            .contains("Timeout waiting for compute services up on the host."),
        "{}",
        stuck[0].why
    );
}

#[test]
fn a_request_in_deletion_without_a_word_is_stuck_only_after_the_expected_time() {
    let mut snap = fixtures::mid_update();
    let mut r = fixtures::nmr(NODE_W3, "os", at("10:00"));
    r.deleting = true;
    r.deletion = Some(at("10:20"));
    snap.apply(Object::NodeMaintenanceRequest(Arc::new(r)));
    let stuck = |now: &str| {
        attention(&snap, &History::new(), at(now))
            .into_iter()
            .filter(|i| i.kind == AttentionKind::RequestStuckDeleting)
            .count()
    };
    assert_eq!(stuck("10:34"), 0);
    assert_eq!(stuck("10:36"), 1);
}

/// The mid-update cluster with the Ceph cluster lock active and the
/// OpenStack one seen going inactive at `openstack_released`.
fn ceph_after_openstack(openstack_released: &str) -> (Snapshot, History) {
    let mut snap = fixtures::mid_update();
    let mut h = History::new();
    let cwl = |name: &str, c: Controller, s: LockState| {
        Object::ClusterWorkloadLock(Arc::new(fixtures::cluster_lock(name, c, s)))
    };
    h.apply(
        &mut snap,
        cwl(OPENSTACK_CWL, Controller::Openstack, LockState::Active),
        at("08:06"),
    );
    h.apply(
        &mut snap,
        cwl(CEPH_CWL, Controller::Ceph, LockState::Active),
        at("08:06"),
    );
    h.apply(
        &mut snap,
        cwl(OPENSTACK_CWL, Controller::Openstack, LockState::Inactive),
        at(openstack_released),
    );
    (snap, h)
}

#[test]
fn the_ceph_cluster_lock_is_aged_from_openstacks_release() {
    // OpenStack took 1h45 of the update; Ceph's own turn began at 09:50.
    let (snap, h) = ceph_after_openstack("09:50");
    let held = |now: &str| {
        attention(&snap, &h, at(now))
            .into_iter()
            .filter(|i| i.kind == AttentionKind::LockHeld && i.subject == CEPH_CWL)
            .collect::<Vec<_>>()
    };
    assert!(held("10:30").is_empty(), "{:#?}", held("10:30"));
    let late = held("11:25");
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].since, at("09:50"));
}

#[test]
fn no_cluster_lock_is_flagged_while_the_update_plan_waits_for_commence() {
    let (mut snap, h) = ceph_after_openstack("08:10");
    assert!(
        attention(&snap, &h, at("11:00"))
            .iter()
            .any(|i| i.kind == AttentionKind::LockHeld && i.subject == CEPH_CWL)
    );
    // OpenStack's step done, the `ceph` step not commenced.
    use crate::domain::fixtures::blockers::{WAITING, completed, update_plan};
    let plan = update_plan(
        [
            completed(at("08:05"), at("08:10")),
            WAITING,
            WAITING,
            WAITING,
        ],
        None,
    );
    snap.apply(Object::UpdatePlan(Arc::new(plan)));
    assert!(
        attention(&snap, &h, at("11:00"))
            .iter()
            .all(|i| !(i.kind == AttentionKind::LockHeld && i.subject == CEPH_CWL))
    );
}
