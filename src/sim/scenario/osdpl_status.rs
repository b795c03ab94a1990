//! The OpenStackDeploymentStatus the OpenStack controller keeps (namespace
//! `openstack`, named after the OpenStackDeployment `osh-dev`), written as
//! Rockoon writes it (github:Mirantis/rockoon, commit 1390883a):
//! `rockoon/osdplstatus.py` `set_osdpl_status` (state, controller_version,
//! release, fingerprint, timestamp in one patch of `status.osdpl`),
//! `set_service_status` and `update_osdpl_lcm_progress` (`lcm_progress`:
//! services APPLIED with the osdpl's fingerprint and controller version, of
//! all), `rockoon/batch_health.py` `get_overall_health` (`status.osdpl.health`:
//! applications with no `Unhealthy` component, of all) and
//! `constants.K8sObjHealth` (`Ready`, `Unhealthy`).
//!
//! The applications, their components and the services listed are ours
//! [I]: a usual MOSK cloud's, not read from a cluster.

use jiff::Timestamp;
use serde_json::{Map, Value, json};

use super::engine::check;
use super::objects::{LCM_API, OPENSTACK_NS};
use super::text::python_utc;
use crate::sim::store::Store;

/// The resource's plural (Rockoon's CRD spells it in the singular form).
pub const OSDPLST: &str = "openstackdeploymentstatus";
/// The OpenStackDeployment's name, and so its status's (and the cluster lock's suffix).
pub const OSDPL_NAME: &str = "osh-dev";
/// `openstack_version` [I: the OpenStack release is not changed by the update].
const OPENSTACK_VERSION: &str = "caracal";

/// The services of `status.services` [I].
const SERVICES: &[&str] = &[
    "block-storage",
    "compute",
    "coordination",
    "dashboard",
    "database",
    "identity",
    "image",
    "ingress",
    "key-manager",
    "memcached",
    "messaging",
    "networking",
    "orchestration",
    "placement",
    "redis",
];

/// The applications of `status.health` and their components [I].
const HEALTH: &[(&str, &[&str])] = &[
    ("barbican", &["api"]),
    ("cinder", &["api", "backup", "scheduler", "volume"]),
    ("glance", &["api"]),
    ("heat", &["api", "cfn", "engine"]),
    ("horizon", &["server"]),
    ("keystone", &["api"]),
    ("mariadb", &["server"]),
    ("memcached", &["server"]),
    ("neutron", &["server", "rpc_server"]),
    ("nova", &["api_osapi", "conductor", "scheduler", "compute"]),
    ("placement", &["api"]),
    ("rabbitmq", &["server"]),
];

/// The component that is not Ready while the controller applies the new
/// release and waits for the services' health [I: which one is ours].
pub const RESTARTING: (&str, &str) = ("neutron", "server");

const READY: &str = "Ready";
const UNHEALTHY: &str = "Unhealthy";

/// The controller version a release string names [I]: its part before
/// `+` (`17.4.0+25.1` -> `17.4.0`).
pub fn controller_version(release: &str) -> &str {
    release.split('+').next().unwrap_or(release)
}

/// The spec's hash the controller records [I: ours, one per release].
fn fingerprint(release: &str) -> String {
    // FNV-1a, repeated to the length of a SHA-256 in hex.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in release.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}").repeat(4)
}

/// `_generate_osdpl_status_generic` plus the state.
fn generic(state: &str, release: &str, now: Timestamp) -> Value {
    json!({
        "openstack_version": OPENSTACK_VERSION,
        "controller_version": controller_version(release),
        "controller_host": "rockoon-7c9d5b8f6-x2k4q",
        "fingerprint": fingerprint(release),
        "timestamp": python_utc(now),
        "release": release,
        "state": state,
    })
}

/// `update_osdpl_lcm_progress`.
fn lcm_progress(status: &Value) -> String {
    let osdpl = &status["osdpl"];
    let services = status["services"].as_object().cloned().unwrap_or_default();
    let ready = services
        .values()
        .filter(|s| {
            s["fingerprint"] == osdpl["fingerprint"]
                && s["controller_version"] == osdpl["controller_version"]
                && s["state"] == "APPLIED"
        })
        .count();
    format!("{ready}/{}", services.len())
}

/// `get_overall_health`.
fn overall_health(status: &Value) -> String {
    let apps = status["health"].as_object().cloned().unwrap_or_default();
    let ready = apps
        .values()
        .filter(|components| {
            components
                .as_object()
                .is_none_or(|c| c.values().all(|c| c["status"] != UNHEALTHY))
        })
        .count();
    format!("{ready}/{}", apps.len())
}

