//! Building the two `kube::Client`s (management and MOSK cluster) from
//! kubeconfig files, and checking that both answer.
//!
//! Which kubeconfig and which contexts (decided here, documented for `--help`):
//! - The management cluster uses `--kubeconfig`, else the files in `KUBECONFIG`
//!   (merged, as kubectl does), else `~/.kube/config`; its context is
//!   `--mgmt-context`, else that kubeconfig's `current-context`.
//! - The MOSK cluster uses `--mosk-kubeconfig` when given (MCC hands out one
//!   kubeconfig per cluster), else the same kubeconfig as the management
//!   cluster. Its context is `--mosk-context`; else, with `--mosk-kubeconfig`,
//!   that file's `current-context`; else the one context (other than the
//!   management one) whose name contains `mosk`, such as the simulator's
//!   `sim-mosk`. Anything else is an error listing the contexts to choose from.
//!
//! Both servers are asked for `/version` (with a short timeout) before the
//! console starts, so a wrong URL or an expired token is reported up front.
//! A failed or malformed answer is asked again a few times ([`PROBE_ATTEMPTS`])
//! before the console gives up; an answer that is never a Kubernetes version
//! is reported as such ([`ConnectError::BadVersion`]), not as an unreachable
//! server.
//!
//! Each client carries a layer that samples the `Date` of every answer into
//! [`Clusters::clock`] (the API servers' clock offsets, [`crate::cluster::clock`]).
//!
//! What the jump host brings, handled here for every client:
//! - Every `exec` credential plugin runs non-interactive (`interactiveMode:
//!   Never`, as kubectl runs plugins without a terminal): kube then gives it
//!   no terminal stdin and captures its stderr instead of letting it write
//!   over the full-screen view (kube-client 5.0.0, src/client/auth/mod.rs,
//!   `auth_exec`). Its failures are shown in one redacted line ([`secret`]).
//! - The proxy is chosen as kubectl chooses it ([`proxy`]).
//! - Every request says `User-Agent: mosk-console/<version>`, so the API
//!   server's audit log and `managedFields` name the console.
//! - How each connection is protected ([`Transport`]) is kept for the status
//!   bar, the confirmation dialog and the audit log.
//! - No answer is read past a limit ([`limits`]): a watch event over 8 MiB or
//!   a list over 64 MiB is an error, not memory.

use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::Duration;

use kube::client::ClientBuilder;
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::{Client, Config};

use crate::cluster::clock::ClockSync;

use crate::domain::objects::ClusterId;
use crate::sanitize::sanitize;

mod error;
pub mod limits;
pub mod proxy;
pub mod secret;
pub mod tls;
mod transport;

pub use error::ConnectError;
pub use transport::Transport;

/// The `User-Agent` of every request: `mosk-console/<version>`. The API
/// server names a write's manager after its first word when no
/// `fieldManager` is given, and records it in its audit log.
pub const USER_AGENT: &str = concat!("mosk-console/", env!("CARGO_PKG_VERSION"));

/// How long to wait for a server's `/version` answer (and for its TCP connection).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// How many times `/version` is asked before the console gives up.
pub const PROBE_ATTEMPTS: u32 = 3;
/// The wait before the second attempt; it doubles for each later one.
pub const PROBE_RETRY: Duration = Duration::from_millis(250);

/// Where the two clusters are: kubeconfig files and contexts. Every field is
/// optional; see the module documentation for the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// The management cluster's kubeconfig (and the MOSK one's, unless
    /// `mosk_kubeconfig` is set). `None`: `KUBECONFIG`, else `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// `None`: the kubeconfig's current context.
    pub mgmt_context: Option<String>,
    /// `None`: see the module documentation.
    pub mosk_context: Option<String>,
    /// A separate kubeconfig for the MOSK cluster.
    pub mosk_kubeconfig: Option<PathBuf>,
}

/// Clients for both clusters, already checked to answer.
#[derive(Clone)]
pub struct Clusters {
    pub mgmt: Client,
    pub mosk: Client,
    pub mgmt_context: String,
    pub mosk_context: String,
    /// The kubeconfig user of each context (shown in the header; `-` when the context names none).
    pub mgmt_user: String,
    pub mosk_user: String,
    /// The server URL of each context.
    pub mgmt_server: String,
    pub mosk_server: String,
    /// How each connection is protected (TLS verified or not, plain HTTP).
    pub mgmt_transport: Transport,
    pub mosk_transport: Transport,
    /// The API servers' clock offsets, sampled by both clients.
    pub clock: ClockSync,
}

