//! The OpenStack CLI in the `keystone-client` pod (through [`super::exec`]):
//! reading the servers on a node, and running one server command that the
//! action path has confirmed (`cluster::writes` calls [`run_openstack`]).

use std::collections::BTreeMap;

use super::exec::{
    ExecError, ExecLimits, KEYSTONE_CLIENT_CONTAINER, KEYSTONE_CLIENT_NAMESPACE, PodRef,
    exec_in_pod, keystone_client_pod,
};
use crate::domain::servers::{Server, apply_show, parse_list, parse_projects};

/// What one read of a node's servers found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServersRead {
    pub servers: Vec<Server>,
    /// Project ID -> name, from `openstack project list`; empty when it
    /// could not be read (the IDs are shown).
    pub projects: BTreeMap<String, String>,
}

/// Why a read or a command failed; `refused` when the API server refused
/// the exec (401/403 on `pods/exec`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    pub refused: bool,
    pub message: String,
}

impl From<ExecError> for CliError {
    fn from(e: ExecError) -> Self {
        CliError {
            refused: matches!(e, ExecError::Refused(_)),
            message: e.to_string(),
        }
    }
}

/// The argv of `openstack server list` for `node`.
pub fn list_command(node: &str) -> Vec<String> {
    [
        "openstack",
        "server",
        "list",
        "--all-projects",
        "--host",
        node,
        "--long",
        "-f",
        "json",
    ]
    .map(String::from)
    .to_vec()
}

/// Runs `argv` in the `keystone-client` pod; a non-zero exit is an error
/// carrying the command's stderr (its last lines), else its stdout.
pub async fn run_openstack(
    client: &kube::Client,
    argv: &[String],
) -> Result<super::exec::Output, CliError> {
    let pod = keystone_client_pod(client).await?;
    let target = PodRef {
        namespace: KEYSTONE_CLIENT_NAMESPACE,
        pod: &pod,
        container: Some(KEYSTONE_CLIENT_CONTAINER),
    };
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    let out = exec_in_pod(client, target, &args, ExecLimits::default()).await?;
    if out.exit_code != 0 {
        let mut lines = out.stderr.lines();
        if lines.is_empty() {
            lines = out.stdout.lines();
        }
        let tail: Vec<String> = lines.into_iter().rev().take(2).collect();
        let tail: Vec<String> = tail.into_iter().rev().collect();
        return Err(CliError {
            refused: false,
            message: format!(
                "{} exited {}: {}",
                argv[..3].join(" "),
                out.exit_code,
                tail.join(" ")
            ),
        });
    }
    Ok(out.stdout)
}

async fn json(client: &kube::Client, argv: &[String]) -> Result<serde_json::Value, CliError> {
    run_openstack(client, argv)
        .await?
        .json()
        .map_err(|m| CliError {
            refused: false,
            message: format!("{}: {m}", argv[..3].join(" ")),
        })
}

/// `openstack server show <id> -f json`.
pub async fn show_server(client: &kube::Client, id: &str) -> Result<serde_json::Value, CliError> {
    let argv = ["openstack", "server", "show", id, "-f", "json"].map(String::from);
    json(client, &argv).await
}

/// The servers on `node`: the list, each server's `show` (tags, vm_state),
/// and the projects' names (a failed project list leaves the IDs).
pub async fn read_servers(client: &kube::Client, node: &str) -> Result<ServersRead, CliError> {
    let list = json(client, &list_command(node)).await?;
    let mut servers = parse_list(&list).map_err(|m| CliError {
        refused: false,
        message: m,
    })?;
    for s in &mut servers {
        // A server gone between the list and its show keeps the list's row.
        if let Ok(v) = show_server(client, &s.id).await {
            apply_show(s, &v);
        }
    }
    let argv = ["openstack", "project", "list", "-f", "json"].map(String::from);
    let projects = json(client, &argv)
        .await
        .map(|v| parse_projects(&v))
        .unwrap_or_default();
    Ok(ServersRead { servers, projects })
}
