//! Following the lcm-controller log (management cluster, namespace `kaas`,
//! pods `lcm-lcm-controller-*`, container `controller`; mosk-lcm-api §8).
//!
//! The follower watches the pods and reads the log of the best one (Ready,
//! then newest). When that pod is replaced it switches to the new Ready pod;
//! when the stream ends (container restart, API server drop) it reconnects
//! with `sinceTime` and drops the lines it already sent, so the operator sees
//! each line once. Lines are read as bytes and decoded lossily (one bad byte
//! never ends the tail), capped in length, stripped of the `timestamps=true`
//! prefix, sanitized, and sent in batches ([`ClusterEvent::LogLines`]).
//! What the follower is doing is reported as [`ClusterEvent::LogStatus`]: the
//! state of the log stream, or, while the pod watch is failing, that failure;
//! each is replaced as soon as its component recovers: the stream when it
//! opens again, the pod watch when it lists or delivers, or when its retry
//! stays free of errors for [`LogOptions::recovery_grace`] (no pod needs to
//! change).

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, LogParams};
use kube::runtime::utils::Backoff;
use kube::runtime::watcher::{self, Event};
use kube::runtime::{WatchStreamExt, watcher as watch_stream};
use kube::{Client, ResourceExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::cluster::backoff::{BackoffPolicy, RetryBackoff, sleep_until};
use crate::cluster::channel::EventSender;
use crate::cluster::events::ClusterEvent;
use crate::cluster::watch::{DEFAULT_RECOVERY_GRACE, describe_watch_error, gone};
use crate::sanitize::sanitize;

pub mod lines;
mod stream;

use lines::{Dedupe, cap_chars, decode, split_timestamp};
use stream::{read_log, recv};

/// Which log to follow and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogOptions {
    pub namespace: String,
    /// Pods whose name starts with this are lcm-controller pods.
    pub pod_prefix: String,
    pub container: String,
    /// Lines of history to fetch when starting on a pod.
    pub tail_lines: i64,
    /// Longer lines are cut (and marked with `…`).
    pub max_line_chars: usize,
    /// A batch is sent this long after its first line at the latest…
    pub batch_interval: Duration,
    /// …or as soon as it holds this many lines.
    pub batch_lines: usize,
    pub backoff: BackoffPolicy,
    /// Server-side timeout of the pod watch.
    pub watch_timeout_secs: u32,
    /// A retry of the pod watch after an error that stays free of errors
    /// this long counts as reconnected: its failure leaves the status then,
    /// whether or not a pod changed (as `WatchOptions::recovery_grace`).
    pub recovery_grace: Duration,
    /// How long a replaced pod's stream may go on delivering its last lines
    /// before the follower switches to the new pod anyway.
    pub switch_grace: Duration,
}

impl Default for LogOptions {
    fn default() -> Self {
        LogOptions {
            namespace: "kaas".to_string(),
            pod_prefix: "lcm-lcm-controller".to_string(),
            container: "controller".to_string(),
            tail_lines: 500,
            max_line_chars: 2000,
            batch_interval: Duration::from_millis(50),
            batch_lines: 200,
            backoff: BackoffPolicy::Default,
            watch_timeout_secs: 120,
            recovery_grace: DEFAULT_RECOVERY_GRACE,
            switch_grace: Duration::from_secs(5),
        }
    }
}

/// Starts the follower on the management cluster's `client`. It runs until
/// `cancel` fires or `tx`'s receiver is dropped.
pub fn spawn_log_follower(
    client: Client,
    opts: LogOptions,
    tx: EventSender,
    cancel: CancellationToken,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut follower = Follower::new(client, opts, tx);
        tokio::select! {
            _ = cancel.cancelled() => {}
            _ = follower.run() => {}
        }
        follower.abort_reader();
    })
}

/// What a reader task tells the follower.
enum Read {
    /// The stream is open.
    Opened,
    Line(Vec<u8>),
    /// The stream ended (`None`) or failed.
    End(Option<String>),
}

/// An open (or opening) log stream.
struct Conn {
    pod: String,
    rx: mpsc::Receiver<Read>,
    task: JoinHandle<()>,
    start: Start,
}

