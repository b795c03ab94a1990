//! Every CRD the simulator serves is one a real kube-apiserver accepts as
//! `apiextensions.k8s.io/v1`: the rules it enforces on the CRD itself that the
//! object schema tests (tests/sim_schema) do not look at.
//!
//! - Protected groups (kubernetes/enhancements, KEP "k8s.io Group Protection",
//!   keps/sig-api-machinery/20190612-crd-group-protection.md, commit 1c3cd92c):
//!   a CRD whose group is `k8s.io`, `kubernetes.io` or ends in `.k8s.io` or
//!   `.kubernetes.io` must carry the `api-approved.kubernetes.io` annotation
//!   (a pull-request URL, or a text starting with `unapproved`); a CRD in any
//!   other group must not carry it.
//! - Structural schemas (apiextensions v1 requires one per version): a
//!   schema at every served version whose root is `type: object`; every
//!   node that has `properties` or `items` states its `type`; every property
//!   states a `type` unless it is `x-kubernetes-int-or-string` or
//!   `x-kubernetes-preserve-unknown-fields`; `metadata` at the root says
//!   nothing beyond `name` and `generateName`; exactly one storage version.
//!
//! Run: `cargo test --test jump_host crd_rules`.

use mosk_console::sim::registry::Registry;
use serde_json::Value;

const ANNOTATION: &str = "api-approved.kubernetes.io";

fn protected(group: &str) -> bool {
    group == "k8s.io"
        || group == "kubernetes.io"
        || group.ends_with(".k8s.io")
        || group.ends_with(".kubernetes.io")
}

fn name(crd: &Value) -> String {
    crd.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string()
}

/// What a real server would refuse about the group and its annotation.
fn group_problems(crd: &Value) -> Vec<String> {
    let group = crd
        .pointer("/spec/group")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let approval = crd
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(ANNOTATION))
        .and_then(Value::as_str);
    let mut out = Vec::new();
    match (protected(group), approval) {
        (true, None) => out.push(format!(
            "{}: group {group} is protected and the CRD has no {ANNOTATION} annotation",
            name(crd)
        )),
        (true, Some(v)) if !(v.starts_with("unapproved") || v.starts_with("https://")) => {
            out.push(format!(
                "{}: {ANNOTATION} is {v:?}, neither a URL nor \"unapproved…\"",
                name(crd)
            ))
        }
        (false, Some(_)) => out.push(format!(
            "{}: group {group} is not protected and must not carry {ANNOTATION}",
            name(crd)
        )),
        _ => {}
    }
    out
}

/// Where a schema node is not structural (see the module text).
fn structural_problems(node: &Value, path: &str, out: &mut Vec<String>) {
    let Some(obj) = node.as_object() else {
        out.push(format!("{path}: not an object"));
        return;
    };
    let escaped = obj.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
        || obj.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    let ty = obj.get("type").and_then(Value::as_str);
    if ty.is_none() && !escaped {
        out.push(format!("{path}: no type"));
    }
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        if ty != Some("object") {
            out.push(format!("{path}: properties without type: object"));
        }
        for (k, v) in props {
            structural_problems(v, &format!("{path}.{k}"), out);
        }
    }
    if let Some(items) = obj.get("items") {
        if ty != Some("array") {
            out.push(format!("{path}: items without type: array"));
        }
        structural_problems(items, &format!("{path}[]"), out);
    }
    if let Some(extra) = obj.get("additionalProperties").filter(|v| v.is_object()) {
        structural_problems(extra, &format!("{path}{{*}}"), out);
    }
}

fn schema_problems(crd: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let versions = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if versions.is_empty() {
        out.push(format!("{}: no versions", name(crd)));
    }
    let storage = versions
        .iter()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .count();
    if storage != 1 {
        out.push(format!(
            "{}: {storage} storage versions, not one",
            name(crd)
        ));
    }
    for v in &versions {
        let vname = v.get("name").and_then(Value::as_str).unwrap_or("?");
        let at = format!("{} {vname}", name(crd));
        let Some(schema) = v.pointer("/schema/openAPIV3Schema") else {
            out.push(format!("{at}: no schema.openAPIV3Schema"));
            continue;
        };
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            out.push(format!("{at}: the root is not type: object"));
        }
        if let Some(meta) = schema.pointer("/properties/metadata/properties")
            && let Some(m) = meta.as_object()
            && m.keys().any(|k| k != "name" && k != "generateName")
        {
            out.push(format!(
                "{at}: metadata specifies more than name and generateName"
            ));
        }
        structural_problems(schema, &format!("{at} schema"), &mut out);
    }
    out
}

fn every_served_crd() -> Vec<Value> {
    let mut all = Registry::mgmt().crds().to_vec();
    all.extend(Registry::mosk().crds().iter().cloned());
    all
}

#[test]
fn every_served_crd_in_a_protected_group_carries_the_approval_annotation() {
    let crds = every_served_crd();
    assert!(crds.len() >= 13, "only {} CRDs", crds.len());
    // The provider Machine is the one in a protected group today.
    assert!(crds.iter().any(|c| name(c) == "machines.cluster.k8s.io"));
    let problems: Vec<String> = crds.iter().flat_map(group_problems).collect();
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn every_served_crd_has_a_structural_schema_and_one_storage_version() {
    let problems: Vec<String> = every_served_crd()
        .iter()
        .flat_map(schema_problems)
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_rules_catch_what_a_real_server_refuses() {
    // A protected group without the annotation, as the Machine CRD was.
    let bare: Value = serde_json::json!({
        "metadata": {"name": "machines.cluster.k8s.io"},
        "spec": {"group": "cluster.k8s.io"}
    });
    assert_eq!(group_problems(&bare).len(), 1);
    let foreign: Value = serde_json::json!({
        "metadata": {"name": "x.example.com", "annotations": {ANNOTATION: "unapproved"}},
        "spec": {"group": "example.com"}
    });
    assert_eq!(group_problems(&foreign).len(), 1);
    let untyped: Value = serde_json::json!({
        "metadata": {"name": "x.example.com"},
        "spec": {"group": "example.com", "versions": [{"name": "v1", "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"properties": {"a": {}}}}}}}]}
    });
    let problems = schema_problems(&untyped);
    assert_eq!(problems.len(), 3, "{problems:#?}");
}
