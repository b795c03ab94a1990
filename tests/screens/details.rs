//! Details everywhere and the selection, reached
//! by keys through `update` as the runtime sends them: Enter on an
//! attention item, a lock, a maintenance request or a cluster state opens
//! its full text in the one details modal (wrapped, scrolled with j/k, Esc
//! closes it); the details panes beside a table (Machines, Update plan)
//! read to their end at 80x24 with the key their footer names; the Locks
//! view's AGE (exact, or "≥" when the console did not see the transition)
//! and BLOCKS mark; the selected rows counted in the table's title and
//! cleared by Esc.

use crate::domain::fixtures::names::*;
use crate::domain::fixtures::update_plan;
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::modal::{DetailOf, Modal};
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::config::keymap::{KeyAction, parse_key};
use mosk_console::config::theme::Theme;
use mosk_console::domain::objects::{Kind, Object, ObjectKey};
use std::sync::Arc;

/// A frame of `w` x `h` reported back to `update`, then the key.
fn key_at(m: &mut Model, code: KeyCode, w: u16, h: u16) {
    let report = mosk_console::ui::report_at(m, &Theme::default_theme(), w, h);
    update(m, Msg::Drawn(report));
    update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn key(m: &mut Model, code: KeyCode) {
    key_at(m, code, 120, 32);
}

fn typed(m: &mut Model, text: &str) {
    for c in text.chars() {
        key(m, KeyCode::Char(c));
    }
}

/// `:view` Enter.
fn go(m: &mut Model, view: &str) {
    key(m, KeyCode::Char(':'));
    typed(m, view);
    key(m, KeyCode::Enter);
}

/// `/words` Enter (in place of any filter typed before): the cursor lands
/// on the first row left.
fn filter(m: &mut Model, words: &str) {
    key(m, KeyCode::Char('/'));
    let before = m.cursor(m.view).filter.chars().count();
    for _ in 0..before {
        key(m, KeyCode::Backspace);
    }
    typed(m, words);
    key(m, KeyCode::Enter);
}

fn screen(m: &Model, w: u16, h: u16) -> String {
    text_of(render(m, w, h).backend().buffer())
}

fn top(m: &Model) -> Option<&DetailOf> {
    match m.modals.top() {
        Some(Modal::Detail { of, .. }) => Some(of),
        _ => None,
    }
}

#[test]
fn enter_on_an_attention_item_opens_its_text_in_the_details_modal() {
    let mut m = base_model();
    key(&mut m, KeyCode::Enter);
    assert!(
        matches!(top(&m), Some(DetailOf::Attention(_))),
        "{:?}",
        m.modals.top()
    );
    let s = screen(&m, 120, 32);
    assert!(s.contains("esc: close"), "{s}");
    insta::assert_snapshot!("details_attention_item_120x32", s);
    key(&mut m, KeyCode::Esc);
    assert!(m.modals.is_empty());
}

#[test]
fn enter_on_a_lock_shows_its_state_since_when_blocking_and_whole_message() {
    let mut m = base_model();
    go(&mut m, "locks");
    filter(&mut m, &format!("openstack {NODE_W2}"));
    key(&mut m, KeyCode::Enter);
    assert_eq!(
        top(&m),
        Some(&DetailOf::Lock(ObjectKey {
            kind: Kind::NodeWorkloadLock,
            namespace: String::new(),
            name: format!("openstack-{NODE_W2}"),
        }))
    );
    let s = screen(&m, 120, 32);
    // Seen active since the console's start at 07:00: a lower bound.
    assert!(s.contains("active for ≥ 3h30m"), "{s}");
    assert!(s.contains("blocks      yes"), "{s}");
    // The message's last words are on screen (the table cuts it).
    assert!(s.contains(SERVER_B), "{s}");
    insta::assert_snapshot!("details_lock_120x32", s);
}

#[test]
fn a_long_details_text_scrolls_and_stops_at_its_last_line() {
    let mut m = base_model();
    go(&mut m, "locks");
    filter(&mut m, &format!("openstack {NODE_W2}"));
    key_at(&mut m, KeyCode::Enter, 80, 24);
    let first = screen(&m, 80, 24);
    assert!(first.contains("lines 1-"), "{first}");
    for _ in 0..50 {
        key_at(&mut m, KeyCode::Char('j'), 80, 24);
    }
    let most = m
        .frame
        .detail_scroll_max
        .expect("a details modal was drawn");
    assert!(most > 0);
    assert_eq!(
        m.modals.top(),
        Some(&Modal::Detail {
            of: top(&m).cloned().unwrap(),
            scroll: most
        }),
        "j stops at the last line"
    );
    // 15 lines show at 80x24 (the view's 21 rows less 4, less the border):
    // the last of them is the text's last line.
    let end = screen(&m, 80, 24);
    let total = most + 15;
    assert!(
        end.contains(&format!("lines {}-{total} of {total} ", most + 1)),
        "{end}"
    );
    key_at(&mut m, KeyCode::Char('k'), 80, 24);
    assert!(matches!(m.modals.top(), Some(Modal::Detail { scroll, .. }) if *scroll == most - 1));
}

#[test]
fn enter_on_a_maintenance_request_shows_its_spec_and_the_node_locks() {
    let mut m = base_model();
    go(&mut m, "requests");
    filter(&mut m, NODE_W3);
    key(&mut m, KeyCode::Enter);
    assert!(matches!(top(&m), Some(DetailOf::Request(k)) if k.name == NODE_W3));
    let s = screen(&m, 120, 32);
    assert!(s.contains(WORKER_3), "the machine is named: {s}");
    assert!(s.contains("os (the node may be rebooted"), "{s}");
    assert!(s.contains("blocks the update"), "{s}");
    insta::assert_snapshot!("details_request_120x32", s);
}

#[test]
fn enter_on_a_cluster_state_shows_type_attempt_message_and_since_when() {
    let mut m = base_model();
    go(&mut m, "states");
    filter(&mut m, &format!("cordon {WORKER_2}"));
    key(&mut m, KeyCode::Enter);
    assert!(matches!(top(&m), Some(DetailOf::State(k)) if k.name.contains(WORKER_2)));
    let s = screen(&m, 120, 32);
    assert!(s.contains("attempt     4"), "{s}");
    assert!(s.contains("this message"), "{s}");
    insta::assert_snapshot!("details_cluster_state_120x32", s);
}

#[test]
fn the_locks_view_shows_exact_and_lower_bound_ages_and_marks_blocking_locks() {
    let mut m = base_model();
    go(&mut m, "locks");
    let s = screen(&m, 200, 30);
    let line = |needle: &str| {
        s.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no row {needle}:\n{s}"))
            .to_string()
    };
    // A node's lock row: its controller and its node's machine, the node
    // whole beside it.
    let lock = |controller: &str, machine: &str, node: &str| {
        let row = line(&format!(" {controller} "));
        let row = s
            .lines()
            .find(|l| l.contains(&format!(" {controller} ")) && l.contains(machine))
            .unwrap_or(&row)
            .to_string();
        assert!(row.contains(machine) && row.contains(node), "{row}");
        row
    };
    // Worker-2's OpenStack lock: active since before the console started,
    // and the update waits on it.
    let w2 = lock("openstack", WORKER_2, NODE_W2);
    assert!(w2.contains("active   yes    ≥ 3h30m"), "{w2}");
    // Master-0's lock went back to active at 08:56, seen: an exact age, and
    // no request waits on it.
    let m0 = lock("openstack", MASTER_0, NODE_M0);
    assert!(m0.contains("active   -      1h34m"), "{m0}");
    // Worker-2's TF lock went inactive at 09:53: not blocking.
    let tf = lock("tf", WORKER_2, NODE_W2);
    assert!(tf.contains("inactive -      37m00s"), "{tf}");
    insta::assert_snapshot!("locks_age_and_blocks_200x30", s);
}

#[test]
fn the_selection_is_counted_in_the_title_and_esc_clears_it() {
    let mut m = base_model();
    go(&mut m, "machines");
    key(&mut m, KeyCode::Char(' '));
    key(&mut m, KeyCode::Char(' '));
    assert_eq!(m.selected_nodes().len(), 2);
    let s = screen(&m, 120, 32);
    assert!(s.contains("Machines · 2 selected"), "{s}");
    insta::assert_snapshot!("machines_two_selected_120x32", s);
    key(&mut m, KeyCode::Esc);
    assert!(m.selected_nodes().is_empty());
    let s = screen(&m, 120, 32);
    assert!(!s.contains("selected"), "{s}");
    assert!(s.contains("selection cleared (2 rows)"), "{s}");
}

#[test]
fn esc_closes_a_modal_before_it_clears_the_selection() {
    let mut m = base_model();
    go(&mut m, "locks");
    filter(&mut m, &format!("openstack {NODE_W3}"));
    key(&mut m, KeyCode::Char(' '));
    key(&mut m, KeyCode::Enter);
    assert!(top(&m).is_some());
    key(&mut m, KeyCode::Esc);
    assert!(m.modals.is_empty());
    assert_eq!(
        m.selected_nodes().len(),
        1,
        "the first Esc closed the details"
    );
    key(&mut m, KeyCode::Esc);
    assert!(m.selected_nodes().is_empty());
}

#[test]
fn an_action_on_the_cursor_row_with_other_rows_selected_asks_which_set() {
    let mut m = base_model();
    go(&mut m, "machines");
    filter(&mut m, WORKER_4);
    key(&mut m, KeyCode::Char(' '));
    filter(&mut m, WORKER_3);
    key(&mut m, KeyCode::Char('m'));
    let s = screen(&m, 120, 32);
    assert!(s.contains("Act on:"), "{s}");
    assert!(s.contains(&format!("[c] the cursor row {WORKER_3}")), "{s}");
    assert!(
        s.contains(&format!("[s] the 1 selected row: {WORKER_4} ({NODE_W4})")),
        "{s}"
    );
    insta::assert_snapshot!("which_set_120x32", s);
}

/// The footer's hints as the last frame left them.
fn hints(m: &Model) -> Vec<(KeyAction, String)> {
    mosk_console::app::views::hints(&m.views, &m.logs, &m.view_ctx())
        .into_iter()
        .map(|h| (h.action, h.label.to_string()))
        .collect()
}

/// Reads a details pane down to its end at 80x24 the way the operator
/// does: the key the footer hints at ("more details"), pressed while it
/// does, each after a frame; the screens seen, first to last.
fn read_down(m: &mut Model) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..40 {
        let report = mosk_console::ui::report_at(m, &Theme::default_theme(), 80, 24);
        update(m, Msg::Drawn(report));
        seen.push(screen(m, 80, 24));
        let Some((action, _)) = hints(m).into_iter().find(|(_, l)| l == "more details") else {
            return seen;
        };
        let key = m.keymap.first_key(action).expect("a hinted key is bound");
        // The footer names the key it hints at.
        assert!(
            seen.last()
                .unwrap()
                .contains(&format!("{key} more details")),
            "{}",
            seen.last().unwrap()
        );
        update(m, Msg::Key(parse_key(key).unwrap().into()));
    }
    panic!("the pane never reached its end");
}

