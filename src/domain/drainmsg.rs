//! Reading LCM's drain messages: the `status.message` of a cordon-drain or
//! swarm-drain LCMClusterState while node workload locks hold the node, and
//! the error of the Kubernetes drain itself (LCMMachine
//! `status.kubernetesCordonDrainError`, [`failure`]).
//!
//! What LCM's drain writes then (reference §7.2, observed [C: D-UPD22]):
//! `Error: following NodeWorkloadLocks are still active - ceph:
//! UpdatingController,openstack: InProgress`. The seed shows it with four
//! spaces after `following` (`kubectl get -o wide` keeps them): white space
//! between the words is matched as any run of it. LCM's source is not
//! public, so its exact spacing is not known [I].
//!
//! The cluster layer parses each cluster state's message and each drain
//! error once, as the object arrives ([`crate::domain::objects::StateMessage`],
//! [`crate::domain::objects::DrainError`]); the rules read what [`parse`]
//! and [`failure`] returned.

use std::sync::LazyLock;

use jiff::SignedDuration;
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

// kubectl's drain helper (kubernetes/kubectl `pkg/drain/drain.go`,
// `Helper.evictPods`, read at dee3483a): `error when evicting pods/"<pod>"
// -n "<namespace>": <cause>` (the cause `global timeout reached: <timeout>`
// when `--timeout` ran out), and `error when waiting for pod "<pod>" in
// namespace "<namespace>" to terminate: <cause>`. That LCM drains with this
// helper is inferred from the texts seen in the field (reference §7.1) [I].
static EVICTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"error when evicting pods/"([^"]*)" -n "([^"]*)":\s*"#).expect("valid regex")
});
static WAITING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"error when waiting for pod "([^"]*)" in namespace "([^"]*)" to terminate:\s*"#)
        .expect("valid regex")
});

// `global timeout reached: <timeout>`, the timeout as Go prints a
// `time.Duration` (`10m0s`, `1h0m0s`, `90s`).
static GLOBAL_TIMEOUT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"global timeout reached:\s*([0-9hms.]+)").expect("valid regex"));

/// What a failed Kubernetes drain says: the pod it could not move, if the
/// error names one, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrainFailure {
    /// `<namespace>/<pod>` the drain could not evict (or wait out).
    pub pod: Option<String>,
    /// The cause as kubectl gives it (`global timeout reached: 10m0s`), or
    /// the whole error when it names no pod.
    pub cause: String,
    /// The drain's global timeout, when it is what ran out: the drain had
    /// run that long when it failed.
    pub timeout: Option<SignedDuration>,
}

impl DrainFailure {
    /// `evicting stacklight/patroni-13-2: global timeout reached: 10m0s`:
    /// what WAITING ON says after `drain failed`.
    pub fn short(&self) -> String {
        match &self.pod {
            Some(pod) => format!("evicting {pod}: {}", self.cause),
            None => self.cause.clone(),
        }
    }
}

/// What a `status.kubernetesCordonDrainError` says. LCM's `Error: ` in front
/// of kubectl's text is dropped [I].
pub fn failure(error: &str) -> DrainFailure {
    let text = error.trim();
    let text = text.strip_prefix("Error:").map_or(text, str::trim_start);
    let timeout = GLOBAL_TIMEOUT
        .captures(text)
        .and_then(|c| go_duration(&c[1]));
    for re in [&*EVICTING, &*WAITING] {
        if let Some(c) = re.captures(text) {
            let whole = c.get(0).expect("the whole match");
            let cause = text[whole.end()..].trim();
            return DrainFailure {
                pod: Some(format!("{}/{}", &c[2], &c[1])),
                cause: if cause.is_empty() {
                    "no cause given".to_string()
                } else {
                    cause.to_string()
                },
                timeout,
            };
        }
    }
    DrainFailure {
        pod: None,
        cause: text.to_string(),
        timeout,
    }
}

/// A duration as Go's `time.Duration.String` writes one with hours,
/// minutes and seconds (`1h0m0s`, `10m0s`, `2.5s`); `None` otherwise.
fn go_duration(text: &str) -> Option<SignedDuration> {
    let mut total = 0.0_f64;
    let mut number = String::new();
    let mut any = false;
    for c in text.chars() {
        match c {
            '0'..='9' | '.' => number.push(c),
            'h' | 'm' | 's' => {
                let n: f64 = std::mem::take(&mut number).parse().ok()?;
                total += n * match c {
                    'h' => 3600.0,
                    'm' => 60.0,
                    _ => 1.0,
                };
                any = true;
            }
            _ => return None,
        }
    }
    (any && number.is_empty())
        .then(|| SignedDuration::try_from_secs_f64(total).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::{failure, go_duration, parse};
    use jiff::SignedDuration;

    #[test]
    fn go_durations_read_as_go_writes_them() {
        assert_eq!(go_duration("10m0s"), Some(SignedDuration::from_mins(10)));
        assert_eq!(go_duration("1h0m0s"), Some(SignedDuration::from_hours(1)));
        assert_eq!(
            go_duration("1m30.5s"),
            Some(SignedDuration::from_millis(90_500))
        );
        assert_eq!(go_duration("10"), None);
        assert_eq!(go_duration("10x"), None);
        assert_eq!(go_duration(""), None);
    }

    #[test]
    fn a_drain_error_names_the_pod_and_kubectls_cause() {
        let f = failure(
            r#"Error: error when evicting pods/"patroni-13-2" -n "stacklight": global timeout reached: 10m0s"#,
        );
        assert_eq!(f.pod.as_deref(), Some("stacklight/patroni-13-2"));
        assert_eq!(f.cause, "global timeout reached: 10m0s");
        assert_eq!(
            f.short(),
            "evicting stacklight/patroni-13-2: global timeout reached: 10m0s"
        );
        assert_eq!(f.timeout, Some(SignedDuration::from_mins(10)));
        let f = failure(
            r#"error when waiting for pod "mariadb-server-0" in namespace "openstack" to terminate: context deadline exceeded"#,
        );
        assert_eq!(f.pod.as_deref(), Some("openstack/mariadb-server-0"));
        assert_eq!(f.cause, "context deadline exceeded");
        assert_eq!(f.timeout, None);
        // Anything else is kept whole, LCM's prefix aside.
        let f = failure("Error: cannot delete Pods not managed by a controller");
        assert_eq!(f.pod, None);
        assert_eq!(f.short(), "cannot delete Pods not managed by a controller");
    }

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
