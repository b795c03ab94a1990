//! The Overview's attention queue: one item per thing waiting for a human,
//! oldest first, the item under the cursor marked `>` (the queue scrolls to
//! keep it on screen), the leading auto-pause item drawn whole, and the
//! full text of an item (Enter) over the view.

use crate::ui::Drawn;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::derive::Derived;
use crate::app::freshness::{self, Pane};
use crate::app::model::Model;
use crate::app::views::overview::{self, Cursor, cursor};
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;
use crate::domain::attention::{AttentionItem, AttentionKind};
use crate::domain::next_step::{self, NextStep};
use crate::ui::format;
use crate::ui::fresh_pane;

/// `a: acknowledge migration` for an item that offers an action:
/// the action's one label ([`ActionId::hint`]) and the keymap's key;
/// `x: dismiss reminder` for a reminder; nothing for an action the server's
/// access review denied.
pub(crate) fn action_hint(item: &AttentionItem, model: &Model) -> Option<String> {
    let (key, what) = match (item.action, &item.kind) {
        (Some(id), _) => {
            // Only writes are off in a read-only session (dismissing a reminder is not one).
            if model.session.read_only {
                return Some(format!("{}: read-only", id.hint()));
            }
            if model.actions.off.is_some() {
                return Some(format!("{}: actions off", id.hint()));
            }
            // The server's access review said no: the action is not offered
            // (its key still answers, with the reason).
            if matches!(
                crate::app::actions::availability(model, id),
                crate::app::actions::access::Availability::Unavailable(_)
            ) {
                return None;
            }
            (KeyAction::Act(id), id.hint())
        }
        (None, AttentionKind::Reminder(_)) => {
            (KeyAction::DismissReminder, "dismiss reminder".to_string())
        }
        (None, _) => return None,
    };
    Some(match model.keymap.first_key(key) {
        Some(k) => format!("{k}: {what}"),
        None => what,
    })
}

/// `o: servers` on an item about the servers on its node
/// ([`overview::servers_hint`]), with the keymap's key.
pub(crate) fn servers_hint(item: &AttentionItem, model: &Model) -> Option<String> {
    let hint = overview::servers_hint(item)?;
    Some(match model.keymap.first_key(hint.action) {
        Some(k) => format!("{k}: {}", hint.label),
        None => hint.label.into_owned(),
    })
}

/// Most lines the leading auto-pause item's reason may take.
const LEAD_MAX_LINES: usize = 4;

/// The auto-pause item leads the queue and its reason says how to resume:
/// it is drawn whole (wrapped under its head line, at most
/// [`LEAD_MAX_LINES`]) instead of cut to one line. Empty for any other
/// first item.
pub(crate) fn lead_item_lines(d: &Derived, width: usize) -> Vec<String> {
    match d.attention.first() {
        Some(item) if item.kind == AttentionKind::AutoPaused => {
            let mut lines = format::wrap_indented(&item.why, width, 8);
            lines.truncate(LEAD_MAX_LINES);
            lines
        }
        _ => Vec::new(),
    }
}

