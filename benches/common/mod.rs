//! Shared set-up of the benchmarks: the `large` scenario (2,000 machines)
//! played in the simulator, its objects converted the way the cluster layer
//! converts them (JSON -> `DynamicObject` -> `domain::Object`), and a model
//! loaded with them.
//!
//! Each bench binary uses a part of this module.
#![allow(dead_code)]

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use kube::api::DynamicObject;
use serde_json::Value;
use tokio::sync::broadcast::error::TryRecvError;

use mosk_console::app::model::{Model, SessionInfo};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::cluster::convert::{VROUTER_NAMESPACE, convert, is_wanted, object_key};
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::config::keymap::Keymap;
use mosk_console::domain::objects::{ClusterId, Kind};
use mosk_console::sim::scenario::load::BUILTIN;
use mosk_console::sim::scenario::{load_scenario, parse_scenario};
use mosk_console::sim::store::{EventType, StoreEvent, WatchFrom};
use mosk_console::sim::world::{SimCluster, SimWorld};

/// The seed every benchmark plays the scenario with.
pub const SEED: u64 = 1;

/// Simulated time from the scenario start to the moment the benchmarks load
/// the model: the masters are done and the workers are being updated ten at
/// a time (with seed 1 the Workers phase starts 24-25 simulated minutes in).
pub const MID_UPDATE: SignedDuration = SignedDuration::from_secs(26 * 60);

/// The `large` scenario at its start.
pub fn large_world() -> SimWorld {
    let spec = load_scenario("large").expect("the built-in large scenario loads");
    SimWorld::new(spec, SEED)
}

/// The `large` scenario with `machines` machines (3 masters, 5 % storage,
/// the rest computes), stepped to [`MID_UPDATE`]: for scaling curves.
pub fn scaled_world_mid_update(machines: u32) -> SimWorld {
    let (_, _, text) = BUILTIN
        .iter()
        .find(|b| b.0 == "large")
        .expect("large is built in");
    let storage = (machines / 20).max(1);
    let compute = machines - 3 - storage;
    let text = text
        .replace("count = 97", &format!("count = {storage}"))
        .replace("count = 1900", &format!("count = {compute}"));
    let spec = parse_scenario(&text, "large.toml (scaled by the benchmark)")
        .expect("the scaled large scenario loads");
    let world = SimWorld::new(spec, SEED);
    world.step(MID_UPDATE);
    world
}

/// The `large` scenario stepped to [`MID_UPDATE`].
pub fn large_world_mid_update() -> SimWorld {
    let world = large_world();
    world.step(MID_UPDATE);
    world
}

pub fn sim_cluster(kind: Kind) -> SimCluster {
    match kind.cluster() {
        ClusterId::Mgmt => SimCluster::Mgmt,
        ClusterId::Mosk => SimCluster::Mosk,
    }
}

/// The namespace the console's watcher of `kind` reads (the store ignores it
/// for cluster-scoped kinds), as `cluster::watch` chooses it.
pub fn watch_namespace(world: &SimWorld, kind: Kind) -> String {
    match kind.cluster() {
        ClusterId::Mgmt => world.spec().namespace,
        ClusterId::Mosk => VROUTER_NAMESPACE.to_string(),
    }
}

/// The objects a watcher of `kind` would list now, as JSON (what the API
/// server would send).
pub fn list_json(world: &SimWorld, kind: Kind) -> Vec<Value> {
    let ns = watch_namespace(world, kind);
    world
        .store(sim_cluster(kind))
        .list(kind.plural(), Some(&ns))
}

/// JSON -> `DynamicObject` (what kube-rs hands the watcher), keeping the
/// objects the watcher keeps.
pub fn to_dynamic(world: &SimWorld, kind: Kind, values: Vec<Value>) -> Vec<DynamicObject> {
    let cluster = world.spec().cluster;
    values
        .into_iter()
        .map(|v| serde_json::from_value::<DynamicObject>(v).expect("sim objects are objects"))
        .filter(|o| is_wanted(kind, o, Some(&cluster)))
        .collect()
}

