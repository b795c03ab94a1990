//! The values of the LCM fields the console reasons about, as enums: machine
//! state, machine type, lock controller, lock state and cluster-state type;
//! and the update plan's step impact and status.
//!
//! Each enum names the values the reference knows and keeps any other value
//! verbatim in `Other(String)`: an unknown value is never lost or hidden, it
//! is drawn as the API sent it (sanitized on the way in). The cluster layer
//! (`crate::cluster::convert`) is the only place a string becomes one of
//! these (through [`Vocabulary`]); everything else matches on the variants
//! and draws [`as_str`](MachineState::as_str) / `Display`. Values are matched
//! exactly, in the case the API sends them: `ready` is not `Ready`.
//!
//! A missing field is `Other("")` (drawn as nothing), as for [`LockState`]
//! before these enums existed.

use std::fmt;

/// The known values of an enum of this module, for the parse in
/// `crate::cluster::convert` (one table: the text of a variant is its
/// [`text`](Vocabulary::text), the same the screen draws).
pub trait Vocabulary: Sized + Clone + 'static {
    /// Every known value (no `Other`).
    const KNOWN: &'static [Self];
    /// The value as the API spells it.
    fn text(&self) -> &str;
    /// A value outside [`KNOWN`](Vocabulary::KNOWN), kept verbatim.
    fn other(text: String) -> Self;
}

/// `as_str`, `Display` (padding honoured) and [`Vocabulary`] for an enum
/// whose unknown values are `Other(String)`.
macro_rules! vocabulary {
    ($ty:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $ty {
            /// The value as the API spells it (an unknown one verbatim).
            pub fn as_str(&self) -> &str {
                match self {
                    $($ty::$variant => $text,)+
                    $ty::Other(s) => s,
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl Vocabulary for $ty {
            const KNOWN: &'static [$ty] = &[$($ty::$variant),+];
            fn text(&self) -> &str {
                self.as_str()
            }
            fn other(text: String) -> Self {
                $ty::Other(text)
            }
        }
    };
}

/// LCMMachine `status.state`: the values of the Go constants, as listed by
/// the CRD (`assets/crds/lcm.mirantis.com_lcmmachines.yaml`) and
/// mosk-lcm-api §7.1. Ordered as a machine goes through an update
/// (declaration order is the `Ord`), unknown values last. `Provision`, which
/// the docs show for a provider Machine before these (mosk-update-plan §7.3),
/// is not in the CRD's list: an LCMMachine in it is `Other`. The brief's
/// "Maintenance" is no state in the reference (it is a Machine condition
/// type), so it is `Other` too.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MachineState {
    /// Not yet assigned to an LCMCluster (no InternalIP yet).
    Uninitialized,
    /// The agent reported its IP and hostname; no state items yet.
    Pending,
    /// Prepare-phase items run (downloads); workers wait here for their
    /// turn \[I: mosk-lcm-api §7.1, "typical worker path"\].
    Prepare,
    /// Deploy-phase items run.
    Deploy,
    /// Reconfigure-phase items run (host OS configuration too).
    Reconfigure,
    /// The MKE version is being upgraded.
    Upgrade,
    /// Ready, but a required reboot has not completed.
    Reboot,
    /// Everything is applied: nothing to do.
    Ready,
    /// Unset (`""`) or a value the console does not know, verbatim.
    Other(String),
}

vocabulary!(MachineState {
    Uninitialized => "Uninitialized",
    Pending => "Pending",
    Prepare => "Prepare",
    Deploy => "Deploy",
    Reconfigure => "Reconfigure",
    Upgrade => "Upgrade",
    Reboot => "Reboot",
    Ready => "Ready",
});

impl MachineState {
    /// The states in which a machine is being worked on (its turn has come),
    /// as opposed to Prepare, where workers download and wait for their turn
    /// \[I\]. The one list of them (history, phase, the Overview's "working
    /// on" pane).
    pub fn is_active(&self) -> bool {
        matches!(
            self,
            MachineState::Deploy
                | MachineState::Reboot
                | MachineState::Upgrade
                | MachineState::Reconfigure
        )
    }

    /// `Ready`: nothing to do.
    pub fn is_ready(&self) -> bool {
        *self == MachineState::Ready
    }

    /// The field was missing or empty.
    pub fn is_unset(&self) -> bool {
        self.as_str().is_empty()
    }
}

/// LCMMachine `spec.type` (the CRD's enum; mosk-lcm-api §7.1). The control
/// plane is `control`, every other MOSK node `worker`; `unassigned` is what
/// the agent first writes. Declaration order is the `Ord`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MachineType {
    Control,
    Worker,
    Bastion,
    Unassigned,
    /// Unset (`""`) or a value outside the CRD's enum, verbatim.
    Other(String),
}

vocabulary!(MachineType {
    Control => "control",
    Worker => "worker",
    Bastion => "bastion",
    Unassigned => "unassigned",
});

impl MachineType {
    /// Control-plane and worker machines: the ones an update goes through
    /// (bastion and unassigned machines are not counted).
    pub fn is_updated(&self) -> bool {
        matches!(self, MachineType::Control | MachineType::Worker)
    }
}

/// `spec.controllerName` of a workload lock: the application controller
/// that owns it (mosk-lcm-api §2.4).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Controller {
    /// The OpenStack controller (Rockoon).
    Openstack,
    /// Ceph. The reference has this name only from an LCM message
    /// (`following NodeWorkloadLocks are still active - ceph: …`), not from
    /// a Ceph controller's own code \[I\].
    Ceph,
    /// The Tungsten Fabric operator.
    Tungstenfabric,
    /// A controller the console does not know, verbatim.
    Other(String),
}

