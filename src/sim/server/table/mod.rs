//! `meta.k8s.io/v1 Table` answers, so `kubectl get` prints what it prints
//! against a real apiserver: CRD printer columns, and the usual columns for
//! nodes, pods, daemonsets and namespaces. Ages use the simulator clock.

use jiff::Timestamp;
use serde_json::{Value, json};

mod builtin;

use super::jsonpath;
use crate::sim::registry::{PrinterColumn, ResourceInfo};
use crate::sim::store::objects::{meta_str, parse_ts};
use builtin::{daemonset_cells, node_cells, pod_cells, s};

/// Which object each row carries (`includeObject`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncludeObject {
    None,
    Metadata,
    Object,
}

impl IncludeObject {
    pub fn parse(s: &str) -> Option<IncludeObject> {
        match s {
            "" | "Metadata" => Some(IncludeObject::Metadata),
            "None" => Some(IncludeObject::None),
            "Object" => Some(IncludeObject::Object),
            _ => None,
        }
    }
}

const NAME_DESC: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const AGE_DESC: &str =
    "CreationTimestamp is a timestamp representing the server time when this object was created.";

fn col(name: &str, type_: &str, priority: u32, description: &str) -> PrinterColumn {
    PrinterColumn {
        name: name.into(),
        type_: type_.into(),
        format: if name == "Name" {
            "name".into()
        } else {
            String::new()
        },
        description: description.into(),
        priority,
        json_path: String::new(),
    }
}

/// The columns of a resource's table, Name first.
pub fn columns(info: &ResourceInfo) -> Vec<PrinterColumn> {
    let mut out = vec![col("Name", "string", 0, NAME_DESC)];
    let c = |n: &str, t: &str, p: u32| col(n, t, p, "");
    if !info.builtin {
        if info.printer_columns.is_empty() {
            out.push(col("Age", "date", 0, AGE_DESC));
        } else {
            out.extend(info.printer_columns.iter().cloned());
        }
        return out;
    }
    match info.plural.as_str() {
        "nodes" => out.extend([
            c("Status", "string", 0),
            c("Roles", "string", 0),
            col("Age", "string", 0, AGE_DESC),
            c("Version", "string", 0),
            c("Internal-IP", "string", 1),
            c("External-IP", "string", 1),
            c("OS-Image", "string", 1),
            c("Kernel-Version", "string", 1),
            c("Container-Runtime", "string", 1),
        ]),
        "pods" => out.extend([
            c("Ready", "string", 0),
            c("Status", "string", 0),
            c("Restarts", "string", 0),
            col("Age", "string", 0, AGE_DESC),
            c("IP", "string", 1),
            c("Node", "string", 1),
            c("Nominated Node", "string", 1),
            c("Readiness Gates", "string", 1),
        ]),
        "daemonsets" => out.extend([
            c("Desired", "integer", 0),
            c("Current", "integer", 0),
            c("Ready", "integer", 0),
            c("Up-to-date", "integer", 0),
            c("Available", "integer", 0),
            c("Node Selector", "string", 0),
            col("Age", "string", 0, AGE_DESC),
            c("Containers", "string", 1),
            c("Images", "string", 1),
            c("Selector", "string", 1),
        ]),
        "namespaces" => out.extend([c("Status", "string", 0), col("Age", "string", 0, AGE_DESC)]),
        _ => out.push(col("Created At", "date", 0, AGE_DESC)),
    }
    out
}

/// The JSON `columnDefinitions`.
pub fn column_definitions(info: &ResourceInfo) -> Vec<Value> {
    columns(info)
        .iter()
        .map(|c| {
            json!({"name": c.name, "type": c.type_, "format": c.format,
                   "description": c.description, "priority": c.priority})
        })
        .collect()
}

/// Kubernetes' `HumanDuration`: 45s, 3m20s, 15m, 5h10m, 2d3h, 400d, 3y.
pub fn human_duration(secs: i64) -> String {
    if secs < -1 {
        return "<invalid>".into();
    }
    let secs = secs.max(0);
    if secs < 120 {
        return format!("{secs}s");
    }
    let minutes = secs / 60;
    if minutes < 10 {
        let s = secs % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{dy}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

fn age_of(ts: Option<&str>, now: Timestamp) -> String {
    match ts.and_then(parse_ts) {
        Some(t) => human_duration(now.as_second() - t.as_second()),
        None => "<unknown>".into(),
    }
}

fn age(obj: &Value, now: Timestamp) -> Value {
    json!(age_of(meta_str(obj, "creationTimestamp"), now))
}

/// A CRD printer column's cell, as the apiextensions table convertor renders it.
fn custom_cell(c: &PrinterColumn, o: &Value, now: Timestamp) -> Value {
    let Some(v) = jsonpath::select(o, &c.json_path).into_iter().next() else {
        return Value::Null;
    };
    match (c.type_.as_str(), v) {
        ("date", Value::String(ts)) => json!(age_of(Some(ts), now)),
        (_, Value::String(_) | Value::Number(_) | Value::Bool(_)) => v.clone(),
        (_, Value::Null) => Value::Null,
        (_, other) => json!(other.to_string()),
    }
}

/// The cells of one object's row (the Name cell first).
pub fn cells(info: &ResourceInfo, o: &Value, now: Timestamp) -> Vec<Value> {
    let mut out = vec![json!(meta_str(o, "name").unwrap_or_default())];
    if !info.builtin {
        for c in columns(info).iter().skip(1) {
            if c.json_path.is_empty() {
                out.push(age(o, now));
            } else {
                out.push(custom_cell(c, o, now));
            }
        }
        return out;
    }
    match info.plural.as_str() {
        "nodes" => out.extend(node_cells(o, now)),
        "pods" => out.extend(pod_cells(o, now)),
        "daemonsets" => out.extend(daemonset_cells(o, now)),
        "namespaces" => out.extend([
            json!(s(o, "/status/phase").unwrap_or("Active")),
            age(o, now),
        ]),
        _ => out.push(json!(meta_str(o, "creationTimestamp").unwrap_or_default())),
    }
    out
}

/// The object's metadata as a `PartialObjectMetadata`.
pub fn partial_metadata(o: &Value) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": o.get("metadata").cloned().unwrap_or_else(|| json!({})),
    })
}

