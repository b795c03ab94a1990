//! kube_runtime's watcher against the simulator: initial list, live
//! changes, resume after a dropped stream, re-list after 410, streaming lists.

use k8s_openapi::api::core::v1::Node;
use kube::api::Api;
use kube::runtime::watcher::{self, Event};
use serde_json::json;

use crate::common::*;

fn name(n: &Node) -> String {
    n.metadata.name.clone().unwrap_or_default()
}

/// Reads the initial Init, InitApply…, InitDone sequence; returns the names listed.
async fn initial<S>(s: &mut S) -> Vec<String>
where
    S: futures::Stream<Item = Result<Event<Node>, watcher::Error>> + Unpin,
{
    assert!(matches!(next(s).await, Ok(Event::Init)));
    let mut names = Vec::new();
    loop {
        match next(s).await {
            Ok(Event::InitApply(n)) => names.push(name(&n)),
            Ok(Event::InitDone) => return names,
            other => panic!("unexpected during init: {other:?}"),
        }
    }
}

#[tokio::test]
async fn watcher_lists_then_sees_changes() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    let mut s = Box::pin(watcher::watcher(api, watcher::Config::default()));
    assert_eq!(
        initial(&mut s).await,
        ["kaas-node-1", "kaas-node-2", "kaas-node-3"]
    );
    sim.store
        .update("nodes", None, "kaas-node-1", |n| {
            n["spec"] = json!({"unschedulable": true});
        })
        .unwrap();
    match next(&mut s).await {
        Ok(Event::Apply(n)) => {
            assert_eq!(name(&n), "kaas-node-1");
            assert_eq!(n.spec.unwrap().unschedulable, Some(true));
        }
        other => panic!("{other:?}"),
    }
    sim.store
        .delete(
            "nodes",
            None,
            "kaas-node-3",
            &serde_json::Value::Null,
            false,
        )
        .unwrap();
    match next(&mut s).await {
        Ok(Event::Delete(n)) => assert_eq!(name(&n), "kaas-node-3"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn dropped_watch_resumes_without_a_relist() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    let mut s = Box::pin(watcher::watcher(api, watcher::Config::default()));
    initial(&mut s).await;
    // Keep polling (the watcher only connects when polled) while we drop its stream.
    let next_poll = tokio::spawn(async move {
        let e = next(&mut s).await;
        (e, s)
    });
    sim.wait_for_watches(1).await;
    assert_eq!(sim.list_requests("nodes"), 1);
    sim.faults.drop_watches();
    sim.wait_for_watches(2).await;
    sim.store.create("nodes", node("kaas-node-4")).unwrap();
    let (e, _s) = next_poll.await.unwrap();
    match e {
        Ok(Event::Apply(n)) => assert_eq!(name(&n), "kaas-node-4"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        sim.list_requests("nodes"),
        1,
        "no re-list after a dropped stream"
    );
}

#[tokio::test]
async fn forced_410_makes_the_watcher_relist() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    let mut s = Box::pin(watcher::watcher(api, watcher::Config::default()));
    initial(&mut s).await;
    sim.store.create("nodes", node("kaas-node-4")).unwrap();
    assert!(matches!(next(&mut s).await, Ok(Event::Apply(_))));
    sim.faults.force_410_next_watch();
    sim.faults.drop_watches();
    match next(&mut s).await {
        Err(watcher::Error::WatchError(status)) => assert_eq!(status.code, 410),
        other => panic!("expected the 410 error, got {other:?}"),
    }
    assert_eq!(
        initial(&mut s).await,
        ["kaas-node-1", "kaas-node-2", "kaas-node-3", "kaas-node-4"]
    );
    assert_eq!(sim.list_requests("nodes"), 2);
}

#[tokio::test]
async fn expired_resume_point_gets_410_and_relists() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    let mut s = Box::pin(watcher::watcher(api, watcher::Config::default()));
    initial(&mut s).await;
    // The list's resource version counts as compacted away from now on.
    sim.faults.expire_before(sim.store.resource_version() + 1);
    sim.faults.drop_watches();
    match next(&mut s).await {
        Err(watcher::Error::WatchError(status)) => assert_eq!(status.code, 410),
        other => panic!("expected the 410 error, got {other:?}"),
    }
    sim.faults.expire_before(0);
    assert_eq!(initial(&mut s).await.len(), 3);
}

#[tokio::test]
async fn streaming_list_ends_initial_events_with_a_bookmark() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    let cfg = watcher::Config::default().streaming_lists();
    let mut s = Box::pin(watcher::watcher(api, cfg));
    assert_eq!(
        initial(&mut s).await,
        ["kaas-node-1", "kaas-node-2", "kaas-node-3"]
    );
    assert_eq!(
        sim.list_requests("nodes"),
        0,
        "a streaming list makes no LIST request"
    );
    sim.store.create("nodes", node("kaas-node-4")).unwrap();
    assert!(matches!(next(&mut s).await, Ok(Event::Apply(n)) if name(&n) == "kaas-node-4"));
}
