//! The Overview's attention queue has a cursor: `j`/`k` move it (marked `>`
//! on the pane's border), Enter opens the item's full text, Esc closes it,
//! and an action key acts only on an item the last frame drew. Reached by
//! sending keys and frame reports through `update`, as the runtime does.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The attention item under the Overview's cursor.
fn selected_item(m: &Model) -> Option<mosk_console::domain::attention::AttentionItem> {
    mosk_console::app::views::overview::selected_item(&m.views.overview, &m.derived.attention)
        .cloned()
}
use crate::ui_support::*;
use mosk_console::app::modal::Modal;
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::config::theme::Theme;
use mosk_console::domain::attention::AttentionKind;

/// A frame at `w` x `h` reported back to `update`, then `code`.
fn key(m: &mut Model, code: KeyCode, w: u16, h: u16) {
    let report = mosk_console::ui::report_at(m, &Theme::default_theme(), w, h);
    update(m, Msg::Drawn(report));
    update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn press(m: &mut Model, c: char, w: u16, h: u16) {
    key(m, KeyCode::Char(c), w, h);
}

/// The rows of the attention pane, border included.
fn attention_pane(m: &Model, w: u16, h: u16) -> String {
    let t = render(m, w, h);
    let text = text_of(t.backend().buffer());
    let rows: Vec<&str> = text.lines().collect();
    let start = rows
        .iter()
        .position(|r| r.contains("┌ Attention"))
        .unwrap_or_else(|| panic!("no attention pane:\n{text}"));
    let end = start
        + rows[start + 1..]
            .iter()
            .position(|r| r.starts_with('└') || r.contains("┌"))
            .expect("pane bottom")
        + 1;
    rows[start..=end].join("\n")
}

#[test]
fn j_and_k_move_the_cursor_through_the_queue() {
    let mut m = with_view(View::Overview);
    let items = m.derived.attention.clone();
    assert!(items.len() >= 3, "{items:#?}");
    // The cursor starts on the first item.
    assert_eq!(selected_item(&m), Some(items[0].clone()));
    press(&mut m, 'j', 80, 24);
    press(&mut m, 'j', 80, 24);
    assert_eq!(selected_item(&m), Some(items[2].clone()));
    insta::assert_snapshot!("queue_cursor_on_third_80x24", attention_pane(&m, 80, 24));
    let pane = attention_pane(&m, 80, 24);
    let marked: Vec<&str> = pane.lines().filter(|l| l.starts_with('>')).collect();
    assert_eq!(marked.len(), 1, "one cursor:\n{pane}");
    assert!(marked[0].contains(&items[2].subject), "{pane}");
    press(&mut m, 'k', 80, 24);
    assert_eq!(selected_item(&m), Some(items[1].clone()));
    // Past the end it stays on the last; G and g jump.
    for _ in 0..items.len() + 2 {
        press(&mut m, 'j', 80, 24);
    }
    assert_eq!(selected_item(&m), items.last().cloned());
    press(&mut m, 'g', 80, 24);
    assert_eq!(selected_item(&m), Some(items[0].clone()));
    press(&mut m, 'G', 160, 48);
    assert_eq!(selected_item(&m), items.last().cloned());
    // The other views' tables did not move.
    assert_eq!(m.cursor(View::Machines), Default::default());
}

#[test]
fn enter_opens_the_items_full_text_and_esc_closes_it() {
    let mut m = with_view(View::Overview);
    let items = m.derived.attention.clone();
    let at = items
        .iter()
        .position(|i| i.kind == AttentionKind::ManualMigration)
        .expect("a manual migration item");
    for _ in 0..at {
        press(&mut m, 'j', 80, 24);
    }
    key(&mut m, KeyCode::Enter, 80, 24);
    assert_eq!(m.modals.top(), Some(&Modal::attention_text(items[at].id())));
    let t = render(&m, 80, 24);
    insta::assert_snapshot!("attention_full_text_80x24", t.backend());
    // The whole reason is there, to its last word (the queue cuts it).
    let screen = text_of(t.backend().buffer());
    let last_word = items[at].why.split_whitespace().last().unwrap();
    assert!(screen.contains(last_word), "{last_word}:\n{screen}");
    assert!(screen.contains("a: acknowledge migration"), "{screen}");
    key(&mut m, KeyCode::Esc, 80, 24);
    assert_eq!(m.modals.top(), None);
    let t = render(&m, 80, 24);
    assert!(!text_of(t.backend().buffer()).contains("esc: close"));
}

#[test]
fn an_action_key_acts_only_on_an_item_that_was_drawn() {
    let mut m = with_view(View::Logs);
    let items = m.derived.attention.clone();
    // The target is not the first item: the cursor was moved to it.
    assert_eq!(items[0].kind, AttentionKind::MigrationFailing, "{items:#?}");
    let at = items
        .iter()
        .position(|i| i.kind == AttentionKind::ManualMigration)
        .unwrap();
    assert!(at > 0);
    m.views.overview.selected = Some(items[at].id());
    // `1` then `a` typed ahead: the Overview was not drawn in between.
    press(&mut m, '1', 80, 24);
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::NONE)),
    );
    assert!(m.modals.dialog().is_none());
    let notice = m.notice().clone().unwrap().text;
    assert!(notice.contains("is not on screen"), "{notice}");
    // Once drawn, the same key opens the confirmation for that node.
    press(&mut m, 'a', 80, 24);
    let dialog = format!("{:?}", m.modals.dialog());
    assert!(
        dialog.contains(items[at].node.as_deref().unwrap()),
        "{dialog} {:?}",
        m.notice()
    );
}

