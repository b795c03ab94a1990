//! The small JSONPath subset CRD printer columns use:
//! `.a.b`, `['a.b']`, `[0]`, `[*]`, `.*`, `[?(@.type=="InternalIP")]`, `[?(@.x!="y")]`, `[?(@.x)]`.
//!
//! Hand-written: the JSONPath crates implement RFC 9535 syntax, which differs
//! from the Kubernetes dialect (unquoted filter paths, no leading `$`).

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
    All,
    Filter {
        path: Vec<String>,
        op: Option<(bool, Value)>,
    },
}

fn parse(path: &str) -> Option<Vec<Step>> {
    let p = path.trim();
    let p = p
        .strip_prefix('{')
        .and_then(|x| x.strip_suffix('}'))
        .unwrap_or(p);
    let p = p.strip_prefix('$').unwrap_or(p);
    let chars: Vec<char> = p.chars().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '.' => {
                i += 1;
                let start = i;
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect();
                match name.as_str() {
                    "" => return None,
                    "*" => steps.push(Step::All),
                    _ => steps.push(Step::Field(name)),
                }
            }
            '[' => {
                let close = find_close(&chars, i)?;
                let inner: String = chars[i + 1..close].iter().collect();
                steps.push(bracket(inner.trim())?);
                i = close + 1;
            }
            _ if steps.is_empty() => {
                // A path without the leading dot: `spec.x`.
                let start = i;
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    i += 1;
                }
                steps.push(Step::Field(chars[start..i].iter().collect()));
            }
            _ => return None,
        }
    }
    Some(steps)
}

/// The index of the `]` closing the `[` at `open`, skipping quoted text.
fn find_close(chars: &[char], open: usize) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (j, &c) in chars.iter().enumerate().skip(open + 1) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ']') => return Some(j),
            _ => {}
        }
    }
    None
}

fn unquote(s: &str) -> Option<String> {
    let s = s.trim();
    for q in ['\'', '"'] {
        if let Some(x) = s.strip_prefix(q).and_then(|x| x.strip_suffix(q)) {
            return Some(x.to_string());
        }
    }
    None
}

fn bracket(inner: &str) -> Option<Step> {
    if inner == "*" {
        return Some(Step::All);
    }
    if let Some(name) = unquote(inner) {
        return Some(Step::Field(name));
    }
    if let Ok(n) = inner.parse::<i64>() {
        return Some(Step::Index(n));
    }
    let expr = inner.strip_prefix("?(")?.strip_suffix(')')?.trim();
    let (lhs, op) = if let Some((l, r)) = expr.split_once("!=") {
        (l, Some((false, literal(r)?)))
    } else if let Some((l, r)) = expr.split_once("==") {
        (l, Some((true, literal(r)?)))
    } else {
        (expr, None)
    };
    let lhs = lhs.trim().strip_prefix('@')?;
    let path = lhs
        .split('.')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    Some(Step::Filter { path, op })
}

fn literal(s: &str) -> Option<Value> {
    let s = s.trim();
    if let Some(q) = unquote(s) {
        return Some(Value::String(q));
    }
    serde_json::from_str(s).ok()
}

fn walk<'a>(v: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(v, |cur, k| cur.get(k))
}

/// Every value the path selects in `obj`; empty for a bad path.
pub fn select<'a>(obj: &'a Value, path: &str) -> Vec<&'a Value> {
    let Some(steps) = parse(path) else {
        return Vec::new();
    };
    let mut cur = vec![obj];
    for step in &steps {
        let mut next = Vec::new();
        for v in cur {
            match step {
                Step::Field(f) => next.extend(v.get(f)),
                Step::Index(n) => {
                    if let Some(a) = v.as_array() {
                        let idx = if *n < 0 { a.len() as i64 + n } else { *n };
                        if idx >= 0 {
                            next.extend(a.get(idx as usize));
                        }
                    }
                }
                Step::All => match v {
                    Value::Array(a) => next.extend(a.iter()),
                    Value::Object(m) => next.extend(m.values()),
                    _ => {}
                },
                Step::Filter { path, op } => {
                    if let Some(a) = v.as_array() {
                        next.extend(a.iter().filter(|item| {
                            let got = walk(item, path);
                            match op {
                                None => got.is_some(),
                                Some((eq, want)) => (got == Some(want)) == *eq,
                            }
                        }));
                    }
                }
            }
        }
        cur = next;
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn printer_column_paths() {
        let m = json!({"spec": {"clusterName": "child-cl"},
                       "status": {"addresses": [{"type": "Hostname", "address": "kaas-node-1"},
                                                {"type": "InternalIP", "address": "10.0.0.5"}],
                                  "attempt": 0},
                       "metadata": {"annotations": {"lcm.mirantis.com/index": "3"}}});
        assert_eq!(select(&m, ".spec.clusterName"), [&json!("child-cl")]);
        assert_eq!(
            select(&m, r#".status.addresses[?(@.type=="InternalIP")].address"#),
            [&json!("10.0.0.5")]
        );
        assert_eq!(
            select(&m, r#".status.addresses[?(@.type!="InternalIP")].address"#),
            [&json!("kaas-node-1")]
        );
        assert_eq!(select(&m, ".status.addresses[*].type").len(), 2);
        assert_eq!(
            select(&m, ".status.addresses[-1].type"),
            [&json!("InternalIP")]
        );
        assert_eq!(select(&m, ".status.attempt"), [&json!(0)]);
        assert_eq!(
            select(&m, "{.metadata.annotations['lcm.mirantis.com/index']}"),
            [&json!("3")]
        );
        assert!(select(&m, ".status.state").is_empty());
        assert!(select(&m, ".status.addresses[?(@.type==").is_empty());
        assert!(select(&m, "..").is_empty());
    }
}
