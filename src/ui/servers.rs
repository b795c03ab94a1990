//! The servers on a node (`crate::app::servers`), drawn over the view:
//! when they were read, whether the last read failed (stale) or was
//! refused, and one row per server with what the controller will do with
//! it, or how the action asked on it stands.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Clear, Paragraph, Row, Table};

use crate::app::model::Model;
use crate::app::servers::ServersPanel;
use crate::config::theme::Theme;
use crate::domain::servers::power_state_words;
use crate::ui::{format, pane};

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, p: &ServersPanel, theme: &Theme) {
    let popup = Rect::new(
        area.x + 1,
        area.y + 1,
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    frame.render_widget(Clear, popup);
    let mode = model
        .snapshot
        .nodes()
        .find(|n| n.name == p.node)
        .and_then(|n| n.migration_mode.clone());
    let mode_text = mode.as_ref().map_or("live (unset)", |m| m.as_str());
    let block = pane(
        format!(" Servers on {} · migration mode {mode_text} ", p.node),
        true,
        theme,
    );
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let n = model.servers.nodes.get(&p.node);
    let mut head: Vec<Line> = Vec::new();
    match n.and_then(|n| n.read.as_ref()) {
        Some((_, at)) => head.push(Line::styled(
            format!(
                "read at {} ({} ago) by openstack server list --host {} in openstack/keystone-client",
                format::clock(*at),
                format::age(model.now, *at),
                p.node
            ),
            theme.muted,
        )),
        None if model.derived.mosk_context.is_mismatch() => head.push(Line::styled(
            "servers unknown: the MOSK context is another cluster's (not read)",
            theme.error,
        )),
        None if n.and_then(|n| n.failed.as_ref()).is_none() => {
            head.push(Line::styled("reading the servers…", theme.muted))
        }
        None => {}
    }
    if let Some((e, at)) = n.and_then(|n| n.failed.as_ref()) {
        let what = if e.refused {
            "REFUSED: the API server refused the exec"
        } else {
            "STALE: the last read failed"
        };
        head.push(Line::styled(
            format!("{what} at {}: {}", format::clock(*at), e.message),
            theme.error,
        ));
    }
    if let Some(n) = n {
        for (name, words) in n.left.values() {
            head.push(Line::styled(format!("{name}: {words}"), theme.ok));
        }
    }
    let head_h = (head.len() as u16).min(inner.height);
    frame.render_widget(
        Paragraph::new(head),
        Rect::new(inner.x, inner.y, inner.width, head_h),
    );
    let table_area = Rect::new(
        inner.x,
        inner.y + head_h,
        inner.width,
        inner.height.saturating_sub(head_h),
    );
    let Some(n) = n.filter(|n| n.read.is_some()) else {
        return;
    };
    // The whole ID where it fits beside the rest.
    let id_w: u16 = if inner.width >= 180 { 36 } else { 13 };
    let header = Row::new(
        [
            "",
            "NAME",
            "ID",
            "PROJECT",
            "STATUS",
            "TASK",
            "POWER",
            "FLAVOR",
            "TAG",
            "CONTROLLER WILL / ASKED",
        ]
        .map(Cell::from),
    )
    .style(theme.header);
    // The cursor's row: none once its server has left the list.
    let at = p
        .under_cursor(n.servers())
        .ok()
        .flatten()
        .and_then(|c| n.servers().iter().position(|s| s.id == c.id));
    let rows: Vec<Row> = n
        .servers()
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mark = format!(
                "{}{}",
                if Some(i) == at { ">" } else { " " },
                if p.selected.contains(&s.id) { "*" } else { " " }
            );
            let will = crate::app::servers::progress(n, s)
                .unwrap_or_else(|| s.controller_will(mode.as_ref()));
            let style = if Some(i) == at {
                theme.row_selected
            } else if s.status == "ERROR" {
                theme.error
            } else {
                theme.base
            };
            Row::new(vec![
                Cell::from(mark),
                Cell::from(s.name.clone()),
                Cell::from(if id_w >= 36 {
                    s.id.clone()
                } else {
                    format::truncate_middle(&s.id, id_w as usize)
                }),
                Cell::from(n.project(&s.project_id)),
                Cell::from(s.status.clone()),
                Cell::from(s.task_state.clone().unwrap_or_else(|| "-".into())),
                Cell::from(power_state_words(s.power_state)),
                Cell::from(s.flavor.clone()),
                Cell::from(s.tag_text()),
                Cell::from(Line::from(Span::raw(will))),
            ])
            .style(style)
        })
        .collect();
    let empty = rows.is_empty();
    let table = Table::new(
        rows,
        [
            Constraint::Length(2),
            Constraint::Min(8),
            Constraint::Length(id_w),
            Constraint::Length(10),
            Constraint::Length(10),
            Constraint::Length(9),
            Constraint::Length(8),
            Constraint::Length(9),
            Constraint::Length(12),
            Constraint::Fill(3),
        ],
    )
    .header(header);
    // Scrolled so the cursor's row is drawn: the keys act on it.
    let mut state = ratatui::widgets::TableState::default().with_selected(at);
    frame.render_stateful_widget(table, table_area, &mut state);
    if empty && table_area.height > 1 {
        frame.render_widget(
            Paragraph::new(Line::styled("no server on this node", theme.muted)),
            Rect::new(table_area.x, table_area.y + 1, table_area.width, 1),
        );
    }
}
