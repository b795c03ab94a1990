//! The generic table renderer: header, rows coloured by tone, the cursor's
//! row highlighted, rows selected with `space` marked `*`, a scrollbar, and
//! a title with counts. Only the rows that fit are turned into widgets, so a
//! table of 2,000 machines costs what a table of 20 does.

use ratatui::Frame;
use ratatui::layout::{Constraint, Margin, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState, Wrap};

use crate::app::freshness::Pane;
use crate::app::model::{Model, TableCursor, View};
use crate::app::tables::{Column, SortKind, ViewTable, Width, shown};
use crate::config::theme::Theme;
use crate::ui::cells;
use crate::ui::format::{truncate, truncate_middle};
use crate::ui::table_rows::TableRows;
use crate::ui::{fresh_pane, tone_style};

/// Space between columns.
const SPACING: u16 = 1;
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

fn cell_width(s: &str) -> u16 {
    s.chars().count().min(u16::MAX as usize) as u16
}

/// A Min column that is not a name grows at most this wide before the Fill
/// columns (messages) reach their content; names grow to their full length.
const GROW_CAP: u16 = 32;
/// What squeezing leaves a column when even the columns that are always
/// shown do not fit: a message keeps this much, a name as much again.
const SQUEEZE_FLOOR: u16 = 8;

/// The room a column is given when it is shown: its declared width, and at
/// least its title. It is read from the column alone, never from the
/// cells, so the columns drawn at a width do not come and go with the data.
fn declared(c: &Column) -> u16 {
    let n = match c.width {
        Width::Fixed(n) | Width::Min(n) | Width::Fill(n) => n,
    };
    n.max(cell_width(c.title))
}

/// Which columns are drawn in `width` cells, in column order: by priority
/// (then from the left) while their [`declared`] widths fit; priority 0
/// always, and the columns in `kept` (the sorted one) as if of priority 0,
/// so they take the place of the least important. The answer depends on
/// the columns, the width and `kept` only: content never adds or drops a
/// column, it is only cut.
pub(crate) fn choose_columns(columns: &[Column], width: u16, kept: &[usize]) -> Vec<usize> {
    let priority = |i: usize| {
        if kept.contains(&i) {
            0
        } else {
            columns[i].priority
        }
    };
    let mut order: Vec<usize> = (0..columns.len()).collect();
    order.sort_by_key(|&i| (priority(i), i));
    let mut chosen: Vec<usize> = Vec::new();
    let mut used: u16 = 0;
    for i in order {
        let need = declared(&columns[i]) + if chosen.is_empty() { 0 } else { SPACING };
        if priority(i) == 0 || used.saturating_add(need) <= width {
            used = used.saturating_add(need);
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    chosen
}

/// How wide each of the `chosen` columns is drawn in `width` cells, in the
/// order of `chosen`. `content` is each column's widest cell among the rows
/// shown: the content decides widths only, never which columns are drawn.
/// 1. each column starts at what it needs: a number column as wide as its
///    widest number (numbers are never cut), the others their content up
///    to their declared width (so a long message does not take the room of
///    another column);
/// 2. when that does not fit, room is taken back: from the messages first,
///    then the other texts, the names last;
/// 3. otherwise they grow towards their content, by priority: names whole,
///    other texts up to [`GROW_CAP`]; then the Fill columns (messages),
///    then everything to its content; what is left goes to the Fill
///    columns (or the last).
pub(crate) fn column_widths(
    columns: &[Column],
    chosen: &[usize],
    content: &[u16],
    width: u16,
) -> Vec<u16> {
    let desired: Vec<u16> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let content = content.get(i).copied().unwrap_or(0);
            // Room for the sort marker after the title.
            content.max(cell_width(c.title) + 1)
        })
        .collect();
    let minimum: Vec<u16> = (0..columns.len())
        .map(|i| {
            let c = &columns[i];
            let declared = declared(c);
            match c.width {
                _ if c.sort == SortKind::Number => desired[i],
                Width::Fixed(n) => n,
                _ => declared.min(desired[i]),
            }
        })
        .collect();
    grow(columns, chosen, &minimum, &desired, width)
}

