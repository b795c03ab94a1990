//! What the screen shows that is computed from the snapshot and the clock:
//! [`Derived`], brought up to date by [`settle`] at the end of every batch of
//! messages `update` applies — never by the runtime, never while drawing.
//!
//! Two parts, each recomputed only when what it reads moved:
//! - the **joined** part (machine rows, phase) reads only the snapshot and
//!   its history: recomputed when the snapshot's generation moved, and then
//!   only for the machines the changes reach when they can be placed
//!   ([`crate::domain::join::incremental`]); a tick leaves it alone;
//! - the **timed** part (attention queue, progress and ETA) also reads the
//!   clock: recomputed when the data or the clock moved, or a reminder was
//!   dismissed.

mod settle;

pub use settle::settle;

use std::collections::{BTreeMap, BTreeSet};

use jiff::{SignedDuration, Timestamp};

use crate::app::tables::cache::ViewTable;
use crate::app::views::view::View;
use crate::domain::attention::{AttentionItem, Waits, queue_in_phase};
use crate::domain::expected::Expected;
use crate::domain::history::History;
use crate::domain::join::incremental::{Reach, rejoin};
use crate::domain::join::{MachineRow, machine_rows};
use crate::domain::objects::{Kind, KindsSeen, Snapshot};
use crate::domain::phase::{PhaseInfo, phase};
use crate::domain::progress::{Progress, blocked, holds_the_update, progress};
use crate::domain::readiness::{Check, Seen};
use crate::domain::reminders::Reminder;
use crate::domain::update_plan::PlanState;
use crate::domain::vrouter::{DaemonSetStatus, RestartPolicy};
use crate::domain::which_cluster::{MoskContextCheck, check_mosk_context};

/// Computed from the snapshot, its history and the clock by [`settle`].
#[derive(Debug, Clone, Default)]
pub struct Derived {
    /// The machine rows joined across both clusters.
    pub rows: Vec<MachineRow>,
    /// `None` while the followed cluster's LCMCluster is not seen or the
    /// MOSK context is another cluster's: no phase is claimed from the MOSK
    /// cluster's objects alone.
    pub phase: Option<PhaseInfo>,
    /// Whether the MOSK context is the followed cluster's (its Nodes against
    /// the LCMMachines' nodes); a mismatch refuses every write.
    pub mosk_context: MoskContextCheck,
    /// Items waiting for a human, oldest first.
    pub attention: Vec<AttentionItem>,
    /// `None` when the phase is (no progress without the cluster's objects).
    pub progress: Option<Progress>,
    /// The model time the timed part was computed at.
    pub at: Option<Timestamp>,
    /// The model time the attention queue was computed at (at most
    /// [`ATTENTION_EVERY`] before `at` while nothing changes).
    pub attention_at: Option<Timestamp>,
    /// The typed rows of each table view shown, filtered and sorted
    /// ([`crate::app::tables::settle`]).
    pub tables: BTreeMap<View, ViewTable>,
    /// The vRouter DaemonSets and the restart policy, while the vRouter view
    /// is shown (a walk of every pod: not done for views that do not show it).
    pub vrouter: Option<VrouterSummary>,
    /// Where the session's update plan stands, derived once per change
    /// (the Overview's line, the Update plan view, the hints read it).
    pub plan: Option<PlanSummary>,
    /// The readiness checks, while the Readiness view is shown or the
    /// Overview while no update runs (they walk every node and lock).
    pub readiness: Option<ReadinessSummary>,
    /// The snapshot generation the joined part was computed from.
    generation: Option<u64>,
    /// The reminders dismissed when the timed part was computed.
    dismissed: BTreeSet<Reminder>,
    /// The snapshot generation the attention queue was computed from.
    attention_of: Option<u64>,
    /// The queue's items across its computations: identity, first
    /// evidence, items held through a message gap.
    waits: Waits,
    /// The kinds the phase reads, as it last read them.
    phase_read: KindsSeen,
}

/// The kinds [`phase`] does not read: a change to any other kind computes
/// it again, so a kind added later is read until it is listed here. It
/// reads LCMMachines, LCMClusters, LCMClusterStates, the maintenance
/// requests, the cluster locks, the update plans and their auto-pauses;
/// of the history, what changes only with those (the machines seen done,
/// with the LCMMachines; the update's start and end, with the
/// ClusterMaintenanceRequest). `derived_settle` in the tests compares the
/// kept phase with a fresh one after random changes of every kind.
const PHASE_IGNORES: &[Kind] = &[
    Kind::NodeWorkloadLock,
    Kind::Node,
    Kind::VrouterPod,
    Kind::VrouterDaemonSet,
    Kind::ProviderMachine,
    Kind::UpdateGroup,
    Kind::NodeDeletionRequest,
    Kind::NodeDisableNotification,
    Kind::OpenstackDeploymentStatus,
    Kind::CephDeploymentHealth,
];

