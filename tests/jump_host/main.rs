//! What a real jump host brings that the simulator alone does not, against
//! the simulated API servers over HTTP: credential plugins (`exec_plugin`),
//! proxies (`proxy`), the name the console is known by (`identity`: its
//! User-Agent and field manager, and the kubeconfig user in the audit
//! record), and the CRDs a real API server accepts (`crd_rules`).
//!
//! Run: `cargo test --test jump_host`.

#[path = "../cluster_support/mod.rs"]
mod cluster_support;
mod crd_rules;
mod exec_plugin;
mod identity;
mod proxy;
