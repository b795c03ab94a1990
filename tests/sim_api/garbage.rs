//! Raw HTTP against the router: bad input gets `Status` errors with the
//! right codes and the server keeps serving.

use axum::http::StatusCode;

use crate::common::*;

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
