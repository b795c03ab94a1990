//! Rendering: one file per view, overlay or bar; a pure function of the
//! model. Every string drawn comes from the model (the cluster layer has
//! sanitized it) or is a fixed label of the console.

mod attention;
pub mod cells;
pub mod dialogs;
pub mod format;

mod detail;
mod detail_text;
mod footer;
mod help;
mod input;
mod logs;
mod overview;
mod plain_line;
mod ready;
mod servers;
mod stale_mark;
mod status_bar;
mod table;
mod table_rows;
mod tabs;
mod update_plan;
mod vrouter;
mod wrapup;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::app::frame::FrameReport;
use crate::app::freshness;
use crate::app::modal::Modal;
use crate::app::model::{Model, View};
use crate::app::tables::Tone;
use crate::config::theme::Theme;

/// The smallest terminal the console draws in.
pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

/// Draws the whole screen from the model.
pub fn draw(frame: &mut Frame, model: &Model, theme: &Theme) {
    draw_reported(frame, model, theme);
}

/// Draws the whole screen from the model and reports what keys may act on
/// (the runtime sends it back to `update` as `Msg::Drawn`).
pub fn draw_reported(frame: &mut Frame, model: &Model, theme: &Theme) -> FrameReport {
    let area = frame.area();
    if !blank(theme.base) {
        frame.render_widget(Block::new().style(theme.base), area);
    }
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        draw_too_small(frame, area, model, theme);
        return FrameReport {
            too_small: true,
            ..FrameReport::default()
        };
    }
    let [tab_area, body, status_area, footer_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Length(footer::height(model, area.width)),
    ])
    .areas(area);

    tabs::draw(frame, tab_area, model, theme);
    let mut drawn = Drawn::default();
    draw_view(frame, body, model, theme, &mut drawn);
    status_bar::draw(frame, status_area, model, theme);
    if !model.modals.iter().any(|m| m.input().is_some()) {
        footer::draw(frame, footer_area, model, theme);
    }
    // The modal stack, bottom to top; an action dialog over the whole area.
    let mut confirm_view = None;
    for modal in model.modals.iter() {
        confirm_view = None;
        match modal {
            Modal::FilterInput { text } => input::draw_filter(frame, footer_area, text, theme),
            Modal::CommandInput { text } => input::draw_command(frame, footer_area, text, theme),
            Modal::LogSearchInput { text } => {
                input::draw_log_search(frame, footer_area, text, theme)
            }
            Modal::Help { scroll } => help::draw(frame, body, model, *scroll, theme),
            Modal::Notices { scroll } => footer::draw_notices(frame, body, model, *scroll, theme),
            Modal::Detail { of, scroll } => {
                detail_text::draw_detail(frame, body, model, of, *scroll, theme, &mut drawn)
            }
            // Only a confirmation dialog on top (nothing drawn over it)
            // counts as seen.
            Modal::Dialog(dialog) => {
                confirm_view = dialogs::draw_dialog(frame, area, model, dialog, theme)
            }
            Modal::ClusterPicker(p) => dialogs::cluster_picker::draw(frame, body, model, p, theme),
            Modal::Servers(p) => servers::draw(frame, body, model, p, theme),
        }
    }
    FrameReport {
        too_small: false,
        confirm_in_full: None,
        confirm_view,
        table_columns: drawn.table_columns,
        attention_shown: drawn.attention_shown,
        detail_scroll_max: drawn.detail_scroll_max,
        details_pane: drawn.details_pane,
        ready_scroll_max: drawn.ready_scroll_max,
    }
}

/// A style that changes nothing on a cleared cell (default colours, no
/// modifier): painting the whole screen with it is a pass over every cell
/// for nothing, so the base style is skipped then.
fn blank(style: ratatui::style::Style) -> bool {
    use ratatui::style::{Color, Modifier};
    let reset = |c: Option<Color>| matches!(c, None | Some(Color::Reset));
    reset(style.fg)
        && reset(style.bg)
        && reset(style.underline_color)
        && style.add_modifier == Modifier::empty()
}

/// What the views drew that keys depend on, filled in while drawing one
/// frame and returned in its [`FrameReport`].
#[derive(Debug, Default)]
pub(crate) struct Drawn {
    pub table_columns: Option<(View, Vec<usize>)>,
    pub attention_shown: Vec<String>,
    pub detail_scroll_max: Option<u16>,
    pub details_pane: Option<crate::app::frame::PaneScroll>,
    pub ready_scroll_max: Option<u16>,
}

