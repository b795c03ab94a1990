//! What else blocks a node: a NodeDeletionRequest (the node
//! is being removed), a NodeDisableNotification or a disabled Machine (taken
//! out of the update), an LCMMachine whose LCM operation is stuck or whose
//! Kubernetes drain failed. Each is an attention item naming the machine and
//! shows in the machine's detail ([`for_machine`]).

use jiff::Timestamp;

use super::{AttentionItem, AttentionKind, machine_for_node, quote};
use crate::domain::history::{History, Since};
use crate::domain::join::same_node;
use crate::domain::objects::{DrainError, Kind, Machine, Notable, Object, ObjectKey, Snapshot};

/// What a disabled machine means (reference §5.3 [C: D-DIS], shortened).
pub const DISABLED_MEANS: &str =
    "ignored by the update; HA of some components may be degraded until it is replaced";

/// The node-removal texts Rockoon writes on the node's workload lock while a
/// NodeDeletionRequest waits (reference §5.2 [C-code]); matched as parts.
const REMOVAL_TEXTS: [&str; 3] = [
    "Blocking node removal unless they removed or migrated",
    "on a host to be deleted",
    "Deffer OpenStack service metadata removal",
];

/// The node's workload-lock messages that are about its removal, quoted.
fn removal_messages(snap: &Snapshot, node: &str) -> Vec<String> {
    snap.on_node(node)
        .filter_map(|o| match o {
            Object::NodeWorkloadLock(l) => l.error_message.as_ref(),
            _ => None,
        })
        .map(|m| m.parsed().text.as_str())
        .filter(|t| REMOVAL_TEXTS.iter().any(|r| t.contains(r)))
        .map(quote)
        .collect()
}

fn notice_key(kind: Kind, name: &str) -> ObjectKey {
    ObjectKey {
        kind,
        namespace: String::new(),
        name: name.to_string(),
    }
}

