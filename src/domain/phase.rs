//! Which phase of the update flow (seed 001, reference §9.1) the cluster is
//! in, inferred from the objects. The inference is ours \[I\]: no object says
//! the phase; the checks follow the documented flow:
//!
//! 1. the operator triggers the update (LCMCluster `spec.release` changes);
//!    LCM creates the ClusterMaintenanceRequest;
//! 2. with the request present, OpenStack updates while its ClusterWorkloadLock
//!    is active, then Ceph, and every other controller's cluster lock
//!    (`tungstenfabric`, …) must go `inactive` before LCM touches a machine;
//! 3. masters, one at a time; 4. workers; 5. finalization, until LCM removes
//!    the request.
//!
//! A phase is shown only when the objects (or the [`History`]) prove the flow
//! has reached it: machines waiting in Prepare are not evidence that their
//! turn came, and "every machine Ready" is phase 5 only when each machine was
//! seen updated (returned to Ready during this update, or Ready on the target
//! release).
//!
//! With a ClusterUpdatePlan present, its current step is shown beside the
//! phase and drives it (`phase/update_plan.rs`): a plan not started keeps the
//! phase at idle, a plan paused before a step keeps it at the phase of the
//! steps done, and a running step caps the phase at the one the step covers.

use super::history::History;
use super::objects::{
    ClusterStateType, Controller, LockState, Machine, MachineType, Snapshot, WorkloadLock,
    short_node,
};

/// The update phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// No maintenance request and no update seen.
    Idle,
    /// 1: the update was triggered (LCMCluster release changed); the
    /// maintenance request does not exist yet.
    Triggered,
    /// 2: the maintenance request exists; OpenStack, then Ceph (then every
    /// other controller) update and release their cluster locks.
    ClusterLocks,
    /// 3: every cluster lock is inactive; Kubernetes master nodes, one at a time.
    Masters,
    /// 4: every master is done (or a worker's turn has come); worker nodes.
    Workers,
    /// 5: every machine was seen updated; the maintenance request is still there.
    Finalization,
    /// The maintenance request was removed after the console saw it.
    Done,
}

impl Phase {
    /// 1–5 for the phases of the flow; `None` for idle and done.
    pub fn number(self) -> Option<u8> {
        match self {
            Phase::Idle | Phase::Done => None,
            Phase::Triggered => Some(1),
            Phase::ClusterLocks => Some(2),
            Phase::Masters => Some(3),
            Phase::Workers => Some(4),
            Phase::Finalization => Some(5),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Triggered => "update triggered",
            Phase::ClusterLocks => "OpenStack and Ceph",
            Phase::Masters => "master nodes",
            Phase::Workers => "worker nodes",
            Phase::Finalization => "finalization",
            Phase::Done => "done",
        }
    }
}

/// The phase, with the one-line reason it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseInfo {
    pub phase: Phase,
    pub reason: String,
    /// With an update plan: where it stands, e.g. `step 4/4 "k8s-workers"
    /// running` or `paused before step 3/4 "k8s-controllers"`. The reason
    /// starts with the same words.
    pub step: Option<String>,
}

impl PhaseInfo {
    pub fn number(&self) -> Option<u8> {
        self.phase.number()
    }
    pub fn name(&self) -> &'static str {
        self.phase.name()
    }
}

fn info(phase: Phase, reason: impl Into<String>) -> PhaseInfo {
    PhaseInfo {
        phase,
        reason: reason.into(),
        step: None,
    }
}

/// Where one master or worker stands in this update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// Its turn has come: a NodeMaintenanceRequest names its node, or it is in
    /// an active state (Deploy, Reboot, Upgrade, Reconfigure). A master
    /// without collocated roles gets no request (seed 001, phase 3).
    InTurn,
    /// Seen updated: it returned to Ready during this update, or it is Ready
    /// on the release the cluster is driven to.
    Updated,
    /// Nothing shows its turn came: Ready on the old release, or Prepare
    /// (downloading, waiting for its turn \[I\]) without a request.
    Waiting,
}

/// The release the cluster is driven to, when it differs from the one it
/// runs: LCMCluster `spec.release` vs `status.release`. A machine Ready on
/// it was updated \[I: LCMMachine `status.release` names the same release
/// as LCMCluster `spec.release`\]. When both are equal (or unknown) the
/// releases prove nothing and only the History counts.
fn target_release<'a>(snap: &'a Snapshot, machines: &[&Machine]) -> Option<&'a str> {
    let mut clusters = snap.lcm_clusters();
    let cluster = match machines.first() {
        Some(m) => snap
            .lcm_clusters()
            .find(|c| c.name == m.cluster_name && c.namespace == m.namespace)
            .or_else(|| clusters.next()),
        None => clusters.next(),
    }?;
    match (&cluster.target_release, &cluster.current_release) {
        (Some(t), Some(c)) if t != c => Some(t.as_str()),
        _ => None,
    }
}

