//! The effects of the console's commands: action commands go to the
//! [`ActionExecutor`] (the one write path), and its [`WriteEvent`]s come
//! back as `Msg::Action`. When the audit log cannot be opened, no action can
//! run: every permission is answered "unavailable" with the reason, and a
//! plan that still arrives is refused unsent.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use crate::app::msg::{Command, Msg};
use crate::audit::AuditLog;
use crate::cluster::Clusters;
use crate::cluster::writes::executor::{ActionExecutor, ExecutorConfig};
use crate::cluster::writes::exit::ExitReport;
use crate::cluster::writes::{WriteEvent, WriteMode, WriteSink};
use crate::console::ConsoleOptions;
use crate::console::runtime::Effects;
use crate::domain::action::access::AccessVerdict;
use crate::domain::action::run::RunOutcome;

/// The executor's reports as the console's messages. A closed channel (the
/// console is closing) is not an error here.
pub fn to_msgs(tx: UnboundedSender<Msg>) -> WriteSink {
    Arc::new(move |ev: WriteEvent| {
        let _ = tx.send(Msg::Action(ev));
    })
}

pub struct ConsoleEffects {
    actions: Result<ActionExecutor, String>,
    tx: UnboundedSender<Msg>,
}

impl ConsoleEffects {
    pub fn new(clusters: &Clusters, opts: &ConsoleOptions, tx: UnboundedSender<Msg>) -> Self {
        let mode = WriteMode::from_flags(opts.session.read_only, opts.session.dry_run);
        // Read-only: no executor at all (and no audit file is created).
        let audit = if mode == WriteMode::ReadOnly {
            Err("read-only mode (--read-only): no write can be sent".to_string())
        } else {
            AuditLog::open(opts.audit_log.as_deref()).map_err(|e| {
                format!(
                    "the audit log cannot be opened, so actions are off: {e} (use --audit-log PATH)"
                )
            })
        };
        let actions = audit.map(|audit| {
            ActionExecutor::new(ExecutorConfig::from_clusters(
                clusters,
                Arc::new(audit),
                mode,
                &opts.session.namespace,
                to_msgs(tx.clone()),
            ))
        });
        if let Err(e) = &actions
            && mode != WriteMode::ReadOnly
        {
            tracing::warn!("{e}");
        }
        ConsoleEffects { actions, tx }
    }

    /// Effects running commands through `exec` (its reports should go to
    /// `tx`, see [`to_msgs`]).
    pub fn with_executor(exec: ActionExecutor, tx: UnboundedSender<Msg>) -> Self {
        ConsoleEffects {
            actions: Ok(exec),
            tx,
        }
    }

    /// The writes in flight now, in words.
    pub fn in_flight(&self) -> Vec<String> {
        self.actions
            .as_ref()
            .map(ActionExecutor::in_flight)
            .unwrap_or_default()
    }

    /// Whether a plan is still running.
    pub fn running(&self) -> bool {
        self.actions.as_ref().is_ok_and(ActionExecutor::running)
    }

    /// At exit: waits at most `grace` for the write in flight (see
    /// `cluster::writes::exit`).
    pub async fn finish(&mut self, grace: std::time::Duration) -> ExitReport {
        match &mut self.actions {
            Ok(exec) => exec.finish(grace).await,
            Err(_) => ExitReport::default(),
        }
    }
}

impl Effects for ConsoleEffects {
    /// Must be called inside a tokio runtime (the console's runtime loop is).
    fn run(&mut self, command: Command) {
        let why = match &mut self.actions {
            Ok(exec) => {
                match command {
                    Command::Execute(plan) => exec.execute(plan),
                    Command::CheckAccess(keys) => exec.check_access(keys),
                    Command::CancelRun => exec.cancel_run(),
                    Command::Quit => exec.quit(),
                }
                return;
            }
            Err(why) => why.clone(),
        };
        let send = to_msgs(self.tx.clone());
        match command {
            Command::CheckAccess(keys) => {
                for key in keys {
                    send(WriteEvent::Access {
                        key,
                        verdict: AccessVerdict::Denied(why.clone()),
                    });
                }
            }
            Command::Execute(plan) => send(WriteEvent::Finished {
                plan_id: plan.id,
                outcome: RunOutcome::Refused { message: why },
            }),
            Command::CancelRun | Command::Quit => {}
        }
    }
}
