//! How fresh the data on screen is: per watched kind, whether it has listed
//! once, when it was last confirmed, and since when its watch is unhealthy.
//! Every pane names the kinds it reads ([`Pane::kinds`]); when one of them is
//! unhealthy the pane's border says so ([`mark`]), and the claims derived
//! from it (phase, ETA, "nothing waits for a human") are shown as stale.
//!
//! "Healthy" means the watch is connected without an error: the kube watcher
//! only yields events when something changes, so a quiet watch is not a
//! stale one.

use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::app::model::{Model, View};
use crate::cluster::events::{WatchHealth, WatchProblem};
use crate::domain::objects::Kind;
use crate::domain::readiness::Seen;

/// What the model knows about the freshness of one kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KindFreshness {
    /// The first list finished (`Resynced`), or the kind is settled as
    /// missing (`KindMissing`).
    pub listed: bool,
    /// When the data of the kind was last confirmed (event, re-list, or the
    /// watch reported healthy), on the model's clock.
    pub confirmed: Option<Timestamp>,
    /// Since when the watch is unhealthy (model clock), while it is.
    pub down_since: Option<Timestamp>,
}

/// Per-kind freshness.
pub type Freshness = BTreeMap<Kind, KindFreshness>;

/// Whether a watch counts as healthy: connected, no error.
pub fn healthy(h: &WatchHealth) -> bool {
    h.connected && h.last_error.is_none()
}

/// An event or list of `kind` arrived at `now`.
pub fn confirmed(model: &mut Model, kind: Kind) {
    let now = model.now;
    model.freshness.entry(kind).or_default().confirmed = Some(now);
}

/// The first (or a later) list of `kind` finished, or it is settled missing.
pub fn listed(model: &mut Model, kind: Kind) {
    let now = model.now;
    let f = model.freshness.entry(kind).or_default();
    f.listed = true;
    f.confirmed = Some(now);
}

/// The watch on `kind` reported its health.
pub fn health_changed(model: &mut Model, kind: Kind, health: &WatchHealth) {
    let now = model.now;
    let f = model.freshness.entry(kind).or_default();
    if healthy(health) {
        f.down_since = None;
        f.confirmed = Some(now);
    } else if f.down_since.is_none() {
        // The watch was connected until now, so nothing was missed before.
        f.down_since = Some(now);
    }
}

/// The panes that show cluster data, each with the kinds it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// Overview: release, phase, cluster locks, progress and ETA.
    Update,
    /// Overview: the attention queue.
    Attention,
    /// Overview: the machines in their turn.
    Working,
    /// A table view (and the Machines detail panel).
    View(View),
    /// Overview, while no update runs: the readiness checks.
    Readiness,
}

/// The kinds the phase and progress are computed from (`domain::phase`,
/// `domain::progress`), plus the LCMCluster for the release line and the
/// ClusterUpdatePlan (with its UpdateAutoPause) for the update plan line.
const UPDATE_KINDS: &[Kind] = &[
    Kind::LcmCluster,
    Kind::LcmMachine,
    Kind::ClusterMaintenanceRequest,
    Kind::NodeMaintenanceRequest,
    Kind::ClusterWorkloadLock,
    Kind::ClusterUpdatePlan,
    Kind::UpdateAutoPause,
];
/// The kinds `domain::attention` reads.
const ATTENTION_KINDS: &[Kind] = &[
    Kind::LcmMachine,
    Kind::LcmClusterState,
    Kind::Node,
    Kind::ClusterMaintenanceRequest,
    Kind::NodeMaintenanceRequest,
    Kind::ClusterWorkloadLock,
    Kind::NodeWorkloadLock,
    Kind::ClusterUpdatePlan,
    Kind::UpdateAutoPause,
    Kind::ProviderMachine,
    Kind::NodeDeletionRequest,
    Kind::NodeDisableNotification,
];
/// The kinds `domain::readiness` reads.
const READINESS_KINDS: &[Kind] = &[
    Kind::LcmCluster,
    Kind::Node,
    Kind::ClusterMaintenanceRequest,
    Kind::NodeMaintenanceRequest,
    Kind::ClusterWorkloadLock,
    Kind::NodeWorkloadLock,
    Kind::ClusterUpdatePlan,
    Kind::OpenstackDeploymentStatus,
    Kind::CephDeploymentHealth,
];
/// The kinds a machine row is joined from (`domain::join`).
const ROW_KINDS: &[Kind] = &[
    Kind::LcmMachine,
    Kind::LcmClusterState,
    Kind::Node,
    Kind::NodeMaintenanceRequest,
    Kind::NodeWorkloadLock,
    Kind::VrouterPod,
    Kind::VrouterDaemonSet,
];

