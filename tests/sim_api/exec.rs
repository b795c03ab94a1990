//! `pods/{name}/exec` over WebSocket, served on loopback TCP (an upgraded
//! connection needs a real one): kube-rs's `Api::exec` (v5), a raw client
//! that offers v4 only, the `openstack` command of the keystone-client pod
//! against the simulated Nova, RBAC and the answers before the upgrade.

use std::sync::Arc;

use futures::StreamExt;
use jiff::SignedDuration;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;
use kube::api::{Api, AttachParams};
use kube::{Client, Config};
use mosk_console::sim::rbac::{Rbac, RbacRule};
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::world::{SimCluster, SimWorld};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::common::PATIENCE;

/// The `quick` scenario with its MOSK cluster on a free loopback port.
struct Served {
    world: Arc<SimWorld>,
    port: u16,
}

impl Served {
    async fn start() -> Served {
        let world = Arc::new(SimWorld::new(load_scenario("quick").unwrap(), 3));
        Served::serve(world).await
    }

    async fn serve(world: Arc<SimWorld>) -> Served {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let app = world.mosk_router();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Served { world, port }
    }

    fn client(&self) -> Client {
        let url = format!("http://127.0.0.1:{}", self.port).parse().unwrap();
        Client::try_from(Config::new(url)).unwrap()
    }

    fn pods(&self) -> Api<Pod> {
        Api::namespaced(self.client(), "openstack")
    }

    /// A compute node that has servers.
    fn busy_compute(&self) -> String {
        self.world
            .machines()
            .into_iter()
            .find(|m| !self.world.servers_on(&m.node).is_empty())
            .expect("a compute with servers")
            .node
    }
}

/// What one exec wrote and the status it ended with.
struct Done {
    stdout: String,
    stderr: String,
    status: Status,
}

async fn exec(pods: &Api<Pod>, pod: &str, command: &[&str]) -> kube::Result<Done> {
    let run = async {
        let mut p = pods
            .exec(pod, command.to_vec(), &AttachParams::default().stderr(true))
            .await?;
        let (mut out, mut err) = (p.stdout().unwrap(), p.stderr().unwrap());
        let (mut stdout, mut stderr) = (String::new(), String::new());
        let (a, b) = tokio::join!(
            out.read_to_string(&mut stdout),
            err.read_to_string(&mut stderr)
        );
        a.unwrap();
        b.unwrap();
        let status = p
            .take_status()
            .unwrap()
            .await
            .expect("a status on channel 3");
        p.join().await.unwrap();
        Ok(Done {
            stdout,
            stderr,
            status,
        })
    };
    tokio::time::timeout(PATIENCE, run)
        .await
        .expect("exec within the safety timeout")
}

fn args(line: &str) -> Vec<&str> {
    line.split(' ').collect()
}

