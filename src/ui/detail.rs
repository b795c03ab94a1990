//! The Machines view: the joined table, and on Enter a detail panel for the
//! selected machine (full lock messages, cluster states, maintenance
//! request, what else blocks it, vRouter pod, recent changes), scrolled
//! with `J`/`K` ([`details_pane`]).

use crate::ui::Drawn;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::app::frame::PaneScroll;
use crate::app::freshness::Pane;
use crate::app::model::{Model, View};
use crate::app::tables;
use crate::app::tables::events::{change_text, kind_short};
use crate::app::tables::machines::mode_text;
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;
use crate::domain::attention;
use crate::domain::blocking::blocking_locks;
use crate::domain::changes::Change;
use crate::domain::history::History;
use crate::domain::join::{MachineRow, NodeLink, pending};
use crate::domain::lockmsg;
use crate::domain::objects::{Kind, LockState, ObjectKey};
use crate::ui::cells::nmr_text;
use crate::ui::format;
use crate::ui::{fresh_pane, table};

/// Below this width the detail panel goes under the table, not beside it.
const SIDE_BY_SIDE: u16 = 140;
/// How many of the machine's recent changes the panel lists.
const RECENT_CHANGES: usize = 8;

pub(crate) fn draw_machines(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    theme: &Theme,
    drawn: &mut Drawn,
) {
    if !model.views.machines.detail_open {
        table::draw(frame, area, model, View::Machines, theme, drawn);
        return;
    }
    let cursor = model.cursor(View::Machines);
    let selected = tables::shown(model, View::Machines)
        .and_then(|t| t.selected(&cursor).and_then(|i| t.row(i)))
        .map(|r| r.id.clone());
    let (table_area, detail_area) = if area.width >= SIDE_BY_SIDE {
        let [a, b] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(area);
        (a, b)
    } else {
        let [a, b] = Layout::vertical([Constraint::Length(7), Constraint::Fill(1)]).areas(area);
        (a, b)
    };
    table::draw(frame, table_area, model, View::Machines, theme, drawn);
    let d = &model.derived;
    let row = selected
        .as_deref()
        .and_then(|id| d.rows.iter().find(|r| r.name() == id));
    let width = detail_area.width.saturating_sub(2) as usize;
    let (title, lines) = match row {
        Some(r) => (
            format!(" {} ", r.name()),
            detail_lines(r, model, &model.history, width, theme),
        ),
        None => (
            " Details ".to_string(),
            vec![Line::styled("no machine selected", theme.muted)],
        ),
    };
    let block = fresh_pane(
        title,
        false,
        model,
        Pane::View(View::Machines),
        detail_area,
        theme,
    );
    let top = model
        .views
        .machines
        .detail_scroll
        .top_for(selected.as_deref());
    details_pane(frame, detail_area, block, lines, top, model, theme, drawn);
}

/// Draws a details pane beside a table: `lines` wrapped in `block`, from
/// line `top` (never past the last line), its bottom border saying which
/// lines show and the keys that scroll it; reports how far it can scroll.
#[allow(clippy::too_many_arguments)]
pub(crate) fn details_pane(
    frame: &mut Frame,
    area: Rect,
    block: Block<'_>,
    lines: Vec<Line<'_>>,
    top: u16,
    model: &Model,
    theme: &Theme,
    drawn: &mut Drawn,
) {
    let inner = block.inner(area);
    let text = Paragraph::new(lines).wrap(Wrap { trim: false });
    // What ratatui will draw at this width, wrapped as it wraps.
    let total = text.line_count(inner.width).min(u16::MAX as usize) as u16;
    let most = total.saturating_sub(inner.height);
    let top = top.min(most);
    drawn.details_pane = Some(PaneScroll {
        most,
        shown: inner.height,
    });
    let block = if most > 0 {
        let key = |a: KeyAction| model.keymap.first_key(a).unwrap_or("?");
        let last = top.saturating_add(inner.height).min(total);
        block.title_bottom(Line::styled(
            format!(
                " lines {}-{last} of {total} · {}/{} scroll ",
                top + 1,
                key(KeyAction::DetailsDown),
                key(KeyAction::DetailsUp)
            ),
            theme.muted,
        ))
    } else {
        block
    };
    frame.render_widget(text.scroll((top, 0)).block(block), area);
}

fn heading<'a>(text: &'a str, theme: &Theme) -> Line<'a> {
    Line::styled(text, theme.header)
}

