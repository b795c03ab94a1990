//! What to do next, per kind of cause: the texts live in
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
        MigrationFailing => "migration-failing",
        MigrationSettingsInvalid => "migration-settings-invalid",
        NotifyOwners => "notify-owners",
        LockFailed => "lock-failed",
        RequestStuckDeleting => "request-stuck-deleting",
        ServersLeft => "servers-left",
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
/// scope and controller (looked up in `snap`): a cluster lock's own step
/// (`lock-held/cluster-openstack`) first — a cluster lock waits for other
/// things than a node lock of the same controller — then the controller's
/// (`lock-held/ceph`), then the kind's `/other`.
pub fn for_item(item: &AttentionItem, snap: &Snapshot) -> Option<&'static NextStep> {
    let kind = kind_key(item.kind)?;
    let steps = all();
    if let Some(s) = steps.get(kind) {
        return Some(s);
    }
    let (controller, cluster) = match snap.objects().get(&item.key) {
        Some(Object::NodeWorkloadLock(l)) => (Some(l.controller.as_str().to_string()), false),
        Some(Object::ClusterWorkloadLock(l)) => (Some(l.controller.as_str().to_string()), true),
        _ => (None, false),
    };
    let scoped = controller
        .as_deref()
        .filter(|_| cluster)
        .and_then(|c| steps.get(&format!("{kind}/cluster-{c}")));
    scoped
        .or_else(|| {
            controller
                .as_deref()
                .and_then(|c| steps.get(&format!("{kind}/{c}")))
        })
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

    const ALL_KINDS: [AttentionKind; 20] = [
        AttentionKind::AutoPaused,
        AttentionKind::WaitingForCommence,
        AttentionKind::StepOverEstimate,
        AttentionKind::ManualMigration,
        AttentionKind::MigrationFailing,
        AttentionKind::MigrationSettingsInvalid,
        AttentionKind::NotifyOwners,
        AttentionKind::LockFailed,
        AttentionKind::RequestStuckDeleting,
        AttentionKind::ServersLeft,
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
    fn no_step_advises_deleting_anything() {
        // Deleting a server or a volume loses its data; a request's
        // finalizer removed by hand hides what the controller still does.
        for s in all().values() {
            let text = s.text.to_lowercase();
            assert!(!text.contains("delet"), "{}: {}", s.cause, s.text);
        }
    }

    #[test]
    fn no_step_advises_acknowledging_while_a_migration_runs() {
        for s in all().values() {
            if s.text.contains("acknowledge") && s.cause.starts_with("migration") {
                assert!(
                    s.text.contains("once no migration runs")
                        || s.text.contains("no live migration runs"),
                    "{}: {}",
                    s.cause,
                    s.text
                );
            }
        }
    }

    #[test]
    fn a_cluster_lock_gets_its_own_step_not_the_node_locks() {
        use crate::domain::fixtures;
        use crate::domain::objects::{Controller, LockState, ObjectKey};
        use std::sync::Arc;
        let mut snap = fixtures::mid_update();
        let cwl = fixtures::cluster_lock(
            "openstack-osh-dev",
            Controller::Openstack,
            LockState::Active,
        );
        snap.apply(Object::ClusterWorkloadLock(Arc::new(cwl)));
        let item = AttentionItem {
            kind: AttentionKind::LockHeld,
            subject: "openstack-osh-dev".into(),
            node: None,
            why: String::new(),
            since: fixtures::mid_update_now(),
            at_least: false,
            since_inferred: None,
            action: None,
            key: ObjectKey::new(
                crate::domain::objects::Kind::ClusterWorkloadLock,
                "",
                "openstack-osh-dev",
            ),
            symptoms: Vec::new(),
            unraised_since: None,
        };
        let step = for_item(&item, &snap).unwrap();
        assert_eq!(step.cause, "lock-held/cluster-openstack");
        assert!(!step.text.contains("servers"), "{}", step.text);
    }

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
