//! Why the console could not connect, in words an operator can act on.

use std::fmt;
use std::path::PathBuf;

use crate::domain::objects::ClusterId;

/// A failure to load a kubeconfig or to reach a cluster. `Display` gives one
/// paragraph saying what went wrong and what to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectError {
    /// A kubeconfig file does not exist.
    MissingFile { path: PathBuf },
    /// A kubeconfig file exists but cannot be read (permissions, a directory, …).
    UnreadableFile { path: PathBuf, detail: String },
    /// Neither `--kubeconfig` nor `KUBECONFIG` is set and there is no home directory.
    NoKubeconfig,
    /// A kubeconfig is not valid YAML or not a kubeconfig.
    BadYaml { source: String, detail: String },
    /// No context was asked for and the kubeconfig has no current context.
    NoContext {
        cluster: ClusterId,
        source: String,
        available: Vec<String>,
    },
    /// No `--mosk-context`, and no single context name containing `mosk`.
    NoMoskContext {
        source: String,
        available: Vec<String>,
        /// Several contexts matched (rather than none).
        ambiguous: bool,
    },
    /// The context asked for is not in the kubeconfig.
    UnknownContext {
        cluster: ClusterId,
        context: String,
        source: String,
        available: Vec<String>,
    },
    /// The context exists but kube cannot build a client from it (no server
    /// URL, unreadable certificate, …).
    BadContext {
        cluster: ClusterId,
        context: String,
        source: String,
        detail: String,
    },
    /// The server did not answer `/version` (refused, timed out, TLS failure, 5xx).
    Unreachable {
        cluster: ClusterId,
        context: String,
        server: String,
        detail: String,
    },
    /// The server answered `/version`, but not with a Kubernetes version (a
    /// proxy's page, a truncated or garbled body), every time it was asked.
    BadVersion {
        cluster: ClusterId,
        context: String,
        server: String,
        detail: String,
    },
    /// The server's certificate was refused (`detail`: the check that failed).
    TlsRefused {
        cluster: ClusterId,
        context: String,
        server: String,
        detail: String,
    },
    /// The server refused the credentials (401/403), or the credential plugin failed (code 0).
    AuthFailed {
        cluster: ClusterId,
        context: String,
        server: String,
        user: String,
        code: u16,
        detail: String,
    },
}

impl std::error::Error for ConnectError {}

fn cluster_name(c: ClusterId) -> &'static str {
    match c {
        ClusterId::Mgmt => "management",
        ClusterId::Mosk => "MOSK",
    }
}

fn context_flag(c: ClusterId) -> &'static str {
    match c {
        ClusterId::Mgmt => "--mgmt-context",
        ClusterId::Mosk => "--mosk-context",
    }
}

fn list(available: &[String]) -> String {
    if available.is_empty() {
        "it defines no contexts at all".to_string()
    } else {
        format!("available contexts: {}", available.join(", "))
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::MissingFile { path } => write!(
                f,
                "The kubeconfig file {} does not exist. Pass the right file with --kubeconfig \
                 (or --mosk-kubeconfig for the MOSK cluster), or set KUBECONFIG.",
                path.display()
            ),
            ConnectError::UnreadableFile { path, detail } => write!(
                f,
                "The kubeconfig file {} cannot be read: {detail}. Check that it is a file \
                 and that this user may read it.",
                path.display()
            ),
            ConnectError::NoKubeconfig => write!(
                f,
                "No kubeconfig to use: --kubeconfig is not given, KUBECONFIG is not set and \
                 there is no home directory to find ~/.kube/config in. Pass --kubeconfig."
            ),
            ConnectError::BadYaml { source, detail } => write!(
                f,
                "The kubeconfig {source} is not a valid kubeconfig: {detail}. Check the file \
                 (kubectl config view --kubeconfig <file> shows what kubectl makes of it) or \
                 fetch a fresh one for the cluster."
            ),
            ConnectError::NoContext {
                cluster,
                source,
                available,
            } => write!(
                f,
                "No context chosen for the {} cluster, and the kubeconfig {source} has no \
                 current-context; {}. Choose one with {}.",
                cluster_name(*cluster),
                list(available),
                context_flag(*cluster)
            ),
            ConnectError::NoMoskContext {
                source,
                available,
                ambiguous,
            } => write!(
                f,
                "Which context is the MOSK cluster? {} in the kubeconfig {source}; {}. \
                 Choose one with --mosk-context, or give the MOSK cluster's own kubeconfig \
                 with --mosk-kubeconfig.",
                if *ambiguous {
                    "Several context names contain \"mosk\""
                } else {
                    "No context other than the management one has \"mosk\" in its name"
                },
                list(available)
            ),
            ConnectError::UnknownContext {
                cluster,
                context,
                source,
                available,
            } => write!(
                f,
                "The context \"{context}\" asked for the {} cluster is not in the kubeconfig \
                 {source}; {}. Choose one with {}.",
                cluster_name(*cluster),
                list(available),
                context_flag(*cluster)
            ),
            ConnectError::BadContext {
                cluster,
                context,
                source,
                detail,
            } => write!(
                f,
                "The context \"{context}\" (the {} cluster) in the kubeconfig {source} cannot \
                 be used: {detail}. Check its cluster entry (server URL, certificate \
                 authority) and its user entry.",
                cluster_name(*cluster)
            ),
            ConnectError::Unreachable {
                cluster,
                context,
                server,
                detail,
            } => write!(
                f,
                "Cannot reach the {} cluster at {server} (context \"{context}\"): {detail}. \
                 Check that the URL in the kubeconfig is right, that the API server is up, \
                 and that this machine can reach it (VPN, proxy, firewall).",
                cluster_name(*cluster)
            ),
            ConnectError::BadVersion {
                cluster,
                context,
                server,
                detail,
            } => write!(
                f,
                "The server at {server} (the {} cluster, context \"{context}\") answered \
                 /version with something that is not a Kubernetes version: {detail}. Check \
                 that the URL in the kubeconfig points at the Kubernetes API server itself \
                 (not a proxy, load balancer or web page in front of it).",
                cluster_name(*cluster)
            ),
            ConnectError::TlsRefused {
                cluster,
                context,
                server,
                detail,
            } => write!(
                f,
                "The {} cluster at {server} (context \"{context}\") presented a certificate \
                 this console does not accept: {detail}. {}.",
                cluster_name(*cluster),
                super::tls::advice(server)
            ),
            ConnectError::AuthFailed {
                cluster,
                context,
                server,
                user,
                code,
                detail,
            } if *code == 0 => write!(
                f,
                "No credentials for user \"{user}\" of the {} cluster at {server} (context \
                 \"{context}\"): {detail}. Run the kubeconfig's credential plugin by hand \
                 (kubectl get nodes asks it too) to log in again, or get a fresh kubeconfig.",
                cluster_name(*cluster)
            ),
            ConnectError::AuthFailed {
                cluster,
                context,
                server,
                user,
                code,
                detail,
            } => {
                let what = match code {
                    401 => "refused the credentials of",
                    403 => "does not allow access to",
                    _ => "could not get credentials for",
                };
                let code = if *code == 0 {
                    String::new()
                } else {
                    format!(" ({code})")
                };
                write!(
                    f,
                    "The {} cluster at {server} {what} user \"{user}\" (context \
                     \"{context}\"){code}: {detail}. The token or certificate may have \
                     expired or been revoked: get a fresh kubeconfig for this cluster.",
                    cluster_name(*cluster)
                )
            }
        }
    }
}
