//! The write that commences a ClusterUpdatePlan step: a JSON patch
//! (`application/json-patch+json`) whose `test` ops pin the step the screen
//! showed, so a plan that changed since it was drawn is refused by the
//! server (422) and nothing changes:
//!
//! ```text
//! [{"op":"test","path":"/spec/steps/<i>/id","value":"<id>"},   (or /name)
//!  {"op":"test","path":"/spec/steps/<i>/commence","value":false},
//!  {"op":"replace","path":"/spec/steps/<i>/commence","value":true}]
//! ```
//!
//! When auto-pause removed the key (`commence_present == false`) the
//! `commence` test is left out and the op is `add` (reference §1.3, §2:
//! `add` works whether or not the key exists \[I\]).

use kube::Api;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
use serde_json::{Value, json};

use super::errors::{self, Target};
use super::{WriteError, Writer};
use crate::domain::action::plan::CommenceStep;
use crate::domain::objects::{ClusterId, Kind};
use crate::sanitize::sanitize;

/// The JSON patch that commences `step` (see the module text).
pub fn commence_patch(step: &CommenceStep) -> Value {
    let base = format!("/spec/steps/{}", step.index);
    let pin = match &step.id {
        Some(id) => json!({"op": "test", "path": format!("{base}/id"), "value": id}),
        None => json!({"op": "test", "path": format!("{base}/name"), "value": step.name}),
    };
    let path = format!("{base}/commence");
    if step.commence_present {
        json!([
            pin,
            {"op": "test", "path": path, "value": false},
            {"op": "replace", "path": path, "value": true},
        ])
    } else {
        json!([pin, {"op": "add", "path": path, "value": true}])
    }
}

fn api_resource() -> ApiResource {
    let kind = Kind::ClusterUpdatePlan;
    let (group, version) = kind.group_version();
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk(group, version, kind.api_kind()),
        kind.plural(),
    )
}

/// Why the server refused the patch's tests, from the plan as it is now:
/// `the update plan changed since it was drawn: step 3 is no longer …;
/// nothing was changed`.
fn changed_text(step: &CommenceStep, now: Option<&DynamicObject>, server: &str) -> String {
    let was = step.label();
    let n = step.index + 1;
    let current = now.and_then(|o| o.data.pointer(&format!("/spec/steps/{}", step.index)));
    let what = match current {
        None if now.is_none() => format!("{was} could not be read back"),
        None => format!("the plan has no step {n} any more"),
        Some(s) => {
            let text = |k: &str| s.get(k).and_then(Value::as_str).map(sanitize);
            // Compare the field the patch pinned: the id, or the name when
            // the step had no id when drawn.
            let (label, pinned) = match &step.id {
                Some(id) => (text("id").unwrap_or_default(), id.as_str()),
                None => (text("name").unwrap_or_default(), step.name.as_str()),
            };
            if label != pinned {
                format!("step {n} is no longer \"{pinned}\" (it is \"{label}\" now)")
            } else if s.get("commence").and_then(Value::as_bool) == Some(true) {
                format!("{was} is already commenced")
            } else {
                // The step reads as it did: the 422 was not a failed test
                // (a validating webhook, say). Say so, with the server's words.
                return format!(
                    "the server refused the change (422) although {was} still waits \
                     for commence: {}; nothing was changed",
                    sanitize(server)
                );
            }
        }
    };
    format!("the update plan changed since it was drawn: {what}; nothing was changed")
}

impl Writer {
    /// Commences `step` of the ClusterUpdatePlan `namespace/name` (management
    /// cluster). A failed `test` (422) is explained from the plan as the
    /// server holds it now, as refused.
    pub async fn commence_step(
        &self,
        namespace: &str,
        name: &str,
        step: &CommenceStep,
    ) -> Result<(), WriteError> {
        self.guard()?;
        let patch: json_patch::Patch = serde_json::from_value(commence_patch(step))
            .map_err(|e| WriteError::Failed(format!("the JSON patch could not be built: {e}")))?;
        let mut params = PatchParams {
            field_manager: Some(super::FIELD_MANAGER.to_string()),
            ..PatchParams::default()
        };
        if self.mode().dry_run() {
            params = params.dry_run();
        }
        let api: Api<DynamicObject> =
            Api::namespaced_with(self.client(ClusterId::Mgmt), namespace, &api_resource());
        match api.patch(name, &params, &Patch::Json::<()>(patch)).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.code == 422 => {
                let now = api.get(name).await.ok();
                Err(WriteError::Refused(changed_text(
                    step,
                    now.as_ref(),
                    &s.message,
                )))
            }
            Err(e) => Err(errors::explain(
                e,
                &Target::other(format!("ClusterUpdatePlan {namespace}/{name}")),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(id: Option<&str>, present: bool) -> CommenceStep {
        CommenceStep {
            index: 2,
            id: id.map(str::to_string),
            name: "Update Ceph".into(),
            commence_present: present,
            impact_users: "none".into(),
            impact_workloads: "minor".into(),
            impact_info: Vec::new(),
            estimate: "~30m".into(),
            granularity: None,
            releases: "a -> b".into(),
        }
    }

    #[test]
    fn the_patch_pins_the_step_and_its_commence() {
        assert_eq!(
            commence_patch(&step(Some("ceph"), true)).to_string(),
            r#"[{"op":"test","path":"/spec/steps/2/id","value":"ceph"},{"op":"test","path":"/spec/steps/2/commence","value":false},{"op":"replace","path":"/spec/steps/2/commence","value":true}]"#
        );
        assert_eq!(
            commence_patch(&step(None, false)).to_string(),
            r#"[{"op":"test","path":"/spec/steps/2/name","value":"Update Ceph"},{"op":"add","path":"/spec/steps/2/commence","value":true}]"#
        );
    }

    fn plan_with(step2: serde_json::Value) -> DynamicObject {
        serde_json::from_value(json!({
            "apiVersion": "kaas.mirantis.com/v1alpha1", "kind": "ClusterUpdatePlan",
            "metadata": {"name": "p", "namespace": "ns"},
            "spec": {"steps": [{}, {}, step2]}
        }))
        .unwrap()
    }

    #[test]
    fn a_refusal_is_explained_from_the_plan_as_it_is_now() {
        let s = step(Some("ceph"), true);
        let other = plan_with(json!({"id": "k8s-workers", "commence": false}));
        assert!(changed_text(&s, Some(&other), "x").contains(
            "changed since it was drawn: step 3 is no longer \"ceph\" (it is \"k8s-workers\" now)"
        ));
        let done = plan_with(json!({"id": "ceph", "commence": true}));
        assert!(changed_text(&s, Some(&done), "x").contains("is already commenced"));
        // Unchanged step: the 422 had another cause; the screen must not claim a change.
        let same = plan_with(json!({"id": "ceph", "commence": false}));
        // Pinned by name (no id when drawn): the plan gaining an id is no change.
        let by_name = step(None, true);
        let named = plan_with(json!({"id": "ceph", "name": "Update Ceph", "commence": true}));
        assert!(changed_text(&by_name, Some(&named), "x").contains("is already commenced"));
        let t = changed_text(&s, Some(&same), "denied by webhook");
        assert!(!t.contains("changed since"), "{t}");
        assert!(
            t.contains("still waits for commence: denied by webhook"),
            "{t}"
        );
    }
}
