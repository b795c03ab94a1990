//! Wiring: connects the cluster layer, the terminal and the runtime, and
//! makes sure the terminal is restored however the run ends. The effects
//! of `update`'s commands (the action executor) are in [`effects`].

pub mod effects;
pub mod inbox;
pub mod runtime;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use self::inbox::ConsoleInbox;
use self::runtime::Effects;
use crate::app::actions::EXIT_WAIT;
use crate::app::cluster_picker::ClusterPicker;
use crate::app::modal::Modal;
use crate::app::model::{Model, SessionInfo};
use crate::app::msg::Msg;
use crate::cluster::channel::{EventReceiver, EventSender};
use crate::cluster::writes::exit::ExitReport;
use crate::cluster::{Clusters, LogOptions, WatchOptions, spawn_log_follower, spawn_watchers};
use crate::config::keymap::Keymap;
use crate::config::theme::Theme;
use crate::domain::which_cluster::ClusterRef;

/// The clock the console shows ages against.
pub type Now = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// Everything the console needs besides the clusters.
#[derive(Clone)]
pub struct ConsoleOptions {
    pub session: SessionInfo,
    pub theme: Theme,
    pub keymap: Keymap,
    pub audit_log: Option<PathBuf>,
    /// This machine's clock (the model moves it to the API server's clock
    /// with the offsets the cluster layer measures).
    pub now: Now,
    /// How often the watches re-list (`--resync-every`).
    pub resync_every: Duration,
    /// How long parts of the update are expected to take (`--config`).
    pub expected: crate::domain::expected::Expected,
    /// The most objects of one kind the console holds (`--max-objects`).
    pub max_objects: usize,
    /// The clusters the operator chooses from at start (the cluster
    /// picker); empty when the session's cluster is known
    /// ([`SessionInfo::namespace`], [`SessionInfo::cluster_name`]).
    pub pick: Vec<ClusterRef>,
}

/// Runs the console on `clusters` until the operator quits (or a signal or a
/// hang-up ends it). The terminal is restored on every path out. With a
/// write in flight it then waits up to [`EXIT_WAIT`] for its answer; the
/// report says whether any outcome is unknown (the binary then exits non-zero).
pub async fn run(clusters: Clusters, opts: ConsoleOptions) -> std::io::Result<ExitReport> {
    let (tx, msgs) = mpsc::unbounded_channel::<Msg>();
    let cancel = CancellationToken::new();
    let (mut layer, cluster) = ClusterLayer::start(&clusters, &opts, cancel.clone());
    let mut model = initial_model(&opts);
    if opts.pick.is_empty() {
        layer.follow(&ClusterRef::new(
            &opts.session.namespace,
            &opts.session.cluster_name,
        ));
    }
    let mut inbox = ConsoleInbox { msgs, cluster };

    let mut effects = effects::ConsoleEffects::new(&clusters, &opts, tx.clone());
    effects.set_follow(Box::new(move |c| layer.follow(c)));

    crate::terminal::spawn_signals(tx.clone());
    let mut terminal = crate::terminal::enter()?;
    let result = async {
        let size = terminal.size()?;
        // The first size goes through `update` like every later resize.
        crate::app::update::update(
            &mut model,
            Msg::Resize {
                width: size.width,
                height: size.height,
            },
        );
        crate::terminal::spawn_input(tx.clone(), cancel.clone());
        runtime::run(
            &mut terminal,
            &mut model,
            &opts.theme,
            &mut inbox,
            &mut effects as &mut dyn Effects,
            || (opts.now)(),
        )
        .await
    }
    .await;
    cancel.cancel();
    tracing::info!(stats = ?inbox.cluster.stats(), "the cluster layer's channel");
    crate::terminal::leave();
    // Not ratatui's drop: it shows the cursor and, when that fails (the
    // terminal is gone), `eprintln!`s, which panics on a dead tty.
    let _ = terminal.show_cursor();
    std::mem::forget(terminal);
    match &result {
        Ok(stats) => tracing::info!(?stats, "console stopped"),
        Err(e) => tracing::warn!("the console stopped: {e}"),
    }
    // No outcome lost at exit: wait (bounded) for a write in flight.
    if effects.running() {
        for w in effects.in_flight() {
            say(&format!(
                "waiting up to {} s for the write in flight: {w}",
                EXIT_WAIT.as_secs()
            ));
        }
    }
    let report = effects.finish(EXIT_WAIT).await;
    for note in report.notes() {
        say(&note);
    }
    if let Some(f) = report.failure() {
        tracing::warn!("{f}");
    }
    session_report_at_quit(&mut model, &mut inbox.msgs, &effects);
    // A broken terminal (a hang-up can end the run this way) still waited
    // for the write above; its error then carries the unknown outcome too.
    match result {
        Ok(_) => Ok(report),
        Err(e) => Err(match report.failure() {
            Some(f) => std::io::Error::new(e.kind(), format!("{e}\n{f}")),
            None => e,
        }),
    }
}

