//! What the console has seen over time.
//!
//! A Snapshot only knows the present. The phase "done", the progress of an
//! update, the ETA, stalls and "since when" in the attention queue need the
//! past: feed [`History::observe`] with every object change the console sees
//! (the old version from `Snapshot::apply`/`remove` and the new one), in the
//! order seen, including the objects of the first list (`before = None`).
//!
//! Memory is bounded: the last [`MAX_CHANGES`] changes, per-object data only
//! for objects that exist, and at most [`MAX_FINISHED`] finished machines and
//! [`MAX_SAMPLES`] durations per machine state.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use jiff::{SignedDuration, Timestamp};

use super::changes::{Change, diff};
use super::join::same_node;
use super::lockmsg::MessageKind;
use super::objects::{
    Controller, Kind, LockState, Machine, MachineState, MachineType, NodeRole, Object, ObjectKey,
    Snapshot,
};

mod servers;
pub use servers::{NodeServers, ServerTrack};

pub const MAX_CHANGES: usize = 5_000;
pub const MAX_FINISHED: usize = 10_000;
pub const MAX_SAMPLES: usize = 1_000;

/// The turn should start at `start` instead: none is known, or the known
/// one is only the console's first sight of the machine and `start` (its
/// maintenance request, seen later: the watches run apart) is earlier.
fn later_than(turn: Option<(Timestamp, bool)>, start: Timestamp) -> bool {
    match turn {
        None => true,
        Some((at, observed)) => !observed && start < at,
    }
}

/// Since when something holds, and whether the console saw it begin: when
/// `observed` is false, `at` is the console's first sight and the true start
/// is earlier (show the age as "≥ N").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Since {
    pub at: Timestamp,
    pub observed: bool,
}

/// The machines a machine's times are compared with: the same LCMMachine
/// type and the same OpenStack role of its node (a storage worker's drain
/// waits for Ceph, a compute's for its servers). The grouping is ours [I]:
/// LCM's source is not public; the roles come from the nodes' labels.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PeerGroup {
    pub machine_type: MachineType,
    pub role: NodeRole,
}

impl std::fmt::Display for PeerGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, {}", self.machine_type, self.role.as_str())
    }
}

/// A machine that went through an update and returned to Ready.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedMachine {
    pub name: String,
    pub machine_type: MachineType,
    /// When its turn started: its maintenance request was created, or it
    /// entered an active state, or (lacking both) it left Ready.
    pub started: Timestamp,
    pub finished: Timestamp,
    /// The start was observed; `false` when the console first saw the
    /// machine mid-way (the duration is then a lower bound).
    pub complete: bool,
}

impl FinishedMachine {
    pub fn duration(&self) -> SignedDuration {
        self.finished.duration_since(self.started)
    }
}

#[derive(Debug, Clone)]
struct MachineTrack {
    machine_type: MachineType,
    hostname: Option<String>,
    state: MachineState,
    since: Timestamp,
    /// The entry into `state` was seen (not just the first sight of the machine).
    since_observed: bool,
    /// When it left Ready (first sight if it was never seen Ready).
    left_ready: Option<(Timestamp, bool)>,
    /// When its turn started, and whether that was observed.
    turn: Option<(Timestamp, bool)>,
}

/// What the console remembers. See the module documentation.
#[derive(Debug, Clone, Default)]
pub struct History {
    changes: VecDeque<Change>,
    total_changes: u64,
    first_seen: HashMap<ObjectKey, Timestamp>,
    machines: BTreeMap<String, MachineTrack>,
    finished: VecDeque<FinishedMachine>,
    done: BTreeSet<String>,
    /// Durations of each state within a turn, by peer group (a master's
    /// Deploy says nothing about a worker's, a storage node's nothing
    /// about a compute's).
    samples: BTreeMap<(PeerGroup, MachineState), VecDeque<SignedDuration>>,
    /// Each node's OpenStack role, by node name.
    node_roles: HashMap<String, NodeRole>,
    /// Node maintenance requests by node name: (created or first seen).
    nmr_since: BTreeMap<String, Timestamp>,
    /// Each lock's state, since when, and whether that transition was seen.
    lock_state: HashMap<ObjectKey, (String, Since)>,
    message: HashMap<ObjectKey, (String, Timestamp)>,
    /// What the OpenStack controller did with each server on a node in its
    /// turn, by the node's OpenStack lock.
    servers: HashMap<ObjectKey, NodeServers>,
    /// Nodes the OpenStack controller queued (E-CONC) in their turn: when
    /// it took them up, by node name.
    turn_after_queue: BTreeMap<String, Timestamp>,
    cmrs: BTreeSet<String>,
    update_started: Option<Timestamp>,
    update_removed: Option<Timestamp>,
    max_concurrency: BTreeMap<MachineType, usize>,
}

