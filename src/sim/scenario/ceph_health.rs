//! The CephDeploymentHealth the Ceph controller keeps (namespace
//! `ceph-lcm-mirantis`, named after the CephDeployment `cephcluster`), in
//! the layout github:Mirantis/pelagia writes (commit d4713b61,
//! `pkg/apis/ceph.pelagia.lcm/v1alpha1/health_types.go`,
//! `pkg/controller/health/controller.go` `updateCephDeploymentHealthStatus`:
//! `state` Ok, or Failed with the `issues` found, among them each Ceph health
//! check as `<code>: <message>`, `rook_objects_status.go` `checkClusterStatus`).
//! The health report is cut to Ceph's health; the warning during the Ceph
//! update (`OSDMAP_FLAGS`, the `noout` flag) is ours [I].

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use super::engine::check;
use super::objects::LCM_API;
use super::text::k8s_time;
use crate::sim::store::Store;

/// The resource's plural.
pub const CDH: &str = "cephdeploymenthealths";
/// The namespace of MOSK's Ceph controller objects.
pub const CEPH_NS: &str = "ceph-lcm-mirantis";
/// The CephDeployment's name, and so its health's.
pub const CDH_NAME: &str = "cephcluster";

/// The warning the Ceph update raises while it runs [I].
const UPDATE_CHECK: (&str, &str) = ("OSDMAP_FLAGS", "noout flag(s) set");

/// The health controller checks again this long after each check and
/// writes `lastHealthCheck` every time, changed or not (pelagia
/// `pkg/controller/health/controller.go`: `requeueAfterInterval`,
/// `updateCephDeploymentHealthStatus`, d4713b61).
pub const CHECK_INTERVAL: SignedDuration = SignedDuration::from_secs(30);

/// A check that found nothing new: only `lastHealthCheck` moves.
pub fn checked(store: &Store, now: Timestamp) {
    check(
        store.update(CDH, Some(CEPH_NS), CDH_NAME, |o| {
            o["status"]["lastHealthCheck"] = k8s_time(now).into();
        }),
        "check CephDeploymentHealth",
    );
}

/// Ceph HEALTH_OK, nothing found.
pub fn object(now: Timestamp) -> Value {
    let t = k8s_time(now);
    json!({
        "apiVersion": LCM_API,
        "kind": "CephDeploymentHealth",
        "metadata": {"name": CDH_NAME, "namespace": CEPH_NS},
        "status": {
            "state": "Ok",
            "lastHealthCheck": t,
            "lastHealthUpdate": t,
            "healthReport": {
                "rookOperator": {"status": "ok"},
                "rookCephObjects": {"cephCluster": {
                    "state": "Created",
                    "phase": "Ready",
                    "ceph": {"health": "HEALTH_OK", "lastChecked": t}
                }}
            }
        }
    })
}

/// Ceph's health while its daemons are updated (`warn`) and after.
pub fn updating(store: &Store, warn: bool, now: Timestamp) {
    let t = k8s_time(now);
    check(
        store.update(CDH, Some(CEPH_NS), CDH_NAME, |o| {
            let (code, message) = UPDATE_CHECK;
            let ceph = &mut o["status"]["healthReport"]["rookCephObjects"]["cephCluster"]["ceph"];
            ceph["lastChecked"] = t.clone().into();
            if warn {
                ceph["health"] = "HEALTH_WARN".into();
                ceph["details"] = json!({code: {"severity": "HEALTH_WARN", "message": message}});
            } else {
                ceph["health"] = "HEALTH_OK".into();
                if let Some(c) = ceph.as_object_mut() {
                    c.remove("details");
                }
            }
            let st = &mut o["status"];
            if warn {
                st["state"] = "Failed".into();
                st["issues"] = json!([format!("{code}: {message}")]);
            } else {
                st["state"] = "Ok".into();
                if let Some(s) = st.as_object_mut() {
                    s.remove("issues");
                }
            }
            st["lastHealthCheck"] = t.clone().into();
            st["lastHealthUpdate"] = t.into();
        }),
        "update CephDeploymentHealth",
    );
}
