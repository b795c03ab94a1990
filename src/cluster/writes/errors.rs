//! What a failed write means, in words for the operator. 403 shows the
//! server's message; 404 and 409 are explained; nothing is retried here.
//! Every text from the server is sanitized here, before it reaches a dialog,
//! a notice or the audit log.

use crate::audit::AuditOutcome;
use crate::sanitize::sanitize;

/// Why a write did not happen or did not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    /// Read-only mode: nothing was sent.
    ReadOnly,
    /// The user's RBAC forbids it (403, or a SelfSubjectAccessReview said no
    /// before sending): the server's message.
    Forbidden(String),
    /// 404: the object is gone.
    NotFound(String),
    /// 409: the object changed since the screen showed it.
    Conflict(String),
    /// The change was made but what had to follow did not happen in time.
    Timeout(String),
    /// The audit intent record could not be written, so nothing was sent.
    AuditLog(String),
    /// Anything else (422, 5xx, network).
    Failed(String),
    /// The server refused the change: a `test` of the JSON patch no longer
    /// held (the object changed since it was drawn). Nothing changed.
    Refused(String),
}

impl WriteError {
    pub fn outcome(&self) -> AuditOutcome {
        match self {
            WriteError::ReadOnly | WriteError::AuditLog(_) => AuditOutcome::Cancelled,
            WriteError::Forbidden(_) => AuditOutcome::Forbidden,
            WriteError::NotFound(_) => AuditOutcome::NotFound,
            WriteError::Conflict(_) => AuditOutcome::Conflict,
            WriteError::Timeout(_) => AuditOutcome::Timeout,
            WriteError::Failed(_) => AuditOutcome::Failed,
            WriteError::Refused(_) => AuditOutcome::Refused,
        }
    }

    /// The explanation shown on screen and written to the audit log.
    pub fn message(&self) -> String {
        match self {
            WriteError::ReadOnly => "read-only mode (--read-only): nothing was sent".to_string(),
            WriteError::Forbidden(m)
            | WriteError::NotFound(m)
            | WriteError::Conflict(m)
            | WriteError::Timeout(m)
            | WriteError::Failed(m)
            | WriteError::Refused(m) => m.clone(),
            WriteError::AuditLog(m) => {
                format!("the audit log could not be written, so nothing was sent: {m}")
            }
        }
    }
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

/// What a request was about, for the explanation.
#[derive(Debug, Clone)]
pub struct Target {
    pub what: String,
    pub is_pod_delete: bool,
}

impl Target {
    pub fn node(name: &str) -> Target {
        Target {
            what: format!("node {name}"),
            is_pod_delete: false,
        }
    }
    pub fn pod_delete(namespace: &str, name: &str) -> Target {
        Target {
            what: format!("pod {namespace}/{name}"),
            is_pod_delete: true,
        }
    }
    pub fn other(what: impl Into<String>) -> Target {
        Target {
            what: what.into(),
            is_pod_delete: false,
        }
    }
}

/// Turns a kube error into what it means for the operator.
pub fn explain(err: kube::Error, target: &Target) -> WriteError {
    let what = &target.what;
    match err {
        kube::Error::Api(status) => {
            let server = sanitize(status.message.trim());
            match status.code {
                403 => WriteError::Forbidden(if server.is_empty() {
                    format!("the server refused to change {what} (403 Forbidden)")
                } else {
                    format!("the server refused: {server}")
                }),
                404 => WriteError::NotFound(format!(
                    "{what} no longer exists (deleted or replaced since the screen showed it): refresh and retry"
                )),
                409 if target.is_pod_delete => WriteError::Conflict(format!(
                    "the pod was already replaced (uid changed): refresh and retry ({what}; server: {server})"
                )),
                409 => WriteError::Conflict(format!(
                    "{what} changed while the request was sent: refresh and retry (server: {server})"
                )),
                422 => WriteError::Failed(format!(
                    "the server rejected the change to {what} as invalid: {server}"
                )),
                code => WriteError::Failed(format!(
                    "the server answered {code} {} for {what}: {server}",
                    sanitize(&status.reason)
                )),
            }
        }
        other => WriteError::Failed(format!(
            "could not reach the API server for {what}: {}",
            sanitize(&other.to_string())
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: u16, reason: &str, message: &str) -> kube::Error {
        kube::Error::Api(Box::new(kube::core::Status {
            code,
            reason: reason.into(),
            message: message.into(),
            ..Default::default()
        }))
    }

    #[test]
    fn explains_403_404_409() {
        let e = explain(
            api(
                403,
                "Forbidden",
                "pods \"x\" is forbidden: User \"bob\" cannot delete",
            ),
            &Target::pod_delete("tf", "x"),
        );
        assert_eq!(e.outcome(), AuditOutcome::Forbidden);
        assert!(e.message().contains("User \"bob\" cannot delete"), "{e}");
        let e = explain(
            api(409, "Conflict", "Precondition failed"),
            &Target::pod_delete("tf", "x"),
        );
        assert!(
            e.message()
                .starts_with("the pod was already replaced (uid changed): refresh and retry"),
            "{e}"
        );
        let e = explain(api(404, "NotFound", "not found"), &Target::node("n1"));
        assert!(e.message().contains("node n1 no longer exists"), "{e}");
        assert_eq!(e.outcome(), AuditOutcome::NotFound);
    }

    #[test]
    fn server_text_is_sanitized() {
        for code in [403, 409, 422, 500] {
            let e = explain(
                api(
                    code,
                    "Bad\x1b[2J",
                    "denied\x1b]52;c;aGk=\x07 by \u{202E}policy\nnext",
                ),
                &Target::node("n1"),
            );
            let m = e.message();
            assert!(
                !m.chars()
                    .any(|c| c.is_control() || crate::sanitize::is_format_char(c)),
                "{code}: {m:?}"
            );
            assert!(m.contains("denied by policy next"), "{code}: {m:?}");
        }
    }
}