impl History {
    pub fn new() -> History {
        History::default()
    }

    /// Records one change (`before` -> `after`; `None` for absent) seen at
    /// `at`, and returns the field-level changes (none when nothing we show
    /// changed, e.g. a resync).
    pub fn observe(
        &mut self,
        before: Option<&Object>,
        after: Option<&Object>,
        at: Timestamp,
    ) -> Vec<Change> {
        let changes = diff(before, after, at);
        if let (Some(b), Some(a)) = (before, after)
            && b.key() != a.key()
        {
            self.track(Some(b), None, at);
            self.track(None, Some(a), at);
        } else {
            self.track(before, after, at);
        }
        for c in &changes {
            if self.changes.len() == MAX_CHANGES {
                self.changes.pop_front();
            }
            self.changes.push_back(c.clone());
            self.total_changes += 1;
        }
        changes
    }

    /// Applies `obj` to `snap` and records the change: what the console
    /// does with a watch event `Applied`.
    pub fn apply(&mut self, snap: &mut Snapshot, obj: Object, at: Timestamp) -> Vec<Change> {
        let key = obj.key();
        let before = snap.apply(obj);
        self.observe(before.as_ref(), snap.objects.get(&key), at)
    }

    /// Removes `key` from `snap` and records it (nothing if absent): a watch
    /// event `Deleted`.
    pub fn remove(&mut self, snap: &mut Snapshot, key: &ObjectKey, at: Timestamp) -> Vec<Change> {
        match snap.remove(key) {
            Some(before) => self.observe(Some(&before), None, at),
            None => Vec::new(),
        }
    }

    /// Replaces every object of `kind` in `snap` with `objects` (a re-list
    /// after a watch restart) and records what differs: objects gone,
    /// added or changed. Objects that did not change produce nothing.
    pub fn relist(
        &mut self,
        snap: &mut Snapshot,
        kind: Kind,
        objects: Vec<Object>,
        at: Timestamp,
    ) -> Vec<Change> {
        let fresh: BTreeSet<ObjectKey> = objects.iter().map(Object::key).collect();
        let gone: Vec<ObjectKey> = snap
            .objects
            .keys()
            .filter(|k| k.kind == kind && !fresh.contains(k))
            .cloned()
            .collect();
        let mut changes = Vec::new();
        for k in &gone {
            changes.extend(self.remove(snap, k, at));
        }
        for o in objects {
            changes.extend(self.apply(snap, o, at));
        }
        changes
    }

