//! A small validator for the Kubernetes OpenAPI definitions (as JSON Schema,
//! `tests/data/k8s-schema/`) and for CRD `openAPIV3Schema`s: required
//! fields, types, enums, RFC 3339 times, walking `$ref`s, nested objects and
//! array items. Unknown keywords are ignored; it never fills anything in.

use serde_json::{Map, Value};

const EXTRACT: &str = include_str!("../data/k8s-schema/v1.33-served-kinds.json");

/// The Kubernetes definitions of the version the simulator reports.
pub struct K8sSchema {
    defs: Map<String, Value>,
}

impl K8sSchema {
    pub fn load() -> K8sSchema {
        let doc: Value = serde_json::from_str(EXTRACT).expect("the schema extract is JSON");
        assert_eq!(doc["kubernetesVersion"], "1.33.0");
        let defs = doc["$defs"].as_object().expect("$defs").clone();
        K8sSchema { defs }
    }

    /// The definition name of a kind, e.g. `io.k8s.api.core.v1.Node`.
    pub fn def_of(&self, api_version: &str, kind: &str) -> String {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let found = self.defs.iter().find(|(_, d)| {
            d["x-kubernetes-group-version-kind"]
                .as_array()
                .is_some_and(|gvks| {
                    gvks.iter().any(|g| {
                        g["group"] == group && g["version"] == version && g["kind"] == kind
                    })
                })
        });
        found
            .map(|(name, _)| name.clone())
            .unwrap_or_else(|| panic!("no definition of {api_version} {kind} in the extract"))
    }

