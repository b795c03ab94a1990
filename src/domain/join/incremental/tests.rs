//! The incremental join must equal the whole join after every change.
use super::*;
use crate::domain::fixtures;
use crate::domain::objects::{Object, ObjectKey};
use std::sync::Arc;

/// Applies `change` to `snap` and `rows` the way `settle` does: the reaches
/// of the old and the new version, then `rejoin` (or the whole join).
fn step(
    snap: &mut Snapshot,
    rows: &mut Vec<MachineRow>,
    change: Result<Object, ObjectKey>,
) -> bool {
    let mut reaches = Vec::new();
    let key = match &change {
        Ok(o) => o.key(),
        Err(k) => k.clone(),
    };
    let old = snap.objects().get(&key);
    match change {
        Ok(o) => {
            reach_change(old, &o, &mut reaches);
            snap.apply(o);
        }
        Err(k) => {
            if let Some(old) = old {
                reach(old, &mut reaches);
            }
            snap.remove(&k);
        }
    }
    let incremental = rejoin(rows, snap, &reaches);
    if !incremental {
        *rows = machine_rows(snap);
    }
    assert_eq!(*rows, machine_rows(snap), "after {key:?}");
    incremental
}

#[test]
fn building_the_mid_update_cluster_object_by_object_matches_the_whole_join() {
    let target = fixtures::mid_update();
    let mut snap = Snapshot::default();
    let mut rows = machine_rows(&snap);
    let mut incremental = 0;
    for obj in target.objects().values() {
        incremental += usize::from(step(&mut snap, &mut rows, Ok(obj.clone())));
    }
    // Most changes (machines, nodes, locks, states) re-join a few rows.
    assert!(
        incremental * 2 > target.objects().len(),
        "{incremental} of {}",
        target.objects().len()
    );
    // And taken apart again.
    for key in target.objects().keys() {
        step(&mut snap, &mut rows, Err(key.clone()));
    }
    assert!(rows.is_empty());
}

#[test]
fn a_lock_moving_to_another_node_rejoins_both_nodes() {
    let mut snap = fixtures::mid_update();
    let mut rows = machine_rows(&snap);
    let lock = snap
        .node_locks()
        .find(|l| l.node_name.is_some())
        .expect("a node lock")
        .clone();
    let other = snap
        .machines()
        .filter_map(|m| m.hostname.clone())
        .find(|h| Some(h) != lock.node_name.as_ref())
        .expect("another node");
    let mut moved = lock.clone();
    moved.node_name = Some(other);
    assert!(step(
        &mut snap,
        &mut rows,
        Ok(Object::NodeWorkloadLock(Arc::new(moved)))
    ));
}

#[test]
fn a_machine_renamed_hostname_and_an_unplaceable_change() {
    let mut snap = fixtures::mid_update();
    let mut rows = machine_rows(&snap);
    let mut m = snap.machines().next().expect("a machine").clone();
    m.hostname = None;
    assert!(step(
        &mut snap,
        &mut rows,
        Ok(Object::Machine(Arc::new(m.clone())))
    ));
    m.index = Some(-5);
    assert!(step(
        &mut snap,
        &mut rows,
        Ok(Object::Machine(Arc::new(m.clone())))
    ));
    // Its index moves it from the first row to the last of its type, and
    // back: the rows are sorted again.
    let first = rows.first().map(|r| r.name().to_string());
    let mut last = snap
        .machines()
        .find(|x| Some(&x.name) == first.as_ref())
        .expect("the first row's machine")
        .clone();
    let index = last.index;
    last.index = Some(i64::MAX);
    assert!(step(
        &mut snap,
        &mut rows,
        Ok(Object::Machine(Arc::new(last.clone())))
    ));
    assert_ne!(rows.first().map(|r| r.name().to_string()), first);
    last.index = index;
    assert!(step(
        &mut snap,
        &mut rows,
        Ok(Object::Machine(Arc::new(last)))
    ));
    assert_eq!(rows.first().map(|r| r.name().to_string()), first);
    // A malformed object cannot be placed: the whole join.
    let bad = Object::Malformed(Arc::new(crate::domain::objects::MalformedObject {
        kind: crate::domain::objects::Kind::NodeWorkloadLock,
        namespace: String::new(),
        name: "bad".into(),
        error: "spec: invalid".into(),
    }));
    assert!(!step(&mut snap, &mut rows, Ok(bad)));
}

#[test]
fn a_daemonset_reaches_the_rows_only_when_its_pods_revisions_may_change() {
    let mut snap = fixtures::mid_update();
    let mut rows = machine_rows(&snap);
    let ds = snap
        .vrouter_daemonsets()
        .next()
        .expect("a DaemonSet")
        .clone();
    // A pod restarted: READY moves, nothing the revision reads does.
    let mut counted = ds.clone();
    counted.ready -= 1;
    let mut reaches = Vec::new();
    let old = snap
        .objects()
        .get(&Object::VrouterDaemonSet(Arc::new(ds.clone())).key());
    reach_change(
        old,
        &Object::VrouterDaemonSet(Arc::new(counted.clone())),
        &mut reaches,
    );
    assert!(reaches.is_empty(), "{reaches:?}");
    assert!(step(
        &mut snap,
        &mut rows,
        Ok(Object::VrouterDaemonSet(Arc::new(counted.clone())))
    ));
    // Every scheduled pod counted updated, a new template: every row.
    let mut updated = counted.clone();
    updated.updated = updated.current;
    assert!(!step(
        &mut snap,
        &mut rows,
        Ok(Object::VrouterDaemonSet(Arc::new(updated.clone())))
    ));
    let mut template = updated;
    template.template_generation = template.template_generation.map(|g| g + 1);
    assert!(!step(
        &mut snap,
        &mut rows,
        Ok(Object::VrouterDaemonSet(Arc::new(template)))
    ));
}
