//! The update guide's reminders: shown once where they apply (the Overview's
//! attention queue, the migration-mode dialog) and dismissed with `x` for
//! the session, driven by keys through `update`.

use crate::domain::fixtures::names::*;
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::model::{Model, TableCursor, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::domain::attention::AttentionKind;
use mosk_console::domain::reminders::Reminder;

fn key(model: &mut Model, c: char) {
    update(
        model,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
    );
}

/// Draws a frame and reports it to `update`, as the runtime does.
fn drawn(model: &mut Model, w: u16, h: u16) {
    let report = mosk_console::ui::report_at(
        model,
        &mosk_console::config::theme::Theme::default_theme(),
        w,
        h,
    );
    update(model, Msg::Drawn(report));
}

fn screen(model: &Model, w: u16, h: u16) -> String {
    text_of(render(model, w, h).backend().buffer())
}

fn reminders_in_queue(model: &Model) -> Vec<Reminder> {
    model
        .derived
        .attention
        .iter()
        .filter_map(|i| match i.kind {
            AttentionKind::Reminder(r) => Some(r),
            _ => None,
        })
        .collect()
}

const WRITE_FREEZE: &str = "while the update runs, cloud users should make no writes";
const LVM: &str = "! with LVM-over-iSCSI volumes, manual is recommended";

#[test]
fn x_dismisses_the_queue_reminder_for_the_session() {
    let mut model = with_view(View::Overview);
    settled(&mut model);
    assert_eq!(reminders_in_queue(&model), vec![Reminder::WriteFreeze]);
    let before = screen(&model, 160, 48);
    assert!(before.contains(WRITE_FREEZE), "{before}");
    assert!(before.contains("[x: dismiss reminder]"), "{before}");

    // Before any frame was reported, no reminder was on screen: nothing goes.
    key(&mut model, 'G');
    key(&mut model, 'x');
    assert_eq!(reminders_in_queue(&model), vec![Reminder::WriteFreeze]);
    drawn(&mut model, 160, 48);
    // With the cursor on another item, `x` dismisses nothing, and says why.
    key(&mut model, 'g');
    key(&mut model, 'x');
    assert_eq!(reminders_in_queue(&model), vec![Reminder::WriteFreeze]);
    let said = model.notice().map(|n| n.text.clone()).unwrap_or_default();
    assert!(
        said.starts_with("x dismisses the reminder under the cursor;")
            && said.contains("is not a reminder"),
        "{said}"
    );
    // On the reminder, it goes.
    key(&mut model, 'G');
    key(&mut model, 'x');
    assert!(reminders_in_queue(&model).is_empty());
    assert!(model.dismissed_reminders.contains(&Reminder::WriteFreeze));
    let after = screen(&model, 160, 48);
    assert!(!after.contains(WRITE_FREEZE), "{after}");
    assert!(
        after.contains("reminder \"write freeze\" dismissed for this session"),
        "{after}"
    );
    // The other items stay.
    assert_eq!(model.derived.attention.len(), 2);

    // The cursor went to a neighbour, not a reminder: `x` says so and
    // changes nothing.
    key(&mut model, 'x');
    let said = model.notice().map(|n| n.text.clone()).unwrap_or_default();
    assert!(said.contains("is not a reminder"), "{said}");
    assert_eq!(model.dismissed_reminders.len(), 1);
}

#[test]
fn a_read_only_session_still_offers_dismiss_but_not_the_writes() {
    let mut model = with_view(View::Overview);
    model.session.read_only = true;
    settled(&mut model);
    let s = screen(&model, 160, 48);
    // Dismissing a reminder writes nothing to a cluster: it stays offered.
    assert!(s.contains("[x: dismiss reminder]"), "{s}");
    assert!(!s.contains("dismiss reminder: read-only"), "{s}");
    // The write actions on the other items are marked read-only.
    assert!(s.contains(": read-only]"), "{s}");
}

#[test]
fn x_outside_the_overview_dismisses_nothing() {
    let mut model = with_view(View::Machines);
    key(&mut model, 'x');
    assert!(model.dismissed_reminders.is_empty());
    model.view = View::Overview;
    settled(&mut model);
    assert_eq!(reminders_in_queue(&model), vec![Reminder::WriteFreeze]);
}

fn migration_dialog_for(machine: &str) -> Model {
    let mut model = with_view(View::Machines);
    model.views.cursors.insert(
        View::Machines,
        TableCursor {
            selected_id: Some(machine.into()),
            ..Default::default()
        },
    );
    key(&mut model, 'm');
    assert!(model.modals.dialog().is_some(), "m opened no dialog");
    model
}

#[test]
fn the_migration_dialog_reminds_of_lvm_over_iscsi_for_a_compute_until_dismissed() {
    let mut model = migration_dialog_for(WORKER_1);
    let s = screen(&model, 80, 40);
    assert!(s.contains(LVM), "{s}");
    assert!(s.contains("x dismiss"), "{s}");
    // Manual chosen: the recommendation is followed, the line goes.
    key(&mut model, 'j');
    assert!(!screen(&model, 80, 40).contains(LVM));
    key(&mut model, 'k');
    assert!(screen(&model, 80, 40).contains(LVM));

    key(&mut model, 'x');
    assert!(
        model
            .dismissed_reminders
            .contains(&Reminder::LvmIscsiManual)
    );
    assert!(model.modals.dialog().is_some(), "x keeps the dialog open");
    let s = screen(&model, 80, 40);
    assert!(!s.contains(LVM), "{s}");
    // Dismissed for the session: not in the next dialog either.
    update(
        &mut model,
        Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
    );
    let mut again = migration_dialog_for(WORKER_2);
    again.dismissed_reminders = model.dismissed_reminders.clone();
    assert!(!screen(&again, 80, 40).contains(LVM));
}

#[test]
fn manual_on_a_node_without_the_compute_role_says_it_has_no_effect() {
    let mut model = migration_dialog_for(MASTER_0);
    // The line wraps in the 76-cell dialog: its start names the node.
    let want = format!("! {NODE_M0}: no compute role; manual");
    assert!(
        !screen(&model, 80, 40).contains(&want),
        "live chosen: no line"
    );
    key(&mut model, 'j'); // manual
    let s = screen(&model, 80, 40);
    assert!(s.contains(&want), "{s}");
    assert!(
        s.contains("has no effect here: instances are migrated only on nodes with the compute"),
        "{s}"
    );
    insta::assert_snapshot!("manual_without_compute_80x40", s);
    key(&mut model, 'x');
    assert!(
        model
            .dismissed_reminders
            .contains(&Reminder::ManualWithoutCompute)
    );
    assert!(!screen(&model, 80, 40).contains(&want));
}