/// The status before the update: APPLIED by the controller of `release`,
/// every service APPLIED, every component Ready.
pub fn object(release: &str, now: Timestamp) -> Value {
    let mut osdpl = generic("APPLIED", release, now);
    osdpl["cause"] = "resume".into();
    osdpl["changes"] = "()".into();
    let service = {
        let mut s = generic("APPLIED", release, now);
        s.as_object_mut().map(|m| m.remove("controller_host"));
        s
    };
    let services: Map<String, Value> = SERVICES
        .iter()
        .map(|s| (s.to_string(), service.clone()))
        .collect();
    let health: Map<String, Value> = HEALTH
        .iter()
        .map(|(app, components)| {
            let c: Map<String, Value> = components
                .iter()
                .map(|c| (c.to_string(), json!({"generation": 1, "status": READY})))
                .collect();
            (app.to_string(), Value::Object(c))
        })
        .collect();
    let mut status = json!({"osdpl": osdpl, "services": services, "health": health});
    status["osdpl"]["lcm_progress"] = lcm_progress(&status).into();
    status["osdpl"]["health"] = overall_health(&status).into();
    json!({
        "apiVersion": LCM_API,
        "kind": "OpenStackDeploymentStatus",
        "metadata": {"name": OSDPL_NAME, "namespace": OPENSTACK_NS},
        "spec": {},
        "status": status,
    })
}

/// Changes the status and recomputes the two summaries the controller
/// keeps of it (its handlers for `status.services` and the health batch).
fn update(store: &Store, f: impl FnOnce(&mut Value)) {
    check(
        store.update(OSDPLST, Some(OPENSTACK_NS), OSDPL_NAME, |o| {
            f(&mut o["status"]);
            let progress = lcm_progress(&o["status"]);
            let health = overall_health(&o["status"]);
            o["status"]["osdpl"]["lcm_progress"] = progress.into();
            o["status"]["osdpl"]["health"] = health.into();
        }),
        "update OpenStackDeploymentStatus",
    );
}

/// The controller of `release` starts handling the OpenStackDeployment
/// (`handle`: `set_osdpl_status(APPLYING, …)`); its services are applied
/// again, so none counts in `lcm_progress` yet, and the restarting
/// component is not Ready.
pub fn applying(store: &Store, release: &str, now: Timestamp) {
    update(store, |st| {
        let mut osdpl = generic("APPLYING", release, now);
        osdpl["cause"] = "update".into();
        merge(&mut st["osdpl"], osdpl);
        set_component(st, RESTARTING, UNHEALTHY);
    });
}

/// Every service applied (`set_service_status(…, APPLIED)` each) and the
/// handler done (`set_osdpl_status(APPLIED, …)`).
pub fn applied(store: &Store, release: &str, now: Timestamp) {
    update(store, |st| {
        merge(&mut st["osdpl"], generic("APPLIED", release, now));
        if let Some(services) = st["services"].as_object_mut() {
            for s in services.values_mut() {
                let mut g = generic("APPLIED", release, now);
                g.as_object_mut().map(|m| m.remove("controller_host"));
                merge(s, g);
            }
        }
    });
}

/// One component's health (the health batch's `set_multi_application_health`).
pub fn component(store: &Store, which: (&str, &str), ready: bool) {
    update(store, |st| {
        set_component(st, which, if ready { READY } else { UNHEALTHY })
    });
}

fn set_component(status: &mut Value, (app, component): (&str, &str), value: &str) {
    status["health"][app][component]["status"] = value.into();
}

fn merge(into: &mut Value, from: Value) {
    if let (Some(into), Value::Object(from)) = (into.as_object_mut(), from) {
        into.extend(from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_and_health_count_as_the_controller_counts() {
        let now = Timestamp::UNIX_EPOCH;
        let o = object("17.3.4+24.3.4", now);
        let st = &o["status"];
        assert_eq!(
            st["osdpl"]["lcm_progress"],
            format!("{0}/{0}", SERVICES.len())
        );
        assert_eq!(st["osdpl"]["health"], format!("{0}/{0}", HEALTH.len()));
        assert_eq!(st["osdpl"]["controller_version"], "17.3.4");
        let mut st = st.clone();
        set_component(&mut st, RESTARTING, UNHEALTHY);
        assert_eq!(
            overall_health(&st),
            format!("{}/{}", HEALTH.len() - 1, HEALTH.len())
        );
        merge(&mut st["osdpl"], generic("APPLYING", "17.4.0+25.1", now));
        assert_eq!(lcm_progress(&st), format!("0/{}", SERVICES.len()));
    }
}
