//! The Elm loop: model, messages, update, and the runtime that runs commands.

pub mod actions;
pub mod cluster_picker;
pub mod derive;
pub mod frame;
pub mod freshness;
pub mod line_input;
pub mod logs;
pub mod modal;
pub mod model;
pub mod msg;
pub mod notices;
#[cfg(test)]
mod parsed_once_tests;
mod reminders;
pub mod report;
pub mod servers;
pub mod servers_state;
pub mod session;
pub mod tables;
pub mod update;
pub mod views;
