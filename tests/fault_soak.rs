//! The fault soak: the console's real runtime (`console::runtime::run` on a
//! ratatui `TestBackend`) and its real cluster layer (`spawn_watchers`,
//! `spawn_log_follower`, kube-rs over HTTP) against the simulated clusters
//! with faults injected (`--faults`), for a simulated hour of the `standard`
//! scenario with short phase durations, on tokio's paused clock stepped
//! together with the simulator's. At the end the model must equal the
//! servers' truth, every lcm-controller log line must have arrived exactly
//! once, and the watch health must have gone bad and come back.
//!
//! Run: `cargo test --test fault_soak -- --nocapture` (prints the figures
//! recorded in docs/RELIABILITY.md, "Fault soak").

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::SignedDuration;
use kube::api::DynamicObject;
use kube::client::ClientBuilder;
use mosk_console::app::model::{Model, SessionInfo};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::cluster::clock::ClockSync;
use mosk_console::cluster::convert::{convert, is_wanted, mosk_namespace};
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::cluster::{
    Clusters, LogOptions, WatchOptions, spawn_log_follower, spawn_watchers,
};
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;
use mosk_console::console::runtime::{self, NoEffects};
use mosk_console::domain::objects::{ClusterId, Kind, Snapshot};
use mosk_console::sim::faults::FaultCounts;
use mosk_console::sim::faults::service::FaultyService;
use mosk_console::sim::faults::spec::FaultPlan;
use mosk_console::sim::scenario::ScenarioSpec;
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::scenario::spec::Durations;
use mosk_console::sim::world::{SimCluster, SimWorld};
use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;

/// The faults of the soak (simulated time since the soak started).
const SOAK_FAULTS: &str =
    "drop-watch=170s,5xx-burst=every:240s:count:5,outage=1500s+60s,gone=every:900s,close-logs=130s";
/// How long faults are injected, then how long the clusters stay quiet so
/// every retry and re-list can finish before the comparison.
const SOAK: SignedDuration = SignedDuration::from_hours(1);
const QUIET: SignedDuration = SignedDuration::from_mins(3);

fn standard_short() -> ScenarioSpec {
    #[derive(serde::Deserialize)]
    struct File {
        durations: Durations,
    }
    let mut spec = load_scenario("standard").unwrap();
    let short: File = toml::from_str(include_str!("data/short_durations.toml")).unwrap();
    spec.durations = short.durations;
    spec
}

/// A `TestBackend` whose errors are `io::Error`s, as the runtime wants
/// (the test backend never fails).
struct Screen(TestBackend);

fn never(e: std::convert::Infallible) -> std::io::Error {
    match e {}
}

impl Backend for Screen {
    type Error = std::io::Error;
    fn draw<'a, I: Iterator<Item = (u16, u16, &'a Cell)>>(
        &mut self,
        content: I,
    ) -> std::io::Result<()> {
        self.0.draw(content).map_err(never)
    }
    fn hide_cursor(&mut self) -> std::io::Result<()> {
        self.0.hide_cursor().map_err(never)
    }
    fn show_cursor(&mut self) -> std::io::Result<()> {
        self.0.show_cursor().map_err(never)
    }
    fn get_cursor_position(&mut self) -> std::io::Result<Position> {
        self.0.get_cursor_position().map_err(never)
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, p: P) -> std::io::Result<()> {
        self.0.set_cursor_position(p).map_err(never)
    }
    fn clear(&mut self) -> std::io::Result<()> {
        self.0.clear().map_err(never)
    }
    fn clear_region(&mut self, t: ClearType) -> std::io::Result<()> {
        self.0.clear_region(t).map_err(never)
    }
    fn size(&self) -> std::io::Result<Size> {
        self.0.size().map_err(never)
    }
    fn window_size(&mut self) -> std::io::Result<WindowSize> {
        self.0.window_size().map_err(never)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(never)
    }
}

/// What the cluster layer told the console, recorded on the way in.
#[derive(Default)]
struct Record {
    /// (kind, connected) in arrival order, only changes of `connected`.
    health: Vec<(Kind, bool)>,
    last: BTreeMap<Kind, bool>,
    log_lines: Vec<String>,
    resyncs: usize,
}

