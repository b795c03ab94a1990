//! What a table's rows and columns refer to, for the views' keys: the
//! object behind a row of the Locks, Maintenance requests and Cluster
//! states tables (Enter opens it), and the Machines column `u` groups by.
//! Kept apart from the builders (which read the whole model) so that the
//! views need nothing of the model.

use crate::app::modal::DetailOf;
use crate::domain::objects::{Kind, ObjectKey};

/// The Machines table's GROUP column: last (`-` for every machine when the
/// cluster has no update groups).
pub const MACHINES_GROUP: usize = 11;

/// The lock a row stands for (`cwl/<name>`, `nwl/<name>`), for Enter.
pub fn lock_of(id: &str) -> Option<DetailOf> {
    let kind = match id.split_once('/')? {
        ("cwl", _) => Kind::ClusterWorkloadLock,
        ("nwl", _) => Kind::NodeWorkloadLock,
        _ => return None,
    };
    Some(DetailOf::Lock(ObjectKey {
        kind,
        namespace: String::new(),
        name: id.split_once('/')?.1.to_string(),
    }))
}

/// The request a row stands for (`cmr/<name>`, `nmr/<name>`), for Enter.
pub fn request_of(id: &str) -> Option<DetailOf> {
    let (kind, name) = match id.split_once('/')? {
        ("cmr", name) => (Kind::ClusterMaintenanceRequest, name),
        ("nmr", name) => (Kind::NodeMaintenanceRequest, name),
        _ => return None,
    };
    Some(DetailOf::Request(ObjectKey {
        kind,
        namespace: String::new(),
        name: name.to_string(),
    }))
}

/// The cluster state a row stands for (`<namespace>/<name>`), for Enter.
pub fn state_of(id: &str) -> Option<DetailOf> {
    if id.starts_with("malformed/") {
        return None;
    }
    let (namespace, name) = id.split_once('/')?;
    Some(DetailOf::State(ObjectKey {
        kind: Kind::LcmClusterState,
        namespace: namespace.to_string(),
        name: name.to_string(),
    }))
}
