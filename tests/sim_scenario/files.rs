//! Scenario files and determinism.

use mosk_console::sim::scenario::{ScenarioError, load_scenario};
use mosk_console::sim::world::SimWorld;
use regex::Regex;
use serde_json::{Value, json};

use super::*;

#[test]
fn bad_scenario_file_error_names_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.toml");
    std::fs::write(&path, "name = \"b\"\n[[machines]]\nrole = \"control\"\ncount = 1\n[durations]\ndrain = \"fast\"\n").unwrap();
    let e = load_scenario(path.to_str().unwrap()).unwrap_err();
    assert!(matches!(e, ScenarioError::Parse { .. }));
    let text = e.to_string();
    assert!(
        text.contains("broken.toml") && text.contains("durations.drain") && text.contains("line 6"),
        "{text}"
    );

    std::fs::write(
        &path,
        "name = \"b\"\nworker_concurrency = 500\n[[machines]]\nrole = \"control\"\ncount = 1\n",
    )
    .unwrap();
    let text = load_scenario(path.to_str().unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("broken.toml")
            && text.contains("`worker_concurrency`")
            && text.contains("out of range"),
        "{text}"
    );
}

/// Both stores with the store-made uids and resource versions taken out.
fn snapshot(w: &SimWorld) -> Value {
    fn scrub(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("uid");
                m.remove("resourceVersion");
                m.values_mut().for_each(scrub);
            }
            Value::Array(a) => a.iter_mut().for_each(scrub),
            _ => {}
        }
    }
    let mut v = json!({"mgmt": w.mgmt().dump(), "mosk": w.mosk().dump()});
    scrub(&mut v);
    v
}

#[test]
fn same_seed_same_world_other_seed_other_names() {
    let a = quick(11);
    let b = quick(11);
    a.step(40 * MIN);
    b.step(40 * MIN);
    assert_eq!(snapshot(&a), snapshot(&b));
    assert_eq!(a.lcm_log(), b.lcm_log());
    assert_eq!(a.timeline(), b.timeline());
    let c = quick(12);
    assert_ne!(a.machines()[0].name, c.machines()[0].name);
    assert_ne!(a.machines()[0].node, c.machines()[0].node);
    // Names look like the documented ones.
    let m = &a.machines()[3];
    assert!(
        Regex::new(r"^cz75\d\d-child-cl-storage-worker-[a-z0-9]{5}$")
            .unwrap()
            .is_match(&m.name),
        "{}",
        m.name
    );
    assert!(
        Regex::new(
            r"^kaas-node-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"
        )
        .unwrap()
        .is_match(&m.node),
        "{}",
        m.node
    );
    assert!(
        Regex::new(r"^lcm-lcm-controller-[a-z0-9]{10}-[a-z0-9]{5}$")
            .unwrap()
            .is_match(&a.lcm_pod())
    );
}
