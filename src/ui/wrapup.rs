//! The wrap-up view (`:wrapup`): after the update, what the update guide
//! leaves to the operator. Three panes: the vRouter DaemonSets as
//! `kubectl -n tf get ds` counts them (UP-TO-DATE must equal CURRENT; the
//! pods the console finds outdated by the DaemonSet controller's rule,
//! `domain::vrouter`), the migration settings (mode, attempts) this console
//! changed (from the audit log) with their restore, and the checklist of the remaining steps.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::freshness::Pane;
use crate::app::model::{Model, View};
use crate::app::views::wrapup::{Row, selected};
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;
use crate::domain::action::ActionId;
use crate::domain::phase::Phase;
use crate::domain::vrouter;
use crate::domain::wrapup::{Previous, RestoreOffer, Step, restore_offer, setting_name, shown};
use crate::sanitize::sanitize;
use crate::ui::{format, fresh_pane, pane};

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let ds = vrouter::daemonsets(&model.snapshot);
    let changes = &model.actions.setting_changes;
    // The vRouter pane and the checklist take what they need; the settings the rest.
    let vr_height = 2 * ds.len().max(1) as u16 + 3;
    let steps_height = Step::ALL.len() as u16 + 2;
    let [status, top, mid, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(vr_height),
        Constraint::Fill(1),
        Constraint::Length(steps_height),
    ])
    .areas(area);
    let cursor = selected(&model.views.wrapup, changes.len());
    let width = |r: Rect| r.width.saturating_sub(2) as usize;

    // Whether the update is done: the wrap-up is for after it.
    let (text, style) = match model.derived.phase.as_ref().map(|p| p.phase) {
        Some(Phase::Done) => (
            "the update is done: what the update guide leaves to do after it",
            theme.ok,
        ),
        Some(_) => (
            "the update is not done yet: these steps are for after it",
            theme.warn,
        ),
        None => (
            "the update's phase is not known yet: these steps are for after it",
            theme.muted,
        ),
    };
    frame.render_widget(
        Paragraph::new(Line::styled(
            format::truncate(text, area.width as usize),
            style,
        )),
        status,
    );

    // vRouter pods.
    let block = fresh_pane(
        " vRouter pods (kubectl -n tf get ds) ",
        false,
        model,
        Pane::View(View::Wrapup),
        top,
        theme,
    );
    let inner = block.inner(top);
    frame.render_widget(block, top);
    let mut lines = vec![Line::styled(
        format::truncate(
            &format!(
                "{:<28} {:>7} {:>7} {:>10}",
                "NAME", "DESIRED", "CURRENT", "UP-TO-DATE"
            ),
            width(top),
        ),
        theme.header,
    )];
    if ds.is_empty() {
        lines.push(Line::styled(
            "no vRouter DaemonSet seen (no Tungsten Fabric, or not listed yet)",
            theme.muted,
        ));
    }
    for d in &ds {
        let (unknown, _) = d.unknown();
        let (verdict, style) = if !d.observed || unknown > 0 {
            (
                "unknown: the DaemonSet controller has not counted the latest spec".to_string(),
                theme.warn,
            )
        } else if d.up_to_date() {
            ("UP-TO-DATE = CURRENT".to_string(), theme.ok)
        } else {
            let n = d.outdated_count();
            let key = model
                .keymap
                .first_key(KeyAction::Act(ActionId::RestartAllVrouters))
                .unwrap_or("");
            (
                format!("{n} pod(s) outdated: restart them in the vRouter view ({key})"),
                theme.error,
            )
        };
        lines.push(Line::raw(format!(
            "{:<28} {:>7} {:>7} {:>10}",
            format::truncate(&sanitize(&d.name), 28),
            d.desired,
            d.current,
            d.updated
        )));
        lines.push(Line::styled(format!("  {verdict}"), style));
    }
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|l| truncate_line(l, width(top)))
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);

    // Migration settings.
    let block = pane(
        " Migration settings this console changed (audit log) ",
        false,
        theme,
    );
    let inner = block.inner(mid);
    frame.render_widget(block, mid);
    let mut lines = Vec::new();
    let mut chosen_at = None;
    if let Some(n) = &model.actions.read_back_note {
        lines.push(Line::styled(format::truncate(n, width(mid)), theme.warn));
    }
    if changes.is_empty() {
        lines.push(Line::styled(
            "none: this console changed no migration setting on this cluster",
            theme.muted,
        ));
    }
    for (i, c) in changes.iter().enumerate() {
        let offer = restore_offer(&model.snapshot, c);
        let previous = match &c.previous {
            Previous::Recorded(p) => shown(p.as_deref()),
            Previous::NotRecorded => "not recorded".into(),
        };
        let style = match offer {
            RestoreOffer::Offered { .. } => theme.attention,
            RestoreOffer::Restored | RestoreOffer::Unchanged => theme.ok,
            _ => theme.warn,
        };
        // Two lines a setting: the node's names are long (kaas-node-<uuid>).
        let first = format!(
            "{}  {} {} -> {}  ({})",
            sanitize(&c.node),
            setting_name(&c.key),
            previous,
            shown(c.set_to.as_deref()),
            c.time.strftime("%m-%d %H:%M")
        );
        let second = format!("  {}", offer.describe());
        let chosen = cursor == Row::Setting(i);
        if chosen {
            chosen_at = Some(lines.len());
        }
        for (text, style) in [(first, theme.base), (second, style)] {
            let line = Line::styled(format::truncate(&text, width(mid)), style);
            lines.push(if chosen {
                line.style(theme.row_selected)
            } else {
                line
            });
        }
    }
    // Scrolled so the setting under the cursor is drawn whole: `r` acts on it.
    let scroll = chosen_at.map_or(0, |at| (at + 2).saturating_sub(inner.height as usize));
    frame.render_widget(Paragraph::new(lines).scroll((scroll as u16, 0)), inner);

    // Checklist.
    let ticked = &model.views.wrapup.ticked;
    let block = pane(
        format!(
            " After the update: {}/{} done ",
            ticked.len(),
            Step::ALL.len()
        ),
        false,
        theme,
    );
    let inner = block.inner(bottom);
    frame.render_widget(block, bottom);
    let mut lines = Vec::new();
    for step in Step::ALL {
        let mark = match ticked.get(&step) {
            Some(t) => format!("[x] {}", t.strftime("%H:%M")),
            None => "[ ]      ".to_string(),
        };
        let text = format!("{mark}  {}  ({})", step.text(), step.source());
        let style = if ticked.contains_key(&step) {
            theme.ok
        } else {
            theme.base
        };
        let line = Line::styled(format::truncate(&text, width(bottom)), style);
        lines.push(if cursor == Row::Step(step) {
            line.style(theme.row_selected)
        } else {
            line
        });
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Cuts a line of spans to `max` characters.
fn truncate_line(line: Line<'static>, max: usize) -> Line<'static> {
    let mut left = max;
    let spans: Vec<Span> = line
        .spans
        .into_iter()
        .filter_map(|s| {
            if left == 0 {
                return None;
            }
            let n = s.content.chars().count();
            let content = if n > left {
                format::truncate(&s.content, left)
            } else {
                s.content.to_string()
            };
            left = left.saturating_sub(n);
            Some(Span::styled(content, s.style))
        })
        .collect();
    Line::from(spans).style(line.style)
}
