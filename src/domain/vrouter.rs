//! Tungsten Fabric vRouter pods and DaemonSets.
//!
//! The vRouter DaemonSets use `updateStrategy: OnDelete`: a pod keeps its old
//! template until someone deletes it. A pod is outdated when the
//! `pod-template-generation` label the DaemonSet controller put on it differs
//! from its DaemonSet's `metadata.generation` (standard Kubernetes). The
//! operator restarts outdated pods one node at a time, because each restart
//! cuts the network of the workloads on that node.
//!
//! Since MOSK 22.4 the post-update restart is automated; before that the
//! operator restarted the pods by hand (reference §5.2, from the 22.2 update
//! procedure). [`restart_policy`] tells which applies from the target release.

use std::collections::HashMap;

use super::join::MachineRow;
use super::objects::{Snapshot, VrouterDaemonSet, VrouterPod};

/// The first MOSK release whose update restarts vRouter pods by itself.
pub const AUTOMATIC_SINCE: MoskVersion = MoskVersion { year: 22, minor: 4 };

/// A MOSK release version, `year.minor` (`22.2`, `25.1`); patch releases
/// (`24.3.4`) keep only the first two numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct MoskVersion {
    pub year: u32,
    pub minor: u32,
}

impl std::fmt::Display for MoskVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.year, self.minor)
    }
}

/// The MOSK version in a release string, or `None` when it cannot be told.
///
/// Accepted forms (the forms the cluster objects use are inferred [I] from the
/// reference's examples and the MCC naming, not from a documented grammar):
/// - a cluster release name `mosk-<major>-<minor>-<patch>-<year>-<minor>[-<patch>]`
///   (`mosk-17-4-0-25-1`): the three numbers after `mosk-` are the Container
///   Cloud cluster release, the rest the MOSK version;
/// - a controller release `<cluster>+<mosk>` (`17.4.0+25.1`): after the `+`;
/// - a bare MOSK version `22.2`, `25.1`, `24.3.4`, optionally `v`/`MOSK ` prefixed.
pub fn mosk_version(release: &str) -> Option<MoskVersion> {
    let r = release.trim();
    let numbers = |s: &str, sep: char| -> Option<Vec<u32>> {
        s.split(sep)
            .map(|t| t.parse::<u32>().ok())
            .collect::<Option<Vec<u32>>>()
    };
    let parts = if let Some(rest) = r.strip_prefix("mosk-") {
        let n = numbers(rest, '-')?;
        if n.len() < 5 {
            return None;
        }
        n[3..].to_vec()
    } else if let Some((_, mosk)) = r.rsplit_once('+') {
        numbers(mosk, '.')?
    } else {
        let bare = r
            .strip_prefix("MOSK ")
            .or_else(|| r.strip_prefix('v'))
            .unwrap_or(r);
        numbers(bare, '.')?
    };
    // MOSK versions are `YY.N[.P]`: the year from 20 (MOSK 20.1) on.
    match parts.as_slice() {
        [year, minor] | [year, minor, _] if (20..100).contains(year) => Some(MoskVersion {
            year: *year,
            minor: *minor,
        }),
        _ => None,
    }
}

/// Who restarts outdated vRouter pods after the update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestartPolicy {
    /// The target release is before MOSK 22.4: the operator restarts them.
    Manual(MoskVersion),
    /// MOSK 22.4 or later: the TF operator restarts them one node at a time.
    Automatic(MoskVersion),
    /// No target release, or one whose MOSK version cannot be told.
    Unknown(Option<String>),
}

impl RestartPolicy {
    pub fn for_release(release: Option<&str>) -> RestartPolicy {
        match release.and_then(mosk_version) {
            Some(v) if v < AUTOMATIC_SINCE => RestartPolicy::Manual(v),
            Some(v) => RestartPolicy::Automatic(v),
            None => RestartPolicy::Unknown(release.map(str::to_string)),
        }
    }
}

/// The restart policy of the release the update goes to (the LCMCluster's
/// `spec.release`).
pub fn restart_policy(snap: &Snapshot) -> RestartPolicy {
    let target = snap
        .lcm_clusters()
        .find_map(|c| c.target_release.as_deref());
    RestartPolicy::for_release(target)
}

/// One vRouter pod and whether it runs its DaemonSet's current template.
#[derive(Debug, Clone, PartialEq)]
pub struct PodStatus {
    pub name: String,
    pub namespace: String,
    pub uid: String,
    pub node: Option<String>,
    pub daemonset: Option<String>,
    /// `Some(true)` when the pod's template generation differs from the
    /// DaemonSet's generation; `None` when either is unknown (no owner, label
    /// missing, DaemonSet not seen).
    pub outdated: Option<bool>,
    pub ready: bool,
    pub phase: String,
    pub deleting: bool,
    pub template_generation: Option<i64>,
}

impl PodStatus {
    pub fn is_outdated(&self) -> bool {
        self.outdated == Some(true)
    }
}

