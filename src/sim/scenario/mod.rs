//! The simulated MOSK update: a scenario file describes the clusters and the
//! timings, and a state machine over the simulator clock plays the update
//! (LCM, the OpenStack/Ceph/TF controllers, Nova, the vRouter DaemonSet).
//!
//! Seams:
//! - `spec`: the scenario file format and its validation;
//! - `topology`: concrete machines, nodes and instances from a spec and a seed;
//! - `text`: exact messages and time formats;
//! - `nova`: servers and live migrations;
//! - `openstack_cli`: the `openstack` command of the `keystone-client` pod
//!   (what `kubectl exec` runs there), over `nova`;
//! - `lcmlog`: lcm-controller log lines;
//! - `objects`, `seed`: the objects' JSON and the initial contents of both clusters;
//! - `kube_events`: the core/v1 Events nodes and their controller record;
//! - `engine`: shared facts and the step context; `run`: one running scenario;
//! - `lcm`: cluster phases and the per-machine flow;
//! - `openstack`: the OpenStack controller (locks, instance migration);
//! - `osdpl_status`: the OpenStackDeploymentStatus it writes;
//! - `storage_net`: the Ceph and TF controllers; `ceph_health`: the CephDeploymentHealth;
//! - `vrouter`: the vRouter DaemonSet;
//! - `plan_spec`, `plan`: the ClusterUpdatePlan, UpdateGroups and UpdateAutoPause (MCC 2.27+).

pub mod ceph_health;
pub mod engine;
pub mod kaas_objects;
pub mod kube_events;
pub mod lcm;
pub mod lcmlog;
pub mod load;
pub mod nova;
pub mod objects;
pub mod openstack;
pub mod openstack_cli;
pub mod osdpl_status;
pub mod plan_controllers;
pub mod plan_spec;
pub mod run;
pub mod seed;
pub mod spec;
pub mod storage_net;
pub mod text;
pub mod topology;
pub mod validate;
pub mod vrouter;

pub use engine::{HardReboot, UpdatePhase};
pub use load::{ScenarioError, load_scenario, parse_scenario};
pub use run::ScenarioRun;
pub use spec::ScenarioSpec;