/// The node lock an item waits on, released (state inactive): the
/// evidence that its cause is gone.
fn release_lock_of(m: &mut Model, item: &mosk_console::domain::attention::AttentionItem) {
    use mosk_console::cluster::events::ClusterEvent;
    use mosk_console::domain::objects::{LockState, Object};
    let Some(Object::NodeWorkloadLock(lock)) = m.snapshot.objects().get(&item.key).cloned() else {
        panic!("not a node lock item: {item:#?}");
    };
    let mut lock = lock;
    std::sync::Arc::make_mut(&mut lock).state = LockState::Inactive;
    update(
        m,
        Msg::Cluster(ClusterEvent::Applied(Object::NodeWorkloadLock(lock))),
    );
}

#[test]
fn the_cursor_stays_on_its_item_through_rebuilds_and_says_when_it_cleared() {
    use mosk_console::cluster::events::ClusterEvent;
    let mut m = with_view(View::Overview);
    let items = m.derived.attention.clone();
    assert_eq!(items.len(), 3, "{items:#?}");
    press(&mut m, 'j', 80, 24);
    press(&mut m, 'j', 80, 24);
    let third = items[2].clone();
    assert_eq!(selected_item(&m).map(|i| i.id()), Some(third.id()));
    // Three rebuilds: the clock moves past the queue's period; an object
    // that changes nothing of the queue; the first item's cause goes.
    let later = m.now + jiff::SignedDuration::from_secs(6);
    update(&mut m, Msg::Tick(later));
    assert_eq!(selected_item(&m).map(|i| i.id()), Some(third.id()));
    let machine = m
        .snapshot
        .objects()
        .values()
        .find(|o| matches!(o, mosk_console::domain::objects::Object::Machine(_)))
        .cloned()
        .unwrap();
    update(&mut m, Msg::Cluster(ClusterEvent::Applied(machine)));
    assert_eq!(selected_item(&m).map(|i| i.id()), Some(third.id()));
    release_lock_of(&mut m, &items[0]);
    assert!(
        !m.derived.attention.iter().any(|i| i.id() == items[0].id()),
        "{:#?}",
        m.derived.attention
    );
    assert_eq!(selected_item(&m).map(|i| i.id()), Some(third.id()));
    let pane = attention_pane(&m, 80, 24);
    let marked: Vec<&str> = pane.lines().filter(|l| l.starts_with('>')).collect();
    assert_eq!(marked.len(), 1, "{pane}");
    assert!(marked[0].contains(&third.subject), "{pane}");

    // The cursor on the manual migration, whose lock is then released: the
    // pane says which item cleared, nothing is marked, and `a` does not act
    // on the item that took its place.
    press(&mut m, 'g', 80, 24);
    while selected_item(&m).unwrap().kind != AttentionKind::ManualMigration {
        press(&mut m, 'j', 80, 24);
    }
    let manual = selected_item(&m).unwrap();
    let at = m
        .derived
        .attention
        .iter()
        .position(|i| i.id() == manual.id())
        .unwrap();
    release_lock_of(&mut m, &manual);
    assert!(selected_item(&m).is_none());
    let pane = attention_pane(&m, 80, 24);
    assert!(
        pane.contains(&format!("cleared under the cursor: {}", manual.subject)),
        "{pane}"
    );
    assert!(!pane.lines().any(|l| l.starts_with('>')), "{pane}");
    press(&mut m, 'a', 80, 24);
    assert!(m.modals.dialog().is_none());
    let notice = m.notice().clone().unwrap().text;
    assert!(notice.contains("has cleared"), "{notice}");
    key(&mut m, KeyCode::Enter, 80, 24);
    assert!(m.modals.top().is_none());
    // `j` takes the item now in its place.
    press(&mut m, 'j', 80, 24);
    assert_eq!(
        selected_item(&m).map(|i| i.id()),
        m.derived.attention.get(at).map(|i| i.id())
    );
}

