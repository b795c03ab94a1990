//! The simulated MOSK clusters: a Kubernetes-compatible API server playing a cluster update. Knows nothing of the console.

pub mod clock;
pub mod exec;
pub mod faults;
pub mod rbac;
pub mod registry;
pub mod scenario;
pub mod serve;
pub mod server;
pub mod store;
pub mod world;
