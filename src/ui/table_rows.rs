//! A table's header and rows drawn straight into the frame's buffer, the
//! way ratatui's `Table` draws them (the same column positions, row styles,
//! highlight symbol and highlight style), without a widget per cell.
//!
//! Why not `Table`: it builds a `Cell`, `Text`, `Line` and `Span` for every
//! cell on screen and paints each cell's style before its text; at 200x50
//! with 2,000 machines that was most of a key press's cost (the target is
//! 1 ms for a key press and its frame; docs/PERFORMANCE.md). Text
//! of plain printable ASCII, which is nearly all a table holds, is written
//! a character per cell; anything else goes through ratatui's `Line`, as
//! before. `tests` compares the two buffers cell by cell.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Widget;

/// What to draw: the columns, the header, the rows and the cursor's row.
pub(crate) struct TableRows<'a> {
    /// One constraint per column (all `Length` here).
    pub widths: &'a [Constraint],
    /// Space between columns.
    pub spacing: u16,
    /// Drawn before the cursor's row; its width is kept free on every row.
    pub highlight: &'a str,
    pub header: Vec<String>,
    pub header_style: Style,
    /// Each row's cells and its style.
    pub rows: Vec<(Vec<String>, Style)>,
    /// The cursor's row, an index into `rows`.
    pub selected: Option<usize>,
    pub highlight_style: Style,
}

impl TableRows<'_> {
    /// Draws the header on the first line of `area` and the rows below it,
    /// as many as fit.
    pub(crate) fn draw(&self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        if area.is_empty() {
            return;
        }
        let selection = Line::raw(self.highlight).width() as u16;
        let columns = column_areas(area, selection, self.widths, self.spacing);
        let header_area = Rect { height: 1, ..area };
        buf.set_style(header_area, self.header_style);
        for (col, text) in columns.iter().zip(&self.header) {
            put(buf, col.x, area.y, col.width, text);
        }
        for (i, (cells, style)) in self
            .rows
            .iter()
            .take(area.height.saturating_sub(1) as usize)
            .enumerate()
        {
            let y = area.y + 1 + i as u16;
            let row_area = Rect {
                y,
                height: 1,
                ..area
            };
            buf.set_style(row_area, *style);
            let selected = self.selected == Some(i);
            if selected && selection > 0 {
                put(buf, area.x, y, selection.min(area.width), self.highlight);
            }
            for (col, text) in columns.iter().zip(cells) {
                put(buf, col.x, y, col.width, text);
            }
            if selected {
                buf.set_style(row_area, self.highlight_style);
            }
        }
    }
}

/// The columns' places in `area` (absolute x, width), as `Table` lays
/// them out: the selection column first, then the columns from the left.
fn column_areas(area: Rect, selection: u16, widths: &[Constraint], spacing: u16) -> Vec<Rect> {
    let [_, columns] = Layout::horizontal([Constraint::Length(selection), Constraint::Fill(0)])
        .areas(Rect::new(0, 0, area.width, 1));
    Layout::horizontal(widths.iter().copied())
        .flex(Flex::Start)
        .spacing(spacing)
        .split(columns)
        .iter()
        .map(|c| Rect::new(area.x + c.x, area.y, c.width, 1))
        .collect()
}

/// Writes `text` at (`x`, `y`), at most `width` cells, keeping the cells'
/// styles.
fn put(buf: &mut Buffer, x: u16, y: u16, width: u16, text: &str) {
    if text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        for (i, c) in text.chars().take(width as usize).enumerate() {
            if let Some(cell) = buf.cell_mut((x + i as u16, y)) {
                cell.set_char(c);
            }
        }
    } else {
        Line::raw(text).render(Rect::new(x, y, width, 1), buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Color, Modifier};
    use ratatui::widgets::{Cell, HighlightSpacing, Row, StatefulWidget, Table, TableState};

    /// The same table through ratatui's `Table` and through [`TableRows`].
    fn both(rows: &[(&[&str], Style)], selected: Option<usize>, width: u16) -> (Buffer, Buffer) {
        let widths = [
            Constraint::Length(1),
            Constraint::Length(8),
            Constraint::Length(5),
        ];
        let header = ["", "NAME", "STATE"];
        let (header_style, highlight_style) = (
            Style::new().add_modifier(Modifier::BOLD),
            Style::new().bg(Color::Blue),
        );
        let area = Rect::new(2, 1, width, 5);
        let mut by_table = Buffer::empty(Rect::new(0, 0, width + 4, 7));
        let mut by_rows = by_table.clone();
        let table = Table::new(
            rows.iter().map(|(cells, style)| {
                Row::new(cells.iter().map(|c| Cell::from(c.to_string()))).style(*style)
            }),
            widths,
        )
        .header(Row::new(header).style(header_style))
        .column_spacing(1)
        .row_highlight_style(highlight_style)
        .highlight_symbol(">")
        .highlight_spacing(HighlightSpacing::Always);
        let mut state = TableState::default().with_selected(selected);
        StatefulWidget::render(table, area, &mut by_table, &mut state);
        TableRows {
            widths: &widths,
            spacing: 1,
            highlight: ">",
            header: header.iter().map(|h| h.to_string()).collect(),
            header_style,
            rows: rows
                .iter()
                .map(|(cells, style)| (cells.iter().map(|c| c.to_string()).collect(), *style))
                .collect(),
            selected,
            highlight_style,
        }
        .draw(area, &mut by_rows);
        (by_table, by_rows)
    }

    #[test]
    fn draws_what_the_table_widget_draws() {
        let red = Style::new().fg(Color::Red);
        let rows: [(&[&str], Style); 4] = [
            (&["*", "kaas-node-1", "Ready"], red),
            (&[" ", "名前のノード", "Deploy"], Style::new()),
            (
                &[" ", "e\u{301}t\u{e9}", "x"],
                Style::new().add_modifier(Modifier::DIM),
            ),
            (&[" ", "cut-off-here", "Prepare"], red),
        ];
        for selected in [None, Some(0), Some(1), Some(3)] {
            for width in [30, 12, 3] {
                let (a, b) = both(&rows, selected, width);
                assert_eq!(a, b, "selected {selected:?}, width {width}");
            }
        }
        // More rows than fit: the first ones are drawn, as by the widget.
        let many: Vec<(&[&str], Style)> = (0..9).map(|_| rows[0]).collect();
        let (a, b) = both(&many, Some(2), 30);
        assert_eq!(a, b);
    }
}
