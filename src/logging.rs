//! Tracing to a file in the XDG state directory; never to the terminal while
//! the console runs.

use std::path::PathBuf;

use etcetera::AppStrategy;
use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// The console's state directory (`$XDG_STATE_HOME/mosk-console`, usually
/// `~/.local/state/mosk-console`), for the trace log and the audit log.
pub fn state_dir() -> Option<PathBuf> {
    let strategy = etcetera::choose_app_strategy(etcetera::AppStrategyArgs {
        top_level_domain: "com".into(),
        author: "Mirantis".into(),
        app_name: "mosk-console".into(),
    })
    .ok()?;
    Some(strategy.state_dir().unwrap_or_else(|| strategy.data_dir()))
}

/// Starts tracing to `<state dir>/mosk-console.log` (level from
/// `MOSK_CONSOLE_LOG`, default `info`). Keep the guard alive for the whole run.
/// Returns the log file's path, or `None` when no state directory is usable
/// (tracing is then off rather than on the terminal).
pub fn init() -> (Option<PathBuf>, Option<WorkerGuard>) {
    let Some(dir) = state_dir() else {
        return (None, None);
    };
    if std::fs::create_dir_all(&dir).is_err() {
        return (None, None);
    }
    let appender = tracing_appender::rolling::never(&dir, "mosk-console.log");
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter =
        EnvFilter::try_from_env("MOSK_CONSOLE_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let ok = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init()
        .is_ok();
    if !ok {
        return (None, None);
    }
    (Some(dir.join("mosk-console.log")), Some(guard))
}
