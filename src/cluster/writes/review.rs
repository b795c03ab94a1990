//! Asking the API server who we are (SelfSubjectReview) and what we may do
//! (SelfSubjectAccessReview). Both are POSTs, so they go through the
//! [`Writer`]'s read-only guard like every other non-read request.

use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use kube::Api;
use kube::api::PostParams;

use super::Writer;
use crate::app::actions::access::{AccessKey, AccessVerdict};
use crate::domain::objects::ClusterId;
use crate::sanitize::sanitize;

impl Writer {
    /// Asks the server whether the current user may do `key`.
    pub async fn review_access(&self, key: &AccessKey) -> AccessVerdict {
        if self.guard().is_err() {
            return AccessVerdict::Denied("read-only mode (--read-only)".into());
        }
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(ResourceAttributes {
                    verb: Some(key.verb.clone()),
                    group: Some(key.group.clone()),
                    resource: Some(key.resource.clone()),
                    namespace: key.namespace.clone(),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let api: Api<SelfSubjectAccessReview> = Api::all(self.client(key.cluster));
        match api.create(&PostParams::default(), &review).await {
            Ok(r) => match r.status {
                Some(s) if s.allowed && !s.denied.unwrap_or(false) => AccessVerdict::Allowed,
                Some(s) => AccessVerdict::Denied(sanitize(
                    &s.reason.or(s.evaluation_error).unwrap_or_default(),
                )),
                None => AccessVerdict::Unknown("the server's review had no status".into()),
            },
            Err(kube::Error::Api(s)) => {
                AccessVerdict::Unknown(sanitize(&format!("{} {}: {}", s.code, s.reason, s.message)))
            }
            Err(e) => AccessVerdict::Unknown(sanitize(&e.to_string())),
        }
    }

    /// The user name the server sees for `cluster`, if it says.
    pub async fn whoami(&self, cluster: ClusterId) -> Option<String> {
        self.guard().ok()?;
        let api: Api<SelfSubjectReview> = Api::all(self.client(cluster));
        let review = api
            .create(&PostParams::default(), &SelfSubjectReview::default())
            .await
            .ok()?;
        review
            .status
            .and_then(|s| s.user_info)
            .and_then(|u| u.username)
            .map(|u| sanitize(&u))
            .filter(|u| !u.is_empty())
    }
}
