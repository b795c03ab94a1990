//! WATCH: newline-delimited JSON events over a chunked body. Every object
//! carries its resource version; BOOKMARKs carry apiVersion and kind; an
//! expired start gets an ERROR event with a 410 Status; the stream closes at
//! `timeoutSeconds` (real time), on a dropped-watches fault, or when the
//! client goes away. A `truncate-event` fault cuts one MODIFIED line short.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use super::list::parse_rv;
use super::request::{Output, Query};
use super::table::{self, IncludeObject};
use super::{Ctx, stream};
use crate::sim::faults::Faults;
use crate::sim::registry::ResourceInfo;
use crate::sim::store::objects::{meta_str, namespace_of};
use crate::sim::store::selectors::{FieldSelector, Selectors};
use crate::sim::store::{
    ApiError, EventType, Store, StoreEvent, StoreResult, WatchFrom, WatchStart,
};

/// Default watch length when the client sends no `timeoutSeconds` (the
/// apiserver's `--min-request-timeout`).
const DEFAULT_TIMEOUT_SECS: i64 = 1800;
const MAX_TIMEOUT_SECS: i64 = 24 * 3600;
/// How often a quiet watch with bookmarks gets one (real time).
const BOOKMARK_EVERY: Duration = Duration::from_secs(60);

/// What one watch stream sends.
struct Filter {
    info: ResourceInfo,
    ns: Option<String>,
    sel: Selectors,
    name: Option<FieldSelector>,
    output: Output,
    include: IncludeObject,
}

impl Filter {
    fn matches(&self, obj: &Value) -> bool {
        self.sel.matches(obj) && self.name.as_ref().is_none_or(|n| n.matches(obj))
    }

    /// The event type this watcher sees for a store event, if any (objects
    /// moving in or out of the selection become ADDED / DELETED).
    fn translate(&self, ev: &StoreEvent) -> Option<&'static str> {
        if ev.plural != self.info.plural {
            return None;
        }
        if let Some(ns) = &self.ns
            && namespace_of(&ev.object) != ns
        {
            return None;
        }
        let now = self.matches(&ev.object);
        let before = ev.old.as_ref().map(|o| self.matches(o));
        match ev.kind {
            EventType::Added => now.then_some("ADDED"),
            EventType::Deleted => before.unwrap_or(now).then_some("DELETED"),
            EventType::Modified => match (before.unwrap_or(now), now) {
                (true, true) => Some("MODIFIED"),
                (false, true) => Some("ADDED"),
                (true, false) => Some("DELETED"),
                (false, false) => None,
            },
        }
    }

    fn encode(&self, obj: &Value, first: bool, store: &Store) -> Value {
        match self.output {
            Output::Json => obj.clone(),
            Output::PartialMetadata => table::partial_metadata(obj),
            Output::Table => table::table(
                &self.info,
                std::slice::from_ref(obj),
                store.now(),
                self.include,
                json!({"resourceVersion": meta_str(obj, "resourceVersion").unwrap_or_default()}),
                first,
            ),
        }
    }

    fn bookmark(&self, rv: u64, initial_end: bool) -> Value {
        let mut meta = json!({"resourceVersion": rv.to_string()});
        if initial_end {
            meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        json!({"type": "BOOKMARK", "object": {
            "kind": self.info.kind, "apiVersion": self.info.api_version(), "metadata": meta}})
    }
}

fn line(v: &Value) -> Bytes {
    let mut b = serde_json::to_vec(v).unwrap_or_default();
    b.push(b'\n');
    Bytes::from(b)
}

/// An event line cut short on the wire (the injected `truncate-event`
/// fault): the first half of its JSON, then the newline. A JSON prefix is an
/// "unexpected end of input" to a parser, which kube's client skips.
fn truncated(v: &Value) -> Bytes {
    let full = serde_json::to_vec(v).unwrap_or_default();
    let mut b = full[..full.len() / 2].to_vec();
    b.push(b'\n');
    Bytes::from(b)
}

/// One event as it goes on the wire: cut short when a `truncate-event` fault
/// is pending for its resource (every path that sends events asks here).
fn event_line(t: &str, obj: Value, plural: &str, faults: &Faults) -> Bytes {
    let event = json!({"type": t, "object": obj});
    if t == "MODIFIED" && faults.take_truncation(plural) {
        truncated(&event)
    } else {
        line(&event)
    }
}

fn error_event(e: &ApiError) -> Value {
    json!({"type": "ERROR", "object": e.to_status_json()})
}