/// Infers the phase from the objects, the history and, when there is one,
/// the update plan.
pub fn phase(snap: &Snapshot, history: &History) -> PhaseInfo {
    let objects = from_objects(snap, history);
    match super::update_plan::active_plan(snap, None) {
        Some(plan) => from_plan::drive(snap, plan, objects),
        None => objects,
    }
}

/// The phase from the evidence of the objects alone.
fn from_objects(snap: &Snapshot, history: &History) -> PhaseInfo {
    let machines: Vec<&Machine> = snap
        .machines()
        .filter(|m| m.machine_type.is_updated())
        .collect();
    let target = target_release(snap, &machines);
    if snap.cluster_requests().next().is_none() {
        return without_request(snap, history, &machines, target);
    }
    // LCM deletes the request to end the update, and each controller takes
    // its cluster lock back when it sees the deletion: Rockoon's
    // `cluster_maintenance_request_delete_handler` sets its
    // ClusterWorkloadLock active (rockoon/controllers/maintenance.py, at
    // 1390883a) while the request is still Terminating under its finalizer.
    // Those locks are not phase 2 coming back (`blocking` ignores a
    // request being deleted too).
    let ending = snap.cluster_requests().all(|r| r.deleting);
    let held: Vec<&WorkloadLock> = snap
        .cluster_locks()
        .filter(|l| l.state != LockState::Inactive && !ending)
        .collect();
    // Looked up once per machine: walking every request for every machine
    // cost 12 ms a frame at 2,000 machines.
    let requested = super::join::requested_nodes(snap);
    let under_request = |m: &Machine| {
        m.hostname
            .as_deref()
            .is_some_and(|h| requested.contains(short_node(h)))
    };
    // LCM draining a master (a pending cordon-drain or swarm-drain state for
    // it) is its turn too: a master without workload roles has no workload
    // lock to hold it and may have no request the console can see [I].
    let draining: std::collections::HashSet<&str> = snap
        .cluster_states()
        .filter(|s| {
            matches!(
                s.state_type,
                ClusterStateType::CordonDrain | ClusterStateType::SwarmDrain
            ) && super::join::pending(s)
        })
        .filter_map(|s| s.arg.as_deref())
        .collect();
    let turn = |m: &Machine| -> Standing {
        let drained_now = m.machine_type == MachineType::Control
            && draining.contains(m.name.as_str())
            && !history.is_done(&m.name);
        if under_request(m) || m.state.is_active() || drained_now {
            Standing::InTurn
        } else if m.state.is_ready()
            && (history.is_done(&m.name) || target.is_some_and(|t| m.release.as_deref() == Some(t)))
        {
            Standing::Updated
        } else {
            Standing::Waiting
        }
    };
    // Each machine's standing, once.
    let standings: Vec<(&Machine, Standing)> = machines.iter().map(|&m| (m, turn(m))).collect();
    let of = |ty: MachineType, want: Standing| -> Vec<&Machine> {
        standings
            .iter()
            .filter(|(m, st)| m.machine_type == ty && *st == want)
            .map(|(m, _)| *m)
            .collect()
    };
    let masters_in_turn = of(MachineType::Control, Standing::InTurn);
    let masters_waiting = of(MachineType::Control, Standing::Waiting);
    let workers_in_turn = of(MachineType::Worker, Standing::InTurn);
    let workers_waiting = of(MachineType::Worker, Standing::Waiting);
    let workers_updated = of(MachineType::Worker, Standing::Updated);
    let workers_moved = !workers_in_turn.is_empty() || !workers_updated.is_empty();
    let machines_moved = workers_moved
        || standings
            .iter()
            .any(|(m, st)| m.machine_type == MachineType::Control && *st != Standing::Waiting);

    // Phase 2: LCM touches no machine while any cluster lock is held.
    if !held.is_empty() {
        let mut reason = held_reason(snap, &held);
        if machines_moved {
            reason.push_str("; yet machines are being updated");
        }
        return info(Phase::ClusterLocks, reason);
    }
    if ending && !machines_moved {
        return info(
            Phase::ClusterLocks,
            "the maintenance request is being deleted and no machine was updated",
        );
    }
    if snap.cluster_locks().next().is_none() && !machines_moved {
        return info(
            Phase::ClusterLocks,
            "maintenance request present; no cluster lock seen and no machine updating yet",
        );
    }
    if machines.is_empty() {
        return info(
            Phase::Masters,
            "every cluster lock is inactive; no LCMMachine seen",
        );
    }
    // Phase 3: a master in its turn, or masters not yet updated while no
    // worker has moved (D-ORDER: workers start only after the masters, or
    // after the first one with a dedicated control plane).
    if !masters_in_turn.is_empty() {
        let mut reason = format!("master {}", list(&masters_in_turn));
        if !workers_in_turn.is_empty() {
            reason.push_str(&format!(
                "; worker {} in maintenance too",
                list(&workers_in_turn)
            ));
        }
        return info(Phase::Masters, reason);
    }
    if !masters_waiting.is_empty() && !workers_moved {
        let total = machines
            .iter()
            .filter(|m| m.machine_type == MachineType::Control)
            .count();
        return info(
            Phase::Masters,
            format!(
                "every cluster lock is inactive; {} of {total} masters not seen updated yet ({}): waiting for LCM to start the next",
                masters_waiting.len(),
                list(&masters_waiting)
            ),
        );
    }
    // Phase 4: workers.
    let not_done: Vec<&Machine> = workers_in_turn
        .iter()
        .chain(workers_waiting.iter())
        .copied()
        .collect();
    if !not_done.is_empty() {
        let total = machines
            .iter()
            .filter(|m| m.machine_type == MachineType::Worker)
            .count();
        let mut reason = format!(
            "{} of {total} workers not done: {}",
            not_done.len(),
            list(&not_done)
        );
        if workers_in_turn.is_empty() {
            reason.push_str("; none in maintenance now");
        }
        return info(Phase::Workers, reason);
    }
    if !masters_waiting.is_empty() {
        return info(
            Phase::Workers,
            format!(
                "every worker was updated but master {} was not seen updated: finalization cannot be confirmed",
                list(&masters_waiting)
            ),
        );
    }
    if ending {
        return info(
            Phase::Finalization,
            "every machine was updated; the maintenance request is being deleted (the controllers take their cluster locks back)",
        );
    }
    info(
        Phase::Finalization,
        "every machine was updated; waiting for LCM to finish the other applications and remove the maintenance request",
    )
}

