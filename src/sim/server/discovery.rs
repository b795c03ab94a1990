//! Legacy discovery documents and `/version`. Aggregated discovery requests
//! get these plain `application/json` answers, which clients accept as legacy.

use serde_json::{Value, json};

use crate::sim::registry::Registry;

/// Groups served by the server itself rather than the store.
const REVIEW_GROUPS: &[(&str, &str, &str)] = &[
    (
        "authorization.k8s.io",
        "selfsubjectaccessreviews",
        "SelfSubjectAccessReview",
    ),
    (
        "authentication.k8s.io",
        "selfsubjectreviews",
        "SelfSubjectReview",
    ),
];

/// `/version`.
pub fn version(minor: u32) -> Value {
    json!({
        "major": "1",
        "minor": minor.to_string(),
        "gitVersion": format!("v1.{minor}.0"),
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.22.0",
        "compiler": "gc",
        "platform": "linux/amd64"
    })
}

/// `/api`.
pub fn core_versions() -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]
    })
}

fn group_doc(name: &str, versions: &[String]) -> Value {
    let vs: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    json!({
        "name": name,
        "versions": vs,
        "preferredVersion": vs.first().cloned().unwrap_or(Value::Null),
    })
}

fn all_groups(reg: &Registry) -> Vec<(String, Vec<String>)> {
    let mut groups = reg.groups();
    for (g, _, _) in REVIEW_GROUPS {
        groups.push((g.to_string(), vec!["v1".to_string()]));
    }
    groups
}

/// `/apis`.
pub fn groups(reg: &Registry) -> Value {
    let groups: Vec<Value> = all_groups(reg)
        .iter()
        .map(|(g, vs)| group_doc(g, vs))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`, or `None` when the group is not served.
pub fn group(reg: &Registry, name: &str) -> Option<Value> {
    let (g, vs) = all_groups(reg).into_iter().find(|(g, _)| g == name)?;
    let mut doc = group_doc(&g, &vs);
    doc["kind"] = json!("APIGroup");
    doc["apiVersion"] = json!("v1");
    Some(doc)
}

/// `/api/v1` or `/apis/{group}/{version}`, or `None` when not served.
pub fn resources(reg: &Registry, group: &str, version: &str) -> Option<Value> {
    let group_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    let mut list = Vec::new();
    for r in reg
        .all()
        .iter()
        .filter(|r| r.group == group && r.version == version)
    {
        let mut doc = json!({
            "name": r.plural,
            "singularName": r.singular,
            "namespaced": r.namespaced,
            "kind": r.kind,
            "verbs": r.verbs,
        });
        if !r.short_names.is_empty() {
            doc["shortNames"] = json!(r.short_names);
        }
        if r.builtin && matches!(r.plural.as_str(), "pods" | "daemonsets") {
            doc["categories"] = json!(["all"]);
        }
        list.push(doc);
        for sub in &r.subresources {
            let (kind, verbs) = match sub.as_str() {
                "log" => ("Pod", json!(["get"])),
                "exec" => ("PodExecOptions", json!(["create", "get"])),
                _ => (r.kind.as_str(), json!(["get", "patch", "update"])),
            };
            list.push(json!({
                "name": format!("{}/{sub}", r.plural),
                "singularName": "",
                "namespaced": r.namespaced,
                "kind": kind,
                "verbs": verbs,
            }));
        }
    }
    for (g, plural, kind) in REVIEW_GROUPS {
        if *g == group && version == "v1" {
            list.push(json!({
                "name": plural, "singularName": kind.to_lowercase(), "namespaced": false,
                "kind": kind, "verbs": ["create"],
            }));
        }
    }
    if list.is_empty() {
        return None;
    }
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": list,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mosk_discovery_lists_locks_and_daemonsets() {
        let reg = Registry::mosk();
        let lcm = resources(&reg, "lcm.mirantis.com", "v1alpha1").unwrap();
        let names: Vec<&str> = lcm["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"nodeworkloadlocks"));
        assert!(names.contains(&"nodeworkloadlocks/status"));
        let apps = resources(&reg, "apps", "v1").unwrap();
        assert_eq!(apps["resources"][0]["shortNames"][0], "ds");
        let core = resources(&reg, "", "v1").unwrap();
        assert!(
            core["resources"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["name"] == "pods/log")
        );
        assert!(resources(&reg, "nope", "v1").is_none());
        assert!(group(&reg, "authorization.k8s.io").is_some());
        let g = groups(&reg);
        assert!(
            g["groups"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["name"] == "lcm.mirantis.com")
        );
    }
}