/// The model a session starts with: with the cluster picker open when the
/// operator has to choose the cluster ([`ConsoleOptions::pick`]).
pub fn initial_model(opts: &ConsoleOptions) -> Model {
    let mut model = Model::new(opts.session.clone(), opts.keymap.clone(), (opts.now)());
    model.expected = opts.expected;
    if !opts.pick.is_empty() {
        model
            .modals
            .push(Modal::ClusterPicker(ClusterPicker::new(opts.pick.clone())));
    }
    model
}

/// On quit, when an action was taken or an attention item raised: the
/// session report, with the audit records of the last moments (a write's
/// outcome recorded while quitting), named on stdout.
fn session_report_at_quit(
    model: &mut Model,
    rx: &mut mpsc::UnboundedReceiver<Msg>,
    effects: &effects::ConsoleEffects,
) {
    while let Ok(msg) = rx.try_recv() {
        if matches!(msg, Msg::Action(_)) {
            crate::app::update::update(model, msg);
        }
    }
    if !crate::app::report::due_at_quit(model) {
        return;
    }
    match effects.write_report(&crate::app::report::report(model)) {
        Ok(path) => {
            let line = format!("session report written to {}", path.display());
            tracing::info!("{line}");
            use std::io::Write;
            // Not println!: it panics when the terminal is gone.
            let _ = writeln!(std::io::stdout(), "mosk-console: {line}");
        }
        Err(e) => say(&format!("the session report was not written: {e}")),
    }
}

/// One line for the operator: in the trace log, and on stderr (the terminal
/// is restored by now). A write error is ignored: after a hang-up there is
/// no terminal to tell, and `eprintln!` would panic.
fn say(line: &str) {
    use std::io::Write;
    tracing::info!("{line}");
    let _ = writeln!(std::io::stderr(), "mosk-console: {line}");
}

/// The cluster layer of a session: the log follower from the start, the
/// watchers once the cluster to follow is known ([`ClusterLayer::follow`]:
/// at once, or when the operator chooses it in the cluster picker). The
/// runtime reads their events from one receiver (bounded and merging,
/// [`crate::cluster::channel`]).
pub struct ClusterLayer {
    clusters: Clusters,
    watch: WatchOptions,
    tx: EventSender,
    cancel: CancellationToken,
    following: Option<ClusterRef>,
}

impl ClusterLayer {
    /// Starts the log follower; the watchers wait for [`ClusterLayer::follow`].
    pub fn start(
        clusters: &Clusters,
        opts: &ConsoleOptions,
        cancel: CancellationToken,
    ) -> (ClusterLayer, EventReceiver) {
        let (tx, rx) = crate::cluster::channel::channel();
        let mut watch = WatchOptions {
            resync_every: opts.resync_every,
            max_objects: opts.max_objects,
            ..WatchOptions::default()
        };
        if opts.session.demo.is_some() {
            // The simulated clock runs at a speed factor: sample it every second.
            watch.clock_probe_every = Duration::from_secs(1);
        }
        spawn_log_follower(
            clusters.mgmt.clone(),
            LogOptions::default(),
            tx.clone(),
            cancel.clone(),
        );
        let layer = ClusterLayer {
            clusters: clusters.clone(),
            watch,
            tx,
            cancel,
            following: None,
        };
        (layer, rx)
    }

    /// Starts the watchers of `cluster` (its project namespace and name).
    /// Once: a session follows one cluster.
    pub fn follow(&mut self, cluster: &ClusterRef) {
        if let Some(already) = &self.following {
            tracing::warn!(%already, asked = %cluster, "a second cluster to follow: ignored");
            return;
        }
        tracing::info!(%cluster, "following the cluster");
        let watch = WatchOptions {
            namespace: cluster.namespace.clone(),
            cluster_name: Some(cluster.name.clone()),
            ..self.watch.clone()
        };
        // The JoinSet is detached: the tasks stop when `cancel` fires.
        spawn_watchers(&self.clusters, &watch, self.tx.clone(), self.cancel.clone()).detach_all();
        self.following = Some(cluster.clone());
    }
}
