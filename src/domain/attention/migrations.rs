//! Attention items from the servers on a node in its turn: a node waiting
//! for the operator (manual mode), live migrations that keep failing,
//! servers whose owners must act, and migration settings the OpenStack
//! controller cannot read. A live migration that is running is progress,
//! not an item: the rules are in [`crate::domain::migration`].

use super::*;
use crate::domain::migration::{
    self, NodeMigration, ServerProgress, ServerState, acknowledge_offer, invalid_settings,
    node_migration,
};

pub(super) fn migrations(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    out: &mut Vec<AttentionItem>,
) {
    let mut invalid = BTreeSet::new();
    // The nodes and locks the snapshot flagged: those with settings to
    // check, those whose message is about servers (not every Node and
    // lock: 2,000 and 3,906 on `large`).
    let with_settings = snap
        .notable(Notable::NodeMigrationSettings)
        .filter_map(|o| match o {
            Object::Node(n) => Some(&**n),
            _ => None,
        });
    for node in with_settings {
        let Some(bad) = invalid_settings(node) else {
            continue;
        };
        invalid.insert(node.name.clone());
        let key = ObjectKey::new(Kind::Node, "", &node.name);
        let lock = migration::openstack_lock(snap, &node.name);
        let in_turn = lock.is_some_and(|l| l.state != LockState::Inactive)
            && snap
                .node_requests()
                .any(|r| same_node(&r.node_name, &node.name));
        let consequence = if in_turn {
            "the OpenStack controller fails on it at every retry without writing a message, so the node lock stays active with nothing on it"
        } else {
            "when the node's turn comes the OpenStack controller will fail on it at every retry without writing a message, and the update will wait"
        };
        out.push(AttentionItem {
            kind: AttentionKind::MigrationSettingsInvalid,
            subject: machine_for_node(snap, &node.name).unwrap_or_else(|| node.name.clone()),
            node: Some(node.name.clone()),
            why: format!("{}: {consequence}", bad.problems.join("; ")),
            since: history.first_seen(&key).unwrap_or(now),
            at_least: true,
            since_inferred: None,
            action: Some(ActionId::SetMigrationMode),
            key,
            symptoms: Vec::new(),
            unraised_since: None,
        });
    }
    let with_servers = snap
        .notable(Notable::LockWithServers)
        .filter_map(|o| match o {
            Object::NodeWorkloadLock(l) => Some(&**l),
            _ => None,
        });
    for lock in with_servers {
        let Some(m) = node_migration(snap, history, lock) else {
            continue;
        };
        if invalid.iter().any(|n| same_node(n, &m.node)) {
            // The message is older than the settings the controller fails on.
            continue;
        }
        if let Some(item) = item(snap, history, now, &m) {
            out.push(item);
        }
    }
}

fn count(n: usize) -> String {
    match n {
        1 => "1 server".to_string(),
        n => format!("{n} servers"),
    }
}

fn list(servers: &[&ServerState], now: Timestamp) -> String {
    let shown: Vec<String> = servers
        .iter()
        .take(LISTED_SERVERS)
        .map(|s| format!("{} ({})", s.id, s.progress.describe(now)))
        .collect();
    let mut text = shown.join(", ");
    if servers.len() > shown.len() {
        text.push_str(&format!(" and {} more", servers.len() - shown.len()));
    }
    text
}

