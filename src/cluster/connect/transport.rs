//! How a connection to an API server is protected, so that the operator and
//! the audit log know when it is not verified.

use http::Uri;

use super::proxy::is_loopback;

/// How one cluster's connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// HTTPS with the server's certificate verified.
    #[default]
    Verified,
    /// HTTPS with `insecure-skip-tls-verify`: anyone on the path can pose as the server.
    TlsNotVerified,
    /// Plain `http://` to another machine: nothing is encrypted or verified.
    PlainHttp,
    /// Plain `http://` to this machine (the simulator of `demo` and `sim
    /// serve`): not verified, but nothing crosses the network.
    Loopback,
}

impl Transport {
    /// From the server URL and kube's `accept_invalid_certs`.
    pub fn of(server: &Uri, accept_invalid_certs: bool) -> Transport {
        match server.scheme_str() {
            Some("http") if server.host().is_some_and(is_loopback) => Transport::Loopback,
            Some("http") => Transport::PlainHttp,
            _ if accept_invalid_certs => Transport::TlsNotVerified,
            _ => Transport::Verified,
        }
    }

    /// The badge drawn for it (status bar, confirmation dialog); `None` when verified.
    /// Loopback reads as a fact, not an alarm: `demo` always shows it.
    pub fn badge(self) -> Option<&'static str> {
        match self {
            Transport::Verified => None,
            Transport::TlsNotVerified => Some("TLS NOT VERIFIED"),
            Transport::PlainHttp => Some("PLAIN HTTP"),
            Transport::Loopback => Some("http (loopback)"),
        }
    }

    /// Whether the badge is a warning (drawn in the warning style).
    pub fn is_warning(self) -> bool {
        matches!(self, Transport::TlsNotVerified | Transport::PlainHttp)
    }

    /// The audit record's `connection` field; `None` when verified.
    pub fn audit_value(self) -> Option<&'static str> {
        match self {
            Transport::Verified => None,
            Transport::TlsNotVerified => Some("tls-not-verified"),
            Transport::PlainHttp => Some("plain-http"),
            Transport::Loopback => Some("plain-http-loopback"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_server_url_gets_its_transport() {
        let t = |u: &str, skip| Transport::of(&u.parse().unwrap(), skip);
        assert_eq!(t("https://10.0.0.1:6443", false), Transport::Verified);
        assert_eq!(t("https://10.0.0.1:6443", true), Transport::TlsNotVerified);
        assert_eq!(t("http://10.0.0.1:8080", false), Transport::PlainHttp);
        assert_eq!(t("http://127.0.0.1:8080", false), Transport::Loopback);
        assert_eq!(t("http://localhost:8080", true), Transport::Loopback);
    }
}
