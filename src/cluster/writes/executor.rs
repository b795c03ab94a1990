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

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::OnceCell;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::events::{WriteEvent, WriteSink};
use super::exit::InFlight;
use super::{WriteError, WriteMode, Writer};
use crate::audit::{AuditLog, AuditOutcome, AuditPhase, AuditRecord, PermissionCheck};
use crate::domain::action::access::{AccessKey, AccessVerdict, NOT_VERIFIED};
use crate::domain::action::plan::{ActionPlan, Change, PlannedStep};
use crate::domain::action::run::{RunOutcome, StepStatus};
use crate::domain::objects::ClusterId;

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
    project: String,
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
                project: cfg.project,
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
    async fn access(&self, plan: &ActionPlan, key: &AccessKey) -> AccessVerdict {
        if let Some(v) = &plan.access {
            return v.clone();
        }
        let verdict = self.writer.review_access(key).await;
        self.send(WriteEvent::Access {
            key: key.clone(),
            verdict: verdict.clone(),
        });
        verdict
    }

    /// (user, source) on `cluster`, the one the write goes to: from its
    /// SelfSubjectReview, else its kubeconfig user.
    async fn identity(&self, cluster: ClusterId) -> (String, String) {
        let cell = match cluster {
            ClusterId::Mgmt => &self.mgmt_identity,
            ClusterId::Mosk => &self.mosk_identity,
        };
        cell.get_or_init(|| async {
            match self.writer.whoami(cluster).await {
                Some(u) => (u, "SelfSubjectReview".to_string()),
                None => {
                    let user = match cluster {
                        ClusterId::Mosk => self.mosk_user.clone(),
                        ClusterId::Mgmt => self.mgmt_user.clone(),
                    };
                    (
                        user.unwrap_or_else(|| "unknown".into()),
                        "kubeconfig".to_string(),
                    )
                }
            }
        })
        .await
        .clone()
    }

    pub(super) async fn write_audit(&self, rec: AuditRecord) -> Result<(), String> {
        let audit = self.audit.clone();
        let r = rec.clone();
        let res = tokio::task::spawn_blocking(move || audit.append(&r))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()));
        if res.is_ok() {
            self.send(WriteEvent::Audit(Box::new(rec)));
        }
        res
    }
}

/// What every record of one run shares: who, and what the access review said.
struct RunContext {
    user: (String, String),
    permission: PermissionCheck,
    permission_note: Option<String>,
}

fn record(
    shared: &Shared,
    plan: &ActionPlan,
    step: &PlannedStep,
    run: &RunContext,
    phase: AuditPhase,
    outcome: AuditOutcome,
    message: Option<String>,
) -> AuditRecord {
    let user = &run.user;
    AuditRecord {
        time: jiff::Timestamp::now(),
        session: shared.audit.session().to_string(),
        plan: plan.id,
        phase,
        action: plan.action.name().to_string(),
        user: user.0.clone(),
        user_source: user.1.clone(),
        context: plan.context.clone(),
        kind: step.target.kind.api_kind().to_string(),
        namespace: (!step.target.namespace.is_empty()).then(|| step.target.namespace.clone()),
        name: step.target.name.clone(),
        uid: step.target.uid.clone(),
        change: serde_json::to_value(&step.change).unwrap_or_default(),
        change_text: step.change.describe(),
        servers: step.servers.clone(),
        dry_run: plan.dry_run,
        permission: Some(run.permission),
        permission_note: run.permission_note.clone(),
        kubeconfig_user: match plan.cluster {
            ClusterId::Mosk => shared.mosk_user.clone(),
            ClusterId::Mgmt => shared.mgmt_user.clone(),
        },
        connection: shared
            .transports
            .of(plan.cluster)
            .audit_value()
            .map(str::to_string),
        outcome,
        message,
        simulated: shared.audit.is_simulated(),
    }
}

fn not_sent_rest(shared: &Shared, plan: &ActionPlan, from: usize, why: &str) {
    for i in from..plan.steps.len() {
        shared.step(plan, i, StepStatus::NotSent(why.to_string()));
    }
}

