//! One kube-rs `watcher` per watched kind, feeding [`ClusterEvent`]s.
//!
//! - Custom kinds are looked up with discovery first; a CRD that is not served
//!   gives [`ClusterEvent::KindMissing`] and no watcher (instead of a watcher
//!   stuck retrying 404s, pitfall P7).
//! - A (re-)list (`Init` .. `InitDone`) is buffered here and sent as one
//!   [`ClusterEvent::Resynced`], so the UI never shows an empty table mid re-list.
//! - Errors never end a watch: they become [`ClusterEvent::Health`] with
//!   `connected: false` and the watcher retries under backoff. A 410 Gone is
//!   not an error for the operator: kube re-lists and a `Resynced` follows.
//! - The management kinds are read in the project namespace only (and, when a
//!   cluster name is given, only that cluster's objects); vRouter pods and
//!   DaemonSets are read in namespace `tf` and picked by name.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind};
use kube::discovery::{Scope, pinned_kind};
use kube::runtime::utils::Backoff;
use kube::runtime::watcher::{self, Event};
use kube::runtime::{WatchStreamExt, watcher as watch_stream};
use kube::{Client, ResourceExt};
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::cluster::backoff::{BackoffPolicy, RetryBackoff, sleep_until};
use crate::cluster::connect::{Clusters, error_chain};
use crate::cluster::convert::{VROUTER_NAMESPACE, convert, is_wanted, object_key};
use crate::cluster::events::{ClusterEvent, WatchHealth};
use crate::domain::objects::{ClusterId, Kind, Object};
use crate::sanitize::sanitize;

/// API group and version of every custom kind the console watches.
pub const LCM_GROUP: &str = "lcm.mirantis.com";
pub const LCM_VERSION: &str = "v1alpha1";

/// What to watch and how to retry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchOptions {
    /// The project namespace of the MOSK cluster in the management cluster
    /// (`--namespace`); LCMCluster, LCMMachine and LCMClusterState are read there.
    pub namespace: String,
    /// Only this cluster's LCM objects (`spec.clusterName`, or the LCMCluster's name).
    pub cluster_name: Option<String>,
    /// Retry delays after errors.
    pub backoff: BackoffPolicy,
    /// The server-side watch timeout (`timeoutSeconds`); kube reconnects (without
    /// a re-list) after it and treats `timeout + 5 s` of silence as a dead connection.
    pub timeout_secs: u32,
    /// A retry after an error that stays free of errors this long counts as
    /// reconnected (reported as healthy again).
    pub recovery_grace: Duration,
}

/// The project namespace used when `--namespace` is not given.
pub const DEFAULT_NAMESPACE: &str = "child-ns";

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            namespace: DEFAULT_NAMESPACE.to_string(),
            cluster_name: None,
            backoff: BackoffPolicy::Default,
            timeout_secs: 120,
            recovery_grace: Duration::from_secs(3),
        }
    }
}

/// Starts one watcher task per kind in [`Kind::ALL`], each on its cluster's
/// client. The tasks run until `cancel` fires or `tx`'s receiver is dropped.
/// Must be called inside a tokio runtime.
pub fn spawn_watchers(
    clusters: &Clusters,
    opts: &WatchOptions,
    tx: UnboundedSender<ClusterEvent>,
    cancel: CancellationToken,
) -> JoinSet<()> {
    let opts = Arc::new(opts.clone());
    let mut set = JoinSet::new();
    for kind in Kind::ALL {
        let client = clusters.client(kind.cluster()).clone();
        let w = KindWatch {
            kind,
            client,
            opts: opts.clone(),
            health: HealthReport::new(kind, tx.clone()),
            tx: tx.clone(),
        };
        let cancel = cancel.clone();
        set.spawn(async move {
            tokio::select! {
                _ = cancel.cancelled() => {}
                _ = w.run() => {}
            }
        });
    }
    set
}

/// The watch of one kind.
struct KindWatch {
    kind: Kind,
    client: Client,
    opts: Arc<WatchOptions>,
    health: HealthReport,
    tx: UnboundedSender<ClusterEvent>,
}

/// What to do after a watcher item.
enum Next {
    Continue,
    /// Start a new watcher (re-list).
    Restart,
    /// The receiver is gone.
    Stop,
}