vocabulary!(Controller {
    Openstack => "openstack",
    Ceph => "ceph",
    Tungstenfabric => "tungstenfabric",
});

/// `status.state` of a workload lock (the CRD's enum; mosk-lcm-api §2.4).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LockState {
    Active,
    Inactive,
    Failed,
    /// Not set yet, or a value outside the CRD's enum (kept verbatim).
    Other(String),
}

vocabulary!(LockState {
    Active => "active",
    Inactive => "inactive",
    Failed => "failed",
});

/// LCMClusterState `spec.type` (mosk-lcm-api §7.2: the CRD's "known values").
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ClusterStateType {
    /// Cordon and drain of the node in Kubernetes (named `cd-<machine>`).
    CordonDrain,
    /// Cordon and drain in Swarm (`sd-<machine>`).
    SwarmDrain,
    /// Removal from Swarm (`sr-<machine>`).
    SwarmRemove,
    /// The helm-controller on the child cluster.
    HelmDeployed,
    /// Unset (`""`) or a type the console does not know, verbatim.
    Other(String),
}

vocabulary!(ClusterStateType {
    CordonDrain => "cordon-drain",
    SwarmDrain => "swarm-drain",
    SwarmRemove => "swarm-remove",
    HelmDeployed => "helm-deployed",
});

impl ClusterStateType {
    /// The prefix LCM gives the object's name, `cd-<machine>` etc.
    /// (mosk-lcm-api §7.2); other types get a generated name.
    pub fn name_prefix(&self) -> Option<&'static str> {
        match self {
            ClusterStateType::CordonDrain => Some("cd"),
            ClusterStateType::SwarmDrain => Some("sd"),
            ClusterStateType::SwarmRemove => Some("sr"),
            _ => None,
        }
    }
}

/// ClusterUpdatePlan `spec.steps[].impact.users` / `.workloads`: `none`,
/// `minor`, `major` (mosk-update-plan §1.2).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Impact {
    None,
    Minor,
    Major,
    /// A value outside the documented enum, kept verbatim.
    Other(String),
}

vocabulary!(Impact {
    None => "none",
    Minor => "minor",
    Major => "major",
});

/// A ClusterUpdatePlan step's (or the plan's) status value. \[I\]: the
/// documented value is only `AutoPaused`; the others come from Mirantis
/// tooling's fixtures (\[W\], mosk-update-plan §1.4).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StepStatus {
    NotStarted,
    InProgress,
    AutoPaused,
    Completed,
    Failed,
    /// Any other value, shown raw.
    Other(String),
}

vocabulary!(StepStatus {
    NotStarted => "NotStarted",
    InProgress => "InProgress",
    AutoPaused => "AutoPaused",
    Completed => "Completed",
    Failed => "Failed",
});

/// OpenStackDeploymentStatus `status.osdpl.state`: the constants of
/// github:Mirantis/rockoon `rockoon/osdplstatus.py` (commit 1390883a).
/// `set_osdpl_status` writes APPLYING when the controller starts handling
/// the OpenStackDeployment, APPLIED when every task is done, FAILED on a
/// permanent error (`controllers/openstackdeployment.py` `handle`); WAITING
/// and DELETING are written for services, listed for completeness.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OsdplState {
    Applying,
    Applied,
    Deleting,
    Waiting,
    Failed,
    /// A value outside Rockoon's constants, kept verbatim (`""` when absent).
    Other(String),
}

vocabulary!(OsdplState {
    Applying => "APPLYING",
    Applied => "APPLIED",
    Deleting => "DELETING",
    Waiting => "WAITING",
    Failed => "FAILED",
});

/// Ceph's health, as Rook copies it into its CephCluster's `status.ceph.health`
/// and Pelagia into the CephDeploymentHealth (github:Mirantis/pelagia
/// `pkg/controller/deployment/cluster.go` `healthCluster` compares with these
/// three, commit d4713b61).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CephHealthStatus {
    Ok,
    Warn,
    Err,
    /// A value outside Ceph's three, kept verbatim (`""` when absent).
    Other(String),
}

vocabulary!(CephHealthStatus {
    Ok => "HEALTH_OK",
    Warn => "HEALTH_WARN",
    Err => "HEALTH_ERR",
});
