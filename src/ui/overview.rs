//! The Overview: source and target release, the update phase and why, the
//! progress gauge with elapsed time and ETA, the cluster locks, the
//! attention queue (oldest first, highlighted), the machines being worked on
//! and the last lines of the lcm-controller log.

use crate::ui::Drawn;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph};

use crate::app::derive::Derived;
use crate::app::freshness::{self, Pane};
use crate::app::model::Model;
use crate::app::tables::plan_steps::{plan_state, shown_plan};
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;
use crate::domain::action::ActionId;
use crate::domain::join::MachineRow;
use crate::domain::objects::LockState;
use crate::domain::update_plan::{self, PlanState};
use crate::ui::attention::{draw_attention, lead_item_lines};
use crate::ui::cells::state_text;
use crate::ui::format::{self, duration_secs};
use crate::ui::{fresh_pane, logs, pane, plain_line, ready};

/// From this width the Overview uses two columns.
const TWO_COLUMNS: u16 = 140;

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme, drawn: &mut Drawn) {
    let d = &model.derived;
    let update_height = update_text_lines(model) + 3;
    let working = working_on(d);
    if area.width >= TWO_COLUMNS {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(area);
        let [up, att] =
            Layout::vertical([Constraint::Length(update_height), Constraint::Fill(1)]).areas(left);
        let work_height = match ready::pane_height(model) {
            0 => working.len().max(1) as u16 + 2,
            h => h,
        }
        .min(right.height / 2);
        let [work, log] =
            Layout::vertical([Constraint::Length(work_height), Constraint::Fill(1)]).areas(right);
        draw_update(frame, up, model, d, theme);
        draw_attention(frame, att, model, d, theme, drawn);
        draw_working_or_ready(frame, work, model, &working, theme);
        draw_log(frame, log, model, theme);
        return;
    }
    let rest = area.height.saturating_sub(update_height);
    let lead = lead_item_lines(d, area.width.saturating_sub(2) as usize).len() as u16;
    let att_want = d.attention.len().max(1) as u16 + 2 + lead;
    let work_want = match ready::pane_height(model) {
        0 => working.len().max(1) as u16 + 2,
        h => h,
    };
    // The attention queue first; the log gets what is left (if 3 lines or more).
    let att_height = att_want.min(rest.saturating_sub(3).max(3));
    let work_height = work_want.min(rest.saturating_sub(att_height));
    let log_height = rest.saturating_sub(att_height + work_height);
    let [up, att, work, log] = Layout::vertical([
        Constraint::Length(update_height),
        Constraint::Length(att_height),
        Constraint::Length(work_height),
        Constraint::Length(log_height),
    ])
    .areas(area);
    draw_update(frame, up, model, d, theme);
    draw_attention(frame, att, model, d, theme, drawn);
    if work_height >= 3 {
        draw_working_or_ready(frame, work, model, &working, theme);
    }
    if log_height >= 3 {
        draw_log(frame, log, model, theme);
    }
}

/// The machines in their turn: under a maintenance request, or in an
/// active state (deploying, reconfiguring, upgrading, rebooting: the one
/// list, `MachineState::is_active`).
fn working_on(d: &Derived) -> Vec<&MachineRow> {
    d.rows
        .iter()
        .filter(|r| r.maintenance.is_some() || r.state().is_active())
        .collect()
}

/// How many text lines the update pane has (the gauge line comes after
/// them): release, phase, one per cluster lock (at least one).
fn update_text_lines(model: &Model) -> u16 {
    let plan_line = u16::from(shown_plan(model).is_some());
    let mismatch = 2 * u16::from(model.derived.mosk_context.is_mismatch());
    2 + plan_line + mismatch + model.snapshot.cluster_locks().count().max(1) as u16
}

