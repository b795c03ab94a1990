use serde_json::json;

use super::*;
use crate::domain::objects::{
    ClusterStateType, Controller, Impact, LockState, MachineState, MachineType, StepStatus,
};

fn dynobj(v: serde_json::Value) -> DynamicObject {
    serde_json::from_value(v).expect("a DynamicObject")
}

#[test]
fn machine_reads_spec_status_addresses_and_index() {
    let o = dynobj(json!({
        "apiVersion": "lcm.mirantis.com/v1alpha1", "kind": "LCMMachine",
        "metadata": {"name": "m-worker-1", "namespace": "child-ns", "uid": "u1",
                     "annotations": {"lcm.mirantis.com/index": "3"},
                     "managedFields": [{"manager": "x"}]},
        "spec": {"clusterName": "child-cl", "type": "worker", "future": {"x": 1}},
        "status": {"state": "Prepare", "agentVersion": "1.2", "release": "17.3.0",
                   "addresses": [{"type": "InternalIP", "address": "10.0.0.5"},
                                 {"type": "Hostname", "address": "kaas-node-1"}]}
    }));
    let Object::Machine(m) = convert(Kind::LcmMachine, &o) else {
        panic!("not a machine: {:?}", convert(Kind::LcmMachine, &o));
    };
    assert_eq!(m.name, "m-worker-1");
    assert_eq!(m.cluster_name, "child-cl");
    assert_eq!(m.machine_type, MachineType::Worker);
    assert_eq!(m.state, MachineState::Prepare);
    assert_eq!(m.internal_ip.as_deref(), Some("10.0.0.5"));
    assert_eq!(m.hostname.as_deref(), Some("kaas-node-1"));
    assert_eq!(m.index, Some(3));
    assert_eq!(m.release.as_deref(), Some("17.3.0"));
}

/// Values the console does not know are kept, sanitized, with their own
/// text; missing ones are empty: nothing is dropped or renamed.
#[test]
fn unknown_states_types_and_controllers_are_kept_with_their_text() {
    let machine = dynobj(json!({
        "metadata": {"name": "m-new", "namespace": "child-ns"},
        "spec": {"clusterName": "child-cl", "type": "storage"},
        "status": {"state": "Provision\u{1b}[31m"}
    }));
    let Object::Machine(m) = convert(Kind::LcmMachine, &machine) else {
        panic!("not a machine");
    };
    assert_eq!(m.machine_type, MachineType::Other("storage".into()));
    assert_eq!(m.state.as_str(), sanitize("Provision\u{1b}[31m"));
    assert!(m.state.as_str().starts_with("Provision"), "{:?}", m.state);
    assert!(!m.state.as_str().contains('\u{1b}'), "{:?}", m.state);

    let bare = dynobj(json!({"metadata": {"name": "m-bare", "namespace": "child-ns"}}));
    let Object::Machine(m) = convert(Kind::LcmMachine, &bare) else {
        panic!("not a machine");
    };
    assert_eq!(m.machine_type, MachineType::Other(String::new()));
    assert!(m.state.is_unset(), "{:?}", m.state);

    let lock = dynobj(json!({
        "metadata": {"name": "stacklight-kaas-node-1"},
        "spec": {"controllerName": "stacklight", "nodeName": "kaas-node-1"},
        "status": {"state": "Active"}
    }));
    let Object::NodeWorkloadLock(l) = convert(Kind::NodeWorkloadLock, &lock) else {
        panic!("not a lock");
    };
    assert_eq!(l.controller, Controller::Other("stacklight".into()));
    assert_eq!(l.state, LockState::Other("Active".into()), "case as sent");

    let state = dynobj(json!({
        "metadata": {"name": "cd-m-1", "namespace": "child-ns"},
        "spec": {"clusterName": "child-cl", "type": "cordon-drain", "arg": "m-1", "value": "true"}
    }));
    let Object::ClusterState(cs) = convert(Kind::LcmClusterState, &state) else {
        panic!("not a cluster state");
    };
    assert_eq!(cs.state_type, ClusterStateType::CordonDrain);
    let other = dynobj(json!({
        "metadata": {"name": "nl-m-1", "namespace": "child-ns"},
        "spec": {"clusterName": "child-cl", "type": "node-label", "arg": "m-1", "value": "true"}
    }));
    let Object::ClusterState(cs) = convert(Kind::LcmClusterState, &other) else {
        panic!("not a cluster state");
    };
    assert_eq!(cs.state_type, ClusterStateType::Other("node-label".into()));
}

