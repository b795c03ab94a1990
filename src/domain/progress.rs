//! How far the update is, how long it has run and how long is left.
//!
//! The time left comes, in order of preference, from the update plan's
//! estimates of the steps left (corrected by what the finished steps took,
//! [`update_plan::estimate_factor`]); from the machines finished in this update,
//! scheduled by update group when the cluster has UpdateGroups
//! ([`super::update_groups`]); or from those machines and the concurrency
//! seen so far. Disabled machines are left out of every count (reference §5.3).

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};

use super::attention::{AttentionItem, AttentionKind};
use super::history::{FinishedMachine, History};
use super::join::MachineRow;
use super::objects::{Machine, MachineType, Snapshot};
use super::update_groups;
use super::update_plan;

/// Progress of the update (or the cluster's state when there is none).
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// A maintenance request exists.
    pub updating: bool,
    /// Machines done: during an update, those that returned to Ready in this
    /// update (or are Ready on the target release); otherwise those Ready.
    pub done: usize,
    /// Master and worker machines.
    pub total: usize,
    /// Since the update started (maintenance request created or first seen);
    /// for a finished update, its whole length.
    pub elapsed: Option<SignedDuration>,
    /// Time left, learned from the machines finished in this update; `None`
    /// until one has finished (or when there is no update).
    pub eta: Option<SignedDuration>,
    /// Machines finished in this update that the estimate is based on.
    pub samples: usize,
    /// What the ETA was computed from (`None` when there is no ETA).
    pub eta_source: Option<EtaSource>,
    /// Disabled machines, left out of `done`, `total` and the ETA.
    pub disabled: usize,
    /// Machines in their turn for longer than the finished machines of
    /// their type took on average: the ETA gives each as long again as it
    /// has overrun ([`Left::time_left`]), so it is never shorter than the
    /// delay they already show.
    pub overdue: usize,
    /// What the update waits on now (set from the attention queue): while
    /// blocked, the ETA is what is left *after* the wait, and the screen
    /// says so.
    pub blocked: Option<Blocked>,
}

/// The update waits on something a human must look at.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocked {
    /// The machine (or lock, or plan) it waits on.
    pub subject: String,
    pub kind: AttentionKind,
    pub since: Timestamp,
    /// `since` is a lower bound.
    pub at_least: bool,
    /// `since` is inferred ([`AttentionItem::since_inferred`]).
    pub inferred: bool,
}

/// The oldest attention item that holds the update back (a machine's
/// cause or its stall, a paused plan), if any. vRouter pods, malformed
/// objects, disabled machines and reminders do not hold it, nor invalid
/// migration settings: they hold a node only in its turn, where its lock,
/// active with no message, is named as held after the expected turn.
pub fn blocked(items: &[AttentionItem]) -> Option<Blocked> {
    items
        .iter()
        .filter(|i| holds_the_update(i.kind))
        .min_by_key(|i| i.since)
        .map(|i| Blocked {
            subject: i.subject.clone(),
            kind: i.kind,
            since: i.since,
            at_least: i.at_least,
            inferred: i.since_inferred.is_some(),
        })
}

/// The kinds of item that hold the update back (see [`blocked`]).
pub fn holds_the_update(kind: AttentionKind) -> bool {
    use AttentionKind::*;
    matches!(
        kind,
        AutoPaused
            | WaitingForCommence
            | ManualMigration
            | MigrationFailing
            | ServersLeft
            | NotifyOwners
            | LockFailed
            | RequestStuckDeleting
            | LockHeld
            | DrainError
            | OperationStuck
            | ClusterStateRetrying
            | Stall
    )
}

/// What an ETA was computed from, for the screen to say.
#[derive(Debug, Clone, PartialEq)]
pub enum EtaSource {
    /// The machines finished in this update and the concurrency seen so far.
    Machines,
    /// The machines finished in this update, scheduled by update group:
    /// `groups` groups have machines left.
    UpdateGroups { groups: usize },
    /// The update plan's estimates of the steps left, times `factor` (what
    /// the finished steps took over their estimates; 1.0 when none has both).
    UpdatePlan { factor: f64 },
}

impl Progress {
    /// done / total in 0.0..=1.0 (1.0 for an empty cluster).
    pub fn ratio(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.done as f64 / self.total as f64
        }
    }
}

fn counted(m: &Machine) -> bool {
    m.machine_type.is_updated()
}

