//! Executes confirmed plans (audit intent -> request -> audit result, one
//! object at a time, stopping at the first failure), asks RBAC questions,
//! and cancels runs between objects. Reports go out as [`WriteEvent`]s
//! (the console maps them to its messages). What happens to a request
//! still in flight when the console quits is in [`super::exit`].
//!
//! The executor keeps no permission answers of its own: a plan carries the
//! answer the model's access cache held when it was confirmed
//! ([`ActionPlan::access`]); only a plan without one makes it ask the server,
//! and that answer is reported back to the model like any other.
//!
//! Here: what the executor is given and how a plan is started, refused or
//! cancelled. `plan_loop` runs a plan object by object, `step` sends one
//! step's request, `audit_records` writes what each step is recorded as.

mod audit_records;
mod plan_loop;
mod step;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::OnceCell;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::events::{WriteEvent, WriteSink};
use super::exit::InFlight;
use super::{WriteMode, Writer};
use crate::audit::AuditLog;
use crate::domain::action::access::{AccessKey, AccessVerdict};
use crate::domain::action::plan::ActionPlan;
use crate::domain::action::run::{RunOutcome, StepStatus};
use crate::domain::objects::ClusterId;
use plan_loop::{not_sent_rest, run_plan};

/// How long a vRouter restart waits for the replacement pod by default.
pub const DEFAULT_REPLACEMENT_TIMEOUT: Duration = Duration::from_secs(300);

/// Why a plan that arrives while another runs is refused.
pub const SECOND_PLAN_REFUSED: &str =
    "another action is running: one action at a time; nothing was sent";

/// What the executor needs; the binary builds it from the connected clusters.
pub struct ExecutorConfig {
    pub mgmt: kube::Client,
    pub mosk: kube::Client,
    pub mgmt_context: String,
    pub mosk_context: String,
    /// The kubeconfig user of each context (the audit identity when the
    /// server does not answer SelfSubjectReview).
    pub mgmt_user: Option<String>,
    pub mosk_user: Option<String>,
    /// How each connection is protected (the audit records' `connection`).
    pub transports: Transports,
    pub audit: Arc<AuditLog>,
    pub mode: WriteMode,
    /// The cluster's project namespace on the management cluster (where
    /// its ClusterUpdatePlan is; the commence permission is asked there).
    pub project: String,
    /// Where reports go.
    pub events: WriteSink,
    /// How long to wait for a replacement vRouter pod to be Ready.
    pub replacement_timeout: Duration,
}

/// The connection of each cluster, as [`crate::cluster::connect::Transport`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transports {
    pub mgmt: crate::cluster::connect::Transport,
    pub mosk: crate::cluster::connect::Transport,
}

impl Transports {
    pub fn of(self, cluster: ClusterId) -> crate::cluster::connect::Transport {
        match cluster {
            ClusterId::Mgmt => self.mgmt,
            ClusterId::Mosk => self.mosk,
        }
    }
}

impl ExecutorConfig {
    /// From the connected clusters (a kubeconfig user of `-` counts as none).
    pub fn from_clusters(
        clusters: &crate::cluster::connect::Clusters,
        audit: Arc<AuditLog>,
        mode: WriteMode,
        project: &str,
        events: WriteSink,
    ) -> ExecutorConfig {
        let user = |u: &str| (!u.is_empty() && u != "-").then(|| u.to_string());
        ExecutorConfig {
            mgmt: clusters.mgmt.clone(),
            mosk: clusters.mosk.clone(),
            mgmt_context: clusters.mgmt_context.clone(),
            mosk_context: clusters.mosk_context.clone(),
            mgmt_user: user(&clusters.mgmt_user),
            mosk_user: user(&clusters.mosk_user),
            transports: Transports {
                mgmt: clusters.mgmt_transport,
                mosk: clusters.mosk_transport,
            },
            audit,
            mode,
            project: project.to_string(),
            events,
            replacement_timeout: DEFAULT_REPLACEMENT_TIMEOUT,
        }
    }
}

pub(super) struct Shared {
    writer: Writer,
    pub(super) audit: Arc<AuditLog>,
    events: WriteSink,
    /// The project namespace ([`ExecutorConfig::project`]); set again when
    /// the operator picks the cluster after start-up.
    project: Mutex<String>,
    mosk_user: Option<String>,
    mgmt_user: Option<String>,
    transports: Transports,
    /// Who writes, asked once per cluster: the two clusters have their own
    /// kubeconfig users and may answer SelfSubjectReview with different names.
    mgmt_identity: OnceCell<(String, String)>,
    mosk_identity: OnceCell<(String, String)>,
    replacement_timeout: Duration,
    /// Per plan: the request sent whose result record is not written yet.
    pub(super) in_flight: Mutex<BTreeMap<u64, InFlight>>,
    /// Set when the console quits: results are also noted in `after_quit`.
    pub(super) quitting: AtomicBool,
    /// Results that arrived while the console waited at exit, in words.
    pub(super) after_quit: Mutex<Vec<String>>,
}

