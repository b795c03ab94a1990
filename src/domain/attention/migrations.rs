//! Attention items from instance migrations: nodes waiting for the operator
//! (manual mode, servers left on the host, migrations that gave up).

use super::*;

pub(super) fn migrations(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    out: &mut Vec<AttentionItem>,
) {
    for lock in snap.node_locks() {
        if lock.controller != Controller::Openstack || lock.state == LockState::Inactive {
            continue;
        }
        let Some(node) = lock.node_name.as_deref() else {
            continue;
        };
        let Some(msg) = lock.error_message.as_deref().map(lockmsg::parse) else {
            continue;
        };
        let MessageKind::ServersPresent(present) = &msg.kind else {
            continue;
        };
        let node_obj = snap.nodes().find(|n| same_node(&n.name, node));
        let mode = node_obj
            .and_then(|n| n.migration_mode.clone())
            .unwrap_or(MigrationMode::Live);
        let n = present.servers.len();
        let servers = if n == 0 {
            "servers are".to_string()
        } else if n == 1 {
            "1 server is".to_string()
        } else {
            format!("{n} servers are")
        };
        let attempts = || {
            node_obj
                .and_then(|n| n.migration_attempts.clone())
                .unwrap_or_else(|| join::DEFAULT_MIGRATION_ATTEMPTS.to_string())
        };
        let lock_says = quote(&msg.text);
        let (kind, why, action) = if present.format == ServersFormat::New {
            // MOSK 25.1: tell the lists apart (reference §4.4, E-LEFT).
            let lists = server_groups(&msg.kind)
                .iter()
                .map(|g| g.line_max(LISTED_SERVERS))
                .collect::<Vec<_>>()
                .join("; ");
            let notify = !present.notify.is_empty();
            match mode {
                MigrationMode::Manual => (
                    AttentionKind::ManualMigration,
                    format!(
                        "migration mode manual: {servers} still on the node: {lists}; tell the owners, migrate the servers, then acknowledge. Lock says {lock_says}"
                    ),
                    Some(ActionId::AcknowledgeMigration),
                ),
                MigrationMode::Skip => (
                    if notify {
                        AttentionKind::NotifyOwners
                    } else {
                        AttentionKind::MigrationGaveUp
                    },
                    format!(
                        "migration mode skip, yet {servers} still blocking the node: {lists}; their tags keep them (notify, live_migrate): migrate, stop or shelve them. Lock says {lock_says}"
                    ),
                    None,
                ),
                MigrationMode::Live | MigrationMode::Other(_) if notify => (
                    AttentionKind::NotifyOwners,
                    format!(
                        "{servers} still on the node: {lists}; tell the owners, migrate, stop or shelve the servers, then acknowledge. Lock says {lock_says}"
                    ),
                    Some(ActionId::AcknowledgeMigration),
                ),
                MigrationMode::Live | MigrationMode::Other(_) => (
                    AttentionKind::MigrationGaveUp,
                    format!(
                        "live migration gave up after {} attempts per server: {servers} still on the node: {lists}; migrate by hand, then acknowledge. Lock says {lock_says}",
                        attempts()
                    ),
                    Some(ActionId::AcknowledgeMigration),
                ),
            }
        } else {
            match mode {
                MigrationMode::Manual => (
                    AttentionKind::ManualMigration,
                    format!(
                        "migration mode manual: {servers} still on the node; migrate them, then acknowledge. Lock says {lock_says}"
                    ),
                    Some(ActionId::AcknowledgeMigration),
                ),
                MigrationMode::Live => (
                    AttentionKind::MigrationGaveUp,
                    format!(
                        "live migration gave up after {} attempts per server: {servers} still on the node; migrate by hand, then acknowledge. Lock says {lock_says}",
                        attempts()
                    ),
                    Some(ActionId::AcknowledgeMigration),
                ),
                // Before MOSK 25.1, skip returned at once without looking at
                // the servers: this message should not stay [C-code, §4.3].
                MigrationMode::Skip | MigrationMode::Other(_) => (
                    AttentionKind::ManualMigration,
                    format!(
                        "migration mode {}: {servers} still blocking the node; the controller has not acted on the mode yet. Lock says {lock_says}",
                        mode.as_str()
                    ),
                    None,
                ),
            }
        };
        let key = lock_key(lock);
        out.push(AttentionItem {
            kind,
            subject: machine_for_node(snap, node).unwrap_or_else(|| node.to_string()),
            node: Some(node.to_string()),
            why,
            since: history.message_since(&key).or(msg.at).unwrap_or(now),
            action,
            key,
            at_least: false,
            symptoms: Vec::new(),
        });
    }
}
