//! Queries: what the rules ask of the [`History`] (since when something
//! holds, how long peers took in a state, what finished, how many ran at once).

use std::collections::VecDeque;

use jiff::{SignedDuration, Timestamp};

use super::{FinishedMachine, History, NodeServers, PeerGroup, Since, role_of};
use crate::domain::changes::Change;
use crate::domain::join::same_node;
use crate::domain::objects::{Machine, MachineState, MachineType, ObjectKey};

impl History {
    /// The last [`MAX_CHANGES`] changes, oldest first.
    pub fn changes(&self) -> impl DoubleEndedIterator<Item = &Change> + ExactSizeIterator {
        self.changes.iter()
    }
    /// How many changes were seen since start (including those dropped).
    pub fn total_changes(&self) -> u64 {
        self.total_changes
    }
    /// When the object was first seen (while it exists).
    pub fn first_seen(&self, key: &ObjectKey) -> Option<Timestamp> {
        self.first_seen.get(key).copied()
    }
    /// When the lock entered its current `status.state` (or was first seen).
    pub fn lock_state_since(&self, key: &ObjectKey) -> Option<Timestamp> {
        self.lock_since(key).map(|s| s.at)
    }
    /// When the lock entered its current `status.state`, and whether the
    /// console saw that transition (else `at` is its first sight: the lock
    /// has been in that state at least since then — say "≥").
    pub fn lock_since(&self, key: &ObjectKey) -> Option<Since> {
        self.lock_state.get(key).map(|(_, s)| *s)
    }
    /// When the OpenStack controller took up `node` after queueing it behind
    /// another node in this turn (its turn begins then), if it did.
    pub fn taken_up_after_queue(&self, node: &str) -> Option<Timestamp> {
        self.turn_after_queue
            .iter()
            .find(|(n, _)| same_node(n, node))
            .map(|(_, t)| *t)
    }

    /// What the console saw the OpenStack controller do with the servers of
    /// the node whose OpenStack lock is `lock`, in the node's current turn.
    pub fn node_servers(&self, lock: &ObjectKey) -> Option<&NodeServers> {
        self.servers.get(lock)
    }

