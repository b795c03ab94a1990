//! Tungsten Fabric vRouter pods and DaemonSets.
//!
//! The vRouter DaemonSets use `updateStrategy: OnDelete`: a pod keeps its old
//! template until someone deletes it. Whether a pod runs its DaemonSet's
//! current template is Kubernetes' own rule, [`revision`] (a port of the
//! DaemonSet controller's `IsPodUpdated`); `metadata.generation` is not
//! compared with anything, because any spec edit (update strategy, history
//! limit) moves it without touching the template. The operator restarts
//! outdated pods one node at a time, because each restart cuts the network
//! of the workloads on that node.
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

/// Whether a pod runs its DaemonSet's current template, as far as the
/// console can tell from what it has seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revision {
    Current,
    Outdated,
    Unknown(Unknown),
}

/// Why the console cannot tell whether a pod is outdated. None of these is
/// offered a restart: a restart cuts the node's network, so it needs proof.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unknown {
    /// The pod names no DaemonSet, or one the console has not seen.
    NoDaemonSet,
    /// The DaemonSet's `status.observedGeneration` is behind its
    /// `metadata.generation`: its controller has not acted on the latest
    /// spec yet, so its counts and pods may still change.
    ControllerBehind {
        observed: Option<i64>,
        generation: i64,
    },
    /// The pod's template generation is newer than the DaemonSet the console
    /// has seen: the pod's watch event came before the DaemonSet's.
    PodNewer { pod: i64, daemonset: i64 },
    /// The pod has no `pod-template-generation` label, or the DaemonSet no
    /// `deprecated.daemonset.template.generation` annotation.
    NoTemplateGeneration,
}

impl std::fmt::Display for Unknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unknown::NoDaemonSet => f.write_str("its DaemonSet is not seen"),
            Unknown::ControllerBehind {
                observed,
                generation,
            } => write!(
                f,
                "the DaemonSet controller has not observed generation {generation} yet (observedGeneration {})",
                observed.map_or_else(|| "unset".to_string(), |o| o.to_string())
            ),
            Unknown::PodNewer { pod, daemonset } => write!(
                f,
                "the pod is from template generation {pod}, newer than the DaemonSet seen ({daemonset})"
            ),
            Unknown::NoTemplateGeneration => f.write_str("no template generation to compare"),
        }
    }
}

/// Kubernetes' rule for "this pod runs its DaemonSet's current template":
/// `IsPodUpdated` in kubernetes/kubernetes
/// `pkg/controller/daemon/util/daemonset_util.go` (read at commit
/// 05c351a9037bd79bf88c56171a951c3097b658da): the pod's
/// `controller-revision-hash` label equals the hash of the DaemonSet's
/// newest ControllerRevision, or its `pod-template-generation` label equals
/// the DaemonSet's `deprecated.daemonset.template.generation` annotation.
///
/// The console watches no ControllerRevisions (docs/ARCHITECTURE.md says
/// why), so the hash half is taken from the controller itself: its
/// `status.updatedNumberScheduled` counts the pods `IsPodUpdated` accepts,
/// hash included; when that count reaches `currentNumberScheduled` every
/// scheduled pod is current whatever its generation label says (a rollback
/// to an earlier template reuses that template's revision, so the old pods'
/// hash is the newest again while their label stays old).
///
/// Before comparing, what the console has seen must be in order: a
/// DaemonSet whose controller has not observed its latest generation, or a
/// pod newer than the DaemonSet (watch events of two kinds arrive in no
/// fixed order), gives [`Revision::Unknown`], never "outdated".
pub fn revision(ds: Option<&VrouterDaemonSet>, pod: &VrouterPod) -> Revision {
    let Some(ds) = ds else {
        return Revision::Unknown(Unknown::NoDaemonSet);
    };
    if let Some(generation) = ds.generation
        && ds.observed_generation.is_none_or(|o| o < generation)
    {
        return Revision::Unknown(Unknown::ControllerBehind {
            observed: ds.observed_generation,
            generation,
        });
    }
    match (pod.template_generation, ds.template_generation) {
        (Some(p), Some(d)) if p > d => Revision::Unknown(Unknown::PodNewer {
            pod: p,
            daemonset: d,
        }),
        (Some(p), Some(d)) if p == d => Revision::Current,
        // The controller counts every scheduled pod updated: the hash half.
        _ if ds.current > 0 && ds.updated >= ds.current => Revision::Current,
        (Some(_), Some(_)) => Revision::Outdated,
        _ => Revision::Unknown(Unknown::NoTemplateGeneration),
    }
}

