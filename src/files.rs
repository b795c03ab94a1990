//! Files of one's own: the audit log, the session reports and the trace log
//! are opened without following a symbolic link (`O_NOFOLLOW`), and refused
//! unless they are regular files owned by this user in a directory no one
//! else can write. A symlink planted in a shared directory would otherwise
//! send the console's records (and a chmod) to a file of someone else's
//! choosing. Every refusal names the path and the reason.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// The mode a new private file is created with.
pub const FILE_MODE: u32 = 0o600;

/// Opens `path` for appending (created with mode 0600 if missing), after the
/// checks in the module text. An existing file with a wider mode is narrowed
/// to 0600.
pub fn open_append(path: &Path) -> io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.create(true).append(true);
    open_checked(path, opts)
}

/// Creates `path`, which must not exist (a report), mode 0600, after the
/// checks in the module text.
pub fn create_new(path: &Path) -> io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true);
    open_checked(path, opts)
}

fn open_checked(path: &Path, mut opts: OpenOptions) -> io::Result<File> {
    let refuse = |why: String| io::Error::new(io::ErrorKind::PermissionDenied, why);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    check_dir(dir).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("{}: refused: its directory {e}", path.display()),
        )
    })?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: a FIFO planted under the name must not hang the open
        // (it is refused below, as anything but a regular file is).
        opts.mode(FILE_MODE)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = opts.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return refuse(format!(
                "{}: refused: it is a symbolic link (the file must be a regular file of your own)",
                path.display()
            ));
        }
        io::Error::new(e.kind(), format!("{}: {e}", path.display()))
    })?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(refuse(format!(
            "{}: refused: it is not a regular file",
            path.display()
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let me = unsafe_euid();
        if meta.uid() != me {
            return Err(refuse(format!(
                "{}: refused: it belongs to user id {}, not to you ({me})",
                path.display(),
                meta.uid()
            )));
        }
        if meta.mode() & 0o777 & !FILE_MODE != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
        }
    }
    Ok(file)
}

/// Refuses a directory that someone else can write (group or others have
/// write permission) or that belongs to another user than this one or root.
pub fn check_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(dir)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
        let refuse = |why: String| {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} {why}", dir.display()),
            )
        };
        if !meta.is_dir() {
            return Err(refuse("is not a directory".into()));
        }
        let me = unsafe_euid();
        if meta.uid() != me && meta.uid() != 0 {
            return Err(refuse(format!(
                "belongs to user id {}, not to you ({me})",
                meta.uid()
            )));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(refuse(format!(
                "can be written by others (mode {:o}): use a private directory",
                meta.mode() & 0o7777
            )));
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(unix)]
fn unsafe_euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn private_tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn a_symlink_is_refused_and_its_target_untouched() {
        let tmp = private_tmp();
        let target = tmp.path().join("someone-elses");
        std::fs::write(&target, "theirs\n").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        let link = tmp.path().join("audit.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = open_append(&link).unwrap_err().to_string();
        assert!(
            e.contains(&link.display().to_string()) && e.contains("symbolic link"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs\n");
        let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "the target was not chmod'ed");
        // A dangling link too (create would otherwise make its target).
        let dangling = tmp.path().join("report.md");
        std::os::unix::fs::symlink(tmp.path().join("nowhere"), &dangling).unwrap();
        assert!(create_new(&dangling).is_err());
        assert!(!tmp.path().join("nowhere").exists());
    }

    #[test]
    fn a_directory_others_can_write_is_refused() {
        let tmp = private_tmp();
        let shared = tmp.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = open_append(&shared.join("audit.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("can be written by others (mode 777)"), "{e}");
        assert!(!shared.join("audit.jsonl").exists());
    }

    #[test]
    fn a_fifo_or_directory_under_the_name_is_refused() {
        let tmp = private_tmp();
        let dir = tmp.path().join("audit.jsonl");
        std::fs::create_dir(&dir).unwrap();
        assert!(open_append(&dir).is_err());
        let fifo = tmp.path().join("trace.log");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = open_append(&fifo).unwrap_err().to_string();
        assert!(
            e.contains("not a regular file") || e.contains("No such device"),
            "{e}"
        );
    }

    #[test]
    fn a_regular_file_of_ones_own_opens_private() {
        let tmp = private_tmp();
        let path = tmp.path().join("audit.jsonl");
        std::fs::write(&path, "old\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        use std::io::Write;
        open_append(&path).unwrap().write_all(b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\nnew\n");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
