//! Exact texts the simulated controllers write, and the time formats they use.
//!
//! The texts are copied from the reference (`docs`, reference §3.9 and §7.2);
//! the console matches on them, so do not reword them.

use jiff::Timestamp;
use jiff::tz::TimeZone;

/// OpenStack cluster lock while OpenStack services are checked (E-HEALTH).
pub const E_HEALTH: &str = "Waiting for all OpenStack services are healthy.";

/// The kopf finalizer Rockoon puts on maintenance requests (reference §3.1).
pub const ROCKOON_FINALIZER: &str = "lcm.mirantis.com/rockoon.nodemaintenancerequest-finalizer";

/// Node annotation: how instances are handled (reference §4.1).
pub const ANN_MIGRATION_MODE: &str = "openstack.lcm.mirantis.com/instance_migration_mode";
/// Node annotation: live migration attempts per instance (reference §4.1).
pub const ANN_MIGRATION_ATTEMPTS: &str = "openstack.lcm.mirantis.com/instance_migration_attempts";
/// Rockoon's bookkeeping annotation on its node locks (no prefix).
pub const ANN_INNER_STATE: &str = "inner_state";
/// LCMMachine order.
pub const ANN_LCM_INDEX: &str = "lcm.mirantis.com/index";
/// LCMClusterState reason.
pub const ANN_CLUSTER_STATE_REASON: &str = "lcm.mirantis.com/cluster-state-reason";

/// `str(datetime.utcnow())`: `2026-01-01 10:15:02.118734`, without the
/// fraction when the microseconds are 0 (Python's behaviour).
pub fn python_utc(ts: Timestamp) -> String {
    let dt = ts.to_zoned(TimeZone::UTC).datetime();
    let micros = dt.subsec_nanosecond() / 1000;
    let base = dt.strftime("%Y-%m-%d %H:%M:%S").to_string();
    if micros == 0 {
        base
    } else {
        format!("{base}.{micros:06}")
    }
}

/// A Rockoon errorMessage: the timestamp, one space, the text.
pub fn rockoon_message(ts: Timestamp, text: &str) -> String {
    format!("{} {text}", python_utc(ts))
}

