//! The store of everything the console knows: the latest version of each
//! watched object, with typed accessors per kind.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use foldhash::HashMap;

use super::*;

/// Everything the console currently knows about both clusters: the latest
/// version of each watched object, keyed by kind, namespace and name.
///
/// Changed only through its methods, each of which gives the snapshot a new
/// [`Snapshot::generation`]: what is computed from a snapshot remembers the
/// generation it was computed from, and is recomputed only when it moved.
///
/// It keeps two indexes beside the objects, so that what is computed for
/// one node or one machine reads that node's objects, not every object of
/// each kind ([`Snapshot::on_node`], [`Snapshot::of_machine`]). The indexes
/// hold the objects themselves (each an `Arc`): reading a node's objects
/// through keys meant one search of the whole map per object, comparing
/// namespaces and names at every level, which was most of re-joining a
/// machine on `large`. A third index holds the objects each [`Notable`]
/// flags ([`Snapshot::notable`]).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    objects: BTreeMap<ObjectKey, Object>,
    generation: u64,
    /// The generation each kind last changed at (0: never), by
    /// `Kind as usize`: what reads only some kinds reads again only when
    /// one of them moved.
    kind_generations: [u64; Kind::ALL.len()],
    indexes: Indexes,
}

/// A node name without its domain (before the first `.`): the form every
/// object that names a node is matched by (a Node is `cmp-1.example.net`
/// where a lock says `cmp-1`).
pub fn short_node(name: &str) -> &str {
    // A byte scan, not `split('.')`: node names are short, and the rules
    // cut every machine's and lock's node name on every computation.
    match name.bytes().position(|b| b == b'.') {
        Some(dot) => &name[..dot],
        None => name,
    }
}

/// Node names are compared without a domain: Rockoon cuts `spec.nodeName` at
/// the first `.`, so an FQDN names the same node.
pub fn same_node(a: &str, b: &str) -> bool {
    a == b || short_node(a) == short_node(b)
}

fn index_one(
    map: &mut HashMap<String, BTreeMap<ObjectKey, Object>>,
    name: &str,
    key: &ObjectKey,
    obj: &Object,
    add: bool,
) {
    if add {
        map.entry(name.to_string())
            .or_default()
            .insert(key.clone(), obj.clone());
    } else if let Some(keys) = map.get_mut(name) {
        keys.remove(key);
        if keys.is_empty() {
            map.remove(name);
        }
    }
}

/// The snapshot's indexes beside its map of objects, each holding the
/// objects themselves.
#[derive(Debug, Clone, Default)]
struct Indexes {
    /// By [`short_node`] name: the Node, its workload locks, vRouter pods
    /// and maintenance requests (by node and by their own name, as the
    /// join finds them), the LCMMachines whose hostname it is.
    by_node: HashMap<String, BTreeMap<ObjectKey, Object>>,
    /// By machine name: the LCMMachines and provider Machines of that
    /// name, the LCMClusterStates whose `arg` it is.
    by_machine: HashMap<String, BTreeMap<ObjectKey, Object>>,
    /// The objects each [`Notable`] flags, by key, by `Notable as usize`:
    /// what the attention rules read at every computation instead of every
    /// object of a kind.
    notable: [BTreeMap<ObjectKey, Object>; Notable::ALL.len()],
}

impl Indexes {
    /// Adds `key` to (or, when `!add`, takes it from) the indexes under the
    /// names `obj` has, and to the [`Notable`] sets that flag it.
    fn index(&mut self, key: &ObjectKey, obj: &Object, add: bool) {
        let (nodes, machine) = index_names(obj);
        for n in nodes {
            index_one(&mut self.by_node, n, key, obj, add);
        }
        if let Some(m) = machine {
            index_one(&mut self.by_machine, m, key, obj, add);
        }
        for n in Notable::ALL {
            if !n.holds(obj) {
                continue;
            }
            let set = &mut self.notable[n as usize];
            if add {
                set.insert(key.clone(), obj.clone());
            } else {
                set.remove(key);
            }
        }
    }
}

