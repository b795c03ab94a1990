//! mosk-console: parse the command line, set up error reports and tracing,
//! run a subcommand.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use mosk_console::app::model::SessionInfo;
use mosk_console::cli::{Cli, Cmd, DemoArgs, ServeArgs, SimCmd, TargetArgs, UiArgs};
use mosk_console::cluster::which::which_cluster;
use mosk_console::cluster::{Target, connect};
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;
use mosk_console::console::{self, ConsoleOptions};
use mosk_console::domain::which_cluster::{Choice, Wanted};
use mosk_console::sim::serve::{self, ServeOptions};

fn main() -> ExitCode {
    // Before any thread starts (the trace writer's, the runtime's).
    limit_malloc_arenas();
    let cli = Cli::parse();
    // Before anything could write an escape byte (error reports, the
    // terminal setup): a console needs a real terminal on both ends.
    let interactive = !matches!(cli.command, Some(Cmd::Sim { .. }));
    if interactive && let Some(problem) = mosk_console::terminal::unusable() {
        return fail(problem);
    }
    if let Err(e) = color_eyre::install() {
        let _ = writeln!(
            std::io::stderr(),
            "mosk-console: cannot install error reporting: {e}"
        );
    }
    let (_trace_file, _trace_guard) = mosk_console::logging::init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(format!("cannot start the async runtime: {e}")),
    };
    match runtime.block_on(run(cli)) {
        // Every outcome known: the operator quit, a signal came or the
        // terminal went away (README "Exit codes"); the report says what was done.
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(message),
    }
}

/// Prints a one-paragraph error (never with the terminal in raw mode: every
/// path that entered it has left it by now) and exits non-zero.
fn fail(message: String) -> ExitCode {
    // Not eprintln!: after a hang-up stderr is gone, and the exit code must stay 2.
    let _ = writeln!(std::io::stderr(), "mosk-console: {message}");
    ExitCode::from(2)
}

async fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Some(Cmd::Sim {
            command: SimCmd::Serve(args),
        }) => serve::run(serve_options(&args.demo, &args))
            .await
            .map_err(|e| e.to_string()),
        Some(Cmd::Demo(demo)) => run_demo(&demo, &cli.target, &cli.ui).await,
        None => {
            let target = Target {
                kubeconfig: cli.target.kubeconfig.clone(),
                mgmt_context: cli.target.mgmt_context.clone(),
                mosk_context: cli.target.mosk_context.clone(),
                mosk_kubeconfig: cli.target.mosk_kubeconfig.clone(),
            };
            let opts = console_options(&cli.ui, None)?;
            let clusters = connect(&target).await.map_err(|e| e.to_string())?;
            run_console(clusters, opts, &cli.target).await
        }
    }
}

fn serve_options(demo: &DemoArgs, args: &ServeArgs) -> ServeOptions {
    ServeOptions {
        scenario: demo.scenario.clone(),
        speed: demo.speed,
        seed: demo.seed,
        mgmt_port: args.mgmt_port,
        mosk_port: args.mosk_port,
        kubeconfig_out: args.kubeconfig_out.clone(),
        start: None,
        faults: (*args.faults).clone(),
        log_rate: args.log_rate,
        force: args.force,
        mosk_seed: demo.mosk_seed,
    }
}