fn kv<'a>(key: &'a str, value: String, theme: &Theme) -> Vec<Span<'a>> {
    vec![
        Span::styled(key, theme.muted),
        Span::raw(" "),
        Span::raw(value),
        Span::raw("  "),
    ]
}

/// `child-cl-rack-1 (index 2, up to 3 machines at once)`.
fn update_group_text(g: &crate::domain::update_groups::GroupRef) -> String {
    if !g.found {
        return format!("{} (no such UpdateGroup)", g.name);
    }
    let mut parts = Vec::new();
    if let Some(i) = g.index {
        parts.push(format!("index {i}"));
    }
    if let Some(c) = g.concurrency {
        parts.push(format!(
            "up to {c} machine{} at once",
            if c == 1 { "" } else { "s" }
        ));
    }
    if parts.is_empty() {
        g.name.clone()
    } else {
        format!("{} ({})", g.name, parts.join(", "))
    }
}

/// The lines of the detail panel for one machine, for `width` cells.
pub(crate) fn detail_lines<'a>(
    r: &'a MachineRow,
    model: &Model,
    history: &History,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let m = &r.machine;
    let mut out: Vec<Line> = Vec::new();
    let wrapped = |out: &mut Vec<Line>, text: &str, indent: usize| {
        for l in format::wrap_indented(text, width, indent) {
            out.push(Line::raw(l));
        }
    };
    let mut first = vec![
        Span::styled(r.state().to_string(), theme.phase),
        Span::raw("  "),
    ];
    first.extend(kv("type", r.machine_type().as_str().into(), theme));
    if let Some(ip) = &m.internal_ip {
        first.extend(kv("ip", ip.clone(), theme));
    }
    if let Some(rel) = &m.release {
        first.extend(kv("release", rel.clone(), theme));
    }
    out.push(Line::from(first));
    if let Some(g) = &r.update_group {
        out.push(Line::from(vec![
            Span::styled("update group", theme.muted),
            Span::raw(" "),
            Span::raw(update_group_text(g)),
        ]));
    }
    if let Some(w) = &r.waiting_on {
        out.push(Line::from(vec![
            Span::styled("waiting on", theme.muted),
            Span::raw(" "),
            Span::styled(w.as_str(), theme.warn),
        ]));
    }
    let node = match (&r.node, &r.node_name) {
        (NodeLink::Found(n), _) => Span::raw(format!(
            "{} ({}, {})",
            n.name,
            if n.ready { "ready" } else { "NOT ready" },
            if n.unschedulable {
                "cordoned"
            } else {
                "schedulable"
            }
        )),
        (NodeLink::NotFound, Some(name)) => Span::styled(
            format!("{name} (not found in the MOSK cluster)"),
            theme.error,
        ),
        _ => Span::styled("none: the machine has no Hostname address yet", theme.warn),
    };
    out.push(Line::from(vec![
        Span::styled("node", theme.muted),
        Span::raw(" "),
        node,
    ]));
    let attempts = match &r.migration_attempts {
        None => "3 (default)".to_string(),
        Some(a) if r.migration_attempts_effective().is_some() => a.clone(),
        Some(a) => format!("{a:?} (not a number: the controller cannot use it)"),
    };
    let mut line = kv("migration mode", mode_text(r), theme);
    line.extend(kv("attempts", attempts, theme));
    out.push(Line::from(line));
    out.push(Line::from(kv(
        "maintenance request",
        match &r.maintenance {
            None => "none".into(),
            Some(req) => {
                let mut s = nmr_text(r, model);
                if Some(&req.name) != r.node_name.as_ref() {
                    s.push_str(&format!(" ({})", req.name));
                }
                s
            }
        },
        theme,
    )));

    // What else blocks it: node removal, disabled, stuck operation, drain error.
    let blockers =
        attention::blockers_for_machine(&model.snapshot, r.name(), r.node_name.as_deref());
    if !blockers.is_empty() {
        out.push(heading("Also blocking", theme));
        for b in &blockers {
            let text = format!("{}: {}", b.kind.label(), b.why);
            for line in format::wrap_indented(&text, width, 2) {
                out.push(Line::styled(line, theme.warn));
            }
        }
    }

    out.push(heading("Locks", theme));
    let blocking = blocking_locks(&model.snapshot);
    if r.locks.is_empty() {
        out.push(Line::styled("  no node lock for this node", theme.muted));
    }
    for l in &r.locks {
        let state_style = match l.lock.state {
            LockState::Failed => theme.error,
            LockState::Inactive => theme.ok,
            _ => theme.warn,
        };
        let key = ObjectKey {
            kind: Kind::NodeWorkloadLock,
            namespace: String::new(),
            name: l.lock.name.clone(),
        };
        let mut spans = vec![
            Span::raw(format!("  {} ", l.lock.controller)),
            Span::styled(l.lock.state.as_str().to_string(), state_style),
        ];
        // How long in this state: "≥" when the console did not see it enter it.
        if let Some(since) = history.lock_since(&key) {
            let bound = if since.observed { "" } else { "≥ " };
            spans.push(Span::styled(
                format!(" for {bound}{}", format::age(model.now, since.at)),
                theme.muted,
            ));
        }
        if blocking.contains(&key) {
            spans.push(Span::styled("  blocks the update", theme.attention));
        }
        if let Some(inner) = &l.lock.inner_state {
            spans.push(Span::styled(format!("  inner {inner}"), theme.muted));
        }
        if let Some(at) = l.message().and_then(|m| m.at) {
            spans.push(Span::styled(
                format!("  checked {} ago", format::age(model.now, at)),
                theme.muted,
            ));
        }
        out.push(Line::from(spans));
        if let Some(msg) = l.message() {
            wrapped(&mut out, &msg.text, 4);
            // The message read: each list of servers under its own heading
            // (MOSK 25.1 tells owners to notify from unset actions).
            for reading in lockmsg::servers::reading(&msg.kind) {
                for line in format::wrap_indented(&format!("> {reading}"), width, 4) {
                    out.push(Line::styled(line, theme.warn));
                }
            }
        }
    }

    out.push(heading("Cluster states", theme));
    if r.cluster_states.is_empty() {
        out.push(Line::styled("  none for this machine", theme.muted));
    }
    for s in &r.cluster_states {
        let done = !pending(s);
        out.push(Line::from(vec![
            Span::raw(format!("  {} ", s.state_type)),
            Span::styled(
                format!(
                    "value {} actual {}",
                    s.value.as_deref().unwrap_or("-"),
                    s.actual_value.as_deref().unwrap_or("-")
                ),
                if done { theme.ok } else { theme.warn },
            ),
            Span::styled(format!("  attempt {}", s.attempt.unwrap_or(0)), theme.muted),
        ]));
        if let Some(msg) = s.message.as_deref().filter(|m| !m.is_empty()) {
            wrapped(&mut out, msg, 4);
        }
    }

    out.push(heading("vRouter", theme));
    if r.vrouter.is_empty() {
        out.push(Line::styled("  no vRouter pod on this node", theme.muted));
    }
    for p in &r.vrouter {
        let (text, style) = match (p.outdated, &p.unknown) {
            (Some(true), _) => ("outdated (restart to update)".to_string(), theme.warn),
            (Some(false), _) => ("up to date".to_string(), theme.ok),
            (None, Some(why)) => (format!("revision unknown: {why}"), theme.muted),
            (None, None) => ("revision unknown".to_string(), theme.muted),
        };
        out.push(Line::from(vec![
            Span::raw(format!("  {} ", p.name)),
            Span::styled(text, style),
            Span::raw(format!(
                "  {}{}",
                if p.ready { "ready" } else { "NOT ready" },
                if p.deleting { ", terminating" } else { "" }
            )),
            Span::styled(format!("  {}", p.phase), theme.muted),
        ]));
    }

    out.push(heading("Recent changes", theme));
    let about: Vec<&Change> = history
        .changes()
        .rev()
        .filter(|c| {
            c.key.name.contains(r.name())
                || r.node_name
                    .as_deref()
                    .is_some_and(|n| c.key.name.contains(n))
        })
        .take(RECENT_CHANGES)
        .collect();
    if about.is_empty() {
        out.push(Line::styled("  none seen", theme.muted));
    }
    for c in about {
        let what = if c.is_added() || c.is_removed() {
            change_text(c)
        } else {
            format!("{}: {}", c.field, change_text(c))
        };
        let text = format!(
            "{:>6}  {what}  {}/{}",
            format::age(model.now, c.at),
            kind_short(c.key.kind),
            c.key.name
        );
        out.push(Line::raw(format::truncate(&text, width)));
    }
    out
}

#[cfg(test)]
#[path = "detail_tests.rs"]
mod tests;
