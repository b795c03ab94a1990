//! The Elm loop: model, messages, update, and the runtime that runs commands.

pub mod logs;
pub mod model;
pub mod tables;
