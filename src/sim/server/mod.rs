//! The Kubernetes-compatible HTTP API over a [`Store`] (axum 0.8).

use std::sync::Arc;

use crate::sim::faults::Faults;
use crate::sim::rbac::Rbac;
use crate::sim::store::Store;

/// How the server behaves beyond the store's contents.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub rbac: Rbac,
    pub faults: Arc<Faults>,
    /// The minor version `/version` reports (kubectl's dispatcher picks its client from it).
    pub version_minor: u32,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            rbac: Rbac::allow_all("kubernetes-admin"),
            faults: Arc::new(Faults::new()),
            version_minor: 30,
        }
    }
}

/// The API server's router (stub until the server lands).
pub fn router(store: Arc<Store>, opts: ServerOptions) -> axum::Router {
    let _ = (store, opts);
    axum::Router::new()
}
