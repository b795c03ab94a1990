//! The store of everything the console knows: the latest version of each
//! watched object, with typed accessors per kind.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::*;

/// Everything the console currently knows about both clusters: the latest
/// version of each watched object, keyed by kind, namespace and name.
///
/// Changed only through its methods, each of which gives the snapshot a new
/// [`Snapshot::generation`]: what is computed from a snapshot remembers the
/// generation it was computed from, and is recomputed only when it moved.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub objects: BTreeMap<ObjectKey, Object>,
    generation: u64,
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
    fn changed(&mut self) {
        self.generation = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
    }
    pub fn apply(&mut self, obj: Object) -> Option<Object> {
        self.changed();
        self.objects.insert(obj.key(), obj)
    }
    pub fn remove(&mut self, key: &ObjectKey) -> Option<Object> {
        self.changed();
        self.objects.remove(key)
    }
    /// Replaces every object of `kind` with `objects` (a re-list).
    pub fn replace_kind(&mut self, kind: Kind, objects: Vec<Object>) {
        self.changed();
        self.objects.retain(|k, _| k.kind != kind);
        for o in objects {
            self.apply(o);
        }
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
    pub fn malformed(&self) -> impl Iterator<Item = &MalformedObject> {
        self.objects.values().filter_map(|o| match o {
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
}