#[test]
fn a_lock_with_a_wrong_type_is_malformed_with_the_error() {
    let o = dynobj(json!({
        "metadata": {"name": "openstack-kaas-node-1"},
        "spec": {"controllerName": "openstack", "nodeName": "kaas-node-1"},
        "status": {"state": 5}
    }));
    match convert(Kind::NodeWorkloadLock, &o) {
        Object::Malformed(m) => {
            assert_eq!(m.kind, Kind::NodeWorkloadLock);
            assert_eq!(m.name, "openstack-kaas-node-1");
            assert_eq!(m.namespace, "");
            assert!(m.error.contains("invalid type"), "{}", m.error);
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
}

#[test]
fn a_node_maintenance_request_without_node_name_is_malformed() {
    let o = dynobj(json!({"metadata": {"name": "kaas-node-1"}, "spec": {"scope": "os"}}));
    let Object::Malformed(m) = convert(Kind::NodeMaintenanceRequest, &o) else {
        panic!("expected Malformed");
    };
    assert!(m.error.contains("spec.nodeName"), "{}", m.error);
}

#[test]
fn lock_reads_state_progress_and_inner_state() {
    let o = dynobj(json!({
        "metadata": {"name": "tf-openstack-tf", "annotations": {"inner_state": "active"}},
        "spec": {"controllerName": "tungstenfabric"},
        "status": {"state": "inactive", "errorMessage": "2025-03-04 10:15:02 Starting",
                   "inactivationProgress": {"percentage": 20, "description": "1 out of 5 nodes updated"}}
    }));
    let Object::ClusterWorkloadLock(l) = convert(Kind::ClusterWorkloadLock, &o) else {
        panic!("expected a cluster lock");
    };
    assert_eq!(l.state, LockState::Inactive);
    assert_eq!(l.controller, Controller::Tungstenfabric);
    assert_eq!(l.node_name, None);
    assert_eq!(l.progress_percentage, Some(20));
    assert_eq!(l.inner_state.as_deref(), Some("active"));
    assert_eq!(
        l.progress_description.as_deref(),
        Some("1 out of 5 nodes updated")
    );
}

#[test]
fn strings_from_the_cluster_are_sanitized() {
    let o = dynobj(json!({
        "metadata": {"name": "evil\u{1b}[2Jnode", "labels": {"k\u{7}": "v\u{1b}",
            "openstack-compute-node": "enabled\u{1b}[2J", "kubernetes.io/os": "linux"}},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}
    }));
    let Object::Node(n) = convert(Kind::Node, &o) else {
        panic!("expected a node");
    };
    assert!(!n.name.contains('\u{1b}'), "{:?}", n.name);
    assert!(n.ready);
    // Only the labels the console reads are kept, sanitized.
    assert_eq!(
        n.labels.keys().collect::<Vec<_>>(),
        vec!["openstack-compute-node"]
    );
    let compute = &n.labels["openstack-compute-node"];
    assert!(compute.starts_with("enabled"), "{compute:?}");
    assert!(!compute.chars().any(char::is_control), "{compute:?}");
    assert_eq!(object_key(Kind::Node, &o), Object::Node(n).key());
}

#[test]
fn node_reads_migration_annotations() {
    let o = dynobj(json!({
        "metadata": {"name": "kaas-node-1", "annotations": {
            "openstack.lcm.mirantis.com/instance_migration_mode": "manual",
            "openstack.lcm.mirantis.com/instance_migration_attempts": "5"}},
        "spec": {"unschedulable": true}
    }));
    let Object::Node(n) = convert(Kind::Node, &o) else {
        panic!("expected a node");
    };
    assert_eq!(n.migration_mode, Some(MigrationMode::Manual));
    assert_eq!(n.migration_attempts.as_deref(), Some("5"));
    assert!(n.unschedulable);
    assert!(!n.ready);
}

#[test]
fn vrouter_pod_reads_generation_revision_owner_and_readiness() {
    let o = dynobj(json!({
        "metadata": {"name": "tf-vrouter-agent-abcde", "namespace": "tf", "uid": "p1",
                     "labels": {"pod-template-generation": "2", "controller-revision-hash": "7d9f"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet",
                                          "name": "tf-vrouter-agent", "uid": "d1"}],
                     "deletionTimestamp": "2025-01-01T00:00:00Z"},
        "spec": {"nodeName": "kaas-node-1", "containers": []},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}]}
    }));
    let Object::VrouterPod(p) = convert(Kind::VrouterPod, &o) else {
        panic!(
            "expected a vRouter pod: {:?}",
            convert(Kind::VrouterPod, &o)
        );
    };
    assert_eq!(p.template_generation, Some(2));
    assert_eq!(p.revision.as_deref(), Some("7d9f"));
    assert_eq!(p.daemonset.as_deref(), Some("tf-vrouter-agent"));
    assert_eq!(p.node_name.as_deref(), Some("kaas-node-1"));
    assert_eq!(p.phase, "Running");
    assert!(!p.ready);
    assert!(p.deleting);
}

