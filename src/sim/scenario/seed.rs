//! The objects both clusters hold before the update starts.

use super::engine::{CWL, Ctx, NWL, check};
use super::kaas_objects::{self as kaas, AUTOPAUSES, MACHINES, NDN, PLANS, UPDATEGROUPS};
use super::lcm::KERNEL_FROM;
use super::nova::NewServer;
use super::objects;
use super::spec::Controller;

/// Namespaces of the management cluster (the project namespace is added).
const MGMT_NAMESPACES: &[&str] = &["default", "kube-system", "kaas"];
/// Namespaces of the MOSK cluster (the Ceph and StackLight ones are inferred).
const MOSK_NAMESPACES: &[&str] = &[
    "default",
    "kube-system",
    "openstack",
    "osh-system",
    "tf",
    "ceph-lcm-mirantis",
    "rook-ceph",
    "stacklight",
];

/// Creates namespaces, the LCMCluster and LCMMachines (and those of the
/// `other_clusters`, which nothing changes afterwards), the lcm-controller
/// pod, Nodes, cluster and node locks (all active, old release), and Nova's
/// servers. The vRouter DaemonSet is seeded by its controller.
pub fn seed(ctx: &mut Ctx, lcm_rs_hash: &str) {
    let spec = ctx.spec;
    let now = ctx.now;
    for ns in MGMT_NAMESPACES
        .iter()
        .copied()
        .chain([spec.namespace.as_str()])
    {
        check(
            ctx.mgmt.create("namespaces", objects::namespace(ns, now)),
            "create namespace",
        );
    }
    check(
        ctx.mgmt
            .create("lcmclusters", objects::lcm_cluster(spec, now)),
        "create LCMCluster",
    );
    for other in &spec.other_clusters {
        if ctx.mgmt.get("namespaces", None, &other.namespace).is_none() {
            check(
                ctx.mgmt
                    .create("namespaces", objects::namespace(&other.namespace, now)),
                "create namespace",
            );
        }
        let (cluster, machines) = objects::other_cluster(spec, other, now);
        check(ctx.mgmt.create("lcmclusters", cluster), "create LCMCluster");
        for m in machines {
            check(ctx.mgmt.create("lcmmachines", m), "create LCMMachine");
        }
    }
    for m in ctx.machines {
        check(
            ctx.mgmt
                .create("lcmmachines", objects::lcm_machine(spec, m, now)),
            "create LCMMachine",
        );
        check(
            ctx.mgmt.create(MACHINES, kaas::machine(spec, m, now)),
            "create Machine",
        );
    }
    for g in &spec.update_groups {
        check(
            ctx.mgmt
                .create(UPDATEGROUPS, kaas::update_group(spec, g, now)),
            "create UpdateGroup",
        );
    }
    if let Some(plan) = &spec.plan {
        check(
            ctx.mgmt
                .create(PLANS, kaas::cluster_update_plan(spec, plan, now)),
            "create ClusterUpdatePlan",
        );
    }
    if let Some(ap) = &spec.auto_pause {
        check(
            ctx.mgmt
                .create(AUTOPAUSES, kaas::update_auto_pause(spec, &ap.alerts, now)),
            "create UpdateAutoPause",
        );
    }
    check(
        ctx.mgmt.create(
            "pods",
            objects::lcm_controller_pod(ctx.lcm_pod, lcm_rs_hash, now),
        ),
        "create lcm-controller pod",
    );

    for ns in MOSK_NAMESPACES {
        check(
            ctx.mosk.create("namespaces", objects::namespace(ns, now)),
            "create namespace",
        );
    }
    let release = &spec.release.controller_from;
    for c in [Controller::Openstack, Controller::Ceph, Controller::Tf] {
        check(
            ctx.mosk
                .create(CWL, objects::cluster_lock(c, &spec.cluster, release)),
            "create cluster lock",
        );
    }
    for m in ctx.machines {
        check(
            ctx.mosk.create("nodes", objects::node(m, KERNEL_FROM, now)),
            "create Node",
        );
        for c in [Controller::Openstack, Controller::Ceph, Controller::Tf] {
            if m.has_lock(c) {
                let mut lock = objects::node_lock(c, m, release);
                if m.lock_left_inactive == Some(c) {
                    lock["status"]["state"] = "inactive".into();
                }
                check(ctx.mosk.create(NWL, lock), "create node lock");
            }
        }
        if m.disabled {
            check(
                ctx.mosk
                    .create(NDN, kaas::node_disable_notification(m, now)),
                "create NodeDisableNotification",
            );
        }
        if m.is_compute() {
            ctx.nova.add_host(&m.node);
            // Names, projects and flavors are derived, not drawn, so the
            // seeded names of everything else stay as they were.
            for (k, s) in m.servers.iter().enumerate() {
                ctx.nova.add_server(NewServer {
                    id: &s.id,
                    name: format!("vm-{:02}-{k:02}", m.role_index),
                    project: ["tenant-a", "tenant-b", "tenant-c"][k % 3].to_string(),
                    flavor: ["m1.small", "m1.medium", "m1.large"][k % 3].to_string(),
                    host: &m.node,
                    state: s.state,
                    problem: s.problem,
                    tag: s.tag,
                });
            }
        }
    }
}