pub(crate) fn draw_attention(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    d: &Derived,
    theme: &Theme,
    drawn: &mut Drawn,
) {
    let loading = freshness::loading(model);
    let stale = freshness::is_stale(model, Pane::Attention);
    let at = cursor(&model.views.overview, &d.attention);
    let title = if d.attention.is_empty() || loading.is_some() {
        " Attention ".to_string()
    } else if stale {
        format!(" Attention ({}, may be incomplete) ", d.attention.len())
    } else {
        // The order, as `domain::attention::sort` makes it.
        let reminders = d
            .attention
            .iter()
            .any(|i| matches!(i.kind, AttentionKind::Reminder(_)));
        let waits = d.attention.len()
            - d.attention
                .iter()
                .filter(|i| matches!(i.kind, AttentionKind::Reminder(_)))
                .count();
        let order = match (
            d.attention[0].kind == AttentionKind::AutoPaused,
            reminders && waits > 0,
        ) {
            (true, true) => "the auto-pause, then oldest first, reminders last",
            (true, false) => "the auto-pause, then oldest first",
            (false, true) => "oldest first, reminders last",
            (false, false) => "oldest first",
        };
        format!(
            " Attention ({}): waiting for you, {order} ",
            d.attention.len()
        )
    };
    let block = fresh_pane(title, false, model, Pane::Attention, area, theme);
    let mut inner = block.inner(area);
    frame.render_widget(block, area);
    // The item the cursor was on has cleared: the cursor marks nothing
    // until it is moved, and the pane's first line says which item went.
    if let Cursor::Gone { name, .. } = at
        && loading.is_none()
        && inner.height > 1
    {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format::truncate(
                    &format!("cleared under the cursor: {name} (j/k: move)"),
                    inner.width as usize,
                ),
                theme.warn,
            )),
            Rect::new(inner.x, inner.y, inner.width, 1),
        );
        inner = Rect::new(inner.x, inner.y + 1, inner.width, inner.height - 1);
    }
    if loading.is_some() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "loading: the attention queue is known once every list is in",
                theme.warn,
            ))
            .wrap(ratatui::widgets::Wrap { trim: true }),
            inner,
        );
        return;
    }
    if d.attention.is_empty() && stale {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "attention queue may be incomplete: data stale",
                theme.error,
            ))
            .wrap(ratatui::widgets::Wrap { trim: true }),
            inner,
        );
        return;
    }
    if d.attention.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled("nothing waits for a human", theme.ok)),
            inner,
        );
        return;
    }
    // Two lines per item (the reason on its own line) when they all fit.
    let width = inner.width as usize;
    let height = inner.height as usize;
    let lead = lead_item_lines(d, width);
    let lead_len = lead.len().saturating_sub(1);
    let two = d.attention.len() * 2 + lead_len <= height;
    let selected = match at {
        Cursor::On(i, _) => Some(i),
        _ => None,
    };
    // Where the queue scrolls to: the cursor's item, or where it stood.
    let anchor = match at {
        Cursor::On(i, _) => Some(i),
        Cursor::Gone { at, .. } => Some(at.min(d.attention.len().saturating_sub(1))),
        Cursor::Empty => None,
    };
    // The cursor's item also says what to do next, when a line is left.
    let next_line = two && d.attention.len() * 2 + lead_len < height;
    let marked = theme.attention.patch(theme.row_selected);
    let items: Vec<(String, Vec<Line>)> = d
        .attention
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let since = item_age(model, item);
            let mut head = format!("{since:>6}  {}  {}", item.subject, item.kind.label());
            if let Some(last) = item.unraised_since {
                head.push_str(&format!(
                    " (not raised for {})",
                    format::age(model.now, last)
                ));
            }
            let action = action_hint(item, model);
            if let Some(h) = &action {
                head.push_str(&format!("  [{h}]"));
            }
            // One space beside the action: the pair fits the queue of a
            // 160-column screen.
            if let Some(h) = servers_hint(item, model) {
                let gap = if action.is_some() { " " } else { "  " };
                head.push_str(&format!("{gap}[{h}]"));
            }
            if let Some(also) = also(item) {
                head.push_str(&format!(" ({also})"));
            }
            let whole_lead = i == 0 && !lead.is_empty();
            if !two && !whole_lead {
                head.push_str(&format!(": {}", item.why));
            }
            // The cursor: the item's age is drawn in the selection style.
            let head = format::truncate(&head, width);
            let cut = head.char_indices().nth(6).map_or(head.len(), |(b, _)| b);
            let age_style = if selected == Some(i) {
                marked
            } else {
                theme.attention
            };
            let mut lines = vec![Line::from(vec![
                Span::styled(head[..cut].to_string(), age_style),
                Span::styled(head[cut..].to_string(), theme.attention),
            ])];
            if whole_lead {
                lines.extend(lead.iter().cloned().map(Line::raw));
            } else if two {
                lines.push(Line::raw(format::truncate(
                    &format!("        {}", item.why),
                    width,
                )));
            }
            if next_line
                && selected == Some(i)
                && let Some(step) = next_step::for_item(item, &model.snapshot)
            {
                lines.push(Line::styled(
                    format::truncate(&format!("        next: {}", step_text(step)), width),
                    theme.key_hint,
                ));
            }
            (item.id(), lines)
        })
        .collect();
    // The first item drawn: the queue scrolls so the cursor's item is on screen.
    let mut first = 0;
    if let Some(sel) = anchor {
        while first < sel && items[first..=sel].iter().map(|x| x.1.len()).sum::<usize>() > height {
            first += 1;
        }
    }
    let mut lines: Vec<Line> = Vec::new();
    let mut shown = Vec::new();
    let mut cursor_row = None;
    for (i, (id, item_lines)) in items.into_iter().enumerate().skip(first) {
        if lines.len() >= height {
            break;
        }
        if selected == Some(i) {
            cursor_row = Some(lines.len() as u16);
        }
        shown.push(id);
        lines.extend(item_lines);
    }
    drawn.attention_shown = shown;
    frame.render_widget(Paragraph::new(lines), inner);
    // The cursor's marker, on the pane's left border like a table's `>`.
    if let Some(row) = cursor_row
        && inner.x > area.x
    {
        frame.buffer_mut()[(area.x, inner.y + row)]
            .set_symbol(">")
            .set_style(theme.row_selected);
    }
}

