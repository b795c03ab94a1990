//! The one cache of what the console knows about the user's RBAC: one
//! SelfSubjectAccessReview answer per permission, kept for a few minutes
//! (see `crate::domain::action::access` for what an answer means). `update`
//! reads it to show actions as available or not and again when a plan is
//! confirmed; the confirmed plan carries the answer to the executor, which
//! asks the server only when there is none and reports the answer back here.

use std::collections::BTreeMap;

use jiff::Timestamp;

pub use crate::domain::action::access::{
    ACCESS_TTL, AccessKey, AccessVerdict, NOT_VERIFIED, UNKNOWN_TTL, all_keys,
};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::action::ActionId;

    fn t(s: i64) -> Timestamp {
        Timestamp::from_second(1_700_000_000 + s).unwrap()
    }

    #[test]
    fn answers_expire_and_are_asked_once() {
        let mut c = AccessCache::default();
        let k = AccessKey::for_action(ActionId::RestartVrouter, "child-ns");
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
        let k = AccessKey::for_action(ActionId::AcknowledgeMigration, "child-ns");
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
}
