//! Running a command in a pod: the Kubernetes exec API over WebSocket
//! (kube-rs `Api::<Pod>::exec`, the `v5.channel.k8s.io` or
//! `v4.channel.k8s.io` subprotocol), e.g. the OpenStack CLI in the
//! `keystone-client` pod of namespace `openstack`.
//!
//! [`exec_in_pod`] returns what the command wrote and how it ended, or why
//! it could not run:
//! - a deadline ([`ExecLimits::deadline`]) covers the whole exchange, from
//!   the upgrade request to the exit status; past it the connection is
//!   dropped and the answer is [`ExecError::Timeout`];
//! - each stream is read up to [`ExecLimits::max_output`] bytes; the rest is
//!   read and dropped (so the command can end) and the output says it was
//!   cut ([`Output::truncated`]);
//! - nothing of the output can be drawn as it came: [`Output`] keeps it
//!   private and gives it out only as sanitized lines
//!   ([`Output::lines`]) or as JSON whose every string, keys included, is
//!   sanitized ([`Output::json`]); every message of an error is sanitized;
//! - a 401/403 on `pods/exec` is [`ExecError::Refused`], with the server's
//!   message. Note that kube-rs upgrades with GET, which an API server
//!   before 1.35 authorizes as `get` on `pods/exec` (from 1.35 also
//!   `create`), while kubectl falls back to SPDY, a POST (`create`), when
//!   the WebSocket upgrade fails: a Role that grants only `create` lets
//!   kubectl exec and refuses this client before 1.35;
//! - a non-zero exit is a result, not an error: the status on channel 3 is
//!   `Failure` with reason `NonZeroExitCode` and the code as the `ExitCode`
//!   cause (kubelet `ServeExec`); any other failure status means the command
//!   did not run ([`ExecError::NotRun`]).

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;
use kube::Api;
use kube::api::{AttachParams, ListParams};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::sanitize::sanitize;

/// Where MOSK runs its OpenStack CLI: the `keystone-client` Deployment's
/// pods (rockoon `charts/openstack/keystone/templates/deployment-client.yaml`,
/// selected by these labels in rockoon's functional tests,
/// `tests/functional/base.py` `keystone_client_pod`, commit 1390883a).
pub const KEYSTONE_CLIENT_NAMESPACE: &str = "openstack";
pub const KEYSTONE_CLIENT_CONTAINER: &str = "keystone-client";
pub const KEYSTONE_CLIENT_SELECTOR: &str = "application=keystone,component=client";

/// How long a command may take and how much of its output is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecLimits {
    pub deadline: Duration,
    /// Bytes kept of each of stdout and stderr.
    pub max_output: usize,
}

impl Default for ExecLimits {
    /// 30 s, 4 MiB: `openstack server list --long -f json` writes under
    /// 1 KiB a server, so thousands of servers fit.
    fn default() -> Self {
        ExecLimits {
            deadline: Duration::from_secs(30),
            max_output: 4 << 20,
        }
    }
}

/// The container a command runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PodRef<'a> {
    pub namespace: &'a str,
    pub pod: &'a str,
    /// `None`: the pod's only container.
    pub container: Option<&'a str>,
}

/// What a command wrote on one stream, bounded; never drawn as it came.
#[derive(Clone, PartialEq, Eq)]
pub struct Output {
    text: String,
    truncated: bool,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("bytes", &self.text.len())
            .field("truncated", &self.truncated)
            .finish()
    }
}

impl Output {
    fn new(bytes: &[u8], truncated: bool) -> Output {
        Output {
            text: String::from_utf8_lossy(bytes).into_owned(),
            truncated,
        }
    }

    /// Nothing was written.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Bytes kept (at most [`ExecLimits::max_output`]; more if invalid
    /// UTF-8 was replaced).
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// More was written than [`ExecLimits::max_output`]; the rest was dropped.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// The lines written, each sanitized (safe to draw).
    pub fn lines(&self) -> Vec<String> {
        self.text.lines().map(sanitize).collect()
    }

