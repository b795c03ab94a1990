//! Fixed facts about this session: which clusters, which namespace, and
//! how writes are held back (read-only, dry-run, demo).

use crate::cluster::connect::Transport;

/// Fixed facts about this session, shown in the status bar.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub mgmt_context: String,
    pub mosk_context: String,
    /// The MOSK cluster's project namespace in the management cluster.
    pub namespace: String,
    pub cluster_name: String,
    pub read_only: bool,
    pub dry_run: bool,
    /// Set in demo mode: the scenario name.
    pub demo: Option<String>,
    /// In demo mode: how many simulated seconds pass per real second.
    pub demo_speed: Option<f64>,
    /// How each cluster's connection is protected (badges, audit records).
    pub mgmt_transport: Transport,
    pub mosk_transport: Transport,
}

impl SessionInfo {
    /// The connection to `cluster`.
    pub fn transport(&self, cluster: crate::domain::objects::ClusterId) -> Transport {
        match cluster {
            crate::domain::objects::ClusterId::Mgmt => self.mgmt_transport,
            crate::domain::objects::ClusterId::Mosk => self.mosk_transport,
        }
    }
}

impl Default for SessionInfo {
    fn default() -> Self {
        SessionInfo {
            mgmt_context: "mgmt".into(),
            mosk_context: "mosk".into(),
            namespace: "child-ns".into(),
            cluster_name: "child-cl".into(),
            read_only: false,
            dry_run: false,
            demo: None,
            demo_speed: None,
            mgmt_transport: Transport::Verified,
            mosk_transport: Transport::Verified,
        }
    }
}