/// What [`revision`] reads of a DaemonSet: two versions that agree on it
/// give every pod the same revision (its counters move on each pod
/// restarted; this moves far less often).
pub fn revision_inputs(ds: &VrouterDaemonSet) -> impl PartialEq + use<> {
    (
        ds.generation,
        ds.observed_generation,
        ds.template_generation,
        ds.current > 0 && ds.updated >= ds.current,
    )
}

/// One vRouter pod and whether it runs its DaemonSet's current template.
#[derive(Debug, Clone, PartialEq)]
pub struct PodStatus {
    pub name: String,
    pub namespace: String,
    pub uid: String,
    pub node: Option<String>,
    pub daemonset: Option<String>,
    /// [`revision`]: `Some(true)` outdated, `Some(false)` current, `None`
    /// unknown (why: [`PodStatus::unknown`]).
    pub outdated: Option<bool>,
    /// Why `outdated` is `None`.
    pub unknown: Option<Unknown>,
    pub ready: bool,
    pub phase: String,
    pub deleting: bool,
    pub template_generation: Option<i64>,
}

impl PodStatus {
    pub fn is_outdated(&self) -> bool {
        self.outdated == Some(true)
    }
    /// Terminating, or not Ready: the node's vRouter is down (or going).
    pub fn is_down(&self) -> bool {
        self.deleting || !self.ready
    }
}

