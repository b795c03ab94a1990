//! Reading LCM's drain message: the `status.message` of a cordon-drain or
//! swarm-drain LCMClusterState while node workload locks hold the node.
//!
//! What LCM's drain writes then (reference §7.2, observed [C: D-UPD22]):
//! `Error: following NodeWorkloadLocks are still active - ceph:
//! UpdatingController,openstack: InProgress`. The seed shows it with four
//! spaces after `following` (`kubectl get -o wide` keeps them): white space
//! between the words is matched as any run of it. LCM's source is not
//! public, so its exact spacing is not known [I].
//!
//! The cluster layer parses each cluster state's message once, as the
//! object arrives ([`crate::domain::objects::StateMessage`]); the rules read
//! what [`parse`] returned.

use std::sync::LazyLock;

use regex::Regex;

// A hand-written regex: no crate parses LCM's free-text messages.
static STILL_ACTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"following\s+NodeWorkloadLocks\s+are\s+still\s+active\s*-\s*").expect("valid regex")
});

/// A drain message saying node locks still hold the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocksStillActive {
    /// The controllers the message names as still holding the node, with
    /// the word LCM gives for each (`UpdatingController`, `InProgress`: not
    /// lock states; where LCM takes them from is unknown, reference §7.2 [?]).
    pub controllers: Vec<(String, String)>,
}

impl LocksStillActive {
    /// Whether the message names `controller` (as `Controller::as_str` spells it).
    pub fn names(&self, controller: &str) -> bool {
        self.controllers.iter().any(|(c, _)| c == controller)
    }
}

/// What a cluster state's message says about node locks: `None` unless it
/// says node locks still hold the node.
pub fn parse(message: &str) -> Option<LocksStillActive> {
    let m = STILL_ACTIVE.find(message)?;
    let list = &message[m.end()..];
    let controllers = list
        .split(',')
        .filter_map(|part| {
            let (controller, word) = part.split_once(':').unwrap_or((part, ""));
            let controller = controller.trim();
            (!controller.is_empty()).then(|| (controller.to_string(), word.trim().to_string()))
        })
        .collect();
    Some(LocksStillActive { controllers })
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn named(message: &str) -> Vec<(String, String)> {
        parse(message).map(|l| l.controllers).unwrap_or_default()
    }

    #[test]
    fn the_drain_message_names_each_controller_and_its_word() {
        assert_eq!(
            named(
                "Error: following NodeWorkloadLocks are still active - ceph: UpdatingController,openstack: InProgress"
            ),
            vec![
                ("ceph".to_string(), "UpdatingController".to_string()),
                ("openstack".to_string(), "InProgress".to_string())
            ]
        );
        assert!(named("Error: waiting for kubernetes node x to be drained first").is_empty());
        assert_eq!(
            parse("Error: waiting for kubernetes node x to be drained first"),
            None
        );
    }

    #[test]
    fn the_seeds_spacing_still_names_the_controllers() {
        // The seed's `kubectl get lcmclusterstates -o wide` line: four spaces.
        for text in [
            "Error: following    NodeWorkloadLocks are still active - ceph: UpdatingController,openstack: InProgress",
            "Error: following NodeWorkloadLocks  are still\tactive -ceph: UpdatingController,openstack: InProgress",
        ] {
            assert_eq!(
                named(text),
                vec![
                    ("ceph".to_string(), "UpdatingController".to_string()),
                    ("openstack".to_string(), "InProgress".to_string())
                ],
                "{text:?}"
            );
        }
    }
}
