//! The audit log of operator actions: append-only JSON lines, one record
//! before each request (intent) and one after (result). The intent record is
//! flushed and fsync'd before the request leaves the process, so a crash
//! mid-action still leaves a trace. The file is created with mode 0600 in the
//! XDG state directory, or where `--audit-log PATH` says.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The file name in the state directory.
pub const DEFAULT_FILE: &str = "audit.jsonl";

/// Intent (before the request) or result (after it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditPhase {
    Intent,
    Result,
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuditOutcome {
    /// Intent records: about to be sent.
    Pending,
    /// The server applied the change (or, in dry-run, accepted it).
    Succeeded,
    /// The server refused it (403 and its message).
    Forbidden,
    /// 404: the object is gone.
    NotFound,
    /// 409: the object changed (a pod replaced, uid different).
    Conflict,
    /// The change was made but what had to follow did not (e.g. a
    /// replacement pod never became Ready in time).
    Timeout,
    /// Any other failure.
    Failed,
    /// Never sent (cancelled by the operator before this object).
    Cancelled,
    /// The console quit (or hung up) before the answer came: the request
    /// was sent, and the server may or may not have applied it.
    Interrupted,
    /// The server refused the change because what it tests no longer held
    /// (a JSON patch `test` op failed: the object changed since the screen
    /// showed it), or a check before sending refused it (the console's, e.g.
    /// a MOSK context of another cluster; then nothing was sent at all);
    /// nothing was changed.
    Refused,
}

impl AuditOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            AuditOutcome::Pending => "pending",
            AuditOutcome::Succeeded => "succeeded",
            AuditOutcome::Forbidden => "forbidden",
            AuditOutcome::NotFound => "not-found",
            AuditOutcome::Conflict => "conflict",
            AuditOutcome::Timeout => "timeout",
            AuditOutcome::Failed => "failed",
            AuditOutcome::Cancelled => "cancelled",
            AuditOutcome::Interrupted => "interrupted",
            AuditOutcome::Refused => "refused",
        }
    }
}

/// Whether the user's permission was checked before a request was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PermissionCheck {
    /// A SelfSubjectAccessReview allowed it.
    Allowed,
    /// The review could not be answered (404, 5xx, timeout, no `status`):
    /// sent anyway, the server's own authorization decided.
    NotVerified,
}

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub time: Timestamp,
    /// Identifies this console session (one per audit log opened).
    pub session: String,
    /// The plan's id within the session: intent and result share it.
    pub plan: u64,
    pub phase: AuditPhase,
    /// The action's registry name (`set-migration-mode`, …).
    pub action: String,
    /// Who did it: from SelfSubjectReview, else the kubeconfig user.
    pub user: String,
    /// `SelfSubjectReview` or `kubeconfig`.
    pub user_source: String,
    /// The kubeconfig context of the cluster written to.
    pub context: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    pub uid: String,
    /// The change, structured (annotation keys with old and new, or the pod restart).
    pub change: serde_json::Value,
    /// The change in words (`instance_migration_mode: manual -> skip`).
    pub change_text: String,
    /// For an acknowledgement: the servers the lock said were still on the node.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<String>,
    pub dry_run: bool,
    /// What the SelfSubjectAccessReview said before sending: `allowed`, or
    /// `not-verified` when it could not be answered and the server decided.
    /// Absent in records written before this field existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<PermissionCheck>,
    /// With `not-verified`: the dialog's words and why the review failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_note: Option<String>,
    /// The kubeconfig user of the context written to, when it names one
    /// (`user` above is the server's answer to SelfSubjectReview when it gave one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubeconfig_user: Option<String>,
    /// How the connection was protected, when it was not verified TLS:
    /// `tls-not-verified`, `plain-http` or `plain-http-loopback` (the simulator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
    pub outcome: AuditOutcome,
    /// The server's message or what went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Written by `demo`: the write went to the built-in simulator, not to
    /// a real cluster. Absent (false) in real records.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub simulated: bool,
}

/// An audit log open for appending.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    session: String,
    /// Every record is marked `simulated` (the demo's log).
    simulated: bool,
    file: Mutex<File>,
}

/// The default path: `<XDG state dir>/mosk-console/audit.jsonl`.
pub fn default_path() -> Option<PathBuf> {
    crate::logging::state_dir().map(|d| d.join(DEFAULT_FILE))
}

impl AuditLog {
    /// Opens (creating if needed, mode 0600) the log at `path`, or at the
    /// default path when `None`.
    pub fn open(path: Option<&Path>) -> std::io::Result<AuditLog> {
        let path = match path {
            Some(p) => p.to_path_buf(),
            None => default_path().ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no XDG state directory for the audit log; pass --audit-log PATH",
                )
            })?,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir)?;
        }
        // No symlink followed, a regular file of one's own in a private
        // directory, made 0600 (crate::files).
        let file = crate::files::open_append(&path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("audit log {e}")))?;
        Ok(AuditLog {
            path,
            session: uuid::Uuid::new_v4().to_string(),
            simulated: false,
            file: Mutex::new(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Marks every record written through this log as simulated (`demo`).
    pub fn simulated(mut self) -> AuditLog {
        self.simulated = true;
        self
    }

    /// Whether the records are marked simulated.
    pub fn is_simulated(&self) -> bool {
        self.simulated
    }

    /// This session's id, written in every record.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Appends one record and waits until it is on disk (flush + fsync).
    pub fn append(&self, record: &AuditRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("audit log lock poisoned"))?;
        file.write_all(&line)?;
        file.flush()?;
        file.sync_data()
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

/// Reads every record of an audit log (lines that do not parse are errors).
pub fn read(path: &Path) -> std::io::Result<Vec<AuditRecord>> {
    let file = File::open(path)?;
    let mut out = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let rec = serde_json::from_str(&line).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}:{}: {e}", path.display(), i + 1),
            )
        })?;
        out.push(rec);
    }
    Ok(out)
}

