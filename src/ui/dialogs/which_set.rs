//! An action on the cursor row while other rows are selected: "Act on:
//! [c] the cursor row <name> / [s] the 3 selected rows". The answer goes on
//! through the one action path (its dialog, confirmation and audit).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{hints, question};
use crate::app::actions::dialog::WhichSet;
use crate::app::model::Model;
use crate::config::theme::Theme;
use crate::domain::join::same_node;
use crate::ui::format;

/// How many selected nodes the question names before `and N more`.
const NAMED: usize = 4;

/// `child-cl-compute-3 (kaas-node-…)`: the node with its machine, when one
/// is known.
fn with_machine(model: &Model, node: &str) -> String {
    match model
        .snapshot
        .machines()
        .find(|m| m.hostname.as_deref().is_some_and(|h| same_node(h, node)))
    {
        Some(m) => format!("{} ({node})", m.name),
        None => node.to_string(),
    }
}

pub(super) fn draw(frame: &mut Frame, area: Rect, model: &Model, w: &WhichSet, theme: &Theme) {
    let n = w.selected.len();
    let s = if n == 1 { "" } else { "s" };
    let mut named: Vec<String> = w
        .selected
        .iter()
        .take(NAMED)
        .map(|node| with_machine(model, node))
        .collect();
    if n > NAMED {
        named.push(format!("and {} more", n - NAMED));
    }
    let cursor_nodes = w.cursor_nodes.join(", ");
    let cursor = if w.cursor_nodes.len() == 1 && w.cursor_nodes[0] == w.cursor_name {
        w.cursor_name.clone()
    } else {
        format!("{} ({cursor_nodes})", w.cursor_name)
    };
    let body = vec![
        Line::styled(
            format!(
                "{}: the cursor row is not what is selected. Act on:",
                w.action.label()
            ),
            theme.warn,
        ),
        Line::from(vec![
            Span::styled("[c] ", theme.key_hint),
            Span::raw(format!("the cursor row {cursor}")),
        ]),
        Line::from(vec![
            Span::styled("[s] ", theme.key_hint),
            Span::raw(format!("the {n} selected row{s}: {}", named.join(", "))),
        ]),
    ];
    question(
        frame,
        area,
        100,
        Line::styled(
            format!(" {} ", format::truncate(w.action.label(), 60)),
            theme.title,
        ),
        body,
        hints(
            &[
                ("c", "cursor row"),
                ("s", "selected rows"),
                ("Esc", "cancel"),
            ],
            theme,
        ),
        theme,
    );
}
