//! `GET|POST /api/v1/namespaces/{ns}/pods/{name}/exec?command=…&stdout=true…`
//! over WebSocket, the `v5.channel.k8s.io` and `v4.channel.k8s.io`
//! subprotocols (what the container runs is `sim::exec`).
//!
//! Followed (read-only, nothing copied):
//! - the frames: one binary message per write, its first byte the channel
//!   (0 stdin, 1 stdout, 2 stderr, 3 error/status, 4 resize; v5 adds 255,
//!   the client's half-close of a channel) —
//!   kubernetes/apimachinery `pkg/util/remotecommand/constants.go` (eed236ce)
//!   and `pkg/util/httpstream/wsstream/conn.go` `Conn.handle`/`Conn.write`
//!   (2f461920, before the file moved to k8s.io/streaming);
//! - the subprotocol is the first the client offers that the server
//!   supports (`handshake`, same file);
//! - after the upgrade an empty message on the lowest writable channel tells
//!   the client the connection is up — kubernetes/apiserver
//!   `pkg/util/proxy/websocket.go` `createWebSocketStreams` (24a394e5);
//! - the status written on channel 3 when the command ends: `Success`, or
//!   `Failure` with reason `NonZeroExitCode` and the code as the
//!   `ExitCode` cause, or an `InternalError` when the command could not
//!   run — kubernetes/kubelet `pkg/cri/streaming/remotecommand/exec.go`
//!   `ServeExec` (5d1fd9fd, before the file moved to k8s.io/streaming); the text of a non-zero exit is containerd's
//!   (`streamRuntime.Exec`: `error executing command [argv], exit code N`);
//! - the verb: POST is `create` on `pods/exec`, GET is `get`, and from
//!   1.35 a GET needs `create` too (the `AuthorizePodWebsocketUpgradeCreatePermission`
//!   gate, beta and on by default; kubernetes/kubernetes pull 134577);
//!   kubectl's WebSocket executor uses GET (kubernetes/kubectl
//!   `pkg/cmd/exec/exec.go` `createExecutor`, dee3483a), SPDY uses POST;
//! - a request that is not an upgrade: 400 `Upgrade request required`.
//!
//! SPDY is not served: kubectl tries WebSocket first and falls back to
//! SPDY only when the upgrade fails, so it never needs it here.
//!
//! The WebSocket framing is tungstenite's, on the connection hyper hands
//! over after the 101 answer (`hyper::upgrade::on`); only the handshake's
//! headers are written here, because axum's `ws` extractor would bring a
//! second tokio-tungstenite into the build (see Cargo.toml).

use std::sync::Arc;

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use futures::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role};

use super::Ctx;
use crate::sim::exec::{Exec, ExecTarget, Exit, Ran};
use crate::sim::store::{ApiError, StoreResult};

pub const V5: &str = "v5.channel.k8s.io";
pub const V4: &str = "v4.channel.k8s.io";
/// What the server speaks, in no order of preference: the client's order decides.
const SUPPORTED: [&str; 2] = [V5, V4];

const STDOUT: u8 = 1;
const STDERR: u8 = 2;
const STATUS: u8 = 3;

/// Output is sent in messages of at most this many bytes (the kubelet
/// copies through a 32 KiB buffer; any size works for the client).
const CHUNK: usize = 32 * 1024;

/// The RBAC verbs an exec request needs: POST is `create`; GET is `get`,
/// and from Kubernetes 1.35 also `create`.
pub fn verbs(method: &Method, version_minor: u32) -> StoreResult<&'static [&'static str]> {
    match method.as_str() {
        "POST" => Ok(&["create"]),
        "GET" if version_minor >= 35 => Ok(&["get", "create"]),
        "GET" => Ok(&["get"]),
        _ => Err(ApiError::method_not_allowed(format!(
            "the server does not allow this method on the requested resource ({method})"
        ))),
    }
}