#[test]
fn vrouter_daemonset_reads_counts() {
    let o = dynobj(json!({
        "metadata": {"name": "tf-vrouter-agent", "namespace": "tf", "generation": 3,
                     "annotations": {"deprecated.daemonset.template.generation": "2"}},
        "spec": {"selector": {}, "template": {}, "updateStrategy": {"type": "OnDelete"}},
        "status": {"desiredNumberScheduled": 5, "currentNumberScheduled": 5,
                   "updatedNumberScheduled": 2, "numberReady": 4, "numberMisscheduled": 0,
                   "observedGeneration": 3}
    }));
    let Object::VrouterDaemonSet(d) = convert(Kind::VrouterDaemonSet, &o) else {
        panic!(
            "expected a DaemonSet: {:?}",
            convert(Kind::VrouterDaemonSet, &o)
        );
    };
    assert_eq!((d.desired, d.current, d.updated, d.ready), (5, 5, 2, 4));
    assert_eq!(d.update_strategy.as_deref(), Some("OnDelete"));
    assert_eq!(d.generation, Some(3));
    // The template generation is the annotation, apart from the generation.
    assert_eq!(d.template_generation, Some(2));
}

#[test]
fn only_vrouter_objects_and_the_chosen_cluster_are_wanted() {
    let pod = |name: &str| dynobj(json!({"metadata": {"name": name, "namespace": "tf"}}));
    assert!(is_wanted(
        Kind::VrouterPod,
        &pod("tf-vrouter-agent-x"),
        None
    ));
    assert!(!is_wanted(Kind::VrouterPod, &pod("tf-control-0"), None));
    let machine = |cluster: &str| {
        dynobj(
            json!({"metadata": {"name": "m", "namespace": "ns"}, "spec": {"clusterName": cluster}}),
        )
    };
    assert!(is_wanted(Kind::LcmMachine, &machine("a"), Some("a")));
    assert!(!is_wanted(Kind::LcmMachine, &machine("b"), Some("a")));
    assert!(is_wanted(Kind::LcmMachine, &machine("b"), None));
}

