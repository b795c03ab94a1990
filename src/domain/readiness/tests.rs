//! Each check ok on the fixture's idle cluster, and failing on one change.

use std::sync::Arc;

use super::*;
use crate::domain::fixtures::{self, at, names::*};
use crate::domain::objects::{
    CephDeploymentHealth, CephHealthCheck, CephHealthStatus, ComponentHealth, Controller,
    ErrorMessage, Object, OpenstackDeploymentStatus, OsdplState,
};

/// Half a minute after the Ceph fixture's last health check.
const NOW: &str = "2026-01-01T10:00:00Z";

fn all_listed() -> BTreeMap<Kind, Seen> {
    Kind::ALL.iter().map(|k| (*k, Seen::Listed)).collect()
}

fn run(snap: &Snapshot, seen: &BTreeMap<Kind, Seen>, id: CheckId) -> Check {
    check(
        id,
        &Inputs {
            snapshot: snap,
            seen,
            cluster: CLUSTER,
            other_mosk_cluster: false,
            now: NOW.parse().unwrap(),
        },
    )
}

fn idle_with(objs: impl IntoIterator<Item = Object>) -> Snapshot {
    let mut snap = fixtures::idle();
    for o in objs {
        snap.apply(o);
    }
    snap
}

#[test]
fn nodes_ok_then_not_ready_blocks_and_cordoned_warns() {
    let seen = all_listed();
    let ok = run(&fixtures::idle(), &seen, CheckId::Nodes);
    assert_eq!(ok.verdict, Verdict::Ok, "{ok:?}");
    assert_eq!(ok.summary, "7 of 7 nodes Ready and schedulable");

    let mut n = fixtures::node(NODE_W2, true);
    n.unschedulable = true;
    let c = run(
        &idle_with([Object::Node(Arc::new(n))]),
        &seen,
        CheckId::Nodes,
    );
    assert_eq!(c.verdict, Verdict::Warning);
    assert_eq!(c.evidence, [format!("{NODE_W2}: SchedulingDisabled")]);

    let mut n = fixtures::node(NODE_W1, true);
    n.ready = false;
    let c = run(
        &idle_with([Object::Node(Arc::new(n))]),
        &seen,
        CheckId::Nodes,
    );
    assert_eq!(c.verdict, Verdict::Blocking);
    assert_eq!(c.evidence, [format!("{NODE_W1}: NotReady")]);
}

#[test]
fn requests_ok_then_a_leftover_request_blocks() {
    let seen = all_listed();
    assert_eq!(
        run(&fixtures::idle(), &seen, CheckId::Requests).verdict,
        Verdict::Ok
    );
    let mut nmr = fixtures::nmr(NODE_W3, "os", at("09:00"));
    nmr.deleting = true;
    let snap = idle_with([Object::NodeMaintenanceRequest(Arc::new(nmr))]);
    let c = run(&snap, &seen, CheckId::Requests);
    assert_eq!(c.verdict, Verdict::Blocking);
    assert_eq!(
        c.evidence,
        [format!(
            "NodeMaintenanceRequest {NODE_W3} (node {NODE_W3}) (Terminating)"
        )]
    );
    let snap = idle_with([Object::ClusterMaintenanceRequest(Arc::new(fixtures::cmr(
        at("09:00"),
    )))]);
    assert_eq!(
        run(&snap, &seen, CheckId::Requests).verdict,
        Verdict::Blocking
    );
}

#[test]
fn locks_ok_then_not_active_blocks_and_an_error_warns() {
    let seen = all_listed();
    let ok = run(&fixtures::idle(), &seen, CheckId::Locks);
    assert_eq!(ok.verdict, Verdict::Ok, "{ok:?}");

    let mut l = fixtures::node_lock(Controller::Openstack, NODE_W1, LockState::Active, None);
    l.error_message = Some(ErrorMessage::new(
        "Timeout waiting for compute services up on the host.",
    ));
    let c = run(
        &idle_with([Object::NodeWorkloadLock(Arc::new(l))]),
        &seen,
        CheckId::Locks,
    );
    assert_eq!(c.verdict, Verdict::Warning, "{c:?}");

    let l = fixtures::node_lock(Controller::Openstack, NODE_W1, LockState::Inactive, None);
    let c = run(
        &idle_with([Object::NodeWorkloadLock(Arc::new(l))]),
        &seen,
        CheckId::Locks,
    );
    assert_eq!(c.verdict, Verdict::Blocking);
    assert_eq!(
        c.evidence,
        [format!("NodeWorkloadLock openstack-{NODE_W1} inactive")]
    );
}