/// The exec options of the query: `command` repeats, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Options {
    command: Vec<String>,
    container: String,
    stdin: bool,
    stdout: bool,
    stderr: bool,
}

fn flag(v: &str, k: &str) -> StoreResult<bool> {
    match v {
        "" | "false" | "0" | "False" => Ok(false),
        "true" | "1" | "True" => Ok(true),
        _ => Err(ApiError::bad_request(format!(
            "invalid boolean value {v:?} for query parameter {k:?}"
        ))),
    }
}

fn options(query: Option<&str>) -> StoreResult<Options> {
    let mut o = Options {
        command: Vec::new(),
        container: String::new(),
        stdin: false,
        stdout: false,
        stderr: false,
    };
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        match k.as_ref() {
            "command" => o.command.push(v.into_owned()),
            "container" => o.container = v.into_owned(),
            "stdin" => o.stdin = flag(&v, &k)?,
            "stdout" => o.stdout = flag(&v, &k)?,
            "stderr" => o.stderr = flag(&v, &k)?,
            "tty" => {
                flag(&v, &k)?;
            }
            _ => {}
        }
    }
    // [I] the API server's validation texts.
    if o.command.is_empty() {
        return Err(ApiError::bad_request("you must specify at least 1 command"));
    }
    if !(o.stdin || o.stdout || o.stderr) {
        return Err(ApiError::bad_request(
            "you must specify at least 1 of stdin, stdout, stderr",
        ));
    }
    Ok(o)
}

/// The container an exec runs in: the one named, or the pod's only one
/// (kubernetes/kubernetes `pkg/registry/core/pod/strategy.go`, `validateContainer`).
fn container_of(pod_name: &str, pod: &Value, asked: &str) -> StoreResult<String> {
    let names: Vec<&str> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|c| c["name"].as_str()).collect())
        .unwrap_or_default();
    if asked.is_empty() {
        return match names.as_slice() {
            [one] => Ok((*one).to_string()),
            [] => Err(ApiError::bad_request(format!(
                "a container name must be specified for pod {pod_name}"
            ))),
            many => Err(ApiError::bad_request(format!(
                "a container name must be specified for pod {pod_name}, choose one of: [{}]",
                many.join(" ")
            ))),
        };
    }
    if names.contains(&asked) {
        Ok(asked.to_string())
    } else {
        Err(ApiError::bad_request(format!(
            "container {asked} is not valid for pod {pod_name}"
        )))
    }
}

fn has_token(headers: &HeaderMap, name: header::HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case(token))
}

/// The first subprotocol the client offers that the server speaks.
fn negotiate(headers: &HeaderMap) -> StoreResult<&'static str> {
    let offered: Vec<String> = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    offered
        .iter()
        .find_map(|p| SUPPORTED.iter().find(|s| *s == p).copied())
        .ok_or_else(|| {
            // [I] wsstream's handshake error; the x/net server answers it
            // before the upgrade.
            ApiError::bad_request(format!(
                "requested protocol(s) are not supported: {offered:?}; supports {SUPPORTED:?}"
            ))
        })
}