#[test]
fn update_plan_reads_steps_both_duration_names_and_joins_status_by_id() {
    let o = dynobj(json!({
        "apiVersion": "kaas.mirantis.com/v1alpha1", "kind": "ClusterUpdatePlan",
        "metadata": {"name": "child-cl-17.4.0", "namespace": "child-ns"},
        "spec": {"cluster": "child-cl", "source": "mosk-17-3-4-24-3-4",
                 "target": "mosk-17-4-0-25-1", "releaseNotes": "https://docs/x",
                 "steps": [
            {"id": "openstack", "name": "Update OpenStack", "description": ["a", "b"],
             "constraints": "one line", "impact": {"users": "minor", "workloads": "major",
             "info": ["i"]}, "duration": {"estimated": "1h30m0s"}, "granularity": "cluster",
             "commence": true},
            {"id": "ceph", "name": "Update Ceph", "duration": {"eta": "45m"}, "commence": false},
            {"name": "Update host OS and Kubernetes components on worker nodes",
             "duration": {"estimated": "some time"}, "impact": {"workloads": "huge\u{1b}[31m"}}
        ]},
        "status": {"status": "InProgress", "steps": [
            {"id": "ceph", "status": "NotStarted"},
            {"id": "openstack", "status": "Completed", "startedAt": "2026-01-01T10:00:00Z",
             "completedAt": "2026-01-01T11:00:00Z"},
            {"name": "Update host OS and Kubernetes components on worker nodes",
             "status": "Scheduled"}
        ]}
    }));
    let Object::UpdatePlan(p) = convert(Kind::ClusterUpdatePlan, &o) else {
        panic!("not a plan: {:?}", convert(Kind::ClusterUpdatePlan, &o));
    };
    assert_eq!(p.target.as_deref(), Some("mosk-17-4-0-25-1"));
    assert_eq!(p.status, Some(StepStatus::InProgress));
    let [s0, s1, s2] = &p.steps[..] else {
        panic!("3 steps")
    };
    assert_eq!(s0.description, ["a", "b"]);
    assert_eq!(s0.constraints, ["one line"]);
    assert_eq!(s0.impact_workloads, Some(Impact::Major));
    assert_eq!(s0.estimated, Some(jiff::SignedDuration::from_mins(90)));
    assert_eq!(s0.status, Some(StepStatus::Completed));
    assert!(s0.started_at.is_some() && s0.completed_at.is_some());
    // The pre-2.29 name of the estimate.
    assert_eq!(s1.estimated, Some(jiff::SignedDuration::from_mins(45)));
    assert_eq!(s1.status, Some(StepStatus::NotStarted));
    assert!(!s1.commence && s1.commence_present);
    // No id: matched by name; a missing commence is false; raw values kept, sanitized.
    assert_eq!(s2.status, Some(StepStatus::Other("Scheduled".into())));
    assert!(!s2.commence && !s2.commence_present);
    assert_eq!(s2.estimated, None);
    assert_eq!(s2.estimated_raw.as_deref(), Some("some time"));
    assert_eq!(s2.impact_workloads, Some(Impact::Other("huge".into())));
}

#[test]
fn provider_machine_reads_group_label_disable_and_kaas_objects_filter_by_cluster() {
    let o = dynobj(json!({
        "apiVersion": "cluster.k8s.io/v1alpha1", "kind": "Machine",
        "metadata": {"name": "cz-worker-3", "namespace": "child-ns",
            "labels": {"cluster.sigs.k8s.io/cluster-name": "child-cl",
                       "kaas.mirantis.com/update-group": "child-cl-rack-1"}},
        "spec": {"providerSpec": {"value": {"disable": true, "upgradeIndex": 7, "kind": "x"}}}
    }));
    let Object::ProviderMachine(m) = convert(Kind::ProviderMachine, &o) else {
        panic!("not a machine");
    };
    assert_eq!(m.update_group.as_deref(), Some("child-cl-rack-1"));
    assert!(m.disabled && !m.control_plane);
    assert_eq!(m.upgrade_index, Some(7));
    assert!(is_wanted(Kind::ProviderMachine, &o, Some("child-cl")));
    assert!(!is_wanted(Kind::ProviderMachine, &o, Some("other")));
    let ap = dynobj(
        json!({"metadata": {"name": "child-cl", "namespace": "child-ns"},
        "spec": {"alerts": ["A"]}, "status": {"firingAlerts": ["A"]}}),
    );
    let Object::UpdateAutoPause(a) = convert(Kind::UpdateAutoPause, &ap) else {
        panic!("not an auto-pause");
    };
    assert_eq!(a.firing, ["A"]);
    assert!(!is_wanted(Kind::UpdateAutoPause, &ap, Some("other")));
    let ndn = dynobj(json!({"metadata": {"name": "kaas-node-9"}, "spec": {}}));
    assert!(matches!(
        convert(Kind::NodeDisableNotification, &ndn),
        Object::Malformed(_)
    ));
}