/// The ids, at most [`LISTED_SERVERS`], then `and N more`.
fn ids(servers: &[&ServerState]) -> String {
    let mut text = servers
        .iter()
        .take(LISTED_SERVERS)
        .map(|s| s.id.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if servers.len() > LISTED_SERVERS {
        text.push_str(&format!(" and {} more", servers.len() - LISTED_SERVERS));
    }
    text
}

fn item(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    m: &NodeMigration,
) -> Option<AttentionItem> {
    let failing: Vec<&ServerState> = m.failing().collect();
    let left: Vec<&ServerState> = m.left().collect();
    let migrating: Vec<&ServerState> = m
        .servers
        .iter()
        .filter(|s| matches!(s.progress, ServerProgress::Migrating { .. }))
        .collect();
    let notify: Vec<&ServerState> = m.notify().collect();
    let waiting: Vec<&ServerState> = m
        .servers
        .iter()
        .filter(|s| s.progress == ServerProgress::WaitsForOperator)
        .collect();
    let lock_says = quote(&m.message);
    let running = if migrating.is_empty() {
        String::new()
    } else {
        format!(
            " A live migration is running: {}; do not acknowledge before it ends.",
            list(&migrating, now)
        )
    };
    let since_of = |servers: &[&ServerState]| {
        servers
            .iter()
            .filter_map(|s| match &s.progress {
                ServerProgress::Failing { since, .. }
                | ServerProgress::NotStarted { since, .. } => *since,
                _ => None,
            })
            .min()
    };
    let first_listed = history.node_servers(&m.lock).and_then(|seen| {
        m.servers
            .iter()
            .filter_map(|s| seen.servers.get(&s.id).and_then(|t| t.first_listed))
            .min()
    });
    let (kind, why, since) = match &m.mode {
        MigrationMode::Manual => {
            let n = m.servers.len();
            let mut why = format!(
                "migration mode manual: {} still on the node; migrate, stop or shelve them with the owners' consent, then acknowledge.",
                count(n)
            );
            if !waiting.is_empty() {
                why.push_str(&format!(" Waiting for you: {}.", ids(&waiting)));
            }
            if !failing.is_empty() {
                why.push_str(&format!(" Failing: {}.", list(&failing, now)));
            }
            why.push_str(&running);
            (AttentionKind::ManualMigration, why, first_listed)
        }
        MigrationMode::Live | MigrationMode::Skip if !failing.is_empty() => {
            let how = if m.mode == MigrationMode::Live {
                "the controller starts it again at every retry (about a minute apart). Set the mode to manual to stop the retries, migrate, stop or shelve the servers by hand, then acknowledge"
            } else {
                "mode skip does not free a server tagged live_migrate: migrate, stop or shelve it by hand"
            };
            let mut why = format!(
                "live migration failing for {}: {}; {how}.",
                count(failing.len()),
                list(&failing, now)
            );
            if !notify.is_empty() {
                why.push_str(&format!(
                    " Also tagged notify (their owners must act): {}.",
                    ids(&notify)
                ));
            }
            why.push_str(&running);
            (AttentionKind::MigrationFailing, why, since_of(&failing))
        }
        MigrationMode::Live | MigrationMode::Skip if !notify.is_empty() => {
            let why = format!(
                "{} tagged notify still on the node: {}; tell the owners: they (or you) stop, shelve or migrate them. Acknowledging (mode skip) does not free a server tagged notify.{running}",
                count(notify.len()),
                ids(&notify)
            );
            (AttentionKind::NotifyOwners, why, first_listed)
        }
        MigrationMode::Live | MigrationMode::Skip if !left.is_empty() => {
            let why = format!(
                "{} left on the node that the controller does not start: {}; each is either migrating since before the console saw the node or not ACTIVE or PAUSED (e.g. ERROR): check with openstack server show <id> before acting.{running}",
                count(left.len()),
                list(&left, now)
            );
            (AttentionKind::ServersLeft, why, since_of(&left))
        }
        MigrationMode::Skip if m.format == lockmsg::ServersFormat::Old => {
            // Before MOSK 25.1, skip returned at once without looking at
            // the servers: this message should not stay.
            let why = format!(
                "migration mode skip: {} still blocking the node; the controller has not acted on the mode yet.",
                count(m.servers.len())
            );
            (AttentionKind::ManualMigration, why, first_listed)
        }
        // Migrations running, or too little seen yet: progress, not a wait
        // for a human.
        _ => return None,
    };
    let action = acknowledge_offer(snap, history, &m.node)
        .ok()
        .map(|_| ActionId::AcknowledgeMigration)
        .or_else(|| {
            (kind == AttentionKind::MigrationFailing && m.mode == MigrationMode::Live)
                .then_some(ActionId::SetMigrationMode)
        });
    let key = m.lock.clone();
    Some(AttentionItem {
        kind,
        subject: machine_for_node(snap, &m.node).unwrap_or_else(|| m.node.clone()),
        node: Some(m.node.clone()),
        why: format!("{why} Lock says {lock_says}"),
        since: since
            .or_else(|| history.message_since(&key))
            .or(m.message_at)
            .unwrap_or(now),
        action,
        key,
        at_least: false,
        since_inferred: None,
        symptoms: Vec::new(),
        unraised_since: None,
    })
}
