//! The scenario file's description of an MCC 2.27+ update: the
//! ClusterUpdatePlan's steps, the UpdateGroups and the UpdateAutoPause with
//! the alert that fires (reference `mosk-update-plan.md` §1–3).
//!
//! Step names, ids, texts and estimates come from the scenario file only;
//! the engine knows each step by the `stage` of its own flow it gates.

use serde::Deserialize;

use super::spec::{Dur, Role};

/// The parts of the simulated update flow a plan step can gate, in flow order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// ClusterMaintenanceRequest created; OpenStack (and TF) update until the OpenStack cluster lock is inactive.
    Openstack,
    /// The Ceph update until the Ceph cluster lock is inactive.
    Ceph,
    /// Kubernetes masters, one at a time.
    Masters,
    /// Workers, by update group.
    Workers,
    /// StackLight, TF and other applications; the ClusterMaintenanceRequest is removed.
    Finalization,
}

impl Stage {
    pub const ALL: [Stage; 5] = [
        Stage::Openstack,
        Stage::Ceph,
        Stage::Masters,
        Stage::Workers,
        Stage::Finalization,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Openstack => "openstack",
            Stage::Ceph => "ceph",
            Stage::Masters => "masters",
            Stage::Workers => "workers",
            Stage::Finalization => "finalization",
        }
    }
}

/// `spec.steps[].impact` values [C: D-CUP].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImpactLevel {
    None,
    Minor,
    Major,
}

impl ImpactLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            ImpactLevel::None => "none",
            ImpactLevel::Minor => "minor",
            ImpactLevel::Major => "major",
        }
    }
}

/// `spec.steps[].granularity` [C: D-CUP].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    Cluster,
    Machine,
}

impl Granularity {
    pub fn as_str(self) -> &'static str {
        match self {
            Granularity::Cluster => "cluster",
            Granularity::Machine => "machine",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImpactSpec {
    pub users: ImpactLevel,
    pub workloads: ImpactLevel,
    #[serde(default)]
    pub info: Vec<String>,
}

/// `spec.steps[].duration`: `estimated` (MCC 2.29.0+) or the older `eta`,
/// written into the plan as given (Go duration text such as `1h0m0s` [I]).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct StepDurationSpec {
    #[serde(default)]
    pub estimated: Option<String>,
    #[serde(default)]
    pub eta: Option<String>,
    #[serde(default)]
    pub info: Vec<String>,
}

/// One step of the ClusterUpdatePlan.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanStepSpec {
    pub id: String,
    pub name: String,
    /// The part of the simulated flow this step gates (not written to the plan).
    pub stage: Stage,
    #[serde(default)]
    pub description: Vec<String>,
    #[serde(default)]
    pub constraints: Vec<String>,
    pub impact: ImpactSpec,
    #[serde(default)]
    pub duration: StepDurationSpec,
    pub granularity: Granularity,
}

/// The ClusterUpdatePlan; its presence makes the scenario an MCC 2.27+ one.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanSpec {
    /// `spec.releaseNotes` (MCC 2.29.0+).
    #[serde(default)]
    pub release_notes: Option<String>,
    pub steps: Vec<PlanStepSpec>,
}

/// Machines of one role, by 0-based index within the role: `first`, and
/// `count` of them (all the rest when absent).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemberSpec {
    pub role: Role,
    #[serde(default)]
    pub first: u32,
    #[serde(default)]
    pub count: Option<u32>,
}

/// One UpdateGroup, named `<cluster>-<suffix>`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateGroupSpec {
    pub suffix: String,
    pub index: u32,
    pub concurrent_updates: u32,
    #[serde(default)]
    pub reboot_if_update_requires: bool,
    pub members: Vec<MemberSpec>,
}

/// An alert that fires during the update.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlertFireSpec {
    pub alert: String,
    /// The stage during which it fires.
    pub stage: Stage,
    /// How long after the stage starts.
    pub after: Dur,
    /// How long it fires before it clears by itself.
    pub lasts: Dur,
}

/// The UpdateAutoPause object (named like the cluster) and the alerts that fire.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutoPauseSpec {
    /// `spec.alerts`.
    pub alerts: Vec<String>,
    #[serde(default)]
    pub fires: Vec<AlertFireSpec>,
}

/// A Nova server tag `openstack.lcm.mirantis.com:maintenance_action=<value>`
/// (reference §4.1), or `none` for an untagged server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerTag {
    Poweroff,
    LiveMigrate,
    Notify,
    None,
    /// Two action tags at once (`notify` and `live_migrate`): the controller
    /// falls back to the node's mode.
    Several,
}