/// The documentation's example (rockoon
/// `docs/architecture/custom-resources/openstackdeploymentstatus.md`,
/// shortened) with the fields 25.x adds (`release`, `lcm_progress`,
/// `health`) and one component not Ready.
#[test]
fn an_openstack_deployment_status_reads_state_versions_and_the_components_not_ready() {
    let o = dynobj(json!({
        "apiVersion": "lcm.mirantis.com/v1alpha1", "kind": "OpenStackDeploymentStatus",
        "metadata": {"name": "osh-dev", "namespace": "openstack"},
        "spec": {},
        "status": {
            "handle": {"lastStatus": "update"},
            "health": {
                "barbican": {"api": {"generation": 2, "status": "Ready"}},
                "cinder": {"api": {"generation": 2, "status": "Ready"},
                           "backup": {"generation": 1, "status": "Unhealthy"},
                           "volume": {"generation": 1}},
                "nova": {"compute": null}
            },
            "osdpl": {
                "cause": "update",
                "changes": "((''add'', (''status'',), None, {}),)",
                "controller_version": "0.5.3.dev12",
                "fingerprint": "a112a4a7d00c0b5b",
                "openstack_version": "ussuri",
                "state": "APPLIED",
                "timestamp": "2021-09-08 17:01:45.633143",
                "release": "MOSK 24.1.3",
                "lcm_progress": "20/20",
                "health": "1/2"
            },
            "services": {"baremetal": {"state": "APPLIED", "controller_version": "0.5.3.dev12"}}
        }
    }));
    let Object::OpenstackDeploymentStatus(st) = convert(Kind::OpenstackDeploymentStatus, &o) else {
        panic!(
            "not a status: {:?}",
            convert(Kind::OpenstackDeploymentStatus, &o)
        );
    };
    assert_eq!(
        (st.name.as_str(), st.namespace.as_str()),
        ("osh-dev", "openstack")
    );
    assert_eq!(st.state, crate::domain::objects::OsdplState::Applied);
    assert_eq!(st.controller_version.as_deref(), Some("0.5.3.dev12"));
    assert_eq!(st.openstack_version.as_deref(), Some("ussuri"));
    assert_eq!(st.release.as_deref(), Some("MOSK 24.1.3"));
    assert_eq!(st.lcm_progress.as_deref(), Some("20/20"));
    assert_eq!(st.health.as_deref(), Some("1/2"));
    // The null component was removed by a merge patch: not counted.
    assert_eq!(st.components, 4);
    assert_eq!(st.not_ready_count, 2);
    let named: Vec<String> = st
        .not_ready
        .iter()
        .map(|c| format!("{}/{}={}", c.application, c.component, c.status))
        .collect();
    assert_eq!(named, ["cinder/backup=Unhealthy", "cinder/volume="]);
}

#[test]
fn an_openstack_deployment_status_without_status_and_with_hostile_strings() {
    let bare = dynobj(json!({"metadata": {"name": "osh-dev", "namespace": "openstack"}}));
    let Object::OpenstackDeploymentStatus(st) = convert(Kind::OpenstackDeploymentStatus, &bare)
    else {
        panic!("a bare status is read");
    };
    assert!(st.state.as_str().is_empty());
    assert_eq!(st.controller_version, None);
    assert_eq!((st.components, st.not_ready_count), (0, 0));

    let hostile = dynobj(json!({
        "metadata": {"name": "osh-dev", "namespace": "openstack"},
        "status": {
            "osdpl": {"state": " APPLIED", "release": "25.1\u{1b}[2J\r\nfake",
                      "controller_version": "1.0\u{202e}x"},
            "health": {"nova\u{1b}]0;title\u{7}": {"api\u{0}": {"status": "Ready "}}}
        }
    }));
    let Object::OpenstackDeploymentStatus(st) = convert(Kind::OpenstackDeploymentStatus, &hostile)
    else {
        panic!("a hostile status is read");
    };
    // Matched exactly, as the controller compares: " APPLIED" is not APPLIED.
    assert_eq!(st.state.as_str(), " APPLIED");
    assert_ne!(st.state, crate::domain::objects::OsdplState::Applied);
    assert_eq!(
        st.release.as_deref(),
        Some(sanitize("25.1\u{1b}[2J\r\nfake").as_str())
    );
    assert_eq!(st.controller_version.as_deref(), Some("1.0x"));
    assert_eq!(st.not_ready_count, 1, "\"Ready \" is not Ready");
    let c = &st.not_ready[0];
    for s in [&c.application, &c.component, &c.status] {
        assert!(!s.chars().any(|ch| ch.is_control()), "{s:?}");
    }
    assert_eq!(c.application, "nova");

    let wrong = dynobj(json!({
        "metadata": {"name": "osh-dev", "namespace": "openstack"},
        "status": {"health": {"nova": {"api": "Ready"}}}
    }));
    assert!(matches!(
        convert(Kind::OpenstackDeploymentStatus, &wrong),
        Object::Malformed(_)
    ));
    assert!(!is_cluster_scoped(Kind::OpenstackDeploymentStatus));
}

