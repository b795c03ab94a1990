//! `s` sorts by the next column the screen shows and wraps to the first;
//! the sorted column is always marked. For every table view, at 80x24 and
//! 160x48, keys and frame reports go through `update` as in the runtime.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::domain::fixtures::names::*;
use crate::domain::fixtures::update_plan;
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::tables::{SortKind, shown, table};
use mosk_console::app::update::update;
use mosk_console::audit::{AuditOutcome, AuditPhase, AuditRecord};
use mosk_console::cluster::writes::WriteEvent;
use mosk_console::config::theme::Theme;
use mosk_console::domain::objects::Object;

/// Draws a frame, reports it to `update`, and returns the columns it drew.
fn frame(m: &mut Model, w: u16, h: u16) -> (Vec<usize>, String) {
    let mut drawn = m.clone();
    settled(&mut drawn);
    let report = mosk_console::ui::report_at(&drawn, &Theme::default_theme(), w, h);
    let columns = match &report.table_columns {
        Some((v, cols)) if *v == m.view => cols.clone(),
        other => panic!("{:?}: no table drawn: {other:?}", m.view),
    };
    update(m, Msg::Drawn(report));
    let screen = text_of(render(m, w, h).backend().buffer());
    (columns, screen)
}

fn press_s(m: &mut Model) {
    update(
        m,
        Msg::Key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE)),
    );
}

/// A duration written as `5s`, `4m12s`, `2h05m`, `3d` (`4m12s ago`): seconds.
fn duration(s: &str) -> Option<i64> {
    let word = s.split_whitespace().next()?;
    let (mut total, mut num, mut any) = (0i64, String::new(), false);
    for c in word.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400,
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return None,
        };
        total += num.parse::<i64>().ok()? * unit;
        num.clear();
        any = true;
    }
    (any && num.is_empty()).then_some(total)
}

fn number(s: &str) -> Option<f64> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && c == '-')))
        .map_or(s.len(), |(i, _)| i);
    s[..end].parse().ok()
}

fn rank(s: &str) -> Option<i64> {
    let (_, after) = s.split_once(" #")?;
    let digits: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// A text cell as drawn, split into its words (lowercased) and the age
/// among them, if any.
fn words_and_age(s: &str) -> (String, Option<i64>) {
    let mut age = None;
    let mut words = Vec::new();
    for w in s.split_whitespace() {
        match duration(w) {
            Some(d) if age.is_none() => age = Some(d),
            _ => words.push(w.to_lowercase()),
        }
    }
    (words.join(" "), age)
}

/// Missing values first (a text without an age before the same text with one).
fn missing_first<T: PartialOrd>(a: Option<T>, b: Option<T>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.partial_cmp(&b).unwrap(),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => Ordering::Equal,
    }
}