/// The names `obj` is indexed by: its nodes and its machine.
fn index_names(obj: &Object) -> (Vec<&str>, Option<&str>) {
    fn node(n: &str) -> Option<&str> {
        (!n.trim().is_empty()).then(|| short_node(n))
    }
    match obj {
        Object::Node(n) => (node(&n.name).into_iter().collect(), None),
        Object::NodeWorkloadLock(l) => (
            l.node_name.as_deref().and_then(node).into_iter().collect(),
            None,
        ),
        Object::VrouterPod(p) => (
            p.node_name.as_deref().and_then(node).into_iter().collect(),
            None,
        ),
        Object::NodeMaintenanceRequest(r) => (
            node(&r.node_name)
                .into_iter()
                .chain(node(&r.name))
                .collect(),
            None,
        ),
        Object::Machine(m) => (
            m.hostname.as_deref().and_then(node).into_iter().collect(),
            Some(m.name.as_str()),
        ),
        Object::ProviderMachine(p) => (Vec::new(), Some(p.name.as_str())),
        Object::ClusterState(s) => (Vec::new(), s.arg.as_deref()),
        _ => (Vec::new(), None),
    }
}

/// The generations of some kinds as a reader last saw them: whether any of
/// them moved since (a reader of a few kinds skips the changes to others).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KindsSeen(Vec<u64>);

impl KindsSeen {
    /// Whether an object of `kinds` changed since the last call (always
    /// on the first); remembers their generations now.
    pub fn moved(&mut self, snap: &Snapshot, kinds: impl IntoIterator<Item = Kind>) -> bool {
        let now: Vec<u64> = kinds.into_iter().map(|k| snap.kind_generation(k)).collect();
        if self.0 == now {
            return false;
        }
        self.0 = now;
        true
    }
}

/// Generations are unique across every snapshot of the process, so a
/// snapshot replaced by another (a test's fixture) never reads as unchanged.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

impl PartialEq for Snapshot {
    /// Equal contents; the generation is bookkeeping, not content.
    fn eq(&self, other: &Snapshot) -> bool {
        self.objects == other.objects
    }
}

