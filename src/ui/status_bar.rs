//! The status bar: both contexts, the namespace and cluster, watch health,
//! the age of the last event and the log follower's state.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::model::Model;
use crate::config::theme::Theme;
use crate::domain::objects::Kind;
use crate::ui::format;

/// `watches 10/10 ok`, `2 degraded: nodes (connection refused, 12s)`,
/// `watches 8/10 ok, 2 starting`, with missing CRDs counted apart.
pub(crate) fn watch_summary(model: &Model) -> String {
    let watched: Vec<Kind> = Kind::ALL
        .into_iter()
        .filter(|k| !model.missing_kinds.contains_key(k))
        .collect();
    let mut ok = 0;
    let mut starting = 0;
    let mut degraded: Vec<(Kind, String)> = Vec::new();
    for k in &watched {
        match model.health.get(k) {
            None => starting += 1,
            Some(h) if h.connected && h.last_error.is_none() => ok += 1,
            Some(h) => {
                let err = h.last_error.clone().unwrap_or_else(|| {
                    if h.connected {
                        "degraded".into()
                    } else {
                        "disconnected".into()
                    }
                });
                let since = h
                    .last_event
                    .map(|t| format!(", {}", format::age(model.now, t)))
                    .unwrap_or_default();
                degraded.push((*k, format!("{} ({err}{since})", k.plural())));
            }
        }
    }
    let mut s = if degraded.is_empty() {
        format!("watches {ok}/{} ok", watched.len())
    } else {
        let first = &degraded[0].1;
        let more = if degraded.len() > 1 {
            format!(" +{}", degraded.len() - 1)
        } else {
            String::new()
        };
        format!("{} degraded: {first}{more}", degraded.len())
    };
    if starting > 0 && !degraded.is_empty() {
        s.push_str(&format!(", {starting} starting"));
    } else if starting > 0 {
        s.push_str(&format!(", {starting} starting"));
    }
    if !model.missing_kinds.is_empty() {
        s.push_str(&format!(", {} CRD missing", model.missing_kinds.len()));
    }
    s
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let s = &model.session;
    let degraded = model
        .health
        .values()
        .any(|h| !h.connected || h.last_error.is_some());
    let sep = || Span::raw(" │ ");
    let mut spans = vec![
        Span::raw(format!(
            " mgmt: {}  mosk: {}",
            s.mgmt_context, s.mosk_context
        )),
        sep(),
        Span::raw(format!("{}/{}", s.namespace, s.cluster_name)),
        sep(),
    ];
    let watch = watch_summary(model);
    spans.push(if degraded {
        Span::styled(watch, theme.status_bar.patch(theme.warn))
    } else {
        Span::raw(watch)
    });
    spans.push(sep());
    spans.push(Span::raw(match model.last_event {
        Some(t) => format!("last event {} ago", format::age(model.now, t)),
        None => "no event yet".into(),
    }));
    spans.push(sep());
    spans.push(Span::raw(format!("log: {}", model.logs.status)));
    frame.render_widget(
        Paragraph::new(Line::from(spans)).style(theme.status_bar),
        area,
    );
}
