//! Which MOSK cluster the console follows, and whether the MOSK context
//! belongs to it.
//!
//! A MOSK cluster is named by its LCMCluster (`lcm.mirantis.com/v1alpha1`,
//! namespaced, in the cluster's project namespace of the management cluster;
//! reference §1 and §7.3): the LCMMachines and LCMClusterStates name it in
//! `spec.clusterName`. [`choose`] picks it from the LCMClusters the
//! management context can see and what the operator asked for (`-n`,
//! `--cluster`); [`check_mosk_context`] compares the MOSK context's Nodes with
//! the node names of the cluster's LCMMachines.

use std::collections::HashSet;
use std::fmt;

use super::objects::{Object, Snapshot, short_node};

/// One MOSK cluster of the management cluster: its LCMCluster's namespace
/// (the project namespace) and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClusterRef {
    pub namespace: String,
    pub name: String,
}

impl ClusterRef {
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> ClusterRef {
        ClusterRef {
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

impl fmt::Display for ClusterRef {
    /// `child-ns/child-cl`, as kubectl names a namespaced object.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// What the operator asked for: `--namespace` and `--cluster`, each optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wanted {
    pub namespace: Option<String>,
    pub name: Option<String>,
}

impl Wanted {
    /// Where the LCMClusters were looked for, in words.
    pub fn scope(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("namespace {ns}"),
            None => "any namespace".to_string(),
        }
    }
}

/// The cluster to follow, or the ones the operator chooses from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Exactly one cluster answers what was asked: follow it.
    Use(ClusterRef),
    /// Several do (sorted): the operator picks one in the console.
    Pick(Vec<ClusterRef>),
}

/// Chooses among the LCMClusters `found` (in [`Wanted::scope`]) what the
/// operator asked for. `Err` is the one-paragraph error the console stops
/// with: none found, or no cluster of the name asked for (listing the ones
/// found). `mgmt_context` names the management context in it.
pub fn choose(
    mut found: Vec<ClusterRef>,
    wanted: &Wanted,
    mgmt_context: &str,
) -> Result<Choice, String> {
    found.sort();
    found.dedup();
    let scope = wanted.scope();
    let mut matching: Vec<ClusterRef> = match &wanted.name {
        Some(name) => found.iter().filter(|c| &c.name == name).cloned().collect(),
        None => found.clone(),
    };
    match (matching.len(), &wanted.name) {
        (1, _) => Ok(Choice::Use(matching.remove(0))),
        (0, None) => Err(format!(
            "the management context {mgmt_context} has no LCMCluster in {scope}: no MOSK \
             cluster to follow. Check that {mgmt_context} is the management cluster of your \
             MOSK cluster (--kubeconfig, --mgmt-context){}",
            match wanted.namespace {
                Some(_) => " and that --namespace is its project namespace",
                None => "",
            }
        )),
        (0, Some(name)) => Err(format!(
            "the management context {mgmt_context} has no LCMCluster named {name} in {scope}; \
             {}. Start again with --cluster naming one of them{}",
            found_text(&found),
            match wanted.namespace {
                Some(_) => " (and --namespace its project namespace)",
                None => "",
            }
        )),
        _ => Ok(Choice::Pick(matching)),
    }
}

/// `found: child-ns/child-cl, prod-ns/prod-cl` or `found none`.
fn found_text(found: &[ClusterRef]) -> String {
    if found.is_empty() {
        return "it has none".to_string();
    }
    let names: Vec<String> = found.iter().map(ToString::to_string).collect();
    format!("found: {}", names.join(", "))
}

/// Whether the MOSK context is the MOSK cluster the console follows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum MoskContextCheck {
    /// Nothing to compare yet: no LCMMachine names a node, or the MOSK
    /// context has no Node (or their lists are not in).
    #[default]
    Unknown,
    /// At least one Node is a node the cluster's LCMMachines name.
    Matches,
    /// None of the MOSK context's Nodes is a node of the cluster.
    Mismatch(Mismatch),
}