/// Whether a machine counts as done in the update shown in a snapshot:
/// what the rule reads of the snapshot besides the machine, read once for
/// all the machines of a computation (read per machine, it was 2,000
/// searches of the snapshot a second).
pub struct Done<'a> {
    /// A ClusterMaintenanceRequest exists: an update runs.
    updating: bool,
    /// Each LCMCluster's namespace, name and target release.
    targets: Vec<(&'a str, &'a str, Option<&'a str>)>,
}

impl<'a> Done<'a> {
    pub fn of(snap: &'a Snapshot) -> Done<'a> {
        Done {
            updating: snap.cluster_requests().next().is_some(),
            targets: snap
                .lcm_clusters()
                .map(|c| {
                    (
                        c.namespace.as_str(),
                        c.name.as_str(),
                        c.target_release.as_deref(),
                    )
                })
                .collect(),
        }
    }

    /// `m` counts as done.
    pub fn done(&self, history: &History, m: &Machine) -> bool {
        if !m.state.is_ready() {
            return false;
        }
        if !self.updating {
            return true;
        }
        if history.is_done(&m.name) {
            return true;
        }
        // Started mid-update: a Ready machine on the release the cluster is
        // driven to was already updated [I: LCMMachine status.release names the
        // same release as LCMCluster spec.release].
        let target = self
            .targets
            .iter()
            .find(|(ns, name, _)| *name == m.cluster_name && *ns == m.namespace)
            .and_then(|(_, _, t)| *t);
        matches!((target, m.release.as_deref()), (Some(t), Some(r)) if t == r)
    }
}

/// Computes the progress at `now`, from the machines joined in `rows`
/// (`domain::join::machine_rows` of `snap`: each row carries its machine's
/// update group, whether it is disabled and in the control plane, so no
/// index of every provider Machine is built here each second).
/// `on_hold`: the machines an attention item says wait for a human (the
/// subjects of the items that [hold the update](holds_the_update)): the
/// screen shows their wait apart ("blocked …, then"), so the ETA counts
/// for them only what is left after it.
pub fn progress(
    snap: &Snapshot,
    history: &History,
    rows: &[MachineRow],
    now: Timestamp,
    on_hold: &[&str],
) -> Progress {
    let all: Vec<&MachineRow> = rows.iter().filter(|r| counted(&r.machine)).collect();
    let disabled = all.iter().filter(|r| r.disabled).count();
    let machines: Vec<&MachineRow> = all.into_iter().filter(|r| !r.disabled).collect();
    let total = machines.len();
    let cmr = snap.cluster_requests().min_by_key(|r| r.created);
    let updating = cmr.is_some();
    let rule = Done::of(snap);
    let done_flags: Vec<bool> = machines
        .iter()
        .map(|r| rule.done(history, &r.machine))
        .collect();
    let done = done_flags.iter().filter(|d| **d).count();
    let started = history
        .update_started()
        .or_else(|| cmr.and_then(|r| r.created));
    let elapsed = match (updating, started, history.update_finished()) {
        (true, Some(s), _) => Some(now.duration_since(s)),
        (false, Some(s), Some(f)) => Some(f.duration_since(s)),
        _ => None,
    };
    let finished: Vec<&FinishedMachine> = if updating {
        history.finished_this_update().collect()
    } else {
        Vec::new()
    };
    // The machines left and their turns are read only for the ETA and the
    // overdue count, which need a machine finished this update to measure
    // by: until one is (the start of an update, when the most objects
    // change), no lookup per machine is made. Hundreds of machines can wait
    // for a human then (their nodes' locks): looked up by hash, not by a
    // walk per machine.
    let left: Vec<Left> = if finished.is_empty() {
        Vec::new()
    } else {
        let on_hold: foldhash::HashSet<&str> = on_hold.iter().copied().collect();
        machines
            .iter()
            .zip(&done_flags)
            .filter(|(_, done)| !**done)
            .map(|(r, _)| Left {
                row: r,
                turn: history.turn_started(&r.machine.name),
                on_hold: on_hold.contains(r.machine.name.as_str()),
            })
            .collect()
    };
    let overdue = if finished.is_empty() {
        0
    } else {
        // The mean per type once, not per machine left: each is a pass
        // over every machine finished (hundreds by mid-update, times the
        // 2,000 left, every second).
        let mut means: Vec<(&MachineType, Option<SignedDuration>)> = Vec::new();
        left.iter()
            .filter(|l| {
                let ty = &l.row.machine.machine_type;
                let mean = match means.iter().find(|(t, _)| *t == ty) {
                    Some((_, m)) => *m,
                    None => {
                        let m = mean_for(&finished, ty);
                        means.push((ty, m));
                        m
                    }
                };
                mean.is_some_and(|m| l.overdue(m, now))
            })
            .count()
    };
    let (eta, eta_source) = match plan_eta(snap, now) {
        Some((eta, factor)) => (Some(eta), Some(EtaSource::UpdatePlan { factor })),
        None if finished.is_empty() => (None, None),
        None if snap.update_groups().next().is_some() => {
            let (eta, n) = eta_by_group(&finished, &left, now);
            (Some(eta), Some(EtaSource::UpdateGroups { groups: n }))
        }
        None => (
            Some(eta_by_type(history, &finished, &left, now)),
            Some(EtaSource::Machines),
        ),
    };
    Progress {
        updating,
        done,
        total,
        elapsed,
        eta,
        samples: finished.len(),
        eta_source,
        disabled,
        overdue,
        blocked: None,
    }
}

/// A machine not done yet, and when its turn started.
struct Left<'a> {
    row: &'a MachineRow,
    turn: Option<Timestamp>,
    /// It waits for a human ([`progress`]'s `on_hold`).
    on_hold: bool,
}

