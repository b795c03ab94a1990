//! Tracing to a file in the XDG state directory; never to the terminal while
//! the console runs.
//!
//! The trace log records every action step (objects, verdicts, server
//! answers), so it is private like the audit log beside it: the state
//! directory is created 0700 and the log file 0600, and an existing directory
//! or file with a wider mode is narrowed (the change is logged as a warning).

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use etcetera::AppStrategy;
use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// The trace log's file name in the state directory.
pub const TRACE_FILE: &str = "mosk-console.log";
/// Mode of the state directory.
pub const DIR_MODE: u32 = 0o700;
/// Mode of the trace log.
pub const FILE_MODE: u32 = 0o600;

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
    match state_dir().map(|dir| init_in(&dir)) {
        Some(Ok((path, guard))) => (Some(path), Some(guard)),
        _ => (None, None),
    }
}

/// [`init`] with the state directory given: makes `dir` private, opens the
/// private trace log in it and installs the global subscriber (once per
/// process: a second call fails).
pub fn init_in(dir: &Path) -> std::io::Result<(PathBuf, WorkerGuard)> {
    let dir_narrowed = private_dir(dir)?;
    let path = dir.join(TRACE_FILE);
    let (file, file_narrowed) = private_file(&path)?;
    let narrowed = dir_narrowed.into_iter().chain(file_narrowed);
    // The default channel holds 128,000 lines, allocated up front (~4 MiB);
    // a trace file needs far fewer in flight (beyond them lines are dropped,
    // never blocking the console).
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(1024)
        .finish(file);
    let filter =
        EnvFilter::try_from_env("MOSK_CONSOLE_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    for n in narrowed {
        tracing::warn!("{n}");
    }
    Ok((path, guard))
}

/// Creates `dir` (and its parents) with mode 0700, or narrows an existing
/// one to 0700. Returns what was narrowed, in words, for the log.
pub fn private_dir(dir: &Path) -> std::io::Result<Option<String>> {
    if !dir.is_dir() {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(DIR_MODE);
        }
        b.create(dir)?;
    }
    narrow(dir, DIR_MODE)
}

/// Opens `path` for appending, created with mode 0600, or narrows an existing
/// file to 0600. Returns the file and what was narrowed, in words.
pub fn private_file(path: &Path) -> std::io::Result<(File, Option<String>)> {
    let mut opts = OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(FILE_MODE);
    }
    let file = opts.open(path)?;
    Ok((file, narrow(path, FILE_MODE)?))
}

/// Sets `path`'s permission bits to `mode` when they allow more.
#[cfg(unix)]
fn narrow(path: &Path, mode: u32) -> std::io::Result<Option<String>> {
    use std::os::unix::fs::PermissionsExt;
    let had = std::fs::metadata(path)?.permissions().mode() & 0o777;
    if had & !mode == 0 {
        return Ok(None);
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    Ok(Some(format!(
        "{} was mode {had:o}: narrowed to {mode:o}",
        path.display()
    )))
}

#[cfg(not(unix))]
fn narrow(_path: &Path, _mode: u32) -> std::io::Result<Option<String>> {
    Ok(None)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_state_dir_and_trace_log_are_private() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("state/mosk-console");
        assert_eq!(private_dir(&dir).unwrap(), None);
        assert_eq!(mode(&dir), 0o700);
        let path = dir.join(TRACE_FILE);
        let (_file, narrowed) = private_file(&path).unwrap();
        assert_eq!(narrowed, None);
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn wider_modes_are_narrowed_and_said() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("mosk-console");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = dir.join(TRACE_FILE);
        std::fs::write(&path, "old line\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();

        let said = private_dir(&dir).unwrap().expect("narrowed");
        assert!(said.contains("was mode 755: narrowed to 700"), "{said}");
        assert_eq!(mode(&dir), 0o700);
        let (_file, said) = private_file(&path).unwrap();
        assert!(said.unwrap().contains("was mode 644: narrowed to 600"));
        assert_eq!(mode(&path), 0o600);
        // Appending, not truncating.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old line\n");
        // A mode already narrower stays as it is.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400)).unwrap();
        assert_eq!(narrow(&path, FILE_MODE).unwrap(), None);
        assert_eq!(mode(&path), 0o400);
    }
}