/// Serves one exec request (RBAC already checked).
pub fn serve(ctx: &Ctx, parts: &mut Parts, ns: &str, pod_name: &str) -> StoreResult<Response> {
    let o = options(parts.uri.query())?;
    let info = ctx.store.info("pods")?.clone();
    let pod = ctx
        .store
        .get("pods", Some(ns), pod_name)
        .ok_or_else(|| ApiError::not_found(&info, pod_name))?;
    let container = container_of(pod_name, &pod, &o.container)?;
    if let Some(phase @ ("Succeeded" | "Failed")) =
        pod.pointer("/status/phase").and_then(Value::as_str)
    {
        return Err(ApiError::bad_request(format!(
            "cannot exec into a container in a completed pod; current phase is {phase}"
        )));
    }
    let headers = &parts.headers;
    if !(has_token(headers, header::UPGRADE, "websocket")
        && has_token(headers, header::CONNECTION, "upgrade"))
    {
        if has_token(headers, header::CONNECTION, "upgrade") {
            return Err(ApiError::bad_request(
                "the simulator serves exec over WebSocket only (v5.channel.k8s.io, v4.channel.k8s.io), not SPDY",
            ));
        }
        return Err(ApiError::bad_request("Upgrade request required"));
    }
    let key = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .ok_or_else(|| ApiError::bad_request("missing Sec-WebSocket-Key"))?
        .as_bytes()
        .to_vec();
    if headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_none_or(|v| v.as_bytes() != b"13")
    {
        return Err(ApiError::bad_request("unsupported Sec-WebSocket-Version"));
    }
    let protocol = negotiate(headers)?;
    let Some(upgrade) = parts.extensions.remove::<hyper::upgrade::OnUpgrade>() else {
        // The in-process router (a kube `Client` over the `Router` as a
        // service) has no connection to hand over.
        return Err(ApiError::new(
            500,
            "InternalError",
            "this connection cannot be upgraded: exec needs the simulator served over TCP",
        ));
    };
    let session = Session {
        exec: ctx.opts.exec.clone(),
        namespace: ns.to_string(),
        pod: pod_name.to_string(),
        container,
        options: o,
        protocol,
    };
    tokio::spawn(async move {
        if let Ok(upgraded) = upgrade.await {
            let ws =
                WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None).await;
            session.run(ws).await;
        }
    });
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = resp.headers_mut();
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(v) = HeaderValue::from_str(&derive_accept_key(&key)) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    h.insert(
        header::SEC_WEBSOCKET_PROTOCOL,
        HeaderValue::from_static(protocol),
    );
    Ok(resp)
}

/// The `Status` written on channel 3 when the command ends (`ServeExec`;
/// `json.Marshal` of a `metav1.Status`: no kind, an empty `metadata`).
pub fn status_of(command: &[String], exit: &Exit) -> Value {
    match exit {
        Exit::Code(0) => json!({"metadata": {}, "status": "Success"}),
        Exit::Code(code) => json!({
            "metadata": {},
            "status": "Failure",
            "message": format!(
                "command terminated with non-zero exit code: error executing command [{}], exit code {code}",
                command.join(" ")
            ),
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": code.to_string()}]},
        }),
        Exit::NotStarted(why) => {
            let err = format!("error executing command in container: {why}");
            json!({
                "metadata": {},
                "status": "Failure",
                "message": format!("Internal error occurred: {err}"),
                "reason": "InternalError",
                "details": {"causes": [{"message": err}]},
                "code": 500,
            })
        }
    }
}

fn frame(channel: u8, data: &[u8]) -> Message {
    let mut v = Vec::with_capacity(data.len() + 1);
    v.push(channel);
    v.extend_from_slice(data);
    Message::binary(v)
}

/// One upgraded exec connection.
struct Session {
    exec: Arc<Exec>,
    namespace: String,
    pod: String,
    container: String,
    options: Options,
    protocol: &'static str,
}

