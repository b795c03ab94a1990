//! The guidance of the update guide (seed 000, "Update a MOSK cluster"),
//! as short reminders shown once where they apply: in the
//! attention queue while the update runs ([`Reminder::due`] via
//! `attention`), or as a line of the migration-mode dialog
//! ([`for_migration_dialog`]). Each can be dismissed for the session (the
//! model keeps the dismissed ones).

use jiff::{SignedDuration, Timestamp};

use super::history::History;
use super::objects::{MigrationMode, Node, Snapshot};
use super::phase::{self, Phase};
use super::update_plan::{self, PlanState};

/// How long a cluster may stay half-updated before the guide warns of
/// workload corruption (seed 000: "longer than one day").
pub const HALF_UPDATED_AFTER: SignedDuration = SignedDuration::from_hours(24);

/// A reminder the console gives once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reminder {
    /// Seed 000 ("Can be paused"): "MOSK clusters are not designed to run in
    /// a semi-updated state for a long time … Postponing update phases for
    /// longer than one day may introduce a risk of the cloud workload
    /// corruption."
    HalfUpdated,
    /// Seed 000: "During the update, prevent users from performing write
    /// operations on the cloud resources. Any intensive manipulations may
    /// lead to workload corruption."
    WriteFreeze,
    /// Seed 000, Step 3 "Silence alerts": numerous alerts are expected during
    /// the update; ignore or temporarily mute them.
    SilenceAlerts,
    /// Seed 000, after the update, step 6: "If necessary, expire alert
    /// silences in StackLight".
    ExpireSilences,
    /// Seed 000, Step 2 and reference `mosk-lcm-api.md` §4 (Rockoon migrates
    /// instances only on compute nodes [C-code]): on a node without the
    /// compute role the mode does not hold the node \[I\]. (The guide still
    /// suggests `manual` on a controller with a gateway, to shut virtual
    /// routers down by hand.)
    ManualWithoutCompute,
    /// Seed 000, Step 2 (`skip`): with converged LVM over iSCSI block storage
    /// a change to a compute also hits instances attached to its LVM
    /// devices; `manual` mode is recommended.
    LvmIscsiManual,
}

impl Reminder {
    pub const ALL: [Reminder; 6] = [
        Reminder::HalfUpdated,
        Reminder::WriteFreeze,
        Reminder::SilenceAlerts,
        Reminder::ExpireSilences,
        Reminder::ManualWithoutCompute,
        Reminder::LvmIscsiManual,
    ];

    /// The short name shown as the item's subject.
    pub fn name(self) -> &'static str {
        match self {
            Reminder::HalfUpdated => "half-updated",
            Reminder::WriteFreeze => "write freeze",
            Reminder::SilenceAlerts => "silence alerts",
            Reminder::ExpireSilences => "expire silences",
            Reminder::ManualWithoutCompute => "manual mode",
            Reminder::LvmIscsiManual => "LVM over iSCSI",
        }
    }

    /// The reminder's one sentence (the half-updated one is built with its
    /// age by the attention queue).
    pub fn text(self) -> &'static str {
        match self {
            Reminder::HalfUpdated => {
                "a MOSK cluster should not stay half-updated for more than a day: the update guide warns of cloud workload corruption; finish the update"
            }
            Reminder::WriteFreeze => {
                "while the update runs, cloud users should make no writes to cloud resources (heavy changes may corrupt workloads)"
            }
            Reminder::SilenceAlerts => {
                "the update raises many expected StackLight alerts: silence them for the update"
            }
            Reminder::ExpireSilences => {
                "the update is over: expire the StackLight alert silences set for it"
            }
            Reminder::ManualWithoutCompute => {
                "manual has no effect here: instances are migrated only on nodes with the compute role"
            }
            Reminder::LvmIscsiManual => {
                "with LVM-over-iSCSI volumes, manual is recommended: an update of a compute also cuts the volumes it serves to other nodes' instances"
            }
        }
    }
}

