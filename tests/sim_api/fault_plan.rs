//! `--faults SPEC` at the HTTP level, on a world whose clock the test steps:
//! each fault happens at its simulated time, as a client sees it. Also the
//! `Date` header, which follows the simulated clock.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode, header};
use futures::StreamExt;
use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::core::v1::Namespace;
use kube::Client;
use kube::api::{Api, ListParams};
use mosk_console::sim::faults::service::FaultyService;
use mosk_console::sim::faults::spec::FaultPlan;
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::server::date::http_date;
use mosk_console::sim::world::{SimCluster, SimWorld};
use serde_json::Value;
use tower::ServiceExt;

use crate::common::PATIENCE;

fn world(spec: &str) -> Arc<SimWorld> {
    let w = Arc::new(SimWorld::new(load_scenario("quick").unwrap(), 5));
    w.set_fault_plan(FaultPlan::parse(spec).unwrap());
    w
}

async fn get(w: &SimWorld, uri: &str) -> axum::response::Response {
    w.router(SimCluster::Mosk)
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap()
}

/// Reads a streamed body to its end; panics if it does not end in time.
async fn read_to_end(resp: axum::response::Response) -> Vec<u8> {
    let mut body = resp.into_body().into_data_stream();
    let mut buf = Vec::new();
    tokio::time::timeout(PATIENCE, async {
        while let Some(chunk) = body.next().await {
            let chunk: Bytes = chunk.unwrap();
            buf.extend_from_slice(&chunk);
        }
    })
    .await
    .expect("the stream ends within the safety timeout");
    buf
}

/// Whether a streamed body is still open after the server had every chance to close it.
async fn still_open(
    body: &mut (impl futures::Stream<Item = Result<Bytes, axum::Error>> + Unpin),
) -> bool {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    // Data already sent (events, log lines) is read; only the end counts.
    loop {
        match futures::poll!(body.next()) {
            std::task::Poll::Pending => return true,
            std::task::Poll::Ready(Some(Ok(_))) => {}
            std::task::Poll::Ready(_) => return false,
        }
    }
}

fn lines(buf: &[u8]) -> Vec<&[u8]> {
    buf.split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect()
}

fn date_of(resp: &axum::response::Response) -> Timestamp {
    let d = resp.headers()[header::DATE].to_str().unwrap();
    jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(d)
        .unwrap()
}

#[tokio::test]
async fn every_answer_carries_the_simulated_date() {
    let w = world("");
    let resp = get(&w, "/version").await;
    assert_eq!(
        resp.headers()[header::DATE].to_str().unwrap(),
        http_date(w.now()),
        "the scenario starts in January 2026, not now"
    );
    w.step(SignedDuration::from_secs(90));
    let later = get(&w, "/api/v1/nodes").await;
    assert_eq!(date_of(&later), w.now());
    assert_eq!(date_of(&later).duration_since(date_of(&resp)).as_secs(), 90);
    // Errors and streams too.
    let missing = get(&w, "/api/v1/nodes/no-such-node").await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert_eq!(date_of(&missing), w.now());
    let watch = get(&w, "/api/v1/nodes?watch=1&timeoutSeconds=1").await;
    assert_eq!(date_of(&watch), w.now());
}

#[tokio::test]
async fn drop_watch_closes_every_watch_at_its_period() {
    let w = world("drop-watch=30s");
    let resp = get(&w, "/api/v1/nodes?watch=1").await;
    let mut body = resp.into_body().into_data_stream();
    body.next()
        .await
        .expect("the initial ADDED events")
        .unwrap();
    w.step(SignedDuration::from_secs(29));
    assert!(still_open(&mut body).await, "closed before its time");
    w.step(SignedDuration::from_secs(1));
    let rest = tokio::time::timeout(PATIENCE, async { while body.next().await.is_some() {} }).await;
    assert!(rest.is_ok(), "the watch was not closed at 30 s");
    assert_eq!(w.fault_counts().watch_drops, 2, "one per API server");
}

#[tokio::test]
async fn a_5xx_burst_answers_count_requests_then_recovers() {
    let w = world("5xx-burst=every:60s:count:3:code:502");
    assert_eq!(get(&w, "/api/v1/nodes").await.status(), StatusCode::OK);
    w.step(SignedDuration::from_secs(60));
    for _ in 0..3 {
        let r = get(&w, "/api/v1/nodes").await;
        assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
        let body: Value = serde_json::from_slice(&read_to_end(r).await).unwrap();
        assert_eq!(body["kind"], "Status");
        assert_eq!(body["code"], 502);
    }
    assert_eq!(get(&w, "/api/v1/nodes").await.status(), StatusCode::OK);
    assert_eq!(w.fault_counts().injected_5xx, 3);
}

