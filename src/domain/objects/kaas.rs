//! The management-cluster objects of MCC 2.27+ / MOSK 24.2+ that steer an
//! update (`kaas.mirantis.com/v1alpha1`): ClusterUpdatePlan, UpdateAutoPause,
//! UpdateGroup; and the provider `Machine` (`cluster.k8s.io/v1alpha1`) that
//! carries a machine's update group and its `disable` flag.
//!
//! The plan's `status` layout is only weakly sourced (Mirantis's own tooling
//! reads `status.status` and `status.steps[].status`); everything about it is
//! marked inferred ([I]) and unknown values are kept verbatim (the step
//! impact and status enums are in `vocabulary.rs`).

use jiff::{SignedDuration, Timestamp};

use super::{Impact, StepStatus};

/// One entry of `spec.steps[]`, joined with its `status.steps[]` entry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlanStep {
    /// Position in `spec.steps` (the JSON-patch path uses it).
    pub index: usize,
    /// `id` (since MCC 2.28.0; older plans have none).
    pub id: Option<String>,
    pub name: String,
    /// `description`: a list of strings [I] (a plain string is read as one line).
    pub description: Vec<String>,
    pub constraints: Vec<String>,
    pub impact_users: Option<Impact>,
    pub impact_workloads: Option<Impact>,
    pub impact_info: Vec<String>,
    /// `duration.estimated`, or `duration.eta` before MCC 2.29.0, parsed as a Go
    /// duration (`1h30m0s`) [I: format]. `None` when absent or unreadable.
    pub estimated: Option<SignedDuration>,
    /// The estimate as written, when it could not be parsed (shown raw).
    pub estimated_raw: Option<String>,
    pub duration_info: Vec<String>,
    /// `granularity`: `cluster` or `machine`, verbatim.
    pub granularity: Option<String>,
    /// `commence`; a missing key reads as `false` (auto-pause removes it).
    pub commence: bool,
    /// Whether the `commence` key is present at all (the JSON patch differs).
    pub commence_present: bool,
    /// From `status.steps[]` (matched by id, else by name) [I].
    pub status: Option<StepStatus>,
    pub message: Option<String>,
    pub started_at: Option<Timestamp>,
    pub completed_at: Option<Timestamp>,
}

impl PlanStep {
    /// The step's id, or its name when it has none: how the screen names it.
    pub fn label(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.name)
    }
    pub fn is_completed(&self) -> bool {
        self.status == Some(StepStatus::Completed)
    }
}

/// ClusterUpdatePlan (management cluster, project namespace).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UpdatePlan {
    pub name: String,
    pub namespace: String,
    /// `spec.cluster`.
    pub cluster: String,
    /// `spec.source` / `spec.target`: Cluster release names.
    pub source: Option<String>,
    pub target: Option<String>,
    pub release_notes: Option<String>,
    pub steps: Vec<PlanStep>,
    /// `status.status` [I/W], verbatim.
    pub status: Option<StepStatus>,
    pub created: Option<Timestamp>,
}

/// UpdateAutoPause (management cluster): named like its cluster.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UpdateAutoPause {
    pub name: String,
    pub namespace: String,
    /// `spec.alerts`: the StackLight alerts that pause the update.
    pub alerts: Vec<String>,
    /// The alerts firing now. [I] The docs say they are recorded in the
    /// object's status without naming the field; we read `status.firingAlerts`.
    pub firing: Vec<String>,
}

/// UpdateGroup (management cluster).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UpdateGroup {
    pub name: String,
    pub namespace: String,
    /// The `cluster.sigs.k8s.io/cluster-name` label.
    pub cluster: Option<String>,
    /// `spec.index`: groups run in increasing index; equal indexes run together.
    pub index: Option<i64>,
    /// `spec.concurrentUpdates`: machines of the group updated at once (an upper bound).
    pub concurrent_updates: Option<i64>,
    pub reboot_if_update_requires: Option<bool>,
}

/// The provider `Machine` (`cluster.k8s.io/v1alpha1`), named like its LCMMachine [I].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProviderMachine {
    pub name: String,
    pub namespace: String,
    /// The `cluster.sigs.k8s.io/cluster-name` label.
    pub cluster: Option<String>,
    /// The `kaas.mirantis.com/update-group` label [W]: the UpdateGroup's name.
    /// Unset means the cluster's default group [I].
    pub update_group: Option<String>,
    /// The `cluster.sigs.k8s.io/control-plane` label is present.
    pub control_plane: bool,
    /// `spec.providerSpec.value.disable` [W]: taken out of LCM control.
    pub disabled: bool,
    /// `spec.providerSpec.value.upgradeIndex`.
    pub upgrade_index: Option<i64>,
}

/// The Machine label naming the machine's UpdateGroup [W: an operator's script].
pub const UPDATE_GROUP_LABEL: &str = "kaas.mirantis.com/update-group";
/// The label tying kaas objects to their cluster.
pub const CLUSTER_NAME_LABEL: &str = "cluster.sigs.k8s.io/cluster-name";
/// Present (any value) on control-plane Machines.
pub const CONTROL_PLANE_LABEL: &str = "cluster.sigs.k8s.io/control-plane";

/// Parses a Go duration string (`1h30m0s`, `45m`, `90s`, `1.5h`) [I: the
/// format of `duration.estimated` is not shown in the docs].
pub fn parse_go_duration(s: &str) -> Option<SignedDuration> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut total = 0f64;
    let mut rest = s;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_end == 0 {
            return None;
        }
        let value: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let secs = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            _ => return None,
        };
        total += value * secs;
        rest = &rest[unit_end..];
    }
    SignedDuration::try_from_secs_f64(total).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations_parse() {
        assert_eq!(
            parse_go_duration("1h0m0s"),
            Some(SignedDuration::from_hours(1))
        );
        assert_eq!(
            parse_go_duration("1h30m"),
            Some(SignedDuration::from_mins(90))
        );
        assert_eq!(
            parse_go_duration("45m"),
            Some(SignedDuration::from_mins(45))
        );
        assert_eq!(
            parse_go_duration("1.5h"),
            Some(SignedDuration::from_mins(90))
        );
        assert_eq!(
            parse_go_duration("90s"),
            Some(SignedDuration::from_secs(90))
        );
        assert_eq!(parse_go_duration(""), None);
        assert_eq!(parse_go_duration("soon"), None);
        assert_eq!(parse_go_duration("1 hour"), None);
        assert_eq!(parse_go_duration("10"), None);
    }
}