    /// When the object's message started saying what it says now: for locks,
    /// by message kind (a retry that only changes the timestamp or the
    /// server being migrated does not count); for cluster states, by text.
    pub fn message_since(&self, key: &ObjectKey) -> Option<Timestamp> {
        self.message.get(key).map(|(_, t)| *t)
    }
    /// When the node's maintenance request was created (or first seen).
    pub fn nmr_since(&self, node: &str) -> Option<Timestamp> {
        self.nmr_since
            .iter()
            .find(|(n, _)| same_node(n, node))
            .map(|(_, t)| *t)
    }
    /// When the machine entered its current state (first sight if earlier).
    pub fn machine_state_since(&self, machine: &str) -> Option<Timestamp> {
        self.machines.get(machine).map(|t| t.since)
    }
    /// Whether the machine's entry into its current state was observed.
    pub fn machine_state_observed(&self, machine: &str) -> bool {
        self.machines.get(machine).is_some_and(|t| t.since_observed)
    }
    /// When the machine's turn started, while it is in progress.
    pub fn turn_started(&self, machine: &str) -> Option<Timestamp> {
        self.machines
            .get(machine)
            .and_then(|t| t.turn)
            .map(|(t, _)| t)
    }
    /// When the machine's turn started (its maintenance request was created,
    /// or it entered an active state), while it is in progress, and whether
    /// the console saw that start.
    pub fn turn_since(&self, machine: &str) -> Option<Since> {
        self.machines
            .get(machine)
            .and_then(|t| t.turn)
            .map(|(at, observed)| Since { at, observed })
    }
    /// Since when the machine is in its current state *within its turn*:
    /// the later of its entry into the state and the start of its turn (a
    /// worker waits in Prepare for its turn; that wait is not its own).
    pub fn in_turn_since(&self, machine: &str) -> Option<Since> {
        let t = self.machines.get(machine)?;
        Some(match t.turn {
            Some((at, observed)) if at > t.since => Since { at, observed },
            _ => Since {
                at: t.since,
                observed: t.since_observed,
            },
        })
    }
    /// Since when the machine's Kubernetes drain has failed, and whether
    /// the console saw the error appear (else `at` is its first sight).
    pub fn drain_failed_since(&self, machine: &str) -> Option<Since> {
        self.machines.get(machine).and_then(|t| t.drain_failed)
    }
    /// Since when LCM has reported an operation stuck on the machine, and
    /// whether the console saw the flag set (else `at` is its first sight).
    pub fn operation_stuck_since(&self, machine: &str) -> Option<Since> {
        self.machines.get(machine).and_then(|t| t.operation_stuck)
    }
    /// The machine returned to Ready during the current (or last) update.
    pub fn is_done(&self, machine: &str) -> bool {
        self.done.contains(machine)
    }
    /// Every machine seen finishing, oldest first (across updates).
    pub fn finished(&self) -> impl DoubleEndedIterator<Item = &FinishedMachine> {
        self.finished.iter()
    }
    /// Machines finished since the current (or last) update started.
    pub fn finished_this_update(&self) -> impl Iterator<Item = &FinishedMachine> {
        let start = self.update_started;
        self.finished
            .iter()
            .filter(move |f| start.is_none_or(|s| f.finished >= s))
    }
    /// The median time machines spent in `state` within their turn
    /// (observed entries and exits only).
    pub fn median_state_duration(&self, state: &MachineState) -> Option<SignedDuration> {
        median(
            self.samples
                .iter()
                .filter(|((_, s), _)| s == state)
                .flat_map(|(_, v)| v.iter().copied())
                .collect(),
        )
    }
    /// The peer group of `machine`: its type and its node's OpenStack role.
    pub fn peer_group(&self, machine: &Machine) -> PeerGroup {
        PeerGroup {
            machine_type: machine.machine_type.clone(),
            role: role_of(&self.node_roles, machine.hostname.as_deref()),
        }
    }
    /// The median time machines of `group` spent in `state` within their
    /// turn: what a machine of that group is compared with.
    pub fn median_state_duration_of(
        &self,
        group: &PeerGroup,
        state: &MachineState,
    ) -> Option<SignedDuration> {
        median(
            self.samples
                .get(&(group.clone(), state.clone()))
                .map(|v| v.iter().copied().collect())
                .unwrap_or_default(),
        )
    }
    /// How many durations of `state` were observed for machines of `group`.
    pub fn state_samples_of(&self, group: &PeerGroup, state: &MachineState) -> usize {
        self.samples
            .get(&(group.clone(), state.clone()))
            .map_or(0, VecDeque::len)
    }
    /// How many durations of `state` were observed.
    pub fn state_samples(&self, state: &MachineState) -> usize {
        self.samples
            .iter()
            .filter(|((_, s), _)| s == state)
            .map(|(_, v)| v.len())
            .sum()
    }
    /// The most machines of `ty` seen in their turn at once during this update.
    pub fn max_concurrency(&self, ty: &MachineType) -> usize {
        self.max_concurrency.get(ty).copied().unwrap_or(0)
    }
    /// A ClusterMaintenanceRequest exists.
    pub fn cmr_present(&self) -> bool {
        !self.cmrs.is_empty()
    }
    /// When the current (or last) update started: the maintenance request's
    /// creation time, or when it was first seen.
    pub fn update_started(&self) -> Option<Timestamp> {
        self.update_started
    }
    /// When the last maintenance request disappeared, if none exists now:
    /// the update is over.
    pub fn update_finished(&self) -> Option<Timestamp> {
        if self.cmr_present() {
            None
        } else {
            self.update_removed
        }
    }
    /// Number of objects with per-object data (for memory tests).
    pub fn tracked_objects(&self) -> usize {
        self.first_seen.len()
    }
}

/// The median of `v` (`None` when empty).
fn median(mut v: Vec<SignedDuration>) -> Option<SignedDuration> {
    if v.is_empty() {
        return None;
    }
    v.sort();
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    })
}