/// No maintenance request: idle, done, or triggered and waiting for LCM to
/// create the request.
fn without_request(
    snap: &Snapshot,
    history: &History,
    machines: &[&Machine],
    target: Option<&str>,
) -> PhaseInfo {
    let not_ready = machines.iter().filter(|m| !m.state.is_ready()).count();
    let readiness = if not_ready == 0 {
        "every machine is Ready".to_string()
    } else {
        format!("{not_ready} machine(s) not Ready")
    };
    if history.update_finished().is_some() {
        return info(
            Phase::Done,
            format!("maintenance request removed; {readiness}"),
        );
    }
    if let Some(t) = target {
        let on_target = !machines.is_empty()
            && machines
                .iter()
                .all(|m| m.state.is_ready() && m.release.as_deref() == Some(t));
        if on_target {
            // The request is gone and every machine runs the target: the
            // update ended before the console saw it (LCM writes the
            // LCMCluster status release last) [I].
            return info(
                Phase::Done,
                format!("no maintenance request; every machine is Ready on {t}"),
            );
        }
        let current = snap
            .lcm_clusters()
            .find_map(|c| c.current_release.clone())
            .unwrap_or_default();
        return info(
            Phase::Triggered,
            format!(
                "LCMCluster release {current} -> {t}; waiting for LCM to create the maintenance request"
            ),
        );
    }
    info(Phase::Idle, format!("no maintenance request; {readiness}"))
}

/// Phase 2's reason: the held cluster locks in the order of the flow
/// (OpenStack, then Ceph, then the others).
fn held_reason(snap: &Snapshot, held: &[&WorkloadLock]) -> String {
    let rank = |c: &Controller| match c {
        Controller::Openstack => 0,
        Controller::Ceph => 1,
        _ => 2,
    };
    let mut held = held.to_vec();
    held.sort_by(|a, b| {
        (rank(&a.controller), a.controller.as_str())
            .cmp(&(rank(&b.controller), b.controller.as_str()))
    });
    let first = held[0];
    let what = |l: &WorkloadLock| {
        format!(
            "cluster lock {} ({}) {}",
            l.name,
            l.controller,
            match &l.state {
                LockState::Failed => "failed",
                LockState::Active => "still active",
                LockState::Other(s) if s.is_empty() => "without a state yet",
                LockState::Other(_) | LockState::Inactive => "not inactive",
            }
        )
    };
    let released = |c: Controller| {
        let mut locks = snap
            .cluster_locks()
            .filter(|l| l.controller == c)
            .peekable();
        locks.peek().is_some() && locks.all(|l| l.state == LockState::Inactive)
    };
    let stage = match first.controller {
        Controller::Openstack => "OpenStack update under way".to_string(),
        Controller::Ceph if released(Controller::Openstack) => {
            "OpenStack done; Ceph update under way".to_string()
        }
        Controller::Ceph => "Ceph update under way".to_string(),
        _ => "OpenStack and Ceph done; LCM waits for every cluster lock".to_string(),
    };
    let mut reason = format!("{stage}: {}", what(first));
    if held.len() > 1 {
        let rest: Vec<String> = held[1..].iter().map(|l| what(l)).collect();
        reason.push_str(&format!("; also {}", rest.join(", ")));
    }
    reason
}

/// The first two machines and how many more (only those two are
/// formatted: the list can hold every worker of a large cluster).
fn list(machines: &[&Machine]) -> String {
    let item = |m: &Machine| format!("{} {}", m.name, m.state);
    match machines {
        [] => String::new(),
        [a] => item(a),
        [a, b] => format!("{}, {}", item(a), item(b)),
        [a, b, rest @ ..] => format!("{}, {} and {} more", item(a), item(b), rest.len()),
    }
}

mod from_plan;

#[cfg(test)]
#[path = "phase/tests.rs"]
mod tests;
