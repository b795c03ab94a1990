//! The plan loop: refuse what must not be sent (read-only, a plan made for
//! another mode, an RBAC denial), then for each object in turn the audit
//! intent, the request, the audit result; cancelled between objects, stopped
//! at the first failure.

use std::sync::atomic::Ordering;

use tokio_util::sync::CancellationToken;

use super::Shared;
use super::audit_records::{RunContext, record};
use super::step::execute_step;
use crate::audit::{AuditOutcome, AuditPhase, PermissionCheck};
use crate::cluster::writes::WriteError;
use crate::domain::action::access::{AccessKey, AccessVerdict, NOT_VERIFIED};
use crate::domain::action::plan::ActionPlan;
use crate::domain::action::run::{RunOutcome, StepStatus};
use crate::domain::objects::ClusterId;

pub(super) fn not_sent_rest(shared: &Shared, plan: &ActionPlan, from: usize, why: &str) {
    for i in from..plan.steps.len() {
        shared.step(plan, i, StepStatus::NotSent(why.to_string()));
    }
}

/// A plan refused at confirm ([`ActionPlan::refused`]): nothing is sent,
/// not even the identity question; each object gets one audit record,
/// `refused`, with the reason, under the kubeconfig user.
async fn refused_unsent(shared: &Shared, plan: &ActionPlan, why: &str) {
    let user = match plan.cluster {
        ClusterId::Mosk => shared.mosk_user.clone(),
        ClusterId::Mgmt => shared.mgmt_user.clone(),
    };
    let run = RunContext {
        user: (
            user.unwrap_or_else(|| "unknown".into()),
            "kubeconfig".to_string(),
        ),
        permission: PermissionCheck::NotVerified,
        permission_note: None,
    };
    let message = format!("not sent: refused by the console: {why}");
    for (i, step) in plan.steps.iter().enumerate() {
        let mut rec = record(
            shared,
            plan,
            step,
            &run,
            AuditPhase::Result,
            AuditOutcome::Refused,
            Some(message.clone()),
        );
        // No access review was made.
        rec.permission = None;
        if let Err(e) = shared.write_audit(rec).await {
            tracing::warn!(plan = plan.id, "the refusal could not be audited: {e}");
        }
        shared.step(plan, i, StepStatus::NotSent(why.to_string()));
    }
    tracing::warn!(
        plan = plan.id,
        action = plan.action.name(),
        "refused, nothing sent: {why}"
    );
}

pub(super) async fn run_plan(
    shared: &Shared,
    plan: &ActionPlan,
    cancel: &CancellationToken,
) -> RunOutcome {
    let mode = shared.writer.mode();
    if let Err(e) = shared.writer.guard() {
        not_sent_rest(shared, plan, 0, "read-only mode");
        return RunOutcome::Refused {
            message: e.message(),
        };
    }
    if let Some(why) = &plan.refused {
        refused_unsent(shared, plan, why).await;
        return RunOutcome::Refused {
            message: why.clone(),
        };
    }
    if plan.dry_run != mode.dry_run() {
        not_sent_rest(shared, plan, 0, "plan and session mode disagree");
        return RunOutcome::Refused {
            message: "the plan was made for a different mode (dry-run or not); plan it again"
                .into(),
        };
    }
    let keys = AccessKey::all_for_action(plan.action, &shared.project());
    let key = AccessKey {
        verb: keys
            .iter()
            .map(|k| k.verb.as_str())
            .collect::<Vec<_>>()
            .join(" and "),
        ..keys[0].clone()
    };
    // Only a real denial stops the plan here; an unanswered review leaves
    // the decision to the server's own authorization of each request.
    let (permission, permission_note) = match shared.access(plan, &keys).await {
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