/// Draws `model` on an off-screen terminal of `width` x `height` and returns
/// the report, for tests that drive `update` the way the runtime does.
pub fn report_at(model: &Model, theme: &Theme, width: u16, height: u16) -> FrameReport {
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height))
        .expect("an off-screen terminal");
    let mut report = FrameReport::default();
    terminal
        .draw(|f| report = draw_reported(f, model, theme))
        .expect("drawing off screen");
    report
}

fn draw_view(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme, drawn: &mut Drawn) {
    match model.view {
        View::Overview => overview::draw(frame, area, model, theme, drawn),
        View::Machines => detail::draw_machines(frame, area, model, theme, drawn),
        View::Vrouter => vrouter::draw(frame, area, model, theme, drawn),
        View::UpdatePlan => update_plan::draw(frame, area, model, theme, drawn),
        View::Wrapup => wrapup::draw(frame, area, model, theme),
        View::Logs => logs::draw(frame, area, model, theme),
        View::Ready => ready::draw(frame, area, model, theme, drawn),
        View::States | View::Locks | View::Requests | View::Events | View::Audit => {
            table::draw(frame, area, model, model.view, theme, drawn);
        }
    }
}

fn draw_too_small(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let text = format!(
        "terminal too small: need {MIN_WIDTH}x{MIN_HEIGHT}, have {}x{}",
        area.width, area.height
    );
    let mut lines = vec![
        Line::styled(text, theme.error),
        Line::raw(""),
        Line::styled("enlarge the window (or quit with q)", theme.muted),
    ];
    let mut height = 3;
    if model.keys_ignored > 0 {
        // Typed keys do nothing here; say so, so none seems to be pending.
        let n = model.keys_ignored;
        let s = if n == 1 { "" } else { "s" };
        lines.push(Line::styled(format!("{n} key{s} ignored"), theme.warn));
        height = 5;
    }
    let height = height.min(area.height);
    let y = area.y + area.height.saturating_sub(height) / 2;
    let rect = Rect::new(area.x, y, area.width, height);
    frame.render_widget(
        Paragraph::new(lines).centered().wrap(Wrap { trim: true }),
        rect,
    );
}

/// The style of a row tone.
pub(crate) fn tone_style(theme: &Theme, tone: Tone) -> Style {
    match tone {
        Tone::Normal => theme.base,
        Tone::Ok => theme.ok,
        Tone::Warn => theme.warn,
        Tone::Error => theme.error,
        Tone::Attention => theme.attention,
        Tone::Muted => theme.muted,
    }
}

/// A bordered pane with a title and, on the right of its top border, the
/// freshness mark of the data it shows (`STALE: …`, `loading: …`), cut to
/// the room the title leaves in `area`.
pub(crate) fn fresh_pane<'a>(
    title: impl Into<Line<'a>>,
    focused: bool,
    model: &Model,
    which: freshness::Pane,
    area: Rect,
    theme: &Theme,
) -> Block<'a> {
    let title: Line = title.into();
    let used = title.width();
    let block = pane(title, focused, theme);
    let Some(text) = stale_mark::mark(model, which) else {
        return block;
    };
    let style = if text.starts_with("STALE") {
        theme.error
    } else {
        theme.muted
    };
    // Two corners, a space after the title, a space either side of the mark.
    let room = (area.width as usize).saturating_sub(used + 5);
    if room < 6 {
        return block;
    }
    block.title(Line::styled(format!(" {} ", format::truncate(&text, room)), style).right_aligned())
}

/// A bordered pane with a title.
pub(crate) fn pane<'a>(title: impl Into<Line<'a>>, focused: bool, theme: &Theme) -> Block<'a> {
    Block::bordered()
        .border_style(if focused {
            theme.border_focused
        } else {
            theme.border
        })
        .title(title.into().style(theme.title))
}

/// A full-height column at most `max` wide, centred in `area` (the help and
/// the notices overlays).
pub(crate) fn centred_column(area: Rect, max: u16) -> Rect {
    let width = area.width.min(max);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y,
        width,
        area.height,
    )
}

/// ` j/k scroll · esc closes `: an overlay's keys, from the keymap.
pub(crate) fn scroll_hint(model: &Model) -> String {
    use crate::config::keymap::KeyAction;
    let key = |a: KeyAction| model.keymap.first_key(a).unwrap_or("?");
    format!(
        " {}/{} scroll · {} closes ",
        key(KeyAction::Down),
        key(KeyAction::Up),
        key(KeyAction::Back)
    )
}
