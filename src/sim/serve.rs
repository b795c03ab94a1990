//! Serving the simulated clusters on loopback TCP: `mosk-console sim serve`
//! and `demo`.
//!
//! Two HTTP servers (management and MOSK cluster) run over one
//! [`SimWorld`]; a driver task advances the world's clock at `speed`
//! simulated seconds per real second; a kubeconfig with the contexts
//! `sim-mgmt` and `sim-mosk` points at both.
//!
//! The simulated clock starts at the real present time (the scenario's
//! offsets are relative), so `kubectl get` ages, the console and the log
//! timestamps agree with the wall clock at the start and drift from it only
//! by the speed factor. `--faults SPEC` injects faults (see
//! [`crate::sim::faults::spec`]); during an outage new connections are
//! closed as soon as they are accepted.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::faults::Faults;
use super::faults::spec::{FaultPlan, SPEC_HELP};
use super::scenario::spec::When;
use super::scenario::{ScenarioError, load_scenario};
use super::world::{SimCluster, SimWorld};

/// The default speed: 10 simulated seconds per real second. At this speed
/// the `quick` scenario takes about 26 simulated minutes (under three real
/// minutes) plus the operator's time.
pub const DEFAULT_SPEED: f64 = 10.0;
/// Fastest allowed speed.
pub const MAX_SPEED: f64 = 10_000.0;
/// The most lcm-controller background lines a simulated minute `--log-rate` takes.
pub const MAX_LOG_RATE: f64 = 60_000.0;
/// How long shutdown waits for open connections before cutting them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// How often the driver advances the world (real time).
pub const DRIVER_PERIOD: Duration = Duration::from_millis(200);

/// What to serve and where.
#[derive(Debug, Clone, PartialEq)]
pub struct ServeOptions {
    /// A built-in scenario name (`quick`, `standard`, `stuck-drain`, `legacy`, `large`, `plan`, `controllers`) or a file path.
    pub scenario: String,
    /// Simulated seconds per real second.
    pub speed: f64,
    /// Seed for names, ids and log noise.
    pub seed: u64,
    /// Management cluster port on 127.0.0.1; 0 picks a free one.
    pub mgmt_port: u16,
    /// MOSK cluster port on 127.0.0.1; 0 picks a free one.
    pub mosk_port: u16,
    /// Where to write the kubeconfig (mode 0600).
    pub kubeconfig_out: PathBuf,
    /// When the simulated clock starts; `None`: the real present time.
    /// Tests pass a fixed time for stable output.
    pub start: Option<Timestamp>,
    /// Faults to inject (`--faults`); empty: none.
    pub faults: FaultPlan,
    /// lcm-controller background lines per simulated minute (`--log-rate`);
    /// `None`: the scenario's own (~8).
    pub log_rate: Option<f64>,
    /// Replace `kubeconfig_out` even when it exists and is not a kubeconfig
    /// the simulator wrote (`--force`).
    pub force: bool,
    /// Serve as the MOSK cluster the same scenario played with this seed
    /// (`--mosk-seed`): another cluster's nodes, which the management
    /// cluster's LCMMachines do not name (a kubeconfig pairing one cluster's
    /// management with another's MOSK context). `None`: the played cluster's.
    pub mosk_seed: Option<u64>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            scenario: "quick".into(),
            speed: DEFAULT_SPEED,
            seed: 1,
            mgmt_port: 0,
            mosk_port: 0,
            kubeconfig_out: PathBuf::from("sim-kubeconfig.yaml"),
            start: None,
            faults: FaultPlan::default(),
            log_rate: None,
            force: false,
            mosk_seed: None,
        }
    }
}

