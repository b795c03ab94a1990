//! Setting a line of text into the frame's buffer, as ratatui's
//! `Buffer::set_line` does, with a shortcut for printable ASCII.
//!
//! Why not only ratatui's: it cuts every string into grapheme clusters and
//! measures each one's width, about 60 ns a character. The Overview's log
//! tail is a pane of 200-column lines drawn on every frame (once a second
//! while the update runs), and that cutting was a fifth of the console's
//! drawing on `large`. A span of printable ASCII is one cell per byte, so
//! it is written straight into the cells; any other span (a non-ASCII
//! character, a control character) goes through ratatui's own path. The
//! buffer comes out the same either way: a test compares them.

use ratatui::buffer::Buffer;
use ratatui::text::Line;

/// `Buffer::set_line`: `line` at (`x`, `y`), at most `max_width` cells, the
/// line's style patched by each span's; the position after the last cell
/// written.
pub fn set_line(buf: &mut Buffer, x: u16, y: u16, line: &Line<'_>, max_width: u16) -> (u16, u16) {
    let mut remaining = max_width;
    let mut x = x;
    for span in line {
        if remaining == 0 {
            break;
        }
        let style = line.style.patch(span.style);
        let text = span.content.as_ref();
        let printable = text.bytes().all(|b| (0x20..0x7f).contains(&b));
        let next = if printable && y >= buf.area.top() && y < buf.area.bottom() {
            let room = buf.area.right().saturating_sub(x).min(remaining);
            let n = text.len().min(usize::from(room));
            if n > 0 {
                let start = buf.index_of(x, y);
                for (cell, b) in buf.content[start..start + n].iter_mut().zip(text.bytes()) {
                    cell.set_char(char::from(b)).set_style(style);
                }
            }
            // `n` fits in u16: it is at most `room`.
            x + n as u16
        } else {
            buf.set_stringn(x, y, text, usize::from(remaining), style).0
        };
        remaining = remaining.saturating_sub(next.saturating_sub(x));
        x = next;
    }
    (x, y)
}

#[cfg(test)]
mod tests {
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Modifier, Style};
    use ratatui::text::Span;

    use super::*;

    fn both(line: &Line<'_>, x: u16, width: u16) {
        let area = Rect::new(2, 1, 30, 3);
        let mut ours = Buffer::empty(area);
        let mut theirs = Buffer::empty(area);
        // A background already there, as a block's style leaves it.
        for b in [&mut ours, &mut theirs] {
            b.set_style(area, Style::new().bg(Color::Blue));
        }
        let a = set_line(&mut ours, x, 2, line, width);
        let b = theirs.set_line(x, 2, line, width);
        assert_eq!(a, b, "position after {line:?} at {x} in {width}");
        assert_eq!(ours, theirs, "{line:?} at {x} in {width}");
    }

    #[test]
    fn the_buffer_is_as_ratatuis_set_line_leaves_it() {
        let lines = [
            Line::from("10:25:02 INFO  machine state changed machine=child-cl-compute-1"),
            Line::from(vec![
                Span::styled("10:28:02 ", Style::new().fg(Color::DarkGray)),
                Span::styled(
                    "WARN  ",
                    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
                ),
                Span::raw("cordon-drain is not done yet attempt=4"),
            ])
            .style(Style::new().fg(Color::White).remove_modifier(Modifier::DIM)),
            // Not ASCII, wide, a control character: ratatui's path.
            Line::from(vec![
                Span::raw("nœud "),
                Span::raw("節点 "),
                Span::raw("tab\there "),
                Span::raw("after"),
            ]),
            Line::from(vec![Span::raw(""), Span::raw("x"), Span::raw("")]),
            Line::from(""),
        ];
        for line in &lines {
            for (x, width) in [
                (2, 30),
                (2, 10),
                (5, 40),
                (20, 100),
                (31, 5),
                (32, 5),
                (2, 0),
            ] {
                both(line, x, width);
            }
        }
    }
}
