//! The Overview: release, phase, progress, cluster locks, the attention
//! queue, the machines being worked on and the last log lines.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

use crate::app::model::Model;
use crate::config::theme::Theme;
use crate::ui::pane;

pub(crate) fn draw(frame: &mut Frame, area: Rect, _model: &Model, theme: &Theme) {
    frame.render_widget(
        Paragraph::new("").block(pane(" Overview ", false, theme)),
        area,
    );
}