impl Snapshot {
    /// Identifies this content: different after every change (0 only for a
    /// snapshot never changed, which is empty).
    pub fn generation(&self) -> u64 {
        self.generation
    }
    /// The generation at which an object of `kind` last changed (0: never):
    /// the same before and after changes to other kinds only.
    pub fn kind_generation(&self, kind: Kind) -> u64 {
        self.kind_generations[kind as usize]
    }
    fn changed(&mut self, kind: Kind) {
        self.generation = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
        self.kind_generations[kind as usize] = self.generation;
    }
    pub fn apply(&mut self, obj: Object) -> Option<Object> {
        self.apply_get(obj).0
    }
    /// [`Snapshot::apply`], also giving the object as now stored: one
    /// search of the map for both (a re-list applies thousands).
    pub fn apply_get(&mut self, obj: Object) -> (Option<Object>, &Object) {
        let key = obj.key();
        self.changed(key.kind);
        let indexes = &mut self.indexes;
        match self.objects.entry(key) {
            Entry::Vacant(e) => {
                indexes.index(e.key(), &obj, true);
                (None, e.insert(obj))
            }
            Entry::Occupied(mut e) => {
                // Unindexed first: the old and the new version may share a name.
                indexes.index(e.key(), e.get(), false);
                indexes.index(e.key(), &obj, true);
                let old = e.insert(obj);
                (Some(old), e.into_mut())
            }
        }
    }
    pub fn remove(&mut self, key: &ObjectKey) -> Option<Object> {
        self.changed(key.kind);
        let old = self.objects.remove(key);
        if let Some(old) = &old {
            self.indexes.index(key, old, false);
        }
        old
    }
    /// Replaces every object of `kind` with `objects` (a re-list).
    pub fn replace_kind(&mut self, kind: Kind, objects: Vec<Object>) {
        self.changed(kind);
        let gone: Vec<ObjectKey> = self.of_kind(kind).map(Object::key).collect();
        for key in &gone {
            self.remove(key);
        }
        for o in objects {
            self.apply(o);
        }
    }
    /// Every object, by key.
    pub fn objects(&self) -> &BTreeMap<ObjectKey, Object> {
        &self.objects
    }
    /// Every object, by key, taken out of the snapshot.
    pub fn into_objects(self) -> BTreeMap<ObjectKey, Object> {
        self.objects
    }
    /// The objects on node `node` (any form of its name): the Node, its
    /// workload locks, vRouter pods and maintenance requests, the
    /// LCMMachines whose hostname it is. Nothing for a blank name: no
    /// object is indexed under one.
    pub fn on_node(&self, node: &str) -> impl Iterator<Item = &Object> {
        self.indexed(self.indexes.by_node.get(short_node(node)))
    }
    /// The Node named `node`, or the first whose name is the same node
    /// (the same short name: `cmp-1` finds `cmp-1.example.net`), through the
    /// index: as `nodes().find(..)` would, without reading every Node.
    pub fn node(&self, node: &str) -> Option<&Node> {
        self.on_node(node).find_map(|o| match o {
            Object::Node(n) if same_node(&n.name, node) => Some(&**n),
            _ => None,
        })
    }
    /// The LCMMachines and provider Machines named `machine`, and the
    /// LCMClusterStates whose `arg` it is.
    pub fn of_machine(&self, machine: &str) -> impl Iterator<Item = &Object> {
        self.indexed(self.indexes.by_machine.get(machine))
    }
    fn indexed<'a>(
        &'a self,
        objects: Option<&'a BTreeMap<ObjectKey, Object>>,
    ) -> impl Iterator<Item = &'a Object> {
        objects.into_iter().flat_map(BTreeMap::values)
    }
    /// The objects of one kind. Keys sort by kind first, so this reads only
    /// that kind's range of the map.
    pub fn of_kind(&self, kind: Kind) -> impl Iterator<Item = &Object> {
        let start = ObjectKey {
            kind,
            namespace: String::new(),
            name: String::new(),
        };
        self.objects
            .range(start..)
            .take_while(move |(k, _)| k.kind == kind)
            .map(|(_, o)| o)
    }
    // The shared copies of the objects the joined rows keep
    // (`domain::join::MachineRow`): the rows point at the snapshot's
    // objects instead of cloning them.
    pub fn shared_machines(&self) -> impl Iterator<Item = &Arc<Machine>> {
        self.of_kind(Kind::LcmMachine).filter_map(|o| match o {
            Object::Machine(x) => Some(x),
            _ => None,
        })
    }
    pub fn shared_nodes(&self) -> impl Iterator<Item = &Arc<Node>> {
        self.of_kind(Kind::Node).filter_map(|o| match o {
            Object::Node(x) => Some(x),
            _ => None,
        })
    }
    pub fn shared_cluster_states(&self) -> impl Iterator<Item = &Arc<ClusterState>> {
        self.of_kind(Kind::LcmClusterState).filter_map(|o| match o {
            Object::ClusterState(x) => Some(x),
            _ => None,
        })
    }
    pub fn shared_node_locks(&self) -> impl Iterator<Item = &Arc<WorkloadLock>> {
        self.of_kind(Kind::NodeWorkloadLock)
            .filter_map(|o| match o {
                Object::NodeWorkloadLock(x) => Some(x),
                _ => None,
            })
    }
    pub fn shared_node_requests(&self) -> impl Iterator<Item = &Arc<NodeMaintenanceRequest>> {
        self.of_kind(Kind::NodeMaintenanceRequest)
            .filter_map(|o| match o {
                Object::NodeMaintenanceRequest(x) => Some(x),
                _ => None,
            })
    }
    pub fn machines(&self) -> impl Iterator<Item = &Machine> {
        self.of_kind(Kind::LcmMachine).filter_map(|o| match o {
            Object::Machine(m) => Some(&**m),
            _ => None,
        })
    }
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.of_kind(Kind::Node).filter_map(|o| match o {
            Object::Node(n) => Some(&**n),
            _ => None,
        })
    }
    pub fn cluster_states(&self) -> impl Iterator<Item = &ClusterState> {
        self.of_kind(Kind::LcmClusterState).filter_map(|o| match o {
            Object::ClusterState(s) => Some(&**s),
            _ => None,
        })
    }
    pub fn node_locks(&self) -> impl Iterator<Item = &WorkloadLock> {
        self.of_kind(Kind::NodeWorkloadLock)
            .filter_map(|o| match o {
                Object::NodeWorkloadLock(l) => Some(&**l),
                _ => None,
            })
    }
    pub fn cluster_locks(&self) -> impl Iterator<Item = &WorkloadLock> {
        self.of_kind(Kind::ClusterWorkloadLock)
            .filter_map(|o| match o {
                Object::ClusterWorkloadLock(l) => Some(&**l),
                _ => None,
            })
    }
    pub fn node_requests(&self) -> impl Iterator<Item = &NodeMaintenanceRequest> {
        self.of_kind(Kind::NodeMaintenanceRequest)
            .filter_map(|o| match o {
                Object::NodeMaintenanceRequest(r) => Some(&**r),
                _ => None,
            })
    }
    pub fn cluster_requests(&self) -> impl Iterator<Item = &ClusterMaintenanceRequest> {
        self.of_kind(Kind::ClusterMaintenanceRequest)
            .filter_map(|o| match o {
                Object::ClusterMaintenanceRequest(r) => Some(&**r),
                _ => None,
            })
    }
    pub fn vrouter_pods(&self) -> impl Iterator<Item = &VrouterPod> {
        self.of_kind(Kind::VrouterPod).filter_map(|o| match o {
            Object::VrouterPod(p) => Some(&**p),
            _ => None,
        })
    }
    pub fn vrouter_daemonsets(&self) -> impl Iterator<Item = &VrouterDaemonSet> {
        self.of_kind(Kind::VrouterDaemonSet)
            .filter_map(|o| match o {
                Object::VrouterDaemonSet(d) => Some(&**d),
                _ => None,
            })
    }
    pub fn lcm_clusters(&self) -> impl Iterator<Item = &LcmCluster> {
        self.of_kind(Kind::LcmCluster).filter_map(|o| match o {
            Object::LcmCluster(c) => Some(&**c),
            _ => None,
        })
    }
    /// The objects `flag` flags, by key: what a rule reads at every
    /// computation instead of every object of a kind.
    pub fn notable(&self, flag: Notable) -> impl Iterator<Item = &Object> {
        self.indexes.notable[flag as usize].values()
    }
    /// The objects that could not be read, by key.
    pub fn malformed(&self) -> impl Iterator<Item = &MalformedObject> {
        self.notable(Notable::Malformed).filter_map(|o| match o {
            Object::Malformed(m) => Some(&**m),
            _ => None,
        })
    }
    pub fn update_plans(&self) -> impl Iterator<Item = &UpdatePlan> {
        self.of_kind(Kind::ClusterUpdatePlan)
            .filter_map(|o| match o {
                Object::UpdatePlan(p) => Some(&**p),
                _ => None,
            })
    }
    pub fn auto_pauses(&self) -> impl Iterator<Item = &UpdateAutoPause> {
        self.of_kind(Kind::UpdateAutoPause).filter_map(|o| match o {
            Object::UpdateAutoPause(p) => Some(&**p),
            _ => None,
        })
    }
    pub fn update_groups(&self) -> impl Iterator<Item = &UpdateGroup> {
        self.of_kind(Kind::UpdateGroup).filter_map(|o| match o {
            Object::UpdateGroup(g) => Some(&**g),
            _ => None,
        })
    }
    pub fn provider_machines(&self) -> impl Iterator<Item = &ProviderMachine> {
        self.of_kind(Kind::ProviderMachine).filter_map(|o| match o {
            Object::ProviderMachine(m) => Some(&**m),
            _ => None,
        })
    }
    pub fn deletion_requests(&self) -> impl Iterator<Item = &NodeNotice> {
        self.of_kind(Kind::NodeDeletionRequest)
            .filter_map(|o| match o {
                Object::NodeDeletionRequest(n) => Some(&**n),
                _ => None,
            })
    }
    pub fn disable_notifications(&self) -> impl Iterator<Item = &NodeNotice> {
        self.of_kind(Kind::NodeDisableNotification)
            .filter_map(|o| match o {
                Object::NodeDisableNotification(n) => Some(&**n),
                _ => None,
            })
    }
    pub fn ceph_deployment_healths(&self) -> impl Iterator<Item = &CephDeploymentHealth> {
        self.of_kind(Kind::CephDeploymentHealth)
            .filter_map(|o| match o {
                Object::CephDeploymentHealth(h) => Some(&**h),
                _ => None,
            })
    }
    pub fn openstack_deployment_statuses(
        &self,
    ) -> impl Iterator<Item = &OpenstackDeploymentStatus> {
        self.of_kind(Kind::OpenstackDeploymentStatus)
            .filter_map(|o| match o {
                Object::OpenstackDeploymentStatus(s) => Some(&**s),
                _ => None,
            })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::domain::fixtures;

    /// What [`Snapshot::on_node`] and [`Snapshot::of_machine`] must give:
    /// found by reading every object, each in its stored version.
    fn scanned(
        snap: &Snapshot,
        node: Option<&str>,
        machine: Option<&str>,
    ) -> BTreeMap<ObjectKey, Object> {
        snap.objects
            .iter()
            .filter(|(_, o)| {
                let (nodes, m) = index_names(o);
                node.is_some_and(|n| nodes.contains(&short_node(n)))
                    || (machine.is_some() && m == machine)
            })
            .map(|(k, o)| (k.clone(), o.clone()))
            .collect()
    }

    fn check(snap: &Snapshot) {
        let mut nodes: BTreeSet<String> = snap.indexes.by_node.keys().cloned().collect();
        let mut machines: BTreeSet<String> = snap.indexes.by_machine.keys().cloned().collect();
        for o in snap.objects.values() {
            let (n, m) = index_names(o);
            nodes.extend(n.into_iter().map(str::to_string));
            machines.extend(m.map(str::to_string));
        }
        nodes.insert("gone.example.net".into());
        // Full names too (the indexes hold short ones).
        nodes.extend(snap.nodes().map(|n| n.name.clone()));
        for n in &nodes {
            let scanned_node = snap.nodes().find(|x| same_node(&x.name, n));
            assert_eq!(snap.node(n), scanned_node, "the Node {n}");
            let got: BTreeMap<ObjectKey, Object> =
                snap.on_node(n).map(|o| (o.key(), o.clone())).collect();
            assert_eq!(got, scanned(snap, Some(n), None), "on node {n}");
        }
        for m in &machines {
            let got: BTreeMap<ObjectKey, Object> =
                snap.of_machine(m).map(|o| (o.key(), o.clone())).collect();
            assert_eq!(got, scanned(snap, None, Some(m)), "of machine {m}");
        }
        for flag in Notable::ALL {
            let scanned: Vec<&Object> = snap.objects.values().filter(|o| flag.holds(o)).collect();
            assert_eq!(
                snap.notable(flag).collect::<Vec<_>>(),
                scanned,
                "the objects flagged {flag:?}"
            );
        }
        // Nothing indexed under a name no object has any more.
        assert!(snap.indexes.by_node.values().all(|k| !k.is_empty()));
        assert!(snap.indexes.by_machine.values().all(|k| !k.is_empty()));
    }

    #[test]
    fn every_flag_follows_its_objects_on_and_off() {
        let mut snap = Snapshot::default();
        for o in fixtures::mid_update().objects.values() {
            snap.apply(o.clone());
        }
        check(&snap);
        let mut seen: BTreeSet<Notable> = Notable::ALL
            .into_iter()
            .filter(|f| snap.notable(*f).next().is_some())
            .collect();
        // Each change flags an object, then takes the flag off again.
        let machine = snap.machines().next().expect("a machine").clone();
        let node = snap.nodes().next().expect("a node").clone();
        let lock = snap.node_locks().next().expect("a lock").clone();
        let provider = fixtures::blockers::provider_machine(&machine.name, false, false);
        let mut stuck = machine.clone();
        stuck.operation_stuck = true;
        stuck.state = MachineState::Deploy;
        let mut ready = machine.clone();
        ready.operation_stuck = false;
        ready.drain_error = None;
        ready.state = MachineState::Ready;
        let mut disabled = provider.clone();
        disabled.disabled = true;
        let mut attempts = node.clone();
        attempts.migration_attempts = Some("3".into());
        let mut odd_mode = node.clone();
        odd_mode.migration_mode = Some(MigrationMode::Other("Live ".into()));
        let mut plain = node.clone();
        plain.migration_attempts = None;
        plain.migration_mode = Some(MigrationMode::Manual);
        let mut failed = lock.clone();
        failed.state = LockState::Failed;
        let mut servers = lock.clone();
        servers.controller = Controller::Openstack;
        servers.state = LockState::Active;
        servers.error_message = Some(ErrorMessage::new(
            "2026-11-27 10:00:00.000000: Some servers ['5b1e0c2a-0000-4000-8000-000000000001'] are still present on host",
        ));
        let mut released = servers.clone();
        released.state = LockState::Inactive;
        let steps = [
            Object::Machine(Arc::new(stuck)),
            Object::Machine(Arc::new(ready)),
            Object::ProviderMachine(Arc::new(disabled)),
            Object::ProviderMachine(Arc::new(provider)),
            Object::Node(Arc::new(attempts)),
            Object::Node(Arc::new(odd_mode)),
            Object::Node(Arc::new(plain)),
            Object::NodeWorkloadLock(Arc::new(failed)),
            Object::NodeWorkloadLock(Arc::new(servers)),
            Object::NodeWorkloadLock(Arc::new(released)),
        ];
        for step in steps {
            let flags: Vec<Notable> = Notable::ALL
                .into_iter()
                .filter(|f| f.holds(&step))
                .collect();
            snap.apply(step);
            check(&snap);
            seen.extend(flags);
        }
        // Every flag was on at some point (the malformed one in
        // `the_indexes_follow_every_change_of_the_objects`).
        seen.insert(Notable::Malformed);
        assert_eq!(seen, Notable::ALL.into_iter().collect::<BTreeSet<_>>());
        // And off again: only what the fixture itself flags is left.
        let machine_key = ObjectKey::new(Kind::LcmMachine, &machine.namespace, &machine.name);
        assert!(
            snap.notable(Notable::MachineTrouble)
                .chain(snap.notable(Notable::MachineBusy))
                .all(|o| o.key() != machine_key)
        );
        assert_eq!(snap.notable(Notable::MachineDisabled).count(), 0);
    }

    #[test]
    fn a_node_name_is_cut_at_its_first_dot() {
        for (name, short) in [
            ("cmp-1.example.net", "cmp-1"),
            ("cmp-1", "cmp-1"),
            ("cmp-1.", "cmp-1"),
            (".example.net", ""),
            ("", ""),
            ("nœud-1.example.net", "nœud-1"),
        ] {
            assert_eq!(short_node(name), short, "{name}");
        }
        assert!(same_node("cmp-1.example.net", "cmp-1"));
        assert!(!same_node("cmp-1.example.net", "cmp-10"));
    }

    #[test]
    fn a_kinds_generation_moves_with_its_own_objects_only() {
        let mut snap = Snapshot::default();
        for o in fixtures::mid_update().objects.values() {
            snap.apply(o.clone());
        }
        let mut seen = KindsSeen::default();
        assert!(
            seen.moved(&snap, [Kind::Node, Kind::VrouterPod]),
            "first read"
        );
        assert!(!seen.moved(&snap, [Kind::Node, Kind::VrouterPod]));
        let (nodes, locks) = (
            snap.kind_generation(Kind::Node),
            snap.kind_generation(Kind::NodeWorkloadLock),
        );
        let lock = snap.node_locks().next().expect("a lock").clone();
        snap.apply(Object::NodeWorkloadLock(Arc::new(lock)));
        assert_eq!(snap.kind_generation(Kind::Node), nodes);
        assert!(snap.kind_generation(Kind::NodeWorkloadLock) > locks);
        assert!(!seen.moved(&snap, [Kind::Node, Kind::VrouterPod]));
        let node = snap.nodes().next().expect("a node").name.clone();
        snap.remove(&ObjectKey::new(Kind::Node, "", &node));
        assert!(seen.moved(&snap, [Kind::Node, Kind::VrouterPod]));
        snap.replace_kind(Kind::VrouterPod, Vec::new());
        assert!(seen.moved(&snap, [Kind::Node, Kind::VrouterPod]));
        assert_eq!(snap.kind_generation(Kind::VrouterPod), snap.generation());
    }

    #[test]
    fn the_indexes_follow_every_change_of_the_objects() {
        let full = fixtures::mid_update();
        let mut snap = Snapshot::default();
        for o in full.objects.values() {
            snap.apply(o.clone());
        }
        check(&snap);
        // A machine moves to another node; a lock is re-pointed under the
        // same name; a Node is removed; a kind is re-listed with one less.
        let mut moved = snap.machines().nth(1).expect("a machine").clone();
        moved.hostname = Some("elsewhere.example.net".into());
        snap.apply(Object::Machine(Arc::new(moved)));
        check(&snap);
        // A change that keeps the names: the indexes give the new version.
        let mut same = snap.machines().nth(2).expect("a machine").clone();
        same.agent_version = Some("changed in place".into());
        snap.apply(Object::Machine(Arc::new(same)));
        check(&snap);
        let mut lock = snap.node_locks().next().expect("a lock").clone();
        lock.node_name = Some("elsewhere".into());
        snap.apply(Object::NodeWorkloadLock(Arc::new(lock)));
        check(&snap);
        let node = snap.nodes().next().expect("a node").name.clone();
        snap.remove(&ObjectKey::new(Kind::Node, "", &node));
        check(&snap);
        let states: Vec<Object> = snap
            .of_kind(Kind::LcmClusterState)
            .skip(1)
            .cloned()
            .collect();
        snap.replace_kind(Kind::LcmClusterState, states);
        check(&snap);
        let pods: Vec<Object> = Vec::new();
        snap.replace_kind(Kind::VrouterPod, pods);
        check(&snap);
        // A machine that can no longer be read, then read again; a node
        // lock that cannot be read, then deleted.
        let machine = snap.machines().nth(3).expect("a machine").clone();
        let unreadable = |kind, name: &str| {
            Object::Malformed(Arc::new(MalformedObject {
                kind,
                namespace: if kind == Kind::LcmMachine {
                    machine.namespace.clone()
                } else {
                    String::new()
                },
                name: name.to_string(),
                error: "missing field `status`".into(),
            }))
        };
        snap.apply(unreadable(Kind::LcmMachine, &machine.name));
        let lock = snap.node_locks().nth(1).expect("a lock").name.clone();
        snap.apply(unreadable(Kind::NodeWorkloadLock, &lock));
        assert_eq!(snap.malformed().count(), 2);
        check(&snap);
        snap.apply(Object::Machine(Arc::new(machine)));
        check(&snap);
        snap.remove(&ObjectKey::new(Kind::NodeWorkloadLock, "", &lock));
        assert_eq!(snap.malformed().count(), 0);
        check(&snap);
    }
}