/// Why a stream was opened (for the status line).
enum Start {
    First,
    Reconnect,
    /// Following a new pod after this one.
    Replaced(String),
}

#[derive(Debug, Clone)]
struct PodInfo {
    ready: bool,
    deleting: bool,
    created: Option<jiff::Timestamp>,
}

struct Follower {
    opts: LogOptions,
    api: Api<Pod>,
    tx: EventSender,
    pods: BTreeMap<String, PodInfo>,
    /// Pods seen during a re-list, swapped in at `InitDone`.
    listing: Option<BTreeMap<String, PodInfo>>,
    conn: Option<Conn>,
    /// The pod whose lines `dedupe` has seen.
    dedupe_pod: Option<String>,
    dedupe: Dedupe,
    retry_at: Option<Instant>,
    /// When to give up on a replaced pod's stream and switch.
    switch_at: Option<Instant>,
    backoff: RetryBackoff,
    batch: Vec<String>,
    batch_pod: String,
    batch_deadline: Option<Instant>,
    /// What the log stream is doing ("connected to X", "retrying in …");
    /// never "following", the Logs view's word for its own state.
    stream_status: String,
    /// Why the pod watch is failing, until it lists or delivers again.
    pods_error: Option<String>,
    /// The status last sent.
    last_status: String,
    closed: bool,
}

impl Follower {
    fn new(client: Client, opts: LogOptions, tx: EventSender) -> Self {
        let stream_status = format!(
            "looking for the lcm-controller pod in namespace {}",
            opts.namespace
        );
        Follower {
            api: Api::namespaced(client, &opts.namespace),
            backoff: opts.backoff.build(),
            opts,
            tx,
            pods: BTreeMap::new(),
            listing: None,
            conn: None,
            dedupe_pod: None,
            dedupe: Dedupe::default(),
            retry_at: None,
            switch_at: None,
            batch: Vec::new(),
            batch_pod: String::new(),
            batch_deadline: None,
            stream_status,
            pods_error: None,
            last_status: String::new(),
            closed: false,
        }
    }

    async fn run(&mut self) {
        let config = watcher::Config::default().timeout(self.opts.watch_timeout_secs);
        // The pod watch retries under the same capped backoff as the kind
        // watches, applied here: kube's `.backoff()` was reset by the `Init`
        // each retry begins with, so a refused list was asked every ~0.7 s.
        // Not polling the watcher is waiting (it retries only when polled).
        let pods =
            watch_stream(self.api.clone(), config).modify(|p| p.managed_fields_mut().clear());
        let mut pods = std::pin::pin!(pods);
        let mut pods_backoff = self.opts.backoff.build();
        let mut pods_retry_at: Option<Instant> = None;
        // Until when the retry under way must stay free of errors to count
        // as reconnected: kube yields nothing when a re-watch succeeds and
        // no pod changed, so waiting for an event would keep the failure on
        // screen long after the watch works again.
        let mut pods_quiet_until: Option<Instant> = None;
        while !self.closed {
            tokio::select! {
                ev = pods.next(), if pods_retry_at.is_none() => match ev {
                    Some(Ok(ev)) => {
                        if !matches!(ev, Event::Init | Event::InitApply(_)) {
                            pods_backoff.reset();
                            pods_quiet_until = None;
                        }
                        self.on_pod_event(ev)
                    }
                    // A 410 in the stream is routine: kube lists again by itself.
                    Some(Err(e)) if gone(&e) == Some(false) => {}
                    Some(Err(e)) => {
                        let delay = pods_backoff.delay();
                        pods_retry_at = Some(Instant::now() + delay);
                        pods_quiet_until = None;
                        self.pods_error = Some(format!(
                            "{}; retrying in {:.1} s",
                            describe_watch_error(&e),
                            delay.as_secs_f64()
                        ));
                        self.publish_status();
                    }
                    None => return,
                },
                _ = sleep_until(pods_retry_at) => {
                    pods_retry_at = None;
                    pods_quiet_until = Some(Instant::now() + self.opts.recovery_grace);
                }
                _ = sleep_until(pods_quiet_until) => {
                    pods_quiet_until = None;
                    pods_backoff.reset();
                    if self.pods_error.take().is_some() {
                        self.publish_status();
                    }
                }
                read = recv(&mut self.conn) => self.on_read(read),
                _ = sleep_until(self.batch_deadline) => self.flush(),
                _ = sleep_until(self.retry_at) => {
                    self.retry_at = None;
                    self.reconcile();
                }
                _ = sleep_until(self.switch_at) => self.switch_now(),
            }
        }
    }

