//! Label and field selectors (`labelSelector=`, `fieldSelector=`).
//!
//! Hand-written: no maintained Rust crate parses the apiserver's selector
//! grammar (kube-core only builds selectors, it does not parse them).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::error::{ApiError, StoreResult};

#[derive(Debug, Clone, PartialEq)]
enum LabelReq {
    Exists(String),
    NotExists(String),
    Eq(String, String),
    NotEq(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
}

/// A parsed label selector; the empty selector matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelSelector(Vec<LabelReq>);

static SET_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z0-9_./-]+)\s+(in|notin)\s*\(([^()]*)\)$").expect("valid regex")
});
static KEY_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z0-9][A-Za-z0-9_.-]*/)?[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$")
        .expect("valid regex")
});
static VALUE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?)?$").expect("valid regex")
});

fn bad(sel: &str, why: &str) -> ApiError {
    ApiError::bad_request(format!(
        "unable to parse requirement: {why} (selector {sel:?})"
    ))
}

fn key(sel: &str, k: &str) -> StoreResult<String> {
    let k = k.trim();
    if k.len() > 316 || !KEY_RE.is_match(k) {
        return Err(bad(sel, &format!("invalid label key {k:?}")));
    }
    Ok(k.to_string())
}

fn value(sel: &str, v: &str) -> StoreResult<String> {
    let v = v.trim();
    if v.len() > 63 || !VALUE_RE.is_match(v) {
        return Err(bad(sel, &format!("invalid label value {v:?}")));
    }
    Ok(v.to_string())
}

/// Splits on commas outside parentheses.
fn split_terms(s: &str) -> StoreResult<Vec<&str>> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if !(0..=1).contains(&depth) {
            return Err(bad(s, "unbalanced parentheses"));
        }
    }
    if depth != 0 {
        return Err(bad(s, "unbalanced parentheses"));
    }
    out.push(&s[start..]);
    Ok(out)
}

impl LabelSelector {
    /// Parses `a=b,c!=d,e in (f,g),h notin (i),j,!k`.
    pub fn parse(s: &str) -> StoreResult<LabelSelector> {
        let mut reqs = Vec::new();
        if s.trim().is_empty() {
            return Ok(LabelSelector(reqs));
        }
        for term in split_terms(s)? {
            let t = term.trim();
            if t.is_empty() {
                return Err(bad(s, "empty requirement"));
            }
            let req = if let Some(caps) = SET_RE.captures(t) {
                let k = key(s, &caps[1])?;
                let vals = caps[3]
                    .split(',')
                    .map(|v| value(s, v))
                    .collect::<StoreResult<Vec<_>>>()?;
                if &caps[2] == "in" {
                    LabelReq::In(k, vals)
                } else {
                    LabelReq::NotIn(k, vals)
                }
            } else if let Some(k) = t.strip_prefix('!') {
                LabelReq::NotExists(key(s, k)?)
            } else if let Some((k, v)) = t.split_once("!=") {
                LabelReq::NotEq(key(s, k)?, value(s, v)?)
            } else if let Some((k, v)) = t.split_once("==") {
                LabelReq::Eq(key(s, k)?, value(s, v)?)
            } else if let Some((k, v)) = t.split_once('=') {
                LabelReq::Eq(key(s, k)?, value(s, v)?)
            } else {
                LabelReq::Exists(key(s, t)?)
            };
            reqs.push(req);
        }
        Ok(LabelSelector(reqs))
    }

    /// Whether the object's labels satisfy every requirement.
    pub fn matches(&self, obj: &Value) -> bool {
        let labels = obj.pointer("/metadata/labels");
        let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        self.0.iter().all(|r| match r {
            LabelReq::Exists(k) => get(k).is_some(),
            LabelReq::NotExists(k) => get(k).is_none(),
            LabelReq::Eq(k, v) => get(k) == Some(v.as_str()),
            LabelReq::NotEq(k, v) => get(k) != Some(v.as_str()),
            LabelReq::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            LabelReq::NotIn(k, vs) => !get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
        })
    }
}

/// A parsed field selector (`metadata.name=x,spec.nodeName!=y`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldSelector(Vec<(String, bool, String)>);

