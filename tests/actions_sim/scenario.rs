//! The `quick` scenario, with the operator acknowledging each manual
//! migration through the console (setting manual first where a live
//! migration keeps failing), runs to the end.

use jiff::SignedDuration;
use mosk_console::app::actions::plan::acknowledge_offer;
use mosk_console::domain::action::ActionId;
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::domain::attention::AttentionKind;
use mosk_console::sim::scenario::UpdatePhase;

use super::harness::*;

#[tokio::test(start_paused = true)]
async fn acknowledging_manual_migrations_lets_quick_run_to_the_end() {
    // The operator's flow as the console offers it: acknowledge where the
    // console offers it; where a live migration keeps failing, set the mode
    // to manual first (the console offers that instead); where a migration
    // runs, wait. Never acknowledge a node the console does not offer.
    let mut h = Harness::new(quick_world(), Options::default());
    h.tick_and_settle().await;
    let mut acknowledged: Vec<String> = Vec::new();
    let mut set_manual: Vec<String> = Vec::new();
    let mut waited = 0;
    loop {
        let mut waiting: Option<String> = None;
        let done = h
            .world
            .step_until(SignedDuration::from_secs(3 * 3600), |w| {
                if w.phase() == UpdatePhase::Done {
                    return true;
                }
                waiting = waiting_node(w, &acknowledged);
                waiting.is_some()
            });
        assert!(done, "stalled in phase {:?}", h.world.phase());
        let Some(node) = waiting else { break };
        h.tick_and_settle().await;
        if acknowledge_offer(&h.model.snapshot, &h.model.history, &node).is_ok() {
            assert_eq!(
                h.acknowledge(&node).await,
                RunOutcome::Completed { dry_run: false }
            );
            assert_eq!(h.annotation(&node, MODE).as_deref(), Some("skip"));
            acknowledged.push(node);
            continue;
        }
        let failing = h.model.derived.attention.iter().any(|i| {
            i.kind == AttentionKind::MigrationFailing
                && i.action == Some(ActionId::SetMigrationMode)
                && i.node.as_deref() == Some(node.as_str())
        });
        // Servers the controller does not start: the operator looks at them
        // (`openstack server show`: here Nova's own state) and, when none is
        // migrating, sets the mode to manual to take them over.
        let left = h.model.derived.attention.iter().any(|i| {
            i.kind == AttentionKind::ServersLeft && i.node.as_deref() == Some(node.as_str())
        }) && h
            .world
            .nova_servers()
            .iter()
            .filter(|s| s.host.as_deref() == Some(node.as_str()))
            .all(|s| s.status != "MIGRATING");
        let failing = failing || left;
        if failing && !set_manual.contains(&node) {
            assert_eq!(
                h.set_manual(&node).await,
                RunOutcome::Completed { dry_run: false }
            );
            assert_eq!(h.annotation(&node, MODE).as_deref(), Some("manual"));
            set_manual.push(node.clone());
        }
        // A migration runs, or the controller has not checked again yet:
        // the world goes on a minute.
        waited += 1;
        assert!(
            waited < 600,
            "waited too long on {node} ({acknowledged:?} {set_manual:?}): {:#?} {:?}",
            h.model.derived.attention,
            h.model
                .snapshot
                .node_locks()
                .filter(|l| l.node_name.as_deref() == Some(node.as_str()))
                .map(|l| (
                    l.state.clone(),
                    l.error_message.clone(),
                    h.model
                        .history
                        .node_servers(&mosk_console::domain::objects::ObjectKey::new(
                            mosk_console::domain::objects::Kind::NodeWorkloadLock,
                            "",
                            &l.name
                        ))
                ))
                .collect::<Vec<_>>()
        );
        h.world.step_until(SignedDuration::from_secs(60), |_| false);
    }
    assert_eq!(h.world.phase(), UpdatePhase::Done);
    // quick has one manual compute and one whose live migration fails; a
    // live migration may also fail at random and fall back to the operator.
    assert!(acknowledged.len() >= 2, "{acknowledged:?}");
    assert!(
        set_manual.iter().all(|n| acknowledged.contains(n)),
        "{set_manual:?} {acknowledged:?}"
    );
    let audit = h.audit();
    assert_eq!(audit.len(), 2 * (acknowledged.len() + set_manual.len()));
    assert!(audit.iter().all(|r| {
        (r.action == "acknowledge-migration" && !r.servers.is_empty())
            || r.action == "set-migration-mode"
    }));
    assert_eq!(h.changes().len(), acknowledged.len() + set_manual.len());
}
