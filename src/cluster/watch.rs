//! One kube-rs `watcher` per watched kind, feeding [`ClusterEvent`]s.
//!
//! - Custom kinds are looked up with discovery first; a CRD that is not served
//!   gives [`ClusterEvent::KindMissing`] and no watcher (instead of a watcher
//!   stuck retrying 404s, pitfall P7).
//! - A (re-)list (`Init` .. `InitDone`, paginated by `page_size`) is buffered
//!   here and sent as one [`ClusterEvent::Resynced`], so the UI never shows an
//!   empty table mid re-list.
//! - Every `resync_every` the kind is listed again (a fresh watcher) and only
//!   what differs from what was sent goes out, as `Applied`/`Deleted`, then
//!   [`ClusterEvent::Drift`] with the count. kube's client skips a watch event
//!   that arrives truncated on the wire without a word; this repairs it.
//! - Errors never end a watch: they become [`ClusterEvent::Health`] with
//!   `connected: false` and `retry_at`, and the watcher retries under backoff
//!   (reset by a successful list, an event, or a retry free of errors). A 410
//!   Gone is not an error for the operator: kube re-lists and a `Resynced` follows.
//! - The management kinds are read in the project namespace only (and, when a
//!   cluster name is given, only that cluster's objects); vRouter pods and
//!   DaemonSets are read in namespace `tf` and picked by name; the
//!   OpenStackDeploymentStatus in namespace `openstack`, the
//!   CephDeploymentHealth in `ceph-lcm-mirantis`.
//! - At most [`WatchOptions::max_objects`] objects of a kind are sent; what
//!   is over is counted and reported as [`ClusterEvent::Capped`] ([`cap`]).
//! - A watch reads on from its server only while the channel to the UI has
//!   room ([`EventSender::room`]): a flood waits on the wire, not in memory.
//! - Alongside the watchers one task reports the API servers' clock offsets
//!   ([`ClusterEvent::ClockOffset`], [`clock::report_offsets`]).

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
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::cluster::backoff::{BackoffPolicy, RetryBackoff, sleep_until};
use crate::cluster::channel::EventSender;
use crate::cluster::clock;
use crate::cluster::connect::Clusters;
use crate::cluster::convert::{convert, is_wanted, mosk_namespace, object_key};
use crate::cluster::events::ClusterEvent;
use crate::domain::objects::{ClusterId, Kind, Object};

mod cap;
mod describe;
mod health;
mod known;
mod trim;

use cap::Cap;
pub(crate) use describe::{
    crd_missing, describe_kube_error, describe_watch_error, gone, refusal_text,
};
use describe::{not_served, problem};
pub use health::HEALTH_REFRESH;
use health::HealthReport;
use known::Known;

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
    /// How often each kind is listed again to catch changes the watch lost
    /// (`--resync-every`).
    pub resync_every: Duration,
    /// Objects per page of a list (`limit`, then `continue`).
    pub page_size: u32,
    /// How often each API server is asked `/version`, so that its clock offset
    /// is sampled even when no other request goes out (long-lived watches).
    pub clock_probe_every: Duration,
    /// The most objects of one kind the console holds (`--max-objects`).
    pub max_objects: usize,
}

/// How long a retry after an error must stay free of errors to count as
/// reconnected, by default (the kind watches and the log follower's pod
/// watch: kube yields nothing when a re-watch succeeds and nothing changed).
pub const DEFAULT_RECOVERY_GRACE: Duration = Duration::from_secs(3);
/// The project namespace used when `--namespace` is not given.
pub const DEFAULT_NAMESPACE: &str = "child-ns";
/// How often each kind is re-listed when `--resync-every` is not given.
pub const DEFAULT_RESYNC_EVERY: Duration = Duration::from_secs(300);
/// How often the clocks are sampled with a `/version` request, by default.
pub const DEFAULT_CLOCK_PROBE_EVERY: Duration = Duration::from_secs(30);
/// The most objects of one kind the console holds, by default: ten times
/// the machines of the `large` scenario (2,000), which a region of a few
/// hundred servers is far below.
pub const DEFAULT_MAX_OBJECTS: usize = 20_000;

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            namespace: DEFAULT_NAMESPACE.to_string(),
            cluster_name: None,
            backoff: BackoffPolicy::Default,
            timeout_secs: 120,
            recovery_grace: DEFAULT_RECOVERY_GRACE,
            resync_every: DEFAULT_RESYNC_EVERY,
            // kube's default page size (as kubectl's 500).
            page_size: 500,
            clock_probe_every: DEFAULT_CLOCK_PROBE_EVERY,
            max_objects: DEFAULT_MAX_OBJECTS,
        }
    }
}

