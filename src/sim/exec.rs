//! What runs inside the simulated pods when a client execs a command
//! (`pods/{name}/exec`), and what each pod received.
//!
//! The HTTP and WebSocket side is `sim::server::exec`; this module is the
//! container's side: a [`Programs`] answers a command line with its output
//! and exit status, and [`Exec`] records every command that reached a pod
//! so tests can assert what was sent. Without programs every command fails
//! to start, as a container without the executable does.

use std::fmt;
use std::sync::{Arc, Mutex};

/// The container a command runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecTarget<'a> {
    pub namespace: &'a str,
    pub pod: &'a str,
    pub container: &'a str,
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// It ran and exited with this code.
    Code(i32),
    /// It could not start (no such executable): the container runtime's error.
    NotStarted(String),
}

/// What one command wrote and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit: Exit,
}

impl Ran {
    pub fn exited(code: i32, stdout: impl Into<Vec<u8>>, stderr: impl Into<Vec<u8>>) -> Ran {
        Ran {
            stdout: stdout.into(),
            stderr: stderr.into(),
            exit: Exit::Code(code),
        }
    }

    /// The executable is not in the container: containerd's error for an
    /// exec whose process cannot start (runc's "executable file not found").
    pub fn not_found(executable: &str) -> Ran {
        Ran {
            stdout: Vec::new(),
            stderr: Vec::new(),
            exit: Exit::NotStarted(format!(
                "failed to exec in container: failed to start exec: OCI runtime exec failed: \
                 exec failed: unable to start container process: exec: \"{executable}\": \
                 executable file not found in $PATH: unknown"
            )),
        }
    }
}

/// The executables of the simulated containers.
pub trait Programs: Send + Sync + fmt::Debug {
    /// Runs `command` (argv, not a shell line) in `target` to its end.
    fn run(&self, target: ExecTarget<'_>, command: &[String]) -> Ran;
}

/// One command as the pod received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    pub command: Vec<String>,
    /// The negotiated subprotocol (`v5.channel.k8s.io`, `v4.channel.k8s.io`).
    pub protocol: String,
}

/// The exec side of one simulated API server: its programs and the log of
/// what its pods received. Shared by its routers (`ServerOptions::exec`).
#[derive(Debug, Default)]
pub struct Exec {
    programs: Option<Arc<dyn Programs>>,
    received: Mutex<Vec<Received>>,
}

impl Exec {
    pub fn new(programs: Arc<dyn Programs>) -> Exec {
        Exec {
            programs: Some(programs),
            received: Mutex::new(Vec::new()),
        }
    }

    /// Records the command and runs it.
    pub fn run(&self, target: ExecTarget<'_>, command: &[String], protocol: &str) -> Ran {
        self.received
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Received {
                namespace: target.namespace.to_string(),
                pod: target.pod.to_string(),
                container: target.container.to_string(),
                command: command.to_vec(),
                protocol: protocol.to_string(),
            });
        match &self.programs {
            Some(p) => p.run(target, command),
            None => Ran::not_found(command.first().map_or("", String::as_str)),
        }
    }

    /// Every command the pods received so far, in order.
    pub fn received(&self) -> Vec<Received> {
        self.received
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}
