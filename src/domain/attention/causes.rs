//! Root cause first: one attention item per cause per
//! node, with the symptoms of that wait folded under it.
//!
//! A *symptom* says that something waits, not what for: LCM's cluster
//! state retrying, LCM's "operation stuck" flag, a stall. A *cause* names
//! what the node waits for: a lock (held, failed), servers to migrate, a
//! failed drain, a removal, a disabled machine, a plan step. When a node
//! has a cause, its symptoms fold under the first cause (the one an
//! operator acts on first); when it has none, its most telling symptom
//! stands for the others.

use super::{AttentionItem, AttentionKind};
use crate::domain::join::same_node;

/// A symptom folded under the item of its cause.
#[derive(Debug, Clone, PartialEq)]
pub struct Symptom {
    pub kind: AttentionKind,
    pub why: String,
    pub since: jiff::Timestamp,
    /// `since` is a lower bound (show "≥").
    pub at_least: bool,
}

/// Kinds that say that something waits, not what for.
pub fn is_symptom(kind: AttentionKind) -> bool {
    matches!(
        kind,
        AttentionKind::Stall | AttentionKind::ClusterStateRetrying | AttentionKind::OperationStuck
    )
}

/// Which cause of one node is shown with its symptoms: the one the
/// operator acts on first.
fn cause_rank(kind: AttentionKind) -> u8 {
    use AttentionKind::*;
    match kind {
        ManualMigration
        | MigrationFailing
        | NotifyOwners
        | MigrationSettingsInvalid
        | ServersLeft => 0,
        LockFailed | RequestStuckDeleting => 1,
        LockHeld => 2,
        DrainError => 3,
        NodeRemoval => 4,
        MachineDisabled => 5,
        // Symptoms standing alone: LCM's own retry message says most.
        ClusterStateRetrying => 10,
        OperationStuck => 11,
        Stall => 12,
        _ => OTHER,
    }
}

/// The rank of kinds that are neither a node's cause nor a symptom.
const OTHER: u8 = 6;

fn same_group(a: &AttentionItem, b: &AttentionItem) -> bool {
    match (&a.node, &b.node) {
        (Some(x), Some(y)) => same_node(x, y),
        _ => a.subject == b.subject,
    }
}

/// Folds each node's symptoms under its cause. Items keep their order
/// otherwise (the queue sorts afterwards).
pub(super) fn fold(items: Vec<AttentionItem>) -> Vec<AttentionItem> {
    let (symptoms, mut kept): (Vec<AttentionItem>, Vec<AttentionItem>) =
        items.into_iter().partition(|i| is_symptom(i.kind));
    let mut orphans: Vec<AttentionItem> = Vec::new();
    for s in symptoms {
        let host = kept
            .iter_mut()
            // Only a named cause hosts symptoms (not a vRouter or plan item).
            .filter(|i| cause_rank(i.kind) < OTHER && same_group(i, &s))
            .min_by_key(|i| (cause_rank(i.kind), i.since));
        match host {
            Some(h) => h.symptoms.push(Symptom {
                kind: s.kind,
                why: s.why,
                since: s.since,
                at_least: s.at_least,
            }),
            None => orphans.push(s),
        }
    }
    // A node with symptoms only: the most telling one stands for the rest.
    orphans.sort_by_key(|i| cause_rank(i.kind));
    for s in orphans {
        match kept
            .iter_mut()
            .find(|i| is_symptom(i.kind) && same_group(i, &s))
        {
            Some(h) => h.symptoms.push(Symptom {
                kind: s.kind,
                why: s.why,
                since: s.since,
                at_least: s.at_least,
            }),
            None => kept.push(s),
        }
    }
    for i in &mut kept {
        i.symptoms.sort_by_key(|s| (s.since, s.kind));
    }
    kept
}