/// Every blocker item.
pub(super) fn blockers(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    out: &mut Vec<AttentionItem>,
) {
    let since = |key: &ObjectKey, created: Option<Timestamp>| {
        created.or(history.first_seen(key)).unwrap_or(now)
    };
    for r in snap.deletion_requests() {
        let key = notice_key(Kind::NodeDeletionRequest, &r.name);
        let node = &r.node_name;
        // [I] A summary of what Rockoon does on a NodeDeletionRequest
        // (reference §5.2, from its code): it releases the node's lock once
        // no server or volume is left on it.
        let mut why = format!(
            "NodeDeletionRequest {}: node {node} is being removed; the controllers release it once its workloads are gone",
            r.name
        );
        let says = removal_messages(snap, node);
        if !says.is_empty() {
            why.push_str(&format!("; its lock says {}", says.join(", ")));
        }
        out.push(AttentionItem {
            kind: AttentionKind::NodeRemoval,
            subject: machine_for_node(snap, node).unwrap_or_else(|| node.clone()),
            node: Some(node.clone()),
            why,
            since: since(&key, r.created),
            action: None,
            key,
            at_least: false,
            since_inferred: None,
            symptoms: Vec::new(),
            unraised_since: None,
        });
    }
    // A disabled machine: its Machine's `disable` flag [W], or LCM's
    // NodeDisableNotification for its node. One item per machine.
    struct Disabled {
        subject: String,
        node: Option<String>,
        evidence: String,
        key: ObjectKey,
        created: Option<Timestamp>,
    }
    let mut disabled: Vec<Disabled> = Vec::new();
    let flagged_disabled = snap
        .notable(Notable::MachineDisabled)
        .filter_map(|o| match o {
            Object::ProviderMachine(pm) if pm.disabled => Some(pm),
            _ => None,
        });
    for pm in flagged_disabled {
        // [I] The provider Machine is named like its LCMMachine.
        let node = snap
            .of_machine(&pm.name)
            .find_map(|o| match o {
                Object::Machine(m) => Some(m),
                _ => None,
            })
            .and_then(|m| m.hostname.clone());
        let key = ObjectKey::new(Kind::ProviderMachine, &pm.namespace, &pm.name);
        disabled.push(Disabled {
            subject: pm.name.clone(),
            node,
            evidence: "Machine spec.providerSpec.value.disable is true".to_string(),
            key,
            created: None,
        });
    }
    for n in snap.disable_notifications() {
        let subject = machine_for_node(snap, &n.node_name).unwrap_or_else(|| n.node_name.clone());
        let what = format!("NodeDisableNotification {} for its node", n.name);
        if let Some(d) = disabled.iter_mut().find(|d| d.subject == subject) {
            d.evidence.push_str(&format!("; {what}"));
            d.created = n.created;
            continue;
        }
        disabled.push(Disabled {
            subject,
            node: Some(n.node_name.clone()),
            evidence: what,
            key: notice_key(Kind::NodeDisableNotification, &n.name),
            created: n.created,
        });
    }
    for Disabled {
        subject,
        node,
        evidence,
        key,
        created,
    } in disabled
    {
        out.push(AttentionItem {
            kind: AttentionKind::MachineDisabled,
            subject,
            node,
            why: format!("{DISABLED_MEANS} ({evidence})"),
            since: since(&key, created),
            action: None,
            key,
            at_least: false,
            since_inferred: None,
            symptoms: Vec::new(),
            unraised_since: None,
        });
    }
    // The machines LCM reports trouble on, as the snapshot flagged them
    // (not a read of every machine: 2,000 on `large`).
    let troubled = snap
        .notable(Notable::MachineTrouble)
        .filter_map(|o| match o {
            Object::Machine(m) => Some(m),
            _ => None,
        });
    for m in troubled {
        let err = m.drain_error.as_ref();
        if !m.operation_stuck && err.is_none() {
            continue;
        }
        // The machine's key, without cloning the machine into an Object.
        let key = ObjectKey {
            kind: Kind::LcmMachine,
            namespace: m.namespace.clone(),
            name: m.name.clone(),
        };
        // Each since the console saw LCM report it (its first sight of the
        // machine when it was already so: at least that long); never since
        // the machine's turn, which began before the drain failed.
        let reported = |s: Option<Since>| (s.map_or(now, |s| s.at), s.is_some_and(|s| !s.observed));
        if m.operation_stuck {
            let (since, at_least) = reported(history.operation_stuck_since(&m.name));
            out.push(AttentionItem {
                kind: AttentionKind::OperationStuck,
                subject: m.name.clone(),
                node: m.hostname.clone(),
                why: format!(
                    "LCM reports an operation stuck on this machine (LCMMachine status.lcmOperationStuck) in state {}: read its cluster states and the lcm-controller log",
                    m.state
                ),
                since,
                at_least,
                since_inferred: None,
                action: None,
                key: key.clone(),
                symptoms: Vec::new(),
                unraised_since: None,
            });
        }
        if let Some(err) = err {
            // Seen to appear: exact. Already there at first sight: a drain
            // that ran out of time failed first at the node's cordon plus
            // that time (inferred: no object records when), else at least
            // since the first sight.
            let seen = history.drain_failed_since(&m.name);
            let (since, at_least, since_inferred) = match (seen, timed_out_at(snap, m, err)) {
                (Some(s), _) if s.observed => (s.at, false, None),
                (Some(s), Some(t)) if t <= s.at => (t, false, Some(DRAIN_FAILED_AT)),
                (None, Some(t)) => (t, false, Some(DRAIN_FAILED_AT)),
                _ => {
                    let (since, at_least) = reported(seen);
                    (since, at_least, None)
                }
            };
            out.push(AttentionItem {
                kind: AttentionKind::DrainError,
                subject: m.name.clone(),
                node: m.hostname.clone(),
                why: format!(
                    "the Kubernetes drain of its node failed (LCMMachine status.kubernetesCordonDrainError): {}",
                    quote(err.as_str())
                ),
                since,
                at_least,
                since_inferred,
                action: None,
                key,
                symptoms: Vec::new(),
                unraised_since: None,
            });
        }
    }
}

/// How a drain failure's time is inferred when the console did not see it
/// appear ([`timed_out_at`]).
const DRAIN_FAILED_AT: &str = "from the node's cordon time + the drain timeout its error names: no object records when the drain failed";

/// When the Kubernetes drain of `m`'s node first ran out of time: the
/// node's cordon (its unschedulable taint's `timeAdded`) plus the global
/// timeout the error names. [I] That LCM cordons the node and then drains
/// it with kubectl's drain helper, whose timeout counts from the start of
/// the evictions (`Helper.evictPods`, kubernetes/kubectl
/// `pkg/drain/drain.go`, read at dee3483a), is inferred from its error
/// texts; a cordon taint without `timeAdded` gives nothing.
fn timed_out_at(snap: &Snapshot, m: &Machine, err: &DrainError) -> Option<Timestamp> {
    let timeout = err.failure().timeout?;
    let host = m.hostname.as_deref()?;
    let cordoned = snap.on_node(host).find_map(|o| match o {
        Object::Node(n) if same_node(&n.name, host) => n.cordoned_at,
        _ => None,
    })?;
    cordoned.checked_add(timeout).ok()
}

/// The blocker items about one machine (by name) or its node, for the
/// machine's detail.
pub fn for_machine(snap: &Snapshot, machine: &str, node: Option<&str>) -> Vec<AttentionItem> {
    let mut items = Vec::new();
    // The detail shows no ages: any time will do.
    blockers(snap, &History::new(), Timestamp::UNIX_EPOCH, &mut items);
    items.retain(|i| {
        i.subject == machine
            || node.is_some_and(|n| i.node.as_deref().is_some_and(|x| same_node(x, n)))
    });
    items
}

#[cfg(test)]
#[path = "blockers_tests.rs"]
mod tests;
