//! The one details modal: Enter on an attention item (Overview), a lock
//! (Locks), a maintenance request (Requests) or a cluster state (States)
//! opens everything the console knows of it over the view, wrapped to the
//! popup's width and scrolled with j/k (the frame reports how far it can
//! scroll: `FrameReport::detail_scroll_max`). Esc closes it.

use crate::ui::Drawn;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::app::modal::DetailOf;
use crate::app::model::Model;
use crate::app::tables::states::applied;
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;
use crate::domain::blocking::blocking_locks;
use crate::domain::join::same_node;
use crate::domain::lockmsg;
use crate::domain::objects::{Kind, LockState, ObjectKey, WorkloadLock};
use crate::ui::{attention, format, pane};

/// The width of the field names.
const LABEL: usize = 11;

/// Draws the details of `of` over `area`, scrolled down `scroll` lines.
pub(crate) fn draw_detail(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    of: &DetailOf,
    scroll: u16,
    theme: &Theme,
    drawn: &mut Drawn,
) {
    let width = area.width.saturating_sub(8).clamp(20, 100).min(area.width);
    let room = width.saturating_sub(2) as usize;
    let (title, lines) = match of {
        DetailOf::Attention(id) => attention::attention_text(model, id, theme),
        DetailOf::Lock(key) => lock_text(model, key, theme),
        DetailOf::Request(key) => request_text(model, key, theme),
        DetailOf::State(key) => state_text(model, key, theme),
    };
    let lines: Vec<Line> = lines.into_iter().flat_map(|l| wrap(l, room)).collect();
    let total = lines.len();
    // As tall as the text, within the view.
    let height = (total.min(u16::MAX as usize - 2) as u16 + 2)
        .min(area.height.saturating_sub(4))
        .max(6)
        .min(area.height);
    let popup = Rect::new(
        area.x + (area.width.saturating_sub(width)) / 2,
        area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    );
    let shown = height.saturating_sub(2) as usize;
    let most = total.saturating_sub(shown).min(u16::MAX as usize) as u16;
    let scroll = scroll.min(most);
    drawn.detail_scroll_max = Some(most);
    // The keys as the keymap binds them.
    let key = |a: KeyAction| model.keymap.first_key(a).unwrap_or("?");
    let close = key(KeyAction::Back);
    let bottom = if most > 0 {
        let first = scroll as usize + 1;
        let last = (scroll as usize + shown).min(total);
        format!(
            " lines {first}-{last} of {total} · {}/{}: scroll · {close}: close ",
            key(KeyAction::Down),
            key(KeyAction::Up)
        )
    } else {
        format!(" {close}: close ")
    };
    frame.render_widget(Clear, popup);
    let block = pane(title, true, theme).title_bottom(Line::styled(bottom, theme.muted));
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), inner);
}

/// One line cut into lines of at most `width` cells: a `label value` line
/// keeps its label and continues under the value; any other continues at
/// its own indentation.
fn wrap(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    if width == 0 || line.width() <= width {
        return vec![line];
    }
    let style = |s: &Span| line.style.patch(s.style);
    let last = line.spans.last().map(style).unwrap_or(line.style);
    if line.spans.len() >= 2 && line.spans[0].width() <= width / 2 {
        let label = line.spans[0].clone();
        let indent = label.width();
        let rest: String = line.spans[1..].iter().map(|s| s.content.as_ref()).collect();
        let mut out = Vec::new();
        for (i, l) in format::wrap_indented(&rest, width, indent)
            .into_iter()
            .enumerate()
        {
            if i == 0 {
                out.push(Line::from(vec![
                    label.clone(),
                    Span::styled(l[indent..].to_string(), last),
                ]));
            } else {
                out.push(Line::styled(l, last));
            }
        }
        return out;
    }
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let indent = text.chars().take_while(|c| *c == ' ').count();
    format::wrap_indented(&text, width, indent.min(width / 2))
        .into_iter()
        .map(|l| Line::styled(l, last))
        .collect()
}

fn field(name: &str, value: impl Into<String>, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<LABEL$} "), theme.muted),
        Span::raw(value.into()),
    ])
}

fn field_styled(
    name: &str,
    value: impl Into<String>,
    style: Style,
    theme: &Theme,
) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<LABEL$} "), theme.muted),
        Span::styled(value.into(), style),
    ])
}

fn gone(what: &str, theme: &Theme) -> Vec<Line<'static>> {
    vec![Line::styled(
        format!("this {what} is no longer in the cluster"),
        theme.muted,
    )]
}

/// `5m12s ago (at 10:28:41)`.
fn ago(model: &Model, at: jiff::Timestamp) -> String {
    format!(
        "{} ago (at {})",
        format::age(model.now, at),
        format::clock(at)
    )
}