impl Left<'_> {
    /// Its time left, if a machine of its kind takes `mean`: the rest of
    /// the mean; past the mean, as long again as it has overrun (it waits
    /// on something its peers did not, and nothing says the wait is nearly
    /// over: an estimate of zero would be a claim that it is). [I] No
    /// source gives the remaining time of a late machine; this keeps the
    /// ETA at least as long as the delay already seen. A machine waiting
    /// for a human has its wait shown apart: only the rest of the mean, if
    /// any, is left after it.
    fn time_left(&self, mean: SignedDuration, now: Timestamp) -> SignedDuration {
        match self.turn {
            Some(t) => {
                let taken = now.duration_since(t);
                if taken > mean && !self.on_hold {
                    taken - mean
                } else {
                    (mean - taken).max(SignedDuration::ZERO)
                }
            }
            None => mean,
        }
    }

    /// In its turn for longer than `mean`, with no human wait to tell why.
    fn overdue(&self, mean: SignedDuration, now: Timestamp) -> bool {
        !self.on_hold && self.turn.is_some_and(|t| now.duration_since(t) > mean)
    }
}

/// The time left by the update plan's estimates, and the correction factor
/// applied: only while the plan is not done and every step left has an
/// estimate.
fn plan_eta(snap: &Snapshot, now: Timestamp) -> Option<(SignedDuration, f64)> {
    let p = update_plan::active_plan(snap, None)?;
    if update_plan::state(p, update_plan::auto_pause_for(snap, p)) == update_plan::PlanState::Done {
        return None;
    }
    Some((update_plan::eta(p, now)?, update_plan::estimate_factor(p)))
}

/// The mean machine duration of `ty`, else of any type.
fn mean_for(finished: &[&FinishedMachine], ty: &MachineType) -> Option<SignedDuration> {
    mean_duration(finished, Some(ty)).or(mean_duration(finished, None))
}

/// Without update groups: per machine type, the work left divided by the
/// most machines of that type seen updating at once.
fn eta_by_type(
    history: &History,
    finished: &[&FinishedMachine],
    left: &[Left],
    now: Timestamp,
) -> SignedDuration {
    let mut eta = SignedDuration::ZERO;
    for ty in [MachineType::Control, MachineType::Worker] {
        let Some(mean) = mean_for(finished, &ty) else {
            continue;
        };
        let work: SignedDuration = left
            .iter()
            .filter(|l| l.row.machine.machine_type == ty)
            .map(|l| l.time_left(mean, now))
            .sum();
        let conc = history.max_concurrency(&ty).max(1) as i32;
        eta += work / conc;
    }
    eta
}

