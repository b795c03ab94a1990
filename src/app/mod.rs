//! The Elm loop: model, messages, update, and the runtime that runs commands.

pub mod actions;
pub mod attention_cursor;
pub mod derive;
pub mod frame;
pub mod freshness;
pub mod line_input;
pub mod logs;
pub mod modal;
pub mod model;
pub mod msg;
pub(crate) mod navigation;
#[cfg(test)]
mod parsed_once_tests;
mod reminders;
pub mod report;
pub mod tables;
pub mod update;
