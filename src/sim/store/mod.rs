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

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use jiff::Timestamp;
use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

pub use error::{ApiError, StoreResult, qualified};
pub use logs::{LogFollow, LogLine, LogRecord};
pub use window::{EventType, Key, StoreEvent};

use crate::sim::clock::Clock;
use crate::sim::registry::{Registry, ResourceInfo};
use objects::{format_ts, has_finalizers, is_terminating, meta_mut, name_of, spec_part, validate};
use window::{Window, key_of};

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

    /// Creates an object (controller side): fills apiVersion/kind, uid,
    /// resourceVersion, creationTimestamp and generation=1. 409 AlreadyExists.
    pub fn create(&self, plural: &str, obj: Value) -> StoreResult<Value> {
        self.create_opts(plural, obj, false)
    }

    /// [`Store::create`] with dry run: everything is checked and filled, nothing stored.
    pub fn create_opts(&self, plural: &str, mut obj: Value, dry_run: bool) -> StoreResult<Value> {
        let info = self.info(plural)?;
        if !obj.is_object() {
            return Err(ApiError::bad_request(format!(
                "the body of a {} must be a JSON object",
                info.kind
            )));
        }
        {
            let m = obj.as_object_mut().expect("object");
            m.insert("apiVersion".into(), json!(info.api_version()));
            m.insert("kind".into(), json!(info.kind));
        }
        let now = self.now_str();
        {
            let meta = meta_mut(&mut obj);
            if !info.namespaced {
                meta.remove("namespace");
            } else if meta
                .get("namespace")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                let name = meta
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                return Err(ApiError::invalid(
                    info,
                    &name,
                    "metadata.namespace",
                    "Required value",
                ));
            }
            if meta
                .get("name")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
                && let Some(prefix) = meta.get("generateName").and_then(Value::as_str)
            {
                let name = format!("{prefix}{}", random_suffix());
                meta.insert("name".into(), json!(name));
            }
            meta.insert("uid".into(), json!(uuid::Uuid::new_v4().to_string()));
            meta.insert("creationTimestamp".into(), json!(now));
            meta.insert("generation".into(), json!(1));
            meta.remove("deletionTimestamp");
            meta.remove("deletionGracePeriodSeconds");
            meta.remove("managedFields");
            meta.remove("selfLink");
        }
        validate(info, &obj)?;
        let key = key_of(&obj);
        let mut inner = self.lock();
        if inner
            .objects
            .get(plural)
            .is_some_and(|m| m.contains_key(&key))
        {
            return Err(ApiError::already_exists(info, &key.1));
        }
        if dry_run {
            Self::set_rv(&mut obj, inner.rv);
            return Ok(obj);
        }
        inner.rv += 1;
        let rv = inner.rv;
        Self::set_rv(&mut obj, rv);
        inner
            .objects
            .entry(plural.to_string())
            .or_default()
            .insert(key, obj.clone());
        self.emit(&mut inner, plural, EventType::Added, obj.clone(), None);
        Ok(obj)
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
        let info = self.info(plural)?;
        let inner = self.lock();
        let empty = BTreeMap::new();
        let current = inner.objects.get(plural).unwrap_or(&empty);
        let filter_ns = |k: &Key| !info.namespaced || ns.is_none_or(|n| n == k.0);
        match at {
            Some(rv) if rv < inner.rv => {
                let snap = match inner.windows.get(plural) {
                    Some(w) => w.snapshot_at(current, rv),
                    None => Some(current.clone()),
                }
                .ok_or_else(|| ApiError::expired(rv))?;
                Ok((
                    snap.into_iter()
                        .filter(|(k, _)| filter_ns(k))
                        .map(|(_, v)| v)
                        .collect(),
                    rv,
                ))
            }
            _ => Ok((
                current
                    .iter()
                    .filter(|(k, _)| filter_ns(k))
                    .map(|(_, v)| v.clone())
                    .collect(),
                inner.rv,
            )),
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

    /// Edits an object in place (controller side). No event and no new
    /// resource version when nothing changed; generation+1 when anything
    /// outside metadata/status changed. Name, namespace, uid and
    /// creationTimestamp cannot be changed. A terminating object whose
    /// finalizers became empty is removed (pods: by [`Store::tick`]).
    pub fn update(
        &self,
        plural: &str,
        ns: Option<&str>,
        name: &str,
        f: impl FnOnce(&mut Value),
    ) -> StoreResult<Value> {
        let info = self.info(plural)?;
        let key = Self::key(info, ns, name);
        let mut inner = self.lock();
        let old = inner
            .objects
            .get(plural)
            .and_then(|m| m.get(&key))
            .cloned()
            .ok_or_else(|| ApiError::not_found(info, name))?;
        let mut new = old.clone();
        f(&mut new);
        self.commit(&mut inner, info, old, new, false, false)
    }

    /// Stores `new` in place of `old` (same key): keeps identity fields, bumps
    /// resource version and generation, emits MODIFIED, finishes deletion
    /// when the last finalizer went. Returns the stored (or would-be) object.
    fn commit(
        &self,
        inner: &mut Inner,
        info: &ResourceInfo,
        old: Value,
        mut new: Value,
        dry_run: bool,
        set_deletion: bool,
    ) -> StoreResult<Value> {
        if !new.is_object() {
            return Err(ApiError::bad_request(format!(
                "the body of a {} must be a JSON object",
                info.kind
            )));
        }
        {
            let m = new.as_object_mut().expect("object");
            m.insert("apiVersion".into(), json!(info.api_version()));
            m.insert("kind".into(), json!(info.kind));
            let old_meta = old
                .get("metadata")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let meta = meta_mut(&mut new);
            for f in [
                "name",
                "namespace",
                "uid",
                "creationTimestamp",
                "resourceVersion",
                "generation",
            ] {
                match old_meta.get(f) {
                    Some(v) => meta.insert(f.into(), v.clone()),
                    None => meta.remove(f),
                };
            }
            // deletionTimestamp can be set by the store only, and never cleared.
            for f in ["deletionTimestamp", "deletionGracePeriodSeconds"] {
                match old_meta.get(f) {
                    _ if set_deletion => None,
                    Some(v) => meta.insert(f.into(), v.clone()),
                    None => meta.remove(f),
                };
            }
        }
        validate(info, &new)?;
        if new == old {
            return Ok(old);
        }
        if spec_part(&new, info.has_status()) != spec_part(&old, info.has_status()) {
            let generation = old
                .pointer("/metadata/generation")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            meta_mut(&mut new).insert("generation".into(), json!(generation + 1));
        }
        let key = key_of(&old);
        let finished = info.plural != "pods" && is_terminating(&new) && !has_finalizers(&new);
        if finished {
            return Ok(self.remove_locked(inner, info, &key, new, dry_run));
        }
        if dry_run {
            return Ok(new);
        }
        inner.rv += 1;
        Self::set_rv(&mut new, inner.rv);
        inner
            .objects
            .entry(info.plural.clone())
            .or_default()
            .insert(key, new.clone());
        self.emit(
            inner,
            &info.plural,
            EventType::Modified,
            new.clone(),
            Some(old),
        );
        Ok(new)
    }

    /// Removes an object now: new resource version, DELETED event, pod logs dropped.
    fn remove_locked(
        &self,
        inner: &mut Inner,
        info: &ResourceInfo,
        key: &Key,
        mut last: Value,
        dry_run: bool,
    ) -> Value {
        if dry_run {
            return last;
        }
        let old = inner
            .objects
            .get_mut(&info.plural)
            .and_then(|m| m.remove(key));
        inner.rv += 1;
        Self::set_rv(&mut last, inner.rv);
        if info.plural == "pods" {
            inner
                .logs
                .retain(|(ns, pod, _), _| !(*ns == key.0 && *pod == key.1));
        }
        self.emit(inner, &info.plural, EventType::Deleted, last.clone(), old);
        last
    }

    /// Patches an object through the API: `subresource` `None` or `Some("status")`.
    /// For kinds with a status subresource, a patch of the main resource keeps
    /// the old status and a patch of `/status` changes only the status.
    #[allow(clippy::too_many_arguments)]
    pub fn patch(
        &self,
        plural: &str,
        ns: Option<&str>,
        name: &str,
        subresource: Option<&str>,
        content_type: &str,
        body: &[u8],
        dry_run: bool,
    ) -> StoreResult<Value> {
        let info = self.info(plural)?;
        check_subresource(info, subresource)?;
        let key = Self::key(info, ns, name);
        let mut inner = self.lock();
        let old = inner
            .objects
            .get(plural)
            .and_then(|m| m.get(&key))
            .cloned()
            .ok_or_else(|| ApiError::not_found(info, name))?;
        let patched = patch::apply_patch(info, &old, content_type, body)?;
        let new = self.api_change(info, &old, patched, subresource)?;
        self.commit(&mut inner, info, old, new, dry_run, false)
    }

    /// Replaces an object through the API (PUT), with optimistic concurrency
    /// on `metadata.resourceVersion` when the body carries one.
    pub fn replace(
        &self,
        plural: &str,
        ns: Option<&str>,
        name: &str,
        subresource: Option<&str>,
        body: Value,
        dry_run: bool,
    ) -> StoreResult<Value> {
        let info = self.info(plural)?;
        check_subresource(info, subresource)?;
        if !body.is_object() {
            return Err(ApiError::bad_request(
                "the request body must be a JSON object",
            ));
        }
        if name_of(&body) != name {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({}) does not match the name on the URL ({name})",
                name_of(&body)
            )));
        }
        let key = Self::key(info, ns, name);
        let mut inner = self.lock();
        let old = inner
            .objects
            .get(plural)
            .and_then(|m| m.get(&key))
            .cloned()
            .ok_or_else(|| ApiError::not_found(info, name))?;
        let new = self.api_change(info, &old, body, subresource)?;
        self.commit(&mut inner, info, old, new, dry_run, false)
    }

    /// The checks and status rules shared by PATCH and PUT.
    fn api_change(
        &self,
        info: &ResourceInfo,
        old: &Value,
        mut new: Value,
        subresource: Option<&str>,
    ) -> StoreResult<Value> {
        if !new.is_object() {
            return Err(ApiError::bad_request(
                "the patched object is not a JSON object",
            ));
        }
        let name = name_of(old).to_string();
        for (field, what) in [
            ("name", "metadata.name"),
            ("namespace", "metadata.namespace"),
        ] {
            let o = objects::meta_str(old, field).unwrap_or_default();
            let n = objects::meta_str(&new, field).unwrap_or_default();
            if o != n && !(field == "namespace" && n.is_empty()) {
                return Err(ApiError::invalid(
                    info,
                    &name,
                    what,
                    &format!("Invalid value: {n:?}: field is immutable"),
                ));
            }
        }
        if let Some(uid) = objects::meta_str(&new, "uid")
            && Some(uid) != objects::meta_str(old, "uid")
        {
            return Err(ApiError::conflict(
                info,
                &name,
                &format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                    objects::meta_str(old, "uid").unwrap_or_default()
                ),
            ));
        }
        if let Some(rv) = objects::meta_str(&new, "resourceVersion")
            && Some(rv) != objects::meta_str(old, "resourceVersion")
        {
            return Err(ApiError::conflict(
                info,
                &name,
                "the object has been modified; please apply your changes to the latest version and try again",
            ));
        }
        match subresource {
            Some("status") => {
                let mut out = old.clone();
                let m = out.as_object_mut().expect("stored objects are objects");
                match new.get("status") {
                    Some(s) if !s.is_null() => m.insert("status".into(), s.clone()),
                    _ => m.remove("status"),
                };
                Ok(out)
            }
            _ => {
                if info.has_status() {
                    let m = new.as_object_mut().expect("checked above");
                    match old.get("status") {
                        Some(s) => m.insert("status".into(), s.clone()),
                        None => m.remove("status"),
                    };
                }
                Ok(new)
            }
        }
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

fn check_subresource(info: &ResourceInfo, sub: Option<&str>) -> StoreResult<()> {
    match sub {
        None => Ok(()),
        Some("status") if info.has_status() => Ok(()),
        Some(s) if info.subresources.iter().any(|x| x == s) => {
            Err(ApiError::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({}/{s})",
                info.plural
            )))
        }
        Some(_) => Err(ApiError::no_route()),
    }
}

/// Five lower-case alphanumerics, as `generateName` appends.
fn random_suffix() -> String {
    use rand::Rng;
    const CHARS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut rng = rand::rng();
    (0..5)
        .map(|_| CHARS[rng.random_range(0..CHARS.len())] as char)
        .collect()
}

#[cfg(test)]
mod tests;
