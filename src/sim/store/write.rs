//! Writes: create, controller-side update, API patch and replace, and the
//! shared commit that bumps resource versions and emits events.

use serde_json::{Value, json};

use super::objects::{
    self, has_finalizers, is_terminating, meta_mut, name_of, spec_part, stamp_type, validate,
};
use super::window::key_of;
use super::{ApiError, EventType, Inner, Key, Store, StoreResult, patch};
use crate::sim::registry::ResourceInfo;

impl Store {
    /// Creates an object (controller side): fills apiVersion/kind, uid,
    /// resourceVersion, creationTimestamp and generation=1. 409 AlreadyExists.
    pub fn create(&self, plural: &str, obj: Value) -> StoreResult<Value> {
        self.create_opts(plural, obj, false)
    }

    /// [`Store::create`] with dry run: everything is checked and filled, nothing stored.
    pub fn create_opts(&self, plural: &str, mut obj: Value, dry_run: bool) -> StoreResult<Value> {
        let info = self.info(plural)?;
        stamp_type(info, &mut obj)?;
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
        let old = inner.stored(plural, info, &key, name)?;
        let mut new = old.clone();
        f(&mut new);
        self.commit(&mut inner, info, old, new, false, false)
    }

    /// Stores `new` in place of `old` (same key): keeps identity fields, bumps
    /// resource version and generation, emits MODIFIED, finishes deletion
    /// when the last finalizer went. Returns the stored (or would-be) object.
    pub(super) fn commit(
        &self,
        inner: &mut Inner,
        info: &ResourceInfo,
        old: Value,
        mut new: Value,
        dry_run: bool,
        set_deletion: bool,
    ) -> StoreResult<Value> {
        stamp_type(info, &mut new)?;
        {
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
    pub(super) fn remove_locked(
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
        let old = inner.stored(plural, info, &key, name)?;
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
        let old = inner.stored(plural, info, &key, name)?;
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