impl KindWatch {
    async fn run(mut self) {
        let mut backoff = self.opts.backoff.build();
        let Some((resource, scope)) = self.resolve(&mut backoff).await else {
            return;
        };
        let api: Api<DynamicObject> = match scope {
            Scope::Cluster => Api::all_with(self.client.clone(), &resource),
            Scope::Namespaced => {
                Api::namespaced_with(self.client.clone(), self.namespace(), &resource)
            }
        };
        let config = watcher::Config::default().timeout(self.opts.timeout_secs);
        loop {
            // Backoff is applied here rather than with `.backoff()`/`.default_backoff()`
            // (same policy, same effect: the watcher only retries when polled) so
            // that we know when a retry starts: a retry that stays free of errors
            // for `recovery_grace` counts as reconnected, even if nothing changed
            // on the cluster (kube yields no item when a re-watch succeeds).
            let stream = watch_stream(api.clone(), config.clone())
                .modify(|o| o.managed_fields_mut().clear());
            let mut stream = std::pin::pin!(stream);
            let mut buffer: Option<Vec<Object>> = None;
            let mut quiet_until: Option<Instant> = None;
            loop {
                let item = tokio::select! {
                    item = stream.next() => item,
                    _ = sleep_until(quiet_until) => {
                        quiet_until = None;
                        if !self.health.recovered() {
                            return;
                        }
                        continue;
                    }
                };
                let next = match item {
                    Some(Ok(event)) => {
                        backoff.reset();
                        quiet_until = None;
                        self.on_event(event, &mut buffer)
                    }
                    Some(Err(err)) => {
                        let next = self.on_error(&err);
                        if !matches!(next, Next::Stop) {
                            tokio::time::sleep(backoff.delay()).await;
                            quiet_until = Some(Instant::now() + self.opts.recovery_grace);
                        }
                        next
                    }
                    // The watcher stream never ends; start over should it do so.
                    None => {
                        tokio::time::sleep(backoff.delay()).await;
                        Next::Restart
                    }
                };
                match next {
                    Next::Continue => {}
                    Next::Restart => break,
                    Next::Stop => return,
                }
            }
        }
    }

    fn namespace(&self) -> &str {
        match self.kind.cluster() {
            ClusterId::Mgmt => &self.opts.namespace,
            ClusterId::Mosk => VROUTER_NAMESPACE,
        }
    }

    /// The API resource of the kind, from discovery for custom kinds. `None`
    /// when the CRD is missing (after sending `KindMissing`) or the receiver is gone.
    async fn resolve(&mut self, backoff: &mut RetryBackoff) -> Option<(ApiResource, Scope)> {
        match self.kind {
            Kind::Node => return Some((ApiResource::erase::<Node>(&()), Scope::Cluster)),
            Kind::VrouterPod => return Some((ApiResource::erase::<Pod>(&()), Scope::Namespaced)),
            Kind::VrouterDaemonSet => {
                return Some((ApiResource::erase::<DaemonSet>(&()), Scope::Namespaced));
            }
            _ => {}
        }
        let gvk = GroupVersionKind::gvk(LCM_GROUP, LCM_VERSION, self.kind.api_kind());
        loop {
            match pinned_kind(&self.client, &gvk).await {
                Ok((resource, caps)) => return Some((resource, caps.scope)),
                Err(err) if crd_missing(&err) => {
                    let why = match &err {
                        kube::Error::Api(_) => "the API group is not served",
                        _ => "the API group does not list the kind",
                    };
                    let message = format!(
                        "The {} CRD ({}.{LCM_GROUP}) is not installed on the {} cluster \
                         ({why} in {LCM_GROUP}/{LCM_VERSION}); its objects cannot be shown.",
                        self.kind.api_kind(),
                        self.kind.plural(),
                        self.kind.cluster().label(),
                    );
                    let _ = self.tx.send(ClusterEvent::KindMissing {
                        kind: self.kind,
                        message,
                    });
                    return None;
                }
                Err(err) => {
                    let text = format!("discovery failed: {}", describe_kube_error(&err));
                    if !self.health.error(text) {
                        return None;
                    }
                    tokio::time::sleep(backoff.delay()).await;
                }
            }
        }
    }

    fn on_event(&mut self, event: Event<DynamicObject>, buffer: &mut Option<Vec<Object>>) -> Next {
        let cluster_name = self.opts.cluster_name.as_deref();
        let kind = self.kind;
        let message = match event {
            Event::Init => {
                *buffer = Some(Vec::new());
                None
            }
            Event::InitApply(o) => {
                if is_wanted(kind, &o, cluster_name) {
                    buffer.get_or_insert_with(Vec::new).push(convert(kind, &o));
                }
                None
            }
            Event::InitDone => Some(ClusterEvent::Resynced {
                kind,
                objects: buffer.take().unwrap_or_default(),
            }),
            Event::Apply(o) => {
                is_wanted(kind, &o, cluster_name).then(|| ClusterEvent::Applied(convert(kind, &o)))
            }
            Event::Delete(o) => is_wanted(kind, &o, cluster_name)
                .then(|| ClusterEvent::Deleted(object_key(kind, &o))),
        };
        // An InitApply only proves the list is progressing; report health once it is complete.
        let is_list_item = buffer.is_some();
        if !is_list_item && !self.health.ok() {
            return Next::Stop;
        }
        match message {
            Some(m) => {
                if self.tx.send(m).is_err() {
                    Next::Stop
                } else {
                    Next::Continue
                }
            }
            None => Next::Continue,
        }
    }

