//! An action on the cursor row while other rows are selected asks "Act on:
//! [c] the cursor row / [s] the selected rows"; each answer goes on through
//! the one action path: what the server received and what the audit log
//! holds follow the answer, and Esc sends nothing.

use crossterm::event::{KeyCode, KeyModifiers};
use mosk_console::app::actions::dialog::Dialog;
use mosk_console::app::model::View;
use mosk_console::app::tables::shown;
use mosk_console::audit::AuditPhase;
use mosk_console::domain::action::run::RunOutcome;

use super::harness::*;

/// The Machines view, the cursor on its first row; `selected` selected.
/// Returns the cursor row's node.
fn cursor_and_selection(h: &mut Harness, selected: &[&str]) -> String {
    h.press(':');
    for c in "machines".chars() {
        h.press(c);
    }
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    let t = shown(&h.model, View::Machines).expect("the Machines table");
    let cursor = t
        .row(t.selected(&h.model.cursor(View::Machines)).unwrap())
        .and_then(|r| r.node.clone())
        .expect("the first machine has a node");
    assert!(!selected.contains(&cursor.as_str()));
    h.select(selected);
    cursor
}

/// `m`, then the answer, then `skip` picked and confirmed.
async fn set_skip(h: &mut Harness, answer: char) -> Option<RunOutcome> {
    h.press('m');
    assert!(
        matches!(h.model.modals.dialog(), Some(Dialog::WhichSet(_))),
        "{:?}",
        h.model.modals.dialog()
    );
    if answer == '\u{1b}' {
        h.key(KeyCode::Esc, KeyModifiers::NONE);
        return None;
    }
    h.press(answer);
    assert!(matches!(
        h.model.modals.dialog(),
        Some(Dialog::MigrationMode(_))
    ));
    h.press('j');
    h.press('j'); // skip
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    h.press('y');
    Some(h.run_to_end(false).await)
}

fn written_nodes(h: &Harness) -> Vec<String> {
    h.changes()
        .iter()
        .map(|c| c.path.rsplit('/').next().unwrap().to_string())
        .collect()
}

fn audited_nodes(h: &Harness) -> Vec<String> {
    h.audit()
        .iter()
        .filter(|r| r.phase == AuditPhase::Intent)
        .map(|r| r.name.clone())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn c_acts_on_the_cursor_row_only() {
    let mut h = Harness::new(quick_world(), Options::default());
    h.tick_and_settle().await;
    let computes = h.computes();
    let cursor = cursor_and_selection(&mut h, &[&computes[0], &computes[1]]);
    assert_eq!(
        set_skip(&mut h, 'c').await,
        Some(RunOutcome::Completed { dry_run: false })
    );
    assert_eq!(written_nodes(&h), vec![cursor.clone()]);
    assert_eq!(audited_nodes(&h), vec![cursor.clone()]);
    assert_eq!(h.annotation(&cursor, MODE).as_deref(), Some("skip"));
    assert_eq!(h.annotation(&computes[0], MODE), None);
    // The selection is kept: the operator may still act on it.
    assert_eq!(h.model.selected_nodes().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn s_acts_on_the_selected_rows() {
    let mut h = Harness::new(quick_world(), Options::default());
    h.tick_and_settle().await;
    let computes = h.computes();
    let cursor = cursor_and_selection(&mut h, &[&computes[0], &computes[1]]);
    assert_eq!(
        set_skip(&mut h, 's').await,
        Some(RunOutcome::Completed { dry_run: false })
    );
    let mut want = vec![computes[0].clone(), computes[1].clone()];
    want.sort();
    assert_eq!(written_nodes(&h), want);
    assert_eq!(audited_nodes(&h), want);
    assert_eq!(h.annotation(&cursor, MODE), None);
    assert_eq!(h.audit().len(), 4, "intent and result per node");
}

#[tokio::test(start_paused = true)]
async fn esc_cancels_and_nothing_is_sent_or_audited() {
    let mut h = Harness::new(quick_world(), Options::default());
    h.tick_and_settle().await;
    let computes = h.computes();
    cursor_and_selection(&mut h, &[&computes[0]]);
    assert_eq!(set_skip(&mut h, '\u{1b}').await, None);
    assert!(h.model.modals.dialog().is_none());
    assert!(h.changes().is_empty(), "{:?}", h.changes());
    assert!(h.audit().is_empty());
    let notice = h.model.notice().as_ref().unwrap().text.clone();
    assert!(notice.contains("cancelled, nothing sent"), "{notice}");
}

#[tokio::test(start_paused = true)]
async fn the_answer_keeps_dry_run() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            mode: mosk_console::cluster::writes::WriteMode::DryRun,
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let computes = h.computes();
    cursor_and_selection(&mut h, &[&computes[0]]);
    assert_eq!(
        set_skip(&mut h, 's').await,
        Some(RunOutcome::Completed { dry_run: true })
    );
    let changes = h.changes();
    assert_eq!(changes.len(), 1);
    assert!(changes[0].query.contains("dryRun=All"), "{changes:?}");
    assert!(h.audit().iter().all(|r| r.dry_run));
    assert_eq!(h.annotation(&computes[0], MODE), None, "nothing changed");
}
