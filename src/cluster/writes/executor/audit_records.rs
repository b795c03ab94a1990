//! The audit records of a run: who writes (asked once per cluster), what
//! each record of a plan's step says, and appending one to the log before
//! it is reported.

use super::Shared;
use crate::audit::{AuditOutcome, AuditPhase, AuditRecord, PermissionCheck};
use crate::cluster::writes::events::WriteEvent;
use crate::domain::action::plan::{ActionPlan, PlannedStep};
use crate::domain::objects::ClusterId;

impl Shared {
    /// (user, source) on `cluster`, the one the write goes to: from its
    /// SelfSubjectReview, else its kubeconfig user.
    pub(super) async fn identity(&self, cluster: ClusterId) -> (String, String) {
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

    pub(in crate::cluster::writes) async fn write_audit(
        &self,
        rec: AuditRecord,
    ) -> Result<(), String> {
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
pub(super) struct RunContext {
    pub(super) user: (String, String),
    pub(super) permission: PermissionCheck,
    pub(super) permission_note: Option<String>,
}

pub(super) fn record(
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
