//! The watchers against the simulated API servers, over HTTP from a kubeconfig:
//! initial lists, changes, re-lists after 410, dropped connections
//! (`resync`); missing CRDs, malformed objects, server errors (`failures`);
//! the API servers' clocks (`clock`). On paused time against in-process
//! servers: the periodic re-list (`relist`), outages and backoff (`outage`).

mod clock;
#[path = "../cluster_support/mod.rs"]
mod cluster_support;
mod failures;
mod fixture;
mod outage;
mod refusals;
mod relist;
mod resync;
