//! Re-joining only the machines a change touches: one LCMMachine, Node, lock
//! or pod that changed re-joins the machines on its node, not all 2,000.
//!
//! [`reach`] says which rows an object can change (what the join of
//! [`super::machine_row_indexed`] reads); [`rejoin`] replaces just those rows.
//! Anything it cannot place (an UpdateGroup, a DaemonSet, a malformed object)
//! asks for the whole join. `tests` checks the result equals the whole join.

use std::collections::{BTreeSet, HashMap};

use super::*;
use crate::domain::objects::Object;

/// Which machine rows a changed object can change.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reach {
    /// The join does not read it (plans, cluster-wide locks and requests…).
    Nothing,
    /// The row of the machine with this name.
    Machine(String),
    /// The rows of the machines on this node (any form of its name).
    Node(String),
    /// Every row (what every machine reads, or what cannot be placed).
    All,
}

/// Adds the rows `obj` (an old or a new version of a changed object)
/// reaches to `out`.
pub fn reach(obj: &Object, out: &mut Vec<Reach>) {
    let node = |n: Option<&str>| match n {
        Some(n) if !n.trim().is_empty() => Reach::Node(n.to_string()),
        // Joined by nothing: no row reads it.
        _ => Reach::Nothing,
    };
    let one = match obj {
        Object::Machine(m) => Reach::Machine(m.name.clone()),
        // Same namespace and name as its LCMMachine [I] (see update_groups).
        Object::ProviderMachine(p) => Reach::Machine(p.name.clone()),
        Object::ClusterState(s) => match s.arg.as_deref() {
            Some(arg) => Reach::Machine(arg.to_string()),
            None => Reach::Nothing,
        },
        Object::Node(n) => Reach::Node(n.name.clone()),
        // The join finds a request by its node and by its own name.
        Object::NodeMaintenanceRequest(r) => {
            out.push(Reach::Node(r.name.clone()));
            node(Some(&r.node_name))
        }
        Object::NodeWorkloadLock(l) => node(l.node_name.as_deref()),
        Object::VrouterPod(p) => node(p.node_name.as_deref()),
        Object::VrouterDaemonSet(_) | Object::UpdateGroup(_) | Object::Malformed(_) => Reach::All,
        Object::LcmCluster(_)
        | Object::ClusterMaintenanceRequest(_)
        | Object::ClusterWorkloadLock(_)
        | Object::UpdatePlan(_)
        | Object::UpdateAutoPause(_)
        | Object::NodeDeletionRequest(_)
        | Object::NodeDisableNotification(_) => Reach::Nothing,
    };
    out.push(one);
}

/// Beyond this many machines to re-join, the whole join is cheaper.
const MOST: usize = 64;

/// Brings `rows` (the join of an earlier snapshot) up to `snap` after the
/// changes whose reaches are `reaches`. Returns false, leaving `rows` as they
/// were, when only the whole join can (then call [`machine_rows`]).
pub fn rejoin(rows: &mut Vec<MachineRow>, snap: &Snapshot, reaches: &[Reach]) -> bool {
    let mut names: BTreeSet<&str> = BTreeSet::new();
    let mut nodes: Vec<&str> = Vec::new();
    for r in reaches {
        match r {
            Reach::Nothing => {}
            Reach::All => return false,
            Reach::Machine(m) => {
                names.insert(m.as_str());
            }
            Reach::Node(n) => nodes.push(n.as_str()),
        }
    }
    if !nodes.is_empty() {
        // The machines on the node now, and those whose row named it before.
        for m in snap.machines() {
            if let Some(h) = m.hostname.as_deref()
                && nodes.iter().any(|n| same_node(n, h))
            {
                names.insert(m.name.as_str());
            }
        }
        for row in rows.iter() {
            if let Some(h) = row.node_name.as_deref()
                && nodes.iter().any(|n| same_node(n, h))
            {
                names.insert(row.name());
            }
        }
    }
    if names.len() > MOST {
        return false;
    }
    if names.is_empty() {
        return true;
    }
    let machines: HashMap<&str, &Arc<Machine>> = names
        .iter()
        .filter_map(|name| {
            snap.shared_machines()
                .find(|m| m.name == *name)
                .map(|m| (*name, m))
        })
        .collect();
    let names: Vec<String> = names.into_iter().map(str::to_string).collect();
    let mut fresh: HashMap<String, MachineRow> = HashMap::new();
    for name in &names {
        if let Some(m) = machines.get(name.as_str()) {
            fresh.insert(
                name.clone(),
                machine_row_indexed(&JoinIndex::for_machine(snap, m), m),
            );
        }
    }
    rows.retain_mut(|row| {
        if !names.iter().any(|n| n == row.name()) {
            return true;
        }
        match fresh.remove(row.name()) {
            Some(new) => {
                *row = new;
                true
            }
            None => false,
        }
    });
    // New machines, then the join's order (type, index, name).
    rows.extend(fresh.into_values());
    rows.sort_by(|a, b| row_order(&a.machine).cmp(&row_order(&b.machine)));
    true
}

impl<'a> JoinIndex<'a> {
    /// The index of one machine: only the objects of its node (a scan of
    /// each kind, no maps of every object), for re-joining a few machines.
    pub fn for_machine(snap: &'a Snapshot, machine: &'a Machine) -> JoinIndex<'a> {
        let key = machine
            .hostname
            .as_deref()
            .filter(|h| !h.trim().is_empty())
            .map(short_node);
        let mine = |n: &str| key.is_some_and(|k| short_node(n) == k);
        let mut index = JoinIndex::empty(GroupIndex::for_machine(snap, machine));
        let Some(key) = key else {
            index.add_states(snap, machine);
            return index;
        };
        if let Some(n) = snap.shared_nodes().find(|n| short_node(&n.name) == key) {
            index.nodes.insert(key, n);
        }
        for r in snap.shared_node_requests() {
            if mine(&r.node_name) || mine(&r.name) {
                index.requests.entry(key).or_default().push(r);
            }
        }
        for l in snap.shared_node_locks() {
            if l.node_name.as_deref().is_some_and(mine) {
                index.locks.entry(key).or_default().push(l);
            }
        }
        for p in snap.vrouter_pods() {
            if p.node_name.as_deref().is_some_and(mine) {
                index.pods.entry(key).or_default().push(p);
            }
        }
        for d in snap.vrouter_daemonsets() {
            index
                .daemonsets
                .insert((d.namespace.as_str(), d.name.as_str()), d);
        }
        index.add_states(snap, machine);
        index
    }

    fn add_states(&mut self, snap: &'a Snapshot, machine: &Machine) {
        for s in snap.shared_cluster_states() {
            if let Some(arg) = s.arg.as_deref()
                && arg == machine.name
            {
                self.states.entry(arg).or_default().push(s);
            }
        }
    }
}

/// The join's order of rows: masters first, then by index (unset last), name.
fn row_order(m: &Machine) -> (u8, bool, Option<i64>, &str) {
    (
        type_rank(&m.machine_type),
        m.index.is_none(),
        m.index,
        &m.name,
    )
}

#[cfg(test)]
mod tests;
