//! Asking the API server who we are (SelfSubjectReview) and what we may do
//! (SelfSubjectAccessReview). Both are POSTs, so they go through the
//! [`Writer`]'s read-only guard like every other non-read request.

use std::time::Duration;

use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use kube::Api;
use kube::api::PostParams;
use serde_json::Value;

use super::Writer;
use crate::domain::action::access::{AccessKey, AccessVerdict};
use crate::domain::objects::ClusterId;
use crate::sanitize::sanitize;

/// How long a SelfSubjectAccessReview may take before the permission counts
/// as unknown (the server then decides when the write is sent).
pub const REVIEW_TIMEOUT: Duration = Duration::from_secs(10);

const ACCESS_REVIEWS: &str = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

impl Writer {
    /// Asks the server whether the current user may do `key`. Only an
    /// answer with `status.allowed: false` (or `status.denied: true`) is a
    /// denial; a review that fails (an HTTP error, no answer within
    /// [`REVIEW_TIMEOUT`], an answer without `status` or without
    /// `status.allowed`) makes the permission unknown.
    pub async fn review_access(&self, key: &AccessKey) -> AccessVerdict {
        if self.guard().is_err() {
            return AccessVerdict::Denied("read-only mode (--read-only)".into());
        }
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(ResourceAttributes {
                    verb: Some(key.verb.clone()),
                    group: Some(key.group.clone()),
                    // `pods/exec` is the resource `pods`, subresource `exec`.
                    resource: Some(
                        key.resource
                            .split_once('/')
                            .map_or(key.resource.as_str(), |(r, _)| r)
                            .to_string(),
                    ),
                    subresource: key.resource.split_once('/').map(|(_, s)| s.to_string()),
                    namespace: key.namespace.clone(),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        // Sent and read as plain JSON: k8s-openapi's typed status would read
        // a missing `allowed` as `false`, a denial the server never gave.
        let request = serde_json::to_vec(&review)
            .map_err(|e| e.to_string())
            .and_then(|body| {
                kube::core::Request::new(ACCESS_REVIEWS)
                    .create(&PostParams::default(), body)
                    .map_err(|e| e.to_string())
            });
        let request = match request {
            Ok(r) => r,
            Err(e) => return AccessVerdict::Unknown(sanitize(&e)),
        };
        let client = self.client(key.cluster);
        match tokio::time::timeout(REVIEW_TIMEOUT, client.request::<Value>(request)).await {
            Err(_) => {
                AccessVerdict::Unknown(format!("no answer within {} s", REVIEW_TIMEOUT.as_secs()))
            }
            Ok(Err(kube::Error::Api(s))) => {
                AccessVerdict::Unknown(sanitize(&format!("{} {}: {}", s.code, s.reason, s.message)))
            }
            Ok(Err(e)) => AccessVerdict::Unknown(sanitize(&e.to_string())),
            Ok(Ok(answer)) => verdict_of(&answer),
        }
    }

    /// The user name the server sees for `cluster`, if it says (within
    /// [`REVIEW_TIMEOUT`]).
    pub async fn whoami(&self, cluster: ClusterId) -> Option<String> {
        self.guard().ok()?;
        let api: Api<SelfSubjectReview> = Api::all(self.client(cluster));
        // Bounded like the access review: a server that never answers falls
        // back to the kubeconfig user instead of holding the plan.
        let (params, body) = (PostParams::default(), SelfSubjectReview::default());
        let ask = api.create(&params, &body);
        let review = tokio::time::timeout(REVIEW_TIMEOUT, ask).await.ok()?.ok()?;
        review
            .status
            .and_then(|s| s.user_info)
            .and_then(|u| u.username)
            .map(|u| sanitize(&u))
            .filter(|u| !u.is_empty())
    }
}

/// Reads a SelfSubjectAccessReview answer (see [`Writer::review_access`]).
fn verdict_of(answer: &Value) -> AccessVerdict {
    let Some(status) = answer.get("status").filter(|s| s.is_object()) else {
        return AccessVerdict::Unknown("the server's review had no status".into());
    };
    let text = |field: &str| {
        status
            .get(field)
            .and_then(Value::as_str)
            .map(sanitize)
            .filter(|s| !s.is_empty())
    };
    let denied = status.get("denied").and_then(Value::as_bool) == Some(true);
    match status.get("allowed").and_then(Value::as_bool) {
        Some(true) if !denied => AccessVerdict::Allowed,
        Some(_) => AccessVerdict::Denied(
            text("reason")
                .or_else(|| text("evaluationError"))
                .unwrap_or_default(),
        ),
        None if denied => AccessVerdict::Denied(text("reason").unwrap_or_default()),
        None => AccessVerdict::Unknown("the server's review status had no allowed field".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_real_answer_allows_or_denies() {
        assert_eq!(
            verdict_of(&json!({"status": {"allowed": true}})),
            AccessVerdict::Allowed
        );
        assert_eq!(
            verdict_of(
                &json!({"status": {"allowed": false, "reason": "no RBAC policy matched\x1b[2J"}})
            ),
            AccessVerdict::Denied("no RBAC policy matched".into())
        );
        assert_eq!(
            verdict_of(&json!({"status": {"allowed": true, "denied": true}})),
            AccessVerdict::Denied(String::new())
        );
        for unanswered in [
            json!({"kind": "SelfSubjectAccessReview", "spec": {}}),
            json!({"status": null}),
            json!({"status": {}}),
            json!({"status": {"allowed": "yes"}}),
        ] {
            assert!(
                matches!(verdict_of(&unanswered), AccessVerdict::Unknown(_)),
                "{unanswered}"
            );
        }
    }
}
