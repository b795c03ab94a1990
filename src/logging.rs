//! Tracing to a file in the XDG state directory; never to the terminal while
//! the console runs.
//!
//! The trace log records every action step (objects, verdicts, server
//! answers), so it is private like the audit log beside it: the state
//! directory is created 0700 and the log file 0600, and an existing directory
//! or file with a wider mode is narrowed (the change is logged as a warning).

use std::fs::File;
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
/// The trace log is rotated when a write would take it past this size...
pub const TRACE_MAX_BYTES: u64 = 10 * 1024 * 1024;
/// ...and this many older files are kept (`mosk-console.log.1` the newest):
/// at most 60 MiB of trace on the disk the audit log shares.
pub const TRACE_KEEP: usize = 5;

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
    let file = RotatingFile::new(path.clone(), file, TRACE_MAX_BYTES, TRACE_KEEP)?;
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
/// file to 0600; never through a symlink, and only a regular file of one's
/// own in a private directory (`crate::files`). Returns the file and what
/// was narrowed, in words.
pub fn private_file(path: &Path) -> std::io::Result<(File, Option<String>)> {
    let had = std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.file_type().is_file())
        .map(|m| mode_of(&m));
    let file = crate::files::open_append(path)?;
    let narrowed = had.filter(|had| had & !FILE_MODE != 0).map(|had| {
        format!(
            "{} was mode {had:o}: narrowed to {FILE_MODE:o}",
            path.display()
        )
    });
    Ok((file, narrowed))
}

#[cfg(unix)]
fn mode_of(m: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    m.permissions().mode() & 0o777
}

#[cfg(not(unix))]
fn mode_of(_m: &std::fs::Metadata) -> u32 {
    FILE_MODE
}

/// A log file rotated by size, keeping `keep` older files (`<path>.1` the
/// newest, `<path>.<keep>` dropped on the next rotation). Our own: the
/// `tracing-appender` rolling writer rotates by time only (minutely to
/// daily; its `max_log_files` prunes those), and a console left open through
/// a noisy night must be bounded by size. Each new file is opened as the
/// first was (`crate::files`: no symlink, a private regular file).
pub struct RotatingFile {
    path: PathBuf,
    file: File,
    size: u64,
    max_bytes: u64,
    keep: usize,
}

impl RotatingFile {
    pub fn new(path: PathBuf, file: File, max_bytes: u64, keep: usize) -> std::io::Result<Self> {
        let size = file.metadata()?.len();
        Ok(RotatingFile {
            path,
            file,
            size,
            max_bytes,
            keep,
        })
    }

    /// `<path>.<n>`
    pub fn older(path: &Path, n: usize) -> PathBuf {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    fn rotate(&mut self) -> std::io::Result<()> {
        if self.keep == 0 {
            std::fs::remove_file(&self.path)?;
        } else {
            for n in (1..self.keep).rev() {
                let from = Self::older(&self.path, n);
                if std::fs::symlink_metadata(&from).is_ok() {
                    std::fs::rename(&from, Self::older(&self.path, n + 1))?;
                }
            }
            std::fs::rename(&self.path, Self::older(&self.path, 1))?;
        }
        self.file = crate::files::open_append(&self.path)?;
        self.size = 0;
        Ok(())
    }
}

impl std::io::Write for RotatingFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.size > 0 && self.size + buf.len() as u64 > self.max_bytes {
            self.rotate()?;
        }
        let n = self.file.write(buf)?;
        self.size += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
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

    /// A trace log that grows past its size is rotated, and only `keep`
    /// older files stay: the newest lines are in the log, the oldest gone.
    #[test]
    fn the_trace_log_rotates_by_size_and_keeps_a_bounded_number_of_files() {
        use std::io::Write;
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(TRACE_FILE);
        let (file, _) = private_file(&path).unwrap();
        let mut log = RotatingFile::new(path.clone(), file, 1000, 3).unwrap();
        for i in 0..500 {
            // One write per line, as the non-blocking writer does.
            log.write_all(format!("line {i:04} {}\n", "x".repeat(40)).as_bytes())
                .unwrap();
        }
        let mut names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                TRACE_FILE.to_string(),
                format!("{TRACE_FILE}.1"),
                format!("{TRACE_FILE}.2"),
                format!("{TRACE_FILE}.3")
            ]
        );
        for name in &names {
            let p = tmp.path().join(name);
            assert!(std::fs::metadata(&p).unwrap().len() <= 1000, "{name}");
            assert_eq!(mode(&p), 0o600, "{name}");
        }
        let newest = std::fs::read_to_string(&path).unwrap();
        assert!(newest.contains("line 0499"), "{newest}");
        let oldest = std::fs::read_to_string(RotatingFile::older(&path, 3)).unwrap();
        assert!(!oldest.contains("line 0000"), "{oldest}");
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