/// Why the simulator could not start.
#[derive(Debug)]
pub enum ServeError {
    Scenario(ScenarioError),
    Speed(f64),
    LogRate(f64),
    Bind {
        what: &'static str,
        port: u16,
        source: std::io::Error,
    },
    Kubeconfig {
        path: PathBuf,
        source: std::io::Error,
    },
    Signal(std::io::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Scenario(e) => write!(f, "{e}"),
            ServeError::Speed(s) => write!(
                f,
                "speed {s} is out of range: use a number above 0 and at most {MAX_SPEED}"
            ),
            ServeError::LogRate(r) => write!(
                f,
                "log rate {r} is out of range: use a number of lines a simulated minute above 0 and at most {MAX_LOG_RATE}"
            ),
            ServeError::Bind { what, port, source } => {
                write!(
                    f,
                    "cannot listen on 127.0.0.1:{port} for the {what} cluster: {source}"
                )
            }
            ServeError::Kubeconfig { path, source } => {
                write!(
                    f,
                    "cannot write the kubeconfig {}: {source}",
                    path.display()
                )
            }
            ServeError::Signal(e) => write!(f, "cannot wait for SIGINT/SIGTERM: {e}"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::Scenario(e) => Some(e),
            ServeError::Bind { source, .. } | ServeError::Kubeconfig { source, .. } => Some(source),
            ServeError::Signal(e) => Some(e),
            ServeError::Speed(_) | ServeError::LogRate(_) => None,
        }
    }
}

/// A running simulator. Dropping it without [`RunningSim::shutdown`] leaves the tasks running until the runtime ends.
#[derive(Debug)]
pub struct RunningSim {
    pub world: Arc<SimWorld>,
    /// The world whose MOSK cluster is served: `world` itself, unless
    /// [`ServeOptions::mosk_seed`] names another.
    pub mosk_world: Arc<SimWorld>,
    pub mgmt_port: u16,
    pub mosk_port: u16,
    /// `http://127.0.0.1:PORT`
    pub mgmt_url: String,
    pub mosk_url: String,
    pub kubeconfig: PathBuf,
    pub speed: f64,
    cancel: CancellationToken,
    tasks: Vec<JoinHandle<()>>,
}

impl RunningSim {
    /// A token that stops the servers and the driver when cancelled.
    pub fn cancel_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Stops the driver and both servers. Open watches are closed; streams
    /// still open after [`SHUTDOWN_GRACE`] (e.g. followed logs) are cut.
    pub async fn shutdown(self) {
        self.cancel.cancel();
        self.world.faults(SimCluster::Mgmt).drop_watches();
        self.mosk_world.faults(SimCluster::Mosk).drop_watches();
        let mut tasks = self.tasks;
        let all = futures::future::join_all(tasks.iter_mut());
        if tokio::time::timeout(SHUTDOWN_GRACE, all).await.is_err() {
            for t in &tasks {
                t.abort();
            }
        }
    }
}