async fn run_plan(shared: &Shared, plan: &ActionPlan, cancel: &CancellationToken) -> RunOutcome {
    let mode = shared.writer.mode();
    if let Err(e) = shared.writer.guard() {
        not_sent_rest(shared, plan, 0, "read-only mode");
        return RunOutcome::Refused {
            message: e.message(),
        };
    }
    if plan.dry_run != mode.dry_run() {
        not_sent_rest(shared, plan, 0, "plan and session mode disagree");
        return RunOutcome::Refused {
            message: "the plan was made for a different mode (dry-run or not); plan it again"
                .into(),
        };
    }
    let key = AccessKey::for_action(plan.action, &shared.project);
    // Only a real denial stops the plan here; an unanswered review leaves
    // the decision to the server's own authorization of each request.
    let (permission, permission_note) = match shared.access(plan, &key).await {
        AccessVerdict::Denied(reason) => {
            not_sent_rest(shared, plan, 0, "forbidden");
            let why = if reason.is_empty() {
                format!("your RBAC does not allow {}", key.describe())
            } else {
                format!("your RBAC does not allow {}: {reason}", key.describe())
            };
            return RunOutcome::Refused { message: why };
        }
        AccessVerdict::Allowed => (PermissionCheck::Allowed, None),
        AccessVerdict::Unknown(why) => (
            PermissionCheck::NotVerified,
            Some(format!(
                "{NOT_VERIFIED} (the access review for {} could not be answered: {why})",
                key.describe()
            )),
        ),
    };
    let run = RunContext {
        user: shared.identity(plan.cluster).await,
        permission,
        permission_note,
    };
    let mut done = 0;
    for (i, step) in plan.steps.iter().enumerate() {
        if cancel.is_cancelled() {
            not_sent_rest(shared, plan, i, "cancelled by the operator");
            return RunOutcome::Cancelled { done };
        }
        shared.step(plan, i, StepStatus::Sending);
        let intent = record(
            shared,
            plan,
            step,
            &run,
            AuditPhase::Intent,
            AuditOutcome::Pending,
            None,
        );
        if let Err(e) = shared.write_audit(intent.clone()).await {
            let err = WriteError::AuditLog(e);
            shared.step(plan, i, StepStatus::Failed(err.message()));
            not_sent_rest(shared, plan, i + 1, "stopped at the first failure");
            return RunOutcome::Refused {
                message: err.message(),
            };
        }
        if cancel.is_cancelled() && shared.quitting.load(Ordering::SeqCst) {
            // The console quit while the intent was written: the request
            // does not leave; the intent gets its result.
            let why = "not sent: the console quit before the request left";
            let rec = record(
                shared,
                plan,
                step,
                &run,
                AuditPhase::Result,
                AuditOutcome::Cancelled,
                Some(why.into()),
            );
            let _ = shared.write_audit(rec).await;
            not_sent_rest(shared, plan, i, "cancelled by the operator");
            return RunOutcome::Cancelled { done };
        }
        shared.begin(plan.id, intent);
        let result = execute_step(shared, plan, i, step).await;
        if !shared.end(plan.id) {
            // The console quit and gave up waiting: an "interrupted" result
            // was written in place of this one (see `super::exit`).
            return RunOutcome::Failed {
                message: "interrupted at exit".into(),
            };
        }
        let (outcome, message) = match &result {
            Ok(m) => (AuditOutcome::Succeeded, Some(m.clone())),
            Err(e) => (e.outcome(), Some(e.message())),
        };
        tracing::info!(
            plan = plan.id,
            action = plan.action.name(),
            object = %step.target.display(),
            dry_run = plan.dry_run,
            outcome = outcome.as_str(),
            message = message.as_deref().unwrap_or(""),
            "action step"
        );
        let rec = record(
            shared,
            plan,
            step,
            &run,
            AuditPhase::Result,
            outcome,
            message,
        );
        shared.note_after_quit(&rec);
        let audit_err = shared.write_audit(rec).await.err();
        match result {
            Ok(m) => {
                let m = match audit_err {
                    Some(e) => format!("{m} (audit result not written: {e})"),
                    None => m,
                };
                shared.step(plan, i, StepStatus::Done(m));
                done += 1;
            }
            Err(e) => {
                shared.step(plan, i, StepStatus::Failed(e.message()));
                not_sent_rest(shared, plan, i + 1, "stopped at the first failure");
                return RunOutcome::Failed {
                    message: format!("{}: {}", step.target.display(), e.message()),
                };
            }
        }
    }
    RunOutcome::Completed {
        dry_run: plan.dry_run,
    }
}

async fn execute_step(
    shared: &Shared,
    plan: &ActionPlan,
    index: usize,
    step: &PlannedStep,
) -> Result<String, WriteError> {
    let w = &shared.writer;
    let dry = plan.dry_run;
    match &step.change {
        Change::Annotations { annotations } => {
            let got = w
                .patch_node_annotations(&step.target.name, &step.target.uid, annotations)
                .await?;
            let now: Vec<String> = annotations
                .iter()
                .zip(got)
                .map(|(c, v)| {
                    format!(
                        "{} is {}",
                        c.key.rsplit('/').next().unwrap_or(&c.key),
                        v.as_deref().unwrap_or("(unset)")
                    )
                })
                .collect();
            Ok(if dry {
                format!("dry run accepted ({})", now.join(", "))
            } else {
                now.join(", ")
            })
        }
        Change::Commence(c) => {
            let t = &step.target;
            w.commence_step(&t.namespace, &t.name, c).await?;
            Ok(if dry {
                format!(
                    "dry run: the server accepted commencing {}; nothing changed",
                    c.label()
                )
            } else {
                format!("{} commenced", c.label())
            })
        }
        Change::RestartPod {
            node, daemonset, ..
        } => {
            let t = &step.target;
            // Asked again before each delete: the plan was checked against
            // the screen, and an earlier pod of this run, the automatic
            // restart or a failing node may have taken a vRouter down since.
            let down = w.vrouters_down(&t.namespace, &t.uid).await?;
            if !down.is_empty() {
                return Err(WriteError::Refused(format!(
                    "not sent: {}; deleting {} now would leave two vRouters down at once: the remaining restarts stop here",
                    down.join(", "),
                    t.name
                )));
            }
            w.delete_pod(&t.namespace, &t.name, &t.uid).await?;
            if dry {
                return Ok("dry run: the server accepted the delete; the pod keeps running".into());
            }
            let waiting = format!("deleted; waiting for the replacement on {node} to be Ready");
            shared.set_stage(plan.id, &waiting);
            shared.step(plan, index, StepStatus::Waiting(waiting));
            let r = w
                .wait_for_replacement(
                    &t.namespace,
                    node,
                    daemonset,
                    &t.uid,
                    shared.replacement_timeout,
                )
                .await?;
            Ok(format!(
                "replaced by {} (generation {}), Ready",
                r.name, r.generation
            ))
        }
    }
}