impl Pane {
    pub fn kinds(self) -> &'static [Kind] {
        match self {
            Pane::Update => UPDATE_KINDS,
            Pane::Attention => ATTENTION_KINDS,
            Pane::Working | Pane::View(View::Machines) => ROW_KINDS,
            Pane::View(View::States) => &[Kind::LcmClusterState],
            Pane::View(View::Locks) => &[Kind::ClusterWorkloadLock, Kind::NodeWorkloadLock],
            Pane::View(View::Requests) => &[
                Kind::ClusterMaintenanceRequest,
                Kind::NodeMaintenanceRequest,
            ],
            Pane::View(View::Vrouter) => &[Kind::VrouterPod, Kind::VrouterDaemonSet, Kind::Node],
            Pane::View(View::Events) => &Kind::ALL,
            Pane::View(View::UpdatePlan) => &[Kind::ClusterUpdatePlan, Kind::UpdateAutoPause],
            // The modes and the checklist are the audit log's and the
            // operator's; the vRouter part reads these.
            Pane::View(View::Wrapup) => &[Kind::VrouterPod, Kind::VrouterDaemonSet, Kind::Node],
            Pane::View(View::Ready) | Pane::Readiness => READINESS_KINDS,
            // The log follower has its own status line; the Audit view is
            // this session's own records; the Overview's panes are above.
            Pane::View(View::Logs | View::Audit | View::Overview) => &[],
        }
    }
}

/// `(listed, total)` while some watch has not listed once yet.
pub fn loading(model: &Model) -> Option<(usize, usize)> {
    let total = Kind::ALL.len();
    let listed = Kind::ALL
        .iter()
        .filter(|k| model.freshness.get(k).is_some_and(|f| f.listed))
        .count();
    (listed < total).then_some((listed, total))
}

/// The kinds of `kinds` whose watch is unhealthy now (missing CRDs are
/// settled, not stale).
pub fn unhealthy(model: &Model, kinds: &[Kind]) -> Vec<Kind> {
    kinds
        .iter()
        .copied()
        .filter(|k| !model.missing_kinds.contains_key(k))
        .filter(|k| model.health.get(k).is_some_and(|h| !healthy(h)))
        .collect()
}

/// Whether any watch feeding `pane` is unhealthy: its derived claims are
/// then shown as stale.
pub fn is_stale(model: &Model, pane: Pane) -> bool {
    !unhealthy(model, pane.kinds()).is_empty()
}

/// Whether some kind `pane` reads has not listed once yet.
pub fn is_loading(model: &Model, pane: Pane) -> bool {
    pane.kinds()
        .iter()
        .any(|k| !model.freshness.get(k).is_some_and(|f| f.listed))
}

/// How each kind is seen, for the readiness checks: not served (its CRD
/// missing), refused (401/403 on its watch), listed, or not listed yet.
pub fn seen_kinds(model: &Model) -> BTreeMap<Kind, Seen> {
    Kind::ALL
        .iter()
        .map(|k| {
            let refused = model
                .health
                .get(k)
                .is_some_and(|h| !healthy(h) && h.problem == WatchProblem::Refused);
            let seen = if model.missing_kinds.contains_key(k) {
                Seen::NotServed
            } else if refused {
                Seen::Refused
            } else if model.freshness.get(k).is_some_and(|f| f.listed) {
                Seen::Listed
            } else {
                Seen::NotYet
            };
            (*k, seen)
        })
        .collect()
}