#[tokio::test]
async fn kube_exec_lists_a_nodes_servers_through_the_keystone_client_pod() {
    let s = Served::start().await;
    let pod = s.world.keystone_client_pod();
    let node = s.busy_compute();
    let line = format!("openstack server list --all-projects --host {node} --long -f json");
    let done = exec(&s.pods(), &pod, &args(&line)).await.unwrap();
    assert_eq!(
        done.status.status.as_deref(),
        Some("Success"),
        "{}",
        done.stderr
    );
    assert_eq!(done.stderr, "");
    let listed: Vec<Value> = serde_json::from_str(&done.stdout).unwrap();
    let ids: Vec<String> = listed
        .iter()
        .map(|s| s["ID"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, s.world.servers_on(&node));
    let nova = s.world.nova_servers();
    let first = nova.iter().find(|n| n.id == ids[0]).unwrap();
    assert_eq!(listed[0]["Name"], first.name.as_str());
    assert_eq!(listed[0]["Status"], first.status);
    assert_eq!(listed[0]["Host"], node.as_str());
    assert_eq!(listed[0]["Flavor"], first.flavor.as_str());
    let received = s.world.exec(SimCluster::Mosk).received();
    assert_eq!(received.len(), 1);
    let r = &received[0];
    assert_eq!(
        (
            r.namespace.as_str(),
            r.pod.as_str(),
            r.container.as_str(),
            r.protocol.as_str()
        ),
        (
            "openstack",
            pod.as_str(),
            "keystone-client",
            "v5.channel.k8s.io"
        )
    );
    assert_eq!(r.command, args(&line));
}

#[tokio::test]
async fn a_failing_command_ends_with_its_exit_code_in_the_status() {
    let s = Served::start().await;
    let pod = s.world.keystone_client_pod();
    let done = exec(&s.pods(), &pod, &["openstack", "foo"]).await.unwrap();
    assert!(
        done.stdout
            .starts_with("openstack: 'foo' is not an openstack command. See 'openstack --help'.\n"),
        "{}",
        done.stdout
    );
    let st = &done.status;
    assert_eq!(
        (st.status.as_deref(), st.reason.as_deref()),
        (Some("Failure"), Some("NonZeroExitCode"))
    );
    let exit_cause = |st: &Status| {
        let c = &st.details.as_ref().unwrap().causes.as_ref().unwrap()[0];
        (c.reason.clone().unwrap(), c.message.clone().unwrap())
    };
    assert_eq!(exit_cause(st), ("ExitCode".to_string(), "2".to_string()));
    let done = exec(&s.pods(), &pod, &["openstack", "server", "show", "nope"])
        .await
        .unwrap();
    assert_eq!(done.stderr, "No Server found for nope\n");
    assert_eq!(exit_cause(&done.status).1, "1");
    // Only `openstack` is in the container.
    let done = exec(&s.pods(), &pod, &["ls"]).await.unwrap();
    assert_eq!(done.status.reason.as_deref(), Some("InternalError"));
    let message = done.status.message.unwrap_or_default();
    assert!(
        message.contains("\"ls\": executable file not found in $PATH"),
        "{message}"
    );
}

#[tokio::test]
async fn a_live_migration_through_exec_runs_on_the_simulated_clock() {
    let s = Served::start().await;
    let pod = s.world.keystone_client_pod();
    let node = s.busy_compute();
    let id = s
        .world
        .nova_servers()
        .into_iter()
        .find(|v| v.on(&node) && v.status == "ACTIVE" && v.problem.is_none())
        .expect("an active server that can move")
        .id;
    let line = format!("openstack server migrate --live-migration {id}");
    let done = exec(&s.pods(), &pod, &args(&line)).await.unwrap();
    assert_eq!(
        done.status.status.as_deref(),
        Some("Success"),
        "{}",
        done.stderr
    );
    let now = |w: &SimWorld| w.nova_servers().into_iter().find(|v| v.id == id).unwrap();
    assert_eq!(now(&s.world).status, "MIGRATING");
    assert!(
        s.world
            .step_until(SignedDuration::from_mins(10), |w| !now(w).on(&node)),
        "the server left {node}"
    );
    assert_eq!(now(&s.world).status, "ACTIVE");
}

/// A raw WebSocket client (kube-rs always offers v5 first): the chosen
/// subprotocol, the binary frames, the close code.
async fn raw(port: u16, path: &str, protocol: &str) -> (String, Vec<Vec<u8>>, Option<u16>) {
    let mut req = format!("ws://127.0.0.1:{port}{path}")
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("Sec-WebSocket-Protocol", protocol.parse().unwrap());
    let tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let (mut ws, resp) = tokio_tungstenite::client_async(req, tcp).await.unwrap();
    let chosen = resp.headers()["Sec-WebSocket-Protocol"]
        .to_str()
        .unwrap()
        .to_string();
    let mut frames = Vec::new();
    let mut code = None;
    while let Some(m) = tokio::time::timeout(PATIENCE, ws.next()).await.unwrap() {
        match m.unwrap() {
            Message::Binary(b) => frames.push(b.to_vec()),
            Message::Close(c) => {
                code = c.map(|c| u16::from(c.code));
                break;
            }
            _ => {}
        }
    }
    let _ = ws.close(None).await;
    (chosen, frames, code)
}

#[tokio::test]
async fn v4_is_served_to_a_client_that_offers_it_first_one_channel_byte_per_frame() {
    let s = Served::start().await;
    let pod = s.world.keystone_client_pod();
    let path = format!(
        "/api/v1/namespaces/openstack/pods/{pod}/exec?command=openstack&command=project&command=list&command=-f&command=value&command=-c&command=Name&stdout=true&stderr=true"
    );
    let (chosen, frames, close) = raw(s.port, &path, "v4.channel.k8s.io, v5.channel.k8s.io").await;
    assert_eq!(chosen, "v4.channel.k8s.io");
    // The first frame is empty on stdout: the connection is up.
    assert_eq!(frames[0], [1]);
    let stdout: Vec<u8> = frames
        .iter()
        .filter(|f| f[0] == 1)
        .flat_map(|f| f[1..].to_vec())
        .collect();
    assert_eq!(
        String::from_utf8(stdout).unwrap(),
        "admin\nservice\ntenant-a\ntenant-b\ntenant-c\n"
    );
    let last = frames.last().unwrap();
    assert_eq!(last[0], 3);
    let status: Value = serde_json::from_slice(&last[1..]).unwrap();
    assert_eq!(
        status,
        serde_json::json!({"metadata": {}, "status": "Success"})
    );
    // A normal closure: client-go reads any other code as an error.
    assert_eq!(close, Some(1000));
    assert_eq!(
        s.world.exec(SimCluster::Mosk).received()[0].protocol,
        "v4.channel.k8s.io"
    );
}

/// One HTTP/1.1 request over a fresh connection; the raw answer (for a
/// 101, its head only: the connection then stays open).
async fn raw_http(port: u16, method: &str, path: &str, headers: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Content-Length: 0\r\nConnection: close\r\n\r\n"
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let read = async {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = s.read(&mut chunk).await.unwrap();
            buf.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&buf);
            let upgraded = text.starts_with("HTTP/1.1 101") && text.contains("\r\n\r\n");
            if n == 0 || upgraded {
                return text.into_owned();
            }
        }
    };
    tokio::time::timeout(PATIENCE, read).await.unwrap()
}

