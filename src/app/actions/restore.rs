//! Restore migration mode (the wrap-up's `r`): the migration modes this
//! console changed, read from the audit log (this session's records and,
//! read back at start, the earlier sessions'), and the plan that puts one
//! back to the value before.
//!
//! Each set-migration-mode and acknowledge-migration record keeps the
//! change as `{key, old, new}` per annotation (`Change::Annotations`,
//! serialized by the executor), so the value before is on disk; a record
//! whose annotation lacks `old` is said to be not recorded, and nothing is
//! offered for it.

use crate::app::actions::plan::{
    ActionPlan, AnnotationChange, Change, ObjectRef, PlanContext, PlanError, PlannedStep,
};
use crate::audit::{AuditOutcome, AuditPhase, AuditRecord};
use crate::domain::action::ActionId;
use crate::domain::objects::{ClusterId, Kind, MigrationMode, Snapshot};
use crate::domain::wrapup::{self, ModeChange, ModeWrite, Previous, RestoreOffer};

/// The actions whose records change a node's migration mode.
const MODE_ACTIONS: [ActionId; 3] = [
    ActionId::SetMigrationMode,
    ActionId::AcknowledgeMigration,
    ActionId::RestoreMigrationMode,
];

/// The mode write a record tells, if it is an applied change of a node's
/// migration mode on `context` (succeeded, not a dry run).
pub fn mode_write(rec: &AuditRecord, context: &str) -> Option<ModeWrite> {
    let action = ActionId::from_name(&rec.action)?;
    if !MODE_ACTIONS.contains(&action)
        || rec.phase != AuditPhase::Result
        || rec.outcome != AuditOutcome::Succeeded
        || rec.dry_run
        || rec.kind != "Node"
        || rec.context != context
    {
        return None;
    }
    let a = rec
        .change
        .get("annotations")?
        .as_array()?
        .iter()
        .find(|a| a.get("key").and_then(|k| k.as_str()) == Some(MigrationMode::ANNOTATION))?;
    let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
    let old = match a.get("old") {
        Some(v) => Previous::Recorded(text(v)),
        None => Previous::NotRecorded,
    };
    Some(ModeWrite {
        time: rec.time,
        node: rec.name.clone(),
        restore: action == ActionId::RestoreMigrationMode,
        old,
        new: a.get("new").and_then(text),
    })
}

/// The modes this console changed on `context`, from `earlier` (read back)
/// then `session` records.
pub fn mode_changes(
    earlier: &[AuditRecord],
    session: &[AuditRecord],
    context: &str,
) -> Vec<ModeChange> {
    let writes: Vec<ModeWrite> = earlier
        .iter()
        .chain(session)
        .filter_map(|r| mode_write(r, context))
        .collect();
    wrapup::mode_changes(&writes)
}

/// Put `change`'s node back to the value before: offered only while the
/// node's mode is still the one this console set
/// ([`wrapup::restore_offer`]); the write tests that value again at
/// confirm and on the server, as every node write does.
pub fn plan_restore(
    snap: &Snapshot,
    ctx: &PlanContext,
    change: &ModeChange,
) -> Result<ActionPlan, PlanError> {
    let previous = match wrapup::restore_offer(snap, change) {
        RestoreOffer::Offered { previous } => previous,
        other => return Err(PlanError(format!("{}: {}", change.node, other.describe()))),
    };
    let node = snap
        .nodes()
        .find(|n| n.name == change.node)
        .ok_or_else(|| PlanError(format!("{}: the node is not seen", change.node)))?;
    let mut plan = ActionPlan {
        id: 0,
        action: ActionId::RestoreMigrationMode,
        cluster: ClusterId::Mosk,
        context: ctx.mosk_context.clone(),
        dry_run: ctx.dry_run,
        steps: Vec::new(),
        warnings: Vec::new(),
        notes: vec![format!(
            "this console set {} at {} (audit log)",
            wrapup::shown(change.set_to.as_deref()),
            change.time.strftime("%Y-%m-%d %H:%M:%S UTC")
        )],
        access: None,
        refused: None,
    };
    if previous.as_deref() == Some(MigrationMode::Skip.as_str()) {
        plan.warnings.push(format!(
            "{}: with skip, instances still on the node go down when it reboots in the next maintenance",
            change.node
        ));
    }
    plan.steps.push(PlannedStep {
        target: ObjectRef {
            cluster: ClusterId::Mosk,
            kind: Kind::Node,
            namespace: String::new(),
            name: node.name.clone(),
            uid: node.uid.clone(),
        },
        change: Change::Annotations {
            annotations: vec![AnnotationChange {
                key: MigrationMode::ANNOTATION.into(),
                old: change.set_to.clone(),
                new: previous,
            }],
        },
        node: node.name.clone(),
        servers: Vec::new(),
        acknowledge: Vec::new(),
    });
    Ok(plan)
}