    /// Every violation of definition `def` in `value`, as `path: problem`.
    pub fn validate(&self, def: &str, value: &Value) -> Vec<String> {
        let mut errors = Vec::new();
        let schema = self
            .defs
            .get(def)
            .unwrap_or_else(|| panic!("no definition {def}"));
        self.walk(schema, value, "$", &mut errors);
        errors
    }

    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.strip_prefix("#/$defs/").unwrap_or(r);
                self.resolve(
                    self.defs
                        .get(name)
                        .unwrap_or_else(|| panic!("dangling $ref {r}")),
                )
            }
            None => schema,
        }
    }

    fn walk(&self, schema: &Value, value: &Value, path: &str, errors: &mut Vec<String>) {
        let schema = self.resolve(schema);
        if let Some(alts) = schema.get("oneOf").and_then(Value::as_array) {
            if !alts.iter().any(|alt| {
                let mut e = Vec::new();
                self.walk(alt, value, path, &mut e);
                e.is_empty()
            }) {
                errors.push(format!("{path}: matches none of oneOf ({value})"));
            }
            return;
        }
        if !type_ok(schema.get("type"), value) {
            errors.push(format!(
                "{path}: expected type {}, found {}",
                schema["type"],
                short(value)
            ));
            return;
        }
        check_enum_and_format(schema, value, path, errors);
        match value {
            Value::Object(map) => {
                for r in schema["required"].as_array().into_iter().flatten() {
                    let r = r.as_str().unwrap_or_default();
                    if !map.contains_key(r) {
                        errors.push(format!("{path}: missing required field `{r}`"));
                    }
                }
                let props = schema.get("properties").and_then(Value::as_object);
                for (k, v) in map {
                    if let Some(p) = props.and_then(|p| p.get(k)) {
                        self.walk(p, v, &format!("{path}.{k}"), errors);
                    } else if let Some(ap) = schema.get("additionalProperties")
                        && ap.is_object()
                    {
                        self.walk(ap, v, &format!("{path}.{k}"), errors);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = schema.get("items") {
                    for (i, v) in items.iter().enumerate() {
                        self.walk(item_schema, v, &format!("{path}[{i}]"), errors);
                    }
                }
            }
            _ => {}
        }
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

fn one_type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn type_ok(t: Option<&Value>, v: &Value) -> bool {
    match t {
        None => true,
        Some(Value::String(t)) => one_type_ok(t, v),
        Some(Value::Array(ts)) => ts.iter().any(|t| one_type_ok(t.as_str().unwrap_or(""), v)),
        Some(_) => true,
    }
}

fn check_enum_and_format(schema: &Value, value: &Value, path: &str, errors: &mut Vec<String>) {
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !value.is_null()
        && !allowed.contains(value)
    {
        errors.push(format!(
            "{path}: {value} is not one of {}",
            Value::Array(allowed.clone())
        ));
    }
    if schema.get("format").and_then(Value::as_str) == Some("date-time")
        && let Some(s) = value.as_str()
        && s.parse::<jiff::Timestamp>().is_err()
    {
        errors.push(format!("{path}: {s:?} is not an RFC 3339 time"));
    }
}

/// Violations of a CRD version's `openAPIV3Schema` (structural schema:
/// type, properties, required, items, additionalProperties, nullable,
/// x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields, enum).
pub fn validate_crd(schema: &Value, value: &Value, path: &str, errors: &mut Vec<String>) {
    if value.is_null() {
        if !schema["nullable"].as_bool().unwrap_or(false) {
            errors.push(format!("{path}: null where the CRD does not allow it"));
        }
        return;
    }
    if schema["x-kubernetes-int-or-string"]
        .as_bool()
        .unwrap_or(false)
    {
        if !(value.is_string() || value.is_i64() || value.is_u64()) {
            errors.push(format!(
                "{path}: expected int-or-string, found {}",
                short(value)
            ));
        }
        return;
    }
    if !type_ok(schema.get("type"), value) {
        errors.push(format!(
            "{path}: expected type {}, found {}",
            schema["type"],
            short(value)
        ));
        return;
    }
    check_enum_and_format(schema, value, path, errors);
    match value {
        Value::Object(map) => {
            for r in schema["required"].as_array().into_iter().flatten() {
                let r = r.as_str().unwrap_or_default();
                if !map.contains_key(r) {
                    errors.push(format!("{path}: missing required field `{r}`"));
                }
            }
            let props = schema.get("properties").and_then(Value::as_object);
            for (k, v) in map {
                if let Some(p) = props.and_then(|p| p.get(k)) {
                    validate_crd(p, v, &format!("{path}.{k}"), errors);
                } else if let Some(ap) = schema.get("additionalProperties")
                    && ap.is_object()
                {
                    validate_crd(ap, v, &format!("{path}.{k}"), errors);
                } else if props.is_some()
                    && !schema["x-kubernetes-preserve-unknown-fields"]
                        .as_bool()
                        .unwrap_or(false)
                {
                    // A structural schema prunes unknown fields: the apiserver
                    // would silently drop it, so a client would never see it.
                    errors.push(format!("{path}.{k}: not in the CRD (would be pruned)"));
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, v) in items.iter().enumerate() {
                    validate_crd(item_schema, v, &format!("{path}[{i}]"), errors);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The validator itself catches what the issue names (so the scenario
    /// tests below can fail).
    #[test]
    fn catches_missing_required_fields_nested_and_in_lists() {
        let s = K8sSchema::load();
        let def = s.def_of("v1", "Node");
        let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"nodeInfo": {"kubeletVersion": "v1.33.0"},
                       "conditions": [{"type": "Ready"}]}});
        let errors = s.validate(&def, &node);
        for want in ["machineID", "systemUUID", "bootID", "kubeProxyVersion"] {
            assert!(
                errors
                    .iter()
                    .any(|e| e.contains("$.status.nodeInfo") && e.contains(want)),
                "{want}: {errors:?}"
            );
        }
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with("$.status.conditions[0]") && e.contains("`status`")),
            "{errors:?}"
        );
        let pod_def = s.def_of("v1", "Pod");
        let pod = json!({"metadata": {"name": "p", "creationTimestamp": "yesterday"},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
            "status": {"containerStatuses": [{"name": "c", "ready": true, "restartCount": 0, "image": "i"}]}});
        let errors = s.validate(&pod_def, &pod);
        assert!(errors.iter().any(|e| e.contains("imageID")), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("RFC 3339")), "{errors:?}");
        let wrong_type = json!({"metadata": {"name": 5}});
        assert!(!s.validate(&pod_def, &wrong_type).is_empty());
    }

    #[test]
    fn crd_schemas_check_required_and_types() {
        let schema = json!({"type": "object", "required": ["spec"], "properties": {
            "spec": {"type": "object", "required": ["a"], "properties": {
                "a": {"type": "string"}, "n": {"type": "integer"},
                "x": {"x-kubernetes-int-or-string": true}}}}});
        let mut e = Vec::new();
        validate_crd(
            &schema,
            &json!({"spec": {"a": "ok", "n": 1, "x": "50%"}}),
            "$",
            &mut e,
        );
        assert!(e.is_empty(), "{e:?}");
        validate_crd(&schema, &json!({"spec": {"n": "1"}}), "$", &mut e);
        assert_eq!(e.len(), 2, "{e:?}");
    }

    #[test]
    fn fields_a_structural_schema_would_prune_are_reported() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"a": {"type": "string"}}},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                       "properties": {"b": {"type": "string"}}}}});
        let mut e = Vec::new();
        validate_crd(
            &schema,
            &json!({"spec": {"a": "x"}, "status": {"b": "y", "c": 1}}),
            "$",
            &mut e,
        );
        assert!(e.is_empty(), "{e:?}");
        validate_crd(
            &schema,
            &json!({"spec": {"a": "x", "z": true}}),
            "$",
            &mut e,
        );
        assert_eq!(e, ["$.spec.z: not in the CRD (would be pruned)"]);
    }
}
