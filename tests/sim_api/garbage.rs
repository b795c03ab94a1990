//! Raw HTTP against the router: bad input gets `Status` errors with the
//! right codes and the server keeps serving; raw watch stream details.

use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode};
use futures::StreamExt;
use mosk_console::sim::rbac::Rbac;
use mosk_console::sim::registry::Registry;
use serde_json::Value;
use tower::ServiceExt;

use crate::common::*;

async fn call(
    sim: &Sim,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = sim
        .router
        .clone()
        .oneshot(req.body(Body::from(body)).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    let v = serde_json::from_slice(&bytes)
        .unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, v)
}

/// Asserts a `Status` error body with this code.
fn assert_status(got: (StatusCode, Value), code: u16, what: &str) {
    let (status, body) = got;
    assert_eq!(status.as_u16(), code, "{what}: {body}");
    assert_eq!(body["kind"], "Status", "{what}: {body}");
    assert_eq!(body["code"], code, "{what}: {body}");
    assert!(
        body["reason"].as_str().is_some_and(|r| !r.is_empty()),
        "{what}: {body}"
    );
}

#[tokio::test]
async fn garbage_requests_get_status_errors_and_the_server_keeps_serving() {
    let sim = mosk();
    let json = [("Content-Type", "application/json")];
    let merge = [("Content-Type", "application/merge-patch+json")];
    for path in [
        "/",
        "/foo",
        "/api/v1/nodes/a/b/c/d",
        "/apis/nope/v1/things",
        "/api/v1/namespaces/x/nodes",
        "/api/v2/nodes",
        "/api/v1/nodes/%ff%fe",
        "/api/v1/pods/x",
        "/openapi/v3",
    ] {
        assert_status(call(&sim, "GET", path, &[], vec![]).await, 404, path);
    }
    assert_status(
        call(&sim, "POST", "/api/v1/nodes", &json, b"{not json".to_vec()).await,
        400,
        "bad JSON",
    );
    assert_status(
        call(&sim, "POST", "/api/v1/nodes", &json, b"[1,2]".to_vec()).await,
        400,
        "not an object",
    );
    assert_status(
        call(
            &sim,
            "POST",
            "/api/v1/nodes",
            &[("Content-Type", "text/plain")],
            b"{}".to_vec(),
        )
        .await,
        415,
        "text body",
    );
    assert_status(
        call(
            &sim,
            "POST",
            "/api/v1/nodes",
            &json,
            br#"{"metadata":{"name":"Bad Name"}}"#.to_vec(),
        )
        .await,
        422,
        "bad name",
    );
    assert_status(
        call(
            &sim,
            "POST",
            "/api/v1/nodes",
            &json,
            br#"{"metadata":{"name":"kaas-node-1"}}"#.to_vec(),
        )
        .await,
        409,
        "duplicate",
    );
    assert_status(
        call(
            &sim,
            "POST",
            "/api/v1/nodes",
            &json,
            br#"{"kind":"Pod","metadata":{"name":"x"}}"#.to_vec(),
        )
        .await,
        400,
        "wrong kind",
    );
    assert_status(
        call(
            &sim,
            "PATCH",
            "/api/v1/nodes/kaas-node-1",
            &[("Content-Type", "text/plain")],
            b"{}".to_vec(),
        )
        .await,
        415,
        "patch type",
    );
    assert_status(
        call(
            &sim,
            "PATCH",
            "/api/v1/nodes/kaas-node-1",
            &merge,
            b"{oops".to_vec(),
        )
        .await,
        400,
        "patch JSON",
    );
    assert_status(
        call(
            &sim,
            "PATCH",
            "/api/v1/nodes/kaas-node-1",
            &[("Content-Type", "application/json-patch+json")],
            br#"[{"op":"test","path":"/metadata/name","value":"x"}]"#.to_vec(),
        )
        .await,
        422,
        "failed test op",
    );
    assert_status(
        call(
            &sim,
            "PATCH",
            "/api/v1/nodes/kaas-node-1?dryRun=Bogus",
            &merge,
            b"{}".to_vec(),
        )
        .await,
        400,
        "dryRun",
    );
    assert_status(
        call(&sim, "PATCH", "/api/v1/nodes/nope", &merge, b"{}".to_vec()).await,
        404,
        "missing",
    );
    assert_status(
        call(&sim, "PATCH", "/api/v1/nodes", &merge, b"{}".to_vec()).await,
        405,
        "patch collection",
    );
    assert_status(
        call(
            &sim,
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            &json,
            b"{}".to_vec(),
        )
        .await,
        405,
        "CRDs are read-only",
    );
    assert_status(
        call(&sim, "PUT", "/version", &json, b"{}".to_vec()).await,
        405,
        "PUT /version",
    );
    assert_status(
        call(
            &sim,
            "DELETE",
            "/api/v1/namespaces/tf/pods/tf-vrouter-agent-aaaaa",
            &json,
            b"{bad".to_vec(),
        )
        .await,
        400,
        "delete body",
    );
    assert_status(
        call(&sim, "GET", "/api/v1/nodes?limit=abc", &[], vec![]).await,
        400,
        "limit",
    );
    assert_status(
        call(
            &sim,
            "GET",
            "/api/v1/nodes?labelSelector=a%20in%20(b",
            &[],
            vec![],
        )
        .await,
        400,
        "label selector",
    );
    assert_status(
        call(
            &sim,
            "GET",
            "/api/v1/nodes?fieldSelector=spec.nodeName%3Dx",
            &[],
            vec![],
        )
        .await,
        400,
        "field selector",
    );
    assert_status(
        call(
            &sim,
            "GET",
            "/api/v1/nodes?watch=1&resourceVersion=abc",
            &[],
            vec![],
        )
        .await,
        400,
        "watch rv",
    );
    assert_status(
        call(&sim, "GET", "/api/v1/nodes?continue=zz", &[], vec![]).await,
        400,
        "continue",
    );
    assert_status(
        call(
            &sim,
            "GET",
            "/api/v1/nodes",
            &[("Accept", "application/vnd.kubernetes.protobuf")],
            vec![],
        )
        .await,
        406,
        "protobuf",
    );
    assert_status(
        call(
            &sim,
            "GET",
            "/api/v1/namespaces/tf/pods/tf-vrouter-agent-aaaaa/log?tailLines=x",
            &[],
            vec![],
        )
        .await,
        400,
        "tailLines",
    );
    assert_status(
        call(
            &sim,
            "GET",
            "/api/v1/namespaces/tf/pods/tf-vrouter-agent-aaaaa/log?container=nope",
            &[],
            vec![],
        )
        .await,
        400,
        "container",
    );
    assert_status(
        call(
            &sim,
            "GET",
            "/api/v1/namespaces/tf/pods/nope/log",
            &[],
            vec![],
        )
        .await,
        404,
        "log of a missing pod",
    );
    assert_status(
        call(
            &sim,
            "POST",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            &json,
            b"{}".to_vec(),
        )
        .await,
        422,
        "empty review",
    );
    let huge = vec![b' '; 9 * 1024 * 1024];
    assert_status(
        call(&sim, "POST", "/api/v1/nodes", &json, huge).await,
        413,
        "huge body",
    );
    // Still serving, and nothing was changed by the garbage.
    let (status, huge_limit) = call(
        &sim,
        "GET",
        "/api/v1/nodes?limit=99999999999999",
        &[],
        vec![],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(huge_limit["items"].as_array().unwrap().len(), 3);
    let (status, version) = call(&sim, "GET", "/version", &[], vec![]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(version["minor"], "30");
}

/// The lines of a streamed body, until it ends (bounded by the safety timeout).
async fn stream_lines(sim: &Sim, uri: &str, accept: Option<&str>) -> Vec<Value> {
    let mut req = Request::get(uri);
    if let Some(a) = accept {
        req = req.header("Accept", a);
    }
    let resp = sim
        .router
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let mut body = resp.into_body().into_data_stream();
    let mut buf = Vec::new();
    let read = async {
        while let Some(chunk) = body.next().await {
            let chunk: Bytes = chunk.unwrap();
            buf.extend_from_slice(&chunk);
        }
    };
    tokio::time::timeout(PATIENCE, read)
        .await
        .expect("stream ends within the safety timeout");
    buf.split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

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