/// The truth: every watched object on the servers, converted as the watchers do.
fn truth(world: &SimWorld, cluster_name: &str) -> Snapshot {
    let mut snap = Snapshot::default();
    for kind in Kind::ALL {
        let store = match kind.cluster() {
            ClusterId::Mgmt => world.mgmt(),
            ClusterId::Mosk => world.mosk(),
        };
        let ns = match kind.cluster() {
            ClusterId::Mgmt => world.spec().namespace,
            ClusterId::Mosk => mosk_namespace(kind).to_string(),
        };
        let info = store.info(kind.plural()).unwrap();
        let scope = info.namespaced.then_some(ns.as_str());
        for v in store.list(kind.plural(), scope) {
            let obj: DynamicObject = serde_json::from_value(v).unwrap();
            if is_wanted(kind, &obj, Some(cluster_name)) {
                snap.apply(convert(kind, &obj));
            }
        }
    }
    snap
}

/// Keys whose objects differ between the model and the truth.
fn mismatches(model: &Snapshot, truth: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in truth.objects() {
        match model.objects().get(k) {
            None => out.push(format!("missing {k:?}")),
            Some(m) if m != v => out.push(format!("differs {k:?}:\n  model {m:?}\n  truth {v:?}")),
            _ => {}
        }
    }
    for k in model.objects().keys() {
        if !truth.objects().contains_key(k) {
            out.push(format!("extra {k:?}"));
        }
    }
    out
}

struct Soak {
    world: Arc<SimWorld>,
    record: Arc<Mutex<Record>>,
    model: Model,
    terminal: Terminal<Screen>,
    rx: tokio::sync::mpsc::UnboundedReceiver<Msg>,
    cancel: CancellationToken,
}

impl Soak {
    fn start(world: Arc<SimWorld>, watch: WatchOptions) -> Soak {
        // Built as `connect` builds them: with the layer that reads each
        // server's clock from the Date of its answers.
        let clock = ClockSync::new();
        let client = |which: SimCluster, id: ClusterId| {
            ClientBuilder::new(
                FaultyService::new(world.router(which), world.faults(which).clone()),
                "default",
            )
            .with_layer(&clock.layer(id))
            .build()
        };
        let clusters = Clusters {
            mgmt: client(SimCluster::Mgmt, ClusterId::Mgmt),
            mosk: client(SimCluster::Mosk, ClusterId::Mosk),
            mgmt_context: "sim-mgmt".into(),
            mosk_context: "sim-mosk".into(),
            mgmt_user: "-".into(),
            mosk_user: "-".into(),
            mgmt_server: "in-process".into(),
            mosk_server: "in-process".into(),
            mgmt_transport: Default::default(),
            mosk_transport: Default::default(),
            clock,
        };
        let cancel = CancellationToken::new();
        let (ctx, mut crx) = mosk_console::cluster::channel::channel();
        spawn_watchers(&clusters, &watch, ctx.clone(), cancel.clone()).detach_all();
        spawn_log_follower(
            clusters.mgmt.clone(),
            LogOptions::default(),
            ctx,
            cancel.clone(),
        );
        let (tx, rx) = unbounded_channel::<Msg>();
        let record = Arc::new(Mutex::new(Record::default()));
        let rec = record.clone();
        tokio::spawn(async move {
            while let Some(ev) = crx.recv().await {
                {
                    let mut r = rec.lock().unwrap();
                    match &ev {
                        ClusterEvent::Health { kind, health }
                            if r.last.get(kind) != Some(&health.connected) =>
                        {
                            r.last.insert(*kind, health.connected);
                            r.health.push((*kind, health.connected));
                        }
                        ClusterEvent::LogLines { lines, .. } => {
                            r.log_lines.extend(lines.iter().cloned())
                        }
                        ClusterEvent::Resynced { .. } => r.resyncs += 1,
                        _ => {}
                    }
                }
                if tx.send(Msg::Cluster(ev)).is_err() {
                    break;
                }
            }
        });
        let session = SessionInfo {
            mgmt_context: "sim-mgmt".into(),
            mosk_context: "sim-mosk".into(),
            namespace: watch.namespace.clone(),
            cluster_name: watch.cluster_name.clone().unwrap_or_default(),
            read_only: true,
            ..SessionInfo::default()
        };
        let mut model = Model::new(session, Keymap::default_keymap(), world.now());
        update(
            &mut model,
            Msg::Resize {
                width: 160,
                height: 48,
            },
        );
        let terminal = Terminal::new(Screen(TestBackend::new(160, 48))).unwrap();
        Soak {
            world,
            record,
            model,
            terminal,
            rx,
            cancel,
        }
    }

