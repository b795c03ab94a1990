//! The update guide's reminders as attention items (the
//! texts and their seeds are in `domain::reminders`). The console drops the
//! ones the operator dismissed.

use jiff::Timestamp;

use super::{AttentionItem, AttentionKind};
use crate::domain::history::History;
use crate::domain::objects::{Kind, ObjectKey, Snapshot};
use crate::domain::phase::Phase;
use crate::domain::progress::human_duration;
use crate::domain::reminders::{self, Reminder};

/// The reminder items due now (`phase`: the snapshot's, when known).
pub(super) fn reminders(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    phase: Option<Phase>,
    out: &mut Vec<AttentionItem>,
) {
    for (r, since) in reminders::due_in_phase(snap, history, now, phase) {
        let why = match r {
            Reminder::HalfUpdated => format!(
                "the update started {} ago; {}",
                human_duration(now.duration_since(since) + reminders::HALF_UPDATED_AFTER),
                r.text()
            ),
            _ => r.text().to_string(),
        };
        out.push(AttentionItem {
            kind: AttentionKind::Reminder(r),
            subject: r.name().to_string(),
            node: None,
            why,
            since,
            action: None,
            // Reminders are about no object; the key names the reminder.
            key: ObjectKey {
                kind: Kind::ClusterMaintenanceRequest,
                namespace: "reminder".into(),
                name: r.name().into(),
            },
            at_least: false,
            since_inferred: None,
            symptoms: Vec::new(),
            unraised_since: None,
        });
    }
}

#[cfg(test)]
#[path = "reminders_tests.rs"]
mod tests;