#[test]
fn the_machines_details_pane_reads_to_its_end_at_80x24() {
    let mut m = with_view(View::Machines);
    open_detail(&mut m, WORKER_2);
    let seen = read_down(&mut m);
    assert!(seen.len() > 1, "the text is longer than the pane at 80x24");
    let end = seen.last().unwrap();
    // The pane says which lines show: the last of them is its last line.
    let (shown, total) = end
        .split("lines ")
        .nth(1)
        .and_then(|s| s.split_once(" of "))
        .map(|(range, rest)| {
            let last: u16 = range.split('-').nth(1).unwrap().parse().unwrap();
            let total: u16 = rest.split(' ').next().unwrap().parse().unwrap();
            (last, total)
        })
        .unwrap_or_else(|| panic!("no line count: {end}"));
    assert_eq!(shown, total, "{end}");
    // What was cut off at 80x24 before: the node's vRouter pod and the
    // machine's recent changes, the pane's last section.
    assert!(!seen[0].contains("Recent changes"), "{}", seen[0]);
    assert!(end.contains("Recent changes"), "{end}");
    insta::assert_snapshot!("machines_detail_scrolled_to_end_80x24", end);
    // And back up to the top with the other key.
    let up = m
        .keymap
        .first_key(KeyAction::DetailsUp)
        .unwrap()
        .to_string();
    for _ in 0..40 {
        update(&mut m, Msg::Key(parse_key(&up).unwrap().into()));
    }
    assert_eq!(screen(&m, 80, 24), seen[0]);
}

