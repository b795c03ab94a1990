//! kube-rs: clients for both clusters, watchers that feed messages, the log follower, writes.

pub mod events;
pub mod writes;
