//! `selfsubjectaccessreviews` and `selfsubjectreviews`, answered from the Rbac table.

use axum::http::Method;
use axum::response::Response;
use serde_json::{Value, json};

use super::Ctx;
use super::path::ResourcePath;
use super::request::json_response;
use crate::sim::rbac::Attributes;
use crate::sim::store::{ApiError, StoreResult};

fn parse(body: &[u8]) -> StoreResult<Value> {
    let v: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!("the object provided is not valid JSON: {e}"))
    })?;
    if !v.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    Ok(v)
}

/// Answers the review endpoints; `None` for any other path.
pub fn handle(
    ctx: &Ctx,
    method: &Method,
    rp: &ResourcePath,
    body: &[u8],
) -> StoreResult<Option<Response>> {
    let which = match (rp.group.as_str(), rp.version.as_str(), rp.plural.as_str()) {
        ("authorization.k8s.io", "v1", "selfsubjectaccessreviews") => "ssar",
        ("authentication.k8s.io", "v1", "selfsubjectreviews") => "ssr",
        _ => return Ok(None),
    };
    if rp.name.is_some() || rp.namespace.is_some() {
        return Err(ApiError::no_route());
    }
    if method != Method::POST {
        return Err(ApiError::method_not_allowed(
            "the server does not allow this method on the requested resource",
        ));
    }
    let rbac = &ctx.opts.rbac;
    let mut review = parse(body)?;
    if which == "ssr" {
        review["apiVersion"] = json!("authentication.k8s.io/v1");
        review["kind"] = json!("SelfSubjectReview");
        review["status"] = json!({"userInfo": {"username": rbac.user, "groups": rbac.groups}});
        return Ok(Some(json_response(201, &review)));
    }
    let s = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let status = match (
        review.pointer("/spec/resourceAttributes"),
        review.pointer("/spec/nonResourceAttributes"),
    ) {
        (Some(ra), _) if ra.is_object() => {
            let (verb, group, resource) = (s(ra, "verb"), s(ra, "group"), s(ra, "resource"));
            let (sub, ns) = (s(ra, "subresource"), s(ra, "namespace"));
            let attrs = Attributes {
                verb: &verb,
                group: &group,
                resource: &resource,
                subresource: (!sub.is_empty()).then_some(sub.as_str()),
                namespace: (!ns.is_empty()).then_some(ns.as_str()),
            };
            if rbac.allows(&attrs) {
                json!({"allowed": true, "reason": "allowed by the simulator's RBAC table"})
            } else {
                // RBAC denials carry no reason, so `kubectl auth can-i` prints a bare "no".
                json!({"allowed": false})
            }
        }
        (_, Some(nra)) if nra.is_object() => json!({"allowed": true}),
        _ => {
            return Err(ApiError::new(
                422,
                "Invalid",
                "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified",
            ));
        }
    };
    review["apiVersion"] = json!("authorization.k8s.io/v1");
    review["kind"] = json!("SelfSubjectAccessReview");
    review["status"] = status;
    Ok(Some(json_response(201, &review)))
}
