//! Raw watch streams: 410 for versions older than the window, typed
//! bookmarks at timeout, one-row Table events.

use mosk_console::sim::rbac::Rbac;
use mosk_console::sim::registry::Registry;

use crate::common::*;

#[tokio::test]
async fn watch_from_a_version_older_than_the_window_is_410() {
    let sim = sim_with(Registry::mosk(), Rbac::allow_all("operator"), 2);
    let rv = sim.store.resource_version();
    for n in ["a", "b", "c"] {
        sim.store.create("nodes", node(n)).unwrap();
    }
    let lines = stream_lines(
        &sim,
        &format!("/api/v1/nodes?watch=1&resourceVersion={rv}"),
        None,
    )
    .await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["type"], "ERROR");
    assert_eq!(lines[0]["object"]["code"], 410);
    assert_eq!(lines[0]["object"]["reason"], "Expired");
    // Within the window: the missed events, each with its own resource version.
    let lines = stream_lines(
        &sim,
        &format!(
            "/api/v1/nodes?watch=1&resourceVersion={}&timeoutSeconds=1",
            rv + 1
        ),
        None,
    )
    .await;
    let types: Vec<_> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["ADDED", "ADDED"]);
    for l in &lines {
        assert!(
            l["object"]["metadata"]["resourceVersion"]
                .as_str()
                .is_some()
        );
        assert_eq!(l["object"]["kind"], "Node");
    }
}

#[tokio::test]
async fn watch_closes_at_timeout_with_a_typed_bookmark() {
    let sim = mosk();
    let rv = sim.store.resource_version();
    let uri = format!(
        "/api/v1/nodes?watch=true&resourceVersion={rv}&timeoutSeconds=1&allowWatchBookmarks=true"
    );
    let lines = stream_lines(&sim, &uri, None).await;
    let last = lines.last().expect("a bookmark");
    assert_eq!(last["type"], "BOOKMARK");
    assert_eq!(last["object"]["kind"], "Node");
    assert_eq!(last["object"]["apiVersion"], "v1");
    assert_eq!(
        last["object"]["metadata"]["resourceVersion"],
        rv.to_string()
    );
}

#[tokio::test]
async fn table_watch_events_are_one_row_tables() {
    let sim = mosk();
    let accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
    let lines = stream_lines(
        &sim,
        "/api/v1/namespaces/tf/pods?watch=1&timeoutSeconds=1",
        Some(accept),
    )
    .await;
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["object"]["kind"], "Table");
    assert!(
        !lines[0]["object"]["columnDefinitions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(
        lines[1]["object"]["columnDefinitions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        lines[1]["object"]["rows"][0]["cells"][0],
        "tf-vrouter-agent-bbbbb"
    );
}
