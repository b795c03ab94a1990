//! The simulated MOSK update, driven by stepping the simulator clock (no
//! sleeps). Helpers are here; the tests are grouped by seam in `sim_scenario/`.

use jiff::SignedDuration;
use mosk_console::sim::scenario::{UpdatePhase, load_scenario, parse_scenario};
use mosk_console::sim::store::{StoreEvent, WatchFrom};
use mosk_console::sim::world::SimWorld;
use regex::Regex;
use serde_json::{Value, json};
use tokio::sync::broadcast;

#[path = "sim_scenario/controllers.rs"]
mod controllers;
#[path = "sim_scenario/files.rs"]
mod files;
#[path = "sim_scenario/flow.rs"]
mod flow;
#[path = "sim_scenario/migration.rs"]
mod migration;
#[path = "sim_scenario/plan.rs"]
mod plan;
#[path = "sim_scenario/vrouter.rs"]
mod vrouter;

const MIN: SignedDuration = SignedDuration::from_secs(60);
const HOUR: SignedDuration = SignedDuration::from_secs(3600);

fn quick(seed: u64) -> SimWorld {
    SimWorld::new(load_scenario("quick").unwrap(), seed)
}

fn custom(toml: &str) -> SimWorld {
    SimWorld::new(parse_scenario(toml, "test.toml").unwrap(), 42)
}

const SHORT_DURATIONS: &str = include_str!("data/short_durations.toml");

fn get(w: &SimWorld, mosk: bool, plural: &str, ns: Option<&str>, name: &str) -> Option<Value> {
    let store = if mosk { w.mosk() } else { w.mgmt() };
    store.get(plural, ns, name)
}

fn nwl(w: &SimWorld, name: &str) -> Value {
    get(w, true, "nodeworkloadlocks", None, name).unwrap_or_else(|| panic!("lock {name}"))
}

fn str_at<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or_default()
}

fn machine_state(w: &SimWorld, name: &str) -> String {
    let m = get(w, false, "lcmmachines", Some("child-ns"), name).expect("machine");
    str_at(&m, "/status/state").to_string()
}

/// Merge-patches a Node annotation as an operator would (kubectl annotate --overwrite).
fn annotate(w: &SimWorld, node: &str, key: &str, value: &str) {
    let body = json!({"metadata": {"annotations": {key: value}}}).to_string();
    w.mosk()
        .patch(
            "nodes",
            None,
            node,
            None,
            "application/merge-patch+json",
            body.as_bytes(),
            false,
        )
        .expect("patch node");
}

const MODE: &str = "openstack.lcm.mirantis.com/instance_migration_mode";
const ATTEMPTS: &str = "openstack.lcm.mirantis.com/instance_migration_attempts";

/// The text of a Rockoon errorMessage after its `str(datetime.utcnow())` prefix.
fn strip_ts(msg: &str) -> String {
    let re = Regex::new(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})? ").unwrap();
    assert!(re.is_match(msg), "no Python UTC timestamp prefix: {msg:?}");
    re.replace(msg, "").to_string()
}

fn subscribe(w: &SimWorld) -> broadcast::Receiver<std::sync::Arc<StoreEvent>> {
    w.mosk()
        .watch(
            "nodeworkloadlocks",
            WatchFrom::Since(w.mosk().resource_version()),
        )
        .unwrap()
        .rx
}

/// errorMessages written to lock `name` since the last call, timestamps stripped.
fn drain_messages(
    rx: &mut broadcast::Receiver<std::sync::Arc<StoreEvent>>,
    name: &str,
    out: &mut Vec<String>,
) {
    while let Ok(ev) = rx.try_recv() {
        if ev.plural != "nodeworkloadlocks" || str_at(&ev.object, "/metadata/name") != name {
            continue;
        }
        let new = str_at(&ev.object, "/status/errorMessage");
        let old = ev
            .old
            .as_ref()
            .map(|o| str_at(o, "/status/errorMessage"))
            .unwrap_or_default();
        if !new.is_empty() && new != old {
            out.push(strip_ts(new));
        }
    }
}

/// Sets `skip` on any node whose OpenStack lock waits for the operator, and steps to the end.
fn drive_to_done(w: &SimWorld, limit: SignedDuration) {
    let done = w.step_until(limit, |w| {
        for lock in w.mosk().list("nodeworkloadlocks", None) {
            // 25.1+: "Some servers are still present on the host. ..."; before: "Some servers {...} are still present on host ...".
            let msg = str_at(&lock, "/status/errorMessage");
            if msg.contains("Some servers") && msg.contains("are still present") {
                let node = str_at(&lock, "/spec/nodeName").to_string();
                annotate(w, &node, MODE, "skip");
            }
        }
        w.phase() == UpdatePhase::Done
    });
    assert!(
        done,
        "update did not finish; phase {:?}; timeline tail {:?}",
        w.phase(),
        w.timeline().iter().rev().take(5).collect::<Vec<_>>()
    );
}