#[test]
fn migration_settings_count_modes_list_live_and_block_on_invalid() {
    let seen = all_listed();
    let ok = run(&fixtures::idle(), &seen, CheckId::MigrationSettings);
    assert_eq!(ok.verdict, Verdict::Ok, "{ok:?}");
    assert_eq!(ok.summary, "4 computes: live (unset) 4");
    assert_eq!(
        ok.evidence,
        [format!(
            "left on live (4): {NODE_W1}, {NODE_W2}, {NODE_W3}, {NODE_W4}"
        )]
    );

    let mut manual = fixtures::node(NODE_W1, true);
    manual.migration_mode = Some(MigrationMode::Manual);
    manual.migration_attempts = Some("5".into());
    let mut skip = fixtures::node(NODE_W2, true);
    skip.migration_mode = Some(MigrationMode::Skip);
    let snap = idle_with([
        Object::Node(Arc::new(manual.clone())),
        Object::Node(Arc::new(skip)),
    ]);
    let c = run(&snap, &seen, CheckId::MigrationSettings);
    assert_eq!(c.verdict, Verdict::Warning, "{c:?}");
    assert_eq!(c.summary, "4 computes: live (unset) 2, manual 1, skip 1");
    assert_eq!(
        c.evidence,
        [
            format!("on skip (servers go down with the node): {NODE_W2}"),
            format!("left on live (2): {NODE_W3}, {NODE_W4}"),
            format!("attempts set (else 3): {NODE_W1} 5"),
        ]
    );

    let mut bad = fixtures::node(NODE_W3, true);
    bad.migration_mode = Some(MigrationMode::parse("livee"));
    bad.migration_attempts = Some("three".into());
    let snap = idle_with([Object::Node(Arc::new(manual)), Object::Node(Arc::new(bad))]);
    let c = run(&snap, &seen, CheckId::MigrationSettings);
    assert_eq!(c.verdict, Verdict::Blocking);
    assert_eq!(
        c.evidence[0],
        format!(
            "{NODE_W3}: instance_migration_mode \"livee\" is none of live, manual, skip; instance_migration_attempts \"three\" is not an integer"
        )
    );
}

#[test]
fn target_release_from_the_update_plan_or_the_lcmcluster() {
    let seen = all_listed();
    let c = run(&fixtures::idle(), &seen, CheckId::TargetRelease);
    assert_eq!(c.verdict, Verdict::Unknown, "no plan, spec = status: {c:?}");

    let snap = idle_with([Object::UpdatePlan(Arc::new(
        fixtures::update_plan::update_plan(),
    ))]);
    let c = run(&snap, &seen, CheckId::TargetRelease);
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    assert!(c.summary.contains("(update plan)"), "{c:?}");

    let snap = fixtures::snapshot([Object::LcmCluster(Arc::new(fixtures::lcm_cluster()))]);
    let c = run(&snap, &seen, CheckId::TargetRelease);
    assert_eq!(c.verdict, Verdict::Ok);
    assert_eq!(
        c.summary,
        format!("runs {CURRENT_RELEASE}; driven to {TARGET_RELEASE} (spec.release)")
    );
}

#[test]
fn update_plan_sums_the_estimates_and_warns_on_a_step_without_one() {
    let seen = all_listed();
    let c = run(&fixtures::idle(), &seen, CheckId::UpdatePlan);
    assert_eq!(c.verdict, Verdict::Unknown);

    let plan = fixtures::update_plan::update_plan();
    let total: i64 = plan
        .steps
        .iter()
        .map(|s| s.estimated.unwrap().as_secs())
        .sum();
    let snap = idle_with([Object::UpdatePlan(Arc::new(plan.clone()))]);
    let c = run(&snap, &seen, CheckId::UpdatePlan);
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    assert!(
        c.summary.contains(&crate::domain::progress::human_duration(
            SignedDuration::from_secs(total)
        )),
        "{c:?}"
    );
    assert_eq!(c.evidence.len(), plan.steps.len());

    let mut plan = plan;
    plan.steps[1].estimated = None;
    let snap = idle_with([Object::UpdatePlan(Arc::new(plan))]);
    let c = run(&snap, &seen, CheckId::UpdatePlan);
    assert_eq!(c.verdict, Verdict::Warning);
    assert!(c.summary.ends_with("1 step without estimate"), "{c:?}");
}

