//! Dismissing the update guide's reminders (`x`): the one under the
//! attention cursor on the Overview, or the migration-mode dialog's line.
//! A dismissal lasts for the session and writes nothing to a cluster.

use crate::app::actions::dialog::{Dialog, PickerFocus};
use crate::app::attention_cursor;
use crate::app::model::{Model, NoticeLevel, View};
use crate::domain::attention::AttentionKind;
use crate::domain::reminders::{self, Reminder};

fn dismissed(model: &mut Model, r: Reminder) {
    model.dismissed_reminders.insert(r);
    model.notify(
        NoticeLevel::Info,
        format!("reminder \"{}\" dismissed for this session", r.name()),
    );
}

/// `x` on the Overview: dismisses the reminder under the attention cursor,
/// else the first reminder of the queue.
pub(crate) fn dismiss_queue_reminder(model: &mut Model) {
    if model.view != View::Overview {
        return;
    }
    let under_cursor = match attention_cursor::on_screen(model) {
        Ok(Some(item)) => match item.kind {
            AttentionKind::Reminder(r) => Some(r),
            _ => None,
        },
        _ => None,
    };
    // Else the first reminder the last frame drew (never one off screen).
    let first = under_cursor.or_else(|| {
        model
            .derived
            .attention
            .iter()
            .filter(|i| {
                model
                    .frame
                    .attention_shown
                    .contains(&attention_cursor::item_id(i))
            })
            .find_map(|i| match i.kind {
                AttentionKind::Reminder(r) => Some(r),
                _ => None,
            })
    });
    match first {
        Some(r) => dismissed(model, r),
        None => model.notify(NoticeLevel::Info, "no reminder to dismiss"),
    }
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
