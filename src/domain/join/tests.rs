//! Tests of `join`.
use super::*;
use crate::domain::fixtures::{self, names::*};
use crate::domain::objects::Object;
use std::sync::Arc;

fn row<'a>(rows: &'a [MachineRow], name: &str) -> &'a MachineRow {
    rows.iter().find(|r| r.name() == name).expect("row")
}

#[test]
fn order_is_masters_then_workers_by_index() {
    let mut snap = fixtures::mid_update();
    // An unindexed worker sorts after indexed ones, a master before all workers.
    snap.apply(Object::Machine(Arc::new(fixtures::machine(
        "a-worker",
        MachineType::Worker,
        MachineState::Ready,
        None,
        None,
    ))));
    let mut m = fixtures::machine(
        MASTER_2,
        MachineType::Control,
        MachineState::Ready,
        Some(NODE_M2),
        None,
    );
    m.index = Some(-1);
    snap.apply(Object::Machine(Arc::new(m)));
    let names: Vec<String> = machine_rows(&snap)
        .iter()
        .map(|r| r.name().to_string())
        .collect();
    assert_eq!(
        names,
        vec![
            MASTER_2, MASTER_0, MASTER_1, WORKER_1, WORKER_2, WORKER_3, WORKER_4, "a-worker"
        ]
    );
}

#[test]
fn worker_under_maintenance_joins_everything() {
    let rows = machine_rows(&fixtures::mid_update());
    let r = row(&rows, WORKER_2);
    assert_eq!(r.state(), &MachineState::Deploy);
    assert_eq!(r.node_name.as_deref(), Some(NODE_W2));
    assert!(r.has_node());
    assert_eq!(r.migration_mode, MigrationMode::Live);
    assert!(r.migration_mode_default);
    assert_eq!(r.migration_attempts_effective(), Some(3));
    let nmr = r.maintenance.as_ref().expect("nmr");
    assert_eq!(nmr.scope.as_deref(), Some("os"));
    assert_eq!(
        r.maintenance_age(fixtures::mid_update_now()),
        Some(SignedDuration::from_mins(39))
    );
    let controllers: Vec<&str> = r.locks.iter().map(|l| l.lock.controller.as_str()).collect();
    assert_eq!(controllers, vec!["openstack", "tf"]);
    let os = r.openstack_lock().unwrap();
    assert_eq!(os.lock.inner_state.as_deref(), Some("active"));
    let servers = r.servers_present().expect("servers present");
    assert_eq!(servers.servers, vec![SERVER_A, SERVER_B]);
    let types: Vec<&str> = r
        .cluster_states
        .iter()
        .map(|s| s.state_type.as_str())
        .collect();
    assert_eq!(types, vec!["cordon-drain", "swarm-drain"]);
    assert_eq!(
        r.cluster_state(&ClusterStateType::CordonDrain)
            .unwrap()
            .attempt,
        Some(4)
    );
    assert_eq!(r.vrouter.len(), 1);
    assert_eq!(r.vrouter_outdated(), Some(true));
    assert_eq!(
        r.waiting_on.as_deref(),
        Some("lock openstack active: servers present")
    );
}

#[test]
fn manual_mode_and_attempts_come_from_the_node() {
    let rows = machine_rows(&fixtures::mid_update());
    let r3 = row(&rows, WORKER_3);
    assert_eq!(r3.migration_mode, MigrationMode::Manual);
    assert!(!r3.migration_mode_default);
    let r1 = row(&rows, WORKER_1);
    assert_eq!(r1.migration_mode, MigrationMode::Live);
    assert!(!r1.migration_mode_default);
    assert_eq!(r1.migration_attempts_effective(), Some(5));
    assert_eq!(r1.vrouter_outdated(), Some(false));
    assert_eq!(r1.waiting_on, None);
    assert_eq!(
        row(&rows, WORKER_4).waiting_on.as_deref(),
        Some("no maintenance request yet")
    );
    assert_eq!(
        row(&rows, WORKER_3).waiting_on.as_deref(),
        Some("lock openstack active: servers present (+1 more)")
    );
    assert!(r1.maintenance.is_none());
}

#[test]
fn helm_state_without_arg_is_not_joined() {
    let rows = machine_rows(&fixtures::mid_update());
    assert!(rows.iter().all(|r| {
        r.cluster_states
            .iter()
            .all(|s| s.state_type != ClusterStateType::HelmDeployed)
    }));
}

#[test]
fn waiting_on_cluster_state_when_locks_released() {
    let mut snap = fixtures::mid_update();
    for l in [
        fixtures::node_lock(Controller::Openstack, NODE_W2, LockState::Inactive, None),
        fixtures::node_lock(
            Controller::Other("tf".into()),
            NODE_W2,
            LockState::Inactive,
            None,
        ),
    ] {
        snap.apply(Object::NodeWorkloadLock(Arc::new(l)));
    }
    let r = machine_row(
        &snap,
        snap.shared_machines().find(|m| m.name == WORKER_2).unwrap(),
    );
    assert_eq!(r.waiting_on.as_deref(), Some("cordon-drain attempt 4"));
}

