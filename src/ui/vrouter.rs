//! The vRouter view: per DaemonSet, UP-TO-DATE against CURRENT as a gauge
//! (with the counters written out), then one row per pod.

use crate::ui::Drawn;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph};

use crate::app::freshness::Pane;
use crate::app::model::{Model, View};
use crate::app::tables;
use crate::config::theme::Theme;
use crate::domain::objects::Kind;
use crate::domain::vrouter::{DaemonSetStatus, RestartPolicy};
use crate::ui::{fresh_pane, table};

/// `converging: 3 outdated, …` / `done: …`. Asks the operator to restart
/// only when the target release restarts vRouter pods by hand (before MOSK
/// 22.4); says so when it cannot tell.
fn verdict(ds: &DaemonSetStatus, policy: &RestartPolicy) -> String {
    let (unknown, why) = ds.unknown();
    if !ds.observed || (ds.outdated_count() == 0 && unknown > 0) {
        let why = why.map_or_else(|| "its controller is behind".to_string(), |w| w.to_string());
        return format!("unknown: {unknown} pod(s) cannot be told current or outdated: {why}");
    }
    if ds.up_to_date() {
        return "done: every pod runs the current template".into();
    }
    let n = ds.outdated_count();
    if n == 0 {
        return format!(
            "converging: the controller counts UP-TO-DATE {} of CURRENT {}; every pod seen runs the current template",
            ds.updated, ds.current
        );
    }
    match policy {
        RestartPolicy::Manual(v) => {
            format!("converging: {n} outdated; MOSK {v}: restart them one node at a time")
        }
        RestartPolicy::Automatic(v) => {
            format!("converging: {n} outdated; MOSK {v} restarts them automatically")
        }
        RestartPolicy::Unknown(_) => {
            format!("{n} outdated: check whether your release restarts vRouter automatically")
        }
    }
}

/// `tf-vrouter-agent  UP-TO-DATE 1 / CURRENT 4  desired 4  ready 4`.
fn counters(ds: &DaemonSetStatus) -> String {
    format!(
        "{}  UP-TO-DATE {} / CURRENT {}  desired {}  ready {}",
        ds.name, ds.updated, ds.current, ds.desired, ds.ready
    )
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme, drawn: &mut Drawn) {
    // Settled by `update` while this view is shown.
    // Borrowed, not cloned: each DaemonSet holds its pods (2,000 on a
    // large cluster), and this runs on every key press.
    let unknown = RestartPolicy::Unknown(None);
    let (sets, policy): (&[DaemonSetStatus], &RestartPolicy) = match &model.derived.vrouter {
        Some(v) => (&v.daemonsets, &v.policy),
        // Not settled for this view (never in the runtime): nothing claimed.
        None => (&[], &unknown),
    };
    let missing = tables::shown(model, View::Vrouter).and_then(|t| t.data.missing.first().cloned());
    // Three lines per DaemonSet (counters, gauge, verdict), at most a third
    // of the screen.
    let want = (sets.len().max(1) * 3) as u16;
    let summary_height = (want + 2).min(area.height / 3).max(3);
    let [top, rest] =
        Layout::vertical([Constraint::Length(summary_height), Constraint::Fill(1)]).areas(area);
    let block = fresh_pane(
        " vRouter DaemonSets ",
        false,
        model,
        Pane::View(View::Vrouter),
        top,
        theme,
    );
    let inner = block.inner(top);
    frame.render_widget(block, top);
    if sets.is_empty() {
        let text = missing.unwrap_or_else(|| {
            format!(
                "no tf-vrouter DaemonSet seen yet ({})",
                crate::ui::cells::watch_state(model, &[Kind::VrouterDaemonSet])
            )
        });
        frame.render_widget(Paragraph::new(Line::styled(text, theme.muted)), inner);
    }
    // Counters, gauge and verdict of each DaemonSet, as far as they fit.
    let rows = sets.iter().flat_map(|ds| [(ds, 0), (ds, 1), (ds, 2)]);
    for (i, (ds, part)) in rows.take(inner.height as usize).enumerate() {
        let r = Rect::new(inner.x, inner.y + i as u16, inner.width, 1);
        match part {
            0 => frame.render_widget(Paragraph::new(Line::raw(counters(ds))), r),
            1 => {
                let ratio = if ds.current > 0 {
                    (ds.updated as f64 / ds.current as f64).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                let label = format!("{}/{} up to date", ds.updated, ds.current);
                frame.render_widget(
                    Gauge::default()
                        .gauge_style(theme.gauge)
                        .ratio(ratio)
                        .label(Span::raw(label))
                        .use_unicode(true),
                    r,
                );
            }
            _ => {
                let style = if ds.up_to_date() && ds.observed && ds.unknown().0 == 0 {
                    theme.ok
                } else {
                    theme.warn
                };
                frame.render_widget(Paragraph::new(Line::styled(verdict(ds, policy), style)), r);
            }
        }
    }
    table::draw_titled(
        frame,
        rest,
        model,
        View::Vrouter,
        "vRouter pods",
        theme,
        drawn,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::fixtures;
    use crate::domain::vrouter::{MoskVersion, daemonsets};

    #[test]
    fn verdict_prompts_by_target_version() {
        let ds = &daemonsets(&fixtures::mid_update())[0];
        let v = |year, minor| MoskVersion { year, minor };
        assert_eq!(
            verdict(ds, &RestartPolicy::Manual(v(22, 2))),
            "converging: 3 outdated; MOSK 22.2: restart them one node at a time"
        );
        assert_eq!(
            verdict(ds, &RestartPolicy::Automatic(v(25, 1))),
            "converging: 3 outdated; MOSK 25.1 restarts them automatically"
        );
        assert_eq!(
            verdict(ds, &RestartPolicy::Unknown(None)),
            "3 outdated: check whether your release restarts vRouter automatically"
        );
    }
}
