//! Which columns a table draws and how wide: pure, from the columns, the
//! width and (for the widths only) each column's widest cell. Which
//! columns are drawn at a width never depends on the cells, so they do not
//! come and go with the data; the content only decides how wide each drawn
//! column is and where a cell is cut.

use crate::app::tables::{Column, SortKind, Width};

/// Space between columns.
pub(super) const SPACING: u16 = 1;

pub(super) fn cell_width(s: &str) -> u16 {
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
pub(super) fn choose_columns(columns: &[Column], width: u16, kept: &[usize]) -> Vec<usize> {
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
pub(super) fn column_widths(
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
pub(super) fn layout_columns(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tables::{TableRow, Tone};
    use crate::ui::table::tests::c;

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
}
