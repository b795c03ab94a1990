//! The permission questions an action asks (SelfSubjectAccessReview) and the
//! server's answers. The console keeps one cache of answers, the model's
//! (`app::actions::access::AccessCache`): the key-time check and the
//! execute-time check both read it, and the executor only asks the server
//! (and reports the answer back to it) when it holds no fresh answer.
//!
//! A review the server could not answer (404, 5xx, a timeout, an answer
//! without `status`) is not a denial: the permission is *unknown*, the action
//! is offered as "permission not verified: the server will decide", and the
//! server's own authorization of the write decides (a 403 then is shown as
//! any 403). Only a real `allowed: false` is a denial.

use jiff::SignedDuration;

use crate::domain::action::{ActionId, Permission, Scope};
use crate::domain::objects::ClusterId;

/// How long an answer is trusted before the server is asked again.
pub const ACCESS_TTL: SignedDuration = SignedDuration::from_secs(180);
/// A question that could not be asked is asked again sooner.
pub const UNKNOWN_TTL: SignedDuration = SignedDuration::from_secs(15);

/// What the dialog, the notices and the audit log say when a permission is unknown.
pub const NOT_VERIFIED: &str = "permission not verified: the server will decide";

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
    /// The question for `p` on `cluster`; `project` is the cluster's
    /// project namespace (for [`Scope::Project`]).
    pub fn of(cluster: ClusterId, p: &Permission, project: &str) -> AccessKey {
        AccessKey {
            cluster,
            verb: p.verb.to_string(),
            group: p.group.to_string(),
            resource: p.resource.to_string(),
            namespace: match p.scope {
                Scope::Cluster => None,
                Scope::Namespace(ns) => Some(ns.to_string()),
                Scope::Project => Some(project.to_string()),
            },
        }
    }

    /// The question `action` asks, in the session's `project` namespace.
    pub fn for_action(action: ActionId, project: &str) -> AccessKey {
        let s = action.spec();
        AccessKey::of(s.cluster, &s.permission, project)
    }

    /// Every question `action` asks (its permission, then its `also`).
    pub fn all_for_action(action: ActionId, project: &str) -> Vec<AccessKey> {
        let s = action.spec();
        std::iter::once(&s.permission)
            .chain(s.also.as_ref())
            .map(|p| AccessKey::of(s.cluster, p, project))
            .collect()
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

/// Every permission the registry's actions need, once each.
pub fn all_keys(project: &str) -> Vec<AccessKey> {
    let mut keys: Vec<AccessKey> = Vec::new();
    for a in ActionId::ALL {
        for k in AccessKey::all_for_action(a, project) {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    keys
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

impl AccessVerdict {
    /// The answers to every question of one action as one: a denial wins,
    /// then an unanswered question.
    pub fn combine(verdicts: impl IntoIterator<Item = AccessVerdict>) -> AccessVerdict {
        let mut out = AccessVerdict::Allowed;
        for v in verdicts {
            match (&out, v) {
                (AccessVerdict::Denied(_), _) => {}
                (_, d @ AccessVerdict::Denied(_)) => out = d,
                (AccessVerdict::Unknown(_), _) => {}
                (_, u @ AccessVerdict::Unknown(_)) => out = u,
                _ => {}
            }
        }
        out
    }

    /// How long this answer is trusted: an unknown one is asked again sooner.
    pub fn ttl(&self) -> SignedDuration {
        match self {
            AccessVerdict::Unknown(_) => UNKNOWN_TTL,
            _ => ACCESS_TTL,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_keys_cover_nodes_pods_and_update_plans_in_the_project() {
        let keys: Vec<String> = all_keys("child-ns")
            .iter()
            .map(AccessKey::describe)
            .collect();
        assert_eq!(
            keys,
            vec![
                "patch nodes",
                "delete pods in tf",
                "patch clusterupdateplans.kaas.mirantis.com in child-ns",
                "create pods/exec in openstack",
                "get pods/exec in openstack",
            ]
        );
        assert_eq!(
            AccessKey::for_action(ActionId::CommenceStep, "x").cluster,
            ClusterId::Mgmt,
            "the plan lives in the management cluster"
        );
    }
}