#[test]
fn an_openstack_deployment_status_keeps_a_bounded_list_of_components_not_ready() {
    let health: serde_json::Map<String, serde_json::Value> = (0..100)
        .map(|i| {
            (
                format!("app{i:03}"),
                json!({"api": {"status": "Unhealthy"}}),
            )
        })
        .collect();
    let o = dynobj(json!({
        "metadata": {"name": "osh-dev", "namespace": "openstack"},
        "status": {"health": health}
    }));
    let Object::OpenstackDeploymentStatus(st) = convert(Kind::OpenstackDeploymentStatus, &o) else {
        panic!("not a status");
    };
    assert_eq!(st.not_ready_count, 100);
    assert_eq!(st.not_ready.len(), crate::domain::objects::NOT_READY_KEPT);
}

/// Pelagia's documented example (docs/custom-resources/cephdeploymenthealth.md,
/// shortened), and the same cluster in HEALTH_WARN with two health checks.
#[test]
fn a_ceph_deployment_health_reads_cephs_health_and_its_checks() {
    let ok = dynobj(json!({
        "apiVersion": "lcm.mirantis.com/v1alpha1", "kind": "CephDeploymentHealth",
        "metadata": {"name": "pelagia-ceph", "namespace": "pelagia"},
        "status": {
            "healthReport": {
                "cephDaemons": {"cephDaemons": {"mon": {"info": ["3 mons, quorum [a b c]"], "status": "ok"}}},
                "rookCephObjects": {"cephCluster": {
                    "ceph": {"capacity": {"bytesTotal": 161048690688u64},
                             "fsid": "92d56f80", "health": "HEALTH_OK",
                             "previousHealth": "HEALTH_WARN"},
                    "phase": "Ready", "state": "Created"}},
                "rookOperator": {"status": "ok"}
            },
            "lastHealthCheck": "2025-08-15T12:11:00Z",
            "lastHealthUpdate": "2025-08-15T12:11:00Z",
            "state": "Ok"
        }
    }));
    let Object::CephDeploymentHealth(h) = convert(Kind::CephDeploymentHealth, &ok) else {
        panic!(
            "not a health: {:?}",
            convert(Kind::CephDeploymentHealth, &ok)
        );
    };
    assert_eq!(h.health, crate::domain::objects::CephHealthStatus::Ok);
    assert_eq!(h.state.as_deref(), Some("Ok"));
    assert_eq!(h.last_check.as_deref(), Some("2025-08-15T12:11:00Z"));
    assert!(h.checks.is_empty() && h.issues.is_empty());

    let warn = dynobj(json!({
        "metadata": {"name": "cephcluster", "namespace": "ceph-lcm-mirantis"},
        "status": {
            "state": "Failed",
            "issues": ["OSDMAP_FLAGS: noout flag(s) set", "PG_DEGRADED: \u{1b}[31mDegraded\u{1b}[0m data"],
            "healthReport": {"rookCephObjects": {"cephCluster": {"ceph": {
                "health": "HEALTH_WARN",
                "details": {
                    "PG_DEGRADED": {"severity": "HEALTH_WARN", "message": "Degraded data\r\nredundancy"},
                    "OSDMAP_FLAGS": {"severity": "HEALTH_WARN", "message": "noout flag(s) set"}
                }}}}}
        }
    }));
    let Object::CephDeploymentHealth(h) = convert(Kind::CephDeploymentHealth, &warn) else {
        panic!("not a health");
    };
    assert_eq!(h.health, crate::domain::objects::CephHealthStatus::Warn);
    let codes: Vec<&str> = h.checks.iter().map(|c| c.code.as_str()).collect();
    assert_eq!(codes, ["OSDMAP_FLAGS", "PG_DEGRADED"]);
    assert_eq!(h.checks[1].message, sanitize("Degraded data\r\nredundancy"));
    assert_eq!(h.issues[1], "PG_DEGRADED: Degraded data");
    assert_eq!((h.checks_count, h.issues_count), (2, 2));

    let bare =
        dynobj(json!({"metadata": {"name": "cephcluster", "namespace": "ceph-lcm-mirantis"}}));
    let Object::CephDeploymentHealth(h) = convert(Kind::CephDeploymentHealth, &bare) else {
        panic!("a bare health is read");
    };
    assert!(h.health.as_str().is_empty());
    let wrong = dynobj(json!({"metadata": {"name": "c", "namespace": "n"},
        "status": {"healthReport": {"rookCephObjects": {"cephCluster": {"ceph": {"health": 3}}}}}}));
    assert!(matches!(
        convert(Kind::CephDeploymentHealth, &wrong),
        Object::Malformed(_)
    ));
}