    /// The output parsed as JSON, with every string in it (object keys
    /// too) sanitized: parsing turns `"\u001b"` back into a control, so
    /// the text is sanitized after parsing, not before.
    pub fn json(&self) -> Result<Value, String> {
        if self.truncated {
            return Err("the output was cut at its limit: not parsed".to_string());
        }
        let v: Value = serde_json::from_str(&self.text).map_err(|e| format!("not JSON: {e}"))?;
        Ok(crate::sanitize::json(v))
    }
}

/// A command that ran to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecOutput {
    /// Its exit code (0: success).
    pub exit_code: i32,
    pub stdout: Output,
    pub stderr: Output,
}

/// Why a command did not run to its end. Every message is sanitized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecError {
    /// 401/403: the user may not exec in that pod (`pods/exec`); the server's message.
    Refused(String),
    /// 404: no such pod (or namespace).
    NotFound(String),
    /// The command could not run in the container (no such executable,
    /// the runtime's error): the status's message.
    NotRun(String),
    /// No exit status within the deadline.
    Timeout(Duration),
    /// Anything else: the connection, the upgrade, another HTTP answer.
    Failed(String),
}

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecError::Refused(m) => write!(f, "refused: {m}"),
            ExecError::NotFound(m) => write!(f, "not found: {m}"),
            ExecError::NotRun(m) => write!(f, "the command did not run: {m}"),
            ExecError::Timeout(d) => {
                write!(
                    f,
                    "no answer within {} s: the command was left",
                    d.as_secs()
                )
            }
            ExecError::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ExecError {}

fn explain(err: kube::Error) -> ExecError {
    match err {
        kube::Error::Api(s) => {
            let msg = sanitize(s.message.trim());
            match s.code {
                401 | 403 => ExecError::Refused(msg),
                404 => ExecError::NotFound(msg),
                code => ExecError::Failed(format!(
                    "the server answered {code} {}: {msg}",
                    sanitize(&s.reason)
                )),
            }
        }
        other => ExecError::Failed(format!("exec failed: {}", sanitize(&other.to_string()))),
    }
}

/// The exit code in a status from channel 3.
fn exit_code(status: &Status) -> Result<i32, ExecError> {
    if status.status.as_deref() == Some("Success") {
        return Ok(0);
    }
    let message = sanitize(status.message.as_deref().unwrap_or_default());
    if status.reason.as_deref() != Some("NonZeroExitCode") {
        return Err(ExecError::NotRun(message));
    }
    status
        .details
        .as_ref()
        .and_then(|d| d.causes.as_ref())
        .into_iter()
        .flatten()
        .find(|c| c.reason.as_deref() == Some("ExitCode"))
        .and_then(|c| c.message.as_deref()?.trim().parse().ok())
        .ok_or_else(|| ExecError::Failed(format!("a non-zero exit without its code: {message}")))
}

/// Reads a stream to its end, keeping at most `cap` bytes.
async fn read_capped(mut r: impl AsyncRead + Unpin, cap: usize) -> Result<Output, ExecError> {
    let mut kept = Vec::new();
    let mut truncated = false;
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = r
            .read(&mut chunk)
            .await
            .map_err(|e| ExecError::Failed(format!("reading the output failed: {e}")))?;
        if n == 0 {
            return Ok(Output::new(&kept, truncated));
        }
        let room = cap.saturating_sub(kept.len());
        truncated |= n > room;
        kept.extend_from_slice(&chunk[..n.min(room)]);
    }
}

