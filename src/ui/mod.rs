//! Rendering: one file per view or dialog; a pure function of the model.
//! (Placeholder until the UI branch lands.)

pub mod dialogs;

use ratatui::Frame;
use ratatui::widgets::Paragraph;

use crate::app::model::Model;
use crate::config::theme::Theme;

pub fn draw(frame: &mut Frame, model: &Model, _theme: &Theme) {
    let text = format!(
        "mosk-console — {} machines seen",
        model.snapshot.machines().count()
    );
    frame.render_widget(Paragraph::new(text), frame.area());
    dialogs::draw(frame, frame.area(), model, _theme);
}