/// Loads the scenario, binds both servers on 127.0.0.1, starts the clock
/// driver and writes the kubeconfig.
pub async fn start(opts: ServeOptions) -> Result<RunningSim, ServeError> {
    if !(opts.speed.is_finite() && opts.speed > 0.0 && opts.speed <= MAX_SPEED) {
        return Err(ServeError::Speed(opts.speed));
    }
    if let Some(r) = opts.log_rate
        && !(r.is_finite() && r > 0.0 && r <= MAX_LOG_RATE)
    {
        return Err(ServeError::LogRate(r));
    }
    if !opts.force {
        check_kubeconfig_out(&opts.kubeconfig_out).map_err(|source| ServeError::Kubeconfig {
            path: opts.kubeconfig_out.clone(),
            source,
        })?;
    }
    let mut spec = load_scenario(&opts.scenario).map_err(ServeError::Scenario)?;
    // Whole seconds: HTTP dates and kubectl ages have no fractions.
    let now = Timestamp::now();
    spec.start = When(
        opts.start
            .unwrap_or_else(|| Timestamp::from_second(now.as_second()).unwrap_or(now)),
    );
    let world = Arc::new(SimWorld::new(spec.clone(), opts.seed));
    let mosk_world = match opts.mosk_seed {
        Some(seed) => Arc::new(SimWorld::new(spec, seed)),
        None => world.clone(),
    };
    if let Some(r) = opts.log_rate {
        world.set_log_rate(r);
    }
    if !opts.faults.is_empty() {
        world.set_fault_plan(opts.faults.clone());
        if !Arc::ptr_eq(&world, &mosk_world) {
            mosk_world.set_fault_plan(opts.faults.clone());
        }
    }
    let bind = |what: &'static str, port: u16| async move {
        TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|source| ServeError::Bind { what, port, source })
    };
    let mgmt_listener = bind("management", opts.mgmt_port).await?;
    let mosk_listener = bind("MOSK", opts.mosk_port).await?;
    let port_of = |l: &TcpListener, what: &'static str, port: u16| {
        l.local_addr()
            .map(|a| a.port())
            .map_err(|source| ServeError::Bind { what, port, source })
    };
    let mgmt_port = port_of(&mgmt_listener, "management", opts.mgmt_port)?;
    let mosk_port = port_of(&mosk_listener, "MOSK", opts.mosk_port)?;
    let mgmt_url = format!("http://127.0.0.1:{mgmt_port}");
    let mosk_url = format!("http://127.0.0.1:{mosk_port}");
    let namespace = world.spec().namespace;
    write_kubeconfig(&opts.kubeconfig_out, &mgmt_url, &mosk_url, &namespace).map_err(|source| {
        ServeError::Kubeconfig {
            path: opts.kubeconfig_out.clone(),
            source,
        }
    })?;

    let cancel = CancellationToken::new();
    let mut tasks = Vec::new();
    for (listener, which, served) in [
        (mgmt_listener, SimCluster::Mgmt, &world),
        (mosk_listener, SimCluster::Mosk, &mosk_world),
    ] {
        let app = served.router(which);
        let token = cancel.clone();
        let listener = FaultyListener {
            inner: listener,
            faults: served.faults(which).clone(),
        };
        tasks.push(tokio::spawn(async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(async move { token.cancelled().await })
                .await;
            if let Err(e) = served {
                tracing::error!(target: "sim", ?which, "simulated API server stopped: {e}");
            }
        }));
    }
    tasks.push(tokio::spawn(drive(
        world.clone(),
        opts.speed,
        cancel.clone(),
    )));
    if !Arc::ptr_eq(&world, &mosk_world) {
        tasks.push(tokio::spawn(drive(
            mosk_world.clone(),
            opts.speed,
            cancel.clone(),
        )));
    }
    tracing::info!(target: "sim", %mgmt_url, %mosk_url, speed = opts.speed, "simulator started");
    Ok(RunningSim {
        world,
        mosk_world,
        mgmt_port,
        mosk_port,
        mgmt_url,
        mosk_url,
        kubeconfig: opts.kubeconfig_out,
        speed: opts.speed,
        cancel,
        tasks,
    })
}

/// A TCP listener that closes every connection it accepts during an outage
/// (the client sees the connection reset or closed before any answer).
struct FaultyListener {
    inner: TcpListener,
    faults: Arc<Faults>,
}

impl axum::serve::Listener for FaultyListener {
    type Io = TcpStream;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let (io, addr) = axum::serve::Listener::accept(&mut self.inner).await;
            if !self.faults.in_outage() {
                return (io, addr);
            }
            self.faults.count_refused();
            drop(io);
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// Advances the world by `speed` × the real time passed, every [`DRIVER_PERIOD`].
async fn drive(world: Arc<SimWorld>, speed: f64, cancel: CancellationToken) {
    let mut ticker = tokio::time::interval(DRIVER_PERIOD);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let started = tokio::time::Instant::now();
    let mut simulated = SignedDuration::ZERO;
    loop {
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = ticker.tick() => {}
        }
        let (dt, target) = catch_up(started.elapsed(), speed, simulated);
        if dt.is_positive() {
            world.step(dt);
        }
        simulated = target;
    }
}