/// How long the lock has been in its state: `for 1h01m`, or `for ≥ 5m`
/// when the console started after the transition.
fn lock_for(model: &Model, key: &ObjectKey) -> String {
    match model.history.lock_since(key) {
        Some(s) if s.observed => format!("for {}", format::age(model.now, s.at)),
        Some(s) => format!("for ≥ {}", format::age(model.now, s.at)),
        None => String::new(),
    }
}

/// [`lock_for`] with the time of the transition, or of the first sight.
fn lock_since(model: &Model, key: &ObjectKey) -> String {
    match model.history.lock_since(key) {
        Some(s) if s.observed => {
            format!("{} (since {})", lock_for(model, key), format::clock(s.at))
        }
        Some(s) => format!(
            "{} (already so when first seen, at {})",
            lock_for(model, key),
            format::clock(s.at)
        ),
        None => "since an unknown time".into(),
    }
}

fn lock_state_style(lock: &WorkloadLock, theme: &Theme) -> Style {
    match lock.state {
        LockState::Failed => theme.error,
        LockState::Inactive => theme.ok,
        _ => theme.warn,
    }
}

fn find_lock<'a>(model: &'a Model, key: &ObjectKey) -> Option<&'a WorkloadLock> {
    match key.kind {
        Kind::ClusterWorkloadLock => model.snapshot.cluster_locks().find(|l| l.name == key.name),
        _ => model.snapshot.node_locks().find(|l| l.name == key.name),
    }
}

fn lock_key(kind: Kind, lock: &WorkloadLock) -> ObjectKey {
    ObjectKey {
        kind,
        namespace: String::new(),
        name: lock.name.clone(),
    }
}

/// A lock: controller, node, state and since when, whether the update waits
/// on it, inner state, progress, release, and its whole message read by
/// `domain::lockmsg`.
fn lock_text(model: &Model, key: &ObjectKey, theme: &Theme) -> (String, Vec<Line<'static>>) {
    let title = format!(" {} {} ", key.kind.api_kind(), key.name);
    let Some(lock) = find_lock(model, key) else {
        return (title, gone("lock", theme));
    };
    let blocks = blocking_locks(&model.snapshot).contains(key);
    let mut out = vec![
        field("controller", lock.controller.to_string(), theme),
        field(
            "node",
            lock.node_name
                .clone()
                .unwrap_or_else(|| "- (a cluster lock)".into()),
            theme,
        ),
        field_styled(
            "state",
            format!("{} {}", lock.state.as_str(), lock_since(model, key)),
            lock_state_style(lock, theme),
            theme,
        ),
        if blocks {
            field_styled(
                "blocks",
                match key.kind {
                    Kind::ClusterWorkloadLock => {
                        "yes: a ClusterMaintenanceRequest exists and LCM waits for this lock to become inactive"
                    }
                    _ => {
                        "yes: the node's NodeMaintenanceRequest exists and LCM waits for this lock to become inactive before the drain"
                    }
                },
                theme.attention,
                theme,
            )
        } else {
            field("blocks", "no", theme)
        },
        field(
            "inner state",
            match lock.inner_state.as_deref() {
                // Rockoon's annotation (mosk-lcm-api §2.5).
                Some("active") => "active (the controller is progressing with the node)".into(),
                Some("inactive") => "inactive (the controller finished with the node)".into(),
                Some(s) => s.to_string(),
                None => "-".into(),
            },
            theme,
        ),
        field(
            "progress",
            match (lock.progress_percentage, &lock.progress_description) {
                (Some(p), Some(d)) => format!("{p}%: {d}"),
                (Some(p), None) => format!("{p}%"),
                (None, Some(d)) => d.clone(),
                (None, None) => "-".into(),
            },
            theme,
        ),
        field(
            "release",
            lock.release.clone().unwrap_or_else(|| "-".into()),
            theme,
        ),
        Line::raw(""),
    ];
    match lock.error_message.as_ref().filter(|m| !m.trim().is_empty()) {
        None => out.push(Line::styled("no message", theme.muted)),
        Some(m) => {
            let parsed = m.parsed();
            let head = match parsed.at {
                Some(at) => format!("message, written {}", ago(model, at)),
                None => "message".to_string(),
            };
            out.push(Line::styled(head, theme.header));
            out.push(Line::raw(parsed.text.clone()));
            for reading in lockmsg::servers::reading(&parsed.kind) {
                out.push(Line::styled(format!("> {reading}"), theme.warn));
            }
        }
    }
    (title, out)
}

