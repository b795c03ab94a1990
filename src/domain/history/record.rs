//! Recording: what the console writes into the [`History`] as each object
//! version arrives (the old version from `Snapshot::apply`/`remove` and the
//! new one, in the order seen).

use std::collections::{BTreeMap, BTreeSet};

use foldhash::HashMap;

use jiff::Timestamp;

use super::{
    FinishedMachine, History, MAX_CHANGES, MAX_FINISHED, MAX_SAMPLES, MachineTrack, PeerGroup,
    Since, role_of,
};
use crate::domain::changes::{Change, diff};
use crate::domain::join::{same_node, short_node};
use crate::domain::lockmsg::MessageKind;
use crate::domain::objects::{
    Controller, Kind, LockState, Machine, MachineType, Object, ObjectKey, Snapshot,
};

/// The turn should start at `start` instead: none is known, or the known
/// one is only the console's first sight of the machine and `start` (its
/// maintenance request, seen later: the watches run apart) is earlier.
fn later_than(turn: Option<(Timestamp, bool)>, start: Timestamp) -> bool {
    match turn {
        None => true,
        Some((at, observed)) => !observed && start < at,
    }
}

/// Moves `machine` in the index by node from the node of hostname `from`
/// to that of `to` (`None`: not indexed).
fn move_host(
    index: &mut HashMap<String, BTreeSet<String>>,
    machine: &str,
    from: Option<&str>,
    to: Option<&str>,
) {
    if let Some(short) = from.map(short_node)
        && let Some(names) = index.get_mut(short)
    {
        names.remove(machine);
        if names.is_empty() {
            index.remove(short);
        }
    }
    if let Some(short) = to.map(short_node) {
        index
            .entry(short.to_string())
            .or_default()
            .insert(machine.to_string());
    }
}

impl History {
    /// Records one change (`before` -> `after`; `None` for absent) seen at
    /// `at`, and returns the field-level changes (none when nothing we show
    /// changed, e.g. a resync).
    pub fn observe(
        &mut self,
        before: Option<&Object>,
        after: Option<&Object>,
        at: Timestamp,
    ) -> Vec<Change> {
        let changes = self.record(before, after, at);
        self.count_concurrency();
        changes
    }

    /// [`History::observe`] without counting the machines in their turn:
    /// a re-list counts once, after its last object.
    fn record(
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
        self.apply_seen(snap, obj, at, |_, _| {})
    }

    /// [`History::apply`], showing `seen` the version replaced (if any) and
    /// the new one: what the caller would otherwise look up before.
    pub fn apply_seen(
        &mut self,
        snap: &mut Snapshot,
        obj: Object,
        at: Timestamp,
        seen: impl FnOnce(Option<&Object>, &Object),
    ) -> Vec<Change> {
        let (before, after) = snap.apply_get(obj);
        seen(before.as_ref(), after);
        self.observe(before.as_ref(), Some(after), at)
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
        let fresh: foldhash::HashSet<ObjectKey> = objects.iter().map(Object::key).collect();
        let gone: Vec<ObjectKey> = snap
            .of_kind(kind)
            .map(Object::key)
            .filter(|k| !fresh.contains(k))
            .collect();
        drop(fresh);
        let mut changes = Vec::new();
        for k in &gone {
            if let Some(before) = snap.remove(k) {
                changes.extend(self.record(Some(&before), None, at));
            }
        }
        for o in objects {
            let (before, after) = snap.apply_get(o);
            changes.extend(self.record(before.as_ref(), Some(after), at));
        }
        // One count for the whole list: counting after each object would
        // cost a pass over every machine per object (quadratic in a list of
        // thousands), and its intermediate counts were never true at once.
        self.count_concurrency();
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
                if let Some(t) = self.machines.remove(&m.name) {
                    move_host(
                        &mut self.machines_on_node,
                        &m.name,
                        t.hostname.as_deref(),
                        None,
                    );
                }
                self.done.remove(&m.name);
            }
            _ => {}
        }
        match (before, after) {
            (_, Some(Object::NodeMaintenanceRequest(r))) if !r.deleting => {
                let since = r.created.map_or(at, |c| c.min(at));
                self.nmr_since.entry(r.node_name.clone()).or_insert(since);
                let name = r.node_name.clone();
                if let Some(t) = self.machine_on_node(&name)
                    && later_than(t.turn, since)
                {
                    t.turn = Some((since, r.created.is_some()));
                }
                self.concurrency_stale = true;
            }
            (Some(Object::NodeMaintenanceRequest(r)), None) => {
                self.nmr_since.remove(&r.node_name);
                self.turn_after_queue.remove(&r.node_name);
                let name = r.node_name.clone();
                if let Some(t) = self.machine_on_node(&name)
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
            if let Some(t) = self.machine_on_node(&name)
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
            move_host(
                &mut self.machines_on_node,
                &m.name,
                None,
                hostname.as_deref(),
            );
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
                    // Already there at first sight: since at least now.
                    drain_failed: m.drain_error.is_some().then_some(Since {
                        at,
                        observed: false,
                    }),
                    operation_stuck: m.operation_stuck.then_some(Since {
                        at,
                        observed: false,
                    }),
                },
            );
            self.concurrency_stale = true;
            return;
        };
        t.machine_type = m.machine_type.clone();
        if t.hostname != hostname {
            let old = std::mem::replace(&mut t.hostname, hostname);
            let (old, new) = (old.as_deref(), t.hostname.as_deref());
            move_host(&mut self.machines_on_node, &m.name, old, new);
        }
        if let Some(n) = nmr
            && later_than(t.turn, n)
        {
            t.turn = Some((n, true));
        }
        // LCMMachine has no condition or timestamp for either (mcc-api
        // 2.22 types, reference §7.1): the console's sight of the change
        // is the only clock. A new text of the same error (the drain
        // failed again) is the same failure.
        t.drain_failed = match (t.drain_failed, m.drain_error.is_some()) {
            (_, false) => None,
            (None, true) => Some(Since { at, observed: true }),
            (since, true) => since,
        };
        t.operation_stuck = match (t.operation_stuck, m.operation_stuck) {
            (_, false) => None,
            (None, true) => Some(Since { at, observed: true }),
            (since, true) => since,
        };
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
        self.concurrency_stale = true;
    }

    /// The machine whose hostname is `node`; of several (a misconfigured
    /// cluster), the first by name.
    fn machine_on_node(&mut self, node: &str) -> Option<&mut MachineTrack> {
        let name = self.machines_on_node.get(short_node(node))?.first()?;
        self.machines.get_mut(name)
    }

    /// Raises each machine type's highest count of machines in their turn
    /// at once to the count now.
    fn count_concurrency(&mut self) {
        if !std::mem::take(&mut self.concurrency_stale) {
            return;
        }
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
}
