//! A refused server certificate in words: which check failed, how to look at
//! the certificate, and that kubectl may accept what rustls does not.
//!
//! The console verifies with rustls and webpki, which are stricter than Go's
//! TLS (kubectl): a server certificate that is itself a CA certificate (what
//! `openssl req -x509` makes by default, common in labs) is accepted by
//! kubectl and refused here with webpki's `CaUsedAsEndEntity`
//! (docs/RELIABILITY.md, "Refusals, missing kinds and certificates").
//! Without this, the operator read
//! "invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))" and
//! advice about VPNs and firewalls.

use rustls::CertificateError;

/// The failed certificate check in `err`'s chain, in words (sanitized), or
/// `None` when `err` is not a refused certificate.
pub fn describe(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(r) = e.downcast_ref::<rustls::Error>() {
            return Some(describe_rustls(r));
        }
        // tokio-rustls hands the rustls error up inside an io::Error, whose
        // `source()` skips it: look inside.
        if let Some(inner) = e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|i| i.downcast_ref::<rustls::Error>())
        {
            return Some(describe_rustls(inner));
        }
        cur = e.source();
    }
    None
}

/// One rustls error: `CaUsedAsEndEntity: the server's certificate is a CA
/// certificate, not a server certificate`.
pub fn describe_rustls(err: &rustls::Error) -> String {
    let text = match err {
        rustls::Error::InvalidCertificate(c) => certificate(c),
        other => format!("the TLS handshake failed: {other}"),
    };
    crate::sanitize::sanitize(&text)
}

fn certificate(c: &CertificateError) -> String {
    match c {
        CertificateError::UnknownIssuer => {
            "UnknownIssuer: the server's certificate is not signed by the certificate \
             authority in the kubeconfig (certificate-authority-data)"
                .to_string()
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            "Expired: the server's certificate has expired".to_string()
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            "NotValidYet: the server's certificate is not valid yet (check this machine's clock)"
                .to_string()
        }
        CertificateError::NotValidForName => {
            "NotValidForName: the server's certificate does not name the host in the kubeconfig's \
             server URL"
                .to_string()
        }
        CertificateError::NotValidForNameContext {
            expected,
            presented,
        } => format!(
            "NotValidForName: the server's certificate names {} but not {:?}",
            if presented.is_empty() {
                "no host".to_string()
            } else {
                presented.join(", ")
            },
            expected
        ),
        CertificateError::BadSignature => {
            "BadSignature: the server's certificate is not correctly signed by its issuer"
                .to_string()
        }
        CertificateError::Revoked => "Revoked: the server's certificate was revoked".to_string(),
        CertificateError::InvalidPurpose | CertificateError::InvalidPurposeContext { .. } => {
            "InvalidPurpose: the server's certificate is not for TLS servers (extended key usage)"
                .to_string()
        }
        CertificateError::Other(other) => {
            let name = other.to_string();
            match name.as_str() {
                "CaUsedAsEndEntity" => "CaUsedAsEndEntity: the server's certificate is a CA \
                     certificate, not a server certificate signed by one"
                    .to_string(),
                "EndEntityUsedAsCa" => "EndEntityUsedAsCa: a server certificate is used as the \
                     certificate authority"
                    .to_string(),
                _ => format!("{name}: the server's certificate failed this check"),
            }
        }
        other => format!("{other:?}"),
    }
}

/// The advice after the failed check, for the server at `server` (a URL).
pub fn advice(server: &str) -> String {
    let hostport = server
        .split_once("://")
        .map_or(server, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default();
    let hostport = if hostport.contains(':') {
        hostport.to_string()
    } else {
        format!("{hostport}:443")
    };
    format!(
        "Inspect the certificate with `openssl s_client -connect {hostport} -showcerts`. \
         kubectl (Go's TLS) may accept a certificate this console (rustls) refuses; the fix \
         is a serving certificate signed by the cluster's CA, not turning verification off"
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[derive(Debug)]
    struct Webpki(&'static str);
    impl std::fmt::Display for Webpki {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for Webpki {}

    /// An error wrapping `inner` as hyper and kube do (an io::Error inside a chain).
    #[derive(Debug)]
    struct Wrapper(std::io::Error);
    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("client error (Connect)")
        }
    }
    impl std::error::Error for Wrapper {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    fn wrapped(e: CertificateError) -> Wrapper {
        Wrapper(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(e),
        ))
    }

    #[test]
    fn a_ca_certificate_used_as_the_server_certificate_is_named() {
        let err = wrapped(CertificateError::Other(rustls::OtherError(Arc::new(
            Webpki("CaUsedAsEndEntity"),
        ))));
        let text = describe(&err).expect("a certificate error");
        assert!(text.starts_with("CaUsedAsEndEntity: "), "{text}");
        assert!(text.contains("is a CA certificate"), "{text}");
        assert!(!text.contains("OtherError"), "{text}");
    }

    #[test]
    fn an_unknown_issuer_names_the_kubeconfig_ca() {
        let text = describe(&wrapped(CertificateError::UnknownIssuer)).unwrap();
        assert!(
            text.contains("UnknownIssuer") && text.contains("certificate-authority"),
            "{text}"
        );
    }

    #[test]
    fn other_errors_are_not_certificates() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        assert_eq!(describe(&Wrapper(io)), None);
    }

    #[test]
    fn the_advice_names_openssl_and_kubectl() {
        let a = advice("https://10.0.0.5:6443");
        assert!(
            a.contains("openssl s_client -connect 10.0.0.5:6443 -showcerts"),
            "{a}"
        );
        assert!(a.contains("kubectl"), "{a}");
        assert!(advice("https://api.example.com").contains("api.example.com:443"));
    }
}
