#[tokio::test(flavor = "multi_thread")]
#[ignore]
async fn smoke() {
    let opts = mosk_console::sim::serve::ServeOptions {
        kubeconfig_out: "/tmp/sim-kc.yaml".into(),
        speed: 20.0,
        mgmt_port: 18081,
        mosk_port: 18082,
        ..Default::default()
    };
    let sim = mosk_console::sim::serve::start(opts).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(100)).await;
    sim.shutdown().await;
}
