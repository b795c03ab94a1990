//! Update groups (reference `mosk-update-plan.md` §3): which `UpdateGroup`
//! each machine is in, the order groups run in and how many machines of a
//! group update at once.
//!
//! Reading rules:
//! - a Machine names its group with the `kaas.mirantis.com/update-group`
//!   label \[W\]; a Machine without it is in `<cluster>-default` \[I\];
//! - control-plane machines are in `<cluster>-control` when that group exists
//!   (MCC 2.28+), else in the default group like the others \[I\];
//! - groups run in increasing `spec.index`, groups of the same index together;
//!   the control plane always goes first, one machine at a time \[C: D-ORDER\];
//! - the LCMMachine and its provider Machine share a name \[I\];
//! - a disabled Machine (`spec.providerSpec.value.disable`) "is ignored in all
//!   calculations" (§5.3).

use foldhash::HashMap;

use super::objects::{Machine, MachineType, Object, ProviderMachine, Snapshot, UpdateGroup};

/// The update group of one machine, as the screen and the ETA read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRef {
    /// The UpdateGroup's name (from the label, or the default/control name).
    pub name: String,
    /// `spec.index`, when the UpdateGroup is known.
    pub index: Option<i64>,
    /// `spec.concurrentUpdates`, when the UpdateGroup is known.
    pub concurrency: Option<i64>,
    /// The UpdateGroup object exists (a label may name a missing group).
    pub found: bool,
}

impl GroupRef {
    fn of(name: String, group: Option<&UpdateGroup>) -> GroupRef {
        GroupRef {
            name,
            index: group.and_then(|g| g.index),
            concurrency: group.and_then(|g| g.concurrent_updates),
            found: group.is_some(),
        }
    }

    /// `rack-1 #2 x3`: name, index and concurrency, each when known;
    /// `rack-1 (missing)` when no such UpdateGroup exists.
    pub fn label(&self) -> String {
        if !self.found {
            return format!("{} (missing)", self.name);
        }
        let mut s = self.name.clone();
        if let Some(i) = self.index {
            s.push_str(&format!(" #{i}"));
        }
        if let Some(c) = self.concurrency {
            s.push_str(&format!(" x{c}"));
        }
        s
    }

    /// Machines of the group updated at once (at least 1; 1 when unknown).
    /// \[C: D-UG\] `concurrentUpdates` is an upper bound: the per-role limits
    /// may hold fewer at once.
    pub fn lanes(&self) -> usize {
        self.concurrency.unwrap_or(1).max(1) as usize
    }
}

/// The name of a cluster's default group.
pub fn default_group_name(cluster: &str) -> String {
    format!("{cluster}-default")
}

/// The name of a cluster's control group.
pub fn control_group_name(cluster: &str) -> String {
    format!("{cluster}-control")
}

/// Provider Machines and UpdateGroups indexed by namespace and name, built
/// once per join.
#[derive(Default)]
pub struct GroupIndex<'a> {
    providers: HashMap<(&'a str, &'a str), &'a ProviderMachine>,
    groups: HashMap<(&'a str, &'a str), &'a UpdateGroup>,
}

impl<'a> GroupIndex<'a> {
    pub fn new(snap: &'a Snapshot) -> GroupIndex<'a> {
        GroupIndex::of(snap, snap.provider_machines())
    }

    /// Every update group of `snap`, and `providers`.
    fn of(
        snap: &'a Snapshot,
        providers: impl Iterator<Item = &'a ProviderMachine>,
    ) -> GroupIndex<'a> {
        let mut index = GroupIndex::default();
        for p in providers {
            index
                .providers
                .insert((p.namespace.as_str(), p.name.as_str()), p);
        }
        for g in snap.update_groups() {
            index
                .groups
                .insert((g.namespace.as_str(), g.name.as_str()), g);
        }
        index
    }

    /// The index for one machine: its provider Machine only (every group),
    /// for re-joining a few machines without a map of every provider Machine.
    pub fn for_machine(snap: &'a Snapshot, m: &Machine) -> GroupIndex<'a> {
        let mine = snap.of_machine(&m.name).find_map(|o| match o {
            Object::ProviderMachine(p) if p.namespace == m.namespace => Some(&**p),
            _ => None,
        });
        GroupIndex::of(snap, mine.into_iter())
    }

    /// The cluster has UpdateGroups: the update runs by group.
    pub fn has_groups(&self) -> bool {
        !self.groups.is_empty()
    }

    /// The provider Machine of an LCMMachine (same namespace and name \[I\]).
    pub fn provider(&self, m: &Machine) -> Option<&'a ProviderMachine> {
        self.providers
            .get(&(m.namespace.as_str(), m.name.as_str()))
            .copied()
    }

