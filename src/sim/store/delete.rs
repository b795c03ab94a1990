//! Deletion: preconditions, pod grace periods, finalizers.

use serde_json::{Value, json};

use super::objects::{format_ts, has_finalizers, is_terminating, meta_mut, meta_str};
use super::selectors::Selectors;
use super::{ApiError, Store, StoreResult};

/// Default pod grace period, as in the Pod API.
const DEFAULT_POD_GRACE_SECS: i64 = 30;

impl Store {
    /// Deletes an object. `opts` is a `DeleteOptions` object or `Null`:
    /// `preconditions.uid` / `preconditions.resourceVersion` mismatches are
    /// 409 Conflict; pods get `deletionTimestamp` = now + grace
    /// (`gracePeriodSeconds`, else the pod's `terminationGracePeriodSeconds`,
    /// else 30 s) and are removed by [`Store::tick`], or at once with grace 0;
    /// objects with finalizers get `deletionTimestamp` only; others are removed
    /// at once. Returns the object as it was left (or last seen when removed).
    pub fn delete(
        &self,
        plural: &str,
        ns: Option<&str>,
        name: &str,
        opts: &Value,
        dry_run: bool,
    ) -> StoreResult<Value> {
        let info = self.info(plural)?;
        if !(opts.is_null() || opts.is_object()) {
            return Err(ApiError::bad_request("DeleteOptions must be a JSON object"));
        }
        let key = Self::key(info, ns, name);
        let mut inner = self.lock();
        let old = inner.stored(plural, info, &key, name)?;
        for (field, label) in [("uid", "UID"), ("resourceVersion", "ResourceVersion")] {
            match opts.pointer(&format!("/preconditions/{field}")) {
                None | Some(Value::Null) => {}
                Some(Value::String(want)) => {
                    let have = meta_str(&old, field).unwrap_or_default();
                    if want != have {
                        return Err(ApiError::conflict(
                            info,
                            name,
                            &format!(
                                "Precondition failed: {label} in precondition: {want}, {label} in object meta: {have}"
                            ),
                        ));
                    }
                }
                Some(other) => {
                    return Err(ApiError::bad_request(format!(
                        "preconditions.{field} must be a string, not {other}"
                    )));
                }
            }
        }
        let grace = match opts.get("gracePeriodSeconds") {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_i64() {
                Some(g) if g >= 0 => Some(g),
                _ => {
                    return Err(ApiError::invalid(
                        info,
                        name,
                        "gracePeriodSeconds",
                        &format!("Invalid value: {v}: must be a non-negative integer"),
                    ));
                }
            },
        };
        let now = self.clock.now();
        if plural == "pods" {
            let grace = grace
                .or_else(|| {
                    old.pointer("/spec/terminationGracePeriodSeconds")
                        .and_then(Value::as_i64)
                })
                .unwrap_or(DEFAULT_POD_GRACE_SECS)
                .max(0);
            if grace == 0 && !has_finalizers(&old) {
                return Ok(self.remove_locked(&mut inner, info, &key, old, dry_run));
            }
            let until = now
                .checked_add(jiff::SignedDuration::from_secs(grace))
                .unwrap_or(now);
            let current = meta_str(&old, "deletionTimestamp").and_then(super::objects::parse_ts);
            if current.is_some_and(|c| c <= until) {
                // Already terminating, no sooner than asked.
                return Ok(old);
            }
            let mut new = old.clone();
            let meta = meta_mut(&mut new);
            meta.insert("deletionTimestamp".into(), json!(format_ts(until)));
            meta.insert("deletionGracePeriodSeconds".into(), json!(grace));
            return self.commit(&mut inner, info, old, new, dry_run, true);
        }
        if has_finalizers(&old) {
            if is_terminating(&old) {
                return Ok(old);
            }
            let mut new = old.clone();
            let meta = meta_mut(&mut new);
            meta.insert("deletionTimestamp".into(), json!(format_ts(now)));
            meta.insert("deletionGracePeriodSeconds".into(), json!(0));
            return self.commit(&mut inner, info, old, new, dry_run, true);
        }
        Ok(self.remove_locked(&mut inner, info, &key, old, dry_run))
    }

    /// Deletes every object of a resource in `ns` (or all) matching `sel`.
    /// Returns the objects as they were left.
    pub fn delete_collection(
        &self,
        plural: &str,
        ns: Option<&str>,
        sel: &Selectors,
        opts: &Value,
        dry_run: bool,
    ) -> StoreResult<Vec<Value>> {
        let info = self.info(plural)?;
        let mut out = Vec::new();
        for obj in self.list(plural, ns).iter().filter(|o| sel.matches(o)) {
            let ns = info.namespaced.then(|| super::objects::namespace_of(obj));
            match self.delete(plural, ns, super::objects::name_of(obj), opts, dry_run) {
                Ok(v) => out.push(v),
                Err(e) if e.code == 404 => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// For controllers finishing a Terminating object: clears its finalizers
    /// and removes it now (pods too, whatever their grace period).
    pub fn remove_finalizers_and_delete(
        &self,
        plural: &str,
        ns: Option<&str>,
        name: &str,
    ) -> StoreResult<()> {
        let info = self.info(plural)?;
        let key = Self::key(info, ns, name);
        let mut inner = self.lock();
        let mut obj = inner.stored(plural, info, &key, name)?;
        meta_mut(&mut obj).remove("finalizers");
        self.remove_locked(&mut inner, info, &key, obj, false);
        Ok(())
    }
}
