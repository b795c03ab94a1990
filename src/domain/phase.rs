//! Which phase of the update flow (reference §9.1, seed 001) the cluster is
//! in, inferred from the objects. The inference is ours \[I\]: no object says
//! the phase; the order of the checks follows the documented flow.

use super::history::{History, READY};
use super::join::same_node;
use super::objects::{LockState, MachineType, Snapshot};

/// The update phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// No maintenance request and no update seen.
    Idle,
    /// 1: the maintenance request exists; the OpenStack cluster lock is still active.
    Started,
    /// 2: OpenStack released its cluster lock; Ceph (then the others) follow.
    ClusterLocks,
    /// 3: Kubernetes master nodes, one at a time.
    Masters,
    /// 4: worker nodes.
    Workers,
    /// 5: every machine is Ready; the maintenance request is still there.
    Finalization,
    /// The maintenance request was removed after the console saw it.
    Done,
}

impl Phase {
    /// 1–5 for the phases of the flow; `None` for idle and done.
    pub fn number(self) -> Option<u8> {
        match self {
            Phase::Idle | Phase::Done => None,
            Phase::Started => Some(1),
            Phase::ClusterLocks => Some(2),
            Phase::Masters => Some(3),
            Phase::Workers => Some(4),
            Phase::Finalization => Some(5),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Started => "update started",
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
    }
}

/// Infers the phase from the objects (and, for "done", the history).
pub fn phase(snap: &Snapshot, history: &History) -> PhaseInfo {
    let machines: Vec<_> = snap
        .machines()
        .filter(|m| matches!(m.machine_type, MachineType::Control | MachineType::Worker))
        .collect();
    let not_ready = machines.iter().filter(|m| m.state != READY).count();
    if snap.cluster_requests().next().is_none() {
        if history.update_finished().is_some() {
            return if not_ready == 0 {
                info(
                    Phase::Done,
                    "maintenance request removed; every machine is Ready",
                )
            } else {
                info(
                    Phase::Done,
                    format!("maintenance request removed; {not_ready} machine(s) not Ready"),
                )
            };
        }
        return if not_ready == 0 {
            info(
                Phase::Idle,
                "no maintenance request; every machine is Ready",
            )
        } else {
            info(
                Phase::Idle,
                format!("no maintenance request; {not_ready} machine(s) not Ready"),
            )
        };
    }
    let held = |controller: &str| {
        snap.cluster_locks()
            .filter(|l| l.controller == controller)
            .any(|l| l.state != LockState::Inactive)
    };
    if held("openstack") {
        return info(
            Phase::Started,
            "maintenance request present; OpenStack cluster lock still active",
        );
    }
    if held("ceph") {
        return info(
            Phase::ClusterLocks,
            "OpenStack cluster lock inactive; Ceph cluster lock still active",
        );
    }
    let under_request = |hostname: Option<&str>| {
        hostname.is_some_and(|h| {
            snap.node_requests()
                .any(|r| same_node(&r.node_name, h) || same_node(&r.name, h))
        })
    };
    let busy = |ty: MachineType| -> Vec<String> {
        machines
            .iter()
            .filter(|m| m.machine_type == ty)
            .filter(|m| m.state != READY || under_request(m.hostname.as_deref()))
            .map(|m| format!("{} {}", m.name, m.state))
            .collect()
    };
    let masters = busy(MachineType::Control);
    if !masters.is_empty() {
        return info(Phase::Masters, format!("master {}", list(&masters)));
    }
    let workers = busy(MachineType::Worker);
    if !workers.is_empty() {
        let total = machines
            .iter()
            .filter(|m| m.machine_type == MachineType::Worker)
            .count();
        return info(
            Phase::Workers,
            format!(
                "{} of {total} workers not done: {}",
                workers.len(),
                list(&workers)
            ),
        );
    }
    info(
        Phase::Finalization,
        "every machine is Ready; waiting for the maintenance request to be removed",
    )
}

fn list(items: &[String]) -> String {
    match items.len() {
        0 => String::new(),
        1..=2 => items.join(", "),
        n => format!("{}, {} and {} more", items[0], items[1], n - 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::fixtures::{self, names::*};
    use crate::domain::objects::*;

    fn lock(name: &str, controller: &str, state: LockState) -> Object {
        Object::ClusterWorkloadLock(fixtures::cluster_lock(name, controller, state))
    }

    #[test]
    fn idle_without_request() {
        let p = phase(&fixtures::idle(), &History::new());
        assert_eq!(p.phase, Phase::Idle);
        assert_eq!(p.number(), None);
    }

    #[test]
    fn mid_update_is_workers() {
        let p = phase(&fixtures::mid_update(), &History::new());
        assert_eq!(p.phase, Phase::Workers);
        assert_eq!(p.number(), Some(4));
        assert!(p.reason.contains("3 of 4 workers"), "{}", p.reason);
        assert!(p.reason.contains(WORKER_2), "{}", p.reason);
    }

    #[test]
    fn phases_one_to_three_and_five() {
        let mut snap = fixtures::idle();
        snap.apply(Object::ClusterMaintenanceRequest(fixtures::cmr(
            fixtures::at("08:05"),
        )));
        assert_eq!(phase(&snap, &History::new()).phase, Phase::Started);
        snap.apply(lock(OPENSTACK_CWL, "openstack", LockState::Inactive));
        assert_eq!(phase(&snap, &History::new()).phase, Phase::ClusterLocks);
        snap.apply(lock(CEPH_CWL, "ceph", LockState::Inactive));
        // Everything Ready, no node request: finalization.
        assert_eq!(phase(&snap, &History::new()).phase, Phase::Finalization);
        // A master under a node request (even while Ready) is phase 3.
        snap.apply(Object::NodeMaintenanceRequest(fixtures::nmr(
            NODE_M1,
            "drain",
            fixtures::at("08:40"),
        )));
        let p = phase(&snap, &History::new());
        assert_eq!(p.phase, Phase::Masters);
        assert!(p.reason.contains(MASTER_1), "{}", p.reason);
    }

    #[test]
    fn failed_openstack_lock_keeps_phase_one() {
        let mut snap = fixtures::mid_update();
        snap.apply(lock(OPENSTACK_CWL, "openstack", LockState::Failed));
        assert_eq!(phase(&snap, &History::new()).phase, Phase::Started);
    }

    #[test]
    fn done_needs_history() {
        let mut snap = fixtures::idle();
        let mut h = History::new();
        let cmr = Object::ClusterMaintenanceRequest(fixtures::cmr(fixtures::at("08:05")));
        h.observe(None, Some(&cmr), fixtures::at("08:05"));
        h.observe(Some(&cmr), None, fixtures::at("11:00"));
        assert_eq!(phase(&snap, &h).phase, Phase::Done);
        assert_eq!(phase(&snap, &History::new()).phase, Phase::Idle);
        // A new update starts: no longer done.
        snap.apply(cmr.clone());
        h.observe(None, Some(&cmr), fixtures::at("12:00"));
        assert_eq!(phase(&snap, &h).phase, Phase::Started);
    }
}