/// One vRouter DaemonSet: the counters `kubectl get ds` shows, plus its pods.
#[derive(Debug, Clone, PartialEq)]
pub struct DaemonSetStatus {
    pub name: String,
    pub namespace: String,
    pub generation: Option<i64>,
    pub desired: i64,
    /// CURRENT (`status.currentNumberScheduled`).
    pub current: i64,
    /// UP-TO-DATE (`status.updatedNumberScheduled`).
    pub updated: i64,
    pub ready: i64,
    /// The DaemonSet controller has seen the latest spec.
    pub observed: bool,
    /// This DaemonSet's pods, by node name.
    pub pods: Vec<PodStatus>,
}

impl DaemonSetStatus {
    /// UP-TO-DATE equals CURRENT and no pod we see is outdated: the
    /// documented "done" check, cross-checked with the pods.
    pub fn up_to_date(&self) -> bool {
        self.updated == self.current && self.outdated_count() == 0
    }
    pub fn outdated_count(&self) -> usize {
        self.pods.iter().filter(|p| p.is_outdated()).count()
    }
}

/// Status of one pod against the DaemonSets in `snap`.
pub fn pod_status(snap: &Snapshot, pod: &VrouterPod) -> PodStatus {
    let ds = pod.daemonset.as_deref().and_then(|name| {
        snap.vrouter_daemonsets()
            .find(|d| d.name == name && d.namespace == pod.namespace)
    });
    pod_status_with(ds, pod)
}

pub fn pod_status_with(ds: Option<&VrouterDaemonSet>, pod: &VrouterPod) -> PodStatus {
    let outdated = match (ds.and_then(|d| d.generation), pod.template_generation) {
        (Some(want), Some(have)) => Some(want != have),
        _ => None,
    };
    PodStatus {
        name: pod.name.clone(),
        namespace: pod.namespace.clone(),
        uid: pod.uid.clone(),
        node: pod.node_name.clone(),
        daemonset: pod.daemonset.clone(),
        outdated,
        ready: pod.ready,
        phase: pod.phase.clone(),
        deleting: pod.deleting,
        template_generation: pod.template_generation,
    }
}

/// Every vRouter DaemonSet with its pods, by name.
pub fn daemonsets(snap: &Snapshot) -> Vec<DaemonSetStatus> {
    snap.vrouter_daemonsets()
        .map(|ds| {
            let mut pods: Vec<PodStatus> = snap
                .vrouter_pods()
                .filter(|p| p.namespace == ds.namespace && p.daemonset.as_deref() == Some(&ds.name))
                .map(|p| pod_status_with(Some(ds), p))
                .collect();
            pods.sort_by(|a, b| (&a.node, &a.name).cmp(&(&b.node, &b.name)));
            DaemonSetStatus {
                name: ds.name.clone(),
                namespace: ds.namespace.clone(),
                generation: ds.generation,
                desired: ds.desired,
                current: ds.current,
                updated: ds.updated,
                ready: ds.ready,
                observed: ds.generation.is_none() || ds.observed_generation == ds.generation,
                pods,
            }
        })
        .collect()
}

/// The vRouter pods on `node`, with their status.
pub fn pods_on_node(snap: &Snapshot, node: &str) -> Vec<PodStatus> {
    let mut pods: Vec<PodStatus> = snap
        .vrouter_pods()
        .filter(|p| p.node_name.as_deref() == Some(node))
        .map(|p| pod_status(snap, p))
        .collect();
    pods.sort_by(|a, b| a.name.cmp(&b.name));
    pods
}

/// Machine names by node name, from the joined machine rows: a vRouter pod
/// runs on `kaas-node-<uuid>`, which alone means nothing to an operator;
/// the machine's name does.
pub fn machines_by_node(rows: &[MachineRow]) -> HashMap<&str, &str> {
    rows.iter()
        .filter_map(|r| r.node_name.as_deref().map(|n| (n, r.name())))
        .collect()
}