/// [`choose_columns`] and their [`column_widths`]: (column index, width)
/// in column order. The columns are chosen in `choose_width` cells, the
/// widths in `width` (a scrollbar that comes with more rows takes a cell
/// from the widths, never a column away).
pub(crate) fn layout_columns(
    columns: &[Column],
    content: &[u16],
    choose_width: u16,
    width: u16,
    kept: &[usize],
) -> Vec<(usize, u16)> {
    let chosen = choose_columns(columns, choose_width, kept);
    let widths = column_widths(columns, &chosen, content, width);
    chosen.into_iter().zip(widths).collect()
}

/// Which columns a growth step applies to.
type ColumnTest = dyn Fn(&Column) -> bool;

/// The widths of the `chosen` columns (steps 2 and 3 of [`column_widths`]).
fn grow(
    columns: &[Column],
    chosen: &[usize],
    minimum: &[u16],
    desired: &[u16],
    width: u16,
) -> Vec<u16> {
    let mut widths: Vec<u16> = chosen.iter().map(|&i| minimum[i]).collect();
    let gaps = SPACING * (chosen.len() as u16).saturating_sub(1);
    let used = widths.iter().sum::<u16>() + gaps;
    if used > width {
        squeeze(columns, chosen, &mut widths, used - width);
        return widths;
    }
    let mut left = width - used;
    let is = |k: usize, f: &ColumnTest| f(&columns[chosen[k]]);
    // Names and texts by priority (names whole, texts up to GROW_CAP),
    // then the messages, then everything to its content.
    let named = |c: &Column| matches!(c.width, Width::Min(_));
    let fill = |c: &Column| matches!(c.width, Width::Fill(_));
    let any = |c: &Column| !matches!(c.width, Width::Fixed(_));
    let steps: [(&ColumnTest, bool); 3] = [(&named, true), (&fill, false), (&any, false)];
    for (kind, capped) in steps {
        let mut priorities: Vec<u8> = (0..chosen.len())
            .filter(|&k| is(k, kind))
            .map(|k| columns[chosen[k]].priority)
            .collect();
        priorities.sort_unstable();
        priorities.dedup();
        // Within one priority the names first, then the rest; one cell at
        // a time, so long columns share.
        let tiers = priorities.into_iter().flat_map(|p| [(p, true), (p, false)]);
        for (p, names) in tiers {
            let tier: Vec<usize> = (0..chosen.len())
                .filter(|&k| {
                    let c = &columns[chosen[k]];
                    c.priority == p && is(k, kind) && (!capped || c.keep_end == names)
                })
                .collect();
            while left > 0 {
                let mut grew = false;
                for &k in &tier {
                    let i = chosen[k];
                    let cap = if capped && !columns[i].keep_end {
                        desired[i].min(GROW_CAP.max(minimum[i]))
                    } else {
                        desired[i]
                    };
                    if left > 0 && widths[k] < cap {
                        widths[k] += 1;
                        left -= 1;
                        grew = true;
                    }
                }
                if !grew {
                    break;
                }
            }
        }
    }
    // The rest goes to the Fill columns (or the last column).
    let fills: Vec<usize> = (0..chosen.len()).filter(|&k| is(k, &fill)).collect();
    if !fills.is_empty() {
        let each = left / fills.len() as u16;
        for (n, &k) in fills.iter().enumerate() {
            widths[k] += if n == 0 {
                each + left % fills.len() as u16
            } else {
                each
            };
        }
    } else if let Some(last) = widths.last_mut() {
        *last += left;
    }
    widths
}