/// One `Resynced` per kind: what the model receives after the watchers' first lists.
pub fn resync_events(world: &SimWorld) -> Vec<ClusterEvent> {
    Kind::ALL
        .into_iter()
        .map(|kind| {
            let dynamic = to_dynamic(world, kind, list_json(world, kind));
            ClusterEvent::Resynced {
                kind,
                objects: dynamic.iter().map(|o| convert(kind, o)).collect(),
            }
        })
        .collect()
}

/// A model with nothing loaded, its clock at `now`.
pub fn empty_model(now: Timestamp) -> Model {
    let session = SessionInfo {
        demo: Some("large".into()),
        ..SessionInfo::default()
    };
    Model::new(session, Keymap::default_keymap(), now)
}

/// A model loaded with every object of `world` (one `Resynced` per kind) and
/// its derived data fresh.
pub fn loaded_model(world: &SimWorld) -> Model {
    let mut model = empty_model(world.now());
    for ev in resync_events(world) {
        update(&mut model, Msg::Cluster(ev));
    }
    model
}

/// Watch events as the console would receive them: the simulated time they
/// happened at and the event.
pub type Recorded = Vec<(Timestamp, ClusterEvent)>;

/// Steps `world` by `span` one simulated second at a time and returns the
/// watch events the console's watchers would have delivered, in order.
pub fn record_events(world: &SimWorld, span: SignedDuration) -> Recorded {
    let cluster = world.spec().cluster;
    let mgmt_ns = world.spec().namespace;
    // Any plural subscribes to the store's broadcast of every resource.
    let mut mgmt = world
        .mgmt()
        .watch(
            "lcmmachines",
            WatchFrom::Since(world.mgmt().resource_version()),
        )
        .expect("lcmmachines is served")
        .rx;
    let mut mosk = world
        .mosk()
        .watch("nodes", WatchFrom::Since(world.mosk().resource_version()))
        .expect("nodes are served")
        .rx;
    let mut out = Vec::new();
    let end = world.now() + span;
    while world.now() < end {
        world.step(SignedDuration::from_secs(1));
        let now = world.now();
        for (rx, id) in [(&mut mgmt, ClusterId::Mgmt), (&mut mosk, ClusterId::Mosk)] {
            loop {
                match rx.try_recv() {
                    Ok(ev) => {
                        if let Some(ce) = to_cluster_event(&ev, id, &mgmt_ns, &cluster) {
                            out.push((now, ce));
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(e) => panic!("recording fell behind the store: {e}"),
                }
            }
        }
    }
    out
}

/// A store event as the console's watcher of its kind would report it, if
/// that watcher sees it at all.
fn to_cluster_event(
    ev: &StoreEvent,
    cluster: ClusterId,
    mgmt_ns: &str,
    cluster_name: &str,
) -> Option<ClusterEvent> {
    let kind = Kind::ALL
        .into_iter()
        .find(|k| k.cluster() == cluster && k.plural() == ev.plural)?;
    let obj: DynamicObject = serde_json::from_value(ev.object.clone()).ok()?;
    let ns = obj.metadata.namespace.as_deref().unwrap_or_default();
    let in_ns = match cluster {
        ClusterId::Mgmt => ns == mgmt_ns,
        ClusterId::Mosk => ns.is_empty() || ns == VROUTER_NAMESPACE,
    };
    if !in_ns || !is_wanted(kind, &obj, Some(cluster_name)) {
        return None;
    }
    Some(match ev.kind {
        EventType::Deleted => ClusterEvent::Deleted(object_key(kind, &obj)),
        EventType::Added | EventType::Modified => ClusterEvent::Applied(convert(kind, &obj)),
    })
}

/// `n` lcm-controller log lines: the simulator's log of the large scenario,
/// repeated until there are enough.
pub fn log_lines(world: &SimWorld, n: usize) -> Vec<String> {
    let log = world.lcm_log();
    assert!(!log.is_empty(), "the simulator wrote no lcm-controller log");
    log.iter().cycle().take(n).cloned().collect()
}

/// Short runs: the machine has 2 cores shared with other engineers.
pub fn quick_criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
        .configure_from_args()
}