#[tokio::test]
async fn an_outage_refuses_connections_from_its_start_to_its_end() {
    let w = world("outage=60s+30s");
    let faults = w.faults(SimCluster::Mosk).clone();
    let client = Client::new(FaultyService::new(w.mosk_router(), faults), "default");
    let api = Api::<Namespace>::all(client);
    let open_watch = get(&w, "/api/v1/nodes?watch=1").await;
    assert!(
        !api.list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
    w.step(SignedDuration::from_secs(60));
    let err = api.list(&ListParams::default()).await.unwrap_err();
    assert!(
        !matches!(err, kube::Error::Api(_)) && format!("{err:?}").contains("connection refused"),
        "not a refused connection: {err:?}"
    );
    // A watch open when the outage began is cut.
    read_to_end(open_watch).await;
    // A request reaching the server on an already open connection gets no answer.
    let cut = get(&w, "/api/v1/nodes").await;
    let mut body = cut.into_body().into_data_stream();
    assert!(body.next().await.unwrap().is_err(), "the body must fail");
    w.step(SignedDuration::from_secs(29));
    assert!(api.list(&ListParams::default()).await.is_err());
    w.step(SignedDuration::from_secs(1));
    assert!(
        api.list(&ListParams::default()).await.is_ok(),
        "the outage ended at 90 s"
    );
    let c = w.fault_counts();
    assert_eq!((c.outages, c.refused), (2, 3), "{c:?}");
}

#[tokio::test]
async fn gone_makes_every_resume_a_410_until_the_client_relists() {
    let w = world("gone=every:60s");
    let list: Value =
        serde_json::from_slice(&read_to_end(get(&w, "/api/v1/nodes").await).await).unwrap();
    let rv = list["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let resp = get(&w, &format!("/api/v1/nodes?watch=1&resourceVersion={rv}")).await;
    w.step(SignedDuration::from_secs(60));
    read_to_end(resp).await;
    let again =
        read_to_end(get(&w, &format!("/api/v1/nodes?watch=1&resourceVersion={rv}")).await).await;
    let ev: Value = serde_json::from_slice(lines(&again)[0]).unwrap();
    assert_eq!(ev["type"], "ERROR");
    assert_eq!(ev["object"]["code"], 410);
    // After a re-list, the new version resumes fine.
    let list: Value =
        serde_json::from_slice(&read_to_end(get(&w, "/api/v1/nodes").await).await).unwrap();
    let rv = list["metadata"]["resourceVersion"].as_str().unwrap();
    let resp = get(
        &w,
        &format!("/api/v1/nodes?watch=1&resourceVersion={rv}&timeoutSeconds=1"),
    )
    .await;
    for l in lines(&read_to_end(resp).await) {
        let ev: Value = serde_json::from_slice(l).unwrap();
        assert_ne!(ev["type"], "ERROR", "{ev}");
    }
    assert_eq!(w.fault_counts().gone, 1);
}

#[tokio::test]
async fn close_logs_ends_followed_log_streams() {
    let w = world("close-logs=45s");
    let uri = format!(
        "/api/v1/namespaces/kaas/pods/{}/log?container=controller&follow=true",
        w.lcm_pod()
    );
    let resp = w
        .router(SimCluster::Mgmt)
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let mut body = resp.into_body().into_data_stream();
    w.step(SignedDuration::from_secs(44));
    assert!(still_open(&mut body).await, "closed before its time");
    w.step(SignedDuration::from_secs(1));
    tokio::time::timeout(PATIENCE, async { while body.next().await.is_some() {} })
        .await
        .expect("the log stream was not closed at 45 s");
    assert_eq!(w.fault_counts().log_closes, 2);
}

#[tokio::test]
async fn truncate_event_cuts_one_modified_event_short_on_the_wire() {
    let w = world("truncate-event=1:resource:nodeworkloadlocks");
    let rv = w.mosk().resource_version();
    let uri = format!(
        "/apis/lcm.mirantis.com/v1alpha1/nodeworkloadlocks?watch=1&resourceVersion={rv}&timeoutSeconds=5"
    );
    let resp = get(&w, &uri).await;
    // Until two lock changes happened.
    let changed = |w: &SimWorld| {
        w.mosk()
            .list("nodeworkloadlocks", None)
            .iter()
            .filter(|l| l["status"]["state"] != "active")
            .count()
            >= 2
    };
    assert!(w.step_until(SignedDuration::from_hours(2), changed));
    let buf = read_to_end(resp).await;
    let all = lines(&buf);
    let bad: Vec<&&[u8]> = all
        .iter()
        .filter(|l| serde_json::from_slice::<Value>(l).is_err())
        .collect();
    assert_eq!(bad.len(), 1, "exactly one line cut short");
    let err = serde_json::from_slice::<Value>(bad[0]).unwrap_err();
    assert!(
        err.is_eof(),
        "a prefix of JSON, which kube's client skips: {err}"
    );
    assert!(bad[0].starts_with(br#"{"object":"#) || bad[0].starts_with(br#"{"type":"MODIFIED""#));
    assert!(all.len() >= 2, "later events still arrive");
    assert_eq!(w.fault_counts().truncated_events, 1);
}