impl Clusters {
    /// The client for `cluster`.
    pub fn client(&self, cluster: ClusterId) -> &Client {
        match cluster {
            ClusterId::Mgmt => &self.mgmt,
            ClusterId::Mosk => &self.mosk,
        }
    }
}

impl std::fmt::Debug for Clusters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clusters")
            .field("mgmt_context", &self.mgmt_context)
            .field("mosk_context", &self.mosk_context)
            .field("mgmt_server", &self.mgmt_server)
            .field("mosk_server", &self.mosk_server)
            .finish_non_exhaustive()
    }
}

/// Installs rustls' `ring` crypto provider as the process default, once.
///
/// kube builds its TLS config with the process-default provider; if another
/// dependency ever enables rustls' `aws-lc-rs` too, rustls can no longer pick
/// one and panics at the first TLS connection (pitfall P4). Called by
/// [`connect`]; harmless to call again.
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Err means a provider is installed already, which is what we want.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Loads the kubeconfig(s) of `t`, builds both clients and checks that both
/// servers answer `/version` within [`PROBE_TIMEOUT`].
pub async fn connect(t: &Target) -> Result<Clusters, ConnectError> {
    install_crypto_provider();
    let main = load(t.kubeconfig.as_deref())?;
    let mgmt_context = match &t.mgmt_context {
        Some(c) => c.clone(),
        None => main
            .kubeconfig
            .current_context
            .clone()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| ConnectError::NoContext {
                cluster: ClusterId::Mgmt,
                source: main.source.clone(),
                available: context_names(&main.kubeconfig),
            })?,
    };
    let separate;
    let (mosk_kc, mosk_context) = match &t.mosk_kubeconfig {
        Some(path) => {
            separate = load(Some(path))?;
            let ctx = match &t.mosk_context {
                Some(c) => c.clone(),
                None => separate
                    .kubeconfig
                    .current_context
                    .clone()
                    .filter(|c| !c.is_empty())
                    .ok_or_else(|| ConnectError::NoContext {
                        cluster: ClusterId::Mosk,
                        source: separate.source.clone(),
                        available: context_names(&separate.kubeconfig),
                    })?,
            };
            (&separate, ctx)
        }
        None => {
            let ctx = match &t.mosk_context {
                Some(c) => c.clone(),
                None => guess_mosk_context(&main, &mgmt_context)?,
            };
            (&main, ctx)
        }
    };
    let clock = ClockSync::new();
    let mgmt = build(ClusterId::Mgmt, &main, &mgmt_context, &clock).await?;
    let mosk = build(ClusterId::Mosk, mosk_kc, &mosk_context, &clock).await?;
    let (a, b) = tokio::join!(probe(&mgmt), probe(&mosk));
    a?;
    b?;
    Ok(Clusters {
        mgmt: mgmt.client,
        mosk: mosk.client,
        mgmt_context,
        mosk_context,
        mgmt_user: mgmt.user,
        mosk_user: mosk.user,
        mgmt_server: mgmt.server,
        mosk_server: mosk.server,
        mgmt_transport: mgmt.transport,
        mosk_transport: mosk.transport,
        clock,
    })
}

/// A kubeconfig and a description of where it came from (for messages).
struct Loaded {
    kubeconfig: Kubeconfig,
    source: String,
}

fn load(path: Option<&Path>) -> Result<Loaded, ConnectError> {
    let (result, source) = match path {
        Some(p) => (Kubeconfig::read_from(p), p.display().to_string()),
        None => match Kubeconfig::from_env() {
            Ok(Some(kc)) => (Ok(kc), kubeconfig_env_source()),
            Ok(None) => match std::env::home_dir().map(|h| h.join(".kube").join("config")) {
                Some(p) => (Kubeconfig::read_from(&p), p.display().to_string()),
                None => return Err(ConnectError::NoKubeconfig),
            },
            Err(e) => (Err(e), kubeconfig_env_source()),
        },
    };
    match result {
        Ok(kubeconfig) => Ok(Loaded { kubeconfig, source }),
        Err(KubeconfigError::ReadConfig(err, path)) => {
            if err.kind() == std::io::ErrorKind::NotFound {
                Err(ConnectError::MissingFile { path })
            } else {
                Err(ConnectError::UnreadableFile {
                    path,
                    detail: err.to_string(),
                })
            }
        }
        Err(KubeconfigError::Parse(err)) => Err(ConnectError::BadYaml {
            source,
            // The parser adds a multi-line excerpt of the file; the first line says it all.
            detail: sanitize(err.to_string().lines().next().unwrap_or_default()),
        }),
        Err(other) => Err(ConnectError::BadYaml {
            source,
            detail: sanitize(&other.to_string()),
        }),
    }
}

