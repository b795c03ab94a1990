//! Strings -> the enums of [`crate::domain::objects::Vocabulary`]: the only
//! place the console turns a field's text into a machine state, machine
//! type, lock controller, lock state or cluster-state type.

use crate::domain::objects::Vocabulary;
use crate::sanitize::sanitize;

/// The enum value for a field's text, matched exactly (the case the API
/// sends): a known value becomes its variant; anything else is kept,
/// sanitized, as `Other`; a missing field is `Other("")`.
pub fn parse<V: Vocabulary>(text: Option<&str>) -> V {
    let Some(text) = text else {
        return V::other(String::new());
    };
    V::KNOWN
        .iter()
        .find(|known| known.text() == text)
        .cloned()
        .unwrap_or_else(|| V::other(sanitize(text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::objects::{
        CephHealthStatus, ClusterStateType, Controller, Impact, LockState, MachineState,
        MachineType, OsdplState, StepStatus,
    };

    /// Every known value parses to its variant and draws as the same text.
    fn round_trips<V: Vocabulary + PartialEq + std::fmt::Debug>(texts: &[&str]) {
        assert_eq!(V::KNOWN.len(), texts.len(), "one text per known value");
        for (known, text) in V::KNOWN.iter().zip(texts) {
            assert_eq!(&parse::<V>(Some(text)), known, "{text}");
            assert_eq!(known.text(), *text);
        }
    }

    #[test]
    fn machine_states_of_the_reference_parse_to_their_variants() {
        round_trips::<MachineState>(&[
            "Uninitialized",
            "Pending",
            "Prepare",
            "Deploy",
            "Reconfigure",
            "Upgrade",
            "Reboot",
            "Ready",
        ]);
        assert_eq!(parse::<MachineState>(Some("Ready")), MachineState::Ready);
        assert_eq!(
            parse::<MachineState>(Some("Prepare")),
            MachineState::Prepare
        );
    }

    #[test]
    fn machine_types_controllers_lock_states_and_cluster_state_types_parse() {
        round_trips::<MachineType>(&["control", "worker", "bastion", "unassigned"]);
        round_trips::<Controller>(&["openstack", "ceph", "tungstenfabric"]);
        round_trips::<LockState>(&["active", "inactive", "failed"]);
        round_trips::<OsdplState>(&["APPLYING", "APPLIED", "DELETING", "WAITING", "FAILED"]);
        round_trips::<CephHealthStatus>(&["HEALTH_OK", "HEALTH_WARN", "HEALTH_ERR"]);
        round_trips::<ClusterStateType>(&[
            "cordon-drain",
            "swarm-drain",
            "swarm-remove",
            "helm-deployed",
        ]);
        assert_eq!(parse::<MachineType>(Some("worker")), MachineType::Worker);
        assert_eq!(parse::<Controller>(Some("ceph")), Controller::Ceph);
        assert_eq!(parse::<LockState>(Some("failed")), LockState::Failed);
        assert_eq!(
            parse::<ClusterStateType>(Some("cordon-drain")),
            ClusterStateType::CordonDrain
        );
    }

    #[test]
    fn update_plan_impacts_and_step_statuses_parse() {
        round_trips::<Impact>(&["none", "minor", "major"]);
        round_trips::<StepStatus>(&[
            "NotStarted",
            "InProgress",
            "AutoPaused",
            "Completed",
            "Failed",
        ]);
        assert_eq!(parse::<Impact>(Some("huge")), Impact::Other("huge".into()));
        assert_eq!(
            parse::<StepStatus>(Some("completed")),
            StepStatus::Other("completed".into())
        );
    }

    #[test]
    fn an_unknown_value_is_kept_as_other_with_its_text() {
        let state: MachineState = parse(Some("Provisioning"));
        assert_eq!(state, MachineState::Other("Provisioning".into()));
        assert_eq!(state.as_str(), "Provisioning");
        assert_eq!(state.to_string(), "Provisioning");
        assert_eq!(
            parse::<MachineType>(Some("storage")),
            MachineType::Other("storage".into())
        );
        assert_eq!(
            parse::<Controller>(Some("stacklight")),
            Controller::Other("stacklight".into())
        );
        assert_eq!(
            parse::<LockState>(Some("releasing")),
            LockState::Other("releasing".into())
        );
        assert_eq!(
            parse::<ClusterStateType>(Some("node-label")),
            ClusterStateType::Other("node-label".into())
        );
    }

    #[test]
    fn values_are_matched_in_the_case_the_api_sends() {
        assert_eq!(
            parse::<MachineState>(Some("ready")),
            MachineState::Other("ready".into())
        );
        assert_eq!(
            parse::<MachineType>(Some("Worker")),
            MachineType::Other("Worker".into())
        );
        assert_eq!(
            parse::<Controller>(Some("OpenStack")),
            Controller::Other("OpenStack".into())
        );
        assert_eq!(
            parse::<LockState>(Some("Active")),
            LockState::Other("Active".into())
        );
        assert_eq!(
            parse::<ClusterStateType>(Some("Cordon-Drain")),
            ClusterStateType::Other("Cordon-Drain".into())
        );
    }

    #[test]
    fn a_missing_value_is_an_empty_other_and_an_unknown_one_is_sanitized() {
        let missing: MachineState = parse(None);
        assert_eq!(missing, MachineState::Other(String::new()));
        assert!(missing.is_unset());
        assert_eq!(
            parse::<MachineType>(None),
            MachineType::Other(String::new())
        );
        let hostile: MachineState = parse(Some("Dep\u{1b}[2Jloy"));
        assert_eq!(hostile.as_str(), sanitize("Dep\u{1b}[2Jloy"));
        assert!(!hostile.as_str().contains('\u{1b}'), "{hostile:?}");
    }

    #[test]
    fn active_states_are_deploy_reboot_upgrade_and_reconfigure() {
        let active: Vec<&str> = MachineState::KNOWN
            .iter()
            .filter(|s| s.is_active())
            .map(|s| s.as_str())
            .collect();
        assert_eq!(active, vec!["Deploy", "Reconfigure", "Upgrade", "Reboot"]);
        assert!(!MachineState::Other("Deploying".into()).is_active());
    }
}
