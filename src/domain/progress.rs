//! How far the update is, how long it has run and how long is left.

use jiff::{SignedDuration, Timestamp};

use super::history::{FinishedMachine, History, READY};
use super::objects::{Machine, MachineType, Snapshot};

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
    matches!(m.machine_type, MachineType::Control | MachineType::Worker)
}

/// A machine counts as done in the update shown in `snap`.
pub fn machine_done(snap: &Snapshot, history: &History, m: &Machine) -> bool {
    if m.state != READY {
        return false;
    }
    if snap.cluster_requests().next().is_none() {
        return true;
    }
    if history.is_done(&m.name) {
        return true;
    }
    // Started mid-update: a Ready machine on the release the cluster is
    // driven to was already updated [I: LCMMachine status.release names the
    // same release as LCMCluster spec.release].
    let target = snap
        .lcm_clusters()
        .find(|c| c.name == m.cluster_name && c.namespace == m.namespace)
        .and_then(|c| c.target_release.as_deref());
    matches!((target, m.release.as_deref()), (Some(t), Some(r)) if t == r)
}

/// Computes the progress at `now`.
pub fn progress(snap: &Snapshot, history: &History, now: Timestamp) -> Progress {
    let machines: Vec<&Machine> = snap.machines().filter(|m| counted(m)).collect();
    let total = machines.len();
    let cmr = snap.cluster_requests().min_by_key(|r| r.created);
    let updating = cmr.is_some();
    let done_flags: Vec<bool> = machines
        .iter()
        .map(|m| machine_done(snap, history, m))
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
    let eta = if finished.is_empty() {
        None
    } else {
        let mut eta = SignedDuration::ZERO;
        for ty in [MachineType::Control, MachineType::Worker] {
            let Some(mean) = mean_duration(&finished, Some(ty)).or(mean_duration(&finished, None))
            else {
                continue;
            };
            let mut work = SignedDuration::ZERO;
            for (m, done) in machines.iter().zip(&done_flags) {
                if *done || m.machine_type != ty {
                    continue;
                }
                let left = match history.turn_started(&m.name) {
                    Some(t) => (mean - now.duration_since(t)).max(SignedDuration::ZERO),
                    None => mean,
                };
                work += left;
            }
            let conc = history.max_concurrency(ty).max(1) as i32;
            eta += work / conc;
        }
        Some(eta)
    };
    Progress {
        updating,
        done,
        total,
        elapsed,
        eta,
        samples: finished.len(),
    }
}

/// The mean duration of the finished machines of `ty` (all types for
/// `None`), from complete observations when there are any.
fn mean_duration(finished: &[&FinishedMachine], ty: Option<MachineType>) -> Option<SignedDuration> {
    let of_type: Vec<&&FinishedMachine> = finished
        .iter()
        .filter(|f| ty.is_none_or(|t| f.machine_type == t))
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
mod tests {
    use super::*;
    use crate::domain::fixtures::{self, names::*};
    use crate::domain::objects::Object;

    #[test]
    fn idle_cluster_is_all_done_without_eta() {
        let p = progress(&fixtures::idle(), &History::new(), fixtures::at("10:00"));
        assert!(!p.updating);
        assert_eq!((p.done, p.total), (7, 7));
        assert_eq!(p.eta, None);
        assert_eq!(p.elapsed, None);
        assert_eq!(p.ratio(), 1.0);
    }

    #[test]
    fn mid_update_without_history_uses_release() {
        // Started at 10:30 with no history: masters and worker-1 are Ready on
        // the target release, so done; no machine finished under our eyes: no ETA.
        let now = fixtures::mid_update_now();
        let p = progress(&fixtures::mid_update(), &History::new(), now);
        assert!(p.updating);
        assert_eq!((p.done, p.total), (4, 7));
        assert_eq!(p.eta, None);
        // Elapsed from the request's creation time (08:05).
        assert_eq!(p.elapsed, Some(SignedDuration::from_mins(145)));
    }

    #[test]
    fn ready_on_old_release_is_not_done_during_update() {
        let mut snap = fixtures::mid_update();
        let mut m = fixtures::machine(
            WORKER_4,
            crate::domain::objects::MachineType::Worker,
            "Ready",
            Some(NODE_W4),
            Some(6),
        );
        m.release = Some(CURRENT_RELEASE.into());
        snap.apply(Object::Machine(m));
        let p = progress(&snap, &History::new(), fixtures::mid_update_now());
        assert_eq!(p.done, 4);
    }

    #[test]
    fn eta_from_the_scenario() {
        let sc = fixtures::mid_update_scenario();
        let now = fixtures::mid_update_now();
        let p = progress(&sc.snap, &sc.history, now);
        assert_eq!((p.done, p.total), (4, 7));
        assert_eq!(p.samples, 4);
        // Workers: worker-1 took 25m (09:25 -> 09:50). Worker-2 (turn since
        // 09:51) and worker-3 (since 10:00) are past 25m: 0 left each;
        // worker-4 has 25m left. Two workers ran at once: 25m / 2.
        assert_eq!(p.eta, Some(SignedDuration::from_secs(12 * 60 + 30)));
        assert_eq!(p.elapsed, Some(SignedDuration::from_mins(145)));
    }

    #[test]
    fn human_durations() {
        assert_eq!(human_duration(SignedDuration::from_secs(45)), "45s");
        assert_eq!(human_duration(SignedDuration::from_mins(12)), "12m");
        assert_eq!(human_duration(SignedDuration::from_mins(125)), "2h05m");
        assert_eq!(human_duration(SignedDuration::from_hours(76)), "3d04h");
        assert_eq!(human_duration(SignedDuration::from_secs(-90)), "-1m");
    }
}
