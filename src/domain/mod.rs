//! Pure MOSK logic: the objects, the machine row joined across both clusters,
//! the update phase, the attention queue, progress and ETA. Knows nothing of
//! kube-rs or ratatui.

pub mod fixtures;
pub mod join;
pub mod lockmsg;
pub mod objects;
pub mod vrouter;
