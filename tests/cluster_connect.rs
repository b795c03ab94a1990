//! Connecting: what the operator reads when a kubeconfig or a server is wrong,
//! and which contexts are picked by default.

mod cluster_support;

use cluster_support::write_kubeconfig;

use std::sync::Arc;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mosk_console::cluster::{ConnectError, Target, connect};
use mosk_console::domain::objects::ClusterId;
use mosk_console::sim::clock::Clock;
use mosk_console::sim::faults::Faults;
use mosk_console::sim::registry::Registry;
use mosk_console::sim::server::{ServerOptions, router};
use mosk_console::sim::store::Store;

/// A local URL nothing listens on.
fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

#[tokio::test]
async fn a_missing_kubeconfig_names_the_file_and_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-kubeconfig");
    let err = connect(&Target {
        kubeconfig: Some(path.clone()),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert_eq!(err, ConnectError::MissingFile { path: path.clone() });
    let text = err.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(
        text.contains("does not exist") && text.contains("--kubeconfig"),
        "{text}"
    );
}

#[tokio::test]
async fn a_missing_mosk_kubeconfig_is_reported_too() {
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(dir.path(), "kc", &[("sim-mgmt", "http://127.0.0.1:1")]);
    let missing = dir.path().join("mosk-kubeconfig");
    let err = connect(&Target {
        kubeconfig: Some(kc),
        mosk_kubeconfig: Some(missing.clone()),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert_eq!(err, ConnectError::MissingFile { path: missing });
}

#[tokio::test]
async fn an_unknown_context_lists_the_available_ones() {
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(
        dir.path(),
        "kc",
        &[
            ("sim-mgmt", "http://127.0.0.1:1"),
            ("sim-mosk", "http://127.0.0.1:1"),
        ],
    );
    let err = connect(&Target {
        kubeconfig: Some(kc),
        mosk_context: Some("prod-mosk".into()),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert!(
        matches!(&err, ConnectError::UnknownContext { cluster: ClusterId::Mosk, context, available, .. }
            if context == "prod-mosk" && available == &["sim-mgmt", "sim-mosk"]),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("\"prod-mosk\"")
            && text.contains("available contexts: sim-mgmt, sim-mosk")
            && text.contains("--mosk-context"),
        "{text}"
    );
}

#[tokio::test]
async fn without_a_mosk_context_the_operator_is_told_how_to_choose() {
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(
        dir.path(),
        "kc",
        &[
            ("mgmt", "http://127.0.0.1:1"),
            ("child", "http://127.0.0.1:1"),
        ],
    );
    let err = connect(&Target {
        kubeconfig: Some(kc),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert!(
        matches!(
            &err,
            ConnectError::NoMoskContext {
                ambiguous: false,
                ..
            }
        ),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("available contexts: mgmt, child") && text.contains("--mosk-context"),
        "{text}"
    );
}

#[tokio::test]
async fn an_unreachable_server_names_the_url_and_what_to_check() {
    let dir = tempfile::tempdir().unwrap();
    let url = closed_port_url();
    let kc = write_kubeconfig(dir.path(), "kc", &[("sim-mgmt", &url), ("sim-mosk", &url)]);
    let err = connect(&Target {
        kubeconfig: Some(kc),
        ..Default::default()
    })
    .await
    .unwrap_err();
    let ConnectError::Unreachable {
        context, server, ..
    } = &err
    else {
        panic!("expected Unreachable, got {err:?}");
    };
    assert_eq!(context, "sim-mgmt");
    assert!(server.starts_with(&url), "{server}");
    let text = err.to_string();
    assert!(
        text.contains("Cannot reach the management cluster at")
            && text.contains(&url)
            && text.contains("VPN, proxy, firewall"),
        "{text}"
    );
    assert!(
        text.to_lowercase().contains("refused"),
        "the cause is shown: {text}"
    );
    assert!(text.contains("(asked 3 times)"), "it was retried: {text}");
}

/// Answers `/version` with a body that is not a version while `bad` lasts
/// (a proxy's page cut short), and counts the `/version` requests.
async fn garbled_version(
    axum::extract::State((bad, asked)): axum::extract::State<(
        cluster_support::inproc::Countdown,
        Arc<std::sync::atomic::AtomicU32>,
    )>,
    req: Request,
    next: Next,
) -> Response {
    if req.uri().path() != "/version" {
        return next.run(req).await;
    }
    asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    if bad.take() {
        return (
            [(http::header::CONTENT_TYPE, "application/json")],
            "{\"major\": \"1\", \"minor\": \"3",
        )
            .into_response();
    }
    next.run(req).await
}

/// A management server whose first `bad` `/version` answers are garbled.
async fn garbled_pair(bad: u32) -> (cluster_support::Pair, Arc<std::sync::atomic::AtomicU32>) {
    let clock = Clock::new("2026-03-01T10:00:00Z".parse().unwrap());
    let store = Store::new(Registry::mgmt(), clock);
    let faults = Arc::new(Faults::new());
    let countdown = cluster_support::inproc::Countdown::default();
    countdown.arm(bad);
    let asked = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let app = router(store.clone(), ServerOptions::default()).layer(
        axum::middleware::from_fn_with_state((countdown, asked.clone()), garbled_version),
    );
    let mgmt = cluster_support::serve_app(app, store, faults).await;
    let mosk = cluster_support::serve(Registry::mosk()).await;
    (cluster_support::pair_of(mgmt, mosk), asked)
}

#[tokio::test]
async fn one_malformed_version_answer_is_asked_again() {
    let (p, asked) = garbled_pair(1).await;
    let clusters = connect(&Target {
        kubeconfig: Some(p.kubeconfig.clone()),
        ..Default::default()
    })
    .await
    .expect("the second answer is a version");
    assert_eq!(clusters.mgmt_context, "sim-mgmt");
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_server_that_never_answers_a_version_is_not_called_unreachable() {
    let (p, asked) = garbled_pair(u32::MAX).await;
    let err = connect(&Target {
        kubeconfig: Some(p.kubeconfig.clone()),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert!(
        matches!(
            &err,
            ConnectError::BadVersion {
                cluster: ClusterId::Mgmt,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 3);
    let text = err.to_string();
    assert!(
        text.contains(&format!(
            "The server at {} (the management cluster, context \"sim-mgmt\") answered \
             /version with something that is not a Kubernetes version: ",
            p.mgmt.url
        )) && text.contains("(asked 3 times)"),
        "{text}"
    );
    assert!(!text.contains("Cannot reach"), "{text}");
}

#[tokio::test]
async fn a_kubeconfig_that_is_not_yaml_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kc");
    std::fs::write(&path, "clusters: [\n  - {name: x\n").unwrap();
    let err = connect(&Target {
        kubeconfig: Some(path.clone()),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert!(matches!(err, ConnectError::BadYaml { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&path.display().to_string()) && text.contains("not a valid kubeconfig"),
        "{text}"
    );
}

#[tokio::test]
async fn the_default_contexts_are_current_and_the_one_named_mosk() {
    let p = cluster_support::pair(Registry::mgmt(), Registry::mosk()).await;
    let c = p.connect().await;
    assert_eq!(c.mgmt_context, "sim-mgmt");
    assert_eq!(c.mosk_context, "sim-mosk");
    assert_eq!(c.mgmt_user, "sim-mgmt-admin");
    assert_eq!(c.mosk_user, "sim-mosk-admin");
    assert_eq!(c.mgmt_server, p.mgmt.url);
    assert_eq!(c.mosk_server, p.mosk.url);
    // Each client talks to its own server.
    p.mosk
        .store
        .create("nodes", cluster_support::node("kaas-node-1"))
        .unwrap();
    let nodes: kube::Api<k8s_openapi::api::core::v1::Node> = kube::Api::all(c.mosk.clone());
    assert_eq!(
        nodes.list(&Default::default()).await.unwrap().items.len(),
        1
    );
    let nodes: kube::Api<k8s_openapi::api::core::v1::Node> = kube::Api::all(c.mgmt.clone());
    assert!(
        nodes
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
}

#[tokio::test]
async fn a_separate_mosk_kubeconfig_uses_its_current_context() {
    let mgmt = cluster_support::serve(Registry::mgmt()).await;
    let mosk = cluster_support::serve(Registry::mosk()).await;
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(dir.path(), "mgmt", &[("mcc", &mgmt.url)]);
    let mosk_kc = write_kubeconfig(dir.path(), "child", &[("child-cl", &mosk.url)]);
    let c = connect(&Target {
        kubeconfig: Some(kc),
        mosk_kubeconfig: Some(mosk_kc),
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(
        (c.mgmt_context.as_str(), c.mosk_context.as_str()),
        ("mcc", "child-cl")
    );
    assert_eq!(c.mosk_server, mosk.url);
}

/// Answers 401 to any request without the right token, as an API server
/// does for an expired token (the simulator itself does no authentication).
async fn require_token(req: Request, next: Next) -> Response {
    let ok = req
        .headers()
        .get(http::header::AUTHORIZATION)
        .is_some_and(|v| v == "Bearer the-right-token");
    if ok {
        return next.run(req).await;
    }
    let status = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": "Unauthorized", "reason": "Unauthorized", "code": 401});
    (http::StatusCode::UNAUTHORIZED, axum::Json(status)).into_response()
}

#[tokio::test]
async fn refused_credentials_name_the_user_and_suggest_a_fresh_kubeconfig() {
    let clock = Clock::new("2026-03-01T10:00:00Z".parse().unwrap());
    let store = Store::new(Registry::mgmt(), clock);
    let faults = Arc::new(Faults::new());
    let app = router(store.clone(), ServerOptions::default())
        .layer(axum::middleware::from_fn(require_token));
    let mgmt = cluster_support::serve_app(app, store, faults).await;
    let mosk = cluster_support::serve(Registry::mosk()).await;
    let p = cluster_support::pair_of(mgmt, mosk);
    let err = connect(&Target {
        kubeconfig: Some(p.kubeconfig.clone()),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert!(
        matches!(&err, ConnectError::AuthFailed { cluster: ClusterId::Mgmt, code: 401, user, .. } if user == "sim-mgmt-admin"),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("refused the credentials of user \"sim-mgmt-admin\"")
            && text.contains(&p.mgmt.url)
            && text.contains("fresh kubeconfig"),
        "{text}"
    );
}
