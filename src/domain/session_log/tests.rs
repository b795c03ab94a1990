use super::*;
use crate::domain::fixtures::at;
use crate::domain::fixtures::update_plan::{paused_before, plan_snapshot, running};
use crate::domain::objects::{Object, VrouterPod};
use std::sync::Arc;

#[test]
fn update_plan_step_changes_are_in_the_timeline_once() {
    let mut log = SessionLog::new();
    let paused = plan_snapshot(paused_before(1));
    log.observe(None, &[], &paused, at("10:00"));
    let first = log.timeline().count();
    assert!(first >= 2, "every step's first sight: {:?}", log.timeline);
    assert!(
        log.timeline()
            .all(|e| e.at == at("10:00") && e.what.contains("(first seen)"))
    );
    // The same content again (another generation): nothing new.
    log.observe(None, &[], &plan_snapshot(paused_before(1)), at("10:02"));
    assert_eq!(log.timeline().count(), first);

    log.observe(
        None,
        &[],
        &plan_snapshot(running(1, at("10:05"))),
        at("10:05"),
    );
    let new: Vec<&TimelineEntry> = log.timeline().skip(first).collect();
    assert_eq!(new.len(), 1, "{new:?}");
    assert_eq!(new[0].at, at("10:05"));
    assert!(
        new[0].what.contains("step 2/") && new[0].what.ends_with("NotStarted \u{2192} InProgress"),
        "{}",
        new[0].what
    );
}

fn pod(name: &str, uid: &str) -> Object {
    Object::VrouterPod(Arc::new(VrouterPod {
        name: name.into(),
        namespace: "tf".into(),
        uid: uid.into(),
        node_name: Some("kaas-node-1".into()),
        daemonset: Some("tf-vrouter-agent".into()),
        revision: None,
        template_generation: Some(1),
        phase: "Running".into(),
        ready: true,
        deleting: false,
        created: None,
    }))
}

#[test]
fn a_vrouter_pod_replaced_on_its_node_is_recorded() {
    let mut log = SessionLog::new();
    let mut snap = crate::domain::objects::Snapshot::default();
    snap.apply(pod("tf-vrouter-agent-a", "u1"));
    log.observe(None, &[], &snap, at("10:00"));
    assert_eq!(log.replaced().count(), 0);
    let mut snap = crate::domain::objects::Snapshot::default();
    snap.apply(pod("tf-vrouter-agent-b", "u2"));
    log.observe(None, &[], &snap, at("10:01"));
    let r: Vec<&PodReplacement> = log.replaced().collect();
    assert_eq!(r.len(), 1);
    assert_eq!(
        (r[0].old.as_str(), r[0].new.as_str(), r[0].at),
        ("tf-vrouter-agent-a", "tf-vrouter-agent-b", at("10:01"))
    );
}
