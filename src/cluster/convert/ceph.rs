//! The CephDeploymentHealth (`lcm.mirantis.com/v1alpha1`, namespace
//! `ceph-lcm-mirantis`), read leniently like every custom kind: unknown
//! fields ignored, wrong types an error. Its layout is Pelagia's
//! (github:Mirantis/pelagia, commit d4713b61:
//! `pkg/apis/ceph.pelagia.lcm/v1alpha1/health_types.go`, Rook's
//! `ClusterStatus.CephStatus` under `healthReport.rookCephObjects.cephCluster`).

use std::collections::BTreeMap;

use kube::api::DynamicObject;
use serde::Deserialize;

use super::{body, name_of, parse, s, s_opt, so};
use crate::domain::objects::{CEPH_CHECKS_KEPT, CephDeploymentHealth, CephHealthCheck};

/// Where MOSK's Ceph controller keeps its objects (Pelagia's docs:
/// `kubectl get cdh -n ceph-lcm-mirantis`, docs/ops-guide/deployment/object-storage/rgw-tls.md).
pub const CEPH_NAMESPACE: &str = "ceph-lcm-mirantis";

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Status {
    state: Option<String>,
    issues: Vec<String>,
    last_health_check: Option<String>,
    health_report: Report,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Report {
    rook_ceph_objects: RookObjects,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RookObjects {
    ceph_cluster: CephCluster,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CephCluster {
    ceph: CephStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CephStatus {
    health: Option<String>,
    details: BTreeMap<String, Detail>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Detail {
    severity: Option<String>,
    message: Option<String>,
}

pub(super) fn ceph_health(obj: &DynamicObject) -> Result<CephDeploymentHealth, String> {
    let (_, status): (serde_json::Value, Status) = body(obj)?;
    let ceph = status.health_report.rook_ceph_objects.ceph_cluster.ceph;
    let checks_count = ceph.details.len();
    let checks = ceph
        .details
        .iter()
        .take(CEPH_CHECKS_KEPT)
        .map(|(code, d)| CephHealthCheck {
            code: s(code),
            severity: s_opt(d.severity.as_deref()),
            message: s_opt(d.message.as_deref()),
        })
        .collect();
    Ok(CephDeploymentHealth {
        name: name_of(&obj.metadata)?,
        namespace: s_opt(obj.metadata.namespace.as_deref()),
        health: parse(ceph.health.as_deref()),
        checks,
        checks_count,
        state: so(status.state),
        issues_count: status.issues.len(),
        issues: status
            .issues
            .iter()
            .take(CEPH_CHECKS_KEPT)
            .map(|i| s(i))
            .collect(),
        last_check: so(status.last_health_check),
    })
}