impl Session {
    async fn run<S>(self, mut ws: WebSocketStream<S>)
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        let o = &self.options;
        let first = if o.stdout {
            STDOUT
        } else if o.stderr {
            STDERR
        } else {
            STATUS
        };
        if ws.send(frame(first, &[])).await.is_err() {
            return;
        }
        let exec = self.exec.clone();
        let (ns, pod, container) = (
            self.namespace.clone(),
            self.pod.clone(),
            self.container.clone(),
        );
        let command = o.command.clone();
        let protocol = self.protocol;
        // The programs lock the simulated world; keep that off the reactor.
        let ran = tokio::task::spawn_blocking(move || {
            let target = ExecTarget {
                namespace: &ns,
                pod: &pod,
                container: &container,
            };
            exec.run(target, &command, protocol)
        })
        .await
        .unwrap_or_else(|_| Ran {
            stdout: Vec::new(),
            stderr: Vec::new(),
            exit: Exit::NotStarted("the simulated program panicked".to_string()),
        });
        let mut out: Vec<Message> = Vec::new();
        if o.stdout {
            out.extend(ran.stdout.chunks(CHUNK).map(|c| frame(STDOUT, c)));
        }
        if o.stderr {
            out.extend(ran.stderr.chunks(CHUNK).map(|c| frame(STDERR, c)));
        }
        let status = serde_json::to_vec(&status_of(&o.command, &ran.exit)).unwrap_or_default();
        out.push(frame(STATUS, &status));
        for m in out {
            if ws.send(m).await.is_err() {
                return;
            }
        }
        // The server closes after the status (`conn.Close()`) with 1000,
        // normal closure (golang.org/x/net/websocket's `Close`): client-go
        // reads the end of its streams only from that code, any other (a
        // close frame without one is 1005) fails kubectl's exec with "next
        // reader: websocket: close 1005 (no status)". Then it reads what the
        // client still sends until it closes too.
        let normal = CloseFrame {
            code: CloseCode::Normal,
            reason: "".into(),
        };
        if ws.close(Some(normal)).await.is_ok() {
            while let Some(Ok(_)) = ws.next().await {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_order_picks_the_subprotocol() {
        let mut h = HeaderMap::new();
        h.insert(
            header::SEC_WEBSOCKET_PROTOCOL,
            HeaderValue::from_static("v4.channel.k8s.io, v5.channel.k8s.io"),
        );
        assert_eq!(negotiate(&h).unwrap(), V4);
        h.insert(
            header::SEC_WEBSOCKET_PROTOCOL,
            HeaderValue::from_static("base64.channel.k8s.io,v5.channel.k8s.io"),
        );
        assert_eq!(negotiate(&h).unwrap(), V5);
        h.insert(
            header::SEC_WEBSOCKET_PROTOCOL,
            HeaderValue::from_static("channel.k8s.io"),
        );
        assert_eq!(negotiate(&h).unwrap_err().code, 400);
    }

    #[test]
    fn commands_repeat_in_order_and_need_a_stream() {
        let o = options(Some(
            "command=openstack&command=server&command=show&command=a%20b&stdout=true&container=c",
        ))
        .unwrap();
        assert_eq!(o.command, ["openstack", "server", "show", "a b"]);
        assert_eq!(o.container, "c");
        assert!(o.stdout && !o.stderr && !o.stdin);
        assert_eq!(options(Some("command=ls")).unwrap_err().code, 400);
        assert_eq!(options(Some("stdout=true")).unwrap_err().code, 400);
        assert_eq!(
            options(Some("command=ls&stdout=maybe")).unwrap_err().code,
            400
        );
    }

    #[test]
    fn the_status_names_the_exit_code_as_the_kubelet_does() {
        let cmd = ["openstack".to_string(), "foo".to_string()];
        assert_eq!(
            status_of(&cmd, &Exit::Code(0)),
            json!({"metadata": {}, "status": "Success"})
        );
        let s = status_of(&cmd, &Exit::Code(2));
        assert_eq!(s["reason"], "NonZeroExitCode");
        assert_eq!(
            s["details"]["causes"][0],
            json!({"reason": "ExitCode", "message": "2"})
        );
        assert_eq!(
            s["message"],
            "command terminated with non-zero exit code: error executing command [openstack foo], exit code 2"
        );
        let s = status_of(&cmd, &Exit::NotStarted("no".into()));
        assert_eq!(
            (s["reason"].as_str(), s["code"].as_i64()),
            (Some("InternalError"), Some(500))
        );
    }

    #[test]
    fn verbs_follow_the_method_and_the_version() {
        assert_eq!(verbs(&Method::POST, 33).unwrap(), ["create"]);
        assert_eq!(verbs(&Method::GET, 33).unwrap(), ["get"]);
        assert_eq!(verbs(&Method::GET, 35).unwrap(), ["get", "create"]);
        assert_eq!(verbs(&Method::PUT, 33).unwrap_err().code, 405);
    }
}