#[test]
fn the_update_plan_steps_details_read_to_their_end_at_80x24() {
    // The first step, done: eleven lines where 80x24 shows seven.
    let mut m = with_view(View::UpdatePlan);
    m.snapshot
        .apply(Object::UpdatePlan(Arc::new(update_plan::paused_before(1))));
    settled(&mut m);
    let seen = read_down(&mut m);
    assert!(seen[0].contains("Step 1: openstack"), "{}", seen[0]);
    assert!(!seen[0].contains("duration    Depends"), "{}", seen[0]);
    let end = seen.last().unwrap();
    assert!(end.contains("duration    Depends"), "{end}");
    assert!(end.contains("lines 5-11 of 11"), "{end}");
}

/// A drain failure's age: when the console saw the error appear it is
/// exact; when the error was there at first sight, its time is inferred
/// from the node's cordon + the drain timeout the error names (no object
/// records when a drain failed): `~` before the age, and the item's text
/// says how, marked [I].
#[test]
fn a_drain_failures_age_is_marked_inferred_unless_the_console_saw_it_fail() {
    use jiff::SignedDuration;
    use mosk_console::domain::attention::AttentionKind;
    use mosk_console::domain::objects::DrainError;
    const DRAIN: &str = "Error: error when evicting pods/\"patroni-13-2\" -n \"stacklight\": global timeout reached: 10m0s";
    for (name, seen) in [
        ("drain_failure_inferred", false),
        ("drain_failure_seen", true),
    ] {
        let mut m = base_model();
        let mut node = crate::domain::fixtures::node(NODE_W4, true);
        node.unschedulable = true;
        node.cordoned_at = Some(now() - SignedDuration::from_mins(25));
        let Some(Object::Machine(machine)) = m
            .snapshot
            .objects()
            .values()
            .find(|o| matches!(o, Object::Machine(x) if x.name == WORKER_4))
            .cloned()
        else {
            panic!("no {WORKER_4}");
        };
        let mut machine = (*machine).clone();
        machine.drain_error = Some(DrainError::new(DRAIN));
        let (node, machine) = (
            Object::Node(Arc::new(node)),
            Object::Machine(Arc::new(machine)),
        );
        if seen {
            // The console watched the error appear five minutes ago.
            let at = now() - SignedDuration::from_mins(5);
            m.history.apply(&mut m.snapshot, node, at);
            m.history.apply(&mut m.snapshot, machine, at);
        } else {
            m.snapshot.apply(node);
            m.snapshot.apply(machine);
        }
        settled(&mut m);
        let item = m
            .derived
            .attention
            .iter()
            .find(|i| i.kind == AttentionKind::DrainError)
            .expect("a drain error item")
            .clone();
        m.views.overview.selected = Some(item.id());
        let queue = screen(&m, 120, 32);
        let head = queue
            .lines()
            .find(|l| l.contains("drain error"))
            .expect("the item is drawn");
        if seen {
            assert!(head.contains(" 5m00s  child-cl-compute-4"), "{head}");
        } else {
            // 10 minutes after a cordon 25 minutes ago.
            assert!(head.contains("~15m00s  child-cl-compute-4"), "{head}");
        }
        key(&mut m, KeyCode::Enter);
        let s = screen(&m, 120, 32);
        assert_eq!(s.contains("[I] from the node's cordon time"), !seen, "{s}");
        insta::assert_snapshot!(format!("{name}_120x32"), format!("{queue}\n{s}"));
    }
}
