//! The library's `domain` as the shared test data sees it: the library's
//! modules, and the fixtures, which are compiled into tests only (the unit
//! tests mount the same files as `domain::fixtures`). A test crate mounts
//! this as its `domain` module.

#![allow(dead_code, unused_imports)]

pub use mosk_console::domain::*;

#[path = "fixtures/mod.rs"]
pub mod fixtures;
