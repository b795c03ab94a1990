//! Settling: what `update` does after each batch of messages to bring the
//! model's derived part up to date, reading the whole model (the snapshot,
//! the clock, the dismissed reminders, the view on screen, the session's
//! cluster). The derived data itself, and how each part is computed, is
//! `super`'s.

use crate::app::derive::{PlanSummary, ReadinessSummary, VrouterSummary};
use crate::app::model::{Model, View};
use crate::domain::join::incremental::Reach;
use crate::domain::readiness;
use crate::domain::update_plan;
use crate::domain::vrouter::{daemonsets, restart_policy};

/// Brings `model.derived` up to date with the snapshot, the clock and the
/// dismissed reminders. Called by `update` after each batch.
pub fn settle(model: &mut Model) {
    let pending = std::mem::take(&mut model.pending);
    let generation = model.snapshot.generation();
    let d = &mut model.derived;
    let joined = d.generation != Some(generation);
    if joined {
        // Only the pending changes lie between the rows and the snapshot:
        // re-join what they reach; otherwise everything.
        let exact =
            d.generation.is_some() && pending.from == d.generation && pending.to == generation;
        let reaches: &[Reach] = if exact { &pending.reaches } else { &[] };
        d.join(&model.snapshot, &model.history, reaches);
        d.plan =
            update_plan::active_plan(&model.snapshot, Some(&model.session.cluster_name)).map(|p| {
                PlanSummary {
                    state: update_plan::state(p, update_plan::auto_pause_for(&model.snapshot, p)),
                    next_to_commence: update_plan::next_to_commence(p).map(|s| s.index),
                }
            });
    }
    if joined || d.at != Some(model.now) || d.dismissed != model.dismissed_reminders {
        d.time(
            &model.snapshot,
            &model.history,
            model.now,
            &model.dismissed_reminders,
            &model.expected,
        );
        crate::app::views::overview::follow(&mut model.views.overview, &d.attention);
        // The session report's record of what changed (attention raised and
        // cleared, phase and plan steps, workload impact).
        let (phase, items) = (d.phase.as_ref(), &d.attention);
        model
            .session_log
            .observe(phase, items, &model.snapshot, model.now);
    }
    if model.view == View::Vrouter && d.vrouter.as_ref().map(|v| v.generation) != Some(generation) {
        d.vrouter = Some(VrouterSummary {
            daemonsets: daemonsets(&model.snapshot),
            policy: restart_policy(&model.snapshot),
            generation,
        });
    }
    settle_readiness(model, generation);
    crate::app::tables::settle(model);
}

const READINESS_AGES_EVERY: jiff::SignedDuration = jiff::SignedDuration::from_secs(30);

/// The readiness checks, while a screen shows them, computed again when
/// the snapshot or what the console can see of each kind moved.
fn settle_readiness(model: &mut Model, generation: u64) {
    let d = &model.derived;
    let shown = model.view == View::Ready || (model.view == View::Overview && d.no_update_runs());
    if !shown {
        return;
    }
    let seen = crate::app::freshness::seen_kinds(model);
    // Made again when what they read moved, and every 30 s for the checks
    // that judge a report's age.
    if d.readiness.as_ref().is_some_and(|r| {
        r.generation == generation
            && r.seen == seen
            && model.now.duration_since(r.at) < READINESS_AGES_EVERY
    }) {
        return;
    }
    let checks = readiness::checks(&readiness::Inputs {
        snapshot: &model.snapshot,
        seen: &seen,
        cluster: &model.session.cluster_name,
        other_mosk_cluster: d.mosk_context.is_mismatch(),
        now: model.now_on(crate::domain::objects::ClusterId::Mosk),
    });
    model.derived.readiness = Some(ReadinessSummary {
        checks,
        generation,
        seen,
        at: model.now,
    });
}