/// With update groups: the control plane first, one machine at a time;
/// then the groups by index, groups of the same index together (the
/// longest of them counts), indexes one after another. Within a group, up
/// to its `concurrentUpdates` machines at once: `ceil(left / concurrency)`
/// machine durations when none has started. Returns the ETA and how many
/// groups have machines left. \[I\] Workers are taken to wait for the whole
/// control plane (`dedicatedControlPlane: false`); with a dedicated control
/// plane they start after the first master, so the ETA is then an upper
/// bound. `concurrentUpdates` is an upper bound too (per-role limits may
/// hold fewer at once, §3.4): the ETA may then be short.
fn eta_by_group(
    finished: &[&FinishedMachine],
    left: &[Left],
    now: Timestamp,
) -> (SignedDuration, usize) {
    // stage -> group name -> (lanes, machines running, machines waiting)
    type Jobs = (usize, Vec<SignedDuration>, Vec<SignedDuration>);
    let mut stages: BTreeMap<(u8, i64), BTreeMap<String, Jobs>> = BTreeMap::new();
    let control_mean = mean_for(finished, &MachineType::Control);
    let worker_mean = mean_for(finished, &MachineType::Worker);
    for l in left {
        let m = &l.row.machine;
        let mean = if m.machine_type == MachineType::Control {
            control_mean
        } else {
            worker_mean
        };
        let Some(mean) = mean else {
            continue;
        };
        let Some(group) = &l.row.update_group else {
            continue;
        };
        let control_plane = l.row.control_plane;
        // The control plane goes one by one [C: D-ORDER], whatever its group.
        let lanes = if control_plane { 1 } else { group.lanes() };
        let name = if control_plane {
            String::new()
        } else {
            group.name.clone()
        };
        let jobs = stages
            .entry(update_groups::stage(control_plane, group.index))
            .or_default()
            .entry(name)
            .or_insert_with(|| (lanes, Vec::new(), Vec::new()));
        let t = l.time_left(mean, now);
        if l.turn.is_some() {
            jobs.1.push(t);
        } else {
            jobs.2.push(t);
        }
    }
    let mut eta = SignedDuration::ZERO;
    let mut n = 0;
    for by_group in stages.values() {
        n += by_group.len();
        eta += by_group
            .values()
            .map(|(lanes, running, waiting)| {
                let mut jobs = running.clone();
                jobs.extend(waiting);
                update_groups::makespan(&jobs, *lanes)
            })
            .max()
            .unwrap_or(SignedDuration::ZERO);
    }
    (eta, n)
}

/// What the ETA was computed from, for the screen: `from 4 machines`,
/// `from 4 machines, by group`, `plan estimates x1.3` (short: it shares an 80-column line).
pub fn eta_basis(p: &Progress) -> String {
    let machines = format!(
        "from {} machine{}",
        p.samples,
        if p.samples == 1 { "" } else { "s" }
    );
    let overdue = match p.overdue {
        0 => String::new(),
        n => format!(", {n} overdue"),
    };
    match &p.eta_source {
        None | Some(EtaSource::Machines) => format!("{machines}{overdue}"),
        Some(EtaSource::UpdateGroups { .. }) => format!("{machines}, by group{overdue}"),
        Some(EtaSource::UpdatePlan { factor }) if (factor - 1.0).abs() < 0.05 => {
            "plan estimates".to_string()
        }
        Some(EtaSource::UpdatePlan { factor }) => format!("plan estimates x{factor:.1}"),
    }
}

/// The mean duration of the finished machines of `ty` (all types for
/// `None`), from complete observations when there are any.
fn mean_duration(
    finished: &[&FinishedMachine],
    ty: Option<&MachineType>,
) -> Option<SignedDuration> {
    let of_type: Vec<&&FinishedMachine> = finished
        .iter()
        .filter(|f| ty.is_none_or(|t| f.machine_type == *t))
        .collect();
    let complete: Vec<&&FinishedMachine> = of_type.iter().copied().filter(|f| f.complete).collect();
    let use_ = if complete.is_empty() {
        of_type
    } else {
        complete
    };
    if use_.is_empty() {
        return None;
    }
    let sum: SignedDuration = use_.iter().map(|f| f.duration()).sum();
    Some(sum / use_.len() as i32)
}

/// A compact duration for the screen: `45s`, `12m`, `2h05m`, `3d04h`.
pub fn human_duration(d: SignedDuration) -> String {
    let neg = d.is_negative();
    let s = d.as_secs().unsigned_abs();
    let body = if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m", s / 60)
    } else if s < 86_400 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else {
        format!("{}d{:02}h", s / 86_400, (s % 86_400) / 3600)
    };
    if neg { format!("-{body}") } else { body }
}

#[cfg(test)]
mod tests;
