//! The action dialogs: the migration-mode picker, the confirmation (and
//! acknowledge) dialog, the progress of a running plan, and the question
//! asked when `q` is pressed with a write in flight. Each names the
//! cluster context, every object and the exact change; DRY-RUN is shown when
//! the session is in dry-run mode. Drawn last, on top of everything.

pub(crate) mod cluster_picker;
mod confirm;
mod migration;
mod progress;
mod quit;
mod which_set;

use ratatui::Frame;

use crate::app::frame::ConfirmView;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear};

use crate::app::actions::dialog::Dialog;
use crate::app::model::Model;
use crate::config::theme::Theme;

/// Draws the open action dialog, if any, centred in `area`.
pub fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    draw_reported(frame, area, model, theme);
}

/// Like [`draw`]; returns the plan id of a confirmation dialog drawn in
/// full (Confirm button and object list visible), the only kind `y` may
/// confirm (see `app::frame`).
pub fn draw_reported(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    theme: &Theme,
) -> Option<ConfirmView> {
    draw_dialog(frame, area, model, model.modals.dialog()?, theme)
}

/// Draws `dialog` centred in `area`; returns what a confirmation dialog's
/// body showed.
pub fn draw_dialog(
    frame: &mut Frame,
    area: Rect,
    model: &Model,
    dialog: &Dialog,
    theme: &Theme,
) -> Option<ConfirmView> {
    match dialog {
        Dialog::MigrationMode(p) => migration::draw(frame, area, model, p, theme),
        Dialog::Confirm(c) => {
            return Some(confirm::draw(frame, area, model, c, theme));
        }
        Dialog::Progress => progress::draw(frame, area, model, theme),
        Dialog::ConfirmQuit => quit::draw(frame, area, model, theme),
        Dialog::WhichSet(w) => which_set::draw(frame, area, model, w, theme),
    }
    None
}

/// A box of at most `width` x `height`, centred, cleared, with a border and
/// `title`; returns the inner area.
fn frame_box(
    frame: &mut Frame,
    area: Rect,
    width: u16,
    height: u16,
    title: Line<'_>,
    theme: &Theme,
) -> Rect {
    let w = width
        .min(area.width.saturating_sub(2))
        .max(20.min(area.width));
    let h = height.min(area.height).max(3.min(area.height));
    let [r] = Layout::horizontal([Constraint::Length(w)])
        .flex(Flex::Center)
        .areas(area);
    let [r] = Layout::vertical([Constraint::Length(h)])
        .flex(Flex::Center)
        .areas(r);
    frame.render_widget(Clear, r);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Double)
        .border_style(theme.border_focused)
        .style(theme.dialog)
        .title(title);
    let inner = block.inner(r);
    frame.render_widget(block, r);
    inner
}

/// A small question (quit, which set): a box at most `width` wide, sized
/// to its `body` (wrapped) at the top, a blank line when there is room, the
/// key `hints` on the last line.
fn question(
    frame: &mut Frame,
    area: Rect,
    width: u16,
    title: Line<'_>,
    body: Vec<Line<'_>>,
    hints: Line<'_>,
    theme: &Theme,
) {
    let rows: u16 = body
        .iter()
        .map(|l| (l.width() as u16).div_ceil(width - 2).max(1))
        .sum();
    let inner = frame_box(frame, area, width, rows + 3, title, theme);
    let [body_area, _, hints_area] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(if inner.height > rows + 1 { 1 } else { 0 }),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(
        ratatui::widgets::Paragraph::new(body).wrap(ratatui::widgets::Wrap { trim: false }),
        body_area,
    );
    frame.render_widget(ratatui::widgets::Paragraph::new(hints), hints_area);
}

/// The title: the action's label, then DRY-RUN when it applies.
fn title<'a>(label: &'a str, dry_run: bool, theme: &Theme) -> Line<'a> {
    let mut spans = vec![Span::styled(format!(" {label} "), theme.title)];
    if dry_run {
        spans.push(Span::styled(" DRY-RUN ", theme.dry_run_badge));
        spans.push(Span::raw(" "));
    }
    Line::from(spans)
}

/// `Cluster: <context> (MOSK)` line.
fn context_line<'a>(context: &'a str, cluster: &'a str, theme: &Theme) -> Line<'a> {
    Line::from(vec![
        Span::styled("Cluster context: ", theme.muted),
        Span::styled(context, theme.title),
        Span::styled(format!(" ({cluster} cluster)"), theme.muted),
    ])
}

/// The unverified connection the request will go over, when it is one
/// (TLS not verified, plain HTTP to another machine). The simulator's http on
/// loopback is said in the status bar only.
fn connection_line(t: crate::cluster::connect::Transport, theme: &Theme) -> Option<Line<'static>> {
    use crate::cluster::connect::Transport;
    let why = match t {
        Transport::TlsNotVerified => " insecure-skip-tls-verify: server identity not checked",
        Transport::PlainHttp => " plain http: nothing is encrypted or verified",
        Transport::Verified | Transport::Loopback => return None,
    };
    Some(Line::from(vec![
        Span::styled(format!(" {} ", t.badge().unwrap_or_default()), theme.warn),
        Span::raw(why),
    ]))
}

/// The dry-run explanation, when it applies.
fn dry_run_line(theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(" DRY-RUN ", theme.dry_run_badge),
        Span::raw(" sent with dryRun=All: the server validates, nothing changes"),
    ])
}

/// A key hint line: `key` in the key style, then its meaning.
fn hints(pairs: &[(&str, &str)], theme: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, (k, what)) in pairs.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled("  ", Style::new()));
        }
        spans.push(Span::styled(k.to_string(), theme.key_hint));
        spans.push(Span::raw(format!(" {what}")));
    }
    Line::from(spans)
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