#[test]
fn an_item_no_longer_raised_while_its_lock_is_held_stays_marked_then_goes() {
    use mosk_console::cluster::events::ClusterEvent;
    use mosk_console::domain::attention::waits::HOLD;
    use mosk_console::domain::objects::Object;
    let mut m = with_view(View::Overview);
    let manual = m
        .derived
        .attention
        .iter()
        .find(|i| i.kind == AttentionKind::ManualMigration)
        .cloned()
        .unwrap();
    // The controller's message goes away between two retries; the lock
    // stays active.
    let Some(Object::NodeWorkloadLock(lock)) = m.snapshot.objects().get(&manual.key).cloned()
    else {
        panic!("{manual:#?}");
    };
    let mut lock = lock;
    std::sync::Arc::make_mut(&mut lock).error_message = None;
    update(
        &mut m,
        Msg::Cluster(ClusterEvent::Applied(Object::NodeWorkloadLock(lock))),
    );
    let later = m.now + jiff::SignedDuration::from_secs(60);
    update(&mut m, Msg::Tick(later));
    let held = m
        .derived
        .attention
        .iter()
        .find(|i| i.id() == manual.id())
        .cloned()
        .expect("held through the gap");
    assert_eq!(held.since, manual.since, "its age goes on");
    let pane = attention_pane(&m, 120, 30);
    assert!(
        pane.contains("manual migration (not raised for 1m00s)"),
        "{pane}"
    );
    // Its text says why it is still there.
    while selected_item(&m).map(|i| i.id()) != Some(manual.id()) {
        press(&mut m, 'j', 120, 30);
    }
    key(&mut m, KeyCode::Enter, 120, 30);
    let screen = text_of(render(&m, 120, 30).backend().buffer());
    assert!(screen.contains("held    not raised for 1m00s"), "{screen}");
    key(&mut m, KeyCode::Esc, 120, 30);
    // Past the hold with no message again: gone.
    let gone = later + HOLD;
    update(&mut m, Msg::Tick(gone));
    assert!(
        !m.derived.attention.iter().any(|i| i.id() == manual.id()),
        "{:#?}",
        m.derived.attention
    );
}
