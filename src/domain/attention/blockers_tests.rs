//! What else blocks: NDR, NDN, disabled machines, stuck operations and
//! drain errors, with their exact texts.

use super::*;
use crate::domain::attention::{AttentionItem, AttentionKind, attention};
use crate::domain::fixtures::blockers::{node_notice, provider_machine};
use crate::domain::fixtures::{self, at, names::*, rockoon_stamp};
use crate::domain::objects::{
    Controller, DrainError, LockState, Machine, MachineState, MachineType, Object,
};
use std::sync::Arc;

const DRAIN_ERROR: &str = "Error: error when evicting pods/\"patroni-13-2\" -n \"stacklight\": global timeout reached: 10m0s";

fn of(items: &[AttentionItem], kind: AttentionKind) -> Vec<&AttentionItem> {
    items.iter().filter(|i| i.kind == kind).collect()
}

fn worker(name: &str, node: &str, index: i64) -> Machine {
    fixtures::machine(
        name,
        MachineType::Worker,
        MachineState::Deploy,
        Some(node),
        Some(index),
    )
}

#[test]
fn a_node_deletion_request_names_the_machine_and_quotes_the_removal_text() {
    let mut snap = fixtures::mid_update();
    snap.apply(Object::NodeDeletionRequest(Arc::new(node_notice(
        "ndr-w4",
        NODE_W4,
        at("09:40"),
    ))));
    let removal = format!(
        "{} Some servers {{'{SERVER_A}': 'ACTIVE'}} are still present on host {NODE_W4}. Blocking node removal unless they removed or migrated.",
        rockoon_stamp("09:41:00")
    );
    snap.apply(Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
        Controller::Openstack,
        NODE_W4,
        LockState::Active,
        Some(&removal),
    ))));
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    let ndr = of(&items, AttentionKind::NodeRemoval);
    assert_eq!(ndr.len(), 1, "{items:#?}");
    assert_eq!(ndr[0].subject, WORKER_4);
    assert_eq!(ndr[0].since, at("09:40"));
    assert_eq!(
        ndr[0].why,
        format!(
            "NodeDeletionRequest ndr-w4: node {NODE_W4} is being removed; the controllers release it once its workloads are gone; its lock says \u{201c}Some servers {{'{SERVER_A}': 'ACTIVE'}} are still present on host {NODE_W4}. Blocking node removal unless they removed or migrated.\u{201d}"
        )
    );
    // The removal text is not read as a migration that gave up.
    assert!(
        items
            .iter()
            .all(|i| !(i.subject == WORKER_4 && i.kind == AttentionKind::MigrationFailing)),
        "{items:#?}"
    );
}

#[test]
fn a_disabled_machine_is_one_item_with_its_evidence() {
    let mut snap = fixtures::mid_update();
    snap.apply(Object::ProviderMachine(Arc::new(provider_machine(
        WORKER_3, false, true,
    ))));
    snap.apply(Object::NodeDisableNotification(Arc::new(node_notice(
        "ndn-w3",
        NODE_W3,
        at("09:20"),
    ))));
    snap.apply(Object::ProviderMachine(Arc::new(provider_machine(
        WORKER_1, false, false,
    ))));
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    let disabled = of(&items, AttentionKind::MachineDisabled);
    assert_eq!(disabled.len(), 1, "{items:#?}");
    assert_eq!(disabled[0].subject, WORKER_3);
    assert_eq!(disabled[0].node.as_deref(), Some(NODE_W3));
    assert_eq!(
        disabled[0].why,
        "ignored by the update; HA of some components may be degraded until it is replaced (Machine spec.providerSpec.value.disable is true; NodeDisableNotification ndn-w3 for its node)"
    );
    assert_eq!(disabled[0].since, at("09:20"));
}

#[test]
fn a_disable_notification_alone_is_an_item_too() {
    let mut snap = fixtures::mid_update();
    snap.apply(Object::NodeDisableNotification(Arc::new(node_notice(
        "ndn-w1",
        NODE_W1,
        at("09:20"),
    ))));
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    let disabled = of(&items, AttentionKind::MachineDisabled);
    assert_eq!(disabled.len(), 1);
    assert_eq!(disabled[0].subject, WORKER_1);
    assert!(
        disabled[0]
            .why
            .ends_with("(NodeDisableNotification ndn-w1 for its node)"),
        "{}",
        disabled[0].why
    );
}

#[test]
fn a_stuck_operation_and_a_drain_error_name_the_machine() {
    let mut snap = fixtures::mid_update();
    let mut m = worker(WORKER_4, NODE_W4, 6);
    m.operation_stuck = true;
    m.drain_error = Some(DrainError::new(DRAIN_ERROR));
    snap.apply(Object::Machine(Arc::new(m)));
    let items = attention(&snap, &History::new(), fixtures::mid_update_now());
    // LCM's "stuck" flag is a symptom of the failed drain: folded under it.
    assert!(of(&items, AttentionKind::OperationStuck).is_empty());
    let drain = of(&items, AttentionKind::DrainError);
    assert_eq!(drain.len(), 1);
    assert_eq!(drain[0].subject, WORKER_4);
    let stuck = &drain[0].symptoms;
    assert_eq!(stuck.len(), 1);
    assert_eq!(stuck[0].kind, AttentionKind::OperationStuck);
    assert_eq!(
        stuck[0].why,
        "LCM reports an operation stuck on this machine (LCMMachine status.lcmOperationStuck) in state Deploy: read its cluster states and the lcm-controller log"
    );
    assert_eq!(
        drain[0].why,
        format!(
            "the Kubernetes drain of its node failed (LCMMachine status.kubernetesCordonDrainError): \u{201c}{DRAIN_ERROR}\u{201d}"
        )
    );
    // The machine's detail gets the same two, and nothing of other machines.
    let detail = for_machine(&snap, WORKER_4, Some(NODE_W4));
    assert_eq!(
        detail.iter().map(|i| i.kind).collect::<Vec<_>>(),
        vec![AttentionKind::OperationStuck, AttentionKind::DrainError]
    );
    assert!(for_machine(&snap, WORKER_1, Some(NODE_W1)).is_empty());
}

#[test]
fn a_quiet_cluster_has_no_blocker() {
    let mut items = Vec::new();
    blockers(
        &fixtures::mid_update(),
        &History::new(),
        fixtures::mid_update_now(),
        &mut items,
    );
    assert!(items.is_empty(), "{items:#?}");
}
