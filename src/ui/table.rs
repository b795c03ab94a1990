//! The generic table renderer: header, rows coloured by tone, the cursor's
//! row highlighted, rows selected with `space` marked `*`, a scrollbar, and
//! a title with counts. Only the rows that fit are turned into widgets, so a
//! table of 2,000 machines costs what a table of 20 does. Which columns are
//! drawn and how wide is decided in `columns`.

mod columns;

use crate::ui::Drawn;
use ratatui::Frame;
use ratatui::layout::{Constraint, Margin, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState, Wrap};

use crate::app::freshness::Pane;
use crate::app::model::{Model, TableCursor, View};
use crate::app::tables::{Column, SortKind, ViewTable, shown};
use crate::config::theme::Theme;
use crate::ui::cells;
use crate::ui::format::{truncate, truncate_middle};
use crate::ui::table_rows::TableRows;
use crate::ui::{fresh_pane, tone_style};
use columns::{SPACING, cell_width, layout_columns};

/// The cursor's row marker.
const HIGHLIGHT: &str = ">";

/// The title: `Machines (12/30, filter: "wor")`, or `Machines (30)`.
pub(crate) fn title(name: &str, shown: usize, total: usize, filter: &str) -> String {
    if filter.trim().is_empty() {
        format!(" {name} ({total}) ")
    } else {
        format!(" {name} ({shown}/{total}, filter: \"{filter}\") ")
    }
}

/// The first row shown so that `selected` is on screen with `height` rows.
pub(crate) fn window_offset(selected: Option<usize>, height: usize) -> usize {
    match selected {
        Some(s) if height > 0 && s >= height => s + 1 - height,
        _ => 0,
    }
}

/// Draws the table `update` settled for `view`, with the view's cursor.
pub(crate) fn draw(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    view: View,
    theme: &Theme,
    drawn: &mut Drawn,
) {
    // The demo's actions reached only the simulator: the Audit view says so.
    let title = match view {
        View::Audit if model.session.demo.is_some() => "Audit: SIMULATED (demo)",
        _ => view.title(),
    };
    draw_titled(frame, area, model, view, title, theme, drawn);
}

pub(crate) fn draw_titled(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    view: View,
    name: &str,
    theme: &Theme,
    drawn: &mut Drawn,
) {
    let Some(table) = shown(model, view) else {
        // Not settled for this view yet: say so rather than "no rows".
        let block = fresh_pane(
            format!(" {name} "),
            false,
            model,
            Pane::View(view),
            area,
            theme,
        );
        let inner = block.inner(area);
        frame.render_widget(block, area);
        frame.render_widget(Paragraph::new(Line::styled("loading…", theme.muted)), inner);
        return;
    };
    draw_table(frame, area, model, view, name, table, theme, drawn);
}