/// How far to advance: the simulated time due after `real` at `speed`,
/// minus what was already simulated. Returns (advance, new total).
fn catch_up(
    real: Duration,
    speed: f64,
    simulated: SignedDuration,
) -> (SignedDuration, SignedDuration) {
    let target = SignedDuration::try_from(real.mul_f64(speed)).unwrap_or(SignedDuration::MAX);
    if target > simulated {
        (target - simulated, target)
    } else {
        (SignedDuration::ZERO, simulated)
    }
}

/// The first line of every kubeconfig the simulator writes: how it knows a
/// file it may replace (a YAML comment, so kubectl and kube-rs ignore it).
pub const KUBECONFIG_MARK: &str = "# Written by `mosk-console sim serve` for its simulated clusters; it replaces this file on its next start.";

/// Refuses an existing `path` that is not a kubeconfig the simulator wrote
/// (`~/.kube/config`, a symlink, anything else): the simulator renames its
/// file over the target, and what was there would be lost.
pub fn check_kubeconfig_out(path: &Path) -> std::io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let ours = meta.file_type().is_file()
        && std::fs::read_to_string(path).is_ok_and(|t| t.lines().next() == Some(KUBECONFIG_MARK));
    if ours {
        return Ok(());
    }
    let what = if meta.file_type().is_symlink() {
        "it is a symbolic link"
    } else if meta.file_type().is_file() {
        "it exists and the simulator did not write it"
    } else {
        "it exists and is not a regular file"
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("{what}: refusing to replace it (choose another path, or pass --force)"),
    ))
}