/// Missing values last.
fn missing_last<T: PartialOrd>(a: Option<T>, b: Option<T>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.partial_cmp(&b).unwrap(),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// The order of two cells of a column of `kind`, as its values mean.
fn typed_order(kind: SortKind, a: &str, b: &str) -> Ordering {
    match kind {
        // By the words, then by the age among them (`Ready 40m00s` before
        // `Ready 1h35m`, `os 3m terminating` by "os terminating" then 3m).
        SortKind::Text => {
            let (wa, da) = words_and_age(a);
            let (wb, db) = words_and_age(b);
            wa.cmp(&wb).then_with(|| missing_first(da, db))
        }
        SortKind::Number => missing_last(number(a), number(b)),
        SortKind::Age => missing_last(duration(a), duration(b)),
        SortKind::Ranked => missing_last(rank(a), rank(b)),
    }
}

/// The screen marks one column with `mark`, after its title (or the start
/// of its title when the column is narrower than title and marker).
fn assert_marked(screen: &str, title: &str, mark: char, what: &str) {
    assert_eq!(
        screen.matches(mark).count(),
        1,
        "{what}: one {mark} expected:\n{screen}"
    );
    let line = screen.lines().find(|l| l.contains(mark)).unwrap();
    let before = &line[..line.find(mark).unwrap()];
    let least = title.chars().count().min(3);
    let on_title = (least..=title.len())
        .filter(|&k| title.is_char_boundary(k))
        .any(|k| before.ends_with(&title[..k]));
    assert!(on_title, "{what}: {mark} not after {title:?}:\n{screen}");
}

/// The rows `update` settled for the current view (what the screen draws)
/// are in the order of the cursor's column.
fn assert_sorted(m: &Model, what: &str) {
    let t = shown(m, m.view).expect("a settled table");
    let data = &t.data;
    let cursor = m.cursor(m.view);
    let col = cursor.sort_column;
    let kind = data.columns[col].sort;
    let rows = t.rows();
    assert_eq!(rows.len(), data.rows.len(), "{what}: no filter, every row");
    for pair in rows.windows(2) {
        // As drawn: the sort must agree with the text on screen.
        let a = mosk_console::ui::cells::text(m, &pair[0].cells[col]);
        let b = mosk_console::ui::cells::text(m, &pair[1].cells[col]);
        let mut ord = typed_order(kind, &a, &b);
        if cursor.sort_reverse {
            ord = ord.reverse();
        }
        assert_ne!(
            ord,
            Ordering::Greater,
            "{what}: {a:?} before {b:?} sorting by {} ({kind:?})",
            data.columns[col].title
        );
    }
}

/// The table of `view`, with rows: the Audit view gets this session's
/// actions as the executor reports them.
fn model_for(view: View) -> Model {
    let mut m = with_view(view);
    if view == View::UpdatePlan {
        // A plan paused before its second step (the fixture's steps).
        m.snapshot
            .apply(Object::UpdatePlan(Arc::new(update_plan::paused_before(1))));
    }
    if view == View::Audit {
        let nodes = [NODE_W3, NODE_W1, NODE_W2];
        for (i, node) in nodes.into_iter().enumerate() {
            for (phase, outcome) in [
                (AuditPhase::Intent, AuditOutcome::Pending),
                (AuditPhase::Result, AuditOutcome::Succeeded),
            ] {
                let rec = AuditRecord {
                    time: ago(600 - 100 * i as i64),
                    session: "s".into(),
                    plan: 10 - i as u64,
                    phase,
                    action: "acknowledge-migration".into(),
                    user: "admin".into(),
                    user_source: "kubeconfig".into(),
                    context: "sim-mosk".into(),
                    kind: "Node".into(),
                    namespace: None,
                    name: node.into(),
                    uid: "u".into(),
                    change: serde_json::Value::Null,
                    change_text: "instance_migration_mode: manual -> skip".into(),
                    servers: Vec::new(),
                    dry_run: false,
                    permission: None,
                    permission_note: None,
                    kubeconfig_user: None,
                    connection: None,
                    outcome,
                    message: None,
                    simulated: false,
                };
                update(&mut m, Msg::Action(WriteEvent::Audit(Box::new(rec))));
            }
        }
    }
    m
}

#[test]
fn s_cycles_through_the_shown_columns_wraps_and_always_marks_one() {
    let views: Vec<View> = View::ALL.into_iter().filter(|v| v.is_table()).collect();
    for view in views {
        for (w, h) in [(80, 24), (160, 48)] {
            let mut m = model_for(view);
            let data = table(&m, view);
            assert!(data.rows.len() >= 2, "{view:?}: rows to sort");
            let (shown, screen) = frame(&mut m, w, h);
            assert!(!shown.is_empty());
            let first = m.cursor(view).sort_column;
            if !shown.contains(&first) {
                // A sorted column too narrow to show is named in the title.
                let title = data.columns[first].title;
                assert!(
                    screen.contains(&format!("sorted by {title}▲")),
                    "{view:?} {w}x{h}: hidden sort column {title} unmarked:\n{screen}"
                );
            }
            let mut visited = Vec::new();
            for press in 0..shown.len() + 2 {
                press_s(&mut m);
                let (now_shown, screen) = frame(&mut m, w, h);
                let col = m.cursor(view).sort_column;
                let what = format!("{view:?} {w}x{h} after {} s", press + 1);
                assert_eq!(now_shown, shown, "{what}: the columns shown stay");
                assert!(shown.contains(&col), "{what}: sorts by hidden column {col}");
                assert_marked(&screen, data.columns[col].title, '▲', &what);
                assert!(!screen.contains("sorted by"), "{what}:\n{screen}");
                assert_sorted(&m, &what);
                visited.push(col);
            }
            // Every shown column in order, then back to the first.
            let start = shown.iter().position(|&c| c > first).unwrap_or(0);
            let want: Vec<usize> = shown
                .iter()
                .cycle()
                .skip(start)
                .take(shown.len() + 2)
                .copied()
                .collect();
            assert_eq!(visited, want, "{view:?} {w}x{h}: shown {shown:?}");
        }
    }
}

#[test]
fn reverse_sort_flips_the_marker_and_the_order() {
    let mut m = with_view(View::Machines);
    let (shown, _) = frame(&mut m, 160, 48);
    press_s(&mut m);
    frame(&mut m, 160, 48);
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('S'), KeyModifiers::NONE)),
    );
    let (_, screen) = frame(&mut m, 160, 48);
    let col = m.cursor(View::Machines).sort_column;
    assert!(shown.contains(&col));
    let data = table(&m, View::Machines);
    assert_marked(&screen, data.columns[col].title, '▼', "reversed");
    assert_sorted(&m, "reversed");
}