    fn on_error(&mut self, err: &watcher::Error) -> Next {
        if let Some(restart) = gone(err) {
            // The resourceVersion expired: kube re-lists by itself (a Resynced follows),
            // after the usual backoff so that a server answering 410 again and again
            // is not hammered with lists. When the server refused the watch request
            // itself with 410, kube keeps retrying the same resourceVersion, so a
            // fresh watcher is needed.
            tracing::debug!(kind = ?self.kind, "watch expired (410), re-listing");
            return if restart {
                Next::Restart
            } else {
                Next::Continue
            };
        }
        if self.health.error(describe_watch_error(err)) {
            Next::Continue
        } else {
            Next::Stop
        }
    }
}

/// `Some(restart)` when `err` is a 410 Gone; `restart` when kube will not re-list by itself.
fn gone(err: &watcher::Error) -> Option<bool> {
    match err {
        watcher::Error::WatchError(status) if status.code == 410 => Some(false),
        watcher::Error::WatchStartFailed(kube::Error::Api(status)) if status.code == 410 => {
            Some(true)
        }
        _ => None,
    }
}

/// Whether a discovery error means the kind is not served at all.
fn crd_missing(err: &kube::Error) -> bool {
    match err {
        kube::Error::Api(status) => status.code == 404,
        kube::Error::Discovery(_) => true,
        _ => false,
    }
}

/// A kube error in a sentence an operator can read (sanitized).
pub(crate) fn describe_kube_error(err: &kube::Error) -> String {
    let text = match err {
        kube::Error::Api(s) => {
            let reason = if s.reason.is_empty() {
                String::new()
            } else {
                format!(" {}", s.reason)
            };
            format!("the server answered {}{reason}: {}", s.code, s.message)
        }
        kube::Error::Discovery(d) => d.to_string(),
        other => error_chain(other),
    };
    sanitize(&text)
}

/// A watcher error in a sentence an operator can read (sanitized).
pub(crate) fn describe_watch_error(err: &watcher::Error) -> String {
    match err {
        watcher::Error::InitialListFailed(e) => format!("list failed: {}", describe_kube_error(e)),
        watcher::Error::WatchStartFailed(e) => {
            format!("watch request failed: {}", describe_kube_error(e))
        }
        watcher::Error::WatchError(s) => sanitize(&format!(
            "the server ended the watch with {} {}: {}",
            s.code, s.reason, s.message
        )),
        watcher::Error::WatchFailed(e) => format!("watch stream broke: {}", describe_kube_error(e)),
        watcher::Error::NoResourceVersion => {
            "the server sent an object without metadata.resourceVersion".to_string()
        }
    }
}

/// Sends [`ClusterEvent::Health`] when a watch's health changes, and at most
/// every [`HEALTH_REFRESH`] otherwise (to move `last_event` on).
struct HealthReport {
    kind: Kind,
    tx: UnboundedSender<ClusterEvent>,
    connected: bool,
    last_error: Option<String>,
    last_event: Option<jiff::Timestamp>,
    last_sent: Option<Instant>,
}

/// How often a healthy watch re-reports its `last_event`.
pub const HEALTH_REFRESH: Duration = Duration::from_secs(5);

impl HealthReport {
    fn new(kind: Kind, tx: UnboundedSender<ClusterEvent>) -> Self {
        HealthReport {
            kind,
            tx,
            connected: false,
            last_error: None,
            last_event: None,
            last_sent: None,
        }
    }

    /// An event arrived. Returns false when the receiver is gone.
    fn ok(&mut self) -> bool {
        let changed = !self.connected || self.last_error.is_some();
        let stale = self.last_sent.is_none_or(|t| t.elapsed() >= HEALTH_REFRESH);
        self.connected = true;
        self.last_error = None;
        self.last_event = Some(jiff::Timestamp::now());
        if changed || stale {
            return self.send();
        }
        true
    }

    /// A retry has gone without errors for a while. Returns false when the receiver is gone.
    fn recovered(&mut self) -> bool {
        if self.connected {
            return true;
        }
        self.connected = true;
        self.last_error = None;
        self.send()
    }

    /// An error happened. Returns false when the receiver is gone.
    fn error(&mut self, text: String) -> bool {
        let changed = self.connected || self.last_error.as_deref() != Some(text.as_str());
        self.connected = false;
        self.last_error = Some(text);
        if changed {
            return self.send();
        }
        true
    }

    fn send(&mut self) -> bool {
        self.last_sent = Some(Instant::now());
        let health = WatchHealth {
            cluster: self.kind.cluster(),
            connected: self.connected,
            last_event: self.last_event,
            last_error: self.last_error.clone(),
            retry_at: None,
        };
        self.tx
            .send(ClusterEvent::Health {
                kind: self.kind,
                health,
            })
            .is_ok()
    }
}