/// One vRouter DaemonSet: the counters `kubectl get ds` shows, plus its pods.
#[derive(Debug, Clone, PartialEq)]
pub struct DaemonSetStatus {
    pub name: String,
    pub namespace: String,
    pub generation: Option<i64>,
    /// The `deprecated.daemonset.template.generation` annotation.
    pub template_generation: Option<i64>,
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
    /// Pods whose revision cannot be told, and why (the first reason).
    pub fn unknown(&self) -> (usize, Option<&Unknown>) {
        let mut why = self.pods.iter().filter_map(|p| p.unknown.as_ref());
        let first = why.next();
        (first.map_or(0, |_| 1 + why.count()), first)
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
    let (outdated, unknown) = match revision(ds, pod) {
        Revision::Current => (Some(false), None),
        Revision::Outdated => (Some(true), None),
        Revision::Unknown(why) => (None, Some(why)),
    };
    PodStatus {
        name: pod.name.clone(),
        namespace: pod.namespace.clone(),
        uid: pod.uid.clone(),
        node: pod.node_name.clone(),
        daemonset: pod.daemonset.clone(),
        outdated,
        unknown,
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
                template_generation: ds.template_generation,
                desired: ds.desired,
                current: ds.current,
                updated: ds.updated,
                ready: ds.ready,
                observed: ds
                    .generation
                    .is_none_or(|g| ds.observed_generation.is_some_and(|o| o >= g)),
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

    /// Every pod on template generation `t` (hash `rev<t>`), the DaemonSet
    /// at `generation` with template generation `t`, its controller caught up.
    fn after_spec_edit(generation: i64, t: i64) -> Snapshot {
        let mut snap = fixtures::mid_update();
        for (node, pod) in fixtures::VROUTER_PODS {
            snap.apply(Object::VrouterPod(Arc::new(fixtures::vrouter_pod(
                pod, node, t, true,
            ))));
        }
        let mut ds = fixtures::vrouter_ds(generation, 4);
        ds.template_generation = Some(t);
        ds.updated = 4;
        snap.apply(Object::VrouterDaemonSet(Arc::new(ds)));
        snap
    }

    #[test]
    fn a_spec_edit_outside_the_template_outdates_no_pod() {
        // metadata.generation 7 (a history-limit edit), template generation
        // 6, every pod from template 6 with the matching revision hash.
        let snap = after_spec_edit(7, 6);
        let ds = &daemonsets(&snap)[0];
        assert_eq!(ds.generation, Some(7));
        assert_eq!(ds.template_generation, Some(6));
        assert!(
            ds.pods.iter().all(|p| p.outdated == Some(false)),
            "{:?}",
            ds.pods
        );
        assert!(ds.up_to_date());
        assert!(restart_order(&snap).is_empty());
    }

    #[test]
    fn the_label_is_compared_with_the_template_generation_not_the_generation() {
        // Without the controller's count to vouch for them, pods from an
        // older template are outdated, and only they.
        let mut snap = after_spec_edit(7, 6);
        let mut ds = fixtures::vrouter_ds(7, 4);
        ds.template_generation = Some(6);
        ds.updated = 3;
        snap.apply(Object::VrouterDaemonSet(Arc::new(ds)));
        let old = fixtures::vrouter_pod(names::VROUTER_POD_W3, names::NODE_W3, 5, true);
        snap.apply(Object::VrouterPod(Arc::new(old)));
        let order: Vec<_> = restart_order(&snap).into_iter().map(|p| p.name).collect();
        assert_eq!(order, vec![names::VROUTER_POD_W3.to_string()]);
    }

    #[test]
    fn a_pod_the_controller_counts_updated_is_current_whatever_its_label() {
        // A rollback to an earlier template: the old pods' hash is the newest
        // revision's again, their label stays old; the controller's
        // UP-TO-DATE (which compares the hash) counts them all.
        let mut snap = after_spec_edit(9, 8);
        for (node, pod) in fixtures::VROUTER_PODS {
            snap.apply(Object::VrouterPod(Arc::new(fixtures::vrouter_pod(
                pod, node, 6, true,
            ))));
        }
        assert!(restart_order(&snap).is_empty());
        assert!(daemonsets(&snap)[0].up_to_date());
    }

    #[test]
    fn a_pod_newer_than_the_daemonset_seen_is_unknown() {
        // The pod's watch event came first: it carries template generation
        // 3, the DaemonSet seen is still at 2.
        let mut snap = fixtures::mid_update();
        let newer = fixtures::vrouter_pod(names::VROUTER_POD_W3, names::NODE_W3, 3, true);
        snap.apply(Object::VrouterPod(Arc::new(newer.clone())));
        let st = pod_status(&snap, &newer);
        assert_eq!(st.outdated, None);
        assert_eq!(
            st.unknown,
            Some(Unknown::PodNewer {
                pod: 3,
                daemonset: 2
            })
        );
        assert!(
            !restart_order(&snap)
                .iter()
                .any(|p| p.name == names::VROUTER_POD_W3)
        );
    }

    #[test]
    fn a_daemonset_its_controller_has_not_observed_makes_every_pod_unknown() {
        let mut snap = fixtures::mid_update();
        let mut ds = fixtures::vrouter_ds(3, 4);
        ds.template_generation = Some(2);
        ds.observed_generation = Some(2);
        snap.apply(Object::VrouterDaemonSet(Arc::new(ds)));
        let d = &daemonsets(&snap)[0];
        assert!(!d.observed);
        assert_eq!(d.outdated_count(), 0);
        assert_eq!(
            d.unknown(),
            (
                4,
                Some(&Unknown::ControllerBehind {
                    observed: Some(2),
                    generation: 3
                })
            )
        );
        assert!(restart_order(&snap).is_empty());
    }
}
