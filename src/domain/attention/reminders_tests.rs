//! The update guide's reminders in the queue: when each is due, and dismissal.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::domain::attention::{AttentionKind, queue};
use crate::domain::fixtures::blockers::{self, WAITING, in_progress};
use crate::domain::fixtures::{self, Scenario, at};
use crate::domain::history::History;
use crate::domain::objects::{Object, Snapshot};
use crate::domain::reminders::Reminder;

fn reminders(snap: &Snapshot, history: &History, now: jiff::Timestamp) -> Vec<(Reminder, String)> {
    queue(snap, history, now, &BTreeSet::new(), &Default::default())
        .into_iter()
        .filter_map(|i| match i.kind {
            AttentionKind::Reminder(r) => {
                assert_eq!(i.action, None, "a reminder offers no write");
                Some((r, i.why))
            }
            _ => None,
        })
        .collect()
}

fn kinds(v: &[(Reminder, String)]) -> Vec<Reminder> {
    v.iter().map(|(r, _)| *r).collect()
}

#[test]
fn an_idle_cluster_gets_no_reminder() {
    let now = fixtures::mid_update_now();
    assert!(reminders(&fixtures::idle(), &History::new(), now).is_empty());
}

#[test]
fn a_plan_waiting_for_its_first_step_reminds_to_silence_alerts() {
    let mut snap = fixtures::idle();
    snap.apply(Object::UpdatePlan(Arc::new(blockers::update_plan(
        [WAITING; 4],
        None,
    ))));
    let got = reminders(&snap, &History::new(), fixtures::mid_update_now());
    assert_eq!(
        got,
        vec![(
            Reminder::SilenceAlerts,
            "the update raises many expected StackLight alerts: silence them for the update"
                .to_string()
        )]
    );
}

#[test]
fn a_running_update_reminds_of_the_write_freeze_and_early_on_of_alerts() {
    // Phase 4 (workers): the start is past, silencing is no longer news.
    let snap = fixtures::mid_update();
    let got = reminders(&snap, &History::new(), fixtures::mid_update_now());
    assert_eq!(kinds(&got), vec![Reminder::WriteFreeze]);
    assert_eq!(
        got[0].1,
        "while the update runs, cloud users should make no writes to cloud resources (heavy changes may corrupt workloads)"
    );
    // Step 1 commenced, nothing else yet: both.
    let mut snap = fixtures::idle();
    snap.apply(Object::UpdatePlan(Arc::new(blockers::update_plan(
        [in_progress(at("08:00")), WAITING, WAITING, WAITING],
        None,
    ))));
    let got = reminders(&snap, &History::new(), at("08:10"));
    assert_eq!(
        kinds(&got),
        vec![Reminder::WriteFreeze, Reminder::SilenceAlerts]
    );
}

#[test]
fn more_than_a_day_half_updated_warns_of_workload_corruption() {
    let snap = fixtures::mid_update(); // request created 08:05
    let now: jiff::Timestamp = "2025-03-05T10:30:00Z".parse().unwrap();
    let got = reminders(&snap, &History::new(), now);
    let half: Vec<_> = got
        .iter()
        .filter(|(r, _)| *r == Reminder::HalfUpdated)
        .collect();
    assert_eq!(half.len(), 1, "{got:?}");
    assert_eq!(
        half[0].1,
        "the update started 1d02h ago; a MOSK cluster should not stay half-updated for more than a day: the update guide warns of cloud workload corruption; finish the update"
    );
    // 23 hours in: not yet.
    let now: jiff::Timestamp = "2025-03-05T07:05:00Z".parse().unwrap();
    let got = reminders(&snap, &History::new(), now);
    assert!(!kinds(&got).contains(&Reminder::HalfUpdated), "{got:?}");
}

#[test]
fn after_the_update_expire_the_silences() {
    let mut sc = Scenario::new();
    let cmr = Object::ClusterMaintenanceRequest(Arc::new(fixtures::cmr(at("08:05"))));
    let key = cmr.key();
    sc.apply(cmr, at("08:05"));
    sc.history.remove(&mut sc.snap, &key, at("11:00"));
    let got = reminders(&sc.snap, &sc.history, at("11:05"));
    assert_eq!(
        got,
        vec![(
            Reminder::ExpireSilences,
            "the update is over: expire the StackLight alert silences set for it".to_string()
        )]
    );
}

#[test]
fn a_dismissed_reminder_stays_out_of_the_queue() {
    let snap = fixtures::mid_update();
    let now = fixtures::mid_update_now();
    let dismissed: BTreeSet<Reminder> = [Reminder::WriteFreeze].into();
    let items = queue(&snap, &History::new(), now, &dismissed, &Default::default());
    assert!(
        items
            .iter()
            .all(|i| !matches!(i.kind, AttentionKind::Reminder(_))),
        "{items:#?}"
    );
}