/// Runs `command` (argv, not a shell line) in `target` and waits for its
/// end, within `limits`. Not an action: the caller decides what may run
/// (a write through the OpenStack CLI goes through the action path first).
pub async fn exec_in_pod(
    client: &kube::Client,
    target: PodRef<'_>,
    command: &[&str],
    limits: ExecLimits,
) -> Result<ExecOutput, ExecError> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), target.namespace);
    // kube-rs passes output through a pipe of this size.
    let buf = 64 * 1024;
    let mut params = AttachParams::default()
        .stdin(false)
        .stdout(true)
        .stderr(true)
        .max_stdout_buf_size(buf)
        .max_stderr_buf_size(buf);
    if let Some(c) = target.container {
        params = params.container(c);
    }
    let run = async {
        let mut process = pods
            .exec(target.pod, command.to_vec(), &params)
            .await
            .map_err(explain)?;
        let (out, err) = match (process.stdout(), process.stderr()) {
            (Some(o), Some(e)) => (o, e),
            _ => return Err(ExecError::Failed("no output streams".to_string())),
        };
        let status = process
            .take_status()
            .ok_or_else(|| ExecError::Failed("no status stream".to_string()))?;
        let (stdout, stderr, status) = tokio::join!(
            read_capped(out, limits.max_output),
            read_capped(err, limits.max_output),
            status
        );
        let status = status.ok_or_else(|| {
            ExecError::Failed("the connection ended without the command's exit status".to_string())
        })?;
        let exit_code = exit_code(&status)?;
        // The exchange is over; a close that fails after the status changes nothing.
        let _ = process.join().await;
        Ok(ExecOutput {
            exit_code,
            stdout: stdout?,
            stderr: stderr?,
        })
    };
    tracing::debug!(target: "exec", namespace = target.namespace, pod = target.pod, ?command, "exec");
    match tokio::time::timeout(limits.deadline, run).await {
        Ok(r) => r,
        // Dropping the process aborts its connection.
        Err(_) => Err(ExecError::Timeout(limits.deadline)),
    }
}

/// The `keystone-client` pod to exec in: a Running and Ready one of its
/// Deployment's (by name, the first), found by its labels each time (it is
/// replaced when its node is drained).
pub async fn keystone_client_pod(client: &kube::Client) -> Result<String, ExecError> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), KEYSTONE_CLIENT_NAMESPACE);
    let list = pods
        .list(&ListParams::default().labels(KEYSTONE_CLIENT_SELECTOR))
        .await
        .map_err(explain)?;
    let ready = |p: &Pod| {
        let status = p.status.as_ref();
        status.and_then(|s| s.phase.as_deref()) == Some("Running")
            && status
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
            && p.metadata.deletion_timestamp.is_none()
    };
    let mut names: Vec<String> = list
        .items
        .iter()
        .filter(|p| ready(p))
        .filter_map(|p| p.metadata.name.clone())
        .collect();
    names.sort();
    names.into_iter().next().ok_or_else(|| {
        ExecError::NotFound(format!(
            "no Running and Ready pod with labels {KEYSTONE_CLIENT_SELECTOR} in namespace {KEYSTONE_CLIENT_NAMESPACE} ({} found)",
            list.items.len()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{StatusCause, StatusDetails};

    fn failure(reason: &str, causes: Vec<(&str, &str)>) -> Status {
        Status {
            status: Some("Failure".into()),
            reason: Some(reason.into()),
            message: Some("m\u{1b}[31m".into()),
            details: Some(StatusDetails {
                causes: Some(
                    causes
                        .into_iter()
                        .map(|(r, m)| StatusCause {
                            reason: Some(r.into()),
                            message: Some(m.into()),
                            field: None,
                        })
                        .collect(),
                ),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn the_exit_code_comes_from_the_status() {
        let ok = Status {
            status: Some("Success".into()),
            ..Default::default()
        };
        assert_eq!(exit_code(&ok), Ok(0));
        assert_eq!(
            exit_code(&failure("NonZeroExitCode", vec![("ExitCode", "2")])),
            Ok(2)
        );
        assert_eq!(
            exit_code(&failure("InternalError", vec![])),
            Err(ExecError::NotRun("m".into()))
        );
        assert!(matches!(
            exit_code(&failure("NonZeroExitCode", vec![("ExitCode", "x")])),
            Err(ExecError::Failed(_))
        ));
    }

    #[test]
    fn json_comes_out_sanitized_keys_and_values() {
        let out = Output::new(
            br#"[{"Na\u001b]0;x\u0007me": "vm\u001b[2J-1", "n": 1}]"#,
            false,
        );
        let v = out.json().unwrap();
        assert_eq!(v, serde_json::json!([{"Name": "vm-1", "n": 1}]));
        assert!(Output::new(b"[1", true).json().is_err());
        assert_eq!(
            Output::new(b"a\x1b[31mb\nc\r\n", false).lines(),
            ["ab", "c"]
        );
    }
}
