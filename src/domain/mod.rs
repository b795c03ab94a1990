//! Pure MOSK logic: the objects, the machine row joined across both clusters,
//! the update phase, the attention queue, progress and ETA. Knows nothing of
//! kube-rs or ratatui.

pub mod attention;
pub mod changes;
pub mod fixtures;
pub mod history;
pub mod join;
pub mod lockmsg;
pub mod objects;
pub mod phase;
pub mod progress;
pub mod vrouter;