/// What the console reads back from its audit log when it starts: the
/// result records of node writes from earlier sessions (the wrap-up's
/// migration modes come from them, so they survive a restart).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadBack {
    /// Oldest first; at most [`READ_BACK_KEEP`], the newest.
    pub records: Vec<AuditRecord>,
    /// Lines that are not a record (a torn last line, a hand edit).
    pub unreadable: usize,
    /// Why the file could not be read at all (a missing file is no error:
    /// nothing was written yet).
    pub error: Option<String>,
}

/// How many node write results are kept from earlier sessions.
pub const READ_BACK_KEEP: usize = 5000;

/// Reads back the result records of node writes from the log at `path`,
/// every string sanitized (the file is ours, but may have been edited), a
/// line that does not parse counted and skipped.
pub fn read_back(path: &Path) -> ReadBack {
    let mut out = ReadBack::default();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return out,
        Err(e) => {
            out.error = Some(format!("audit log {}: {e}", path.display()));
            return out;
        }
    };
    for line in BufReader::new(file).lines() {
        let Ok(line) = line else {
            out.unreadable += 1;
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let Ok(rec) = serde_json::from_str::<AuditRecord>(&line) else {
            out.unreadable += 1;
            continue;
        };
        if rec.phase != AuditPhase::Result || rec.kind != "Node" {
            continue;
        }
        out.records.push(sanitized(rec));
        if out.records.len() > 2 * READ_BACK_KEEP {
            out.records.drain(..READ_BACK_KEEP);
        }
    }
    let n = out.records.len();
    if n > READ_BACK_KEEP {
        out.records.drain(..n - READ_BACK_KEEP);
    }
    out
}

fn sanitized(mut rec: AuditRecord) -> AuditRecord {
    use crate::sanitize::sanitize;
    for s in [
        &mut rec.session,
        &mut rec.action,
        &mut rec.user,
        &mut rec.context,
        &mut rec.name,
        &mut rec.uid,
        &mut rec.change_text,
    ] {
        *s = sanitize(s);
    }
    rec.change = crate::sanitize::json(std::mem::take(&mut rec.change));
    rec.message = rec.message.as_deref().map(sanitize);
    rec
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(phase: AuditPhase, outcome: AuditOutcome) -> AuditRecord {
        AuditRecord {
            time: Timestamp::from_second(1_700_000_000).unwrap(),
            session: "s".into(),
            plan: 1,
            phase,
            action: "set-migration-mode".into(),
            user: "admin".into(),
            user_source: "kubeconfig".into(),
            context: "sim-mosk".into(),
            kind: "Node".into(),
            namespace: None,
            name: "kaas-node-1".into(),
            uid: "u1".into(),
            change: serde_json::json!({"type": "annotations"}),
            change_text: "instance_migration_mode: live -> skip".into(),
            servers: vec!["0ab4dd8f-ef0d-401d-9d5e-e9e97e077422".into()],
            dry_run: false,
            permission: Some(PermissionCheck::NotVerified),
            permission_note: Some("permission not verified: the server will decide".into()),
            kubeconfig_user: None,
            connection: None,
            outcome,
            message: None,
            simulated: false,
        }
    }

    #[test]
    fn appends_json_lines_to_a_private_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/audit.jsonl");
        let log = AuditLog::open(Some(&path)).unwrap();
        log.append(&record(AuditPhase::Intent, AuditOutcome::Pending))
            .unwrap();
        log.append(&record(AuditPhase::Result, AuditOutcome::Succeeded))
            .unwrap();
        drop(log);
        // Reopening appends; it never truncates.
        let log = AuditLog::open(Some(&path)).unwrap();
        log.append(&record(AuditPhase::Intent, AuditOutcome::Pending))
            .unwrap();
        let recs = read(&path).unwrap();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].phase, AuditPhase::Intent);
        assert_eq!(recs[1].outcome, AuditOutcome::Succeeded);
        assert_eq!(recs[0].servers.len(), 1);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"outcome\":\"pending\""), "{text}");
        assert!(text.contains("\"permission\":\"not-verified\""), "{text}");
        assert_eq!(recs[0].permission, Some(PermissionCheck::NotVerified));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }

    #[test]
    fn records_without_the_permission_field_still_read() {
        let mut v =
            serde_json::to_value(record(AuditPhase::Result, AuditOutcome::Interrupted)).unwrap();
        assert_eq!(v["outcome"], "interrupted");
        v.as_object_mut().unwrap().remove("permission");
        v.as_object_mut().unwrap().remove("permission_note");
        let back: AuditRecord = serde_json::from_value(v).unwrap();
        assert_eq!(back.permission, None);
    }

    #[cfg(unix)]
    #[test]
    fn an_existing_world_readable_log_is_made_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        std::fs::write(&path, "").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        AuditLog::open(Some(&path)).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    /// `--audit-log` pointing at a symlink planted in a shared directory:
    /// refused, the target neither written nor chmod'ed, and the error names
    /// the path and the reason (actions are then off with it).
    #[cfg(unix)]
    #[test]
    fn a_symlinked_audit_log_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("victim");
        std::fs::write(&target, "").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        let link = dir.path().join("audit.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = AuditLog::open(Some(&link)).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "audit log {}: refused: it is a symbolic link",
                link.display()
            )),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "");
        let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
    }

    #[test]
    fn an_unwritable_path_is_a_clear_error() {
        let e = AuditLog::open(Some(Path::new("/proc/no/such/audit.jsonl"))).unwrap_err();
        assert!(!e.to_string().is_empty());
    }
}