    fn track(&mut self, before: Option<&Object>, after: Option<&Object>, at: Timestamp) {
        let Some(key) = after.or(before).map(Object::key) else {
            return;
        };
        match after {
            None => {
                self.first_seen.remove(&key);
                self.lock_state.remove(&key);
                self.message.remove(&key);
                self.servers.remove(&key);
            }
            Some(a) => {
                self.first_seen.entry(key.clone()).or_insert(at);
                self.track_message(&key, a, at);
                self.track_servers(&key, before, a, at);
            }
        }
        match (before, after) {
            (_, Some(Object::Node(n))) => {
                self.node_roles.insert(n.name.clone(), n.role());
            }
            (Some(Object::Node(n)), None) => {
                self.node_roles.remove(&n.name);
            }
            _ => {}
        }
        match (before, after) {
            (_, Some(Object::Machine(m))) => self.track_machine(m, at),
            (Some(Object::Machine(m)), _) => {
                self.machines.remove(&m.name);
                self.done.remove(&m.name);
            }
            _ => {}
        }
        match (before, after) {
            (_, Some(Object::NodeMaintenanceRequest(r))) if !r.deleting => {
                let since = r.created.map_or(at, |c| c.min(at));
                self.nmr_since.entry(r.node_name.clone()).or_insert(since);
                let name = r.node_name.clone();
                if let Some(t) = self
                    .machines
                    .values_mut()
                    .find(|t| t.hostname.as_deref().is_some_and(|h| same_node(h, &name)))
                    && later_than(t.turn, since)
                {
                    t.turn = Some((since, r.created.is_some()));
                }
                self.count_concurrency();
            }
            (Some(Object::NodeMaintenanceRequest(r)), None) => {
                self.nmr_since.remove(&r.node_name);
                self.turn_after_queue.remove(&r.node_name);
                let name = r.node_name.clone();
                if let Some(t) = self
                    .machines
                    .values_mut()
                    .find(|t| t.hostname.as_deref().is_some_and(|h| same_node(h, &name)))
                    && t.state.is_ready()
                    && t.left_ready.is_none()
                {
                    // Maintenance without the machine ever leaving Ready: no turn.
                    t.turn = None;
                }
            }
            (_, Some(Object::ClusterMaintenanceRequest(r))) => {
                if self.cmrs.is_empty() && self.cmrs.insert(r.name.clone()) {
                    self.start_update(r.created.map_or(at, |c| c.min(at)));
                } else {
                    self.cmrs.insert(r.name.clone());
                }
            }
            (Some(Object::ClusterMaintenanceRequest(r)), None) => {
                self.cmrs.remove(&r.name);
                if self.cmrs.is_empty() {
                    self.update_removed = Some(at);
                }
            }
            (_, Some(Object::ClusterWorkloadLock(l)) | Some(Object::NodeWorkloadLock(l))) => {
                let state = l.state.as_str().to_string();
                match self.lock_state.get(&key) {
                    Some((s, _)) if *s == state => {}
                    // A state change the console saw: the time is exact.
                    Some(_) => {
                        let since = Since { at, observed: true };
                        self.lock_state.insert(key.clone(), (state, since));
                    }
                    // First sight: the lock was in this state at least since now.
                    None => {
                        let since = Since {
                            at,
                            observed: false,
                        };
                        self.lock_state.insert(key.clone(), (state, since));
                    }
                }
            }
            _ => {}
        }
    }

    /// An OpenStack node lock's new message is one more step of the
    /// controller's migration loop; its release ends the node's turn.
    fn track_servers(
        &mut self,
        key: &ObjectKey,
        before: Option<&Object>,
        after: &Object,
        at: Timestamp,
    ) {
        let Object::NodeWorkloadLock(l) = after else {
            return;
        };
        if l.controller != Controller::Openstack {
            return;
        }
        if l.state == LockState::Inactive {
            self.servers.remove(key);
            return;
        }
        let old = match before {
            Some(Object::NodeWorkloadLock(b)) => b.error_message.as_ref(),
            _ => None,
        };
        let Some(message) = l.error_message.as_ref() else {
            return;
        };
        if old == Some(message) {
            return;
        }
        let node = self.servers.entry(key.clone()).or_default();
        let was_queued = node.queued_since.is_some() && node.dequeued.is_none();
        node.record(message.parsed(), at);
        // Queued behind another node, the node's turn had not begun: it
        // begins when the controller takes it up.
        if let (true, Some(dequeued), Some(name)) = (was_queued, node.dequeued, l.node_name.clone())
        {
            self.turn_after_queue.insert(name.clone(), dequeued);
            if let Some(t) = self
                .machines
                .values_mut()
                .find(|t| t.hostname.as_deref().is_some_and(|h| same_node(h, &name)))
                && t.turn.is_some_and(|(turn, _)| turn < dequeued)
            {
                t.turn = Some((dequeued, true));
            }
        }
    }

    fn start_update(&mut self, at: Timestamp) {
        self.update_started = Some(at);
        self.update_removed = None;
        self.done.clear();
        self.max_concurrency.clear();
    }