    fn group(&self, namespace: &str, name: &str) -> Option<&'a UpdateGroup> {
        self.groups.get(&(namespace, name)).copied()
    }

    /// The machine is a control-plane machine (by its provider Machine's
    /// label, or its LCMMachine type).
    pub fn control_plane(&self, m: &Machine) -> bool {
        m.machine_type == MachineType::Control || self.provider(m).is_some_and(|p| p.control_plane)
    }

    /// The machine's provider Machine is disabled.
    pub fn disabled(&self, m: &Machine) -> bool {
        self.provider(m).is_some_and(|p| p.disabled)
    }

    /// The update group of `m`; `None` when neither its provider Machine
    /// nor any UpdateGroup is known (a cluster older than MCC 2.27, or
    /// kinds not served).
    pub fn group_of(&self, m: &Machine) -> Option<GroupRef> {
        let provider = self.provider(m);
        if provider.is_none() && !self.has_groups() {
            return None;
        }
        let ns = m.namespace.as_str();
        let cluster = provider
            .and_then(|p| p.cluster.as_deref())
            .filter(|c| !c.is_empty())
            .unwrap_or(m.cluster_name.as_str());
        // Control-plane machines are always in the control group and cannot
        // be moved [C: D-UG]: a label says otherwise only when stale.
        if self.control_plane(m) {
            let control = control_group_name(cluster);
            if let Some(g) = self.group(ns, &control) {
                return Some(GroupRef::of(control, Some(g)));
            }
        }
        if let Some(label) = provider
            .and_then(|p| p.update_group.as_deref())
            .filter(|l| !l.trim().is_empty())
        {
            return Some(GroupRef::of(label.to_string(), self.group(ns, label)));
        }
        let default = default_group_name(cluster);
        let g = self.group(ns, &default);
        Some(GroupRef::of(default, g))
    }
}

/// Where a machine's group stands in the update order: the control plane
/// first, then groups by index (unknown last), then by name. Groups with the
/// same stage run together.
pub fn stage(control_plane: bool, group_index: Option<i64>) -> (u8, i64) {
    if control_plane {
        (0, 0)
    } else {
        (1, group_index.unwrap_or(i64::MAX))
    }
}

/// How long `jobs` take on `lanes` machines at once: each job goes to the
/// lane that frees first, in the order given (put machines already running
/// first). With `n` equal jobs of length `d`: `ceil(n / lanes) * d`.
pub fn makespan(jobs: &[jiff::SignedDuration], lanes: usize) -> jiff::SignedDuration {
    let mut load = vec![jiff::SignedDuration::ZERO; lanes.max(1)];
    for j in jobs {
        let least = load
            .iter_mut()
            .min()
            .expect("at least one lane is always there");
        *least += *j;
    }
    load.into_iter().max().unwrap_or(jiff::SignedDuration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::fixtures::{self, names::*, update_groups as ug};
    use crate::domain::objects::Object;
    use jiff::SignedDuration;
    use std::sync::Arc;

    fn group_label(snap: &Snapshot, machine: &str) -> Option<String> {
        let index = GroupIndex::new(snap);
        let m = snap.machines().find(|m| m.name == machine).unwrap();
        index.group_of(m).map(|g| g.label())
    }

    #[test]
    fn labels_default_and_control_groups() {
        let snap = ug::grouped();
        assert_eq!(
            group_label(&snap, MASTER_0).as_deref(),
            Some("child-cl-control #1 x1")
        );
        assert_eq!(
            group_label(&snap, WORKER_1).as_deref(),
            Some("child-cl-rack-1 #2 x3")
        );
        assert_eq!(
            group_label(&snap, WORKER_3).as_deref(),
            Some("child-cl-rack-2 #2 x1")
        );
        // No label: the default group.
        assert_eq!(
            group_label(&snap, WORKER_4).as_deref(),
            Some("child-cl-default #1 x1")
        );
    }

    #[test]
    fn a_stale_label_does_not_move_a_master_out_of_the_control_group() {
        let mut snap = ug::grouped();
        snap.apply(Object::ProviderMachine(Arc::new(ug::provider(
            MASTER_0,
            Some("child-cl-rack-1"),
        ))));
        assert_eq!(
            group_label(&snap, MASTER_0).as_deref(),
            Some("child-cl-control #1 x1")
        );
    }

    #[test]
    fn masters_go_to_default_group_without_a_control_group() {
        let mut snap = ug::grouped();
        snap.remove(&Object::UpdateGroup(Arc::new(ug::group("child-cl-control", 1, 1))).key());
        assert_eq!(
            group_label(&snap, MASTER_0).as_deref(),
            Some("child-cl-default #1 x1")
        );
    }

    #[test]
    fn a_label_naming_a_missing_group_says_so() {
        let mut snap = ug::grouped();
        snap.apply(Object::ProviderMachine(Arc::new(ug::provider(
            WORKER_4,
            Some("child-cl-rack-9"),
        ))));
        assert_eq!(
            group_label(&snap, WORKER_4).as_deref(),
            Some("child-cl-rack-9 (missing)")
        );
    }

    #[test]
    fn no_group_known_on_older_clusters() {
        assert_eq!(group_label(&fixtures::mid_update(), WORKER_1), None);
    }

    #[test]
    fn makespan_fills_lanes() {
        let m = SignedDuration::from_mins;
        assert_eq!(makespan(&[m(10); 4], 3), m(20));
        assert_eq!(makespan(&[m(10); 3], 3), m(10));
        assert_eq!(makespan(&[m(10); 7], 3), m(30));
        // A machine 6 minutes from done frees its lane first.
        assert_eq!(makespan(&[m(6), m(10), m(10), m(10)], 3), m(16));
        assert_eq!(makespan(&[], 3), SignedDuration::ZERO);
        assert_eq!(makespan(&[m(5)], 0), m(5));
    }
}
