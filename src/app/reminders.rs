//! Dismissing the update guide's reminders (`x`): the one the Overview
//! names (`crate::app::views::overview`), or the migration-mode dialog's line.
//! A dismissal lasts for the session and writes nothing to a cluster.

use crate::app::actions::dialog::{Dialog, PickerFocus};
use crate::app::model::{Model, NoticeLevel};
use crate::domain::reminders::{self, Reminder};

/// Dismisses `r` for the session, saying so.
pub(crate) fn dismissed(model: &mut Model, r: Reminder) {
    model.dismissed_reminders.insert(r);
    // The report records the reminder as dismissed, not as cleared.
    model.session_log.dismissed(r, model.now);
    model.notify(
        NoticeLevel::Info,
        format!("reminder \"{}\" dismissed for this session", r.name()),
    );
}

/// `x` in the migration-mode dialog (outside the attempts field): dismisses
/// its first reminder line. False when the key is the dialog's own.
pub(crate) fn dismiss_dialog_reminder(model: &mut Model) -> bool {
    let Some(Dialog::MigrationMode(p)) = model.modals.dialog() else {
        return false;
    };
    if p.focus != PickerFocus::Mode {
        return false;
    }
    let nodes: Vec<String> = p.nodes.iter().map(|n| n.node.clone()).collect();
    let first = reminders::for_migration_dialog(&model.snapshot, &nodes, p.mode())
        .into_iter()
        .find(|r| !model.dismissed_reminders.contains(r));
    if let Some(r) = first {
        dismissed(model, r);
    }
    true
}
