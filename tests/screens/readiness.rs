//! The Readiness view (`:ready`, `b`) and the Overview's readiness pane
//! while no update runs: each check ok and failing, and what the console
//! cannot see said to be unknown. Update snapshots with `INSTA_UPDATE=always
//! cargo test --test screens readiness` and read every changed `.snap` first.

use crate::domain::fixtures::{self, at, names::*, update_plan as up};
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::cluster::events::{WatchHealth, WatchProblem};
use mosk_console::domain::history::History;
use mosk_console::domain::objects::{
    CephHealthCheck, CephHealthStatus, ComponentHealth, Controller, ErrorMessage, Kind, LockState,
    MigrationMode, Object,
};
use std::sync::Arc;

/// The fixture cluster before its update, with its update plan not
/// commenced and its OpenStack APPLIED and healthy: every check the console
/// can make is ok.
fn ready_model(view: View) -> Model {
    let mut m = base_model();
    m.snapshot = fixtures::idle();
    m.history = History::new();
    // Nothing carried over from the mid-update cluster's queue.
    m.derived = Default::default();
    m.snapshot
        .apply(Object::UpdatePlan(Arc::new(up::update_plan())));
    m.snapshot.apply(Object::OpenstackDeploymentStatus(Arc::new(
        fixtures::osdpl_status(),
    )));
    m.snapshot.apply(Object::CephDeploymentHealth(Arc::new(
        fixtures::ceph_health(),
    )));
    m.view = view;
    settled(&mut m);
    m
}

fn screen(m: &Model, w: u16, h: u16) -> String {
    text_of(render(m, w, h).backend().buffer())
}

fn snap_both(name: &str, model: &Model) {
    for (w, h) in [(80, 24), (120, 40)] {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), render(model, w, h).backend());
    }
}

/// Every check failing at once: a node NotReady, a request left over, a
/// lock not active, an unknown migration mode, a component of OpenStack not
/// Ready, Ceph in HEALTH_WARN, a plan step without estimate.
fn failing(view: View) -> Model {
    let mut m = ready_model(view);
    let mut n = fixtures::node(NODE_W1, true);
    n.ready = false;
    m.snapshot.apply(Object::Node(Arc::new(n)));
    let mut n = fixtures::node(NODE_W2, true);
    n.migration_mode = Some(MigrationMode::parse("livee"));
    m.snapshot.apply(Object::Node(Arc::new(n)));
    m.snapshot
        .apply(Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(
            NODE_W3,
            "os",
            at("09:00"),
        ))));
    let mut l = fixtures::node_lock(Controller::Openstack, NODE_W4, LockState::Inactive, None);
    l.error_message = Some(ErrorMessage::new(
        "Timeout waiting for compute services up on the host.",
    ));
    m.snapshot.apply(Object::NodeWorkloadLock(Arc::new(l)));
    let mut plan = up::update_plan();
    plan.steps[2].estimated = None;
    m.snapshot.apply(Object::UpdatePlan(Arc::new(plan)));
    let mut st = fixtures::osdpl_status();
    st.health = Some("11/12".into());
    st.not_ready = vec![ComponentHealth {
        application: "neutron".into(),
        component: "server".into(),
        status: "Unhealthy".into(),
    }];
    st.not_ready_count = 1;
    m.snapshot
        .apply(Object::OpenstackDeploymentStatus(Arc::new(st)));
    let mut h = fixtures::ceph_health();
    h.health = CephHealthStatus::Warn;
    h.state = Some("Failed".into());
    h.checks = vec![CephHealthCheck {
        code: "OSDMAP_FLAGS".into(),
        severity: "HEALTH_WARN".into(),
        message: "noout flag(s) set".into(),
    }];
    h.checks_count = 1;
    m.snapshot.apply(Object::CephDeploymentHealth(Arc::new(h)));
    settled(&mut m);
    m
}

#[test]
fn every_check_the_console_can_make_is_ok_before_the_update() {
    let m = ready_model(View::Ready);
    let s = screen(&m, 160, 80);
    for line in [
        "ok       Nodes Ready and schedulable: 7 of 7 nodes Ready and schedulable",
        "ok       No maintenance request left: no ClusterMaintenanceRequest, no NodeMaintenanceRequest",
        "ok       Workload locks active, no error: 14 of 14 locks active, none with an error",
        "ok       Migration mode and attempts: 4 computes: live (unset) 4",
        "ok       OpenStackDeployment APPLIED, healthy: APPLIED, 20 of 20 components listed Ready",
        "ok       Ceph health: HEALTH_OK",
        "ok       Target release:",
        "ok       Update plan: expected length:",
    ] {
        assert!(s.contains(line), "{line}\n{s}");
    }
    snap_both("readiness_ok", &m);
}

