//! Helpers on JSON objects: metadata access, timestamps, validation.

use jiff::Timestamp;
use serde_json::{Map, Value};

use super::error::{ApiError, StoreResult};
use crate::sim::registry::ResourceInfo;

/// `metadata.<field>` as a string.
pub fn meta_str<'a>(obj: &'a Value, field: &str) -> Option<&'a str> {
    obj.get("metadata")?.get(field)?.as_str()
}

/// The object's name (`""` when missing).
pub fn name_of(obj: &Value) -> &str {
    meta_str(obj, "name").unwrap_or_default()
}

/// The object's namespace (`""` when missing or cluster-scoped).
pub fn namespace_of(obj: &Value) -> &str {
    meta_str(obj, "namespace").unwrap_or_default()
}

/// `metadata` as a mutable map, creating it when missing.
pub fn meta_mut(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj.is_object() {
        *obj = Value::Object(Map::new());
    }
    let map = obj.as_object_mut().expect("object");
    let meta = map
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    meta.as_object_mut().expect("metadata object")
}

/// Kubernetes timestamp format (RFC 3339, seconds, UTC).
pub fn format_ts(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Parses a Kubernetes timestamp.
pub fn parse_ts(s: &str) -> Option<Timestamp> {
    s.parse().ok()
}

/// The object's `metadata.finalizers` is non-empty.
pub fn has_finalizers(obj: &Value) -> bool {
    obj.pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
}

/// The object has a `metadata.deletionTimestamp`.
pub fn is_terminating(obj: &Value) -> bool {
    meta_str(obj, "deletionTimestamp").is_some()
}

/// A copy of `obj` without `metadata` (and without `status` when `skip_status`),
/// used to decide whether the generation moves.
pub fn spec_part(obj: &Value, skip_status: bool) -> Value {
    let mut v = obj.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove("metadata");
        m.remove("apiVersion");
        m.remove("kind");
        if skip_status {
            m.remove("status");
        }
    }
    v
}

/// DNS-1123 subdomain check used for object names.
pub fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !name.is_empty()
        && name.len() <= 253
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-' || *b == b'.')
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
}

/// Checks that a body is a JSON object and sets its `apiVersion` and `kind`
/// to the resource's (a client may omit or misspell them).
pub fn stamp_type(info: &ResourceInfo, obj: &mut Value) -> StoreResult<()> {
    let Some(m) = obj.as_object_mut() else {
        return Err(ApiError::bad_request(format!(
            "the body of a {} must be a JSON object",
            info.kind
        )));
    };
    m.insert("apiVersion".into(), serde_json::json!(info.api_version()));
    m.insert("kind".into(), serde_json::json!(info.kind));
    Ok(())
}

/// Validates what every stored object must satisfy: an object with a valid name,
/// and string maps for labels and annotations.
pub fn validate(info: &ResourceInfo, obj: &Value) -> StoreResult<()> {
    if !obj.is_object() {
        return Err(ApiError::bad_request(format!(
            "the body of a {} must be a JSON object",
            info.kind
        )));
    }
    let name = name_of(obj);
    if !valid_name(name) {
        return Err(ApiError::invalid(
            info,
            name,
            "metadata.name",
            &format!(
                "Invalid value: \"{name}\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
            ),
        ));
    }
    for field in ["labels", "annotations"] {
        match obj.pointer(&format!("/metadata/{field}")) {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                if let Some((k, v)) = m.iter().find(|(k, v)| !v.is_string() || k.is_empty()) {
                    return Err(ApiError::invalid(
                        info,
                        name,
                        &format!("metadata.{field}"),
                        &format!("Invalid value: {k:?}: {v}: values must be strings"),
                    ));
                }
            }
            Some(other) => {
                return Err(ApiError::invalid(
                    info,
                    name,
                    &format!("metadata.{field}"),
                    &format!("Invalid value: {other}: must be a map of strings"),
                ));
            }
        }
    }
    if let Some(f) = obj.pointer("/metadata/finalizers")
        && !f.is_null()
        && !f.as_array().is_some_and(|a| a.iter().all(Value::is_string))
    {
        return Err(ApiError::invalid(
            info,
            name,
            "metadata.finalizers",
            "Invalid value: must be a list of strings",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_dns_1123() {
        assert!(valid_name("kaas-node-5222a92f-5523"));
        assert!(valid_name("cd-cz7506.child"));
        assert!(!valid_name(""));
        assert!(!valid_name("Upper"));
        assert!(!valid_name("-lead"));
        assert!(!valid_name("trail-"));
        assert!(!valid_name("a/b"));
    }

    #[test]
    fn timestamps_have_seconds_precision() {
        let t: Timestamp = "2026-01-01T00:00:00.5Z".parse().unwrap();
        assert_eq!(format_ts(t), "2026-01-01T00:00:00Z");
    }
}
