//! Objects the attention rules read at every computation, flagged from what
//! the object alone says when the snapshot takes it in: a rule reads the
//! few flagged objects, not every object of its kind. On `large` (2,000
//! machines, 2,000 provider Machines, 2,000 Nodes, 3,906 node locks) the
//! rules' walks of every object were most of the attention queue's cost,
//! nearly all of it reading objects that say nothing.
//!
//! A flag only narrows what a rule reads: the rule keeps its own test of
//! each object, so a flag wider than the rule's test costs reading, never
//! changes an item. A flag narrower than the rule's test would lose items;
//! `Snapshot`'s tests compare each flag with a walk of every object.

use super::{Controller, LockState, MigrationMode, Object};

/// What flags an object for a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Notable {
    /// An object that could not be read.
    Malformed,
    /// An LCMMachine LCM reports trouble on: its operation is stuck, or the
    /// Kubernetes drain failed (`attention::blockers`).
    MachineTrouble,
    /// An LCMMachine neither Ready nor in Prepare: in its turn, or stopped
    /// in one (`attention::stalls`; a machine in Prepare is found through
    /// its node's maintenance request).
    MachineBusy,
    /// A provider Machine whose `disable` flag is set (`attention::blockers`).
    MachineDisabled,
    /// A Node with migration settings to check: attempts set, or a mode
    /// none of live, manual, skip (`migration::invalid_settings`).
    NodeMigrationSettings,
    /// An OpenStack NodeWorkloadLock, not inactive, whose message is about
    /// the servers on its node (`migration::node_migration`).
    LockWithServers,
    /// A workload lock (of a node or of the cluster) that is failed.
    LockFailed,
}

impl Notable {
    pub const ALL: [Notable; 7] = [
        Notable::Malformed,
        Notable::MachineTrouble,
        Notable::MachineBusy,
        Notable::MachineDisabled,
        Notable::NodeMigrationSettings,
        Notable::LockWithServers,
        Notable::LockFailed,
    ];

    /// Whether `obj` is flagged.
    pub fn holds(self, obj: &Object) -> bool {
        match (self, obj) {
            (Notable::Malformed, Object::Malformed(_)) => true,
            (Notable::MachineTrouble, Object::Machine(m)) => {
                m.operation_stuck || m.drain_error.is_some()
            }
            (Notable::MachineBusy, Object::Machine(m)) => {
                !m.state.is_ready() && m.state != super::MachineState::Prepare
            }
            (Notable::MachineDisabled, Object::ProviderMachine(p)) => p.disabled,
            (Notable::NodeMigrationSettings, Object::Node(n)) => {
                n.migration_attempts.is_some()
                    || matches!(n.migration_mode, Some(MigrationMode::Other(_)))
            }
            (Notable::LockWithServers, Object::NodeWorkloadLock(l)) => {
                l.controller == Controller::Openstack
                    && l.state != LockState::Inactive
                    && l.error_message
                        .as_ref()
                        .is_some_and(|m| m.parsed().kind.is_about_servers())
            }
            (Notable::LockFailed, Object::NodeWorkloadLock(l) | Object::ClusterWorkloadLock(l)) => {
                l.state == LockState::Failed
            }
            _ => false,
        }
    }
}