/// One table row.
pub fn row(info: &ResourceInfo, o: &Value, now: Timestamp, include: IncludeObject) -> Value {
    let mut r = json!({"cells": cells(info, o, now)});
    match include {
        IncludeObject::None => {}
        IncludeObject::Metadata => r["object"] = partial_metadata(o),
        IncludeObject::Object => r["object"] = o.clone(),
    }
    r
}

/// A whole table; `with_columns` false leaves `columnDefinitions` empty
/// (watch events after the first, as the apiserver does).
pub fn table(
    info: &ResourceInfo,
    objs: &[Value],
    now: Timestamp,
    include: IncludeObject,
    metadata: Value,
    with_columns: bool,
) -> Value {
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
        "columnDefinitions": if with_columns { column_definitions(info) } else { Vec::new() },
        "rows": objs.iter().map(|o| row(info, o, now, include)).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::registry::Registry;

    fn now() -> Timestamp {
        "2026-01-01T01:00:00Z".parse().unwrap()
    }

    #[test]
    fn human_durations_match_kubernetes() {
        for (secs, want) in [
            (0, "0s"),
            (119, "119s"),
            (200, "3m20s"),
            (600, "10m"),
            (3 * 3600 + 60, "3h1m"),
            (10 * 3600, "10h"),
            (50 * 3600, "2d2h"),
            (30 * 86400, "30d"),
            (800 * 86400, "2y70d"),
        ] {
            assert_eq!(human_duration(secs), want, "{secs}");
        }
    }

    #[test]
    fn lcmmachine_columns_and_cells() {
        let reg = Registry::mgmt();
        let info = reg.find_plural("lcmmachines").unwrap();
        let names: Vec<String> = columns(info)
            .iter()
            .map(|c| c.name.to_uppercase())
            .collect();
        assert_eq!(names[..4], ["NAME", "CLUSTERNAME", "TYPE", "STATE"]);
        let m = json!({"metadata": {"name": "m1", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"clusterName": "child-cl", "type": "worker"},
            "status": {"state": "Ready", "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}]}});
        let c = cells(info, &m, now());
        assert_eq!(
            c[..5],
            [
                json!("m1"),
                json!("child-cl"),
                json!("worker"),
                json!("Ready"),
                json!("10.0.0.5")
            ]
        );
        assert_eq!(c[5], Value::Null);
    }

    #[test]
    fn lock_kinds_have_name_and_age() {
        let reg = Registry::mosk();
        let info = reg.find_plural("nodeworkloadlocks").unwrap();
        let names: Vec<String> = columns(info)
            .iter()
            .map(|c| c.name.to_uppercase())
            .collect();
        assert_eq!(names, ["NAME", "AGE"]);
        let l = json!({"metadata": {"name": "l", "creationTimestamp": "2026-01-01T00:55:00Z"}});
        assert_eq!(cells(info, &l, now()), [json!("l"), json!("5m")]);
    }

    #[test]
    fn pod_and_node_cells() {
        let reg = Registry::mosk();
        let pods = reg.find_plural("pods").unwrap();
        let p = json!({"metadata": {"name": "p", "creationTimestamp": "2026-01-01T00:00:00Z",
                                    "deletionTimestamp": "2026-01-01T01:00:30Z"},
            "spec": {"nodeName": "n1", "containers": [{"name": "agent"}]},
            "status": {"phase": "Running", "podIP": "10.1.1.1",
                       "containerStatuses": [{"name": "agent", "ready": true, "restartCount": 0, "state": {"running": {}}}]}});
        assert_eq!(
            cells(pods, &p, now()),
            [
                json!("p"),
                json!("1/1"),
                json!("Terminating"),
                json!("0"),
                json!("60m"),
                json!("10.1.1.1"),
                json!("n1"),
                json!("<none>"),
                json!("<none>")
            ]
        );
        let nodes = reg.find_plural("nodes").unwrap();
        let n = json!({"metadata": {"name": "n1", "creationTimestamp": "2026-01-01T00:00:00Z",
                                    "labels": {"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/master": ""}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": "v1.30.5"}}});
        let c = cells(nodes, &n, now());
        assert_eq!(
            c[..5],
            [
                json!("n1"),
                json!("Ready,SchedulingDisabled"),
                json!("control-plane,master"),
                json!("60m"),
                json!("v1.30.5")
            ]
        );
    }
}
