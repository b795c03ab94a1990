//! Injected faults as kube-rs sees them (drop and forced 410 are in `watch`).

use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, ListParams};

use crate::common::*;

#[tokio::test]
async fn injected_5xx_burst_fails_then_recovers() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    sim.faults.fail_next(2, 500);
    for _ in 0..2 {
        let e = api_error(api.list(&ListParams::default()).await.unwrap_err());
        assert_eq!(e.code, 500);
    }
    assert_eq!(
        api.list(&ListParams::default()).await.unwrap().items.len(),
        3
    );
}

/// On tokio's paused clock: the 300 ms pass in no real time, and exactly.
#[tokio::test(start_paused = true)]
async fn injected_latency_delays_answers() {
    let sim = mosk();
    let api = Api::<Node>::all(sim.client.clone());
    sim.faults.latency(std::time::Duration::from_millis(300));
    let start = tokio::time::Instant::now();
    api.get("kaas-node-1").await.unwrap();
    assert!(start.elapsed() >= std::time::Duration::from_millis(300));
    sim.faults.latency(std::time::Duration::ZERO);
}