/// Writes a kubeconfig for both clusters, readable by its owner only,
/// marked as the simulator's ([`KUBECONFIG_MARK`]).
/// Hand-written YAML: the structure is fixed and every value is ours.
pub fn write_kubeconfig(
    path: &Path,
    mgmt_url: &str,
    mosk_url: &str,
    namespace: &str,
) -> std::io::Result<()> {
    let text = format!(
        "{KUBECONFIG_MARK}
apiVersion: v1
kind: Config
clusters:
- name: sim-mgmt
  cluster:
    server: {mgmt_url}
- name: sim-mosk
  cluster:
    server: {mosk_url}
users:
- name: sim-mgmt
  user: {{}}
- name: sim-mosk
  user: {{}}
contexts:
- name: sim-mgmt
  context:
    cluster: sim-mgmt
    user: sim-mgmt
    namespace: {namespace}
- name: sim-mosk
  context:
    cluster: sim-mosk
    user: sim-mosk
current-context: sim-mgmt
preferences: {{}}
"
    );
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // A temporary file in the same directory is created 0600 and renamed over the target.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.flush()?;
    tmp.persist(path).map_err(|e| e.error)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

/// Starts the simulator, prints how to use it, and runs until SIGINT or SIGTERM.
pub async fn run(opts: ServeOptions) -> Result<(), ServeError> {
    let sim = start(opts).await?;
    let spec = sim.world.spec();
    let kc = sim.kubeconfig.display();
    println!(
        "Simulated MOSK clusters running scenario `{}` at {}x speed.",
        spec.name, sim.speed
    );
    println!("  management cluster: {} (context sim-mgmt)", sim.mgmt_url);
    println!("  MOSK cluster:       {} (context sim-mosk)", sim.mosk_url);
    if !Arc::ptr_eq(&sim.world, &sim.mosk_world) {
        println!("  (another cluster's MOSK side: its nodes are not the LCMMachines' nodes)");
    }
    println!();
    println!(
        "  export KUBECONFIG={kc}; kubectl --context sim-mgmt -n {} get lcmmachines",
        spec.namespace
    );
    println!("  kubectl --context sim-mosk get nodeworkloadlocks");
    println!();
    let help = super::scenario::plan_controllers::plan_help(&spec);
    if !help.is_empty() {
        for line in help {
            println!("{line}");
        }
        println!();
    }
    println!("Simulated clock started at {} (now).", sim.world.now());
    let plan = sim.world.fault_plan();
    if plan.is_empty() {
        println!("No faults injected: add --faults SPEC to inject some (see --help).");
    } else {
        println!("Injecting faults (simulated time): {plan}");
    }
    println!("  {SPEC_HELP}");
    println!();
    println!("Press Ctrl-C to stop.");
    let waited = wait_for_signal().await;
    println!("Stopping the simulator.");
    sim.shutdown().await;
    waited.map_err(ServeError::Signal)
}

#[cfg(unix)]
async fn wait_for_signal() -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r,
        _ = term.recv() => Ok(()),
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() -> std::io::Result<()> {
    tokio::signal::ctrl_c().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubeconfig_is_private_and_names_both_contexts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kc.yaml");
        std::fs::write(&path, "old").unwrap();
        write_kubeconfig(
            &path,
            "http://127.0.0.1:1",
            "http://127.0.0.1:2",
            "child-ns",
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let v: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
        assert_eq!(v["current-context"], "sim-mgmt");
        assert_eq!(v["clusters"][1]["cluster"]["server"], "http://127.0.0.1:2");
        assert_eq!(v["contexts"][0]["context"]["namespace"], "child-ns");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }

    #[test]
    fn the_driver_catches_up_with_real_time_at_speed() {
        let (dt, total) = catch_up(Duration::from_millis(200), 10.0, SignedDuration::ZERO);
        assert_eq!(
            (dt, total),
            (SignedDuration::from_secs(2), SignedDuration::from_secs(2))
        );
        let (dt, total) = catch_up(Duration::from_millis(450), 10.0, total);
        assert_eq!(
            (dt, total),
            (
                SignedDuration::from_millis(2500),
                SignedDuration::from_millis(4500)
            )
        );
        assert_eq!(
            catch_up(Duration::from_millis(100), 10.0, total).0,
            SignedDuration::ZERO
        );
    }

    #[tokio::test]
    async fn start_binds_both_clusters_writes_kubeconfig_and_shuts_down() {
        let dir = tempfile::tempdir().unwrap();
        let kc = dir.path().join("kc");
        let opts = ServeOptions {
            kubeconfig_out: kc.clone(),
            ..ServeOptions::default()
        };
        let sim = start(opts).await.unwrap();
        assert_ne!(sim.mgmt_port, 0);
        assert_ne!(sim.mgmt_port, sim.mosk_port);
        assert_eq!(sim.mgmt_url, format!("http://127.0.0.1:{}", sim.mgmt_port));
        let text = std::fs::read_to_string(&kc).unwrap();
        assert!(text.contains(&sim.mosk_url), "{text}");
        // The port is taken while the simulator runs, free again after shutdown.
        let port = sim.mgmt_port;
        let busy = ServeOptions {
            kubeconfig_out: dir.path().join("kc2"),
            mgmt_port: port,
            ..ServeOptions::default()
        };
        let err = start(busy).await.unwrap_err().to_string();
        assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
        sim.shutdown().await;
        assert!(std::net::TcpListener::bind(("127.0.0.1", port)).is_ok());
    }

    /// `--mosk-seed`: the MOSK cluster served is another cluster's, whose
    /// nodes none of the management cluster's LCMMachines name.
    #[tokio::test]
    async fn mosk_seed_serves_another_clusters_nodes() {
        let dir = tempfile::tempdir().unwrap();
        let hostnames = |w: &SimWorld| -> Vec<String> {
            w.mgmt()
                .list("lcmmachines", None)
                .iter()
                .filter_map(|m| {
                    m.pointer("/status/addresses")?
                        .as_array()?
                        .iter()
                        .find(|a| a["type"] == "Hostname")?["address"]
                        .as_str()
                        .map(str::to_string)
                })
                .collect()
        };
        let nodes = |w: &SimWorld| -> Vec<String> {
            w.mosk()
                .list("nodes", None)
                .iter()
                .filter_map(|n| n.pointer("/metadata/name")?.as_str().map(str::to_string))
                .collect()
        };
        let same = start(ServeOptions {
            kubeconfig_out: dir.path().join("kc1"),
            ..ServeOptions::default()
        })
        .await
        .unwrap();
        assert!(Arc::ptr_eq(&same.world, &same.mosk_world));
        let other = start(ServeOptions {
            kubeconfig_out: dir.path().join("kc2"),
            mosk_seed: Some(2),
            ..ServeOptions::default()
        })
        .await
        .unwrap();
        let machines = hostnames(&other.world);
        assert_eq!(machines.len(), nodes(&other.mosk_world).len());
        assert!(nodes(&other.world).iter().all(|n| machines.contains(n)));
        assert!(
            !nodes(&other.mosk_world)
                .iter()
                .any(|n| machines.contains(n))
        );
        same.shutdown().await;
        other.shutdown().await;
    }

    /// `--kubeconfig-out ~/.kube/config` must not rename over the operator's
    /// own kubeconfig (nor over a symlink); a file the simulator wrote is
    /// replaced, and `--force` replaces anything.
    #[tokio::test]
    async fn kubeconfig_out_refuses_a_file_the_simulator_did_not_write_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        let theirs = dir.path().join("config");
        let original = "apiVersion: v1\nkind: Config\ncurrent-context: prod\n";
        std::fs::write(&theirs, original).unwrap();
        let opts = |force: bool| ServeOptions {
            kubeconfig_out: theirs.clone(),
            force,
            ..ServeOptions::default()
        };
        let err = start(opts(false)).await.unwrap_err().to_string();
        assert!(
            err.contains(&theirs.display().to_string())
                && err.contains("the simulator did not write it")
                && err.contains("--force"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&theirs).unwrap(), original);

        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&theirs, &link).unwrap();
            let err = start(ServeOptions {
                kubeconfig_out: link.clone(),
                ..ServeOptions::default()
            })
            .await
            .unwrap_err()
            .to_string();
            assert!(err.contains("symbolic link"), "{err}");
            assert_eq!(std::fs::read_to_string(&theirs).unwrap(), original);
        }

        // Forced: replaced, and marked as the simulator's.
        let sim = start(opts(true)).await.unwrap();
        sim.shutdown().await;
        let text = std::fs::read_to_string(&theirs).unwrap();
        assert!(text.starts_with(KUBECONFIG_MARK), "{text}");
        // The simulator's own file is replaced without --force.
        let sim = start(opts(false)).await.unwrap();
        assert!(
            std::fs::read_to_string(&theirs)
                .unwrap()
                .contains(&sim.mosk_url)
        );
        sim.shutdown().await;
    }

    #[tokio::test]
    async fn bad_speed_and_bad_scenario_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let opts = ServeOptions {
            kubeconfig_out: dir.path().join("kc"),
            speed: 0.0,
            ..ServeOptions::default()
        };
        assert!(
            start(opts)
                .await
                .unwrap_err()
                .to_string()
                .contains("speed 0")
        );
        for bad in [0.0, -1.0, f64::NAN, MAX_LOG_RATE * 2.0] {
            let opts = ServeOptions {
                kubeconfig_out: dir.path().join("kc"),
                log_rate: Some(bad),
                ..ServeOptions::default()
            };
            let err = start(opts).await.unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("log rate {bad} is out of range")),
                "{err}"
            );
        }
        let opts = ServeOptions {
            kubeconfig_out: dir.path().join("kc"),
            scenario: "nope".into(),
            ..ServeOptions::default()
        };
        assert!(
            start(opts)
                .await
                .unwrap_err()
                .to_string()
                .contains("scenario `nope`")
        );
    }
}
