//! The effects of the console's commands: action commands go to the
//! [`ActionExecutor`] (the one write path), and its [`WriteEvent`]s come
//! back as `Msg::Action`. When the audit log cannot be opened, no action can
//! run: the model is told so at once ([`WriteEvent::ActionsOff`], its own
//! verdict, never an RBAC denial), a permission question gets the same
//! answer, and a plan that still arrives is refused unsent.
//!
//! The session report (`Command::WriteReport`) is written here too, into the
//! state directory the audit log uses ([`write_report`]); the result comes
//! back as `Msg::ReportWritten`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use crate::app::msg::{Command, Msg};
use crate::app::report::Report;
use crate::audit::AuditLog;
use crate::cluster::Clusters;
use crate::cluster::writes::executor::{ActionExecutor, ExecutorConfig};
use crate::cluster::writes::exit::ExitReport;
use crate::cluster::writes::{WriteEvent, WriteMode, WriteSink};
use crate::console::ConsoleOptions;
use crate::console::runtime::Effects;
use crate::domain::action::run::RunOutcome;
use crate::domain::which_cluster::ClusterRef;

/// The executor's reports as the console's messages. A closed channel (the
/// console is closing) is not an error here.
pub fn to_msgs(tx: UnboundedSender<Msg>) -> WriteSink {
    Arc::new(move |ev: WriteEvent| {
        let _ = tx.send(Msg::Action(ev));
    })
}

/// Starts watching a cluster (the console's cluster layer, see
/// [`crate::console::ClusterLayer::follow`]).
pub type Follow = Box<dyn FnMut(&ClusterRef) + Send>;

pub struct ConsoleEffects {
    actions: Result<ActionExecutor, String>,
    tx: UnboundedSender<Msg>,
    /// Where session reports go: the audit log's directory, else the XDG
    /// state directory.
    report_dir: Option<PathBuf>,
    /// What `Command::FollowCluster` starts; `None`: nothing to start (tests
    /// that feed the model themselves).
    follow: Option<Follow>,
    /// The MOSK cluster's client, for reading servers through the exec API
    /// (reads work in read-only mode too); `None`: reads fail, said so.
    mosk: Option<kube::Client>,
}