fn status_line(raw: &str) -> &str {
    raw.lines().next().unwrap_or_default()
}

fn body(raw: &str) -> Value {
    serde_json::from_str(raw.split_once("\r\n\r\n").unwrap().1).unwrap()
}

const UPGRADE: &str = "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n";

#[tokio::test]
async fn answers_before_the_upgrade_are_the_api_servers() {
    let s = Served::start().await;
    let pod = s.world.keystone_client_pod();
    let exec_path =
        |pod: &str, q: &str| format!("/api/v1/namespaces/openstack/pods/{pod}/exec?{q}");
    let q = "command=openstack&stdout=true";
    let raw = raw_http(s.port, "GET", &exec_path(&pod, q), "").await;
    assert!(status_line(&raw).contains(" 400 "), "{raw}");
    assert_eq!(body(&raw)["message"], "Upgrade request required");
    let raw = raw_http(s.port, "GET", &exec_path("nope", q), UPGRADE).await;
    assert_eq!(body(&raw)["message"], "pods \"nope\" not found");
    let raw = raw_http(
        s.port,
        "GET",
        &exec_path(&pod, &format!("{q}&container=x")),
        UPGRADE,
    )
    .await;
    assert_eq!(
        body(&raw)["message"],
        format!("container x is not valid for pod {pod}")
    );
    let raw = raw_http(
        s.port,
        "POST",
        &exec_path(&pod, q),
        &UPGRADE.replace("v5.channel.k8s.io", "channel.k8s.io"),
    )
    .await;
    assert!(status_line(&raw).contains(" 400 "), "{raw}");
    // POST upgrades as GET does.
    let raw = raw_http(s.port, "POST", &exec_path(&pod, q), UPGRADE).await;
    assert!(status_line(&raw).contains(" 101 "), "{raw}");
    assert!(
        raw.contains("sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
        "{raw}"
    );
    assert!(s.world.exec(SimCluster::Mosk).received().len() <= 1);
}

#[tokio::test]
async fn rbac_refuses_exec_with_the_verb_of_the_method() {
    let world = Arc::new(SimWorld::new(load_scenario("quick").unwrap(), 3));
    let deny = |verb: &str| Rbac {
        user: "operator".into(),
        groups: vec![],
        deny: vec![RbacRule {
            verb: verb.into(),
            group: String::new(),
            resource: "pods/exec".into(),
            namespace: Some("openstack".into()),
        }],
    };
    world.set_rbac(SimCluster::Mosk, deny("get"));
    let s = Served::serve(world.clone()).await;
    let pod = world.keystone_client_pod();
    let err = exec(&s.pods(), &pod, &["openstack", "project", "list"])
        .await
        .err()
        .expect("refused");
    let kube::Error::Api(st) = err else {
        panic!("not an API error: {err:?}")
    };
    assert_eq!(st.code, 403);
    assert_eq!(
        st.message,
        format!(
            "pods \"{pod}\" is forbidden: User \"operator\" cannot get resource \"pods/exec\" in API group \"\" in the namespace \"openstack\""
        )
    );
    // Before 1.35 a GET needs `get` only: denying `create` leaves the
    // WebSocket GET working, and refuses a POST.
    world.set_rbac(SimCluster::Mosk, deny("create"));
    let s = Served::serve(world.clone()).await;
    let done = exec(
        &s.pods(),
        &pod,
        &["openstack", "project", "list", "-f", "value"],
    )
    .await
    .unwrap();
    assert_eq!(done.status.status.as_deref(), Some("Success"));
    let raw = raw_http(
        s.port,
        "POST",
        &format!("/api/v1/namespaces/openstack/pods/{pod}/exec?command=openstack&stdout=true"),
        UPGRADE,
    )
    .await;
    assert!(status_line(&raw).contains(" 403 "), "{raw}");
    assert_eq!(world.exec(SimCluster::Mosk).received().len(), 1);
}