/// Starts one watcher task per kind in [`Kind::ALL`], each on its cluster's
/// client, and the task reporting the clusters' clock offsets. The tasks run
/// until `cancel` fires or `tx`'s receiver is dropped. Must be called inside
/// a tokio runtime.
pub fn spawn_watchers(
    clusters: &Clusters,
    opts: &WatchOptions,
    tx: EventSender,
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
            known: Known::default(),
            cap: Cap::new(kind, opts.max_objects),
            tx: tx.clone(),
            gone_missing: false,
            list_started_at: None,
        };
        let cancel = cancel.clone();
        set.spawn(async move {
            tokio::select! {
                _ = cancel.cancelled() => {}
                _ = w.run() => {}
            }
        });
    }
    let clusters = clusters.clone();
    let every = opts.clock_probe_every;
    set.spawn(async move {
        tokio::select! {
            _ = cancel.cancelled() => {}
            _ = clock::report_offsets(clusters, every, tx) => {}
        }
    });
    set
}

/// The watch of one kind.
struct KindWatch {
    kind: Kind,
    client: Client,
    opts: Arc<WatchOptions>,
    health: HealthReport,
    /// What was sent, for the periodic re-list to compare with.
    known: Known,
    cap: Cap,
    tx: EventSender,
    /// `KindMissing` was sent for a 404 mid-session and no list has succeeded since.
    gone_missing: bool,
    /// When the list under way started, for the trace log.
    list_started_at: Option<Instant>,
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
        let config = watcher::Config::default()
            .timeout(self.opts.timeout_secs)
            .page_size(self.opts.page_size);
        // When the next periodic re-list starts (set after each successful list).
        let mut resync_at: Option<Instant> = None;
        // The running watcher was started by the periodic re-list.
        let mut periodic = false;
        loop {
            // Backoff is applied here rather than with `.backoff()`/`.default_backoff()`
            // (same effect: the watcher only retries when polled) so that we know
            // when a retry starts (`retry_at`), and so that a retry that stays free
            // of errors for `recovery_grace` counts as reconnected, even if nothing
            // changed on the cluster (kube yields no item when a re-watch succeeds).
            let stream = watch_stream(api.clone(), config.clone())
                .modify(|o| o.managed_fields_mut().clear());
            let mut stream = std::pin::pin!(stream);
            let mut buffer: Option<Vec<Object>> = None;
            let mut quiet_until: Option<Instant> = None;
            loop {
                self.tx.room().await;
                let item = tokio::select! {
                    item = stream.next() => item,
                    _ = sleep_until(quiet_until) => {
                        quiet_until = None;
                        backoff.reset();
                        if !self.health.recovered() {
                            return;
                        }
                        continue;
                    }
                    _ = sleep_until(resync_at) => {
                        // A fresh watcher lists the kind again; its InitDone is compared.
                        resync_at = None;
                        periodic = true;
                        tracing::debug!(kind = ?self.kind, "periodic re-list");
                        break;
                    }
                };
                let next = match item {
                    Some(Ok(event)) => {
                        // `Init` comes before the list is asked for, and an
                        // `InitApply` is part of a list that may still fail.
                        if !matches!(event, Event::Init | Event::InitApply(_)) {
                            backoff.reset();
                            quiet_until = None;
                        }
                        let was_periodic = periodic;
                        if matches!(event, Event::InitDone) {
                            resync_at = Some(Instant::now() + self.opts.resync_every);
                            periodic = false;
                        }
                        self.on_event(event, &mut buffer, was_periodic)
                    }
                    Some(Err(err)) => {
                        let delay = backoff.delay();
                        let next = self.on_error(&err, delay);
                        if !matches!(next, Next::Stop) {
                            tokio::time::sleep(delay).await;
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
            ClusterId::Mosk => mosk_namespace(self.kind),
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
        let (group, version) = self.kind.group_version();
        let gvk = GroupVersionKind::gvk(group, version, self.kind.api_kind());
        loop {
            match pinned_kind(&self.client, &gvk).await {
                Ok((resource, caps)) => return Some((resource, caps.scope)),
                Err(err) if crd_missing(&err) => {
                    let why = match &err {
                        kube::Error::Api(_) => "the API group is not served",
                        _ => "the API group does not list the kind",
                    };
                    let message = format!(
                        "The {} CRD ({}.{group}) is not installed on the {} cluster \
                         ({why} in {group}/{version}); its objects cannot be shown.",
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
                    let delay = backoff.delay();
                    if !self.health.error(text, describe::kube_problem(&err), delay) {
                        return None;
                    }
                    tokio::time::sleep(delay).await;
                }
            }
        }
    }

    /// Handles one watcher event; `periodic`: a list that ends here was the
    /// periodic re-list.
    fn on_event(
        &mut self,
        event: Event<DynamicObject>,
        buffer: &mut Option<Vec<Object>>,
        periodic: bool,
    ) -> Next {
        let cluster_name = self.opts.cluster_name.as_deref();
        let kind = self.kind;
        let list_done = matches!(event, Event::InitDone);
        let messages = match event {
            Event::Init => {
                *buffer = Some(Vec::new());
                self.cap.list_started();
                self.list_started_at = Some(Instant::now());
                Vec::new()
            }
            Event::InitApply(o) => {
                if is_wanted(kind, &o, cluster_name) {
                    let listed = buffer.get_or_insert_with(Vec::new);
                    if self.cap.admit_listed(listed.len(), &object_key(kind, &o)) {
                        listed.push(convert(kind, &o));
                    }
                }
                Vec::new()
            }
            Event::InitDone => {
                let objects = buffer.take().unwrap_or_default();
                if let Some(started) = self.list_started_at.take() {
                    tracing::debug!(?kind, objects = objects.len(), took = ?started.elapsed(), "listed");
                }
                // After a 404 the kind was settled as missing: a full list brings it back.
                let periodic = periodic && !std::mem::take(&mut self.gone_missing);
                let mut out = if periodic && self.known.listed() && self.cap.list_comparable() {
                    self.drift(objects)
                } else {
                    vec![ClusterEvent::Resynced { kind, objects }]
                };
                out.extend(self.cap.report());
                out
            }
            Event::Apply(o) => {
                let key = object_key(kind, &o);
                if is_wanted(kind, &o, cluster_name) {
                    if self.cap.admit(&self.known, &key) {
                        vec![ClusterEvent::Applied(convert(kind, &o))]
                    } else {
                        self.cap.report().into_iter().collect()
                    }
                } else if self.cap.forget(&key) {
                    self.cap.report().into_iter().collect()
                } else if self.known.contains(&key) {
                    // An object that no longer belongs here (moved to another cluster).
                    vec![ClusterEvent::Deleted(key)]
                } else {
                    Vec::new()
                }
            }
            Event::Delete(o) => {
                let key = object_key(kind, &o);
                if !is_wanted(kind, &o, cluster_name) {
                    Vec::new()
                } else if self.cap.forget(&key) {
                    self.cap.report().into_iter().collect()
                } else {
                    vec![ClusterEvent::Deleted(key)]
                }
            }
        };
        // An InitApply only proves the list is progressing; report health once it is complete.
        let is_list_item = buffer.is_some();
        if !is_list_item && !self.health.ok() {
            return Next::Stop;
        }
        for m in messages {
            self.known.note(&m);
            if self.tx.send(m).is_err() {
                return Next::Stop;
            }
        }
        if list_done {
            // The list's pages of JSON are freed by now.
            trim::release_free_memory();
        }
        Next::Continue
    }

    /// What a periodic re-list found that the watch had not delivered: the
    /// differences, then `Drift` with their count; nothing when nothing differs.
    fn drift(&self, listed: Vec<Object>) -> Vec<ClusterEvent> {
        let mut out = self.known.differences(self.kind, listed);
        if !out.is_empty() {
            let count = out.len();
            tracing::warn!(
                kind = ?self.kind,
                count,
                "the periodic re-list found changes the watch had not delivered"
            );
            out.push(ClusterEvent::Drift {
                kind: self.kind,
                count,
            });
        }
        out
    }

    fn on_error(&mut self, err: &watcher::Error, retry_in: Duration) -> Next {
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
        if not_served(err) && !self.gone_missing {
            self.gone_missing = true;
            // The CRD was removed (or is being reinstalled): say so, drop its
            // objects, and keep asking under the usual backoff; the first
            // list that succeeds brings the kind back.
            let (group, version) = self.kind.group_version();
            let message = format!(
                "The {} CRD ({}.{group}) is no longer served by the {} cluster (404 for \
                 {group}/{version}): it was removed or is being reinstalled. Its objects \
                 are gone from every view that shows them; asking again every {} s at most.",
                self.kind.api_kind(),
                self.kind.plural(),
                self.kind.cluster().label(),
                crate::cluster::backoff::DEFAULT_MAX.as_secs(),
            );
            if self
                .tx
                .send(ClusterEvent::KindMissing {
                    kind: self.kind,
                    message,
                })
                .is_err()
            {
                return Next::Stop;
            }
        }
        if !self
            .health
            .error(describe_watch_error(err), problem(err), retry_in)
        {
            return Next::Stop;
        }
        if self.gone_missing {
            // kube would retry the watch from the old resourceVersion; a
            // kind that comes back must be listed whole (its objects were dropped).
            Next::Restart
        } else {
            Next::Continue
        }
    }
}