/// Fields the apiserver lets one select on for a resource.
fn field_supported(plural: &str, field: &str) -> bool {
    matches!(field, "metadata.name" | "metadata.namespace")
        || (plural == "pods"
            && matches!(
                field,
                "spec.nodeName" | "status.phase" | "status.podIP" | "spec.restartPolicy"
            ))
        || (plural == "nodes" && field == "spec.unschedulable")
        || (plural == "events"
            && matches!(
                field,
                "involvedObject.kind"
                    | "involvedObject.name"
                    | "involvedObject.namespace"
                    | "involvedObject.uid"
                    | "reason"
                    | "type"
            ))
}

impl FieldSelector {
    /// Parses a field selector for the given resource; unsupported fields are a 400.
    pub fn parse(s: &str, plural: &str) -> StoreResult<FieldSelector> {
        let mut reqs = Vec::new();
        if s.trim().is_empty() {
            return Ok(FieldSelector(reqs));
        }
        for term in s.split(',') {
            let t = term.trim();
            let (f, eq, v) = if let Some((f, v)) = t.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = t.split_once("==") {
                (f, true, v)
            } else if let Some((f, v)) = t.split_once('=') {
                (f, true, v)
            } else {
                return Err(ApiError::bad_request(format!(
                    "invalid field selector: {t:?}: expected an operator (=, ==, !=)"
                )));
            };
            let f = f.trim();
            if !field_supported(plural, f) {
                return Err(ApiError::bad_request(format!(
                    "field label not supported: {f}"
                )));
            }
            reqs.push((f.to_string(), eq, v.trim().to_string()));
        }
        Ok(FieldSelector(reqs))
    }

    /// Whether the object satisfies every requirement (missing fields compare as "").
    pub fn matches(&self, obj: &Value) -> bool {
        self.0.iter().all(|(f, eq, v)| {
            let mut cur = Some(obj);
            for part in f.split('.') {
                cur = cur.and_then(|c| c.get(part));
            }
            let actual = match cur {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            (actual == *v) == *eq
        })
    }
}

/// Both selectors of a list or watch request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selectors {
    pub labels: LabelSelector,
    pub fields: FieldSelector,
}

impl Selectors {
    pub fn parse(labels: &str, fields: &str, plural: &str) -> StoreResult<Selectors> {
        Ok(Selectors {
            labels: LabelSelector::parse(labels)?,
            fields: FieldSelector::parse(fields, plural)?,
        })
    }

    pub fn matches(&self, obj: &Value) -> bool {
        self.labels.matches(obj) && self.fields.matches(obj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod() -> Value {
        json!({"metadata": {"name": "tf-vrouter-agent-abcde", "namespace": "tf",
               "labels": {"app": "tf-vrouter-agent", "tier": "net"}},
               "spec": {"nodeName": "kaas-node-1"}})
    }

    #[test]
    fn label_operators() {
        let p = pod();
        let m = |s: &str| LabelSelector::parse(s).unwrap().matches(&p);
        assert!(m(""));
        assert!(m("app=tf-vrouter-agent"));
        assert!(m("app==tf-vrouter-agent,tier"));
        assert!(!m("app!=tf-vrouter-agent"));
        assert!(m("missing!=x"));
        assert!(m("app in (a, tf-vrouter-agent)"));
        assert!(!m("app notin (a,tf-vrouter-agent)"));
        assert!(m("missing notin (a)"));
        assert!(!m("missing in (a)"));
        assert!(m("!missing"));
        assert!(!m("!app"));
        assert!(m("app in (tf-vrouter-agent),!missing,tier=net"));
    }

    #[test]
    fn bad_label_selectors_are_400() {
        for s in [
            "app in (a",
            "=x",
            "a=b c",
            "a,,b",
            "app in a,b)",
            "!!x",
            "a=(b)",
        ] {
            let e = LabelSelector::parse(s).unwrap_err();
            assert_eq!(e.code, 400, "{s}");
        }
    }

    #[test]
    fn field_selectors() {
        let p = pod();
        let m = |s: &str| FieldSelector::parse(s, "pods").unwrap().matches(&p);
        assert!(m("metadata.name=tf-vrouter-agent-abcde"));
        assert!(m("spec.nodeName==kaas-node-1,metadata.namespace=tf"));
        assert!(!m("spec.nodeName!=kaas-node-1"));
        assert!(m("status.phase="));
        assert_eq!(
            FieldSelector::parse("spec.nodeName=x", "nodes")
                .unwrap_err()
                .code,
            400
        );
        assert_eq!(
            FieldSelector::parse("metadata.name", "pods")
                .unwrap_err()
                .code,
            400
        );
    }
}
