//! Command-line interface (clap).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

/// A terminal console for watching and steering a MOSK cluster update.
///
/// Without a subcommand it watches a real pair of clusters: the management
/// cluster (LCMMachine, LCMClusterState, the lcm-controller log) and the MOSK
/// cluster (Nodes, locks, maintenance requests, vRouter pods).
#[derive(Debug, Parser)]
#[command(name = "mosk-console", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Cmd>,

    #[command(flatten)]
    pub target: TargetArgs,

    #[command(flatten)]
    pub ui: UiArgs,
}

/// Which clusters to watch.
#[derive(Debug, Args, Clone)]
pub struct TargetArgs {
    /// Kubeconfig of the management cluster (default: $KUBECONFIG, then ~/.kube/config).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// Context of the management cluster (default: the kubeconfig's current context).
    #[arg(long, value_name = "CTX")]
    pub mgmt_context: Option<String>,
    /// Context of the MOSK cluster.
    #[arg(long, value_name = "CTX")]
    pub mosk_context: Option<String>,
    /// Kubeconfig of the MOSK cluster, when it is a separate file.
    #[arg(long, value_name = "PATH")]
    pub mosk_kubeconfig: Option<PathBuf>,
    /// Project namespace of the MOSK cluster in the management cluster
    /// (default: its LCMClusters are looked for in every namespace).
    #[arg(long, short = 'n', value_name = "NS")]
    pub namespace: Option<String>,
    /// Name of the MOSK cluster (its LCMCluster). Default: the only one
    /// found; with several, the console asks which.
    #[arg(long, value_name = "NAME")]
    pub cluster: Option<String>,
}

/// How the console looks and behaves; these apply to `demo` too.
#[derive(Debug, Args, Clone)]
pub struct UiArgs {
    /// Colour theme: a built-in name (default) or a path to a TOML file.
    #[arg(
        long,
        global = true,
        value_name = "NAME|PATH",
        default_value = "default"
    )]
    pub theme: String,
    /// Keymap: a built-in name (default) or a path to a TOML file.
    #[arg(
        long,
        global = true,
        value_name = "NAME|PATH",
        default_value = "default"
    )]
    pub keymap: String,
    /// Never send a write request; actions are shown as unavailable.
    #[arg(long, global = true, conflicts_with = "dry_run")]
    pub read_only: bool,
    /// Send writes with dryRun=All: the server validates, nothing changes.
    #[arg(long, global = true)]
    pub dry_run: bool,
    /// Where the audit log of operator actions is written
    /// (default: the XDG state directory).
    #[arg(long, global = true, value_name = "PATH")]
    pub audit_log: Option<PathBuf>,
    /// Config file (TOML): the `[expected]` durations stall detection uses
    /// before it has peers to compare with (see the README).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// How often every watched kind is listed again, to repair changes a watch
    /// lost on the wire: `30s`, `5m`, `1h` (at least 5s, at most 24h).
    #[arg(
        long,
        global = true,
        value_name = "DURATION",
        default_value = "5m",
        value_parser = parse_resync_every
    )]
    pub resync_every: Duration,
    /// The most objects of one kind the console holds; beyond it the rest
    /// are counted, not shown, and the status bar says so.
    #[arg(
        long,
        global = true,
        value_name = "N",
        default_value_t = crate::cluster::watch::DEFAULT_MAX_OBJECTS,
        value_parser = parse_max_objects
    )]
    pub max_objects: usize,
}

/// The shortest `--resync-every`: re-listing every kind more often would load
/// the API servers for little gain.
pub const RESYNC_MIN: Duration = Duration::from_secs(5);
/// The longest `--resync-every`.
pub const RESYNC_MAX: Duration = Duration::from_secs(24 * 3600);