/// The one executor of operator actions (see the module text).
pub struct ActionExecutor {
    pub(super) shared: Arc<Shared>,
    pub(super) cancel: Option<CancellationToken>,
    /// The plans started (one at a time; finished ones are dropped on the next start).
    pub(super) tasks: Vec<JoinHandle<()>>,
}

impl ActionExecutor {
    pub fn new(cfg: ExecutorConfig) -> ActionExecutor {
        ActionExecutor {
            shared: Arc::new(Shared {
                writer: Writer::new(cfg.mgmt, cfg.mosk, cfg.mode),
                audit: cfg.audit,
                events: cfg.events,
                project: Mutex::new(cfg.project),
                mosk_user: cfg.mosk_user,
                mgmt_user: cfg.mgmt_user,
                transports: cfg.transports,
                mgmt_identity: OnceCell::new(),
                mosk_identity: OnceCell::new(),
                replacement_timeout: cfg.replacement_timeout,
                in_flight: Mutex::new(BTreeMap::new()),
                quitting: AtomicBool::new(false),
                after_quit: Mutex::new(Vec::new()),
            }),
            cancel: None,
            tasks: Vec::new(),
        }
    }

    pub fn mode(&self) -> WriteMode {
        self.shared.writer.mode()
    }

    /// The cluster's project namespace, once the operator has chosen the
    /// cluster (the console started with the cluster picker).
    pub fn set_project(&self, namespace: &str) {
        *self
            .shared
            .project
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = namespace.to_string();
    }
}

impl Shared {
    /// The project namespace now.
    pub(super) fn project(&self) -> String {
        self.project
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl ActionExecutor {
    /// Runs a confirmed plan (one at a time). Must be called inside a tokio
    /// runtime (the console's runtime loop is).
    ///
    /// A plan that arrives while another still runs is refused unsent: two
    /// plans at once could take two vRouters (two nodes' networks) down
    /// together, and the running plan's cancel token would be lost. The UI
    /// refuses a second action too; this does not rely on it.
    pub fn execute(&mut self, plan: ActionPlan) {
        if self.running() {
            tracing::warn!(
                plan = plan.id,
                action = plan.action.name(),
                "a second plan arrived while one runs: refused, nothing sent"
            );
            not_sent_rest(&self.shared, &plan, 0, "another action is running");
            self.shared.send(WriteEvent::Finished {
                plan_id: plan.id,
                outcome: RunOutcome::Refused {
                    message: SECOND_PLAN_REFUSED.into(),
                },
            });
            return;
        }
        let token = CancellationToken::new();
        self.cancel = Some(token.clone());
        let shared = self.shared.clone();
        self.tasks.retain(|t| !t.is_finished());
        self.tasks.push(tokio::spawn(async move {
            let id = plan.id;
            let outcome = run_plan(&shared, &plan, &token).await;
            shared.send(WriteEvent::Finished {
                plan_id: id,
                outcome,
            });
        }));
    }

    /// Asks the server each question; every answer is reported.
    pub fn check_access(&mut self, keys: Vec<AccessKey>) {
        let shared = self.shared.clone();
        tokio::spawn(async move {
            for key in keys {
                let verdict = shared.writer.review_access(&key).await;
                shared.send(WriteEvent::Access { key, verdict });
            }
        });
    }

    /// Stops the running plan before its next object.
    pub fn cancel_run(&mut self) {
        if let Some(t) = &self.cancel {
            t.cancel();
        }
    }

    /// The console quits: no further object of a running plan is sent; the
    /// one in flight is waited for by `finish` (see `super::exit`).
    pub fn quit(&mut self) {
        self.shared.quitting.store(true, Ordering::SeqCst);
        self.cancel_run();
    }
}

impl Shared {
    pub(super) fn send(&self, ev: WriteEvent) {
        (self.events)(ev);
    }

    fn step(&self, plan: &ActionPlan, index: usize, status: StepStatus) {
        self.send(WriteEvent::Step {
            plan_id: plan.id,
            index,
            status,
        });
    }

    /// The answer the plan was confirmed with (the model's access cache);
    /// without one, the server's, reported back to the model's cache.
    async fn access(&self, plan: &ActionPlan, keys: &[AccessKey]) -> AccessVerdict {
        if let Some(v) = &plan.access {
            return v.clone();
        }
        let mut verdicts = Vec::new();
        for key in keys {
            let verdict = self.writer.review_access(key).await;
            self.send(WriteEvent::Access {
                key: key.clone(),
                verdict: verdict.clone(),
            });
            verdicts.push(verdict);
        }
        AccessVerdict::combine(verdicts)
    }
}