/// The outdated pods in the order to restart them: pods already terminating
/// are left out (their replacement is on the way); pods that are not ready go
/// first (their node has no working vRouter anyway, so a restart costs
/// nothing); then by node name, so the order is stable between redraws.
pub fn restart_order(snap: &Snapshot) -> Vec<PodStatus> {
    let mut pods: Vec<PodStatus> = snap
        .vrouter_pods()
        .map(|p| pod_status(snap, p))
        .filter(|p| p.is_outdated() && !p.deleting)
        .collect();
    pods.sort_by(|a, b| (a.ready, &a.node, &a.name).cmp(&(b.ready, &b.node, &b.name)));
    pods
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::fixtures::{self, names};
    use crate::domain::objects::Object;
    use std::sync::Arc;

    #[test]
    fn mosk_version_from_release_names() {
        let v = |year, minor| Some(MoskVersion { year, minor });
        assert_eq!(mosk_version("mosk-17-4-0-25-1"), v(25, 1));
        assert_eq!(mosk_version("mosk-17-3-4-24-3-4"), v(24, 3));
        assert_eq!(mosk_version("mosk-8-8-0-22-2"), v(22, 2));
        assert_eq!(mosk_version("17.4.0+25.1"), v(25, 1));
        assert_eq!(mosk_version("22.2"), v(22, 2));
        assert_eq!(mosk_version(" 25.1 "), v(25, 1));
        assert_eq!(mosk_version("v22.4"), v(22, 4));
        assert_eq!(mosk_version("24.3.4"), v(24, 3));
        for bad in [
            "",
            "mosk",
            "mosk-17-4-0",
            "latest",
            "17.4.0",
            "mosk-17-4-0-x-1",
            "2.2",
            "22",
        ] {
            assert_eq!(mosk_version(bad), None, "{bad}");
        }
    }

    #[test]
    fn restart_policy_by_target_version() {
        use RestartPolicy::*;
        let v = |year, minor| MoskVersion { year, minor };
        assert_eq!(
            RestartPolicy::for_release(Some("mosk-8-8-0-22-2")),
            Manual(v(22, 2))
        );
        assert_eq!(RestartPolicy::for_release(Some("22.3")), Manual(v(22, 3)));
        assert_eq!(
            RestartPolicy::for_release(Some("22.4")),
            Automatic(v(22, 4))
        );
        assert_eq!(
            RestartPolicy::for_release(Some("mosk-17-4-0-25-1")),
            Automatic(v(25, 1))
        );
        assert_eq!(
            RestartPolicy::for_release(Some("custom")),
            Unknown(Some("custom".into()))
        );
        assert_eq!(RestartPolicy::for_release(None), Unknown(None));
        // The fixture targets mosk-17-4-0-25-1.
        assert_eq!(restart_policy(&fixtures::mid_update()), Automatic(v(25, 1)));
    }

    #[test]
    fn outdated_is_generation_mismatch() {
        let snap = fixtures::mid_update();
        let ds = daemonsets(&snap);
        assert_eq!(ds.len(), 1);
        let ds = &ds[0];
        assert_eq!(ds.name, names::VROUTER_DS);
        assert!(!ds.up_to_date());
        // worker-1's pod was recreated from generation 2; the others run generation 1.
        let new: Vec<_> = ds
            .pods
            .iter()
            .filter(|p| p.outdated == Some(false))
            .collect();
        assert_eq!(new.len(), 1);
        assert_eq!(new[0].node.as_deref(), Some(names::NODE_W1));
        assert_eq!(ds.outdated_count(), 3);
    }

    #[test]
    fn unknown_generation_is_not_outdated() {
        let mut snap = fixtures::mid_update();
        let mut pod = fixtures::vrouter_pod("tf-vrouter-agent-zzzzz", names::NODE_W4, 1, true);
        pod.template_generation = None;
        snap.apply(Object::VrouterPod(Arc::new(pod.clone())));
        assert_eq!(pod_status(&snap, &pod).outdated, None);
        pod.template_generation = Some(1);
        pod.daemonset = Some("no-such-ds".into());
        assert_eq!(pod_status(&snap, &pod).outdated, None);
    }

    #[test]
    fn restart_order_puts_not_ready_first_and_skips_terminating() {
        let mut snap = fixtures::mid_update();
        let order: Vec<_> = restart_order(&snap).into_iter().map(|p| p.node).collect();
        assert_eq!(order.len(), 3);
        assert!(!order.contains(&Some(names::NODE_W1.to_string())));
        // Make worker-4's pod not ready and worker-2's terminating.
        let mut w4 = fixtures::vrouter_pod(names::VROUTER_POD_W4, names::NODE_W4, 1, false);
        w4.phase = "Running".into();
        snap.apply(Object::VrouterPod(Arc::new(w4)));
        let mut w2 = fixtures::vrouter_pod(names::VROUTER_POD_W2, names::NODE_W2, 1, true);
        w2.deleting = true;
        snap.apply(Object::VrouterPod(Arc::new(w2)));
        let order: Vec<_> = restart_order(&snap)
            .into_iter()
            .map(|p| p.node.unwrap_or_default())
            .collect();
        assert_eq!(
            order,
            vec![names::NODE_W4.to_string(), names::NODE_W3.to_string()]
        );
    }

    #[test]
    fn all_new_is_up_to_date() {
        let mut snap = fixtures::mid_update();
        for (pod, node) in [
            (names::VROUTER_POD_W2, names::NODE_W2),
            (names::VROUTER_POD_W3, names::NODE_W3),
            (names::VROUTER_POD_W4, names::NODE_W4),
        ] {
            snap.apply(Object::VrouterPod(Arc::new(fixtures::vrouter_pod(
                pod, node, 2, true,
            ))));
        }
        let mut ds = fixtures::vrouter_ds(2, 4);
        ds.updated = 4;
        snap.apply(Object::VrouterDaemonSet(Arc::new(ds)));
        assert!(daemonsets(&snap)[0].up_to_date());
        assert!(restart_order(&snap).is_empty());
        assert_eq!(pods_on_node(&snap, names::NODE_W3).len(), 1);
    }
}
