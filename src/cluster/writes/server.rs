//! A confirmed OpenStack CLI command on one server, run in the
//! `keystone-client` pod (`cluster::openstack`). The exec API has no
//! dry-run and no precondition of its own, so the server is read first
//! (`server show`): the command is sent only while the server is still on
//! the node with the status the operator saw. The command's exit only says
//! Nova accepted it (a live migration is asynchronous from microversion
//! 2.34): the servers panel follows the outcome from its refreshed reads.

use super::{WriteError, Writer};
use crate::cluster::openstack::{CliError, run_openstack, show_server};
use crate::domain::action::plan::ServerCommand;
use crate::domain::objects::ClusterId;

fn error(e: CliError) -> WriteError {
    if e.refused {
        WriteError::Forbidden(e.message)
    } else {
        WriteError::Failed(e.message)
    }
}

impl Writer {
    /// Checks the server, then runs `c.command`; the answer in words.
    pub async fn server_command(&self, c: &ServerCommand) -> Result<String, WriteError> {
        self.guard()?;
        let client = self.client(ClusterId::Mosk);
        let now = show_server(&client, &c.server).await.map_err(error)?;
        let host = now
            .get("OS-EXT-SRV-ATTR:host")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        let status = now.get("status").and_then(|v| v.as_str()).unwrap_or("");
        let task = now.get("OS-EXT-STS:task_state").and_then(|v| v.as_str());
        if host != c.node || status != c.status || task != c.task_state.as_deref() {
            let shown = |s: &str, t: Option<&str>| match t {
                Some(t) => format!("{s} ({t})"),
                None => s.to_string(),
            };
            return Err(WriteError::Refused(format!(
                "not sent: server {} is now {} on {} (the panel showed {} on {})",
                c.name,
                shown(if status.is_empty() { "?" } else { status }, task),
                if host.is_empty() { "no host" } else { host },
                shown(&c.status, c.task_state.as_deref()),
                c.node
            )));
        }
        run_openstack(&client, &c.command).await.map_err(error)?;
        Ok(format!("`{}` accepted", c.text()))
    }
}