fn kubeconfig_env_source() -> String {
    format!(
        "KUBECONFIG ({})",
        std::env::var_os("KUBECONFIG")
            .map(|v| v.to_string_lossy().into_owned())
            .unwrap_or_default()
    )
}

fn context_names(kc: &Kubeconfig) -> Vec<String> {
    kc.contexts.iter().map(|c| sanitize(&c.name)).collect()
}

fn guess_mosk_context(main: &Loaded, mgmt_context: &str) -> Result<String, ConnectError> {
    let candidates: Vec<&str> = main
        .kubeconfig
        .contexts
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| *n != mgmt_context && n.to_ascii_lowercase().contains("mosk"))
        .collect();
    match candidates.as_slice() {
        [one] => Ok(one.to_string()),
        _ => Err(ConnectError::NoMoskContext {
            source: main.source.clone(),
            available: context_names(&main.kubeconfig),
            ambiguous: candidates.len() > 1,
        }),
    }
}

/// A client and what the messages and the header say about it.
struct Built {
    cluster: ClusterId,
    client: Client,
    context: String,
    user: String,
    server: String,
    transport: Transport,
}

async fn build(
    cluster: ClusterId,
    loaded: &Loaded,
    context: &str,
    clock: &ClockSync,
) -> Result<Built, ConnectError> {
    let Some(named) = loaded
        .kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
    else {
        return Err(ConnectError::UnknownContext {
            cluster,
            context: sanitize(context),
            source: loaded.source.clone(),
            available: context_names(&loaded.kubeconfig),
        });
    };
    let user = named
        .context
        .as_ref()
        .and_then(|c| c.user.as_deref())
        .map(sanitize)
        .unwrap_or_else(|| "-".to_string());
    let options = KubeConfigOptions {
        context: Some(context.to_string()),
        ..Default::default()
    };
    let bad = |detail: String| ConnectError::BadContext {
        cluster,
        context: sanitize(context),
        source: loaded.source.clone(),
        detail: sanitize(&detail),
    };
    let mut kubeconfig = loaded.kubeconfig.clone();
    non_interactive(&mut kubeconfig);
    let explicit_proxy = cluster_proxy_url(&kubeconfig, context);
    let mut config = Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| match e {
            KubeconfigError::LoadClusterOfContext(c) => bad(format!(
                "it names the cluster \"{c}\", which the kubeconfig does not define"
            )),
            KubeconfigError::MissingClusterUrl => {
                bad("its cluster entry has no server URL".to_string())
            }
            other => bad(error_chain(&other)),
        })?;
    config.connect_timeout = Some(PROBE_TIMEOUT);
    config.proxy_url =
        proxy::choose(&config.cluster_url, explicit_proxy.as_deref()).map_err(&bad)?;
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_static(USER_AGENT),
    ));
    let transport = Transport::of(&config.cluster_url, config.accept_invalid_certs);
    if let Some(p) = &config.proxy_url {
        tracing::info!(cluster = ?cluster, proxy = %proxy::shown(p), "through a proxy");
    }
    let server = sanitize(config.cluster_url.to_string().trim_end_matches('/'));
    let client = ClientBuilder::try_from(config)
        .map_err(|e| match secret::credential_failure(&e) {
            // The plugin ran while the client was built (its first token).
            Some(detail) => ConnectError::AuthFailed {
                cluster,
                context: sanitize(context),
                server: server.clone(),
                user: user.clone(),
                code: 0,
                detail,
            },
            None => bad(secret::redact(&e.to_string())),
        })?
        .with_layer(&clock.layer(cluster))
        .with_layer(&limits::AnswerLimits::default())
        .build();
    Ok(Built {
        cluster,
        client,
        context: sanitize(context),
        user,
        server,
        transport,
    })
}

/// Sets `interactiveMode: Never` on every `exec` user (see the module text).
fn non_interactive(kc: &mut Kubeconfig) {
    for named in &mut kc.auth_infos {
        if let Some(exec) = named.auth_info.as_mut().and_then(|a| a.exec.as_mut()) {
            exec.interactive_mode = Some(kube::config::ExecInteractiveMode::Never);
        }
    }
}

/// The `proxy-url` of the cluster `context` names, if any.
fn cluster_proxy_url(kc: &Kubeconfig, context: &str) -> Option<String> {
    let cluster = kc
        .contexts
        .iter()
        .find(|c| c.name == context)?
        .context
        .as_ref()?
        .cluster
        .clone();
    kc.clusters
        .iter()
        .find(|c| c.name == cluster)?
        .cluster
        .as_ref()?
        .proxy_url
        .clone()
        .filter(|p| !p.is_empty())
}