/// What the check saw when the MOSK context is another cluster's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The MOSK context's Nodes.
    pub nodes: usize,
    /// The node names the cluster's LCMMachines give.
    pub machine_nodes: usize,
    /// One of each, to show (the first by name).
    pub a_node: String,
    pub a_machine_node: String,
}

impl MoskContextCheck {
    pub fn is_mismatch(&self) -> bool {
        matches!(self, MoskContextCheck::Mismatch(_))
    }

    /// Why writes are refused, naming both contexts and the cluster;
    /// `None` unless the MOSK context is another cluster's.
    pub fn refusal(&self, mosk_context: &str, mgmt_context: &str, cluster: &str) -> Option<String> {
        let MoskContextCheck::Mismatch(m) = self else {
            return None;
        };
        Some(format!(
            "the MOSK context {mosk_context} is not cluster {cluster} of the management \
             context {mgmt_context}: none of its {} nodes (e.g. {}) is one of the {} nodes the \
             cluster's LCMMachines name (e.g. {}); writes are refused. Start again with \
             --mosk-context naming this cluster's MOSK context",
            m.nodes, m.a_node, m.machine_nodes, m.a_machine_node
        ))
    }
}

/// Compares the MOSK context's Nodes with the node names of the cluster's
/// LCMMachines (the `Hostname` address; the snapshot holds only the followed
/// cluster's machines).
///
/// One node in common is enough for a match: a machine whose node has not
/// joined yet (being provisioned, a worker being added) names a node the
/// MOSK cluster does not have, and a node whose machine is being removed may
/// outlive its LCMMachine; neither means the contexts disagree. Two
/// different clusters share no node: node names are `kaas-node-<uuid>`, one
/// uuid per machine (reference §1). So the contexts disagree only when both
/// sides name nodes and not one is on both; with nothing on one side the
/// check stays unknown.
pub fn check_mosk_context(snap: &Snapshot) -> MoskContextCheck {
    // The snapshot's node index holds a Node and the LCMMachines whose
    // hostname it is under one name: the first Node with a machine answers
    // without building the set of every machine's node, which each change
    // to the clusters would otherwise do (2,000 machines on `large`).
    let indexed_match = snap.nodes().any(|n| {
        snap.on_node(&n.name)
            .any(|o| matches!(o, Object::Machine(m) if m.hostname.as_deref().is_some_and(|h| !h.is_empty())))
    });
    if indexed_match {
        return MoskContextCheck::Matches;
    }
    let machine_nodes: HashSet<&str> = snap
        .machines()
        .filter_map(|m| m.hostname.as_deref())
        .filter(|h| !h.is_empty())
        .map(short_node)
        .collect();
    let mut nodes = 0;
    let mut a_node: Option<&str> = None;
    for n in snap.nodes() {
        if machine_nodes.contains(short_node(&n.name)) {
            return MoskContextCheck::Matches;
        }
        nodes += 1;
        if a_node.is_none_or(|a| n.name.as_str() < a) {
            a_node = Some(&n.name);
        }
    }
    match (a_node, machine_nodes.iter().min()) {
        (Some(a_node), Some(a_machine_node)) => MoskContextCheck::Mismatch(Mismatch {
            nodes,
            machine_nodes: machine_nodes.len(),
            a_node: a_node.to_string(),
            a_machine_node: a_machine_node.to_string(),
        }),
        _ => MoskContextCheck::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::domain::fixtures;
    use crate::domain::objects::Object;

    fn refs(names: &[(&str, &str)]) -> Vec<ClusterRef> {
        names
            .iter()
            .map(|(ns, n)| ClusterRef::new(*ns, *n))
            .collect()
    }

    fn wanted(ns: Option<&str>, name: Option<&str>) -> Wanted {
        Wanted {
            namespace: ns.map(str::to_string),
            name: name.map(str::to_string),
        }
    }

    #[test]
    fn one_cluster_is_used_several_are_picked_from_none_is_an_error() {
        let one = refs(&[("child-ns", "child-cl")]);
        assert_eq!(
            choose(one, &Wanted::default(), "mgmt"),
            Ok(Choice::Use(ClusterRef::new("child-ns", "child-cl")))
        );
        let two = refs(&[("prod-ns", "prod-cl"), ("child-ns", "child-cl")]);
        assert_eq!(
            choose(two, &Wanted::default(), "mgmt"),
            Ok(Choice::Pick(refs(&[
                ("child-ns", "child-cl"),
                ("prod-ns", "prod-cl")
            ])))
        );
        let none = choose(Vec::new(), &wanted(Some("child-ns"), None), "mgmt").unwrap_err();
        assert!(
            none.contains("the management context mgmt has no LCMCluster in namespace child-ns")
                && none.contains("--namespace"),
            "{none}"
        );
    }

    #[test]
    fn a_name_is_looked_for_and_its_absence_lists_what_was_found() {
        let found = refs(&[("a-ns", "a-cl"), ("b-ns", "b-cl"), ("c-ns", "b-cl")]);
        assert_eq!(
            choose(found.clone(), &wanted(None, Some("a-cl")), "mgmt"),
            Ok(Choice::Use(ClusterRef::new("a-ns", "a-cl")))
        );
        // The same name in two namespaces: the operator picks.
        assert_eq!(
            choose(found.clone(), &wanted(None, Some("b-cl")), "mgmt"),
            Ok(Choice::Pick(refs(&[("b-ns", "b-cl"), ("c-ns", "b-cl")])))
        );
        let err = choose(found, &wanted(None, Some("prod-cl")), "mgmt").unwrap_err();
        assert!(
            err.contains("has no LCMCluster named prod-cl in any namespace")
                && err.contains("found: a-ns/a-cl, b-ns/b-cl, c-ns/b-cl"),
            "{err}"
        );
        let err = choose(Vec::new(), &wanted(Some("x"), Some("prod-cl")), "mgmt").unwrap_err();
        assert!(err.contains("it has none"), "{err}");
    }

    #[test]
    fn the_mosk_context_matches_when_one_node_is_a_machines_node() {
        let snap = fixtures::mid_update();
        assert_eq!(check_mosk_context(&snap), MoskContextCheck::Matches);
        // A machine whose node has not joined yet changes nothing.
        let mut joining = snap.clone();
        let mut m = (**snap.shared_machines().next().unwrap()).clone();
        m.name = "new-worker".into();
        m.hostname = Some("kaas-node-not-joined".into());
        joining.apply(Object::Machine(Arc::new(m)));
        assert_eq!(check_mosk_context(&joining), MoskContextCheck::Matches);
    }

    #[test]
    fn the_mosk_context_of_another_cluster_is_a_mismatch_and_nothing_is_unknown() {
        let snap = fixtures::mid_update();
        let mut other = Snapshot::default();
        for o in snap.objects().values() {
            match o {
                Object::Node(n) => {
                    let mut n = (**n).clone();
                    n.name = format!("staging-{}", n.name);
                    other.apply(Object::Node(Arc::new(n)));
                }
                o => {
                    other.apply(o.clone());
                }
            }
        }
        let check = check_mosk_context(&other);
        let MoskContextCheck::Mismatch(m) = &check else {
            panic!("{check:?}")
        };
        assert!(m.a_node.starts_with("staging-") && !m.a_machine_node.starts_with("staging-"));
        assert_eq!(m.nodes, snap.nodes().count());
        let why = check
            .refusal("staging", "prod-mgmt", "child-ns/child-cl")
            .unwrap();
        assert!(
            why.contains("the MOSK context staging is not cluster child-ns/child-cl of the management context prod-mgmt")
                && why.contains("writes are refused"),
            "{why}"
        );
        // Nothing on one side: not known.
        assert_eq!(
            check_mosk_context(&Snapshot::default()),
            MoskContextCheck::Unknown
        );
        let mut no_nodes = snap.clone();
        for n in snap.nodes() {
            no_nodes.remove(&Object::Node(Arc::new(n.clone())).key());
        }
        assert_eq!(check_mosk_context(&no_nodes), MoskContextCheck::Unknown);
    }
}
