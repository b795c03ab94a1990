//! What else blocks, against the simulator's scenarios (objects converted
//! the way the watchers convert them): the `plan` scenario's disabled
//! compute (Machine `disable` and a NodeDisableNotification) and the
//! `stuck-drain` scenario's master whose Kubernetes drain fails and whose
//! LCM operation is then reported stuck.

mod sim_snapshot;

use jiff::SignedDuration;
use mosk_console::domain::attention::{
    AttentionItem, AttentionKind, DISABLED_MEANS, attention, blockers_for_machine,
};
use mosk_console::domain::history::History;
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::world::SimWorld;

use sim_snapshot::snapshot;

fn of(items: &[AttentionItem], kind: AttentionKind) -> Vec<AttentionItem> {
    items.iter().filter(|i| i.kind == kind).cloned().collect()
}

#[test]
fn the_disabled_compute_of_the_plan_scenario_is_one_item_and_in_its_detail() {
    let world = SimWorld::new(load_scenario("plan").unwrap(), 7);
    let snap = snapshot(&world);
    let items = attention(&snap, &History::new(), world.now());
    let disabled = of(&items, AttentionKind::MachineDisabled);
    assert_eq!(disabled.len(), 1, "{items:#?}");
    let d = &disabled[0];
    assert!(d.why.starts_with(DISABLED_MEANS), "{}", d.why);
    assert!(
        d.why
            .contains("Machine spec.providerSpec.value.disable is true; NodeDisableNotification"),
        "both the Machine and the notification are named: {}",
        d.why
    );
    let machine = snap
        .machines()
        .find(|m| m.name == d.subject)
        .expect("the item names an LCMMachine");
    let detail = blockers_for_machine(&snap, &machine.name, machine.hostname.as_deref());
    assert_eq!(
        detail.iter().map(|i| i.kind).collect::<Vec<_>>(),
        vec![AttentionKind::MachineDisabled]
    );
}

#[test]
fn the_stuck_drain_master_shows_its_drain_error_then_its_stuck_operation() {
    let world = SimWorld::new(load_scenario("stuck-drain").unwrap(), 7);
    let mut drain: Option<AttentionItem> = None;
    let mut stuck: Option<AttentionItem> = None;
    for _ in 0..2000 {
        let snap = snapshot(&world);
        let items = attention(&snap, &History::new(), world.now());
        if drain.is_none() {
            drain = of(&items, AttentionKind::DrainError).pop();
        }
        // LCM's "stuck" flag is a symptom of the failed drain: folded
        // under the drain error's item when both are there.
        if stuck.is_none() {
            stuck = of(&items, AttentionKind::OperationStuck).pop().or_else(|| {
                items
                    .iter()
                    .find(|i| {
                        i.kind == AttentionKind::DrainError
                            && i.symptoms
                                .iter()
                                .any(|s| s.kind == AttentionKind::OperationStuck)
                    })
                    .map(|i| {
                        let s = i
                            .symptoms
                            .iter()
                            .find(|s| s.kind == AttentionKind::OperationStuck)
                            .unwrap();
                        AttentionItem {
                            kind: s.kind,
                            why: s.why.clone(),
                            since: s.since,
                            ..i.clone()
                        }
                    })
            });
        }
        if drain.is_some() && stuck.is_some() {
            break;
        }
        world.step(SignedDuration::from_secs(30));
    }
    let drain = drain.expect("a drain error appeared");
    let stuck = stuck.expect("a stuck operation appeared");
    assert_eq!(drain.subject, stuck.subject, "the same master");
    assert!(
        drain.why.starts_with(
            "the Kubernetes drain of its node failed (LCMMachine status.kubernetesCordonDrainError): \u{201c}"
        ),
        "{}",
        drain.why
    );
    assert!(
        drain.why.contains("global timeout reached"),
        "{}",
        drain.why
    );
    assert!(
        stuck.why.starts_with(
            "LCM reports an operation stuck on this machine (LCMMachine status.lcmOperationStuck)"
        ),
        "{}",
        stuck.why
    );
}
