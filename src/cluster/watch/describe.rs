//! Watch and API errors in sentences an operator can read, and the errors
//! that are not failures (410 Gone) or mean a kind is not served.

use kube::runtime::watcher;

use crate::cluster::connect::error_chain;
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
pub(super) fn crd_missing(err: &kube::Error) -> bool {
    match err {
        kube::Error::Api(status) => status.code == 404,
        kube::Error::Discovery(_) => true,
        _ => false,
    }
}

/// A kube error in a sentence an operator can read (sanitized).
pub(crate) fn describe_kube_error(err: &kube::Error) -> String {
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
        other => error_chain(other),
    };
    sanitize(&text)
}

/// A watcher error in a sentence an operator can read (sanitized).
pub(crate) fn describe_watch_error(err: &watcher::Error) -> String {
    match err {
        watcher::Error::InitialListFailed(e) => format!("list failed: {}", describe_kube_error(e)),
        watcher::Error::WatchStartFailed(e) => {
            format!("watch request failed: {}", describe_kube_error(e))
        }
        watcher::Error::WatchError(s) => sanitize(&format!(
            "the server ended the watch with {} {}: {}",
            s.code, s.reason, s.message
        )),
        watcher::Error::WatchFailed(e) => format!("watch stream broke: {}", describe_kube_error(e)),
        watcher::Error::NoResourceVersion => {
            "the server sent an object without metadata.resourceVersion".to_string()
        }
    }
}