    /// Runs the console while both clocks move on by `d`, one simulated
    /// second per second of tokio's paused clock.
    async fn run_for(&mut self, d: SignedDuration) {
        self.run(d, true).await
    }

    /// Runs the console for `d` of tokio's clock while the clusters stand
    /// still (no scenario step, no change on the servers).
    async fn idle_for(&mut self, d: SignedDuration) {
        self.run(d, false).await
    }

    async fn run(&mut self, d: SignedDuration, step_world: bool) {
        let theme = Theme::default_theme();
        let world = self.world.clone();
        let now_world = world.clone();
        let mut effects = NoEffects;
        let run = runtime::run(
            &mut self.terminal,
            &mut self.model,
            &theme,
            &mut self.rx,
            &mut effects,
            move || now_world.now(),
        );
        let drive = async {
            for _ in 0..d.as_secs() {
                if step_world {
                    world.step(SignedDuration::from_secs(1));
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        };
        tokio::select! {
            r = run => panic!("the runtime ended early: {r:?}"),
            _ = drive => {}
        }
    }

    fn screen(&self) -> String {
        let buf = self.terminal.backend().0.buffer();
        let mut s = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    }

    fn unhealthy(&self) -> Vec<Kind> {
        self.model
            .health
            .iter()
            .filter(|(_, h)| !h.connected)
            .map(|(k, _)| *k)
            .collect()
    }
}

/// The figures one soak run recorded (docs/RELIABILITY.md, "Fault soak").
struct Figures {
    mismatched: usize,
    lost: usize,
    dup: usize,
    /// Objects the periodic re-list found different from what the watch had sent.
    drift: u64,
}

fn figures(name: &str, c: FaultCounts, r: &Record, f: Figures) {
    let Figures {
        mismatched,
        lost,
        dup,
        drift,
    } = f;
    let downs = r.health.iter().filter(|(_, up)| !up).count();
    let ups = r.health.len() - downs;
    println!(
        "{name}: faults {c:?}; health transitions: {downs} down, {ups} up; re-lists (Resynced): {}; \
         log lines {} received; mismatches {mismatched}; lost lines {lost}; duplicated lines {dup}; \
         drift found by re-lists {drift}",
        r.resyncs,
        r.log_lines.len()
    );
}

/// Lines of `truth` missing from `got` and lines of `got` seen more than once
/// (the lcm-controller log never repeats a line: each carries its own time).
fn lost_and_duplicated(got: &[String], truth: &[String]) -> (usize, usize) {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for l in got {
        *count.entry(l.as_str()).or_default() += 1;
    }
    let lost = truth
        .iter()
        .filter(|l| !count.contains_key(l.as_str()))
        .count();
    let dup = count.values().filter(|n| **n > 1).map(|n| n - 1).sum();
    (lost, dup)
}

#[tokio::test(start_paused = true)]
async fn an_hour_of_faults_leaves_the_console_equal_to_the_servers() {
    let world = Arc::new(SimWorld::new(standard_short(), 11));
    let spec = world.spec();
    let watch = WatchOptions {
        namespace: spec.namespace.clone(),
        cluster_name: Some(spec.cluster.clone()),
        ..WatchOptions::default()
    };
    let mut soak = Soak::start(world.clone(), watch);
    soak.run_for(SignedDuration::from_secs(30)).await;
    assert!(soak.unhealthy().is_empty(), "{:?}", soak.model.health);
    world.set_fault_plan(FaultPlan::parse(SOAK_FAULTS).unwrap());

    // Into the outage (1500 s + 60 s): the health marks come.
    soak.run_for(SignedDuration::from_secs(1530)).await;
    let during = soak.unhealthy();
    let screen_during = soak.screen();
    assert!(
        !during.is_empty(),
        "no watch reported unhealthy 30 s into an outage:\n{screen_during}"
    );
    soak.run_for(SOAK - SignedDuration::from_secs(1530)).await;
    let counts = world.fault_counts();
    world.set_fault_plan(FaultPlan::default());
    soak.run_for(QUIET).await;

    let cluster = spec.cluster.clone();
    let want = truth(&world, &cluster);
    let bad = mismatches(&soak.model.snapshot, &want);
    let r = soak.record.lock().unwrap();
    let (lost, dup) = lost_and_duplicated(&r.log_lines, &world.lcm_log());
    let drift = soak.model.drift_found;
    figures(
        "fault soak",
        counts,
        &r,
        Figures {
            mismatched: bad.len(),
            lost,
            dup,
            drift,
        },
    );
    assert!(counts.watch_drops > 0 && counts.injected_5xx > 0 && counts.refused > 0);
    assert!(
        counts.gone > 0 && counts.log_closes > 0 && counts.outages > 0,
        "{counts:?}"
    );
    assert!(
        bad.is_empty(),
        "{} objects differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert!(
        soak.unhealthy().is_empty(),
        "still unhealthy: {:?}",
        soak.model.health
    );
    assert!(r.health.iter().any(|(_, up)| !up) && r.health.iter().any(|(_, up)| *up));
    assert_eq!((lost, dup), (0, 0), "log lines lost, duplicated");
    assert!(
        r.log_lines.len() > 100,
        "the log barely moved: {}",
        r.log_lines.len()
    );
    drop(r);
    soak.cancel.cancel();
}

/// The lost-change case: a NodeWorkloadLock going `inactive` is the last
/// change on the clusters, and its watch event is cut short on the wire, so
/// kube's client skips it; a watch that is resumed does not repair it, and nothing forces
/// a re-list. Only the console's periodic re-list (default every 5 minutes)
/// can repair it.
#[tokio::test(start_paused = true)]
async fn a_change_lost_on_the_wire_is_repaired_by_the_periodic_relist() {
    let world = Arc::new(SimWorld::new(standard_short(), 11));
    let spec = world.spec();
    let watch = WatchOptions {
        namespace: spec.namespace.clone(),
        cluster_name: Some(spec.cluster.clone()),
        ..WatchOptions::default()
    };
    let mut soak = Soak::start(world.clone(), watch);
    world.set_fault_plan(FaultPlan::parse("drop-watch=170s").unwrap());
    // One minute of the update, before the first periodic re-list (5 minutes
    // after the first list).
    soak.run_for(SignedDuration::from_mins(1)).await;
    // The clusters stop; one lock changes, and its event is lost on the wire.
    let lock = world
        .mosk()
        .list("nodeworkloadlocks", None)
        .into_iter()
        .find(|l| l["status"]["state"] == "active")
        .expect("an active node lock");
    let name = lock["metadata"]["name"].as_str().unwrap().to_string();
    world
        .faults(SimCluster::Mosk)
        .truncate_next_event(Some("nodeworkloadlocks"));
    world
        .mosk()
        .update("nodeworkloadlocks", None, &name, |l| {
            l["status"]["state"] = "inactive".into()
        })
        .unwrap();
    soak.idle_for(SignedDuration::from_secs(30)).await;
    assert_eq!(world.fault_counts().truncated_events, 1);
    let shown = |soak: &Soak| {
        soak.model
            .snapshot
            .node_locks()
            .find(|l| l.name == name)
            .map(|l| l.state.as_str().to_string())
    };
    assert_eq!(
        shown(&soak).as_deref(),
        Some("active"),
        "the change was not lost: the test shows nothing"
    );
    // A default re-list period and a margin; watches keep being dropped and resumed.
    soak.idle_for(SignedDuration::from_mins(6)).await;
    let want = truth(&world, &spec.cluster);
    let bad = mismatches(&soak.model.snapshot, &want);
    let r = soak.record.lock().unwrap();
    figures(
        "lost change",
        world.fault_counts(),
        &r,
        Figures {
            mismatched: bad.len(),
            lost: 0,
            dup: 0,
            drift: soak.model.drift_found,
        },
    );
    assert_eq!(
        shown(&soak).as_deref(),
        Some("inactive"),
        "the lost change was never repaired"
    );
    assert!(
        soak.model.drift_found >= 1,
        "the repair must be counted as drift found by a re-list"
    );
    assert!(
        bad.is_empty(),
        "{} objects differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
