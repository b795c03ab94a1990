//! The simulator's API server through a real kube-rs `Client`, in-process
//! (the axum router is the client's tower service; no socket).

mod common;
mod exec;
mod fault_plan;
mod faults;
mod fuzz;
mod garbage;
mod kube_client;
mod served;
mod streams;
mod watch;
mod writes;
