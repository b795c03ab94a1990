//! Which proxy a cluster's connections go through, decided as kubectl
//! (client-go) decides it:
//!
//! 1. The kubeconfig cluster's `proxy-url`, when set, for every request.
//! 2. Else the environment, as Go's `http.ProxyFromEnvironment`
//!    (golang.org/x/net/http/httpproxy, config.go, `useProxy` and
//!    `proxyForURL`): `HTTPS_PROXY` for an `https://` server, `HTTP_PROXY` for
//!    an `http://` one (either in lower case too; `ALL_PROXY` as curl reads it
//!    when neither is set), unless `NO_PROXY` names the server (a host, a
//!    domain suffix, an IP, a CIDR or `*`); and never for a loopback server
//!    (`localhost`, 127.0.0.0/8, `::1`), so `demo` and the simulator's
//!    kubeconfig reach 127.0.0.1 directly whatever the jump host's proxy.
//!
//! The matching is hyper-util's `Matcher` (the one kube's own proxy
//! connectors build on); kube 5 itself reads only `HTTPS_PROXY` and applies
//! `NO_PROXY` to the proxy's address rather than the server's
//! (kube-client 5.0.0, src/config/file_loader.rs, `proxy_url`), so the
//! console decides and hands kube the answer in `Config::proxy_url`.
//!
//! A proxy's `user:pass@` goes to kube (which sends it as
//! `Proxy-Authorization`) and never to the screen: [`shown`] redacts it.

use http::Uri;
use hyper_util::client::proxy::matcher::Matcher;

use super::secret::REDACTED;

/// The proxy for `server`: `explicit` (the kubeconfig's `proxy-url`) if
/// given, else the environment's (see the module text). `Err` names a
/// proxy URL that does not parse (redacted).
pub fn choose(server: &Uri, explicit: Option<&str>) -> Result<Option<Uri>, String> {
    choose_with(server, explicit, |name| std::env::var(name).ok())
}

/// [`choose`] with the environment read through `env` (tests pass their own).
pub fn choose_with(
    server: &Uri,
    explicit: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<Uri>, String> {
    if let Some(p) = explicit.filter(|p| !p.trim().is_empty()) {
        return p.trim().parse::<Uri>().map(Some).map_err(|e| {
            format!(
                "the kubeconfig's proxy-url {} is not a URL: {e}",
                shown_str(p)
            )
        });
    }
    if server.host().is_none_or(is_loopback) {
        return Ok(None);
    }
    // The matcher decides whether (NO_PROXY) and which variable applies;
    // its answer has the credentials split off, so the variable's own
    // text is what kube gets.
    let first = |names: &[&str]| {
        names
            .iter()
            .filter_map(|n| env(n))
            .find(|v| !v.trim().is_empty())
    };
    let all = first(&["ALL_PROXY", "all_proxy"]);
    let http = first(&["HTTP_PROXY", "http_proxy"]).or_else(|| all.clone());
    let https = first(&["HTTPS_PROXY", "https_proxy"]).or(all);
    let mut matcher = Matcher::builder();
    if let Some(p) = &http {
        matcher = matcher.http(p.clone());
    }
    if let Some(p) = &https {
        matcher = matcher.https(p.clone());
    }
    if let Some(no) = first(&["NO_PROXY", "no_proxy"]) {
        matcher = matcher.no(no);
    }
    if matcher.build().intercept(server).is_none() {
        return Ok(None);
    }
    let raw = match server.scheme_str() {
        Some("https") => https,
        _ => http,
    };
    let Some(raw) = raw else {
        return Ok(None);
    };
    // Go and curl take `host:port` as `http://host:port`.
    let raw = if raw.contains("://") {
        raw
    } else {
        format!("http://{raw}")
    };
    raw.trim()
        .parse::<Uri>()
        .map(Some)
        .map_err(|e| format!("the proxy {} is not a URL: {e}", shown_str(&raw)))
}

/// Whether `host` is this machine: `localhost` or a loopback address.
pub fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A proxy URL as it may be shown: `http://[redacted]@proxy:3128`.
pub fn shown(proxy: &Uri) -> String {
    shown_str(&proxy.to_string())
}

fn shown_str(url: &str) -> String {
    let url = url.trim_end_matches('/');
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((_, host)) => format!("{scheme}://{REDACTED}@{host}"),
            None => url.to_string(),
        },
        None => match url.split_once('@') {
            Some((_, host)) => format!("{REDACTED}@{host}"),
            None => url.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_recognised() {
        for h in ["localhost", "127.0.0.1", "127.4.5.6", "[::1]", "::1"] {
            assert!(is_loopback(h), "{h}");
        }
        for h in ["10.0.0.1", "mgmt.example.com", "localhost.example.com"] {
            assert!(!is_loopback(h), "{h}");
        }
    }

    #[test]
    fn proxy_credentials_are_never_shown() {
        let p: Uri = "http://alice:s3cret@proxy.corp:3128".parse().unwrap();
        assert_eq!(shown(&p), "http://[redacted]@proxy.corp:3128");
        assert_eq!(shown_str("bob:pw@proxy:80"), "[redacted]@proxy:80");
        let err = choose(
            &"https://x:6443".parse().unwrap(),
            Some("http://a:b@bad host"),
        )
        .unwrap_err();
        assert!(!err.contains("a:b"), "{err}");
    }

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_environment_picks_the_proxy_by_scheme_and_no_proxy_exempts() {
        let vars = env(&[
            ("HTTPS_PROXY", "http://u:p@secure-proxy:3128"),
            ("http_proxy", "plain-proxy:8080"),
            ("NO_PROXY", ".internal,10.0.0.0/8"),
        ]);
        let pick = |server: &str| {
            choose_with(&server.parse().unwrap(), None, &vars)
                .unwrap()
                .map(|u| u.to_string())
        };
        assert_eq!(
            pick("https://mgmt.example.com:6443").as_deref(),
            Some("http://u:p@secure-proxy:3128/")
        );
        assert_eq!(
            pick("http://mgmt.example.com:8080").as_deref(),
            Some("http://plain-proxy:8080/")
        );
        assert_eq!(pick("https://api.internal:6443"), None);
        assert_eq!(pick("https://10.1.2.3:6443"), None);
        // The simulator and demo: loopback never goes through a proxy.
        assert_eq!(pick("http://127.0.0.1:39999"), None);
        assert_eq!(pick("http://localhost:39999"), None);
    }

    #[test]
    fn all_proxy_serves_both_schemes_and_nothing_set_means_direct() {
        let vars = env(&[("ALL_PROXY", "socks5://127.0.0.1:1080")]);
        let got = choose_with(&"https://mgmt:6443".parse().unwrap(), None, &vars).unwrap();
        assert_eq!(got.unwrap().to_string(), "socks5://127.0.0.1:1080/");
        let none = choose_with(&"https://mgmt:6443".parse().unwrap(), None, env(&[])).unwrap();
        assert_eq!(none, None);
    }

    #[test]
    fn an_explicit_proxy_url_wins_even_for_loopback() {
        let server: Uri = "http://127.0.0.1:8080".parse().unwrap();
        assert_eq!(choose(&server, None), Ok(None));
        let got = choose(&server, Some("socks5://127.0.0.1:1080")).unwrap();
        assert_eq!(got.unwrap().to_string(), "socks5://127.0.0.1:1080/");
    }
}