#[test]
fn a_failed_drain_is_said_failed_until_the_drain_is_done() {
    let mut snap = fixtures::mid_update();
    for l in [
        fixtures::node_lock(Controller::Openstack, NODE_W2, LockState::Inactive, None),
        fixtures::node_lock(
            Controller::Other("tf".into()),
            NODE_W2,
            LockState::Inactive,
            None,
        ),
    ] {
        snap.apply(Object::NodeWorkloadLock(Arc::new(l)));
    }
    let mut m = (*snap.shared_machines().find(|m| m.name == WORKER_2).unwrap()).clone();
    Arc::make_mut(&mut m).drain_error = Some(crate::domain::objects::DrainError::new(
        r#"Error: error when evicting pods/"patroni-13-2" -n "stacklight": global timeout reached: 10m0s"#,
    ));
    snap.apply(Object::Machine(Arc::clone(&m)));
    let r = machine_row(&snap, &m);
    // Not "cordon-drain attempt 4": the drain itself failed.
    assert_eq!(
        r.waiting_on.as_deref(),
        Some("drain failed: evicting stacklight/patroni-13-2: global timeout reached: 10m0s")
    );
    // Once the cordon-drain state is reached, an error left on the machine
    // is not a failure any more.
    snap.apply(Object::ClusterState(Arc::new(fixtures::cluster_state(
        ClusterStateType::CordonDrain,
        WORKER_2,
        "true",
        Some("true"),
        4,
        None,
    ))));
    let r = machine_row(&snap, &m);
    assert!(r.drain_failure().is_none());
    assert_ne!(
        r.waiting_on
            .as_deref()
            .map(|w| w.starts_with("drain failed")),
        Some(true)
    );
}

#[test]
fn failed_lock_wins() {
    let mut snap = fixtures::mid_update();
    snap.apply(Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
        Controller::Ceph,
        NODE_W2,
        LockState::Failed,
        Some("OSDs not ok"),
    ))));
    let r = machine_row(
        &snap,
        snap.shared_machines().find(|m| m.name == WORKER_2).unwrap(),
    );
    assert_eq!(
        r.waiting_on.as_deref(),
        Some("lock ceph failed: OSDs not ok")
    );
}

#[test]
fn machine_without_node_still_listed_and_flagged() {
    let mut snap = fixtures::mid_update();
    snap.apply(Object::Machine(Arc::new(fixtures::machine(
        "child-cl-compute-9",
        MachineType::Worker,
        MachineState::Pending,
        None,
        Some(9),
    ))));
    snap.apply(Object::Machine(Arc::new(fixtures::machine(
        "child-cl-compute-8",
        MachineType::Worker,
        MachineState::Ready,
        Some("kaas-node-gone"),
        Some(8),
    ))));
    snap.apply(Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(
        "kaas-node-gone",
        "drain",
        fixtures::at("10:00"),
    ))));
    let rows = machine_rows(&snap);
    assert_eq!(rows.len(), 9);
    let gone = row(&rows, "child-cl-compute-8");
    assert_eq!(gone.node, NodeLink::NotFound);
    // Still joined by name where other objects name the node.
    assert!(gone.maintenance.is_some());
    let none = row(&rows, "child-cl-compute-9");
    assert_eq!(none.node, NodeLink::NoHostname);
    assert!(none.waiting_on.as_deref().unwrap().contains("no Hostname"));
    let gone_snap = {
        let mut s = snap.clone();
        s.remove(
            &Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(
                "kaas-node-gone",
                "drain",
                fixtures::at("10:00"),
            )))
            .key(),
        );
        s
    };
    let rows = machine_rows(&gone_snap);
    assert_eq!(
        row(&rows, "child-cl-compute-8").waiting_on.as_deref(),
        Some("node kaas-node-gone not found")
    );
}

#[test]
fn fqdn_node_names_match() {
    let mut snap = fixtures::mid_update();
    let mut r = fixtures::nmr(NODE_W4, "drain", fixtures::at("10:20"));
    r.name = "other-name".into();
    r.node_name = format!("{NODE_W4}.cluster.local");
    snap.apply(Object::NodeMaintenanceRequest(Arc::new(r)));
    let rows = machine_rows(&snap);
    assert_eq!(
        row(&rows, WORKER_4)
            .maintenance
            .as_ref()
            .map(|r| r.name.as_str()),
        Some("other-name")
    );
    assert!(!same_node("kaas-node-1", "kaas-node-10"));
}

#[test]
fn terminating_request_is_reported() {
    let mut snap = fixtures::mid_update();
    let mut r = fixtures::nmr(NODE_W1, "os", fixtures::at("09:25"));
    r.deleting = true;
    snap.apply(Object::NodeMaintenanceRequest(Arc::new(r)));
    let rows = machine_rows(&snap);
    assert_eq!(
        row(&rows, WORKER_1).waiting_on.as_deref(),
        Some("maintenance request terminating")
    );
}

#[test]
fn rows_carry_their_update_group_and_disabled_flag() {
    use crate::domain::fixtures::update_groups as ug;
    let mut snap = ug::grouped();
    let mut p = ug::provider(WORKER_4, None);
    p.disabled = true;
    snap.apply(Object::ProviderMachine(Arc::new(p)));
    let rows = machine_rows(&snap);
    let label = |name: &str| row(&rows, name).update_group.as_ref().map(|g| g.label());
    assert_eq!(label(MASTER_1).as_deref(), Some("child-cl-control #1 x1"));
    assert_eq!(label(WORKER_2).as_deref(), Some("child-cl-rack-1 #2 x3"));
    assert_eq!(label(WORKER_4).as_deref(), Some("child-cl-default #1 x1"));
    assert!(row(&rows, WORKER_4).disabled);
    assert_eq!(
        row(&rows, WORKER_4).waiting_on.as_deref(),
        Some(DISABLED_WAITING)
    );
    assert!(!row(&rows, WORKER_3).disabled);
    // Without provider Machines or UpdateGroups nothing is known.
    let rows = machine_rows(&fixtures::mid_update());
    assert!(rows.iter().all(|r| r.update_group.is_none() && !r.disabled));
}