/// The update as the reminders see it: running since when, or over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateStage {
    /// No update: nothing to remind.
    None,
    /// An update plan waits for its first step: the update is about to start.
    AboutToStart,
    /// Running since (when known).
    Running(Option<Timestamp>),
    /// The update finished at.
    Over(Option<Timestamp>),
}

/// Where the update stands, from the maintenance request, the history and
/// the update plan.
pub fn stage(snap: &Snapshot, history: &History) -> UpdateStage {
    let request = snap.cluster_requests().next();
    let plan = update_plan::active_plan(snap, None);
    let plan_state = plan.map(|p| update_plan::state(p, update_plan::auto_pause_for(snap, p)));
    let plan_started = plan.and_then(|p| p.steps.iter().filter_map(|s| s.started_at).min());
    if let Some(r) = request {
        let since = [r.created, history.update_started(), plan_started]
            .into_iter()
            .flatten()
            .min();
        return UpdateStage::Running(since);
    }
    match plan_state {
        Some(PlanState::NotStarted) => return UpdateStage::AboutToStart,
        Some(PlanState::Done) => return UpdateStage::Over(history.update_finished()),
        Some(_) => return UpdateStage::Running(plan_started.or(history.update_started())),
        None => {}
    }
    match history.update_finished() {
        Some(t) => UpdateStage::Over(Some(t)),
        None => UpdateStage::None,
    }
}

/// The queue's reminders due now, with since when.
pub fn due(snap: &Snapshot, history: &History, now: Timestamp) -> Vec<(Reminder, Timestamp)> {
    due_in_phase(snap, history, now, None)
}

/// [`due`], given the phase of the same snapshot and history when the
/// caller has it (it walks every machine: the settling computes it once).
pub fn due_in_phase(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    known: Option<Phase>,
) -> Vec<(Reminder, Timestamp)> {
    match stage(snap, history) {
        UpdateStage::None => Vec::new(),
        UpdateStage::AboutToStart => vec![(Reminder::SilenceAlerts, now)],
        UpdateStage::Running(since) => {
            let start = since.unwrap_or(now);
            let mut v = vec![(Reminder::WriteFreeze, start)];
            // "At the start": until the machines' turn comes.
            let phase = known.unwrap_or_else(|| phase::phase(snap, history).phase);
            if phase <= Phase::ClusterLocks {
                v.push((Reminder::SilenceAlerts, start));
            }
            if let Some(s) = since
                && now.duration_since(s) > HALF_UPDATED_AFTER
            {
                v.push((
                    Reminder::HalfUpdated,
                    s.checked_add(HALF_UPDATED_AFTER).unwrap_or(s),
                ));
            }
            v
        }
        UpdateStage::Over(at) => vec![(Reminder::ExpireSilences, at.unwrap_or(now))],
    }
}

/// Whether a node has the compute role (`openstack-compute-node: enabled`).
pub fn is_compute(node: &Node) -> bool {
    node.labels
        .get("openstack-compute-node")
        .is_some_and(|v| v == "enabled")
}

/// The reminders the migration-mode dialog shows for these nodes and the
/// mode chosen: `manual` chosen for a node without the compute role (it has
/// no effect there); another mode chosen for a compute (with LVM over
/// iSCSI, `manual` is recommended). Nodes not in the snapshot count as
/// neither.
pub fn for_migration_dialog(
    snap: &Snapshot,
    nodes: &[String],
    chosen: &MigrationMode,
) -> Vec<Reminder> {
    let known: Vec<&Node> = nodes
        .iter()
        .filter_map(|n| snap.nodes().find(|x| &x.name == n))
        .collect();
    let manual = *chosen == MigrationMode::Manual;
    let mut v = Vec::new();
    if manual && known.iter().any(|n| !is_compute(n)) {
        v.push(Reminder::ManualWithoutCompute);
    }
    if !manual && known.iter().any(|n| is_compute(n)) {
        v.push(Reminder::LvmIscsiManual);
    }
    v
}