#[test]
fn each_check_failing_says_what_and_where_from() {
    let m = failing(View::Ready);
    let s = screen(&m, 160, 80);
    for line in [
        "blocking Nodes Ready and schedulable: 1 NotReady, 0 cordoned, of 7 nodes",
        "blocking No maintenance request left: 1 maintenance request left",
        "blocking Workload locks active, no error: 1 not active, 0 active with an error, of 14 locks",
        "blocking Migration mode and attempts: 4 computes: live (unset) 3, livee 1",
        "blocking OpenStackDeployment APPLIED, healthy: APPLIED, 1 component not Ready (neutron/server)",
        "neutron/server: Unhealthy",
        "warning  Ceph health: HEALTH_WARN: OSDMAP_FLAGS",
        "OSDMAP_FLAGS (HEALTH_WARN): noout flag(s) set",
        "warning  Update plan: expected length:",
        "Timeout waiting for compute services up on the host.",
        "source: seed 000 Step 2",
    ] {
        assert!(s.contains(line), "{line}\n{s}");
    }
    snap_both("readiness_failing", &m);
}

#[test]
fn a_kind_not_served_or_refused_is_unknown_never_ok() {
    let mut m = ready_model(View::Ready);
    m.missing_kinds.insert(
        Kind::ClusterUpdatePlan,
        "The ClusterUpdatePlan CRD is not installed".into(),
    );
    // A cluster without Rockoon's status CRD: its status is unknown, not ok.
    m.missing_kinds.insert(
        Kind::OpenstackDeploymentStatus,
        "The OpenStackDeploymentStatus CRD is not installed".into(),
    );
    m.health.insert(
        Kind::NodeWorkloadLock,
        WatchHealth {
            cluster: Kind::NodeWorkloadLock.cluster(),
            connected: false,
            last_event: None,
            last_error: Some("nodeworkloadlocks is forbidden".into()),
            retry_at: None,
            problem: WatchProblem::Refused,
        },
    );
    settled(&mut m);
    let s = screen(&m, 160, 80);
    for line in [
        "unknown  Workload locks active, no error: NodeWorkloadLock: the API server refuses to list it",
        "unknown  Update plan: expected length: ClusterUpdatePlan: not served by the cluster (CRD missing)",
        "unknown  OpenStackDeployment APPLIED, healthy: OpenStackDeploymentStatus: not served by the cluster (CRD missing)",
    ] {
        assert!(s.contains(line), "{line}\n{s}");
    }
    assert!(!s.contains("ok       Workload locks"), "{s}");
}

#[test]
fn the_overview_shows_readiness_while_no_update_runs() {
    let m = ready_model(View::Overview);
    let s = screen(&m, 80, 24);
    assert!(s.contains("Readiness: 1 unknown (b: details)"), "{s}");
    assert!(s.contains("b readiness"), "the footer hints at it: {s}");
    snap_both("overview_readiness_failing", &failing(View::Overview));
    // Mid-update: the machines in their turn, no readiness.
    let s = screen(&with_view(View::Overview), 80, 24);
    assert!(
        !s.contains("Readiness") && !s.contains("b readiness"),
        "{s}"
    );
}

#[test]
fn b_opens_the_readiness_view_and_j_scrolls_it() {
    let mut m = ready_model(View::Overview);
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('b'), KeyModifiers::NONE)),
    );
    assert_eq!(m.view, View::Ready);
    let top = screen(&m, 80, 24);
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE)),
    );
    assert_eq!(m.views.ready.scroll, 1);
    assert_ne!(screen(&m, 80, 24), top);
}

/// The Ceph controller stamps its report on the MOSK cluster's clock, so the
/// report's age is read on that clock: a console whose own clock runs ten
/// minutes ahead of that cluster's does not call a fresh report stale.
#[test]
fn a_ceph_reports_age_is_read_on_the_mosk_clusters_clock() {
    use mosk_console::domain::objects::ClusterId;
    let mut m = ready_model(View::Ready);
    // Ten minutes after the report's last check, on this machine's clock.
    m.now = "2026-01-01T10:09:30Z".parse().unwrap();
    let ceph = |m: &mut Model| {
        m.derived = Default::default();
        settled(m);
        screen(m, 160, 60)
            .lines()
            .find(|l| l.contains("Ceph health:"))
            .expect("the Ceph check is drawn")
            .to_string()
    };
    let line = ceph(&mut m);
    assert!(
        line.contains("unknown  Ceph health: HEALTH_OK as last checked 10m ago"),
        "{line}"
    );
    // The MOSK API server's clock runs ten minutes behind this machine's.
    m.clock_offsets
        .insert(ClusterId::Mosk, jiff::SignedDuration::from_mins(-10));
    let line = ceph(&mut m);
    assert!(line.contains("ok       Ceph health: HEALTH_OK"), "{line}");
}