/// An item's age: `≥` when the condition began before the console saw it,
/// `~` when its start is inferred ([`format::since_mark`]).
pub(crate) fn item_age(model: &Model, item: &AttentionItem) -> String {
    format!(
        "{}{}",
        format::since_mark(item.at_least, item.since_inferred.is_some()),
        format::age(model.now, item.since)
    )
}

/// `+ retrying, stalled`: the symptoms folded under an item.
fn also(item: &AttentionItem) -> Option<String> {
    if item.symptoms.is_empty() {
        return None;
    }
    let mut labels: Vec<&str> = item.symptoms.iter().map(|s| s.kind.label()).collect();
    labels.dedup();
    Some(format!("+ {}", labels.join(", ")))
}

/// A next step as the screen says it: `(inferred)` when no source says it.
pub(crate) fn step_text(step: &NextStep) -> String {
    if step.inferred {
        format!("{} (inferred)", step.text)
    } else {
        step.text.clone()
    }
}

/// Enter on the Overview: the title and lines of the full text of the
/// attention item `id` (drawn by the one details modal, `ui::detail_text`).
pub(crate) fn attention_text(
    model: &Model,
    id: &str,
    theme: &Theme,
) -> (String, Vec<Line<'static>>) {
    let d = &model.derived;
    let item = d.attention.iter().find(|i| i.id() == id);
    let Some(item) = item else {
        return (
            " Attention ".to_string(),
            vec![Line::styled(
                "this item is no longer in the attention queue",
                theme.muted,
            )],
        );
    };
    let title = format!(" Attention: {} ", item.kind.label());
    let field = |name: &str, value: String| {
        Line::from(vec![
            Span::styled(format!("{name:<8}"), theme.muted),
            Span::raw(value),
        ])
    };
    let mut lines = vec![
        field("subject", item.subject.clone()),
        field("node", item.node.clone().unwrap_or_else(|| "-".into())),
        field(
            "object",
            if item.key.namespace.is_empty() {
                format!("{} {}", item.key.kind.api_kind(), item.key.name)
            } else {
                format!(
                    "{} {}/{}",
                    item.key.kind.api_kind(),
                    item.key.namespace,
                    item.key.name
                )
            },
        ),
        field(
            "since",
            match item.since_inferred {
                Some(how) => format!("{} ago [I] {how}", item_age(model, item)),
                None => format!("{} ago", item_age(model, item)),
            },
        ),
    ];
    if let Some(last) = item.unraised_since {
        lines.push(field(
            "held",
            format!(
                "not raised for {}, its object still there: kept up to {} in case the controller's message only paused",
                format::age(model.now, last),
                format::age(
                    model.now,
                    model.now - crate::domain::attention::waits::HOLD
                ),
            ),
        ));
    }
    if let Some(h) = action_hint(item, model) {
        lines.push(Line::from(vec![
            Span::styled(format!("{:<8}", "action"), theme.muted),
            Span::styled(h, theme.key_hint),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::raw(item.why.clone()));
    if let Some(step) = next_step::for_item(item, &model.snapshot) {
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled("next: ", theme.muted),
            Span::styled(step_text(step), theme.key_hint),
        ]));
        lines.push(Line::styled(
            format!("source: {}", step.source),
            theme.muted,
        ));
    }
    if !item.symptoms.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("symptoms of the same wait:", theme.muted));
        for s in &item.symptoms {
            lines.push(Line::raw(format!(
                "- {} ({}{} ago): {}",
                s.kind.label(),
                if s.at_least { "≥" } else { "" },
                format::age(model.now, s.since),
                s.why
            )));
        }
    }
    (title, lines)
}
