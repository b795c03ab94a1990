//! Connections through an HTTP proxy (kube's `http-proxy` feature): the
//! console tunnels to each API server with `CONNECT`, sends the proxy's
//! credentials as `Proxy-Authorization`, and never shows them. The proxy is
//! a small one written here, on 127.0.0.1; the servers are named by a host
//! that only the proxy resolves (to the simulators on 127.0.0.1), so a
//! request that bypassed the proxy could not connect at all.
//!
//! Which proxy the environment names (`HTTPS_PROXY`, `HTTP_PROXY`,
//! `NO_PROXY`, loopback never proxied) is tested on the chooser itself
//! (`cluster::connect::proxy`), without touching this process's environment.

use std::sync::{Arc, Mutex};

use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::ListParams;
use mosk_console::cluster::{Target, connect};
use mosk_console::sim::registry::Registry;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::cluster_support::{node, serve};

/// What the proxy was asked: the `CONNECT` target and its `Proxy-Authorization`.
#[derive(Debug, Clone, PartialEq)]
struct Tunnel {
    target: String,
    auth: Option<String>,
}

/// A CONNECT proxy on 127.0.0.1 that tunnels `<any host>:<port>` to
/// `127.0.0.1:<port>`, answering 407 when `want_auth` is set and not sent.
async fn proxy(want_auth: Option<&'static str>) -> (String, Arc<Mutex<Vec<Tunnel>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if client.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let mut lines = head.lines();
                let first = lines.next().unwrap_or_default();
                let target = first
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_string();
                let auth = lines
                    .filter_map(|l| l.split_once(':'))
                    .find(|(k, _)| k.eq_ignore_ascii_case("proxy-authorization"))
                    .map(|(_, v)| v.trim().to_string());
                log.lock().unwrap().push(Tunnel {
                    target: target.clone(),
                    auth: auth.clone(),
                });
                if !first.starts_with("CONNECT ") {
                    let _ = client
                        .write_all(b"HTTP/1.1 405 Method Not Allowed\r\n\r\n")
                        .await;
                    return;
                }
                if want_auth.is_some() && auth.as_deref() != want_auth {
                    let _ = client
                        .write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
                        .await;
                    return;
                }
                let port = target.rsplit(':').next().unwrap_or_default();
                let Ok(mut server) = TcpStream::connect(format!("127.0.0.1:{port}")).await else {
                    let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
                    return;
                };
                let _ = client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await;
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            });
        }
    });
    (format!("127.0.0.1:{}", addr.port()), seen)
}

/// A kubeconfig naming the servers by `host` (only the proxy knows it) with `proxy-url`.
fn kubeconfig(
    dir: &std::path::Path,
    mgmt_port: &str,
    mosk_port: &str,
    proxy_url: &str,
) -> std::path::PathBuf {
    let yaml = format!(
        r#"apiVersion: v1
kind: Config
current-context: sim-mgmt
clusters:
- name: sim-mgmt
  cluster: {{server: "http://mgmt.sim.invalid:{mgmt_port}", proxy-url: "{proxy_url}"}}
- name: sim-mosk
  cluster: {{server: "http://mosk.sim.invalid:{mosk_port}", proxy-url: "{proxy_url}"}}
users:
- name: admin
  user: {{token: t}}
contexts:
- name: sim-mgmt
  context: {{cluster: sim-mgmt, user: admin}}
- name: sim-mosk
  context: {{cluster: sim-mosk, user: admin}}
"#
    );
    let path = dir.join("kubeconfig");
    std::fs::write(&path, yaml).unwrap();
    path
}

fn port(url: &str) -> String {
    url.rsplit(':').next().unwrap().to_string()
}

#[tokio::test]
async fn the_console_reaches_both_clusters_through_a_proxy_with_credentials() {
    let mgmt = serve(Registry::mgmt()).await;
    let mosk = serve(Registry::mosk()).await;
    mosk.store.create("nodes", node("kaas-node-1")).unwrap();
    // Basic base64("alice:s3cret")
    let (addr, seen) = proxy(Some("Basic YWxpY2U6czNjcmV0")).await;
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(
        dir.path(),
        &port(&mgmt.url),
        &port(&mosk.url),
        &format!("http://alice:s3cret@{addr}"),
    );
    let clusters = connect(&Target {
        kubeconfig: Some(kc),
        ..Default::default()
    })
    .await
    .expect("connected through the proxy");
    let nodes = Api::<Node>::all(clusters.mosk.clone())
        .list(&ListParams::default())
        .await
        .unwrap();
    assert_eq!(nodes.items.len(), 1);
    let seen = seen.lock().unwrap().clone();
    let targets: Vec<&str> = seen.iter().map(|t| t.target.as_str()).collect();
    assert!(
        targets.contains(&format!("mgmt.sim.invalid:{}", port(&mgmt.url)).as_str())
            && targets.contains(&format!("mosk.sim.invalid:{}", port(&mosk.url)).as_str()),
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .all(|t| t.auth.as_deref() == Some("Basic YWxpY2U6czNjcmV0")),
        "{seen:?}"
    );
}

#[tokio::test]
async fn a_refusing_proxy_is_reported_without_its_credentials() {
    let mgmt = serve(Registry::mgmt()).await;
    let mosk = serve(Registry::mosk()).await;
    let (addr, seen) = proxy(Some("Basic c29tZW9uZTplbHNl")).await;
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(
        dir.path(),
        &port(&mgmt.url),
        &port(&mosk.url),
        &format!("http://alice:s3cret@{addr}"),
    );
    let err = connect(&Target {
        kubeconfig: Some(kc),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert!(!seen.lock().unwrap().is_empty(), "the proxy was not asked");
    let text = err.to_string();
    assert!(
        text.contains("Cannot reach the management cluster"),
        "{text}"
    );
    assert!(
        !text.contains("s3cret") && !text.contains("alice"),
        "{text}"
    );
}