#[test]
fn what_the_console_cannot_see_is_unknown_never_ok() {
    let snap = fixtures::idle();
    let mut seen = all_listed();
    seen.insert(Kind::ClusterUpdatePlan, Seen::NotServed);
    seen.insert(Kind::NodeWorkloadLock, Seen::Refused);
    seen.remove(&Kind::Node);
    let c = run(&snap, &seen, CheckId::UpdatePlan);
    assert_eq!(c.verdict, Verdict::Unknown);
    assert_eq!(
        c.summary,
        "ClusterUpdatePlan: not served by the cluster (CRD missing)"
    );
    let c = run(&snap, &seen, CheckId::Locks);
    assert_eq!(c.verdict, Verdict::Unknown);
    assert_eq!(
        c.summary,
        "NodeWorkloadLock: the API server refuses to list it"
    );
    for id in [CheckId::Nodes, CheckId::MigrationSettings] {
        let c = run(&snap, &seen, id);
        assert_eq!(c.verdict, Verdict::Unknown, "{id:?}");
        assert_eq!(c.summary, "Node: not listed yet");
    }
    // Not watched at all.
    assert_eq!(
        run(&snap, &all_listed(), CheckId::ManagementRelease).verdict,
        Verdict::Unknown
    );
}

fn with_ceph(h: CephDeploymentHealth) -> Snapshot {
    idle_with([Object::CephDeploymentHealth(Arc::new(h))])
}

#[test]
fn ceph_health_ok_warns_on_health_warn_and_blocks_on_health_err() {
    let c = run(
        &with_ceph(fixtures::ceph_health()),
        &all_listed(),
        CheckId::CephHealth,
    );
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    assert_eq!(c.summary, "HEALTH_OK");
    assert_eq!(
        c.evidence,
        ["CephDeploymentHealth cephcluster: HEALTH_OK, state Ok, last check 2026-01-01T09:59:30Z"]
    );

    // Pelagia's verdict fails beside Ceph's HEALTH_OK: not ok.
    let mut h = fixtures::ceph_health();
    h.state = Some("Failed".into());
    h.issues = vec!["rook-ceph-operator deployment is not found".into()];
    h.issues_count = 1;
    let c = run(&with_ceph(h), &all_listed(), CheckId::CephHealth);
    assert_eq!(c.verdict, Verdict::Warning, "{c:?}");
    assert_eq!(
        c.summary,
        "HEALTH_OK, but the Ceph controller reports Failed: rook-ceph-operator deployment is not found"
    );

    let mut h = fixtures::ceph_health();
    h.health = CephHealthStatus::Warn;
    h.state = Some("Failed".into());
    h.checks = ["OSDMAP_FLAGS", "OSD_DOWN", "PG_DEGRADED", "POOL_FULL"]
        .iter()
        .map(|code| CephHealthCheck {
            code: code.to_string(),
            severity: "HEALTH_WARN".into(),
            message: format!("{code} text"),
        })
        .collect();
    h.checks_count = 5;
    h.issues = vec!["OSDMAP_FLAGS: noout flag(s) set".into()];
    h.issues_count = 1;
    let c = run(&with_ceph(h.clone()), &all_listed(), CheckId::CephHealth);
    assert_eq!(c.verdict, Verdict::Warning, "{c:?}");
    assert_eq!(
        c.summary,
        "HEALTH_WARN: OSDMAP_FLAGS, OSD_DOWN, PG_DEGRADED, 2 more"
    );
    assert_eq!(
        c.evidence[1],
        "OSDMAP_FLAGS (HEALTH_WARN): OSDMAP_FLAGS text"
    );
    assert_eq!(c.evidence[5], "… and 1 more health checks");
    assert_eq!(c.evidence[6], "issue: OSDMAP_FLAGS: noout flag(s) set");

    h.health = CephHealthStatus::Err;
    h.checks.truncate(1);
    h.checks_count = 1;
    let c = run(&with_ceph(h), &all_listed(), CheckId::CephHealth);
    assert_eq!(c.verdict, Verdict::Blocking, "{c:?}");
    assert_eq!(
        c.summary,
        "HEALTH_ERR: OSDMAP_FLAGS: the update would start from a Ceph cluster in error"
    );
}