/// The update plan's one line (`update plan: paused before step 2 "ceph"
/// (waiting for commence)`), with the commence key when a step waits.
fn plan_line(model: &Model, stale: &str, width: usize, theme: &Theme) -> Option<Line<'static>> {
    let p = shown_plan(model)?;
    let state = plan_state(model);
    let style = match &state {
        PlanState::AutoPaused { .. } | PlanState::Failed { .. } => theme.error,
        PlanState::NotStarted | PlanState::PausedBefore { .. } => theme.attention,
        PlanState::Done => theme.ok,
        PlanState::Running { .. } => theme.phase,
    };
    let text = format!("{}{stale}", update_plan::summary(p, &state));
    let key = model
        .keymap
        .first_key(KeyAction::Act(ActionId::CommenceStep));
    let hint = match (&state, key) {
        (PlanState::NotStarted | PlanState::PausedBefore { .. }, Some(k))
            if !model.session.read_only =>
        {
            format!("  {k}: commence")
        }
        _ => String::new(),
    };
    let room = width.saturating_sub(hint.chars().count());
    Some(Line::from(vec![
        Span::styled(format::truncate(&text, room), style),
        Span::styled(hint, theme.key_hint),
    ]))
}

/// `(stale)` after a claim whose pane's data is stale.
const STALE: &str = " (stale)";

/// `loading: 15 of 18 lists; waiting for nodes, lcmmachines`.
fn loading_text(model: &Model, listed: usize, total: usize) -> String {
    let waiting: Vec<&str> = crate::domain::objects::Kind::ALL
        .iter()
        .filter(|k| !model.freshness.get(k).is_some_and(|f| f.listed))
        .map(|k| k.plural())
        .collect();
    format!(
        "loading: {listed} of {total} lists; waiting for {}",
        waiting.join(", ")
    )
}