impl ConsoleEffects {
    pub fn new(clusters: &Clusters, opts: &ConsoleOptions, tx: UnboundedSender<Msg>) -> Self {
        let mode = WriteMode::from_flags(opts.session.read_only, opts.session.dry_run);
        // Read-only: no executor at all (and no audit file is created).
        let report_dir = opts
            .audit_log
            .as_deref()
            .and_then(Path::parent)
            .filter(|d| !d.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .or_else(crate::logging::state_dir);
        let audit = if mode == WriteMode::ReadOnly {
            Err("read-only mode (--read-only): no write can be sent".to_string())
        } else {
            AuditLog::open(opts.audit_log.as_deref())
                .map(|log| match opts.session.demo {
                    Some(_) => log.simulated(),
                    None => log,
                })
                .map_err(|e| {
                format!(
                    "the audit log cannot be opened, so actions are off: {e} (use --audit-log PATH)"
                )
            })
        };
        let actions = audit.map(|audit| {
            ActionExecutor::new(ExecutorConfig::from_clusters(
                clusters,
                Arc::new(audit),
                mode,
                &opts.session.namespace,
                to_msgs(tx.clone()),
            ))
        });
        if let Err(e) = &actions
            && mode != WriteMode::ReadOnly
        {
            tracing::warn!("{e}");
            let _ = tx.send(Msg::Action(WriteEvent::ActionsOff(e.clone())));
        }
        // The modes this console changed in earlier sessions (the
        // wrap-up): read back even in read-only mode, which writes none; a
        // log that would not open has been named above already.
        if (actions.is_ok() || mode == WriteMode::ReadOnly)
            && let Some(path) = opts.audit_log.clone().or_else(crate::audit::default_path)
        {
            read_back(&path, &tx);
        }
        ConsoleEffects {
            actions,
            tx,
            report_dir,
            follow: None,
            mosk: Some(clusters.mosk.clone()),
        }
    }

    /// Reads back the audit log at `path` for the model (what a console
    /// does when it starts).
    pub fn read_back(&self, path: &Path) {
        read_back(path, &self.tx);
    }

    /// `Command::FollowCluster` calls `follow` with the cluster chosen.
    pub fn set_follow(&mut self, follow: Follow) {
        self.follow = Some(follow);
    }

    /// Effects running commands through `exec` (its reports should go to
    /// `tx`, see [`to_msgs`]).
    pub fn with_executor(exec: ActionExecutor, tx: UnboundedSender<Msg>) -> Self {
        ConsoleEffects {
            actions: Ok(exec),
            tx,
            report_dir: crate::logging::state_dir(),
            follow: None,
            mosk: None,
        }
    }

    /// Servers are read from `client` (the MOSK cluster's).
    pub fn set_mosk_client(&mut self, client: kube::Client) {
        self.mosk = Some(client);
    }

    /// Session reports go to `dir` (tests: a temporary directory).
    pub fn set_report_dir(&mut self, dir: impl Into<PathBuf>) {
        self.report_dir = Some(dir.into());
    }

    /// Writes `report` into the report directory ([`write_report`]).
    pub fn write_report(&self, report: &Report) -> Result<PathBuf, String> {
        let dir = self.report_dir.as_deref().ok_or(
            "no state directory for the report (pass --audit-log PATH: reports go next to it)",
        )?;
        write_report(dir, report)
    }

    /// The writes in flight now, in words.
    pub fn in_flight(&self) -> Vec<String> {
        self.actions
            .as_ref()
            .map(ActionExecutor::in_flight)
            .unwrap_or_default()
    }

    /// Whether a plan is still running.
    pub fn running(&self) -> bool {
        self.actions.as_ref().is_ok_and(ActionExecutor::running)
    }

    /// At exit: waits at most `grace` for the write in flight (see
    /// `cluster::writes::exit`).
    pub async fn finish(&mut self, grace: std::time::Duration) -> ExitReport {
        match &mut self.actions {
            Ok(exec) => exec.finish(grace).await,
            Err(_) => ExitReport::default(),
        }
    }
}

impl Effects for ConsoleEffects {
    /// Must be called inside a tokio runtime (the console's runtime loop is).
    fn run(&mut self, command: Command) {
        if let Command::WriteReport(report) = &command {
            let _ = self.tx.send(Msg::ReportWritten(self.write_report(report)));
            return;
        }
        if let Command::ReadServers { node, asked } = &command {
            let (node, asked) = (node.clone(), *asked);
            let tx = self.tx.clone();
            let Some(client) = self.mosk.clone() else {
                let _ = tx.send(Msg::ServersRead {
                    node,
                    asked,
                    result: Err(crate::cluster::openstack::CliError {
                        refused: false,
                        message: "no MOSK cluster client".into(),
                    }),
                });
                return;
            };
            tokio::spawn(async move {
                let result = crate::cluster::openstack::read_servers(&client, &node).await;
                let _ = tx.send(Msg::ServersRead {
                    node,
                    asked,
                    result,
                });
            });
            return;
        }
        if let Command::FollowCluster(cluster) = &command {
            // The commence permission is asked in the cluster's namespace.
            if let Ok(exec) = &self.actions {
                exec.set_project(&cluster.namespace);
            }
            if let Some(follow) = self.follow.as_mut() {
                follow(cluster);
            }
            return;
        }
        let why = match &mut self.actions {
            Ok(exec) => {
                match command {
                    Command::Execute(plan) => exec.execute(plan),
                    Command::CheckAccess(keys) => exec.check_access(keys),
                    Command::CancelRun => exec.cancel_run(),
                    Command::Quit => exec.quit(),
                    Command::WriteReport(_)
                    | Command::FollowCluster(_)
                    | Command::ReadServers { .. } => {}
                }
                return;
            }
            Err(why) => why.clone(),
        };
        let send = to_msgs(self.tx.clone());
        match command {
            // Not an RBAC answer: the questions stay unasked, the model
            // hears again why actions are off.
            Command::CheckAccess(_) => send(WriteEvent::ActionsOff(why)),
            Command::Execute(plan) => send(WriteEvent::Finished {
                plan_id: plan.id,
                outcome: RunOutcome::Refused { message: why },
            }),
            Command::CancelRun
            | Command::Quit
            | Command::WriteReport(_)
            | Command::FollowCluster(_)
            | Command::ReadServers { .. } => {}
        }
    }
}

/// Writes `report` as a new private file (mode 0600) in `dir` (created
/// private if missing), never over an older one: a name taken gets `-2`,
/// `-3`, … Returns the path written.
pub fn write_report(dir: &Path, report: &Report) -> Result<PathBuf, String> {
    use std::io::Write;
    let fail = |e: std::io::Error, p: &Path| format!("{}: {e}", p.display());
    if !dir.is_dir() {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(0o700);
        }
        b.create(dir).map_err(|e| fail(e, dir))?;
    }
    let (stem, ext) = report
        .file_name
        .rsplit_once('.')
        .unwrap_or((report.file_name.as_str(), "md"));
    for n in 1..1000 {
        let name = if n == 1 {
            report.file_name.clone()
        } else {
            format!("{stem}-{n}.{ext}")
        };
        let path = dir.join(name);
        // No symlink followed, a private directory (crate::files).
        match crate::files::create_new(&path) {
            Ok(mut f) => {
                f.write_all(report.markdown.as_bytes())
                    .and_then(|_| f.sync_data())
                    .map_err(|e| fail(e, &path))?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.to_string()),
        }
    }
    Err(format!(
        "{}: too many reports of the same second",
        dir.display()
    ))
}

/// The audit log's node writes of earlier sessions, sent to the model
/// (`Msg::AuditReadBack`).
fn read_back(path: &Path, tx: &UnboundedSender<Msg>) {
    let _ = tx.send(Msg::AuditReadBack(crate::audit::read_back(path)));
}