#[test]
fn ceph_health_unknown_when_not_served_refused_absent_or_not_reported() {
    let kind = Kind::CephDeploymentHealth;
    let snap = with_ceph(fixtures::ceph_health());
    for (seen, summary) in [
        (
            Seen::NotServed,
            "CephDeploymentHealth: not served by the cluster (CRD missing)",
        ),
        (
            Seen::Refused,
            "CephDeploymentHealth: the API server refuses to list it",
        ),
    ] {
        let mut s = all_listed();
        s.insert(kind, seen);
        let c = run(&snap, &s, CheckId::CephHealth);
        assert_eq!(c.verdict, Verdict::Unknown, "{c:?}");
        assert_eq!(c.summary, summary);
    }
    let c = run(&fixtures::idle(), &all_listed(), CheckId::CephHealth);
    assert_eq!(c.verdict, Verdict::Unknown);
    assert!(
        c.summary.starts_with("no CephDeploymentHealth in namespace ceph-lcm-mirantis (an older release's MiraCephHealth is not read)"),
        "{c:?}"
    );
    let mut h = fixtures::ceph_health();
    h.health = CephHealthStatus::Other(String::new());
    let c = run(&with_ceph(h.clone()), &all_listed(), CheckId::CephHealth);
    assert_eq!(c.verdict, Verdict::Unknown, "{c:?}");
    h.health = CephHealthStatus::Other("HEALTH_UNKNOWN".into());
    let c = run(&with_ceph(h), &all_listed(), CheckId::CephHealth);
    assert_eq!(c.verdict, Verdict::Unknown, "{c:?}");
    assert_eq!(
        c.summary,
        "Ceph health \"HEALTH_UNKNOWN\" is none of HEALTH_OK, HEALTH_WARN, HEALTH_ERR"
    );
}

fn with_status(st: OpenstackDeploymentStatus) -> Snapshot {
    idle_with([Object::OpenstackDeploymentStatus(Arc::new(st))])
}

#[test]
fn openstack_deployment_ok_when_applied_and_every_component_ready() {
    let c = run(
        &with_status(fixtures::osdpl_status()),
        &all_listed(),
        CheckId::OpenstackDeployment,
    );
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
    assert_eq!(c.summary, "APPLIED, 20 of 20 components listed Ready");
    assert_eq!(
        c.evidence,
        [
            "OpenStackDeploymentStatus osh-dev: state APPLIED, LCM progress 15/15, health 12/12",
            "release 17.4.0+25.1, controller 17.4.0, OpenStack caracal",
            "[I] not checked: that status.health lists every enabled service (the OpenStackDeployment is not read)",
        ]
    );
}

#[test]
fn openstack_deployment_not_applied_blocks_and_names_the_state() {
    let mut st = fixtures::osdpl_status();
    st.state = OsdplState::Applying;
    st.lcm_progress = Some("3/15".into());
    let c = run(
        &with_status(st),
        &all_listed(),
        CheckId::OpenstackDeployment,
    );
    assert_eq!(c.verdict, Verdict::Blocking, "{c:?}");
    assert_eq!(
        c.summary,
        "state APPLYING, not APPLIED: the OpenStack controller holds its cluster lock until it is"
    );
    assert!(c.evidence[0].contains("LCM progress 3/15"), "{c:?}");

    let mut st = fixtures::osdpl_status();
    st.state = OsdplState::Other(String::new());
    let c = run(
        &with_status(st),
        &all_listed(),
        CheckId::OpenstackDeployment,
    );
    assert_eq!(c.verdict, Verdict::Blocking);
    assert!(c.summary.starts_with("state not set, not APPLIED"), "{c:?}");
}

#[test]
fn openstack_deployment_with_components_not_ready_blocks_and_lists_them() {
    let mut st = fixtures::osdpl_status();
    st.health = Some("10/12".into());
    st.not_ready = [
        ("cinder", "volume", "Unhealthy"),
        ("neutron", "server", ""),
        ("nova", "api_osapi", "Unhealthy"),
        ("nova", "compute", "Unhealthy"),
    ]
    .iter()
    .map(|(a, c, s)| ComponentHealth {
        application: a.to_string(),
        component: c.to_string(),
        status: s.to_string(),
    })
    .collect();
    st.not_ready_count = 5;
    let c = run(
        &with_status(st),
        &all_listed(),
        CheckId::OpenstackDeployment,
    );
    assert_eq!(c.verdict, Verdict::Blocking, "{c:?}");
    assert_eq!(
        c.summary,
        "APPLIED, 5 components not Ready (cinder/volume, neutron/server, nova/api_osapi, 2 more): the OpenStack controller holds its cluster lock while an enabled service's is [I]"
    );
    assert_eq!(
        c.evidence[2..],
        [
            "cinder/volume: Unhealthy",
            "neutron/server: no status",
            "nova/api_osapi: Unhealthy",
            "nova/compute: Unhealthy",
            "… and 1 more not Ready",
        ]
    );
}

