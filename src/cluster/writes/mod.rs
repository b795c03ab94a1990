//! The ONE write path to the clusters. Every request that changes anything
//! (a JSON patch of Node annotations that tests what the dialog showed,
//! [`node`]; the delete of a vRouter pod) and every
//! review request (SelfSubjectAccessReview, SelfSubjectReview, which are
//! POSTs too) goes through [`Writer`]; [`WriteMode::ReadOnly`] is enforced in
//! [`Writer::guard`], before any request is built, so with `--read-only` no
//! write can leave the process. [`executor::ActionExecutor`] runs confirmed
//! plans through it, writing the audit log around each request; [`exit`]
//! makes sure a request in flight when the console quits gets a result record.

pub mod errors;
pub mod events;
pub mod executor;
pub mod exit;
pub mod node;
pub mod review;
pub mod server;
pub mod update_plan;
pub mod vrouter;

use crate::domain::objects::ClusterId;

pub use errors::WriteError;
pub use events::{WriteEvent, WriteSink};

/// The `fieldManager` of every create and patch: the node's and the update
/// plan's `managedFields` name the console as the writer of what it set.
/// (A delete takes no field manager in the Kubernetes API; the server's audit
/// log names the console by its User-Agent, `cluster::connect::USER_AGENT`.)
pub const FIELD_MANAGER: &str = "mosk-console";

/// How writes are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// Sent for real.
    Live,
    /// Sent with `dryRun=All`: the server validates, nothing changes.
    DryRun,
    /// Never sent.
    ReadOnly,
}

impl WriteMode {
    /// From the `--read-only` and `--dry-run` flags (read-only wins).
    pub fn from_flags(read_only: bool, dry_run: bool) -> WriteMode {
        if read_only {
            WriteMode::ReadOnly
        } else if dry_run {
            WriteMode::DryRun
        } else {
            WriteMode::Live
        }
    }

    pub fn dry_run(self) -> bool {
        self == WriteMode::DryRun
    }
}

/// Sends writes to the two clusters, honouring the mode.
#[derive(Clone)]
pub struct Writer {
    mgmt: kube::Client,
    mosk: kube::Client,
    mode: WriteMode,
}

impl Writer {
    pub fn new(mgmt: kube::Client, mosk: kube::Client, mode: WriteMode) -> Writer {
        Writer { mgmt, mosk, mode }
    }

    pub fn mode(&self) -> WriteMode {
        self.mode
    }

    /// Refuses every request in read-only mode. Called first by every method
    /// that sends anything but a GET/LIST/WATCH.
    pub fn guard(&self) -> Result<(), WriteError> {
        match self.mode {
            WriteMode::ReadOnly => Err(WriteError::ReadOnly),
            _ => Ok(()),
        }
    }

    pub(crate) fn client(&self, cluster: ClusterId) -> kube::Client {
        match cluster {
            ClusterId::Mgmt => self.mgmt.clone(),
            ClusterId::Mosk => self.mosk.clone(),
        }
    }
}
