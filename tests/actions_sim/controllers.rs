//! The `controllers` scenario (the OpenStack controller's state machines
//! ported from its source) watched by the console minute by minute: what
//! the attention queue claims and offers for each node against what the
//! simulated controller is really doing.

use jiff::SignedDuration;
use mosk_console::app::actions::plan::acknowledge_offer;
use mosk_console::domain::action::ActionId;
use mosk_console::domain::attention::{AttentionItem, AttentionKind};
use mosk_console::sim::scenario::load_scenario;
use mosk_console::sim::scenario::spec::Role;
use mosk_console::sim::world::SimWorld;

use super::harness::*;

fn controllers_world() -> SimWorld {
    SimWorld::new(load_scenario("controllers").unwrap(), 7)
}

/// The node of compute `i` (0-based among computes).
fn compute(h: &Harness, i: u32) -> String {
    h.world
        .machines()
        .into_iter()
        .find(|m| m.role == Role::Compute && m.role_index == i)
        .map(|m| m.node)
        .expect("the compute exists")
}

fn items_for<'a>(h: &'a Harness, node: &str) -> Vec<&'a AttentionItem> {
    h.model
        .derived
        .attention
        .iter()
        .filter(|i| i.node.as_deref() == Some(node))
        .collect()
}

fn lock_message(h: &Harness, node: &str) -> String {
    h.world
        .mosk()
        .list("nodeworkloadlocks", None)
        .into_iter()
        .find(|l| {
            str_at(l, "/spec/nodeName") == node && str_at(l, "/spec/controllerName") == "openstack"
        })
        .map(|l| str_at(&l, "/status/errorMessage").to_string())
        .unwrap_or_default()
}

#[tokio::test(start_paused = true)]
async fn the_queue_tells_what_the_controller_really_does() {
    let mut h = Harness::new(controllers_world(), Options::default());
    h.tick_and_settle().await;
    let slow = compute(&h, 0);
    let notify = compute(&h, 1);
    let stuck = compute(&h, 2);
    let refused = compute(&h, 4);
    let livee = compute(&h, 5);
    let three = compute(&h, 6);

    let mut slow_listed_while_migrating = 0;
    let mut seen_notify = false;
    let mut seen_stuck = false;
    let mut seen_failing = false;
    for _ in 0..(3 * 60 * 12) {
        h.world.step(SignedDuration::from_secs(5));
        h.tick_and_settle().await;

        // Compute 0: its migrations succeed slowly. The completion check
        // lists the server still MIGRATING; the console must neither call
        // it failing nor offer to acknowledge (LCM would reboot the node
        // under the running migration).
        let msg = lock_message(&h, &slow);
        if msg.contains("Some servers are still present on the host") {
            slow_listed_while_migrating += 1;
            for i in items_for(&h, &slow) {
                assert_ne!(i.kind, AttentionKind::MigrationFailing, "{i:#?}");
                assert_ne!(i.kind, AttentionKind::ServersLeft, "{i:#?}");
                assert_ne!(i.action, Some(ActionId::AcknowledgeMigration), "{i:#?}");
            }
            let e = acknowledge_offer(&h.model.snapshot, &h.model.history, &slow).unwrap_err();
            assert!(e.contains("may be running"), "{e}");
        }

        // Compute 1: a server tagged notify on a live node: its owners act;
        // skip frees no tagged server, so nothing to acknowledge.
        if let Some(i) = items_for(&h, &notify)
            .into_iter()
            .find(|i| i.kind == AttentionKind::NotifyOwners)
        {
            seen_notify = true;
            assert_eq!(i.action, None, "{i:#?}");
        }

        // Compute 2: its request stays in deletion while nova-compute is
        // down; the console names the request and the controller's reason.
        if let Some(i) = items_for(&h, &stuck)
            .into_iter()
            .find(|i| i.kind == AttentionKind::RequestStuckDeleting)
        {
            seen_stuck = true;
            assert!(
                i.why.contains(&format!("NodeMaintenanceRequest {stuck}")),
                "{}",
                i.why
            );
            assert!(
                i.why
                    .contains("Timeout waiting for compute services up on the host."),
                "{}",
                i.why
            );
        }

        // Compute 4: Nova refuses the live migration at every run: failing,
        // with the way out (manual first), never acknowledge.
        if let Some(i) = items_for(&h, &refused)
            .into_iter()
            .find(|i| i.kind == AttentionKind::MigrationFailing)
        {
            seen_failing = true;
            assert_eq!(i.action, Some(ActionId::SetMigrationMode), "{i:#?}");
            assert!(!i.why.contains("gave up"), "{}", i.why);
        }

        if seen_failing && seen_stuck && seen_notify && slow_listed_while_migrating > 0 {
            break;
        }
    }
    assert!(
        slow_listed_while_migrating > 0,
        "the slow migration was never listed"
    );
    assert!(seen_notify, "no notify-owners item for {notify}");
    assert!(seen_stuck, "no stuck-deletion item for {stuck}");
    assert!(seen_failing, "no failing-migration item for {refused}");

    // Computes 5 and 6: settings the controller cannot read.
    for node in [&livee, &three] {
        assert!(
            items_for(&h, node)
                .iter()
                .any(|i| i.kind == AttentionKind::MigrationSettingsInvalid),
            "{node}: {:#?}",
            items_for(&h, node)
        );
    }
}
