//! Readiness: the checks to read before an update (`domain::readiness`).
//! The view (`:ready`) shows each check's verdict and what it found, its
//! evidence and its source; the Overview, while no update runs, shows one
//! line per check in place of the machines being worked on.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::freshness::Pane;
use crate::app::model::{Model, View};
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;
use crate::domain::readiness::{Check, Verdict};
use crate::ui::{Drawn, format, fresh_pane};

fn style(theme: &Theme, v: Verdict) -> Style {
    match v {
        Verdict::Ok => theme.ok,
        Verdict::Warning => theme.warn,
        Verdict::Blocking => theme.error,
        Verdict::Unknown => theme.attention,
    }
}

/// `1 blocking, 2 warning, 3 unknown` (or `all ok`).
fn counts(checks: &[Check]) -> String {
    let n = |v: Verdict| checks.iter().filter(|c| c.verdict == v).count();
    let parts: Vec<String> = [Verdict::Blocking, Verdict::Warning, Verdict::Unknown]
        .into_iter()
        .filter(|v| n(*v) > 0)
        .map(|v| format!("{} {}", n(v), v.label()))
        .collect();
    if parts.is_empty() {
        "all ok".into()
    } else {
        parts.join(", ")
    }
}

fn verdict_span(theme: &Theme, v: Verdict) -> Span<'static> {
    Span::styled(format!("{:<8} ", v.label()), style(theme, v))
}

/// The Readiness view.
pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme, drawn: &mut Drawn) {
    let checks = model
        .derived
        .readiness
        .as_ref()
        .map_or(&[][..], |r| &r.checks[..]);
    let title = format!(" Readiness: {} ", counts(checks));
    let block = fresh_pane(title, false, model, Pane::View(View::Ready), area, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // Wrapped here, continuation lines under the text after the verdict.
    let width = inner.width as usize;
    let mut lines: Vec<Line> = Vec::new();
    if let Some(p) = model
        .derived
        .phase
        .as_ref()
        .filter(|_| !model.derived.no_update_runs())
    {
        let text = format!(
            "An update runs ({}): these checks are the ones to read before it starts.",
            p.name()
        );
        for l in format::wrap_indented(&text, width, 0) {
            lines.push(Line::styled(l, theme.attention));
        }
    }
    for c in checks {
        let head = format!("{}: {}", c.id.title(), c.summary);
        for (i, l) in format::wrap_indented(&head, width, INDENT)
            .into_iter()
            .enumerate()
        {
            lines.push(if i == 0 {
                Line::from(vec![
                    verdict_span(theme, c.verdict),
                    Span::raw(l[INDENT..].to_string()),
                ])
            } else {
                Line::raw(l)
            });
        }
        for e in &c.evidence {
            for l in format::wrap_indented(&format!("· {e}"), width, INDENT) {
                lines.push(Line::raw(l));
            }
        }
        let source = format!("source: {}", c.id.source());
        for l in format::wrap_indented(&source, width, INDENT) {
            lines.push(Line::styled(l, theme.muted));
        }
    }
    let most = lines.len().saturating_sub(inner.height as usize);
    let most = most.min(u16::MAX as usize) as u16;
    drawn.ready_scroll_max = Some(most);
    let scroll = model.views.ready.scroll.min(most as usize) as u16;
    frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), inner);
}

/// Where the text after a verdict starts.
const INDENT: usize = 9;

/// The Overview's pane while no update runs: one line per check, the
/// blocking ones first.
pub(crate) fn draw_pane(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let Some(r) = model.derived.readiness.as_ref() else {
        return;
    };
    let key = model
        .keymap
        .first_key(KeyAction::ViewReady)
        .map(|k| format!(" ({k}: details)"))
        .unwrap_or_default();
    let title = format!(" Readiness: {}{key} ", counts(&r.checks));
    let block = fresh_pane(title, false, model, Pane::Readiness, area, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    let title_width = r
        .checks
        .iter()
        .map(|c| c.id.title().chars().count())
        .max()
        .unwrap_or(0);
    // What needs the operator first: the pane is cut on a small terminal.
    let mut checks: Vec<&Check> = r.checks.iter().collect();
    checks.sort_by_key(|c| match c.verdict {
        Verdict::Blocking => 0,
        Verdict::Warning => 1,
        Verdict::Unknown => 2,
        Verdict::Ok => 3,
    });
    let lines: Vec<Line> = checks
        .into_iter()
        .map(|c| {
            let text = format!("{:<title_width$}  {}", c.id.title(), c.summary);
            Line::from(vec![
                verdict_span(theme, c.verdict),
                Span::raw(format::truncate(&text, width.saturating_sub(9))),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Lines the Overview's pane needs (borders included), 0 when not shown.
pub(crate) fn pane_height(model: &Model) -> u16 {
    match &model.derived.readiness {
        Some(r) if model.derived.no_update_runs() => r.checks.len() as u16 + 2,
        _ => 0,
    }
}
