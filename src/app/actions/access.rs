//! What the console knows about the user's RBAC: one SelfSubjectAccessReview
//! answer per permission, kept for a few minutes. `update` reads it to show
//! actions as available or not; the executor asks the server.
//!
//! A review the server could not answer (404, 5xx, a timeout, an answer
//! without `status`) is not a denial: the permission is *unknown*, the action
//! is offered as "permission not verified: the server will decide", and the
//! server's own authorization of the write decides (a 403 then is shown as
//! any 403). Only a real `allowed: false` is a denial. The executor's cache
//! (`cluster/writes/executor.rs`) reads verdicts with the same rules: the
//! same lifetimes ([`AccessVerdict::ttl`]), and only `Denied` stops a plan.

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
    /// The question could not be answered (network, API error, timeout, an
    /// answer without `status`): why. Not a denial.
    Unknown(String),
}

/// What the dialog, the notices and the audit log say when a permission is unknown.
pub const NOT_VERIFIED: &str = "permission not verified: the server will decide";

impl AccessVerdict {
    /// How long this answer is trusted: an unknown one is asked again sooner.
    pub fn ttl(&self) -> SignedDuration {
        match self {
            AccessVerdict::Unknown(_) => UNKNOWN_TTL,
            _ => ACCESS_TTL,
        }
    }
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
    /// Offered, but the access review could not be answered (why): the
    /// server decides when the write is sent.
    NotVerified(String),
    /// Not yet known (the server is being asked).
    Checking,
    Unavailable(String),
}

impl Availability {
    /// Whether the action may be started and confirmed now.
    pub fn offered(&self) -> bool {
        matches!(self, Availability::Available | Availability::NotVerified(_))
    }
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
            .filter(|e| now.duration_since(e.at) < e.verdict.ttl())
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
            Some(AccessVerdict::Unknown(e)) => Availability::NotVerified(format!(
                "the access review for {} could not be answered: {e}",
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
    fn an_unanswered_review_offers_the_action_unverified_and_is_asked_again_sooner() {
        let mut c = AccessCache::default();
        let k = AccessKey::for_action(ActionId::AcknowledgeMigration);
        c.due(std::slice::from_ref(&k), t(0));
        c.record(
            k.clone(),
            AccessVerdict::Unknown(
                "404 NotFound: the server could not find the requested resource".into(),
            ),
            t(1),
        );
        let a = c.availability(&k, t(2));
        assert!(a.offered(), "{a:?}");
        match a {
            Availability::NotVerified(why) => assert!(
                why.contains("patch nodes") && why.contains("404 NotFound"),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
        assert!(
            c.due(std::slice::from_ref(&k), t(10)).is_empty(),
            "still fresh"
        );
        assert_eq!(
            c.due(std::slice::from_ref(&k), t(17)),
            vec![k],
            "asked again after 15 s"
        );
    }

    #[test]
    fn all_keys_cover_nodes_pods_and_update_plans() {
        let keys: Vec<String> = all_keys().iter().map(AccessKey::describe).collect();
        assert_eq!(
            keys,
            vec![
                "patch nodes",
                "delete pods in tf",
                "patch clusterupdateplans.kaas.mirantis.com"
            ]
        );
        assert_eq!(
            AccessKey::for_action(ActionId::CommenceStep).cluster,
            ClusterId::Mgmt,
            "the plan lives in the management cluster"
        );
    }
}
