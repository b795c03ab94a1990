//! Watch and API errors in sentences an operator can read, and the errors
//! that are not failures (410 Gone) or mean a kind is not served.

use kube::runtime::watcher;

use crate::cluster::connect::limits::TooLong;
use crate::cluster::connect::{error_chain, secret, tls};
use crate::cluster::events::WatchProblem;
use crate::sanitize::sanitize;

/// `Some(restart)` when `err` is a 410 Gone; `restart` when kube will not re-list by itself.
pub(crate) fn gone(err: &watcher::Error) -> Option<bool> {
    match err {
        watcher::Error::WatchError(status) if status.code == 410 => Some(false),
        watcher::Error::WatchStartFailed(kube::Error::Api(status)) if status.code == 410 => {
            Some(true)
        }
        _ => None,
    }
}

/// Whether a discovery error means the kind is not served at all.
pub(crate) fn crd_missing(err: &kube::Error) -> bool {
    match err {
        kube::Error::Api(status) => status.code == 404,
        kube::Error::Discovery(_) => true,
        _ => false,
    }
}

/// The kube error inside a watcher error, if any.
fn kube_error(err: &watcher::Error) -> Option<&kube::Error> {
    match err {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => Some(e),
        _ => None,
    }
}

/// Whether the server refused (401/403) rather than failed.
pub(crate) fn problem(err: &watcher::Error) -> WatchProblem {
    let code = match err {
        watcher::Error::WatchError(s) => Some(s.code),
        other => match kube_error(other) {
            Some(kube::Error::Api(s)) => Some(s.code),
            _ => None,
        },
    };
    match code {
        Some(401 | 403) => WatchProblem::Refused,
        _ => WatchProblem::Failing,
    }
}

/// Whether a kube error (discovery) is a refusal.
pub(crate) fn kube_problem(err: &kube::Error) -> WatchProblem {
    match err {
        kube::Error::Api(s) if matches!(s.code, 401 | 403) => WatchProblem::Refused,
        _ => WatchProblem::Failing,
    }
}

/// Whether a list or watch was answered 404 for the resource itself: its
/// CRD is no longer served. A real server answers that with a plain-text
/// `404 page not found`, which kube wraps as a Status whose reason is
/// "Failed to parse error data" (docs/RELIABILITY.md, "Refusals").
pub(crate) fn not_served(err: &watcher::Error) -> bool {
    matches!(kube_error(err), Some(kube::Error::Api(s)) if s.code == 404)
}

/// A 401/403 in the operator's words, from the server's message:
/// `forbidden: viewer may not list lcmmachines in child-ns`.
pub(crate) fn refusal_text(code: u16, message: &str) -> String {
    if code == 401 {
        return "unauthorized: the server refused the credentials (expired or revoked token?)"
            .to_string();
    }
    // `… is forbidden: User "viewer" cannot list resource "lcmmachines" in API
    // group "lcm.mirantis.com" in the namespace "child-ns"` (kube-apiserver,
    // k8s.io/apiserver/pkg/endpoints/handlers/responsewriters, `forbiddenMessage`).
    let quoted = |s: &str| -> Option<String> {
        let s = s.strip_prefix('"')?;
        Some(s[..s.find('"')?].to_string())
    };
    let parsed = (|| {
        let rest = &message[message.find("User ")? + 5..];
        let user = quoted(rest)?;
        let rest = &rest[rest.find(" cannot ")? + 8..];
        let verb = rest.split_whitespace().next()?.to_string();
        let rest = &rest[rest.find("resource ")? + 9..];
        let resource = quoted(rest)?;
        let scope = match rest.find("in the namespace ") {
            Some(i) => format!("in {}", quoted(&rest[i + 17..])?),
            None => "cluster-wide".to_string(),
        };
        Some(format!(
            "forbidden: {user} may not {verb} {resource} {scope}"
        ))
    })();
    sanitize(&parsed.unwrap_or_else(|| format!("forbidden: {message}")))
}

/// A kube error in a sentence an operator can read (sanitized).
pub(crate) fn describe_kube_error(err: &kube::Error) -> String {
    if let kube::Error::Api(s) = err
        && matches!(s.code, 401 | 403)
    {
        return refusal_text(s.code, &s.message);
    }
    if let Some(text) = secret::credential_failure(err) {
        return text;
    }
    if let Some(too_long) = TooLong::find(err) {
        return too_long.to_string();
    }
    if let Some(text) = tls::describe(err) {
        return format!("the server's certificate was refused: {text}");
    }
    let text = match err {
        kube::Error::Api(s) => {
            let reason = if s.reason.is_empty() {
                String::new()
            } else {
                format!(" {}", s.reason)
            };
            format!("the server answered {}{reason}: {}", s.code, s.message)
        }
        kube::Error::Discovery(d) => d.to_string(),
        other => secret::redact(&error_chain(other)),
    };
    sanitize(&text)
}

/// A watcher error in a sentence an operator can read (sanitized).
pub(crate) fn describe_watch_error(err: &watcher::Error) -> String {
    match err {
        _ if problem(err) == WatchProblem::Refused => {
            kube_error(err).map(describe_kube_error).unwrap_or_default()
        }
        watcher::Error::InitialListFailed(e) => format!("list failed: {}", describe_kube_error(e)),
        watcher::Error::WatchStartFailed(e) => {
            format!("watch request failed: {}", describe_kube_error(e))
        }
        watcher::Error::WatchError(s) if matches!(s.code, 401 | 403) => {
            refusal_text(s.code, &s.message)
        }
        watcher::Error::WatchError(s) => sanitize(&format!(
            "the server ended the watch with {} {}: {}",
            s.code, s.reason, s.message
        )),
        watcher::Error::WatchFailed(e) => match TooLong::find(e) {
            Some(too_long) => format!("watch stopped: {too_long}"),
            None => format!("watch stream broke: {}", describe_kube_error(e)),
        },
        watcher::Error::NoResourceVersion => {
            "the server sent an object without metadata.resourceVersion".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forbidden_message_names_user_verb_resource_and_namespace() {
        let ns = "lcmmachines.lcm.mirantis.com is forbidden: User \"viewer\" cannot list resource \"lcmmachines\" in API group \"lcm.mirantis.com\" in the namespace \"child-ns\"";
        assert_eq!(
            refusal_text(403, ns),
            "forbidden: viewer may not list lcmmachines in child-ns"
        );
        let cluster = "nodes is forbidden: User \"viewer\" cannot watch resource \"nodes\" in API group \"\" at the cluster scope";
        assert_eq!(
            refusal_text(403, cluster),
            "forbidden: viewer may not watch nodes cluster-wide"
        );
        assert_eq!(refusal_text(403, "no"), "forbidden: no");
        assert!(refusal_text(401, "Unauthorized").starts_with("unauthorized: "));
    }
}
