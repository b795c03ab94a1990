//! mosk-console: a terminal console for a MOSK cluster update.
//!
//! Data flows one way (see `docs/ARCHITECTURE.md`): keys and cluster watches
//! become [`app::Msg`]s, `app::update` turns them into model changes and
//! commands, the runtime runs the commands, and `ui::draw` renders the model.

pub mod app;
pub mod audit;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod console;
pub mod domain;
pub mod files;
pub mod logging;
pub mod sanitize;
pub mod sim;
pub mod terminal;
pub mod ui;
