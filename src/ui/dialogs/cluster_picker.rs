//! The cluster picker ([`crate::app::cluster_picker`]): the MOSK clusters
//! of the management context, one per line, the cursor's marked `>`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::frame_box;
use crate::app::cluster_picker::ClusterPicker;
use crate::app::model::Model;
use crate::config::keymap::KeyAction;
use crate::config::theme::Theme;
use crate::ui::format;

const WIDTH: u16 = 76;

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, p: &ClusterPicker, theme: &Theme) {
    let s = &model.session;
    let n = p.clusters.len();
    // One line each, cut (never wrapped) to the box's width.
    let room = area.width.min(WIDTH).saturating_sub(2) as usize;
    let intro: Vec<Line> = [
        (
            format!(
                "Management context {}: {n} MOSK clusters (LCMClusters).",
                s.mgmt_context
            ),
            theme.base,
        ),
        (
            "Choose the one to follow; nothing of it is watched until then.".to_string(),
            theme.base,
        ),
        (
            format!(
                "Its machines are checked against the MOSK context {}.",
                s.mosk_context
            ),
            theme.muted,
        ),
    ]
    .into_iter()
    .map(|(t, style)| Line::styled(format::truncate(&t, room), style))
    .collect();
    let intro_rows = intro.len() as u16;
    let note_rows = u16::from(p.note.is_some());
    // The intro, a blank line, the clusters, the note, the keys.
    let wanted = intro_rows + 1 + n as u16 + note_rows + 1 + 2;
    let inner = frame_box(
        frame,
        area,
        WIDTH,
        wanted,
        Line::styled(" Which MOSK cluster? ", theme.title),
        theme,
    );
    let [intro_area, _, list_area, note_area, keys_area] = Layout::vertical([
        Constraint::Length(intro_rows),
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(note_rows),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(intro), intro_area);
    // The cursor's line stays in view.
    let rows = list_area.height as usize;
    let first = (p.cursor + 1).saturating_sub(rows.max(1));
    let width = list_area.width as usize;
    let lines: Vec<Line> = p
        .clusters
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, c)| {
            let text = format::truncate(
                &format!("{} {c}", if i == p.cursor { ">" } else { " " }),
                width,
            );
            if i == p.cursor {
                Line::styled(format!("{text:<width$}"), theme.row_selected)
            } else {
                Line::raw(text)
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), list_area);
    if let Some(note) = &p.note {
        frame.render_widget(
            Paragraph::new(Line::styled(format::truncate(note, width), theme.warn)),
            note_area,
        );
    }
    let key = |a: KeyAction| model.keymap.first_key(a).unwrap_or_default().to_string();
    let mut spans = Vec::new();
    for (k, what) in [
        (
            format!("{}/{}", key(KeyAction::Down), key(KeyAction::Up)),
            "move",
        ),
        (key(KeyAction::Open), "follow this cluster"),
        (key(KeyAction::Help), "help"),
        (key(KeyAction::Quit), "quit"),
    ] {
        if !spans.is_empty() {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::styled(k, theme.key_hint));
        spans.push(Span::raw(format!(" {what}")));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), keys_area);
}