/// How often the attention queue is computed again while the clusters,
/// the history and the dismissed reminders stay the same: a walk of every
/// object (~10 ms with 2,000 machines) each second was most of the idle
/// console's CPU. Its items keep their start times and their ages are
/// drawn live; only an item that a clock threshold raises (a stall, a lock
/// held past its expected time, a reminder coming due) can show up this
/// much later. Any change to the clusters computes it at once.
pub const ATTENTION_EVERY: SignedDuration = SignedDuration::from_secs(5);

impl Derived {
    /// Whether the phase is idle: no update runs, and readiness is shown
    /// on the Overview. No phase claimed (the cluster not seen, another
    /// cluster's MOSK context) is not idle.
    pub fn no_update_runs(&self) -> bool {
        self.phase
            .as_ref()
            .is_some_and(|p| p.phase == crate::domain::phase::Phase::Idle)
    }

    /// Everything computed at once, with no reminder dismissed (for benches
    /// and tests of the computation itself; the model uses [`settle`]).
    pub fn compute(snapshot: &Snapshot, history: &History, now: Timestamp) -> Derived {
        let mut d = Derived::default();
        d.join(snapshot, history, &[]);
        d.time(
            snapshot,
            history,
            now,
            &BTreeSet::new(),
            &Expected::default(),
        );
        d
    }

    fn join(&mut self, snapshot: &Snapshot, history: &History, reaches: &[Reach]) {
        if reaches.is_empty() || !rejoin(&mut self.rows, snapshot, reaches) {
            tracing::debug!(reaches = reaches.len(), "whole join");
            self.rows = machine_rows(snapshot);
        }
        self.mosk_context = check_mosk_context(snapshot);
        // The snapshot holds only the followed cluster's LCMCluster: without
        // it (or with another cluster's MOSK side) the request, the locks and
        // the nodes would be read as this cluster's update.
        let seen = snapshot.lcm_clusters().next().is_some();
        if !seen || self.mosk_context.is_mismatch() {
            self.phase = None;
        } else if self.phase.is_none()
            || self.phase_read.moved(
                snapshot,
                Kind::ALL.into_iter().filter(|k| !PHASE_IGNORES.contains(k)),
            )
        {
            // A walk of every machine: not again for changes to the kinds
            // it does not read (most changes at the start of an update are
            // node locks, pods and nodes).
            self.phase = Some(phase(snapshot, history));
        }
        self.generation = Some(snapshot.generation());
    }

    fn time(
        &mut self,
        snapshot: &Snapshot,
        history: &History,
        now: Timestamp,
        dismissed: &BTreeSet<Reminder>,
        expected: &Expected,
    ) {
        let due = self.attention_at.is_none_or(|at| {
            let since = now.duration_since(at);
            since >= ATTENTION_EVERY || since.is_negative()
        });
        if due || self.generation != self.attention_of || *dismissed != self.dismissed {
            // The phase was computed from this snapshot and history by the
            // join (the history changes only with the snapshot).
            let phase = self.phase.as_ref().map(|p| p.phase);
            let fresh = queue_in_phase(snapshot, history, now, dismissed, expected, phase);
            self.attention = self.waits.carry(fresh, snapshot, now);
            self.attention_at = Some(now);
            self.attention_of = self.generation;
        }
        self.progress = self.phase.is_some().then(|| {
            let on_hold: Vec<&str> = self
                .attention
                .iter()
                .filter(|i| holds_the_update(i.kind))
                .map(|i| i.subject.as_str())
                .collect();
            let mut p = progress(snapshot, history, &self.rows, now, &on_hold);
            p.blocked = blocked(&self.attention);
            p
        });
        self.at = Some(now);
        self.dismissed.clone_from(dismissed);
    }
}

/// The session's update plan: its state and the step commence would let run.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanSummary {
    /// The plan's state, with the cluster's UpdateAutoPause.
    pub state: PlanState,
    /// The index of the first step not yet commenced, if any.
    pub next_to_commence: Option<usize>,
}

/// The readiness checks, with what they were computed from.
#[derive(Debug, Clone)]
pub struct ReadinessSummary {
    pub checks: Vec<Check>,
    generation: u64,
    seen: BTreeMap<Kind, Seen>,
    /// When the checks were made: a report's age moves with the clock.
    at: Timestamp,
}

/// What the vRouter view's summary shows, with the snapshot generation it
/// was computed from.
#[derive(Debug, Clone)]
pub struct VrouterSummary {
    pub daemonsets: Vec<DaemonSetStatus>,
    pub policy: RestartPolicy,
    generation: u64,
}

/// The changes `update` applied since the last [`settle`]: the rows they
/// reach, and the snapshot generations before and after them.
#[derive(Debug, Clone, Default)]
pub struct Pending {
    from: Option<u64>,
    to: u64,
    reaches: Vec<Reach>,
}

impl Pending {
    /// Records one change about to be made to `snapshot`, reaching `reach`.
    pub fn before(&mut self, snapshot: &Snapshot) {
        if self.from.is_none() {
            self.from = Some(snapshot.generation());
        }
    }
    /// The change is made: what it reaches, and the generation it left.
    pub fn after(&mut self, snapshot: &Snapshot, reaches: impl IntoIterator<Item = Reach>) {
        self.reaches.extend(reaches);
        self.to = snapshot.generation();
    }
}
