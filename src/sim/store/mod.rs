//! The simulator's object store: one per cluster, generic over Kubernetes
//! objects held as JSON. One resource-version counter per cluster, a bounded
//! window of past events per resource, selectors, patches, deletion with
//! preconditions, grace and finalizers, and pod logs.

mod delete;
mod error;
mod logs;
pub mod objects;
pub mod patch;
pub mod selectors;
pub mod window;
mod write;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::{Arc, Mutex, MutexGuard};

use jiff::Timestamp;
use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

pub use error::{ApiError, StoreResult, qualified};
pub use logs::{LogFollow, LogLine, LogRecord};
pub use window::{EventType, Key, StoreEvent};

use crate::sim::clock::Clock;
use crate::sim::registry::{Registry, ResourceInfo};
use objects::{format_ts, has_finalizers, meta_mut};
use window::Window;

/// Past events kept per resource for watches to resume from.
pub const DEFAULT_WINDOW: usize = 1000;
const BROADCAST_CAPACITY: usize = 16 * 1024;

/// Where a watch starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchFrom {
    /// Synthetic ADDED events for every current object, then live changes.
    Snapshot,
    /// Every change after this resource version (410 when it left the window).
    Since(u64),
}

/// A started watch: the events to send first, then live events from `rx`
/// (which carries every resource's events; filter by `plural`).
#[derive(Debug)]
pub struct WatchStart {
    pub initial: Vec<Arc<StoreEvent>>,
    pub rx: broadcast::Receiver<Arc<StoreEvent>>,
    /// The store's resource version when the watch started.
    pub rv: u64,
}

#[derive(Debug)]
struct Inner {
    rv: u64,
    objects: HashMap<String, BTreeMap<Key, Value>>,
    windows: HashMap<String, Window>,
    logs: HashMap<(String, String, String), VecDeque<LogLine>>,
}

impl Inner {
    /// A copy of the stored object at `key`, or 404 naming it.
    fn stored(
        &self,
        plural: &str,
        info: &ResourceInfo,
        key: &Key,
        name: &str,
    ) -> StoreResult<Value> {
        self.objects
            .get(plural)
            .and_then(|m| m.get(key))
            .cloned()
            .ok_or_else(|| ApiError::not_found(info, name))
    }
}

/// One simulated cluster's objects. Shared as `Arc<Store>`.
#[derive(Debug)]
pub struct Store {
    registry: Registry,
    clock: Arc<Clock>,
    window_size: usize,
    inner: Mutex<Inner>,
    events: broadcast::Sender<Arc<StoreEvent>>,
    log_tx: broadcast::Sender<Arc<LogRecord>>,
}

impl Store {
    /// A store serving `registry`'s resources, with the CRD objects loaded.
    pub fn new(registry: Registry, clock: Arc<Clock>) -> Arc<Store> {
        Store::with_window(registry, clock, DEFAULT_WINDOW)
    }

