//! The `quick` scenario, with the operator acknowledging each manual
//! migration through the console, runs to the end.

use jiff::SignedDuration;
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::sim::scenario::UpdatePhase;

use super::harness::*;

#[tokio::test(start_paused = true)]
async fn acknowledging_manual_migrations_lets_quick_run_to_the_end() {
    let mut h = Harness::new(quick_world(), Options::default());
    h.tick_and_settle().await;
    let mut acknowledged: Vec<String> = Vec::new();
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
        h.select(&[&node]);
        h.press('a');
        h.press('y');
        assert_eq!(
            h.run_to_end(false).await,
            RunOutcome::Completed { dry_run: false }
        );
        h.close();
        assert_eq!(h.annotation(&node, MODE).as_deref(), Some("skip"));
        acknowledged.push(node);
    }
    assert_eq!(h.world.phase(), UpdatePhase::Done);
    // quick has one manual compute and one whose live migration fails; a
    // live migration may also fail at random and fall back to the operator.
    assert!(acknowledged.len() >= 2, "{acknowledged:?}");
    let audit = h.audit();
    assert_eq!(audit.len(), 2 * acknowledged.len());
    assert!(
        audit
            .iter()
            .all(|r| r.action == "acknowledge-migration" && !r.servers.is_empty())
    );
    assert_eq!(h.changes().len(), acknowledged.len());
}
