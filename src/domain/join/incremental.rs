//! Re-joining only the machines a change touches: one LCMMachine, Node, lock
//! or pod that changed re-joins the machines on its node, not all 2,000.
//!
//! [`reach`] says which rows an object can change (what the join of
//! [`super::machine_row_indexed`] reads); [`rejoin`] replaces just those rows.
//! Anything it cannot place (an UpdateGroup, a DaemonSet, a malformed object)
//! asks for the whole join. `tests` checks the result equals the whole join.

use foldhash::{HashMap, HashSet};

use super::*;
use crate::domain::objects::Object;
use crate::domain::vrouter::revision_inputs;

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
        | Object::NodeDisableNotification(_)
        | Object::OpenstackDeploymentStatus(_)
        | Object::CephDeploymentHealth(_) => Reach::Nothing,
    };
    out.push(one);
}

/// Adds the rows a change from `old` to `new` reaches to `out`: what
/// [`reach`] says of each version, except for a DaemonSet whose new
/// version gives its pods the revisions the old one gave (the join reads a
/// DaemonSet only for that): it reaches nothing.
pub fn reach_change(old: Option<&Object>, new: &Object, out: &mut Vec<Reach>) {
    if let (Some(Object::VrouterDaemonSet(a)), Object::VrouterDaemonSet(b)) = (old, new)
        && revision_inputs(a) == revision_inputs(b)
    {
        return;
    }
    if let Some(old) = old {
        reach(old, out);
    }
    reach(new, out);
}

/// Beyond this many machines to re-join, the whole join is cheaper (a
/// machine re-joined reads only its node's objects, through the
/// snapshot's indexes; the whole join builds maps of every object).
const MOST: usize = 256;

/// Brings `rows` (the join of an earlier snapshot) up to `snap` after the
/// changes whose reaches are `reaches`. Returns false, leaving `rows` as they
/// were, when only the whole join can (then call [`machine_rows`]). Reads
/// only the objects of the machines and nodes reached, and the rows once.
pub fn rejoin(rows: &mut Vec<MachineRow>, snap: &Snapshot, reaches: &[Reach]) -> bool {
    let mut names: HashSet<&str> = HashSet::default();
    let mut nodes: HashSet<&str> = HashSet::default();
    for r in reaches {
        match r {
            Reach::Nothing => {}
            Reach::All => return false,
            Reach::Machine(m) => {
                names.insert(m.as_str());
            }
            Reach::Node(n) => {
                nodes.insert(short_node(n));
            }
        }
    }
    // The machines on the nodes now, and those whose row named them before.
    for n in &nodes {
        for o in snap.on_node(n) {
            if let Object::Machine(m) = o {
                names.insert(m.name.as_str());
            }
        }
    }
    if !nodes.is_empty() {
        for row in rows.iter() {
            if row
                .node_name
                .as_deref()
                .is_some_and(|h| nodes.contains(short_node(h)))
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
    // Owned: the rows lent some of the names, and change next.
    let names: HashSet<String> = names.into_iter().map(str::to_string).collect();
    let mut fresh: HashMap<&str, MachineRow> = HashMap::default();
    for name in &names {
        let machine = snap.of_machine(name).find_map(|o| match o {
            Object::Machine(m) => Some(m),
            _ => None,
        });
        if let Some(m) = machine {
            fresh.insert(
                name.as_str(),
                machine_row_indexed(&JoinIndex::for_machine(snap, m), m),
            );
        }
    }
    // Whether a row changed its place in the join's order (most changes
    // keep it: the sort of 2,000 rows is then not needed).
    let mut moved = false;
    rows.retain_mut(|row| {
        if !names.contains(row.name()) {
            return true;
        }
        match fresh.remove(row.name()) {
            Some(new) => {
                moved |= row_order(&row.machine) != row_order(&new.machine);
                *row = new;
                true
            }
            None => false,
        }
    });
    // New machines, then the join's order (type, index, name).
    if moved || !fresh.is_empty() {
        rows.extend(fresh.into_values());
        rows.sort_by(|a, b| row_order(&a.machine).cmp(&row_order(&b.machine)));
    }
    true
}

impl<'a> JoinIndex<'a> {
    /// The index of one machine: only the objects of its node and its
    /// name, read through the snapshot's indexes, for re-joining a few
    /// machines.
    pub fn for_machine(snap: &'a Snapshot, machine: &'a Machine) -> JoinIndex<'a> {
        let key = machine
            .hostname
            .as_deref()
            .filter(|h| !h.trim().is_empty())
            .map(short_node);
        let mut index = JoinIndex::empty(GroupIndex::for_machine(snap, machine));
        if let Some(key) = key {
            // The index holds every object that names the node in any of
            // the fields the join matches on.
            for o in snap.on_node(key) {
                match o {
                    Object::Node(n) => {
                        index.nodes.entry(key).or_insert(n);
                    }
                    Object::NodeMaintenanceRequest(r) => {
                        index.requests.entry(key).or_default().push(r);
                    }
                    Object::NodeWorkloadLock(l) => {
                        index.locks.entry(key).or_default().push(l);
                    }
                    Object::VrouterPod(p) => index.pods.entry(key).or_default().push(p),
                    _ => {}
                }
            }
        }
        for d in snap.vrouter_daemonsets() {
            index
                .daemonsets
                .insert((d.namespace.as_str(), d.name.as_str()), d);
        }
        for o in snap.of_machine(&machine.name) {
            if let Object::ClusterState(s) = o
                && let Some(arg) = s.arg.as_deref()
            {
                index.states.entry(arg).or_default().push(s);
            }
        }
        index
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
