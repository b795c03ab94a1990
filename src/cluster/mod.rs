//! The cluster layer: everything that talks to Kubernetes (kube-rs), and
//! nothing that draws (no ratatui here).
//!
//! What lives where:
//! - [`connect`]: kubeconfig(s) -> the two `kube::Client`s ([`Clusters`]),
//!   checked with a `/version` call (asked again a few times when it fails);
//!   [`ConnectError`] explains failures to the operator (missing file, unknown
//!   context, unreachable server, a `/version` that is not one, 401/403, bad YAML).
//! - [`clock`]: the API servers' clock offsets from the `Date` of their
//!   answers ([`ClockSync`], a layer on each client).
//! - [`watch`]: one kube-rs `watcher` per [`Kind`](crate::domain::objects::Kind),
//!   with discovery for CRDs, backoff, re-list buffering, periodic re-lists
//!   that repair lost changes, health reporting: [`spawn_watchers`].
//! - [`convert`]: kube objects -> the plain domain objects
//!   ([`crate::domain::objects::Object`]), sanitizing every string; a body
//!   that does not match becomes `Object::Malformed`.
//! - [`logs`]: the lcm-controller log follower: [`spawn_log_follower`].
//! - [`exec`]: a command run in a pod through the exec API (WebSocket),
//!   bounded by a deadline and a size, its output sanitized:
//!   [`exec::exec_in_pod`] (the OpenStack CLI in the `keystone-client` pod).
//! - [`writes`]: the one write path (Node annotation patches, vRouter pod
//!   restarts, access reviews) and the action executor.
//! - [`which`]: which MOSK cluster to follow: the LCMClusters the
//!   management context can see, listed once at start-up.
//! - [`backoff`]: retry delays ([`BackoffPolicy`]); tests use short ones.
//! - [`events`]: [`ClusterEvent`], the only thing the rest of the console
//!   receives from this layer, over [`channel`]: bounded, merging a burst
//!   (the latest state of an object wins) instead of queueing it.
//!
//! Typical start-up (the runtime's job):
//! ```no_run
//! # async fn demo() -> Result<(), mosk_console::cluster::ConnectError> {
//! use mosk_console::cluster::*;
//! let clusters = connect(&Target::default()).await?;
//! let (tx, _rx) = channel::channel();
//! let cancel = tokio_util::sync::CancellationToken::new();
//! let _watchers = spawn_watchers(&clusters, &WatchOptions::default(), tx.clone(), cancel.clone());
//! let _logs = spawn_log_follower(clusters.mgmt.clone(), LogOptions::default(), tx, cancel);
//! # Ok(()) }
//! ```

pub mod backoff;
pub mod channel;
pub mod clock;
pub mod connect;
pub mod convert;
pub mod events;
pub mod exec;
pub mod logs;
pub mod openstack;
pub mod watch;
pub mod which;
pub mod writes;

pub use backoff::BackoffPolicy;
pub use clock::ClockSync;
pub use connect::{Clusters, ConnectError, Target, connect};
pub use events::{ClusterEvent, WatchHealth, WatchProblem};
pub use logs::{LogOptions, spawn_log_follower};
pub use watch::{WatchOptions, spawn_watchers};
