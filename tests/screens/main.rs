//! The model and screen tests, one binary: each file a module of it. They
//! drive `update` with messages and draw on a `TestBackend`; none starts a
//! process or a server, so they share one build and one link (a test
//! binary links the whole console: one for all of these instead of one
//! each saves most of `cargo test`'s link time).

#[path = "../support/domain.rs"]
mod domain;
#[path = "../ui_support/mod.rs"]
mod ui_support;

mod action_identity;
mod actions_flow;
mod app_update;
mod attention_actions;
mod blind_keys;
mod columns_fixed;
mod derived_settle;
mod details;
mod freshness;
mod logs_view;
mod modal_stack;
mod readiness;
mod reminders;
mod screen_craft;
mod sorting;
mod ui_snapshots;
mod ui_styles;
mod unknown_values;
mod update_plan_view;
mod view_hints;
mod which_cluster;
mod wrapup_view;
