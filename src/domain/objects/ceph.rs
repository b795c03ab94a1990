//! CephDeploymentHealth (`lcm.mirantis.com/v1alpha1`, MOSK cluster,
//! namespaced: `ceph-lcm-mirantis`, named after its CephDeployment): what
//! the Ceph controller reports of Ceph's health. Read as
//! github:Mirantis/pelagia writes it, commit d4713b61:
//! `pkg/apis/ceph.pelagia.lcm/v1alpha1/health_types.go`
//! (`CephDeploymentHealthStatus`: `state` Ok or Failed, `issues`,
//! `lastHealthCheck`, `healthReport.rookCephObjects.cephCluster`: Rook's
//! `ClusterStatus`, whose `ceph.health` is Ceph's own HEALTH_OK/WARN/ERR and
//! `ceph.details` its health checks), filled by
//! `pkg/controller/health/controller.go` `updateCephDeploymentHealthStatus`.

use super::CephHealthStatus;

/// One of Ceph's health checks (`ceph.details.<code>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CephHealthCheck {
    /// The check's code (`OSDMAP_FLAGS`, `OSD_DOWN`, …).
    pub code: String,
    /// `severity`: `HEALTH_WARN` or `HEALTH_ERR`, verbatim.
    pub severity: String,
    pub message: String,
}

/// Health checks and issues kept per object; the rest are counted.
pub const CEPH_CHECKS_KEPT: usize = 16;

/// A CephDeploymentHealth, with what the rules read, parsed once.
#[derive(Debug, Clone, PartialEq)]
pub struct CephDeploymentHealth {
    pub name: String,
    pub namespace: String,
    /// `healthReport.rookCephObjects.cephCluster.ceph.health` (`Other("")`
    /// when the report has none).
    pub health: CephHealthStatus,
    /// The first [`CEPH_CHECKS_KEPT`] of `ceph.details`, by code.
    pub checks: Vec<CephHealthCheck>,
    /// How many health checks `ceph.details` lists in all.
    pub checks_count: usize,
    /// `status.state`: the controller's own verdict (`Ok`, `Failed`), verbatim.
    pub state: Option<String>,
    /// The first [`CEPH_CHECKS_KEPT`] of `status.issues`.
    pub issues: Vec<String>,
    pub issues_count: usize,
    /// `status.lastHealthCheck`, as written.
    pub last_check: Option<String>,
}