    /// Like [`Store::new`] with a custom event window size per resource.
    pub fn with_window(registry: Registry, clock: Arc<Clock>, window_size: usize) -> Arc<Store> {
        let (events, _) = broadcast::channel(BROADCAST_CAPACITY);
        let (log_tx, _) = broadcast::channel(BROADCAST_CAPACITY);
        let crds = registry.crds().to_vec();
        let store = Arc::new(Store {
            registry,
            clock,
            window_size,
            inner: Mutex::new(Inner {
                rv: 100,
                objects: HashMap::new(),
                windows: HashMap::new(),
                logs: HashMap::new(),
            }),
            events,
            log_tx,
        });
        for crd in crds {
            if let Err(e) = store.create("customresourcedefinitions", crd) {
                tracing::warn!("could not load CRD: {e}");
            }
        }
        store
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn clock(&self) -> &Arc<Clock> {
        &self.clock
    }

    /// The cluster's current resource version.
    pub fn resource_version(&self) -> u64 {
        self.lock().rv
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the maps half-updated
        // in a way that matters more than stopping the simulator, so recover.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The resource for a plural, or 404.
    pub fn info(&self, plural: &str) -> StoreResult<&ResourceInfo> {
        self.registry
            .find_plural(plural)
            .ok_or_else(ApiError::no_route)
    }

    fn key(info: &ResourceInfo, ns: Option<&str>, name: &str) -> Key {
        let ns = if info.namespaced {
            ns.unwrap_or_default()
        } else {
            ""
        };
        (ns.to_string(), name.to_string())
    }

    fn now_str(&self) -> String {
        format_ts(self.clock.now())
    }

    /// Records a change: bumps nothing (the caller set `rv`), keeps it in the
    /// window and tells the watchers.
    fn emit(
        &self,
        inner: &mut Inner,
        plural: &str,
        kind: EventType,
        object: Value,
        old: Option<Value>,
    ) {
        let ev = Arc::new(StoreEvent {
            plural: plural.to_string(),
            kind,
            rv: inner.rv,
            object,
            old,
        });
        let cap = self.window_size;
        inner
            .windows
            .entry(plural.to_string())
            .or_insert_with(|| Window::new(cap))
            .push(ev.clone());
        // No receivers is fine.
        let _ = self.events.send(ev);
    }

    fn set_rv(obj: &mut Value, rv: u64) {
        meta_mut(obj).insert("resourceVersion".into(), json!(rv.to_string()));
    }

    /// One object, or `None`.
    pub fn get(&self, plural: &str, ns: Option<&str>, name: &str) -> Option<Value> {
        let info = self.registry.find_plural(plural)?;
        let key = Self::key(info, ns, name);
        self.lock().objects.get(plural)?.get(&key).cloned()
    }

    /// Every object of a resource, in one namespace or all (`None`), sorted by namespace/name.
    pub fn list(&self, plural: &str, ns: Option<&str>) -> Vec<Value> {
        self.list_at(plural, ns, None)
            .map(|(v, _)| v)
            .unwrap_or_default()
    }

    /// Objects as they stood at resource version `at` (or now), with the
    /// resource version of the snapshot. 410 when `at` left the event window.
    pub fn list_at(
        &self,
        plural: &str,
        ns: Option<&str>,
        at: Option<u64>,
    ) -> StoreResult<(Vec<Value>, u64)> {
        self.with_page(
            plural,
            ns,
            at,
            &ListPage::default(),
            |_| true,
            |p| (p.items.into_iter().cloned().collect(), p.rv),
        )
    }

    /// Calls `f` with one page of a list, borrowed from the store (which
    /// stays locked meanwhile): the objects at `at` (or now) in `ns` (or
    /// all) that come after `page.after` in namespace/name order and that
    /// `keep` accepts, at most `page.limit` of them, with how many more there
    /// are. Nothing is copied that `f` does not copy: a paged list of a large
    /// kind costs its pages, not the kind once per page, and a page written
    /// out as JSON is written from the stored objects. 410 when `at` left
    /// the event window.
    pub fn with_page<R>(
        &self,
        plural: &str,
        ns: Option<&str>,
        at: Option<u64>,
        page: &ListPage,
        keep: impl Fn(&Value) -> bool,
        f: impl FnOnce(Page<'_>) -> R,
    ) -> StoreResult<R> {
        let info = self.info(plural)?;
        let inner = self.lock();
        let empty = BTreeMap::new();
        let current = inner.objects.get(plural).unwrap_or(&empty);
        let wanted =
            |k: &Key, v: &Value| (!info.namespaced || ns.is_none_or(|n| n == k.0)) && keep(v);
        let from = match &page.after {
            Some(after) => Bound::Excluded(after.clone()),
            None => Bound::Unbounded,
        };
        let range = (from, Bound::Unbounded);
        match at {
            Some(rv) if rv < inner.rv => {
                let snap = match inner.windows.get(plural) {
                    Some(w) => w.snapshot_at(current, rv),
                    None => Some(current.iter().map(|(k, v)| (k.clone(), v)).collect()),
                }
                .ok_or_else(|| ApiError::expired(rv))?;
                let objects = snap.range(range).map(|(k, v)| (k, *v));
                Ok(f(Page::take(objects, page.limit, wanted, rv)))
            }
            _ => Ok(f(Page::take(
                current.range(range),
                page.limit,
                wanted,
                inner.rv,
            ))),
        }
    }

    /// Starts a watch on a resource (all namespaces; the caller filters).
    pub fn watch(&self, plural: &str, from: WatchFrom) -> StoreResult<WatchStart> {
        self.info(plural)?;
        let inner = self.lock();
        let rx = self.events.subscribe();
        let initial = match from {
            WatchFrom::Snapshot => inner
                .objects
                .get(plural)
                .map(|m| {
                    m.values()
                        .map(|o| {
                            Arc::new(StoreEvent {
                                plural: plural.to_string(),
                                kind: EventType::Added,
                                rv: objects::meta_str(o, "resourceVersion")
                                    .and_then(|s| s.parse().ok())
                                    .unwrap_or(inner.rv),
                                object: o.clone(),
                                old: None,
                            })
                        })
                        .collect()
                })
                .unwrap_or_default(),
            WatchFrom::Since(rv) => match inner.windows.get(plural) {
                Some(w) => w.since(rv).ok_or_else(|| ApiError::expired(rv))?,
                None => Vec::new(),
            },
        };
        Ok(WatchStart {
            initial,
            rx,
            rv: inner.rv,
        })
    }

    /// Removes pods whose deletion grace period ran out on the clock.
    pub fn tick(&self) {
        let now = self.clock.now();
        let Ok(info) = self.info("pods") else { return };
        let mut inner = self.lock();
        let due: Vec<(Key, Value)> = inner
            .objects
            .get("pods")
            .map(|m| {
                m.iter()
                    .filter(|(_, p)| {
                        !has_finalizers(p)
                            && objects::meta_str(p, "deletionTimestamp")
                                .and_then(objects::parse_ts)
                                .is_some_and(|t| t <= now)
                    })
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        for (k, v) in due {
            self.remove_locked(&mut inner, info, &k, v, false);
        }
    }

    /// Every object of every resource, for debugging and dumps.
    pub fn dump(&self) -> Map<String, Value> {
        let inner = self.lock();
        inner
            .objects
            .iter()
            .map(|(p, m)| (p.clone(), Value::Array(m.values().cloned().collect())))
            .collect()
    }

    /// The simulated time now.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }
}

/// Which page of a list to serve ([`Store::with_page`]).
#[derive(Debug, Default)]
pub struct ListPage {
    /// The namespace/name of the last object served before (from a continue token).
    pub after: Option<Key>,
    /// At most this many objects.
    pub limit: Option<usize>,
}

/// A page borrowed from the store ([`Store::with_page`]): its objects, how
/// many more match after them, and the resource version of the snapshot it
/// comes from.
#[derive(Debug)]
pub struct Page<'a> {
    pub items: Vec<&'a Value>,
    pub remaining: usize,
    pub rv: u64,
}

impl<'a> Page<'a> {
    fn take(
        objects: impl Iterator<Item = (&'a Key, &'a Value)>,
        limit: Option<usize>,
        wanted: impl Fn(&Key, &Value) -> bool,
        rv: u64,
    ) -> Page<'a> {
        let limit = limit.unwrap_or(usize::MAX);
        let mut items = Vec::new();
        let mut remaining = 0;
        for (_, v) in objects.filter(|&(k, v)| wanted(k, v)) {
            if items.len() < limit {
                items.push(v);
            } else {
                remaining += 1;
            }
        }
        Page {
            items,
            remaining,
            rv,
        }
    }
}

#[cfg(test)]
mod tests;
