//! The effects of the console's commands: action commands go to the
//! [`ActionExecutor`] (the one write path). When the audit log cannot be
//! opened, no action can run: every permission is answered "unavailable"
//! with the reason, and a plan that still arrives is refused unsent.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use crate::app::actions::access::AccessVerdict;
use crate::app::actions::events::{ActionEvent, RunOutcome};
use crate::app::msg::{Command, Msg};
use crate::app::runtime::Effects;
use crate::audit::AuditLog;
use crate::cluster::Clusters;
use crate::cluster::writes::WriteMode;
use crate::cluster::writes::executor::{ActionExecutor, ExecutorConfig};
use crate::cluster::writes::exit::ExitReport;
use crate::console::ConsoleOptions;

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
                tx.clone(),
            ))
        });
        if let Err(e) = &actions
            && mode != WriteMode::ReadOnly
        {
            tracing::warn!("{e}");
        }
        ConsoleEffects { actions, tx }
    }
}

impl ConsoleEffects {
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
    fn run(&mut self, command: Command) {
        let why = match &mut self.actions {
            Ok(exec) => return exec.run(command),
            Err(why) => why.clone(),
        };
        let send = |ev| {
            let _ = self.tx.send(Msg::Action(ev));
        };
        match command {
            Command::CheckAccess(keys) => {
                for key in keys {
                    send(ActionEvent::Access {
                        key,
                        verdict: AccessVerdict::Denied(why.clone()),
                    });
                }
            }
            Command::Execute(plan) => send(ActionEvent::Finished {
                plan_id: plan.id,
                outcome: RunOutcome::Refused { message: why },
            }),
            Command::CancelRun | Command::Quit => {}
        }
    }
}