pub fn serve(
    ctx: &Ctx,
    info: &ResourceInfo,
    ns: Option<&str>,
    name: Option<&str>,
    q: &Query,
    output: Output,
) -> StoreResult<Response> {
    let sel = Selectors::parse(q.str("labelSelector"), q.str("fieldSelector"), &info.plural)?;
    let name = name
        .map(|n| FieldSelector::parse(&format!("metadata.name={n}"), &info.plural))
        .transpose()?;
    let include = IncludeObject::parse(q.str("includeObject"))
        .ok_or_else(|| ApiError::bad_request("includeObject must be None, Metadata or Object"))?;
    let send_initial = match q.get("sendInitialEvents") {
        None | Some("") => None,
        Some(_) => Some(q.bool("sendInitialEvents")?),
    };
    let bookmarks = q.bool("allowWatchBookmarks")?;
    let timeout = match q.int("timeoutSeconds")? {
        Some(t) if t > 0 => t.min(MAX_TIMEOUT_SECS),
        _ => DEFAULT_TIMEOUT_SECS,
    };
    let rv = q.str("resourceVersion");
    let rv_num = if rv.is_empty() {
        None
    } else {
        Some(parse_rv(rv)?)
    };
    let from = match (send_initial, rv_num) {
        (Some(true), _) | (None, None | Some(0)) => WatchFrom::Snapshot,
        (Some(false), None | Some(0)) => WatchFrom::Since(ctx.store.resource_version()),
        (_, Some(n)) => WatchFrom::Since(n),
    };
    let faults = &ctx.opts.faults;
    let start = if faults.take_forced_410() {
        Err(ApiError::expired(rv_num.unwrap_or(0)))
    } else {
        match from {
            WatchFrom::Since(n) if faults.is_expired(n) => Err(ApiError::expired(n)),
            _ => ctx.store.watch(&info.plural, from),
        }
    };
    let start = match start {
        Ok(s) => Some(s),
        Err(e) if e.code == 410 => {
            faults.count_gone();
            None
        }
        Err(e) => return Err(e),
    };
    let (tx, resp) = stream::channel("application/json");
    let filter = Filter {
        info: info.clone(),
        ns: ns.map(str::to_string),
        sel,
        name,
        output,
        include,
    };
    let store = ctx.store.clone();
    let drop_rx = faults.drop_signal();
    let faults = faults.clone();
    let expired_rv = rv_num.unwrap_or(0);
    tokio::spawn(async move {
        match start {
            None => {
                let _ = tx
                    .send(line(&error_event(&ApiError::expired(expired_rv))))
                    .await;
            }
            Some(start) => {
                let opts = RunOpts {
                    bookmarks,
                    initial_end: send_initial == Some(true),
                    timeout: Duration::from_secs(timeout as u64),
                };
                run(store, filter, start, opts, drop_rx, faults, tx).await;
            }
        }
    });
    Ok(resp)
}

struct RunOpts {
    bookmarks: bool,
    initial_end: bool,
    timeout: Duration,
}

async fn run(
    store: Arc<Store>,
    filter: Filter,
    start: WatchStart,
    opts: RunOpts,
    mut drop_rx: tokio::sync::watch::Receiver<u64>,
    faults: Arc<Faults>,
    tx: mpsc::Sender<Bytes>,
) {
    // `drop_rx` was subscribed when the request arrived: a drop since then
    // (before this task first ran) still closes the stream.
    let deadline = tokio::time::Instant::now() + opts.timeout;
    let mut bookmark_tick =
        tokio::time::interval_at(tokio::time::Instant::now() + BOOKMARK_EVERY, BOOKMARK_EVERY);
    let mut first = true;
    let WatchStart {
        initial,
        mut rx,
        rv,
    } = start;
    let send = |v: Value| {
        let tx = tx.clone();
        async move { tx.send(line(&v)).await.is_ok() }
    };
    // Events replayed from the window (a resumed watch) go through the same
    // faults as live ones: a truncation may hit either.
    for ev in &initial {
        if let Some(t) = filter.translate(ev) {
            let obj = filter.encode(&ev.object, first, &store);
            first = false;
            let wire = event_line(t, obj, &filter.info.plural, &faults);
            if tx.send(wire).await.is_err() {
                return;
            }
        }
    }
    if opts.initial_end && !send(filter.bookmark(rv, true)).await {
        return;
    }
    loop {
        tokio::select! {
            ev = rx.recv() => match ev {
                Ok(ev) => {
                    if let Some(t) = filter.translate(&ev) {
                        let obj = filter.encode(&ev.object, first, &store);
                        first = false;
                        let wire = event_line(t, obj, &filter.info.plural, &faults);
                        if tx.send(wire).await.is_err() {
                            return;
                        }
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Too slow to keep up: the client must re-list.
                    let _ = send(error_event(&ApiError::expired(rv))).await;
                    return;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            _ = tokio::time::sleep_until(deadline) => {
                if opts.bookmarks {
                    bookmark_now(&store, &filter, &faults, &mut rx, &mut first, &tx).await;
                }
                return;
            },
            _ = bookmark_tick.tick(), if opts.bookmarks => {
                // Keep quiet or filtered watchers' resume points fresh, as the apiserver does.
                if !bookmark_now(&store, &filter, &faults, &mut rx, &mut first, &tx).await {
                    return;
                }
            },
            _ = drop_rx.changed() => return,
            _ = tx.closed() => return,
        }
    }
}

/// Sends the pending events, then a BOOKMARK at the store's resource version.
/// Every event up to that version was broadcast before it was read, so
/// draining the receiver first means the bookmark skips nothing.
/// Returns false when the client is gone or fell behind.
async fn bookmark_now(
    store: &Store,
    filter: &Filter,
    faults: &Faults,
    rx: &mut broadcast::Receiver<Arc<StoreEvent>>,
    first: &mut bool,
    tx: &mpsc::Sender<Bytes>,
) -> bool {
    let now_rv = store.resource_version();
    loop {
        match rx.try_recv() {
            Ok(ev) => {
                if let Some(t) = filter.translate(&ev) {
                    let obj = filter.encode(&ev.object, *first, store);
                    *first = false;
                    let wire = event_line(t, obj, &filter.info.plural, faults);
                    if tx.send(wire).await.is_err() {
                        return false;
                    }
                }
            }
            Err(broadcast::error::TryRecvError::Empty) => break,
            Err(_) => return false,
        }
    }
    tx.send(line(&filter.bookmark(now_rv, false))).await.is_ok()
}
