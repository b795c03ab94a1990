//! `sim serve` on loopback TCP: the simulated clock starts at the real
//! present, the `Date` header is the simulated clock's (hyper does not put
//! its own), and an outage closes connections before any answer.

use jiff::{SignedDuration, Timestamp};
use mosk_console::sim::faults::spec::FaultPlan;
use mosk_console::sim::serve::{ServeOptions, start};
use mosk_console::sim::world::SimCluster;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One HTTP/1.1 GET over a fresh connection; the raw answer (empty when the
/// server closed the connection without answering).
async fn raw_get(port: u16, path: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    // A server that drops the connection at once may reset the write, too.
    let _ = s.write_all(req.as_bytes()).await;
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf).await;
    String::from_utf8_lossy(&buf).into_owned()
}

fn header<'a>(raw: &'a str, name: &str) -> Option<&'a str> {
    raw.split("\r\n\r\n").next()?.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

fn body_json(raw: &str) -> Value {
    let body = raw.split_once("\r\n\r\n").unwrap().1;
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[tokio::test]
async fn sim_serve_starts_its_clock_at_the_present_and_dates_answers_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let before = Timestamp::now();
    let sim = start(ServeOptions {
        kubeconfig_out: dir.path().join("kc"),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let raw = raw_get(sim.mosk_port, "/api/v1/nodes").await;
    let list = body_json(&raw);
    let created: Timestamp = list["items"][0]["metadata"]["creationTimestamp"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    // Whole seconds: the start is truncated to the second.
    let skew = created.duration_since(before).abs();
    assert!(
        skew < SignedDuration::from_mins(2),
        "created {created}, now {before}"
    );
    let date = jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(header(&raw, "date").expect("a Date header"))
        .unwrap();
    assert!(date >= created, "{date} before {created}");
    sim.shutdown().await;
}

#[tokio::test]
async fn over_tcp_the_date_is_the_simulated_clock_and_an_outage_closes_connections() {
    let dir = tempfile::tempdir().unwrap();
    let start_at: Timestamp = "2026-01-01T10:00:00Z".parse().unwrap();
    let sim = start(ServeOptions {
        kubeconfig_out: dir.path().join("kc"),
        start: Some(start_at),
        faults: FaultPlan::parse("outage=0+1h").unwrap(),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    // The outage began at the start: the connection closes with no answer.
    assert_eq!(raw_get(sim.mgmt_port, "/version").await, "");
    let faults = sim.world.faults(SimCluster::Mgmt).clone();
    assert!(faults.counts().refused >= 1);
    faults.set_outage(false);
    let raw = raw_get(sim.mgmt_port, "/version").await;
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    let date = header(&raw, "date").expect("a Date header");
    let date = jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(date)
        .unwrap();
    assert!(
        date.duration_since(start_at) < SignedDuration::from_hours(1),
        "{date} is not the simulated clock (started {start_at})"
    );
    sim.shutdown().await;
}
