//! Who the simulated user is and what they may not do. Everything is
//! allowed except what a deny rule matches; `"*"` matches anything.

use serde::{Deserialize, Serialize};

/// One denied (verb, group, resource[, namespace]) combination.
/// `resource` may name a subresource as `pods/log`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RbacRule {
    pub verb: String,
    #[serde(default)]
    pub group: String,
    pub resource: String,
    /// `None` (or absent) matches every namespace and cluster-scoped requests.
    #[serde(default)]
    pub namespace: Option<String>,
}

/// The user and the deny table of one simulated cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rbac {
    pub user: String,
    #[serde(default)]
    pub groups: Vec<String>,
    #[serde(default)]
    pub deny: Vec<RbacRule>,
}

/// One request to authorize.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attributes<'a> {
    pub verb: &'a str,
    pub group: &'a str,
    pub resource: &'a str,
    pub subresource: Option<&'a str>,
    pub namespace: Option<&'a str>,
}

fn field_matches(rule: &str, value: &str) -> bool {
    rule == "*" || rule == value
}

impl RbacRule {
    pub fn matches(&self, a: &Attributes<'_>) -> bool {
        let resource = match a.subresource {
            Some(sub) if !sub.is_empty() => format!("{}/{sub}", a.resource),
            _ => a.resource.to_string(),
        };
        let resource_ok = field_matches(&self.resource, &resource)
            || (self.resource.ends_with("/*")
                && a.subresource.is_some()
                && field_matches(&self.resource[..self.resource.len() - 2], a.resource));
        field_matches(&self.verb, a.verb)
            && field_matches(&self.group, a.group)
            && resource_ok
            && self
                .namespace
                .as_deref()
                .is_none_or(|ns| ns == "*" || Some(ns) == a.namespace)
    }
}

impl Rbac {
    /// A user who may do everything.
    pub fn allow_all(user: &str) -> Rbac {
        Rbac {
            user: user.to_string(),
            groups: vec!["system:authenticated".to_string()],
            deny: Vec::new(),
        }
    }

    /// Whether the request is allowed (no deny rule matches).
    pub fn allows(&self, a: &Attributes<'_>) -> bool {
        !self.deny.iter().any(|r| r.matches(a))
    }

    /// The apiserver's Forbidden message for a denied request, e.g.
    /// `pods "x" is forbidden: User "u" cannot delete resource "pods" in API group "" in the namespace "tf"`.
    pub fn forbidden_message(
        &self,
        a: &Attributes<'_>,
        qualified: &str,
        name: Option<&str>,
    ) -> String {
        let subject = match name {
            Some(n) if !n.is_empty() => format!("{qualified} \"{n}\""),
            _ => qualified.to_string(),
        };
        let resource = match a.subresource {
            Some(sub) if !sub.is_empty() => format!("{}/{sub}", a.resource),
            _ => a.resource.to_string(),
        };
        let scope = match a.namespace {
            Some(ns) if !ns.is_empty() => format!("in the namespace \"{ns}\""),
            _ => "at the cluster scope".to_string(),
        };
        format!(
            "{subject} is forbidden: User \"{}\" cannot {} resource \"{resource}\" in API group \"{}\" {scope}",
            self.user, a.verb, a.group
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs<'a>(verb: &'a str, resource: &'a str, ns: Option<&'a str>) -> Attributes<'a> {
        Attributes {
            verb,
            group: "",
            resource,
            subresource: None,
            namespace: ns,
        }
    }

    #[test]
    fn deny_rules_and_wildcards() {
        let rbac: Rbac = serde_json::from_str(
            r#"{"user":"operator","deny":[{"verb":"delete","group":"","resource":"pods","namespace":"tf"},
                {"verb":"*","group":"lcm.mirantis.com","resource":"nodeworkloadlocks"}]}"#,
        )
        .unwrap();
        assert!(!rbac.allows(&attrs("delete", "pods", Some("tf"))));
        assert!(rbac.allows(&attrs("delete", "pods", Some("kaas"))));
        assert!(rbac.allows(&attrs("get", "pods", Some("tf"))));
        let nwl = Attributes {
            group: "lcm.mirantis.com",
            ..attrs("patch", "nodeworkloadlocks", None)
        };
        assert!(!rbac.allows(&nwl));
        assert!(Rbac::allow_all("x").allows(&nwl));
    }

    #[test]
    fn forbidden_message_matches_the_apiserver() {
        let rbac = Rbac::allow_all("operator");
        let a = attrs("delete", "pods", Some("tf"));
        assert_eq!(
            rbac.forbidden_message(&a, "pods", Some("tf-vrouter-agent-x")),
            "pods \"tf-vrouter-agent-x\" is forbidden: User \"operator\" cannot delete resource \"pods\" in API group \"\" in the namespace \"tf\""
        );
        let n = attrs("patch", "nodes", None);
        assert_eq!(
            rbac.forbidden_message(&n, "nodes", Some("n1")),
            "nodes \"n1\" is forbidden: User \"operator\" cannot patch resource \"nodes\" in API group \"\" at the cluster scope"
        );
    }
}
