//! One identity per operator action: [`ActionId`], its stable name (audit
//! log, keymap files), its one label (dialog titles, notices, the Audit
//! view, and — via [`ActionId::hint`] — the footer, the attention items and
//! the help overlay), the cluster it writes to and the permission it needs.
//! The keymap binds keys to `KeyAction::Act(ActionId)`; nothing else names
//! an action. The data the confirmed actions are made of ([`plan`]), the
//! permission questions ([`access`]) and how a run goes ([`run`]) are here
//! too: pure data that `app` plans and `cluster::writes` executes.
//!
//! Nothing writes to a cluster except by planning one of these actions and
//! passing it through the confirmation dialog.

pub mod access;
pub mod plan;
pub mod run;

use crate::domain::objects::{ClusterId, Kind};

/// Every operator action the console can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ActionId {
    SetMigrationMode,
    AcknowledgeMigration,
    RestartVrouter,
    RestartAllVrouters,
    CommenceStep,
    /// Put back a migration setting (mode or attempts) a node had before
    /// this console changed it (the wrap-up, from the audit log).
    RestoreMigrationSetting,
    LiveMigrateServers,
    StopServers,
    ShelveServers,
}

/// Where a permission is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Cluster-scoped resources (Nodes).
    Cluster,
    /// A fixed namespace (the vRouter pods' `tf`).
    Namespace(&'static str),
    /// The cluster's project namespace on the management cluster (the
    /// session's `--namespace`), where its ClusterUpdatePlan lives.
    Project,
}

/// What an action needs the user's RBAC to allow on its cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Permission {
    pub verb: &'static str,
    /// API group ("" for the core group).
    pub group: &'static str,
    pub resource: &'static str,
    pub scope: Scope,
}

/// One action's fixed facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionSpec {
    pub id: ActionId,
    /// Stable name (audit log, keymap files).
    pub name: &'static str,
    /// What the console calls it, everywhere (see [`ActionId::hint`]).
    pub label: &'static str,
    /// What the help overlay adds after the label.
    pub detail: &'static str,
    /// The cluster it writes to.
    pub cluster: ClusterId,
    /// The kinds of object it changes.
    pub touches: &'static [Kind],
    /// Whether it interrupts workloads (a vRouter restart cuts the node's network).
    pub destructive: bool,
    /// What it asks the API server to do.
    pub permission: Permission,
    /// A second permission it needs as well (an exec needs `get` and `create`).
    pub also: Option<Permission>,
}

/// Namespace of the Tungsten Fabric vRouter pods (reference §5.2).
pub const VROUTER_NAMESPACE: &str = "tf";

const PATCH_NODES: Permission = Permission {
    verb: "patch",
    group: "",
    resource: "nodes",
    scope: Scope::Cluster,
};

const DELETE_VROUTER_PODS: Permission = Permission {
    verb: "delete",
    group: "",
    resource: "pods",
    scope: Scope::Namespace(VROUTER_NAMESPACE),
};

/// Patch ClusterUpdatePlans (management cluster). A ClusterUpdatePlan lives
/// in the cluster's project namespace (reference `mosk-update-plan.md`
/// §1.1; that the kind is namespaced is inferred there from its namespace
/// field \[I\]), so the question is asked there: a user whose RBAC covers
/// that namespace only may commence.
const PATCH_UPDATE_PLANS: Permission = Permission {
    verb: "patch",
    group: "kaas.mirantis.com",
    resource: "clusterupdateplans",
    scope: Scope::Project,
};

/// Namespace of the `keystone-client` pod where the OpenStack CLI runs.
pub const OPENSTACK_NAMESPACE: &str = "openstack";

/// Exec in the `keystone-client` pod. kube-rs opens the exec WebSocket with
/// GET, which an API server before 1.35 authorizes as `get` on `pods/exec`;
/// POST (SPDY) and, from 1.35, GET too are `create`
/// (`AuthorizePodWebsocketUpgradeCreatePermission`, kubernetes/kubernetes
/// pull 134577): both are asked.
const EXEC_CREATE: Permission = Permission {
    verb: "create",
    group: "",
    resource: "pods/exec",
    scope: Scope::Namespace(OPENSTACK_NAMESPACE),
};
const EXEC_GET: Permission = Permission {
    verb: "get",
    group: "",
    resource: "pods/exec",
    scope: Scope::Namespace(OPENSTACK_NAMESPACE),
};

