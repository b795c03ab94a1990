//! The readiness checks against the simulator over HTTP (kube-rs watches on
//! the simulator's routers): the `ready` scenario, before its update
//! starts, has a Ceph node lock left inactive and an unknown migration mode
//! for them to find; `quick`, the demo's default, shows its readiness on
//! the Overview before its update starts.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::model::{Model, SessionInfo, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;
use mosk_console::console::{ClusterLayer, ConsoleOptions, initial_model};
use mosk_console::domain::phase::Phase;
use mosk_console::domain::readiness::{CheckId, Verdict};
use mosk_console::domain::which_cluster::ClusterRef;
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::world::SimWorld;
use tokio_util::sync::CancellationToken;

use super::which_cluster::clusters_of;

/// The console's model once every watch on `world` has listed.
async fn console_on(world: &SimWorld) -> Model {
    let (clusters, _) = clusters_of(world);
    let now = world.now();
    let opts = ConsoleOptions {
        session: SessionInfo {
            mgmt_context: "sim-mgmt".into(),
            mosk_context: "sim-mosk".into(),
            namespace: "child-ns".into(),
            cluster_name: "child-cl".into(),
            ..SessionInfo::default()
        },
        theme: Theme::default_theme(),
        keymap: Keymap::default_keymap(),
        audit_log: None,
        now: Arc::new(move || now),
        resync_every: Duration::from_secs(300),
        expected: Default::default(),
        max_objects: mosk_console::cluster::watch::DEFAULT_MAX_OBJECTS,
        pick: Vec::new(),
    };
    let cancel = CancellationToken::new();
    let (mut layer, mut events) = ClusterLayer::start(&clusters, &opts, cancel.clone());
    layer.follow(&ClusterRef::new("child-ns", "child-cl"));
    let mut model = initial_model(&opts);
    super::harness::until_listed(&mut model, &mut events).await;
    cancel.cancel();
    model
}

use crate::harness::screen_of as screen;

#[tokio::test(start_paused = true)]
async fn the_ready_scenario_has_a_lock_not_active_and_an_unknown_mode_to_find() {
    let world = SimWorld::new(load_scenario("ready").unwrap(), 7);
    let storage = world
        .machines()
        .into_iter()
        .find(|m| m.role.as_str() == "storage")
        .unwrap()
        .node;
    let first_compute = world
        .machines()
        .into_iter()
        .find(|m| m.is_compute())
        .unwrap()
        .node;
    let mut model = console_on(&world).await;
    assert_eq!(
        model.derived.phase.as_ref().map(|p| p.phase),
        Some(Phase::Idle),
        "the scenario starts before its update"
    );
    // The Overview shows the findings first.
    let overview = screen(&model, 120, 40);
    assert!(
        overview.contains("Readiness: 2 blocking, 3 unknown (b: details)"),
        "{overview}"
    );
    update(
        &mut model,
        Msg::Key(KeyEvent::new(KeyCode::Char('b'), KeyModifiers::NONE)),
    );
    assert_eq!(model.view, View::Ready);
    let checks = &model.derived.readiness.as_ref().unwrap().checks;
    let of = |id: CheckId| checks.iter().find(|c| c.id == id).unwrap();

    let locks = of(CheckId::Locks);
    assert_eq!(locks.verdict, Verdict::Blocking, "{locks:?}");
    assert_eq!(
        locks.evidence,
        [format!("NodeWorkloadLock ceph-{storage} inactive")]
    );
    let modes = of(CheckId::MigrationSettings);
    assert_eq!(modes.verdict, Verdict::Blocking, "{modes:?}");
    assert_eq!(
        modes.evidence[0],
        format!("{first_compute}: instance_migration_mode \"livee\" is none of live, manual, skip")
    );
    assert_eq!(
        modes.summary,
        "3 computes: live (unset) 1, livee 1, manual 1"
    );
    // The simulator's OpenStackDeploymentStatus and CephDeploymentHealth,
    // read over HTTP in their namespaces: APPLIED and every component
    // Ready; HEALTH_OK.
    for id in [
        CheckId::Nodes,
        CheckId::Requests,
        CheckId::OpenstackDeployment,
        CheckId::CephHealth,
    ] {
        assert_eq!(of(id).verdict, Verdict::Ok, "{:?}", of(id));
    }
    // quick and its derivatives have no update plan: MCC before 2.27 served
    // it or not, the console cannot estimate the window.
    assert_eq!(of(CheckId::UpdatePlan).verdict, Verdict::Unknown);
    let text = screen(&model, 160, 60);
    assert!(
        text.contains(&format!("· NodeWorkloadLock ceph-{storage} inactive")),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_demo_shows_readiness_before_its_update_starts() {
    let world = SimWorld::new(load_scenario("quick").unwrap(), 1);
    let model = console_on(&world).await;
    assert_eq!(
        model.derived.phase.as_ref().map(|p| p.phase),
        Some(Phase::Idle)
    );
    let overview = screen(&model, 120, 40);
    assert!(overview.contains(" Readiness: "), "{overview}");
    assert!(
        !overview.contains("Being worked on"),
        "readiness takes the place of the machines in their turn: {overview}"
    );
}
