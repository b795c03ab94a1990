//! The simulated MOSK update: a scenario file describes the clusters and the
//! timings, and a state machine over the simulator clock plays the update
//! (LCM, the OpenStack/Ceph/TF controllers, Nova, the vRouter DaemonSet).
//!
//! Seams:
//! - `spec`: the scenario file format and its validation;
//! - `topology`: concrete machines, nodes and instances from a spec and a seed;
//! - `text`: exact messages and time formats;
//! - `nova`: servers and live migrations;
//! - `lcmlog`: lcm-controller log lines.

pub mod lcmlog;
pub mod load;
pub mod nova;
pub mod spec;
pub mod text;
pub mod topology;

pub use load::{ScenarioError, load_scenario, parse_scenario};
pub use spec::ScenarioSpec;
