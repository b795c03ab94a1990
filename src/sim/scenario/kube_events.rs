//! Kubernetes `Event`s (core/v1) the simulated MOSK cluster records, as a
//! kubelet and the node lifecycle controller would: a node going NotReady
//! when it reboots, and "Rebooted" / "NodeReady" when it comes back.
//! Reasons and messages are the upstream ones; when exactly MOSK nodes emit
//! them is inferred.

use jiff::Timestamp;
use serde_json::{Value, json};

use super::engine::check;
use super::objects::{stable_hex, stable_uuid};
use super::text::k8s_time;
use crate::sim::store::Store;

/// Namespace of the events about cluster-scoped objects (Nodes).
pub const NODE_EVENTS_NS: &str = "default";

/// Who reports an event.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    Kubelet,
    NodeController,
}

impl Source {
    fn component(self) -> &'static str {
        match self {
            Source::Kubelet => "kubelet",
            Source::NodeController => "node-controller",
        }
    }
}

/// A Node event: `<node>.<hex>` in `default`, as `kubectl get events` shows them.
pub fn node_event(
    node: &str,
    source: Source,
    type_: &str,
    reason: &str,
    message: &str,
    now: Timestamp,
) -> Value {
    let t = k8s_time(now);
    let name = format!(
        "{node}.{}",
        stable_hex(&format!("{reason}:{}", now.as_nanosecond()), 16)
    );
    let mut source_obj = json!({"component": source.component()});
    if matches!(source, Source::Kubelet) {
        source_obj["host"] = node.into();
    }
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": NODE_EVENTS_NS},
        "involvedObject": {"kind": "Node", "apiVersion": "v1", "name": node,
                           "uid": stable_uuid(&format!("node-uid:{node}"))},
        "reason": reason,
        "message": message,
        "source": source_obj,
        "type": type_,
        "count": 1,
        "firstTimestamp": t,
        "lastTimestamp": t,
        "eventTime": null,
        "reportingComponent": source.component(),
        "reportingInstance": if matches!(source, Source::Kubelet) { node } else { "" }
    })
}

/// Records a Node event in `store`.
pub fn record_node_event(
    store: &Store,
    node: &str,
    source: Source,
    type_: &str,
    reason: &str,
    message: &str,
    now: Timestamp,
) {
    check(
        store.create(
            "events",
            node_event(node, source, type_, reason, message, now),
        ),
        "create Event",
    );
}
