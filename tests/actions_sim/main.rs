//! Operator actions against the simulated clusters over HTTP (kube-rs on the
//! sim's router, in-process), asserting what the server received, what it
//! holds afterwards, and what the audit log says. Time is tokio's paused
//! clock and the simulator's own clock; nothing sleeps.

mod access_cache;
mod attention;
mod commence;
mod connection;
mod controllers;
mod exit;
mod harness;
mod modes;
mod node_actions;
mod readiness;
mod safety;
mod scenario;
mod unverified;
mod vrouter_actions;
mod which_cluster;
mod which_set;
mod wrapup;
