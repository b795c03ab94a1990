//! Maintenance requests stuck in deletion: the update hangs with every lock
//! already `inactive` and nothing else to flag.
//!
//! When LCM deletes a NodeMaintenanceRequest, each controller's finalizer
//! brings the node back first. Rockoon's `node_maintenance_request_delete_handler`
//! (github:Mirantis/rockoon, `rockoon/controllers/maintenance.py`, commit
//! 1390883a) waits for the node to be Ready and its pods ready, then runs
//! each service's `delete_nmr`; `Nova.prepare_node_after_reboot`
//! (`rockoon/services/__init__.py`) writes "Timeout waiting for compute
//! services up on the host." on the lock — still `inactive` — and retries.
//! Until the finalizer goes, the request stays (deletionTimestamp set) and
//! the next node waits. So: a request in deletion whose node's lock is
//! inactive and carries a message is stuck with a reason; one in deletion
//! longer than `expected.request_deletion` without a word is stuck too.

use super::*;
use crate::domain::objects::{ClusterMaintenanceRequest, NodeMaintenanceRequest};

pub(super) fn stuck_requests(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    expected: &Expected,
    out: &mut Vec<AttentionItem>,
) {
    for r in snap.node_requests().filter(|r| r.deleting) {
        if let Some(item) = node_request(snap, history, now, expected, r) {
            out.push(item);
        }
    }
    for r in snap.cluster_requests().filter(|r| r.deleting) {
        if let Some(item) = cluster_request(snap, history, now, expected, r) {
            out.push(item);
        }
    }
}

/// Since when the request has been in deletion: its own deletionTimestamp,
/// else the console's first sight of it (a lower bound).
fn deleting_since(
    history: &History,
    key: &ObjectKey,
    deletion: Option<Timestamp>,
    now: Timestamp,
) -> (Timestamp, bool) {
    match deletion {
        Some(t) => (t, false),
        None => (history.first_seen(key).unwrap_or(now), true),
    }
}

fn node_request(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    expected: &Expected,
    r: &NodeMaintenanceRequest,
) -> Option<AttentionItem> {
    let key = ObjectKey::new(Kind::NodeMaintenanceRequest, "", &r.name);
    let (since, at_least) = deleting_since(history, &key, r.deletion, now);
    // The locks of the node that say why the controller cannot let go.
    let said: Vec<String> = snap
        .node_locks()
        .filter(|l| {
            l.node_name
                .as_deref()
                .is_some_and(|n| same_node(n, &r.node_name))
                && l.state == LockState::Inactive
        })
        .filter_map(|l| {
            let text = &l.error_message.as_ref()?.parsed().text;
            (!text.trim().is_empty())
                .then(|| format!("{} lock {} says {}", l.controller, l.name, quote(text)))
        })
        .collect();
    let waited = now.duration_since(since);
    if said.is_empty() && waited < expected.request_deletion {
        return None;
    }
    let ge = if at_least { "≥ " } else { "" };
    let reason = if said.is_empty() {
        format!(
            "no controller says why (longer than the expected {}, expected.request_deletion)",
            human_duration(expected.request_deletion)
        )
    } else {
        said.join("; ")
    };
    Some(AttentionItem {
        kind: AttentionKind::RequestStuckDeleting,
        subject: machine_for_node(snap, &r.node_name).unwrap_or_else(|| r.node_name.clone()),
        node: Some(r.node_name.clone()),
        why: format!(
            "NodeMaintenanceRequest {} has been in deletion for {ge}{}: its controllers have not brought the node back, and the next node waits. {reason}",
            r.name,
            human_duration(waited)
        ),
        since,
        at_least,
        since_inferred: None,
        action: None,
        key,
        symptoms: Vec::new(),
        unraised_since: None,
    })
}

fn cluster_request(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    expected: &Expected,
    r: &ClusterMaintenanceRequest,
) -> Option<AttentionItem> {
    let key = ObjectKey::new(Kind::ClusterMaintenanceRequest, "", &r.name);
    let (since, at_least) = deleting_since(history, &key, r.deletion, now);
    let waited = now.duration_since(since);
    if waited < expected.request_deletion {
        return None;
    }
    let said: Vec<String> = snap
        .cluster_locks()
        .filter_map(|l| {
            let text = &l.error_message.as_ref()?.parsed().text;
            (!text.trim().is_empty()).then(|| {
                format!(
                    "{} lock {} ({}) says {}",
                    l.controller,
                    l.name,
                    l.state,
                    quote(text)
                )
            })
        })
        .collect();
    let ge = if at_least { "≥ " } else { "" };
    let reason = if said.is_empty() {
        "no cluster lock says why".to_string()
    } else {
        said.join("; ")
    };
    Some(AttentionItem {
        kind: AttentionKind::RequestStuckDeleting,
        subject: r.name.clone(),
        node: None,
        why: format!(
            "ClusterMaintenanceRequest {} has been in deletion for {ge}{} (expected at most {}, expected.request_deletion): the update cannot finish until its controllers let it go. {reason}",
            r.name,
            human_duration(waited),
            human_duration(expected.request_deletion)
        ),
        since,
        at_least,
        since_inferred: None,
        action: None,
        key,
        symptoms: Vec::new(),
        unraised_since: None,
    })
}