    fn on_pod_event(&mut self, ev: Event<Pod>) {
        // A completed list or a change proves the pod watch works again.
        if !matches!(ev, Event::Init | Event::InitApply(_)) && self.pods_error.take().is_some() {
            self.publish_status();
        }
        let prefix = self.opts.pod_prefix.as_str();
        match ev {
            Event::Init => self.listing = Some(BTreeMap::new()),
            Event::InitApply(p) => {
                if p.name_any().starts_with(prefix) {
                    self.listing
                        .get_or_insert_default()
                        .insert(p.name_any(), pod_info(&p));
                }
            }
            Event::InitDone => {
                self.pods = self.listing.take().unwrap_or_default();
                self.reconcile();
            }
            Event::Apply(p) => {
                if p.name_any().starts_with(prefix) {
                    self.pods.insert(p.name_any(), pod_info(&p));
                    self.reconcile();
                }
            }
            Event::Delete(p) => {
                if self.pods.remove(&p.name_any()).is_some() {
                    self.reconcile();
                }
            }
        }
    }

    /// The pod to follow: Ready and not terminating first, then not
    /// terminating, then the newest.
    fn best_pod(&self) -> Option<(&String, &PodInfo)> {
        self.pods
            .iter()
            .max_by_key(|(name, p)| (p.ready && !p.deleting, !p.deleting, p.created, *name))
    }

    /// Decides whether to open, keep or switch the log stream.
    fn reconcile(&mut self) {
        let best = self.best_pod().map(|(n, p)| (n.clone(), p.ready));
        if let Some(conn) = &self.conn {
            // Switch when the followed pod is gone, terminating or not Ready and a
            // Ready pod can take over; but first give the old stream `switch_grace`
            // to deliver its last lines (it usually ends by itself, and then the
            // follower moves on at once).
            let current = self.pods.get(&conn.pod);
            let current_ok = current.is_some_and(|p| p.ready && !p.deleting);
            let replace = match &best {
                Some((best, best_ready)) => {
                    *best != conn.pod && (current.is_none() || (!current_ok && *best_ready))
                }
                None => false,
            };
            if !replace {
                self.switch_at = None;
            } else if self.switch_at.is_none() {
                self.switch_at = Some(Instant::now() + self.opts.switch_grace);
            }
            return;
        }
        match best {
            Some((best, _)) => {
                // A new pod does not wait for the retry delay meant for the old one.
                if self.retry_at.is_none() || self.dedupe_pod.as_ref() != Some(&best) {
                    self.retry_at = None;
                    self.open(best);
                }
            }
            None => self.status(format!(
                "no lcm-controller pod ({}-*) in namespace {}",
                self.opts.pod_prefix, self.opts.namespace
            )),
        }
    }

    /// The switch grace ran out: drop the old stream and follow the best pod.
    fn switch_now(&mut self) {
        self.switch_at = None;
        self.abort_reader();
        self.flush();
        self.reconcile();
    }

    fn open(&mut self, pod: String) {
        let same_pod = self.dedupe_pod.as_ref() == Some(&pod);
        let since_time = if same_pod {
            self.dedupe.last_timestamp()
        } else {
            None
        };
        let start = if same_pod {
            Start::Reconnect
        } else {
            match self.dedupe_pod.clone() {
                Some(old) => Start::Replaced(old),
                None => Start::First,
            }
        };
        if let Some(since) = since_time {
            self.dedupe.reopen();
            tracing::debug!(%pod, %since, "reopening the log stream");
        } else if !same_pod {
            self.dedupe = Dedupe::default();
            self.dedupe_pod = Some(pod.clone());
        }
        let params = LogParams {
            container: Some(self.opts.container.clone()),
            follow: true,
            timestamps: true,
            since_time,
            tail_lines: since_time.is_none().then_some(self.opts.tail_lines),
            ..Default::default()
        };
        let (tx, rx) = mpsc::channel(1024);
        let max_bytes = self
            .opts
            .max_line_chars
            .saturating_mul(4)
            .saturating_add(64);
        let task = tokio::spawn(read_log(
            self.api.clone(),
            pod.clone(),
            params,
            tx,
            max_bytes,
        ));
        self.conn = Some(Conn {
            pod,
            rx,
            task,
            start,
        });
    }