#[test]
fn openstack_deployment_unknown_when_not_served_refused_absent_or_silent() {
    let kind = Kind::OpenstackDeploymentStatus;
    let snap = with_status(fixtures::osdpl_status());
    for (seen, summary) in [
        (
            Seen::NotServed,
            "OpenStackDeploymentStatus: not served by the cluster (CRD missing)",
        ),
        (
            Seen::Refused,
            "OpenStackDeploymentStatus: the API server refuses to list it",
        ),
        (Seen::NotYet, "OpenStackDeploymentStatus: not listed yet"),
    ] {
        let mut s = all_listed();
        s.insert(kind, seen);
        let c = run(&snap, &s, CheckId::OpenstackDeployment);
        assert_eq!(c.verdict, Verdict::Unknown, "{c:?}");
        assert_eq!(c.summary, summary);
    }
    let c = run(
        &fixtures::idle(),
        &all_listed(),
        CheckId::OpenstackDeployment,
    );
    assert_eq!(c.verdict, Verdict::Unknown);
    assert_eq!(
        c.summary,
        "no OpenStackDeploymentStatus in namespace openstack"
    );

    let mut st = fixtures::osdpl_status();
    st.components = 0;
    let c = run(
        &with_status(st),
        &all_listed(),
        CheckId::OpenstackDeployment,
    );
    assert_eq!(c.verdict, Verdict::Unknown, "no health reported: {c:?}");

    let bad = Object::Malformed(Arc::new(crate::domain::objects::MalformedObject {
        kind,
        namespace: "openstack".into(),
        name: "osh-dev".into(),
        error: "invalid type: string \"Ready\", expected struct Component".into(),
    }));
    let c = run(
        &idle_with([bad]),
        &all_listed(),
        CheckId::OpenstackDeployment,
    );
    assert_eq!(c.verdict, Verdict::Unknown);
    assert!(
        c.summary
            .starts_with("OpenStackDeploymentStatus osh-dev could not be read: "),
        "{c:?}"
    );

    let inputs = Inputs {
        snapshot: &snap,
        seen: &all_listed(),
        cluster: CLUSTER,
        other_mosk_cluster: true,
        now: NOW.parse().unwrap(),
    };
    assert_eq!(
        check(CheckId::OpenstackDeployment, &inputs).verdict,
        Verdict::Unknown
    );
}

#[test]
fn evidence_is_bounded() {
    let lines: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    let b = bounded(lines);
    assert_eq!(b.len(), EVIDENCE_MAX);
    assert_eq!(b.last().unwrap(), "… and 13 more");
}

#[test]
fn a_mosk_context_of_another_cluster_makes_its_checks_unknown() {
    let snap = fixtures::idle();
    let seen = all_listed();
    let inputs = Inputs {
        snapshot: &snap,
        seen: &seen,
        cluster: CLUSTER,
        other_mosk_cluster: true,
        now: NOW.parse().unwrap(),
    };
    for id in [
        CheckId::Nodes,
        CheckId::Requests,
        CheckId::Locks,
        CheckId::MigrationSettings,
    ] {
        let c = check(id, &inputs);
        assert_eq!(c.verdict, Verdict::Unknown, "{id:?}");
        assert!(
            c.summary
                .starts_with("the MOSK context is another cluster's")
        );
    }
    // The management cluster's own objects still count.
    assert_eq!(
        check(
            CheckId::Nodes,
            &Inputs {
                other_mosk_cluster: false,
                ..inputs
            }
        )
        .verdict,
        Verdict::Ok
    );
}

/// Pelagia stamps its report every 30 s: one ten minutes old is a stopped
/// controller's, and its HEALTH_OK is not believed.
#[test]
fn ceph_health_from_a_report_not_checked_for_minutes_is_unknown() {
    let mut h = fixtures::ceph_health();
    h.last_check = Some("2026-01-01T09:50:00Z".into());
    let c = run(&with_ceph(h), &all_listed(), CheckId::CephHealth);
    assert_eq!(c.verdict, Verdict::Unknown, "{c:?}");
    assert_eq!(
        c.summary,
        "HEALTH_OK as last checked 10m ago: the Ceph controller checks every 30 s, so this report is stale"
    );
    // Four minutes is within the margin (a clock apart, a slow check).
    let mut h = fixtures::ceph_health();
    h.last_check = Some("2026-01-01T09:56:00Z".into());
    let c = run(&with_ceph(h), &all_listed(), CheckId::CephHealth);
    assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
}
