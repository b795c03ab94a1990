//! Pure MOSK logic: the objects, the machine row joined across both clusters,
//! the update phase, the attention queue, progress and ETA. Knows nothing of
//! kube-rs or ratatui.

pub mod objects;
