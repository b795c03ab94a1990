//! The Kubernetes URL grammar, parsed once:
//! `/api|/apis/{g}` `/{v}` `[/watch]` `[/namespaces/{ns}]` `/{resource}` `[/{name}[/{sub}]]`.

/// A resource path: which objects a request is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePath {
    /// `""` for the core group.
    pub group: String,
    pub version: String,
    pub namespace: Option<String>,
    pub plural: String,
    pub name: Option<String>,
    pub subresource: Option<String>,
    /// The deprecated `/watch/` path prefix was used.
    pub watch_prefix: bool,
}

/// What a request path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Version,
    Health,
    /// `/api`
    CoreVersions,
    /// `/apis`
    Groups,
    /// `/apis/{group}`
    Group(String),
    /// `/api/v1`, `/apis/{group}/{version}`
    Resources {
        group: String,
        version: String,
    },
    /// `/openapi/...`
    OpenApi,
    Resource(ResourcePath),
}

fn decode(seg: &str) -> Option<String> {
    let s: String = url::form_urlencoded::parse(format!("x={seg}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())?;
    // `+` is a literal in paths, not a space.
    let s = if seg.contains('+') {
        s.replace(' ', "+")
    } else {
        s
    };
    (!s.is_empty() && s != "." && s != ".." && !s.contains('/')).then_some(s)
}

/// Parses a request path; `None` when it is not a Kubernetes API path.
pub fn parse(path: &str) -> Option<Route> {
    let trimmed = path.trim_end_matches('/');
    match trimmed {
        "/version" => return Some(Route::Version),
        "/healthz" | "/livez" | "/readyz" => return Some(Route::Health),
        "/api" => return Some(Route::CoreVersions),
        "/apis" => return Some(Route::Groups),
        _ => {}
    }
    if trimmed.starts_with("/openapi/") || trimmed == "/openapi" {
        return Some(Route::OpenApi);
    }
    let segs: Vec<String> = trimmed
        .strip_prefix('/')?
        .split('/')
        .map(decode)
        .collect::<Option<Vec<_>>>()?;
    let (group, version, rest) = match segs.first().map(String::as_str) {
        Some("api") => (String::new(), segs.get(1)?.clone(), &segs[2..]),
        Some("apis") => {
            let group = segs.get(1)?.clone();
            match segs.get(2) {
                None => return Some(Route::Group(group)),
                Some(v) => (group, v.clone(), &segs[3..]),
            }
        }
        _ => return None,
    };
    if rest.is_empty() {
        return Some(Route::Resources { group, version });
    }
    let (watch_prefix, rest) = match rest.first().map(String::as_str) {
        Some("watch") if rest.len() > 1 => (true, &rest[1..]),
        _ => (false, rest),
    };
    let mut namespace = None;
    let rest = match rest {
        // `/namespaces/{ns}/status|finalize` are subresources of the namespace itself.
        [ns, name, sub] if ns == "namespaces" && (sub == "status" || sub == "finalize") => {
            return Some(Route::Resource(ResourcePath {
                group,
                version,
                namespace: None,
                plural: "namespaces".into(),
                name: Some(name.clone()),
                subresource: Some(sub.clone()),
                watch_prefix,
            }));
        }
        [ns, n, tail @ ..] if ns == "namespaces" && !tail.is_empty() => {
            namespace = Some(n.clone());
            tail
        }
        other => other,
    };
    let (plural, name, subresource) = match rest {
        [p] => (p.clone(), None, None),
        [p, n] => (p.clone(), Some(n.clone()), None),
        [p, n, s] => (p.clone(), Some(n.clone()), Some(s.clone())),
        _ => return None,
    };
    Some(Route::Resource(ResourcePath {
        group,
        version,
        namespace,
        plural,
        name,
        subresource,
        watch_prefix,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(path: &str) -> ResourcePath {
        match parse(path) {
            Some(Route::Resource(r)) => r,
            other => panic!("{path}: {other:?}"),
        }
    }

    #[test]
    fn discovery_paths() {
        assert_eq!(parse("/version"), Some(Route::Version));
        assert_eq!(parse("/api"), Some(Route::CoreVersions));
        assert_eq!(parse("/apis/"), Some(Route::Groups));
        assert_eq!(parse("/apis/apps"), Some(Route::Group("apps".into())));
        assert_eq!(
            parse("/api/v1"),
            Some(Route::Resources {
                group: "".into(),
                version: "v1".into()
            })
        );
        assert_eq!(
            parse("/apis/lcm.mirantis.com/v1alpha1"),
            Some(Route::Resources {
                group: "lcm.mirantis.com".into(),
                version: "v1alpha1".into()
            })
        );
        assert_eq!(parse("/openapi/v3"), Some(Route::OpenApi));
    }

    #[test]
    fn resource_paths() {
        let r = res("/api/v1/namespaces/tf/pods/tf-vrouter-agent-x/log");
        assert_eq!(r.namespace.as_deref(), Some("tf"));
        assert_eq!(r.plural, "pods");
        assert_eq!(r.name.as_deref(), Some("tf-vrouter-agent-x"));
        assert_eq!(r.subresource.as_deref(), Some("log"));
        let r = res("/apis/lcm.mirantis.com/v1alpha1/nodeworkloadlocks");
        assert_eq!(
            (r.group.as_str(), r.plural.as_str(), r.name.clone()),
            ("lcm.mirantis.com", "nodeworkloadlocks", None)
        );
        let r = res("/api/v1/namespaces/tf");
        assert_eq!(
            (r.plural.as_str(), r.name.as_deref(), r.namespace.clone()),
            ("namespaces", Some("tf"), None)
        );
        let r = res("/api/v1/namespaces");
        assert_eq!((r.plural.as_str(), r.name.clone()), ("namespaces", None));
        let r = res("/api/v1/namespaces/tf/status");
        assert_eq!(
            (r.plural.as_str(), r.subresource.as_deref()),
            ("namespaces", Some("status"))
        );
        let r = res("/api/v1/watch/namespaces/tf/pods");
        assert!(r.watch_prefix);
        assert_eq!(r.plural, "pods");
        let r = res("/api/v1/nodes/kaas-node-1%2Bx");
        assert_eq!(r.name.as_deref(), Some("kaas-node-1+x"));
    }

    #[test]
    fn garbage_is_not_a_route() {
        for p in [
            "/",
            "/foo",
            "/api/v1/a/b/c/d",
            "/api/v1//pods",
            "/apis/g/v/namespaces/x/p/n/s/extra",
            "/api/v1/nodes/%2F",
            "/api/v1/nodes/..",
        ] {
            assert_eq!(parse(p), None, "{p}");
        }
    }
}