// One caller; the frame, the place, the model, the view and its name, its
// table, the theme and the frame's report are what drawing a table takes.
#[allow(clippy::too_many_arguments)]
fn draw_table(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    view: View,
    name: &str,
    table: &ViewTable,
    theme: &Theme,
    drawn: &mut Drawn,
) {
    // The rows selected with `space` are counted in the title.
    let counted;
    let name = match model.selected_nodes().len() {
        0 => name,
        n => {
            counted = format!("{name} · {n} selected");
            counted.as_str()
        }
    };
    let data = &table.data;
    let cursor = model.cursor(view);
    let rows = &table.order;
    let block = fresh_pane(
        title(name, rows.len(), data.rows.len(), &cursor.filter),
        !model.modals.overlay_open(),
        model,
        Pane::View(view),
        area,
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 || inner.width == 0 {
        return;
    }

    // Missing CRDs and empty tables say so instead of showing nothing.
    let mut body = inner;
    if !data.missing.is_empty() {
        let lines: Vec<Line> = data
            .missing
            .iter()
            .map(|m| Line::styled(m.as_str(), theme.error))
            .collect();
        if data.rows.is_empty() {
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
            return;
        }
        let n = (lines.len() as u16).min(body.height.saturating_sub(2));
        let [top, rest] =
            ratatui::layout::Layout::vertical([Constraint::Length(n), Constraint::Fill(1)])
                .areas(body);
        frame.render_widget(Paragraph::new(lines), top);
        body = rest;
    }
    if data.rows.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                cells::empty_text(model, &data.empty),
                theme.muted,
            ))
            .wrap(Wrap { trim: true }),
            body,
        );
        return;
    }

    let marking = data.rows.iter().any(|r| r.node.is_some());
    let mark_width = if marking { 1 + SPACING } else { 0 };
    let highlight_width = HIGHLIGHT.chars().count() as u16;
    let height = body.height.saturating_sub(1) as usize;
    let scroll_room = u16::from(rows.len() > height);
    let choose_width = body.width.saturating_sub(mark_width + highlight_width);
    let columns_width = choose_width.saturating_sub(scroll_room);
    // The rows that fit; the cursor's row among them.
    let selected = table.selected(&cursor);
    let offset = window_offset(selected, height);
    let window = &rows[offset..(offset + height).min(rows.len())];
    // Ages are measured as drawn, on the rows on screen only.
    let mut content = table.content_widths.clone();
    for &r in window {
        for (i, c) in data.rows[r].cells.iter().enumerate() {
            if c.timed()
                && let Some(w) = content.get_mut(i)
            {
                *w = (*w).max(cell_width(&cells::text(model, c)));
            }
        }
    }
    // The sorted column is never dropped, nor the one a fresh cursor sorts
    // by: `s` moves only among the columns drawn, so a column drawn only
    // while it is sorted by would vanish at the first `s` for good.
    let kept = [TableCursor::default().sort_column, cursor.sort_column];
    let layout = layout_columns(&data.columns, &content, choose_width, columns_width, &kept);
    drawn.table_columns = Some((view, layout.iter().map(|&(i, _)| i).collect()));

    let sort_mark = if cursor.sort_reverse { "▼" } else { "▲" };
    let mut header: Vec<String> = Vec::new();
    if marking {
        header.push(String::new());
    }
    for &(i, w) in &layout {
        let c = &data.columns[i];
        let mut t = if i == cursor.sort_column {
            // A column narrower than its title and the marker keeps the
            // marker and cuts the title (`VALU▲`).
            let room = (w as usize).saturating_sub(1).max(1);
            let title: String = c.title.chars().take(room).collect();
            format!("{title}{sort_mark}")
        } else {
            c.title.to_string()
        };
        if cursor.group_column == Some(i) {
            // Grouped by this column (the group-by key).
            t.push('≡');
        }
        header.push(t);
    }
    let widths = constraints(marking, &layout);
    let mut rows_drawn = TableRows {
        widths: &widths,
        spacing: SPACING,
        highlight: HIGHLIGHT,
        header,
        header_style: theme.header,
        rows: Vec::new(),
        selected: selected.map(|s| s - offset),
        highlight_style: theme.row_selected,
    };

    if rows.is_empty() {
        let msg = format!("no rows match the filter \"{}\"", cursor.filter);
        let [h, rest] =
            ratatui::layout::Layout::vertical([Constraint::Length(1), Constraint::Fill(1)])
                .areas(body);
        rows_drawn.selected = None;
        rows_drawn.draw(h, frame.buffer_mut());
        frame.render_widget(Paragraph::new(Line::styled(msg, theme.muted)), rest);
        return;
    }

    rows_drawn.rows = window
        .iter()
        .map(|&r| {
            let r = &data.rows[r];
            let marked = marking
                && r.node
                    .as_ref()
                    .is_some_and(|n| model.selected_nodes().contains(n));
            let mut style = tone_style(theme, r.tone);
            if marked {
                style = style.patch(theme.row_marked);
            }
            let mut cells: Vec<String> = Vec::with_capacity(layout.len() + 1);
            if marking {
                cells.push(if marked { "*" } else { " " }.to_string());
            }
            for &(i, w) in &layout {
                let text = r
                    .cells
                    .get(i)
                    .map(|c| cells::text(model, c))
                    .unwrap_or_default();
                cells.push(fit(&data.columns[i], &text, w as usize));
            }
            (cells, style)
        })
        .collect();
    rows_drawn.draw(body, frame.buffer_mut());

    if rows.len() > height {
        let mut sb = ScrollbarState::new(rows.len().saturating_sub(height))
            .position(offset)
            .viewport_content_length(height);
        frame.render_stateful_widget(
            Scrollbar::new(ScrollbarOrientation::VerticalRight)
                .begin_symbol(None)
                .end_symbol(None)
                .style(theme.border),
            area.inner(Margin {
                horizontal: 0,
                vertical: 1,
            }),
            &mut sb,
        );
    }
}

/// A cell's text cut to `width`: a number never (its column is as wide as
/// its widest number); a name (a column of names, or any one-word text with
/// a `-` such as `nwl/openstack-kaas-node-<uuid>`) keeps its distinguishing
/// end (`nwl/openstack-…-4ea7b4dee161`); other text is cut at the end.
fn fit(column: &Column, text: &str, width: usize) -> String {
    if column.sort == SortKind::Number {
        return text.to_string();
    }
    let one_name = text.contains('-') && !text.contains(char::is_whitespace);
    if column.keep_end || one_name {
        truncate_middle(text, width)
    } else {
        truncate(text, width)
    }
}

fn constraints(marking: bool, layout: &[(usize, u16)]) -> Vec<Constraint> {
    let mut out = Vec::new();
    if marking {
        out.push(Constraint::Length(1));
    }
    out.extend(layout.iter().map(|&(_, w)| Constraint::Length(w)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tables::Width;

    /// A text column (the width solver's tests in `columns` use it too).
    pub(super) fn c(title: &'static str, width: Width, priority: u8) -> Column {
        Column {
            title,
            width,
            sort: SortKind::Text,
            priority,
            keep_end: false,
        }
    }

    #[test]
    fn names_keep_their_end_numbers_are_whole_and_sentences_cut_at_the_end() {
        let text = c("MESSAGE", Width::Fill(10), 0);
        let number = Column {
            sort: SortKind::Number,
            ..c("#", Width::Fixed(3), 5)
        };
        assert_eq!(
            fit(&text, "cz7505-child-cl-compute-xqrn4", 16),
            "cz7505-c…e-xqrn4"
        );
        assert_eq!(fit(&text, "lock openstack active", 10), "lock open…");
        assert_eq!(fit(&text, "tungstenfabric", 10), "tungstenf…");
        assert_eq!(fit(&number, "2000", 3), "2000");
    }

    #[test]
    fn the_window_follows_the_cursor() {
        assert_eq!(window_offset(None, 10), 0);
        assert_eq!(window_offset(Some(9), 10), 0);
        assert_eq!(window_offset(Some(10), 10), 1);
        assert_eq!(window_offset(Some(1999), 20), 1980);
    }
}