    fn track_message(&mut self, key: &ObjectKey, obj: &Object, at: Timestamp) {
        let signature = match obj {
            Object::ClusterWorkloadLock(l) | Object::NodeWorkloadLock(l) => {
                l.error_message.as_ref().map(|m| {
                    let p = m.parsed();
                    match &p.kind {
                        MessageKind::Other => p.text.clone(),
                        k => k.short().to_string(),
                    }
                })
            }
            Object::ClusterState(s) => s.message.as_deref().map(str::to_string),
            Object::Malformed(m) => Some(m.error.clone()),
            _ => None,
        }
        .filter(|s| !s.trim().is_empty());
        match signature {
            None => {
                self.message.remove(key);
            }
            Some(sig) => match self.message.get(key) {
                Some((s, _)) if *s == sig => {}
                _ => {
                    self.message.insert(key.clone(), (sig, at));
                }
            },
        }
    }

    fn track_machine(&mut self, m: &Machine, at: Timestamp) {
        let hostname = m.hostname.clone();
        let nmr = hostname.as_deref().and_then(|h| {
            self.nmr_since
                .iter()
                .find(|(n, _)| same_node(n, h))
                .map(|(_, t)| *t)
        });
        let Some(t) = self.machines.get_mut(&m.name) else {
            // First sight.
            let active = m.state.is_active();
            let not_ready = !m.state.is_ready();
            self.machines.insert(
                m.name.clone(),
                MachineTrack {
                    machine_type: m.machine_type.clone(),
                    hostname,
                    state: m.state.clone(),
                    since: at,
                    since_observed: false,
                    left_ready: not_ready.then_some((at, false)),
                    turn: nmr
                        .map(|t| (t, true))
                        .or_else(|| active.then_some((at, false))),
                },
            );
            self.count_concurrency();
            return;
        };
        t.machine_type = m.machine_type.clone();
        t.hostname = hostname;
        if let Some(n) = nmr
            && later_than(t.turn, n)
        {
            t.turn = Some((n, true));
        }
        if t.state == m.state {
            return;
        }
        // A state transition.
        if t.since_observed {
            // Time in the state within the machine's turn: a worker waits
            // in Prepare for its turn, and that wait is not the state's.
            let from = match t.turn {
                Some((turn, _)) => t.since.max(turn),
                None => t.since,
            };
            let group = PeerGroup {
                machine_type: t.machine_type.clone(),
                role: role_of(&self.node_roles, t.hostname.as_deref()),
            };
            let samples = self.samples.entry((group, t.state.clone())).or_default();
            if samples.len() == MAX_SAMPLES {
                samples.pop_front();
            }
            samples.push_back(at.duration_since(from));
        }
        let was_ready = t.state.is_ready();
        t.state = m.state.clone();
        t.since = at;
        t.since_observed = true;
        if was_ready {
            t.left_ready = Some((at, true));
        }
        if t.turn.is_none() && m.state.is_active() {
            t.turn = Some((at, true));
        }
        if m.state.is_ready() {
            let (started, complete) = t.turn.or(t.left_ready).unwrap_or((at, false));
            t.turn = None;
            t.left_ready = None;
            if self.finished.len() == MAX_FINISHED {
                self.finished.pop_front();
            }
            self.finished.push_back(FinishedMachine {
                name: m.name.clone(),
                machine_type: m.machine_type.clone(),
                started,
                finished: at,
                complete,
            });
            self.done.insert(m.name.clone());
        }
        self.count_concurrency();
    }

    fn count_concurrency(&mut self) {
        let mut now: BTreeMap<MachineType, usize> = BTreeMap::new();
        for t in self.machines.values() {
            if t.turn.is_some() && !t.state.is_ready() {
                *now.entry(t.machine_type.clone()).or_default() += 1;
            }
        }
        for (ty, n) in now {
            let max = self.max_concurrency.entry(ty).or_default();
            *max = (*max).max(n);
        }
    }

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
    /// When the object's message started saying what it says now: for locks,
    /// by message kind (a retry that only changes the timestamp or the
    /// server being migrated does not count); for cluster states, by text.
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
/// The role of the node named `hostname` (short names compared), `Other`
/// when the console has not seen the node.
fn role_of(roles: &HashMap<String, NodeRole>, hostname: Option<&str>) -> NodeRole {
    let Some(h) = hostname else {
        return NodeRole::Other;
    };
    roles
        .get(h)
        .or_else(|| roles.iter().find(|(n, _)| same_node(n, h)).map(|(_, r)| r))
        .copied()
        .unwrap_or(NodeRole::Other)
}

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

#[cfg(test)]
mod tests;
