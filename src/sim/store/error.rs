//! The Kubernetes `Status` error every store and server failure turns into.

use serde_json::{Value, json};

use crate::sim::registry::ResourceInfo;

/// A failed API call, as the real apiserver reports it (HTTP code, reason, message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub code: u16,
    /// NotFound, AlreadyExists, Conflict, Invalid, Forbidden, UnsupportedMediaType,
    /// Expired, BadRequest, MethodNotAllowed, NotAcceptable, RequestEntityTooLarge,
    /// InternalError, ServiceUnavailable, Timeout.
    pub reason: String,
    pub message: String,
}

/// The result of a store call.
pub type StoreResult<T> = Result<T, ApiError>;

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.reason, self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

/// `pods`, `daemonsets.apps`, `nodeworkloadlocks.lcm.mirantis.com`: how the
/// apiserver names a resource in its messages.
pub fn qualified(info: &ResourceInfo) -> String {
    if info.group.is_empty() {
        info.plural.clone()
    } else {
        format!("{}.{}", info.plural, info.group)
    }
}

impl ApiError {
    pub fn new(code: u16, reason: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            reason: reason.into(),
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(400, "BadRequest", message)
    }

    pub fn not_found(info: &ResourceInfo, name: &str) -> ApiError {
        ApiError::new(
            404,
            "NotFound",
            format!("{} \"{name}\" not found", qualified(info)),
        )
    }

    /// 404 for a path or resource the server does not serve.
    pub fn no_route() -> ApiError {
        ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
    }

    pub fn already_exists(info: &ResourceInfo, name: &str) -> ApiError {
        ApiError::new(
            409,
            "AlreadyExists",
            format!("{} \"{name}\" already exists", qualified(info)),
        )
    }

    /// 409 Conflict, `Operation cannot be fulfilled on <res> "<name>": <why>`.
    pub fn conflict(info: &ResourceInfo, name: &str, why: &str) -> ApiError {
        ApiError::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": {why}",
                qualified(info)
            ),
        )
    }

    /// 422 Invalid, `<Kind> "<name>" is invalid: <field>: <detail>`.
    pub fn invalid(info: &ResourceInfo, name: &str, field: &str, detail: &str) -> ApiError {
        ApiError::new(
            422,
            "Invalid",
            format!("{} \"{name}\" is invalid: {field}: {detail}", info.kind),
        )
    }

    pub fn unsupported_media_type(message: impl Into<String>) -> ApiError {
        ApiError::new(415, "UnsupportedMediaType", message)
    }

    pub fn method_not_allowed(message: impl Into<String>) -> ApiError {
        ApiError::new(405, "MethodNotAllowed", message)
    }

    /// 410 Gone for a resource version older than the event window.
    pub fn expired(rv: u64) -> ApiError {
        ApiError::new(410, "Expired", format!("too old resource version: {rv}"))
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(500, "InternalError", message)
    }

    /// The `Status` object the apiserver sends as the body of an error.
    pub fn to_status_json(&self) -> Value {
        json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        })
    }
}