fn draw_update(frame: &mut Frame, area: Rect, model: &Model, d: &Derived, theme: &Theme) {
    let block = fresh_pane(" Update ", false, model, Pane::Update, area, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut lines: Vec<Line> = Vec::new();
    let stale = if freshness::is_stale(model, Pane::Update) {
        STALE
    } else {
        ""
    };

    let session = &model.session;
    if session.cluster_name.is_empty() {
        lines.push(Line::styled(
            "cluster: not chosen yet: choose the one to follow",
            theme.attention,
        ));
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    }
    let cluster = model
        .snapshot
        .lcm_clusters()
        .find(|c| c.name == session.cluster_name)
        .or_else(|| model.snapshot.lcm_clusters().next());
    lines.push(match cluster {
        None => Line::styled(
            format::truncate(
                &format!(
                    "release: not known: LCMCluster {}/{} not seen in the management context {}",
                    session.namespace, session.cluster_name, session.mgmt_context
                ),
                inner.width as usize,
            ),
            theme.warn,
        ),
        Some(c) => {
            let cur = c.current_release.as_deref().unwrap_or("?");
            let tgt = c.target_release.as_deref().unwrap_or("?");
            if cur == tgt {
                Line::from(vec![
                    Span::styled("release ", theme.muted),
                    Span::raw(cur.to_string()),
                    Span::styled("  (current = target)", theme.muted),
                ])
            } else {
                Line::from(vec![
                    Span::styled("release ", theme.muted),
                    Span::raw(cur.to_string()),
                    Span::raw(" -> "),
                    Span::styled(tgt.to_string(), theme.phase),
                ])
            }
        }
    });

    // A MOSK context of another cluster is said first, loading or not.
    let mismatch = mismatch_lines(model, inner.width as usize, theme);
    let mismatched = !mismatch.is_empty();
    lines.extend(mismatch);

    // Until every watch has listed once, no claim about the cluster: an
    // empty snapshot would read as "idle" and "0/0 machines done".
    if let Some((listed, total)) = freshness::loading(model) {
        lines.push(Line::styled(
            format::truncate(&loading_text(model, listed, total), inner.width as usize),
            theme.warn,
        ));
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    }

    let unclaimed = if mismatched {
        Some((
            "phase: not known: the MOSK context is another cluster's",
            theme.error,
        ))
    } else if cluster.is_none() {
        Some((
            "phase: not known until the cluster's LCMCluster is seen",
            theme.warn,
        ))
    } else {
        None
    };
    lines.push(match &d.phase {
        None => {
            let (text, style) = unclaimed.unwrap_or(("phase: not known yet", theme.muted));
            Line::styled(format::truncate(text, inner.width as usize), style)
        }
        Some(info) => {
            let phase = match info.number() {
                Some(n) => format!("phase {n}/5 {}{stale}", info.name()),
                None => format!("{}{stale}", info.name()),
            };
            // Done: the wrap-up is offered, with its command.
            let wrapup = if info.phase == crate::domain::phase::Phase::Done {
                "  :wrapup: wrap up"
            } else {
                ""
            };
            let room = (inner.width as usize)
                .saturating_sub(phase.chars().count() + 2 + wrapup.chars().count());
            Line::from(vec![
                Span::styled(phase, theme.phase),
                Span::styled(
                    format!(": {}", format::truncate(&info.reason, room)),
                    theme.muted,
                ),
                Span::styled(wrapup, theme.key_hint),
            ])
        }
    });

    lines.extend(plan_line(model, stale, inner.width as usize, theme));

    let mut locks: Vec<_> = model.snapshot.cluster_locks().collect();
    locks.sort_by(|a, b| a.controller.as_str().cmp(b.controller.as_str()));
    if locks.is_empty() {
        lines.push(Line::styled("cluster locks: none seen", theme.muted));
    }
    for l in locks {
        let style = match l.state {
            LockState::Failed => theme.error,
            LockState::Inactive => theme.ok,
            _ => theme.base,
        };
        let mut spans = vec![
            Span::styled("cluster lock ", theme.muted),
            Span::raw(format!("{:<15}", l.controller)),
            Span::styled(format!("{:<9}", l.state.as_str()), style),
        ];
        if let (Some(p), Some(desc)) = (l.progress_percentage, &l.progress_description) {
            spans.push(Span::raw(format!("{p}% {desc}  ")));
        }
        if let Some(m) = l.error_message.as_deref().filter(|m| !m.is_empty()) {
            spans.push(Span::styled(m.to_string(), theme.warn));
        }
        lines.push(Line::from(spans));
    }
    let text_height = (lines.len() as u16).min(inner.height);
    frame.render_widget(
        Paragraph::new(lines),
        Rect::new(inner.x, inner.y, inner.width, text_height),
    );
    if inner.height <= text_height {
        return;
    }

    // The gauge and the clocks on the last line.
    let y = inner.y + text_height;
    let unknown = match &d.progress {
        None => Some(match unclaimed {
            Some(_) => "progress: not known until the cluster's objects are seen",
            None => "progress: not known yet",
        }),
        // Nothing to count is not "all done": no bar drawn full.
        Some(p) if p.total == 0 && p.disabled == 0 => {
            Some("progress: not known: no LCMMachine of the cluster seen")
        }
        Some(_) => None,
    };
    let Some(p) = d.progress.as_ref().filter(|_| unknown.is_none()) else {
        let text = format::truncate(unknown.unwrap_or_default(), inner.width as usize);
        frame.render_widget(
            Paragraph::new(Line::styled(text, theme.muted)),
            Rect::new(inner.x, y, inner.width, 1),
        );
        return;
    };
    let gauge_width = (inner.width / 3).clamp(20, 40);
    let label = if p.disabled > 0 {
        // Disabled machines are ignored in all calculations (reference §5.3).
        format!(
            "{}/{} done, {} disabled{stale}",
            p.done, p.total, p.disabled
        )
    } else {
        format!("{}/{} machines done{stale}", p.done, p.total)
    };
    frame.render_widget(
        Gauge::default()
            .gauge_style(theme.gauge)
            .ratio(p.ratio())
            .label(Span::raw(label))
            .use_unicode(true),
        Rect::new(inner.x, y, gauge_width.min(inner.width), 1),
    );
    let elapsed = p
        .elapsed
        .map(|e| format!("elapsed {}", duration_secs(e.as_secs())))
        .unwrap_or_else(|| "no update running".into());
    // While something holds the update, the wait is the news: how long,
    // on what; the ETA is then what is left after it.
    // While something holds the update, the wait is the news: the ETA is
    // what is left once it ends.
    let blocked = blocked_text(model, p);
    let eta = match (p.updating, p.eta, blocked) {
        (false, _, _) => String::new(),
        (true, Some(e), Some((wait, on))) => format!(
            "  ETA: {wait}, then {}{stale} ({}) {on}",
            duration_secs(e.as_secs()),
            crate::domain::progress::eta_basis(p)
        ),
        (true, None, Some((wait, on))) => format!("  ETA: {wait} {on}"),
        (true, Some(e), None) => format!(
            "  ETA {}{stale} ({})",
            duration_secs(e.as_secs()),
            crate::domain::progress::eta_basis(p)
        ),
        (true, None, None) => "  ETA not known yet".into(),
    };
    let x = inner.x + gauge_width + 2;
    if x < inner.right() {
        frame.render_widget(
            Paragraph::new(Line::raw(format!("{elapsed}{eta}"))),
            Rect::new(x, y, inner.right() - x, 1),
        );
    }
}

/// The MOSK context is another cluster's: two lines naming both contexts,
/// the cluster and what was compared; empty otherwise.
fn mismatch_lines(model: &Model, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let crate::domain::which_cluster::MoskContextCheck::Mismatch(m) = &model.derived.mosk_context
    else {
        return Vec::new();
    };
    let s = &model.session;
    [
        format!(
            "MOSK context {} is not cluster {}/{}: writes are refused",
            s.mosk_context, s.namespace, s.cluster_name
        ),
        format!(
            "in management context {}, the cluster's LCMMachines name {} nodes, none of its {} (e.g. {})",
            s.mgmt_context, m.machine_nodes, m.nodes, m.a_node
        ),
    ]
    .into_iter()
    .map(|t| Line::styled(format::truncate(&t, width), theme.error))
    .collect()
}

/// (`blocked 28m00s`, `on child-cl-compute-3 (manual migration)`): what
/// holds the update and for how long. The line puts durations first: a
/// long name may be cut at its end.
fn blocked_text(model: &Model, p: &crate::domain::progress::Progress) -> Option<(String, String)> {
    let b = p.blocked.as_ref().filter(|_| p.updating)?;
    Some((
        format!(
            "blocked {}{}",
            format::since_mark(b.at_least, b.inferred),
            format::age(model.now, b.since)
        ),
        format!("on {} ({})", b.subject, b.kind.label()),
    ))
}

/// While no update runs, the readiness checks take the place of the
/// machines in their turn (a machine under a request left over is one of
/// the checks' findings).
fn draw_working_or_ready(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    working: &[&MachineRow],
    theme: &Theme,
) {
    if ready::pane_height(model) > 0 {
        ready::draw_pane(frame, area, model, theme);
    } else {
        draw_working(frame, area, model, working, theme);
    }
}

fn draw_working(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    working: &[&MachineRow],
    theme: &Theme,
) {
    let loading = freshness::loading(model).is_some();
    let title = if loading {
        " Being worked on ".to_string()
    } else {
        format!(" Being worked on ({}) ", working.len())
    };
    let block = fresh_pane(title, false, model, Pane::Working, area, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if loading || working.is_empty() {
        let text = if loading {
            "loading: not known until every list is in"
        } else if freshness::is_stale(model, Pane::Working) {
            "no machine seen in its turn (stale)"
        } else {
            "no machine is in its turn"
        };
        frame.render_widget(Paragraph::new(Line::styled(text, theme.muted)), inner);
        return;
    }
    let name_width = working
        .iter()
        .map(|r| r.name().chars().count())
        .max()
        .unwrap_or(0);
    let lines: Vec<Line> = working
        .iter()
        .map(|r| {
            let state = state_text(r, &model.history, model);
            let waiting = r.waiting_on.as_deref().unwrap_or("in progress");
            let text = format!("{:<name_width$}  {state:<13}  {waiting}", r.name());
            Line::raw(format::truncate(&text, inner.width as usize))
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

fn draw_log(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let title = logs::overview_title(&model.logs, &model.keymap, theme);
    let block = pane(title, false, theme).title_bottom(Line::styled(
        format!(" {} ", model.logs.status),
        theme.muted,
    ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines = logs::tail(
        &model.logs,
        inner.height as usize,
        inner.width as usize,
        theme,
    );
    if lines.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(logs::overview_empty(&model.logs), theme.muted)),
            inner,
        );
    } else {
        // Already cut to the width, one screen line each: set straight into
        // the buffer (a Paragraph reflows every line again, on every frame).
        let buf = frame.buffer_mut();
        for (y, line) in (inner.y..inner.bottom()).zip(&lines) {
            plain_line::set_line(buf, inner.x, y, line, inner.width);
        }
    }
}
