//! Fidelity: the real `kubectl` (the preinstalled dispatcher, which picks a
//! kubectl 1.27–1.33 from the server's `/version`) against the simulator
//! served on loopback TCP. Skipped with a message when kubectl is missing,
//! except with CI=true, where that is a failure.

mod fixture;
mod get;
mod plan;
mod write;
