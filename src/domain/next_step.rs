//! What to do next, per kind of cause (issue 10 item 2): the texts live in
//! one data file, `assets/next_steps.toml`, each with its source and an
//! `inferred` flag; this module reads it (compiled in) and finds the step
//! for an attention item.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Deserialize;

use super::attention::{AttentionItem, AttentionKind};
use super::objects::{Object, Snapshot};

/// One next step.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NextStep {
    /// The kind of cause: the attention kind's key, then `/controller` for
    /// locks (`lock-held/ceph`), else `/other`.
    pub cause: String,
    /// What to do, for an operator.
    #[serde(rename = "do")]
    pub text: String,
    /// Where the claim comes from (a seed or a section of the reference).
    pub source: String,
    /// No source says it in these words.
    pub inferred: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    step: Vec<NextStep>,
}

/// The data file, as shipped.
pub const SOURCE: &str = include_str!("../../assets/next_steps.toml");

static STEPS: LazyLock<BTreeMap<String, NextStep>> = LazyLock::new(|| {
    // The file ships with the binary and a test parses it: a parse error
    // here is a build defect, not an operator's input.
    let file: File = toml::from_str(SOURCE).expect("assets/next_steps.toml parses");
    file.step
        .into_iter()
        .map(|s| (s.cause.clone(), s))
        .collect()
});

/// Every step of the data file, by cause key.
pub fn all() -> &'static BTreeMap<String, NextStep> {
    &STEPS
}

/// The cause key of an attention kind (without the controller part).
pub fn kind_key(kind: AttentionKind) -> Option<&'static str> {
    use AttentionKind::*;
    Some(match kind {
        AutoPaused => "auto-paused",
        WaitingForCommence => "waiting-for-commence",
        StepOverEstimate => "step-over-estimate",
        ManualMigration => "manual-migration",
        MigrationGaveUp => "migration-gave-up",
        NotifyOwners => "notify-owners",
        LockFailed => "lock-failed",
        LockHeld => "lock-held",
        DrainError => "drain-error",
        OperationStuck => "operation-stuck",
        ClusterStateRetrying => "retrying",
        Stall => "stall",
        NodeRemoval => "node-removal",
        MachineDisabled => "machine-disabled",
        VrouterOutdated => "vrouter-outdated",
        VrouterStillOutdated => "vrouter-still-outdated",
        Malformed => "malformed",
        // A reminder is itself the advice.
        Reminder(_) => return None,
    })
}

/// The next step for `item`: by its kind, and for a lock by the lock's
/// controller (looked up in `snap`), falling back to the kind's `/other`.
pub fn for_item(item: &AttentionItem, snap: &Snapshot) -> Option<&'static NextStep> {
    let kind = kind_key(item.kind)?;
    let steps = all();
    if let Some(s) = steps.get(kind) {
        return Some(s);
    }
    let controller = match snap.objects.get(&item.key) {
        Some(Object::NodeWorkloadLock(l) | Object::ClusterWorkloadLock(l)) => {
            Some(l.controller.as_str().to_string())
        }
        _ => None,
    };
    controller
        .and_then(|c| steps.get(&format!("{kind}/{c}")))
        .or_else(|| steps.get(&format!("{kind}/other")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::reminders::Reminder;

    #[test]
    fn the_file_parses_and_every_step_names_its_source() {
        assert!(!all().is_empty());
        for s in all().values() {
            assert!(!s.text.trim().is_empty(), "{}", s.cause);
            assert!(!s.source.trim().is_empty(), "{} has no source", s.cause);
            let kind = s.cause.split('/').next().unwrap();
            assert!(
                ALL_KINDS.iter().any(|k| kind_key(*k) == Some(kind)),
                "{} is no attention kind",
                s.cause
            );
        }
    }

    const ALL_KINDS: [AttentionKind; 17] = [
        AttentionKind::AutoPaused,
        AttentionKind::WaitingForCommence,
        AttentionKind::StepOverEstimate,
        AttentionKind::ManualMigration,
        AttentionKind::MigrationGaveUp,
        AttentionKind::NotifyOwners,
        AttentionKind::LockFailed,
        AttentionKind::LockHeld,
        AttentionKind::DrainError,
        AttentionKind::OperationStuck,
        AttentionKind::ClusterStateRetrying,
        AttentionKind::Stall,
        AttentionKind::NodeRemoval,
        AttentionKind::MachineDisabled,
        AttentionKind::VrouterOutdated,
        AttentionKind::VrouterStillOutdated,
        AttentionKind::Malformed,
    ];

    #[test]
    fn every_kind_of_cause_has_a_step_and_reminders_none() {
        for k in ALL_KINDS {
            let key = kind_key(k).unwrap();
            assert!(
                all().contains_key(key) || all().contains_key(&format!("{key}/other")),
                "no next step for {key}"
            );
        }
        assert_eq!(
            kind_key(AttentionKind::Reminder(Reminder::HalfUpdated)),
            None
        );
    }
}