/// Asks the server for `/version`, up to [`PROBE_ATTEMPTS`] times while the
/// answer is a failure worth retrying (no answer, a 5xx, a malformed body).
async fn probe(b: &Built) -> Result<(), ConnectError> {
    let mut wait = PROBE_RETRY;
    let mut attempt = 1;
    loop {
        let err = match probe_once(b).await {
            Ok(()) => return Ok(()),
            Err(e) => e,
        };
        let retry = matches!(
            err,
            ConnectError::Unreachable { .. } | ConnectError::BadVersion { .. }
        );
        if !retry || attempt >= PROBE_ATTEMPTS {
            return Err(with_attempts(err, attempt));
        }
        tracing::info!(cluster = ?b.cluster, attempt, error = %err, "probe failed; asking again");
        tokio::time::sleep(wait).await;
        wait *= 2;
        attempt += 1;
    }
}

/// Adds "(asked N times)" to the detail of a retried failure.
fn with_attempts(err: ConnectError, attempts: u32) -> ConnectError {
    if attempts < 2 {
        return err;
    }
    match err {
        ConnectError::Unreachable {
            cluster,
            context,
            server,
            detail,
        } => ConnectError::Unreachable {
            cluster,
            context,
            server,
            detail: format!("{detail} (asked {attempts} times)"),
        },
        ConnectError::BadVersion {
            cluster,
            context,
            server,
            detail,
        } => ConnectError::BadVersion {
            cluster,
            context,
            server,
            detail: format!("{detail} (asked {attempts} times)"),
        },
        other => other,
    }
}

/// Asks the server for `/version` once.
async fn probe_once(b: &Built) -> Result<(), ConnectError> {
    let unreachable = |detail: String| ConnectError::Unreachable {
        cluster: b.cluster,
        context: b.context.clone(),
        server: b.server.clone(),
        detail,
    };
    match tokio::time::timeout(PROBE_TIMEOUT, b.client.apiserver_version()).await {
        Err(_) => Err(unreachable(format!(
            "no answer within {} s",
            PROBE_TIMEOUT.as_secs()
        ))),
        Ok(Ok(_)) => Ok(()),
        Ok(Err(kube::Error::Api(status))) if status.code == 401 || status.code == 403 => {
            Err(ConnectError::AuthFailed {
                cluster: b.cluster,
                context: b.context.clone(),
                server: b.server.clone(),
                user: b.user.clone(),
                code: status.code,
                detail: sanitize(&status.message),
            })
        }
        Ok(Err(e)) if secret::credential_failure(&e).is_some() => Err(ConnectError::AuthFailed {
            cluster: b.cluster,
            context: b.context.clone(),
            server: b.server.clone(),
            user: b.user.clone(),
            code: 0,
            detail: secret::credential_failure(&e).unwrap_or_default(),
        }),
        Ok(Err(kube::Error::Auth(e))) => Err(ConnectError::AuthFailed {
            cluster: b.cluster,
            context: b.context.clone(),
            server: b.server.clone(),
            user: b.user.clone(),
            code: 0,
            detail: secret::redact_sanitize(&error_chain(&e)),
        }),
        Ok(Err(kube::Error::Api(status))) => Err(unreachable(format!(
            "the server answered {} {}",
            status.code,
            sanitize(&status.message)
        ))),
        // A 200 whose body is not a version (kube could not decode it).
        Ok(Err(kube::Error::SerdeError(e))) => Err(ConnectError::BadVersion {
            cluster: b.cluster,
            context: b.context.clone(),
            server: b.server.clone(),
            detail: sanitize(&e.to_string()),
        }),
        Ok(Err(e)) => Err(match tls::describe(&e) {
            Some(text) => ConnectError::TlsRefused {
                cluster: b.cluster,
                context: b.context.clone(),
                server: b.server.clone(),
                detail: text,
            },
            None => unreachable(secret::redact_sanitize(&root_cause(&e))),
        }),
    }
}

/// The innermost error: "Connection refused (os error 111)" rather than
/// "ServiceError: client error (Connect): tcp connect error: …".
fn root_cause(e: &dyn std::error::Error) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// An error and its sources, joined: kube's top-level messages ("ServiceError: …")
/// hide the useful part ("Connection refused") in the chain.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        let text = s.to_string();
        if !parts.last().is_some_and(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = s.source();
    }
    parts.join(": ")
}