    fn abort_reader(&mut self) {
        if let Some(conn) = self.conn.take() {
            conn.task.abort();
        }
    }

    fn on_read(&mut self, read: Read) {
        let Some(conn) = &self.conn else { return };
        let pod = conn.pod.clone();
        match read {
            Read::Opened => {
                let container = &self.opts.container;
                let message = match &conn.start {
                    Start::First => format!("connected to {pod} (container {container})"),
                    Start::Reconnect => format!("reconnected to {pod} (container {container})"),
                    Start::Replaced(old) => {
                        format!("{old} was replaced; connected to {pod} (container {container})")
                    }
                };
                self.status(message);
            }
            Read::Line(raw) => {
                self.backoff.reset();
                self.on_line(&pod, &raw);
            }
            Read::End(error) => {
                self.conn = None;
                self.switch_at = None;
                self.flush();
                // If the pod is gone or replaced, go to the new one at once.
                if self.best_pod().is_some_and(|(n, _)| *n != pod) {
                    self.retry_at = None;
                    self.reconcile();
                    return;
                }
                let delay = self.backoff.delay();
                let why = match error {
                    Some(e) => format!("cannot read the log of {pod}: {e}"),
                    None => format!("the log stream of {pod} ended"),
                };
                self.status(format!("{why}; retrying in {:.1} s", delay.as_secs_f64()));
                self.retry_at = Some(Instant::now() + delay);
            }
        }
    }

    fn on_line(&mut self, pod: &str, raw: &[u8]) {
        let line = decode(raw);
        let body = match split_timestamp(&line) {
            Some((ts, body)) => {
                if !self.dedupe.admit(ts, body) {
                    return;
                }
                body
            }
            // Without a timestamp the line cannot be matched after a reconnect; keep it.
            None => line.as_str(),
        };
        let text = sanitize(&cap_chars(body.to_string(), self.opts.max_line_chars));
        if self.batch_pod != pod {
            self.flush();
            self.batch_pod = pod.to_string();
        }
        self.batch.push(text);
        if self.batch.len() >= self.opts.batch_lines {
            self.flush();
        } else if self.batch_deadline.is_none() {
            self.batch_deadline = Some(Instant::now() + self.opts.batch_interval);
        }
    }

    fn flush(&mut self) {
        self.batch_deadline = None;
        if self.batch.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut self.batch);
        self.send(ClusterEvent::LogLines {
            pod: sanitize(&self.batch_pod),
            lines,
        });
    }

    /// The log stream's state changed.
    fn status(&mut self, message: String) {
        self.stream_status = message;
        self.publish_status();
    }

    /// Sends the status when it changed: the pod watch's failure while there
    /// is one, else the log stream's state.
    fn publish_status(&mut self) {
        let message = match &self.pods_error {
            Some(e) => format!("cannot watch the lcm-controller pods: {e}"),
            None => self.stream_status.clone(),
        };
        if message != self.last_status {
            self.last_status = message.clone();
            self.send(ClusterEvent::LogStatus {
                message: sanitize(&message),
            });
        }
    }

    fn send(&mut self, ev: ClusterEvent) {
        if self.tx.send(ev).is_err() {
            self.closed = true;
        }
    }
}

fn pod_info(p: &Pod) -> PodInfo {
    let ready = p
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
    PodInfo {
        ready,
        deleting: p.metadata.deletion_timestamp.is_some(),
        created: p.metadata.creation_timestamp.as_ref().map(|t| t.0),
    }
}