/// The registry, in help-overlay order.
pub const ACTIONS: [ActionSpec; 9] = [
    ActionSpec {
        id: ActionId::SetMigrationMode,
        name: "set-migration-mode",
        label: "Set migration mode",
        detail: "live, manual or skip",
        cluster: ClusterId::Mosk,
        touches: &[Kind::Node],
        destructive: false,
        permission: PATCH_NODES,
        also: None,
    },
    ActionSpec {
        id: ActionId::AcknowledgeMigration,
        name: "acknowledge-migration",
        label: "Acknowledge migration",
        detail: "mode -> skip",
        cluster: ClusterId::Mosk,
        touches: &[Kind::Node],
        // Setting `skip` lets LCM reboot the node with whatever still runs on it.
        destructive: true,
        permission: PATCH_NODES,
        also: None,
    },
    ActionSpec {
        id: ActionId::RestartVrouter,
        name: "restart-vrouter",
        label: "Restart vRouter pod",
        detail: "the node's outdated one",
        cluster: ClusterId::Mosk,
        touches: &[Kind::VrouterPod],
        destructive: true,
        permission: DELETE_VROUTER_PODS,
        also: None,
    },
    ActionSpec {
        id: ActionId::RestartAllVrouters,
        name: "restart-all-vrouters",
        label: "Restart outdated vRouter pods",
        detail: "one at a time",
        cluster: ClusterId::Mosk,
        touches: &[Kind::VrouterPod],
        destructive: true,
        permission: DELETE_VROUTER_PODS,
        also: None,
    },
    ActionSpec {
        id: ActionId::CommenceStep,
        name: "commence-step",
        label: "Commence step",
        detail: "the update plan's next one",
        cluster: ClusterId::Mgmt,
        touches: &[Kind::ClusterUpdatePlan],
        // A step may have a major impact on workloads (the dialog says which).
        destructive: true,
        permission: PATCH_UPDATE_PLANS,
        also: None,
    },
    ActionSpec {
        id: ActionId::RestoreMigrationSetting,
        // Kept as audit logs and keymap files have it since the restore
        // covered the mode only: the earlier sessions' restores are read back.
        name: "restore-migration-mode",
        label: "Restore migration setting",
        detail: "as before this console (wrap-up)",
        cluster: ClusterId::Mosk,
        touches: &[Kind::Node],
        destructive: false,
        permission: PATCH_NODES,
        also: None,
    },
    ActionSpec {
        id: ActionId::LiveMigrateServers,
        name: "live-migrate-servers",
        label: "Live-migrate servers",
        detail: "the scheduler picks the host",
        cluster: ClusterId::Mosk,
        touches: &[Kind::Node],
        destructive: false,
        permission: EXEC_CREATE,
        also: Some(EXEC_GET),
    },
    ActionSpec {
        id: ActionId::StopServers,
        name: "stop-servers",
        label: "Stop servers",
        detail: "openstack server stop",
        cluster: ClusterId::Mosk,
        touches: &[Kind::Node],
        // The guest is shut down.
        destructive: true,
        permission: EXEC_CREATE,
        also: Some(EXEC_GET),
    },
    ActionSpec {
        id: ActionId::ShelveServers,
        name: "shelve-servers",
        label: "Shelve servers",
        detail: "stopped, snapshotted, off the host",
        cluster: ClusterId::Mosk,
        touches: &[Kind::Node],
        destructive: true,
        permission: EXEC_CREATE,
        also: Some(EXEC_GET),
    },
];

impl ActionId {
    pub const ALL: [ActionId; 9] = [
        ActionId::SetMigrationMode,
        ActionId::AcknowledgeMigration,
        ActionId::RestartVrouter,
        ActionId::RestartAllVrouters,
        ActionId::CommenceStep,
        ActionId::RestoreMigrationSetting,
        ActionId::LiveMigrateServers,
        ActionId::StopServers,
        ActionId::ShelveServers,
    ];

    /// The actions on servers, run as OpenStack CLI commands in the
    /// `keystone-client` pod.
    pub fn on_servers(self) -> bool {
        matches!(
            self,
            ActionId::LiveMigrateServers | ActionId::StopServers | ActionId::ShelveServers
        )
    }

    pub fn spec(self) -> &'static ActionSpec {
        ACTIONS
            .iter()
            .find(|a| a.id == self)
            .expect("every ActionId is in ACTIONS")
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The one label (`Acknowledge migration`).
    pub fn label(self) -> &'static str {
        self.spec().label
    }

    /// The label as a hint next to a key (`acknowledge migration`):
    /// the same words, lower-cased at the start only (`vRouter` stays).
    pub fn hint(self) -> String {
        let label = self.label();
        let mut chars = label.chars();
        match chars.next() {
            Some(c) => c.to_lowercase().chain(chars).collect(),
            None => String::new(),
        }
    }

    pub fn from_name(name: &str) -> Option<ActionId> {
        ACTIONS.iter().find(|a| a.name == name).map(|a| a.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_labels_are_unique_and_hints_are_the_labels() {
        for a in ActionId::ALL {
            assert_eq!(ActionId::from_name(a.name()), Some(a));
            assert_eq!(a.spec().id, a);
            assert_eq!(a.hint().to_lowercase(), a.label().to_lowercase());
            for b in ActionId::ALL.into_iter().filter(|b| *b != a) {
                assert_ne!(a.label(), b.label());
                assert_ne!(a.name(), b.name());
            }
        }
        assert_eq!(ActionId::RestartVrouter.hint(), "restart vRouter pod");
    }

    #[test]
    fn vrouter_restarts_are_destructive_and_delete_pods_in_tf() {
        for id in [ActionId::RestartVrouter, ActionId::RestartAllVrouters] {
            let s = id.spec();
            assert!(s.destructive);
            assert_eq!(s.permission.verb, "delete");
            assert_eq!(s.permission.scope, Scope::Namespace("tf"));
        }
        assert_eq!(
            ActionId::SetMigrationMode.spec().permission.resource,
            "nodes"
        );
    }
}
