use std::sync::Arc;

use jiff::SignedDuration;
use serde_json::{Value, json};

use super::*;
use crate::sim::clock::Clock;
use crate::sim::registry::Registry;

fn store() -> Arc<Store> {
    let clock = Clock::new("2026-01-01T00:00:00Z".parse().unwrap());
    Store::new(Registry::mosk(), clock)
}

fn pod(name: &str) -> Value {
    json!({"metadata": {"name": name, "namespace": "tf", "labels": {"app": "tf-vrouter-agent"}},
           "spec": {"nodeName": "kaas-node-1", "containers": [{"name": "agent"}]}})
}

fn nwl(name: &str) -> Value {
    json!({"metadata": {"name": name}, "spec": {"controllerName": "openstack", "nodeName": "kaas-node-1"},
           "status": {"state": "active"}})
}

fn rv(v: &Value) -> u64 {
    v["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn create_fills_metadata_and_refuses_duplicates() {
    let s = store();
    let before = s.resource_version();
    let p = s.create("pods", pod("a")).unwrap();
    assert_eq!(p["apiVersion"], "v1");
    assert_eq!(p["kind"], "Pod");
    assert_eq!(p["metadata"]["generation"], 1);
    assert_eq!(p["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
    assert!(p["metadata"]["uid"].as_str().unwrap().len() > 10);
    assert_eq!(rv(&p), before + 1);
    let e = s.create("pods", pod("a")).unwrap_err();
    assert_eq!((e.code, e.reason.as_str()), (409, "AlreadyExists"));
    assert_eq!(e.message, "pods \"a\" already exists");
    let e = s
        .create("nodes", json!({"metadata": {"name": "Bad_Name"}}))
        .unwrap_err();
    assert_eq!(e.code, 422);
    let e = s
        .create("pods", json!({"metadata": {"name": "nons"}}))
        .unwrap_err();
    assert_eq!(e.code, 422);
}

#[test]
fn crds_are_served_as_objects() {
    let s = store();
    let crds = s.list("customresourcedefinitions", None);
    assert_eq!(crds.len(), 8);
    for name in [
        "nodeworkloadlocks.lcm.mirantis.com",
        "openstackdeploymentstatus.lcm.mirantis.com",
        "cephdeploymenthealths.lcm.mirantis.com",
    ] {
        assert!(
            s.get("customresourcedefinitions", None, name).is_some(),
            "{name}"
        );
    }
}

#[test]
fn update_without_change_is_silent_and_spec_change_bumps_generation() {
    let s = store();
    s.create("nodeworkloadlocks", nwl("openstack-n1")).unwrap();
    let rv0 = s.resource_version();
    let same = s
        .update("nodeworkloadlocks", None, "openstack-n1", |_| {})
        .unwrap();
    assert_eq!(s.resource_version(), rv0);
    assert_eq!(rv(&same), rv0);
    let st = s
        .update("nodeworkloadlocks", None, "openstack-n1", |o| {
            o["status"]["state"] = json!("inactive")
        })
        .unwrap();
    assert_eq!(st["metadata"]["generation"], 1);
    assert_eq!(rv(&st), rv0 + 1);
    let sp = s
        .update("nodeworkloadlocks", None, "openstack-n1", |o| {
            o["spec"]["nodeName"] = json!("n2")
        })
        .unwrap();
    assert_eq!(sp["metadata"]["generation"], 2);
    assert_eq!(
        s.update("nodeworkloadlocks", None, "nope", |_| {})
            .unwrap_err()
            .code,
        404
    );
}

#[test]
fn status_subresource_rules() {
    let s = store();
    s.create("nodeworkloadlocks", nwl("l")).unwrap();
    let ct = "application/merge-patch+json";
    let main = s
        .patch(
            "nodeworkloadlocks",
            None,
            "l",
            None,
            ct,
            br#"{"metadata":{"labels":{"a":"b"}},"status":{"state":"inactive"}}"#,
            false,
        )
        .unwrap();
    assert_eq!(
        main["status"]["state"], "active",
        "main resource ignores status"
    );
    assert_eq!(main["metadata"]["labels"]["a"], "b");
    let st = s
        .patch("nodeworkloadlocks", None, "l", Some("status"), ct,
               br#"{"metadata":{"labels":{"a":"c"}},"status":{"state":"inactive"},"spec":{"nodeName":"x"}}"#, false)
        .unwrap();
    assert_eq!(st["status"]["state"], "inactive");
    assert_eq!(
        st["metadata"]["labels"]["a"], "b",
        "status patch changes only status"
    );
    assert_eq!(st["spec"]["nodeName"], "kaas-node-1");
    // NMRs have no status subresource.
    s.create(
        "nodemaintenancerequests",
        json!({"metadata": {"name": "m"}, "spec": {"nodeName": "n"}}),
    )
    .unwrap();
    let e = s
        .patch(
            "nodemaintenancerequests",
            None,
            "m",
            Some("status"),
            ct,
            b"{}",
            false,
        )
        .unwrap_err();
    assert_eq!(e.code, 404);
}

#[test]
fn dry_run_patch_changes_nothing_and_emits_nothing() {
    let s = store();
    s.create("nodes", json!({"metadata": {"name": "n1"}}))
        .unwrap();
    let w = s
        .watch("nodes", WatchFrom::Since(s.resource_version()))
        .unwrap();
    let rv0 = s.resource_version();
    let out = s
        .patch(
            "nodes",
            None,
            "n1",
            None,
            "application/merge-patch+json",
            br#"{"metadata":{"annotations":{"k":"v"}}}"#,
            true,
        )
        .unwrap();
    assert_eq!(out["metadata"]["annotations"]["k"], "v");
    assert_eq!(s.resource_version(), rv0);
    assert!(
        s.get("nodes", None, "n1").unwrap()["metadata"]
            .get("annotations")
            .is_none()
    );
    let mut rx = w.rx;
    assert!(rx.try_recv().is_err());
}

#[test]
fn patch_checks_resource_version_uid_and_immutable_name() {
    let s = store();
    let n = s
        .create("nodes", json!({"metadata": {"name": "n1"}}))
        .unwrap();
    let ct = "application/merge-patch+json";
    let stale = format!(
        r#"{{"metadata":{{"resourceVersion":"{}","labels":{{"a":"b"}}}}}}"#,
        rv(&n) - 1
    );
    assert_eq!(
        s.patch("nodes", None, "n1", None, ct, stale.as_bytes(), false)
            .unwrap_err()
            .code,
        409
    );
    let uid = r#"{"metadata":{"uid":"other"}}"#;
    assert_eq!(
        s.patch("nodes", None, "n1", None, ct, uid.as_bytes(), false)
            .unwrap_err()
            .code,
        409
    );
    let name = r#"{"metadata":{"name":"n2"}}"#;
    assert_eq!(
        s.patch("nodes", None, "n1", None, ct, name.as_bytes(), false)
            .unwrap_err()
            .code,
        422
    );
    let ann = r#"{"metadata":{"annotations":{"a":1}}}"#;
    assert_eq!(
        s.patch("nodes", None, "n1", None, ct, ann.as_bytes(), false)
            .unwrap_err()
            .code,
        422
    );
}

#[test]
fn pod_delete_waits_for_grace_then_tick_removes() {
    let clock = Clock::new("2026-01-01T00:00:00Z".parse().unwrap());
    let s = Store::new(Registry::mosk(), clock.clone());
    let p = s.create("pods", pod("a")).unwrap();
    s.append_log("tf", "a", "agent", "hello");
    let stale = json!({"preconditions": {"uid": "not-the-uid"}});
    let e = s
        .delete("pods", Some("tf"), "a", &stale, false)
        .unwrap_err();
    assert_eq!(e.code, 409);
    assert!(
        e.message
            .contains("Precondition failed: UID in precondition: not-the-uid")
    );
    let ok = json!({"preconditions": {"uid": p["metadata"]["uid"]}, "gracePeriodSeconds": 10});
    let d = s.delete("pods", Some("tf"), "a", &ok, false).unwrap();
    assert_eq!(d["metadata"]["deletionTimestamp"], "2026-01-01T00:00:10Z");
    s.tick();
    assert!(s.get("pods", Some("tf"), "a").is_some());
    clock.advance(SignedDuration::from_secs(10));
    s.tick();
    assert!(s.get("pods", Some("tf"), "a").is_none());
    assert!(s.logs("tf", "a", "agent").is_empty());
}

#[test]
fn finalizers_hold_deletion_until_removed() {
    let s = store();
    let mut m = json!({"metadata": {"name": "m", "finalizers": ["lcm.mirantis.com/openstack"]}, "spec": {"nodeName": "n"}});
    s.create("nodemaintenancerequests", m.take()).unwrap();
    let d = s
        .delete("nodemaintenancerequests", None, "m", &Value::Null, false)
        .unwrap();
    assert!(d["metadata"]["deletionTimestamp"].is_string());
    assert!(s.get("nodemaintenancerequests", None, "m").is_some());
    // A controller edit cannot clear deletionTimestamp; removing the last finalizer finishes it.
    s.update("nodemaintenancerequests", None, "m", |o| {
        o["metadata"]["finalizers"] = json!([]);
    })
    .unwrap();
    assert!(s.get("nodemaintenancerequests", None, "m").is_none());
    s.create(
        "nodemaintenancerequests",
        json!({"metadata": {"name": "k", "finalizers": ["x"]}}),
    )
    .unwrap();
    s.delete("nodemaintenancerequests", None, "k", &Value::Null, false)
        .unwrap();
    s.remove_finalizers_and_delete("nodemaintenancerequests", None, "k")
        .unwrap();
    assert!(s.get("nodemaintenancerequests", None, "k").is_none());
}

#[test]
fn watch_resumes_from_window_and_expires_old_versions() {
    let clock = Clock::new("2026-01-01T00:00:00Z".parse().unwrap());
    let s = Store::with_window(Registry::mosk(), clock, 3);
    let start = s.resource_version();
    for i in 0..3 {
        s.create("nodes", json!({"metadata": {"name": format!("n{i}")}}))
            .unwrap();
    }
    let w = s.watch("nodes", WatchFrom::Since(start)).unwrap();
    assert_eq!(w.initial.len(), 3);
    s.create("nodes", json!({"metadata": {"name": "n3"}}))
        .unwrap();
    let e = s.watch("nodes", WatchFrom::Since(start)).unwrap_err();
    assert_eq!((e.code, e.reason.as_str()), (410, "Expired"));
    assert_eq!(
        s.watch("nodes", WatchFrom::Since(start + 1))
            .unwrap()
            .initial
            .len(),
        3
    );
    let snap = s.watch("nodes", WatchFrom::Snapshot).unwrap();
    assert_eq!(snap.initial.len(), 4);
}

#[test]
fn list_at_rebuilds_past_snapshots() {
    let s = store();
    s.create("nodes", json!({"metadata": {"name": "a"}}))
        .unwrap();
    let at = s.resource_version();
    s.create("nodes", json!({"metadata": {"name": "b"}}))
        .unwrap();
    s.delete("nodes", None, "a", &Value::Null, false).unwrap();
    let (now, _) = s.list_at("nodes", None, None).unwrap();
    assert_eq!(now.len(), 1);
    let (then, rv_then) = s.list_at("nodes", None, Some(at)).unwrap();
    assert_eq!(rv_then, at);
    assert_eq!(then.len(), 1);
    assert_eq!(then[0]["metadata"]["name"], "a");
}

#[test]
fn list_pages_read_one_snapshot_through_changes_and_a_filter() {
    let s = store();
    for n in ["a", "b", "c", "d", "e"] {
        s.create(
            "nodes",
            json!({"metadata": {"name": n, "labels": {"keep": "yes"}}}),
        )
        .unwrap();
    }
    s.create("nodes", json!({"metadata": {"name": "bb"}}))
        .unwrap();
    let keep = |o: &Value| o["metadata"]["labels"]["keep"] == "yes";
    let names = |items: &[Value]| -> Vec<String> {
        items
            .iter()
            .map(|o| o["metadata"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    // A page copied out: (items, remaining, resource version).
    let list = |at: Option<u64>, page: &ListPage| {
        s.with_page("nodes", None, at, page, keep, |p| {
            (
                p.items.into_iter().cloned().collect::<Vec<Value>>(),
                p.remaining,
                p.rv,
            )
        })
        .unwrap()
    };
    let (first, remaining, rv) = list(
        None,
        &ListPage {
            after: None,
            limit: Some(2),
        },
    );
    assert_eq!(names(&first), ["a", "b"]);
    assert_eq!(remaining, 3, "bb is filtered out of the count too");
    // Changes after the first page: none of them reaches the next pages.
    s.delete("nodes", None, "c", &Value::Null, false).unwrap();
    s.create(
        "nodes",
        json!({"metadata": {"name": "cc", "labels": {"keep": "yes"}}}),
    )
    .unwrap();
    s.update("nodes", None, "e", |e| {
        e["metadata"]["labels"]["changed"] = json!("later")
    })
    .unwrap();
    let after = |items: &[Value]| ListPage {
        after: Some((String::new(), names(items).pop().unwrap())),
        limit: Some(2),
    };
    let (second, remaining, second_rv) = list(Some(rv), &after(&first));
    assert_eq!(names(&second), ["c", "d"]);
    assert_eq!(remaining, 1);
    assert_eq!(second_rv, rv);
    let (third, remaining, _) = list(Some(rv), &after(&second));
    assert_eq!(names(&third), ["e"]);
    assert_eq!(remaining, 0);
    assert_eq!(
        third[0]["metadata"]["labels"].get("changed"),
        None,
        "the page shows e as it stood at the snapshot"
    );
    // Now, the same pages see the changes.
    let (now, _, _) = list(None, &ListPage::default());
    assert_eq!(names(&now), ["a", "b", "cc", "d", "e"]);
}
