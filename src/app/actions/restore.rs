//! Restore migration setting (the wrap-up's `r`): the migration settings
//! (mode and attempts, [`wrapup::SETTINGS`]) this console changed, read
//! from the audit log (this session's records and, read back at start, the
//! earlier sessions'), and the plan that puts one back to the value before.
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
use crate::domain::wrapup::{self, Previous, RestoreOffer, SettingChange, SettingWrite};

/// The actions whose records change a node's migration settings.
const SETTING_ACTIONS: [ActionId; 3] = [
    ActionId::SetMigrationMode,
    ActionId::AcknowledgeMigration,
    ActionId::RestoreMigrationSetting,
];

/// The setting writes a record tells, if it is an applied change of a
/// node's migration settings on `context` (succeeded, not a dry run): one
/// per setting it changed (a set-migration-mode may change both).
pub fn setting_writes(rec: &AuditRecord, context: &str) -> Vec<SettingWrite> {
    let applies = ActionId::from_name(&rec.action).is_some_and(|a| SETTING_ACTIONS.contains(&a))
        && rec.phase == AuditPhase::Result
        && rec.outcome == AuditOutcome::Succeeded
        && !rec.dry_run
        && rec.kind == "Node"
        && rec.context == context;
    let Some(annotations) = rec
        .change
        .get("annotations")
        .and_then(|a| a.as_array())
        .filter(|_| applies)
    else {
        return Vec::new();
    };
    let restore = rec.action == ActionId::RestoreMigrationSetting.name();
    let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
    annotations
        .iter()
        .filter_map(|a| {
            let key = a.get("key").and_then(|k| k.as_str())?;
            wrapup::SETTINGS.contains(&key).then(|| SettingWrite {
                time: rec.time,
                node: rec.name.clone(),
                key: key.to_string(),
                restore,
                old: match a.get("old") {
                    Some(v) => Previous::Recorded(text(v)),
                    None => Previous::NotRecorded,
                },
                new: a.get("new").and_then(text),
            })
        })
        .collect()
}

/// The settings this console changed on `context`, from `earlier` (read
/// back) then `session` records.
pub fn setting_changes(
    earlier: &[AuditRecord],
    session: &[AuditRecord],
    context: &str,
) -> Vec<SettingChange> {
    let writes: Vec<SettingWrite> = earlier
        .iter()
        .chain(session)
        .flat_map(|r| setting_writes(r, context))
        .collect();
    wrapup::setting_changes(&writes)
}

/// Put `change`'s setting back to the value before: offered only while
/// the node's setting is still the value this console set
/// ([`wrapup::restore_offer`]); the write tests that value again at
/// confirm and on the server, as every node write does.
pub fn plan_restore(
    snap: &Snapshot,
    ctx: &PlanContext,
    change: &SettingChange,
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
        action: ActionId::RestoreMigrationSetting,
        cluster: ClusterId::Mosk,
        context: ctx.mosk_context.clone(),
        dry_run: ctx.dry_run,
        steps: Vec::new(),
        warnings: Vec::new(),
        notes: vec![format!(
            "this console set {} {} at {} (audit log)",
            wrapup::setting_name(&change.key),
            wrapup::shown(change.set_to.as_deref()),
            change.time.strftime("%Y-%m-%d %H:%M:%S UTC")
        )],
        access: None,
        refused: None,
    };
    if change.key == MigrationMode::ANNOTATION
        && previous.as_deref() == Some(MigrationMode::Skip.as_str())
    {
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
                key: change.key.clone(),
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