/// zap's ISO 8601 time: `2026-01-01T10:15:02.118Z`.
pub fn zap_ts(ts: Timestamp) -> String {
    ts.to_zoned(TimeZone::UTC)
        .datetime()
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Kubernetes RFC 3339 time with seconds: `2026-01-01T10:15:02Z`.
pub fn k8s_time(ts: Timestamp) -> String {
    ts.to_zoned(TimeZone::UTC)
        .datetime()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// Python's repr of a list of strings: `['a', 'b']`.
pub fn py_list(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| format!("'{s}'")).collect();
    format!("[{}]", inner.join(", "))
}

/// E-MIG-START.
pub fn mig_start(server: &str) -> String {
    format!("Starting migration for {server}")
}

/// E-MIG-WAIT.
pub fn mig_wait(servers: &[String]) -> String {
    format!(
        "Waiting servers migration is completed: {}",
        py_list(servers)
    )
}

/// E-MIG-ERR.
pub fn mig_err(server: &str, exception: &str) -> String {
    format!("Got error while trying to migrate server {server}: {exception}")
}

/// E-LEFT (MOSK 25.1+).
pub fn left_new(notify: &[String], other: &[String]) -> String {
    let mut msg = String::from("Some servers are still present on the host.");
    if !notify.is_empty() {
        msg.push_str(&format!(
            " Notify owners of the following server: {}",
            py_list(notify)
        ));
    }
    if !other.is_empty() {
        msg.push_str(&format!(
            " Servers with unset maintenance action: {}",
            py_list(other)
        ));
    }
    msg
}

/// E-LEFT-OLD (MOSK 24.3 and earlier): a dict of server id to status.
pub fn left_old(servers: &[(String, String)], node: &str) -> String {
    let inner: Vec<String> = servers
        .iter()
        .map(|(id, status)| format!("'{id}': '{status}'"))
        .collect();
    format!(
        "Some servers {{{}}} are still present on host {node}. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'",
        inner.join(", ")
    )
}

/// The OpenStack cluster lock while the CMR handler runs an old controller
/// (rockoon controllers/maintenance.py `cluster_maintenance_request_change_handler`, 1390883a).
pub const CWL_CONTROLLER_NOT_UPDATED: &str =
    "OpenStackDeploymentStatus controller version is not updated yet.";

/// Written by the controller of the old release on a request made for the
/// new one (rockoon controllers/maintenance.py `check_release_matching`, 1390883a).
pub fn release_mismatch(request_release: &str, ours: &str) -> String {
    format!(
        "Current maintenancerequest {request_release} release does not match ours {ours}. Skipping handling."
    )
}

/// The OpenStack cluster lock while the OpenStackDeployment is not APPLIED (same handler).
pub fn cwl_not_applied(state: &str) -> String {
    format!("Waiting osdpl status APPLIED, current state is {state}")
}

/// Written on the (already inactive) node lock when the delete handler
/// waited 300 s for the compute services (rockoon services/__init__.py
/// `Nova.prepare_node_after_reboot`, 777a3a19).
pub const COMPUTE_SERVICES_TIMEOUT: &str = "Timeout waiting for compute services up on the host.";

/// E-CONC.
pub fn concurrency(node: &str) -> String {
    format!(
        "Number of inactive NodeWorkloadLocks exceeds allowed concurrency. Deferring processing for node {node}"
    )
}

/// LCM cordon-drain message while node locks are active (reference §7.2):
/// `(controller, word)` pairs in controller-name order.
pub fn cd_locks_active(active: &[(String, &str)]) -> String {
    let parts: Vec<String> = active.iter().map(|(c, w)| format!("{c}: {w}")).collect();
    format!(
        "Error: following NodeWorkloadLocks are still active - {}",
        parts.join(",")
    )
}

/// A Kubernetes drain that could not evict a pod within kubectl's global
/// timeout, as LCMMachine `status.kubernetesCordonDrainError` shows it
/// (reference §7.1: the text seen in the field, MYRHA known issue 28134).
pub fn drain_evict_timeout(pod: &str, ns: &str) -> String {
    format!("Error: error when evicting pods/\"{pod}\" -n \"{ns}\": global timeout reached: 10m0s")
}

/// LCM swarm-drain message while the Kubernetes drain is not done.
pub fn sd_waiting(node: &str) -> String {
    format!("Error: waiting for kubernetes node {node} to be drained first")
}

/// The word LCM shows after a controller name in the cordon-drain message.
/// `ceph: UpdatingController` and `openstack: InProgress` are observed
/// (reference §7.2); where LCM takes them from is unknown. The TF word is
/// inferred.
pub fn cd_word(controller_name: &str) -> &'static str {
    match controller_name {
        "ceph" => "UpdatingController",
        _ => "InProgress",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_timestamp_keeps_or_drops_microseconds_like_python() {
        let t: Timestamp = "2022-02-04T14:43:52.674125Z".parse().unwrap();
        assert_eq!(python_utc(t), "2022-02-04 14:43:52.674125");
        let t: Timestamp = "2022-02-04T14:43:52Z".parse().unwrap();
        assert_eq!(python_utc(t), "2022-02-04 14:43:52");
        let t: Timestamp = "2022-02-04T14:43:52.000020Z".parse().unwrap();
        assert_eq!(python_utc(t), "2022-02-04 14:43:52.000020");
    }

    #[test]
    fn zap_and_k8s_times() {
        let t: Timestamp = "2026-01-01T10:15:02.118734Z".parse().unwrap();
        assert_eq!(zap_ts(t), "2026-01-01T10:15:02.118Z");
        assert_eq!(k8s_time(t), "2026-01-01T10:15:02Z");
    }

    #[test]
    fn left_messages_match_the_catalogue() {
        let a = "0ab4dd8f-ef0d-401d-9d5e-e9e97e077422".to_string();
        assert_eq!(
            left_new(std::slice::from_ref(&a), &[]),
            "Some servers are still present on the host. Notify owners of the following server: ['0ab4dd8f-ef0d-401d-9d5e-e9e97e077422']"
        );
        assert_eq!(
            left_new(&[], std::slice::from_ref(&a)),
            "Some servers are still present on the host. Servers with unset maintenance action: ['0ab4dd8f-ef0d-401d-9d5e-e9e97e077422']"
        );
        assert_eq!(
            left_old(&[(a.clone(), "ACTIVE".into())], "kaas-node-1"),
            "Some servers {'0ab4dd8f-ef0d-401d-9d5e-e9e97e077422': 'ACTIVE'} are still present on host kaas-node-1. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'"
        );
        assert_eq!(
            mig_wait(&[a.clone(), "b".into()]),
            "Waiting servers migration is completed: ['0ab4dd8f-ef0d-401d-9d5e-e9e97e077422', 'b']"
        );
    }

    #[test]
    fn drain_error_matches_the_reference() {
        assert_eq!(
            drain_evict_timeout("patroni-13-2", "stacklight"),
            r#"Error: error when evicting pods/"patroni-13-2" -n "stacklight": global timeout reached: 10m0s"#
        );
    }

    #[test]
    fn cordon_drain_message_lists_controllers() {
        let m = cd_locks_active(&[
            ("ceph".into(), cd_word("ceph")),
            ("openstack".into(), cd_word("openstack")),
        ]);
        assert_eq!(
            m,
            "Error: following NodeWorkloadLocks are still active - ceph: UpdatingController,openstack: InProgress"
        );
    }
}