/// Takes `over` cells from the columns (step 2 of [`column_widths`]): the
/// messages (Fill columns) down to [`SQUEEZE_FLOOR`], then the other texts
/// down to their titles, then the names down to twice the floor. Numbers
/// keep their width. What cannot be taken is left to the terminal's edge.
fn squeeze(columns: &[Column], chosen: &[usize], widths: &mut [u16], mut over: u16) {
    let floor = |c: &Column| -> Option<u16> {
        if c.sort == SortKind::Number {
            None
        } else if matches!(c.width, Width::Fill(_)) {
            Some(SQUEEZE_FLOOR)
        } else if c.keep_end {
            Some(2 * SQUEEZE_FLOOR)
        } else {
            Some(cell_width(c.title))
        }
    };
    let rank = |c: &Column| -> u8 {
        if matches!(c.width, Width::Fill(_)) {
            0
        } else if c.keep_end {
            2
        } else {
            1
        }
    };
    for round in 0..3u8 {
        while over > 0 {
            let mut took = false;
            for (k, &i) in chosen.iter().enumerate() {
                let c = &columns[i];
                if rank(c) != round {
                    continue;
                }
                if let Some(f) = floor(c)
                    && over > 0
                    && widths[k] > f
                {
                    widths[k] -= 1;
                    over -= 1;
                    took = true;
                }
            }
            if !took {
                break;
            }
        }
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
pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, view: View, theme: &Theme) {
    // The demo's actions reached only the simulator: the Audit view says so.
    let title = match view {
        View::Audit if model.session.demo.is_some() => "Audit: SIMULATED (demo)",
        _ => view.title(),
    };
    draw_titled(frame, area, model, view, title, theme);
}

pub(crate) fn draw_titled(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    view: View,
    name: &str,
    theme: &Theme,
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
    draw_table(frame, area, model, view, name, table, theme);
}

fn draw_table(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    view: View,
    name: &str,
    table: &ViewTable,
    theme: &Theme,
) {
    // The rows selected with `space` are counted in the title.
    let counted;
    let name = match model.selected_nodes.len() {
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
    crate::ui::record_drawn(|d| {
        d.table_columns = Some((view, layout.iter().map(|&(i, _)| i).collect()));
    });

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
    let mut drawn = TableRows {
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
        drawn.selected = None;
        drawn.draw(h, frame.buffer_mut());
        frame.render_widget(Paragraph::new(Line::styled(msg, theme.muted)), rest);
        return;
    }

    drawn.rows = window
        .iter()
        .map(|&r| {
            let r = &data.rows[r];
            let marked = marking
                && r.node
                    .as_ref()
                    .is_some_and(|n| model.selected_nodes.contains(n));
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
    drawn.draw(body, frame.buffer_mut());

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
    use crate::app::tables::{SortKind, TableRow, Tone};

    fn c(title: &'static str, width: Width, priority: u8) -> Column {
        Column {
            title,
            width,
            sort: SortKind::Text,
            priority,
            keep_end: false,
        }
    }

    #[test]
    fn narrow_tables_drop_low_priority_columns_first() {
        let cols = vec![
            c("NAME", Width::Min(10), 0),
            c("EXTRA", Width::Fixed(20), 3),
            c("STATE", Width::Fixed(8), 0),
            c("WHY", Width::Fill(20), 0),
        ];
        let row = TableRow {
            id: "a".into(),
            cells: vec![
                "a-name".into(),
                "x".into(),
                "Ready".into(),
                "w".repeat(50).into(),
            ],
            search: String::new(),
            tone: Tone::Normal,
            node: None,
            keys: Vec::new(),
        };
        let content: Vec<u16> = row.cells.iter().map(|c| c.width()).collect();
        let wide = layout_columns(&cols, &content, 100, 100, &[]);
        assert_eq!(
            wide.iter().map(|x| x.0).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        assert_eq!(wide.iter().map(|x| x.1 + 1).sum::<u16>() - 1, 100);
        let narrow = layout_columns(&cols, &content, 50, 50, &[]);
        assert_eq!(
            narrow.iter().map(|x| x.0).collect::<Vec<_>>(),
            vec![0, 2, 3]
        );
        // NAME is only as wide as its content; WHY takes the rest.
        assert_eq!(narrow[0].1, 6);
        assert_eq!(narrow[2].1, 50 - 6 - 8 - 2);
    }

    #[test]
    fn the_columns_chosen_depend_on_the_width_not_the_content() {
        let cols = vec![
            c("NAME", Width::Min(10), 0),
            c("EXTRA", Width::Fixed(20), 3),
            c("STATE", Width::Fixed(8), 0),
            c("WHY", Width::Fill(20), 0),
            c("LAST", Width::Min(6), 2),
        ];
        // 10 + 8 + 20 and their gaps; then LAST (priority 2) before EXTRA.
        assert_eq!(choose_columns(&cols, 40, &[]), vec![0, 2, 3]);
        assert_eq!(choose_columns(&cols, 47, &[]), vec![0, 2, 3, 4]);
        assert_eq!(choose_columns(&cols, 67, &[]), vec![0, 2, 3, 4]);
        assert_eq!(choose_columns(&cols, 68, &[]), vec![0, 1, 2, 3, 4]);
        // Whatever the cells hold, the same columns at a width; only the
        // widths follow the content.
        for content in [[0u16; 5], [50; 5], [3, 90, 2, 200, 1]] {
            let layout = layout_columns(&cols, &content, 47, 47, &[]);
            let chosen: Vec<usize> = layout.iter().map(|x| x.0).collect();
            assert_eq!(chosen, vec![0, 2, 3, 4], "content {content:?}");
        }
        // Priority 0 is drawn even where it does not fit.
        assert_eq!(choose_columns(&cols, 10, &[]), vec![0, 2, 3]);
    }

    #[test]
    fn the_sorted_column_takes_the_place_of_the_least_important() {
        let cols = vec![
            c("NAME", Width::Min(10), 0),
            c("EXTRA", Width::Fixed(20), 3),
            c("STATE", Width::Fixed(8), 0),
            c("WHY", Width::Fill(20), 0),
            c("LAST", Width::Min(6), 2),
        ];
        assert_eq!(choose_columns(&cols, 47, &[]), vec![0, 2, 3, 4]);
        // Sorted by EXTRA: LAST goes, EXTRA is drawn (squeezed if need be).
        assert_eq!(choose_columns(&cols, 47, &[1]), vec![0, 1, 2, 3]);
        let layout = layout_columns(&cols, &[5, 1, 5, 9, 1], 47, 47, &[1]);
        assert_eq!(layout.iter().map(|x| x.1 + 1).sum::<u16>() - 1, 47);
        // Sorted by a column drawn anyway: nothing changes.
        assert_eq!(choose_columns(&cols, 47, &[4]), vec![0, 2, 3, 4]);
    }

    #[test]
    fn a_number_column_is_as_wide_as_its_widest_number() {
        let number = Column {
            sort: SortKind::Number,
            ..c("#", Width::Fixed(3), 5)
        };
        let cols = vec![number, c("WHY", Width::Fill(20), 0)];
        // One-digit numbers: `#▲` needs 2 cells, whatever was declared.
        let layout = layout_columns(&cols, &[1, 20], 23, 23, &[0]);
        assert_eq!(layout, vec![(0, 2), (1, 20)]);
        // Four digits are never cut.
        let layout = layout_columns(&cols, &[4, 20], 23, 23, &[0]);
        assert_eq!(layout, vec![(0, 4), (1, 18)]);
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
        // The # column is as wide as its widest number.
        let layout = layout_columns(&[number, text], &[4, 30], 40, 40, &[]);
        assert_eq!(layout[0], (0, 4));
    }

    #[test]
    fn the_window_follows_the_cursor() {
        assert_eq!(window_offset(None, 10), 0);
        assert_eq!(window_offset(Some(9), 10), 0);
        assert_eq!(window_offset(Some(10), 10), 1);
        assert_eq!(window_offset(Some(1999), 20), 1980);
    }
}
