//! The typed registry of operator actions: the one list that key handling,
//! the help overlay, the confirmation dialog and the audit log all read.
//! Nothing writes to a cluster except by planning one of these actions and
//! passing it through the confirmation dialog.

use crate::config::keymap::KeyAction;
use crate::domain::objects::{ClusterId, Kind};

/// Every operator action the console can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ActionId {
    SetMigrationMode,
    AcknowledgeMigration,
    RestartVrouter,
    RestartAllVrouters,
    CommenceStep,
}

/// What an action needs the user's RBAC to allow on its cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Permission {
    pub verb: &'static str,
    /// API group ("" for the core group).
    pub group: &'static str,
    pub resource: &'static str,
    /// `None` for cluster-scoped resources.
    pub namespace: Option<&'static str>,
}

/// One action's fixed facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionSpec {
    pub id: ActionId,
    /// Stable name (audit log, keymap).
    pub name: &'static str,
    /// The keymap action that starts it (its default key is in `keymaps/default.toml`).
    pub key: KeyAction,
    /// What the dialog and the audit view call it.
    pub label: &'static str,
    /// The cluster it writes to.
    pub cluster: ClusterId,
    /// The kinds of object it changes.
    pub touches: &'static [Kind],
    /// Whether it interrupts workloads (a vRouter restart cuts the node's network).
    pub destructive: bool,
    /// What it asks the API server to do.
    pub permission: Permission,
}

/// Namespace of the Tungsten Fabric vRouter pods (reference §5.2).
pub const VROUTER_NAMESPACE: &str = "tf";

const PATCH_NODES: Permission = Permission {
    verb: "patch",
    group: "",
    resource: "nodes",
    namespace: None,
};

const DELETE_VROUTER_PODS: Permission = Permission {
    verb: "delete",
    group: "",
    resource: "pods",
    namespace: Some(VROUTER_NAMESPACE),
};

/// Patch ClusterUpdatePlans (management cluster). Asked for all namespaces:
/// the permission table is static, and the plan's namespace is the
/// session's project.
const PATCH_UPDATE_PLANS: Permission = Permission {
    verb: "patch",
    group: "kaas.mirantis.com",
    resource: "clusterupdateplans",
    namespace: None,
};

/// The registry, in help-overlay order.
pub const ACTIONS: [ActionSpec; 5] = [
    ActionSpec {
        id: ActionId::SetMigrationMode,
        name: "set-migration-mode",
        key: KeyAction::SetMigrationMode,
        label: "Set migration mode",
        cluster: ClusterId::Mosk,
        touches: &[Kind::Node],
        destructive: false,
        permission: PATCH_NODES,
    },
    ActionSpec {
        id: ActionId::AcknowledgeMigration,
        name: "acknowledge-migration",
        key: KeyAction::AcknowledgeMigration,
        label: "Acknowledge manual migration",
        cluster: ClusterId::Mosk,
        touches: &[Kind::Node],
        // Setting `skip` lets LCM reboot the node with whatever still runs on it.
        destructive: true,
        permission: PATCH_NODES,
    },
    ActionSpec {
        id: ActionId::RestartVrouter,
        name: "restart-vrouter",
        key: KeyAction::RestartVrouter,
        label: "Restart vRouter pod",
        cluster: ClusterId::Mosk,
        touches: &[Kind::VrouterPod],
        destructive: true,
        permission: DELETE_VROUTER_PODS,
    },
    ActionSpec {
        id: ActionId::RestartAllVrouters,
        name: "restart-all-vrouters",
        key: KeyAction::RestartAllVrouters,
        label: "Restart all outdated vRouter pods",
        cluster: ClusterId::Mosk,
        touches: &[Kind::VrouterPod],
        destructive: true,
        permission: DELETE_VROUTER_PODS,
    },
    ActionSpec {
        id: ActionId::CommenceStep,
        name: "commence-step",
        key: KeyAction::CommenceStep,
        label: "Commence update plan step",
        cluster: ClusterId::Mgmt,
        touches: &[Kind::ClusterUpdatePlan],
        // A step may have a major impact on workloads (the dialog says which).
        destructive: true,
        permission: PATCH_UPDATE_PLANS,
    },
];

impl ActionId {
    pub const ALL: [ActionId; 5] = [
        ActionId::SetMigrationMode,
        ActionId::AcknowledgeMigration,
        ActionId::RestartVrouter,
        ActionId::RestartAllVrouters,
        ActionId::CommenceStep,
    ];

    pub fn spec(self) -> &'static ActionSpec {
        ACTIONS
            .iter()
            .find(|a| a.id == self)
            .expect("every ActionId is in ACTIONS")
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn label(self) -> &'static str {
        self.spec().label
    }

    /// The action a keymap action starts, if it is one.
    pub fn from_key(key: KeyAction) -> Option<ActionId> {
        ACTIONS.iter().find(|a| a.key == key).map(|a| a.id)
    }

    pub fn from_name(name: &str) -> Option<ActionId> {
        ACTIONS.iter().find(|a| a.name == name).map(|a| a.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::keymap::Keymap;

    #[test]
    fn every_action_has_a_default_key_and_a_unique_name() {
        let km = Keymap::default_keymap();
        for a in ACTIONS {
            assert!(km.first_key(a.key).is_some(), "{} has no key", a.name);
            assert_eq!(a.key.name(), a.name, "keymap name and action name agree");
            assert_eq!(ActionId::from_name(a.name), Some(a.id));
            assert_eq!(ActionId::from_key(a.key), Some(a.id));
        }
        assert_eq!(km.first_key(KeyAction::SetMigrationMode), Some("m"));
        assert_eq!(km.first_key(KeyAction::AcknowledgeMigration), Some("a"));
        assert_eq!(km.first_key(KeyAction::RestartVrouter), Some("R"));
    }

    #[test]
    fn vrouter_restarts_are_destructive_and_delete_pods_in_tf() {
        for id in [ActionId::RestartVrouter, ActionId::RestartAllVrouters] {
            let s = id.spec();
            assert!(s.destructive);
            assert_eq!(s.permission.verb, "delete");
            assert_eq!(s.permission.namespace, Some("tf"));
        }
        assert_eq!(
            ActionId::SetMigrationMode.spec().permission.resource,
            "nodes"
        );
        assert!(ActionId::from_key(KeyAction::Quit).is_none());
    }
}