/// Parses `--max-objects`: a count of at least 1.
fn parse_max_objects(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{text}` is not a count of at least 1")),
    }
}

/// Parses `--resync-every`: a duration with a unit (`30s`, `5m`, `1h30m`).
pub fn parse_resync_every(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!(
            "\"{t}\" has no unit: write e.g. {t}s or {t}m (s, m and h are understood)"
        ));
    }
    let d: jiff::SignedDuration = t.parse().map_err(|_| {
        format!("\"{t}\" is not a duration: write e.g. 30s, 5m or 1h (s, m and h are understood)")
    })?;
    let d = Duration::try_from(d)
        .map_err(|_| format!("\"{t}\" is negative: write e.g. 30s, 5m or 1h"))?;
    if d < RESYNC_MIN || d > RESYNC_MAX {
        return Err(format!(
            "\"{t}\" is out of range: the re-list interval must be between 5s and 24h"
        ));
    }
    Ok(d)
}

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Run the console on a built-in simulated pair of clusters.
    Demo(DemoArgs),
    /// The simulated clusters on their own.
    Sim {
        #[command(subcommand)]
        command: SimCmd,
    },
}

#[derive(Debug, Args, Clone)]
pub struct DemoArgs {
    /// Scenario: a built-in name (quick, standard, stuck-drain, legacy, large, plan, controllers, ready) or a path.
    #[arg(long, value_name = "NAME|PATH", default_value = "quick")]
    pub scenario: String,
    /// Simulated seconds per real second.
    #[arg(long, value_name = "X", default_value_t = 10.0)]
    pub speed: f64,
    /// Random seed: the same seed plays the same update.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Serve as the MOSK cluster the same scenario played with this seed:
    /// another cluster's nodes, which the management cluster does not know
    /// (the console says so and refuses writes).
    #[arg(long, value_name = "N")]
    pub mosk_seed: Option<u64>,
}

#[derive(Debug, Subcommand)]
pub enum SimCmd {
    /// Serve the simulated management and MOSK clusters on loopback until interrupted.
    Serve(ServeArgs),
}

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    #[command(flatten)]
    pub demo: DemoArgs,
    /// Port of the management cluster's API (0: any free port).
    #[arg(long, value_name = "P", default_value_t = 0)]
    pub mgmt_port: u16,
    /// Port of the MOSK cluster's API (0: any free port).
    #[arg(long, value_name = "P", default_value_t = 0)]
    pub mosk_port: u16,
    /// Where to write the kubeconfig (contexts sim-mgmt and sim-mosk). An
    /// existing file the simulator did not write is refused.
    #[arg(long, value_name = "PATH")]
    pub kubeconfig_out: PathBuf,
    /// Replace `--kubeconfig-out` even if the simulator did not write it.
    #[arg(long)]
    pub force: bool,
    /// Faults to inject, comma-separated; times are simulated time since start.
    #[arg(long, value_name = "SPEC", default_value = "",
          value_parser = crate::sim::faults::spec::FaultPlan::parse_boxed,
          long_help = crate::sim::faults::spec::SPEC_HELP)]
    pub faults: Box<crate::sim::faults::spec::FaultPlan>,
    /// lcm-controller background lines per simulated minute (default: one
    /// every 3 to 12 s, about 8); a busier log for load tests.
    #[arg(long, value_name = "N")]
    pub log_rate: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn demo_takes_global_ui_flags() {
        let cli =
            Cli::try_parse_from(["mosk-console", "demo", "--speed", "30", "--dry-run"]).unwrap();
        assert!(cli.ui.dry_run);
        match cli.command {
            Some(Cmd::Demo(d)) => assert_eq!(d.speed, 30.0),
            other => panic!("{other:?}"),
        }
        assert!(Cli::try_parse_from(["mosk-console", "--read-only", "--dry-run"]).is_err());
    }

    #[test]
    fn sim_serve_takes_a_fault_spec_and_refuses_a_bad_one() {
        let cli = Cli::try_parse_from([
            "mosk-console",
            "sim",
            "serve",
            "--kubeconfig-out",
            "kc",
            "--faults",
            "drop-watch=30s,outage=600s+60s",
        ])
        .unwrap();
        let Some(Cmd::Sim {
            command: SimCmd::Serve(a),
        }) = cli.command
        else {
            panic!("not sim serve")
        };
        assert_eq!(
            a.faults.drop_watch_every,
            Some(jiff::SignedDuration::from_secs(30))
        );
        let e = Cli::try_parse_from([
            "mosk-console",
            "sim",
            "serve",
            "--kubeconfig-out",
            "kc",
            "--faults",
            "drop-watch=often",
        ])
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`drop-watch=often`") && e.contains("Example:"),
            "{e}"
        );
    }

    #[test]
    fn resync_every_takes_a_duration_with_a_unit_and_says_what_is_wrong() {
        let cli = Cli::try_parse_from(["mosk-console"]).unwrap();
        assert_eq!(cli.ui.resync_every, Duration::from_secs(300));
        for (arg, secs) in [("30s", 30), ("5m", 300), ("1h", 3600), ("1m30s", 90)] {
            let cli = Cli::try_parse_from(["mosk-console", "demo", "--resync-every", arg]).unwrap();
            assert_eq!(cli.ui.resync_every, Duration::from_secs(secs), "{arg}");
        }
        for (arg, says) in [
            ("30", "has no unit"),
            ("soon", "is not a duration"),
            ("1s", "between 5s and 24h"),
            ("25h", "between 5s and 24h"),
            ("-5m", "negative"),
        ] {
            let flag = format!("--resync-every={arg}");
            let err = Cli::try_parse_from(["mosk-console", flag.as_str()])
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(says) && err.contains("--resync-every"),
                "{arg}: {err}"
            );
        }
    }
}
