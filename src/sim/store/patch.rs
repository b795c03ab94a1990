//! PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902, crate
//! json-patch), strategic merge patch for built-in kinds, and an
//! approximation of server-side apply.

use serde_json::Value;

use super::error::{ApiError, StoreResult};
use crate::sim::registry::ResourceInfo;

/// The patch flavours the server accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchKind {
    Merge,
    Json,
    Strategic,
    Apply,
}

/// The message kube-apiserver gives for a JSON patch that cannot be applied.
pub const JSON_PATCH_REFUSED: &str =
    "the server rejected our request due to an error in our request";

const ACCEPTED: &str =
    "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";

/// The patch kind named by a Content-Type header (parameters such as charset ignored).
pub fn patch_kind(info: &ResourceInfo, content_type: &str) -> StoreResult<PatchKind> {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let kind = match mime.as_str() {
        "application/merge-patch+json" => PatchKind::Merge,
        "application/json-patch+json" => PatchKind::Json,
        "application/strategic-merge-patch+json" => PatchKind::Strategic,
        "application/apply-patch+yaml" | "application/apply-patch+cbor" => PatchKind::Apply,
        _ => {
            return Err(ApiError::unsupported_media_type(format!(
                "the body of the request was in an unknown format - accepted media types include: {}{ACCEPTED}",
                if info.builtin {
                    "application/strategic-merge-patch+json, "
                } else {
                    ""
                }
            )));
        }
    };
    if kind == PatchKind::Strategic && !info.builtin {
        // The apiserver refuses strategic merge for custom resources.
        return Err(ApiError::unsupported_media_type(format!(
            "the body of the request was in an unknown format - accepted media types include: {ACCEPTED}"
        )));
    }
    Ok(kind)
}

fn parse_json(body: &[u8]) -> StoreResult<Value> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))
}

/// Removes strategic-merge directives (`$patch`, `$setElementOrder/…`,
/// `$retainKeys`, `$deleteFromPrimitiveList/…`) so the rest merges as JSON.
fn strip_directives(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| !k.starts_with('$'));
            m.values_mut().for_each(strip_directives);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_directives),
        _ => {}
    }
}

/// Applies a patch body of the given content type to `current`, returning the new object.
///
/// Strategic merge patch is approximated by a JSON merge patch with directive
/// keys dropped: lists are replaced, not merged by key (enough for the
/// metadata and spec scalars clients patch on nodes, pods and daemonsets).
/// Server-side apply is approximated the same way (no field ownership).
pub fn apply_patch(
    info: &ResourceInfo,
    current: &Value,
    content_type: &str,
    body: &[u8],
) -> StoreResult<Value> {
    let kind = patch_kind(info, content_type)?;
    let mut doc = current.clone();
    match kind {
        PatchKind::Merge => json_patch::merge(&mut doc, &parse_json(body)?),
        PatchKind::Strategic => {
            let mut p = parse_json(body)?;
            strip_directives(&mut p);
            json_patch::merge(&mut doc, &p);
        }
        PatchKind::Apply => {
            let text = std::str::from_utf8(body)
                .map_err(|_| ApiError::bad_request("apply patch is not UTF-8"))?;
            let p: Value = serde_saphyr::from_str(text)
                .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")))?;
            if !p.is_object() {
                return Err(ApiError::bad_request("apply patch must be an object"));
            }
            json_patch::merge(&mut doc, &p);
        }
        PatchKind::Json => {
            let p: json_patch::Patch = serde_json::from_slice(body)
                .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
            json_patch::patch(&mut doc, &p.0).map_err(|e| {
                // kube-apiserver (`jsonPatcher.applyJSPatch`) answers any
                // failed operation, a failed `test` included, with
                // `NewGenericServerResponse(422, …, err.Error(), 0, false)`:
                // reason Invalid and this fixed message; the patch library's
                // own text ("testing value … failed") is not sent back
                // (kubectl prints "The request is invalid: the server
                // rejected our request due to an error in our request").
                tracing::debug!(target: "sim", "json patch refused: {e}");
                ApiError::new(422, "Invalid", JSON_PATCH_REFUSED)
            })?;
        }
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::registry::Registry;
    use serde_json::json;

    #[test]
    fn strategic_is_415_for_custom_resources_only() {
        let r = Registry::mosk();
        let nwl = r.find_plural("nodeworkloadlocks").unwrap();
        let node = r.find_plural("nodes").unwrap();
        let obj = json!({"metadata": {"name": "a"}});
        let body = br#"{"metadata":{"labels":{"x":"y"}}}"#;
        let e = apply_patch(nwl, &obj, "application/strategic-merge-patch+json", body).unwrap_err();
        assert_eq!(e.code, 415);
        let out = apply_patch(node, &obj, "application/strategic-merge-patch+json", body).unwrap();
        assert_eq!(out["metadata"]["labels"]["x"], "y");
    }

    #[test]
    fn merge_removes_keys_with_null_and_json_patch_tests() {
        let r = Registry::mosk();
        let node = r.find_plural("nodes").unwrap();
        let obj = json!({"metadata": {"name": "a", "annotations": {"k": "v", "j": "w"}}});
        let out = apply_patch(
            node,
            &obj,
            "application/merge-patch+json; charset=utf-8",
            br#"{"metadata":{"annotations":{"k":null}}}"#,
        )
        .unwrap();
        assert_eq!(out["metadata"]["annotations"], json!({"j": "w"}));
        let fail = apply_patch(
            node,
            &obj,
            "application/json-patch+json",
            br#"[{"op":"test","path":"/metadata/annotations/k","value":"other"}]"#,
        )
        .unwrap_err();
        assert_eq!(fail.code, 422);
        assert_eq!(fail.reason, "Invalid");
        assert_eq!(fail.message, JSON_PATCH_REFUSED);
        let bad = apply_patch(node, &obj, "application/json-patch+json", b"{not json").unwrap_err();
        assert_eq!(bad.code, 400);
        let ct = apply_patch(node, &obj, "text/plain", b"{}").unwrap_err();
        assert_eq!(ct.code, 415);
    }
}
