//! What the executor reports while it works: access answers, audit records,
//! each object's status, the run's end. The console maps them to its own
//! messages (`console::effects`), as it does for `ClusterEvent`.

use std::sync::Arc;

use crate::audit::AuditRecord;
use crate::domain::action::access::{AccessKey, AccessVerdict};
use crate::domain::action::run::{RunOutcome, StepStatus};

/// One report from the executor.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteEvent {
    /// The server answered a SelfSubjectAccessReview (for the model's access cache).
    Access {
        key: AccessKey,
        verdict: AccessVerdict,
    },
    /// An audit record was written (intent or result).
    Audit(Box<AuditRecord>),
    /// One step of a plan changed state.
    Step {
        plan_id: u64,
        index: usize,
        status: StepStatus,
    },
    /// The plan ended.
    Finished { plan_id: u64, outcome: RunOutcome },
    /// No action can run in this session, and why (the audit log cannot be
    /// opened). Not a permission answer: the user's RBAC is not in question.
    ActionsOff(String),
}

/// Where the executor's reports go. Called from the executor's tasks; must
/// not block (the console's sends into an unbounded channel).
pub type WriteSink = Arc<dyn Fn(WriteEvent) + Send + Sync>;
