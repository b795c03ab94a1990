//! NodeDeletionRequest and NodeDisableNotification (`lcm.mirantis.com/v1alpha1`,
//! MOSK cluster, cluster-scoped): LCM's notices that a node is being removed or
//! its machine disabled. Both have only `spec.nodeName`.

use jiff::Timestamp;

/// A NodeDeletionRequest or a NodeDisableNotification.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeNotice {
    pub name: String,
    /// `spec.nodeName`.
    pub node_name: String,
    pub created: Option<Timestamp>,
}