/// Starts the simulated clusters on loopback, writes their kubeconfig to a
/// private temporary directory, and opens the console on them through the
/// same code path as a real pair of clusters (kube-rs over HTTP).
async fn run_demo(demo: &DemoArgs, target_args: &TargetArgs, ui: &UiArgs) -> Result<(), String> {
    let mut opts = console_options(ui, Some(demo.scenario.clone()))?;
    opts.session.demo_speed = Some(demo.speed);
    let dir = tempfile::Builder::new()
        .prefix("mosk-console-demo-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory for the demo kubeconfig: {e}"))?;
    // The demo's audit log and reports are its own, never the real ones:
    // `<state dir>/demo/` (kept after the demo), else the temporary directory.
    if opts.audit_log.is_none() {
        let demo_dir = mosk_console::logging::state_dir()
            .map(|d| d.join("demo"))
            .unwrap_or_else(|| dir.path().to_path_buf());
        opts.audit_log = Some(demo_dir.join(mosk_console::audit::DEFAULT_FILE));
    }
    let kubeconfig = dir.path().join("kubeconfig");
    let sim = serve::start(ServeOptions {
        scenario: demo.scenario.clone(),
        speed: demo.speed,
        seed: demo.seed,
        mgmt_port: 0,
        mosk_port: 0,
        kubeconfig_out: kubeconfig.clone(),
        mosk_seed: demo.mosk_seed,
        ..ServeOptions::default()
    })
    .await
    .map_err(|e| e.to_string())?;
    let target = Target {
        kubeconfig: Some(kubeconfig),
        mgmt_context: Some("sim-mgmt".into()),
        mosk_context: Some("sim-mosk".into()),
        mosk_kubeconfig: None,
    };
    // The console reads the simulator's clock from the Date of its answers,
    // as it does a real API server's: `opts.now` stays the wall clock.
    let result = match connect(&target).await {
        Ok(clusters) => run_console(clusters, opts, target_args).await,
        Err(e) => Err(e.to_string()),
    };
    sim.shutdown().await;
    result
}

fn console_options(ui: &UiArgs, demo: Option<String>) -> Result<ConsoleOptions, String> {
    let theme = Theme::load_for(&ui.theme, std::env::var_os("NO_COLOR").as_deref())
        .map_err(|e| e.to_string())?;
    let keymap = Keymap::load(&ui.keymap).map_err(|e| e.to_string())?;
    let expected = match &ui.config {
        Some(path) => mosk_console::config::expected::load(path)?,
        None => Default::default(),
    };
    Ok(ConsoleOptions {
        session: SessionInfo {
            mgmt_context: String::new(),
            mosk_context: String::new(),
            // Known once the LCMClusters are listed (`choose_cluster`).
            namespace: String::new(),
            cluster_name: String::new(),
            read_only: ui.read_only,
            dry_run: ui.dry_run,
            demo,
            demo_speed: None,
            mgmt_transport: Default::default(),
            mosk_transport: Default::default(),
        },
        theme,
        keymap,
        audit_log: ui.audit_log.clone(),
        now: Arc::new(jiff::Timestamp::now),
        resync_every: ui.resync_every,
        expected,
        max_objects: ui.max_objects,
        pick: Vec::new(),
    })
}

async fn run_console(
    clusters: mosk_console::cluster::Clusters,
    mut opts: ConsoleOptions,
    target: &TargetArgs,
) -> Result<(), String> {
    // Which cluster: the one asked for, the only one found, or the
    // operator's choice in the console's cluster picker.
    let wanted = Wanted {
        namespace: target.namespace.clone(),
        name: target.cluster.clone(),
    };
    match which_cluster(&clusters.mgmt, &clusters.mgmt_context, &wanted).await? {
        Choice::Use(c) => {
            opts.session.namespace = c.namespace;
            opts.session.cluster_name = c.name;
        }
        Choice::Pick(list) => opts.pick = list,
    }
    opts.session.mgmt_context = clusters.mgmt_context.clone();
    opts.session.mosk_context = clusters.mosk_context.clone();
    opts.session.mgmt_transport = clusters.mgmt_transport;
    opts.session.mosk_transport = clusters.mosk_transport;
    let report = console::run(clusters, opts)
        .await
        .map_err(|e| format!("the console stopped: {e}"))?;
    // A write whose outcome is unknown at exit is an error (exit code 2).
    report.failure().map_or(Ok(()), Err)
}

/// One glibc malloc arena instead of one per worker thread: the console
/// allocates little after start-up, and each extra arena kept several MiB of
/// freed list pages resident (6.7 MiB with the `large` scenario,
/// docs/PERFORMANCE.md). Before the runtime starts its threads.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}