/// A maintenance request: its spec (requests have no status), when it was
/// made, and the locks it waits on.
fn request_text(model: &Model, key: &ObjectKey, theme: &Theme) -> (String, Vec<Line<'static>>) {
    let title = format!(" {} {} ", key.kind.api_kind(), key.name);
    let snap = &model.snapshot;
    let (node, scope, release, created, deleting) = match key.kind {
        Kind::ClusterMaintenanceRequest => {
            match snap.cluster_requests().find(|r| r.name == key.name) {
                Some(r) => (
                    None,
                    r.scope.clone(),
                    r.release.clone(),
                    r.created,
                    r.deleting,
                ),
                None => return (title, gone("maintenance request", theme)),
            }
        }
        _ => match snap.node_requests().find(|r| r.name == key.name) {
            Some(r) => (
                Some(r.node_name.clone()),
                r.scope.clone(),
                r.release.clone(),
                r.created,
                r.deleting,
            ),
            None => return (title, gone("maintenance request", theme)),
        },
    };
    let mut out = Vec::new();
    if let Some(n) = &node {
        let machine = snap
            .machines()
            .find(|m| m.hostname.as_deref().is_some_and(|h| same_node(h, n)));
        out.push(field("node", n.clone(), theme));
        out.push(field(
            "machine",
            match machine {
                Some(m) => format!("{} ({})", m.name, m.state),
                None => "- (no LCMMachine has this node)".into(),
            },
            theme,
        ));
    }
    // The meaning of each scope: mosk-lcm-api §2.3.
    let scope = match scope.as_deref() {
        Some("os") => "os (the node may be rebooted: instances are evacuated first)".to_string(),
        Some("drain") => "drain (the node is drained, not rebooted)".to_string(),
        Some(s) => s.to_string(),
        None => "- (unset)".to_string(),
    };
    out.push(field("scope", scope, theme));
    out.push(field(
        "release",
        release.unwrap_or_else(|| "-".into()),
        theme,
    ));
    out.push(field(
        "created",
        created.map_or("-".into(), |at| ago(model, at)),
        theme,
    ));
    out.push(if deleting {
        field_styled(
            "terminating",
            "yes (deletion requested: the controllers are handing the node back)",
            theme.muted,
            theme,
        )
    } else {
        field("terminating", "no", theme)
    });
    out.push(field(
        "status",
        "none (maintenance requests have no status)",
        theme,
    ));
    out.push(Line::raw(""));
    let (heading, kind, locks): (&str, Kind, Vec<&WorkloadLock>) = match &node {
        None => (
            "cluster locks",
            Kind::ClusterWorkloadLock,
            snap.cluster_locks().collect(),
        ),
        Some(n) => (
            "the node's locks",
            Kind::NodeWorkloadLock,
            snap.node_locks()
                .filter(|l| l.node_name.as_deref().is_some_and(|x| same_node(x, n)))
                .collect(),
        ),
    };
    out.push(Line::styled(heading, theme.header));
    if locks.is_empty() {
        out.push(Line::styled("  none", theme.muted));
    }
    let blocking = blocking_locks(snap);
    for l in locks {
        let key = lock_key(kind, l);
        let mut spans = vec![
            Span::raw(format!("  {} ", l.controller)),
            Span::styled(
                format!("{} {}", l.state.as_str(), lock_for(model, &key)),
                lock_state_style(l, theme),
            ),
        ];
        if blocking.contains(&key) {
            spans.push(Span::styled("  blocks the update", theme.attention));
        }
        out.push(Line::from(spans));
    }
    (title, out)
}

/// A cluster state: type, machine, what LCM asked and what was applied,
/// attempt, since when its message says what it says, and the message.
fn state_text(model: &Model, key: &ObjectKey, theme: &Theme) -> (String, Vec<Line<'static>>) {
    let title = format!(" LCMClusterState {} ", key.name);
    let Some(s) = model
        .snapshot
        .cluster_states()
        .find(|s| s.namespace == key.namespace && s.name == key.name)
    else {
        return (title, gone("cluster state", theme));
    };
    let dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let mut out = vec![
        field("type", s.state_type.to_string(), theme),
        field("machine", dash(&s.arg), theme),
        field("namespace", s.namespace.clone(), theme),
        field("cluster", s.cluster_name.clone(), theme),
        field_styled(
            "value",
            format!(
                "asked {}, applied {}: {}",
                dash(&s.value),
                dash(&s.actual_value),
                if applied(s) { "done" } else { "pending" }
            ),
            if applied(s) { theme.ok } else { theme.warn },
            theme,
        ),
        field(
            "attempt",
            s.attempt.map_or("-".into(), |a| a.to_string()),
            theme,
        ),
    ];
    let message = s.message.as_deref().filter(|m| !m.trim().is_empty());
    let since = match (message, model.history.message_since(key)) {
        (Some(_), Some(at)) => format!("this message {}", ago(model, at)),
        _ => match model.history.first_seen(key) {
            Some(at) => format!("no message; seen since {}", ago(model, at)),
            None => "-".into(),
        },
    };
    out.push(field("since", since, theme));
    out.push(Line::raw(""));
    match message {
        None => out.push(Line::styled("no message", theme.muted)),
        Some(m) => {
            out.push(Line::styled("message", theme.header));
            out.push(Line::raw(m.to_string()));
        }
    }
    (title, out)
}
