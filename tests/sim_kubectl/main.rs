//! Fidelity: the real `kubectl` (found on `PATH`) against the simulator
//! served on loopback TCP. Every test needs kubectl and is ignored unless
//! asked for (`cargo test --test sim_kubectl -- --ignored`); one needs the
//! Google Cloud SDK's dispatcher, which picks a kubectl 1.27–1.33 from the
//! server's `/version`. `exec` needs a kubectl whose WebSocket executor is on
//! (1.30 and later by default): the simulator does not speak SPDY.

mod exec;
mod fixture;
mod get;
mod plan;
mod write;
