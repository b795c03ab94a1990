//! Cells of the built-in kinds, as the apiserver's printers fill them.

use jiff::Timestamp;
use serde_json::{Value, json};

use super::{age, human_duration};
use crate::sim::store::objects::{meta_str, parse_ts};

pub(super) fn s<'a>(obj: &'a Value, ptr: &str) -> Option<&'a str> {
    obj.pointer(ptr)
        .and_then(Value::as_str)
        .filter(|x| !x.is_empty())
}

fn n(obj: &Value, ptr: &str) -> Value {
    json!(obj.pointer(ptr).and_then(Value::as_i64).unwrap_or(0))
}

fn none_or(v: Option<String>) -> Value {
    json!(
        v.filter(|x| !x.is_empty())
            .unwrap_or_else(|| "<none>".into())
    )
}

fn join_map(m: Option<&Value>) -> Option<String> {
    let m = m?.as_object()?;
    let mut parts: Vec<String> = m
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    parts.sort();
    Some(parts.join(","))
}

pub(super) fn node_cells(o: &Value, now: Timestamp) -> Vec<Value> {
    let ready = o
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Ready"));
    let mut status = vec![match ready {
        Some(c) if c["status"] == "True" => "Ready".to_string(),
        Some(_) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    }];
    if o.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push("SchedulingDisabled".into());
    }
    let mut roles: Vec<String> = o
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|l| {
            l.iter()
                .filter_map(|(k, v)| {
                    if let Some(r) = k.strip_prefix("node-role.kubernetes.io/") {
                        (!r.is_empty()).then(|| r.to_string())
                    } else if k == "kubernetes.io/role" {
                        v.as_str().map(str::to_string)
                    } else {
                        None
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    roles.sort();
    roles.dedup();
    let addr = |t: &str| {
        o.pointer("/status/addresses")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().find(|x| x["type"] == t))
            .and_then(|x| x["address"].as_str())
            .map(str::to_string)
    };
    let info = |f: &str| json!(s(o, &format!("/status/nodeInfo/{f}")).unwrap_or("<unknown>"));
    vec![
        json!(status.join(",")),
        none_or(Some(roles.join(","))),
        age(o, now),
        json!(s(o, "/status/nodeInfo/kubeletVersion").unwrap_or_default()),
        none_or(addr("InternalIP")),
        none_or(addr("ExternalIP")),
        info("osImage"),
        info("kernelVersion"),
        info("containerRuntimeVersion"),
    ]
}

pub(super) fn pod_cells(o: &Value, now: Timestamp) -> Vec<Value> {
    let total = o
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let statuses: Vec<&Value> = o
        .pointer("/status/containerStatuses")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let ready = statuses.iter().filter(|c| c["ready"] == true).count();
    let mut restarts = 0i64;
    let mut last_restart: Option<Timestamp> = None;
    let mut reason = s(o, "/status/reason")
        .or(s(o, "/status/phase"))
        .unwrap_or("Pending")
        .to_string();
    let mut running = false;
    for c in statuses.iter().rev() {
        restarts += c["restartCount"].as_i64().unwrap_or(0);
        if let Some(t) = c
            .pointer("/lastState/terminated/finishedAt")
            .and_then(Value::as_str)
            .and_then(parse_ts)
        {
            last_restart = Some(last_restart.map_or(t, |l| l.max(t)));
        }
        if let Some(r) = s(c, "/state/waiting/reason") {
            reason = r.to_string();
        } else if let Some(r) = s(c, "/state/terminated/reason") {
            reason = r.to_string();
        } else if let Some(code) = c
            .pointer("/state/terminated/exitCode")
            .and_then(Value::as_i64)
        {
            reason = format!("ExitCode:{code}");
        } else if c["ready"] == true && c.pointer("/state/running").is_some() {
            running = true;
        }
    }
    if reason == "Completed" && running {
        reason = "Running".into();
    }
    if meta_str(o, "deletionTimestamp").is_some() {
        reason = if s(o, "/status/reason") == Some("NodeLost") {
            "Unknown".into()
        } else {
            "Terminating".into()
        };
    }
    let restarts_cell = match last_restart {
        Some(t) if restarts > 0 => format!(
            "{restarts} ({} ago)",
            human_duration(now.as_second() - t.as_second())
        ),
        _ => restarts.to_string(),
    };
    vec![
        json!(format!("{ready}/{total}")),
        json!(reason),
        json!(restarts_cell),
        age(o, now),
        none_or(s(o, "/status/podIP").map(str::to_string)),
        none_or(s(o, "/spec/nodeName").map(str::to_string)),
        none_or(s(o, "/status/nominatedNodeName").map(str::to_string)),
        json!("<none>"),
    ]
}

pub(super) fn daemonset_cells(o: &Value, now: Timestamp) -> Vec<Value> {
    let containers: Vec<&Value> = o
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let names: Vec<&str> = containers
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    let images: Vec<&str> = containers
        .iter()
        .filter_map(|c| c["image"].as_str())
        .collect();
    vec![
        n(o, "/status/desiredNumberScheduled"),
        n(o, "/status/currentNumberScheduled"),
        n(o, "/status/numberReady"),
        n(o, "/status/updatedNumberScheduled"),
        n(o, "/status/numberAvailable"),
        none_or(join_map(o.pointer("/spec/template/spec/nodeSelector"))),
        age(o, now),
        json!(names.join(",")),
        json!(images.join(",")),
        none_or(join_map(o.pointer("/spec/selector/matchLabels"))),
    ]
}
