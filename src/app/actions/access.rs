//! What the console knows about the user's RBAC: one SelfSubjectAccessReview
//! answer per permission, kept for a few minutes. `update` reads it to show
//! actions as available or not; the executor asks the server.

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};

use crate::app::actions::registry::{ActionId, Permission};
use crate::domain::objects::ClusterId;

/// How long an answer is trusted before the server is asked again.
pub const ACCESS_TTL: SignedDuration = SignedDuration::from_secs(180);
/// A question that could not be asked is asked again sooner.
pub const UNKNOWN_TTL: SignedDuration = SignedDuration::from_secs(15);

/// One question for SelfSubjectAccessReview.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AccessKey {
    pub cluster: ClusterId,
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub namespace: Option<String>,
}

impl AccessKey {
    pub fn of(cluster: ClusterId, p: &Permission) -> AccessKey {
        AccessKey {
            cluster,
            verb: p.verb.to_string(),
            group: p.group.to_string(),
            resource: p.resource.to_string(),
            namespace: p.namespace.map(str::to_string),
        }
    }

    pub fn for_action(action: ActionId) -> AccessKey {
        let s = action.spec();
        AccessKey::of(s.cluster, &s.permission)
    }

    /// `delete pods in tf` / `patch nodes`.
    pub fn describe(&self) -> String {
        let res = if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        };
        match &self.namespace {
            Some(ns) => format!("{} {res} in {ns}", self.verb),
            None => format!("{} {res}", self.verb),
        }
    }
}

/// The server's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessVerdict {
    Allowed,
    /// Denied, with the server's reason (may be empty).
    Denied(String),
    /// The question could not be asked (network, API error).
    Unknown(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessEntry {
    pub verdict: AccessVerdict,
    pub at: Timestamp,
}

/// Cached answers, plus the questions in flight.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AccessCache {
    pub entries: BTreeMap<AccessKey, AccessEntry>,
    pub pending: Vec<AccessKey>,
}

/// Whether an action may be offered now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    Available,
    /// Not yet known (the server is being asked).
    Checking,
    Unavailable(String),
}

impl AccessCache {
    pub fn record(&mut self, key: AccessKey, verdict: AccessVerdict, at: Timestamp) {
        self.pending.retain(|k| k != &key);
        self.entries.insert(key, AccessEntry { verdict, at });
    }

    /// The fresh answer for `key`, if any.
    pub fn fresh(&self, key: &AccessKey, now: Timestamp) -> Option<&AccessVerdict> {
        self.entries
            .get(key)
            .filter(|e| {
                let ttl = match e.verdict {
                    AccessVerdict::Unknown(_) => UNKNOWN_TTL,
                    _ => ACCESS_TTL,
                };
                now.duration_since(e.at) < ttl
            })
            .map(|e| &e.verdict)
    }

    /// The keys among `keys` that need asking (no fresh answer, not in flight);
    /// marks them in flight.
    pub fn due(&mut self, keys: &[AccessKey], now: Timestamp) -> Vec<AccessKey> {
        let mut out = Vec::new();
        for k in keys {
            if self.fresh(k, now).is_none() && !self.pending.contains(k) && !out.contains(k) {
                out.push(k.clone());
            }
        }
        self.pending.extend(out.iter().cloned());
        out
    }

    pub fn availability(&self, key: &AccessKey, now: Timestamp) -> Availability {
        match self.fresh(key, now) {
            Some(AccessVerdict::Allowed) => Availability::Available,
            Some(AccessVerdict::Denied(reason)) => {
                Availability::Unavailable(if reason.is_empty() {
                    format!("your RBAC does not allow {}", key.describe())
                } else {
                    format!("your RBAC does not allow {}: {reason}", key.describe())
                })
            }
            Some(AccessVerdict::Unknown(e)) => Availability::Unavailable(format!(
                "could not check whether you may {}: {e}",
                key.describe()
            )),
            None => Availability::Checking,
        }
    }
}

/// Every permission the registry's actions need, once each.
pub fn all_keys() -> Vec<AccessKey> {
    let mut keys: Vec<AccessKey> = Vec::new();
    for a in ActionId::ALL {
        let k = AccessKey::for_action(a);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Timestamp {
        Timestamp::from_second(1_700_000_000 + s).unwrap()
    }

    #[test]
    fn answers_expire_and_are_asked_once() {
        let mut c = AccessCache::default();
        let k = AccessKey::for_action(ActionId::RestartVrouter);
        assert_eq!(c.due(std::slice::from_ref(&k), t(0)), vec![k.clone()]);
        assert!(
            c.due(std::slice::from_ref(&k), t(1)).is_empty(),
            "in flight"
        );
        assert_eq!(c.availability(&k, t(1)), Availability::Checking);
        c.record(
            k.clone(),
            AccessVerdict::Denied("no RBAC policy matched".into()),
            t(2),
        );
        match c.availability(&k, t(3)) {
            Availability::Unavailable(r) => {
                assert!(
                    r.contains("delete pods in tf") && r.contains("no RBAC policy matched"),
                    "{r}"
                )
            }
            other => panic!("{other:?}"),
        }
        assert!(
            c.due(std::slice::from_ref(&k), t(100)).is_empty(),
            "still fresh"
        );
        assert_eq!(
            c.due(std::slice::from_ref(&k), t(200)),
            vec![k.clone()],
            "expired"
        );
    }

    #[test]
    fn all_keys_cover_nodes_and_pods() {
        let keys: Vec<String> = all_keys().iter().map(AccessKey::describe).collect();
        assert_eq!(keys, vec!["patch nodes", "delete pods in tf"]);
    }
}
