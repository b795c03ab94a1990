//! The write that changes a Node's annotations (set migration mode,
//! acknowledge migration): a JSON patch (`application/json-patch+json`)
//! whose `test` ops pin what the confirmation dialog showed, so a node that
//! changed since it was drawn is refused and nothing changes:
//!
//! ```text
//! [{"op":"test","path":"/metadata/uid","value":"<uid drawn>"},
//!  {"op":"test","path":"/metadata/resourceVersion","value":"<rv read>"},
//!  {"op":"test","path":"/metadata/annotations/<key>","value":"<old>"},  (old value set)
//!  {"op":"replace","path":"/metadata/annotations/<key>","value":"<new>"},
//!  {"op":"add","path":"/metadata/annotations/<key>","value":"<new>"}]  (old value unset)
//! ```
//!
//! Annotation keys hold `/`: each key is one JSON pointer token, `~`
//! written `~0` and `/` written `~1` (RFC 6901 §3).
//!
//! **Absence.** A JSON patch `test` compares the value at a location that
//! exists (RFC 6902 §4.6); it cannot say "this key is not set" (kube-apiserver's
//! patch library happens to pass a `null` test on a missing key, a quirk we
//! do not build a safety check on). So the writer first reads the node (a
//! GET), checks there that the uid and every old value, set or unset, are
//! what the dialog showed, and then pins the `metadata.resourceVersion` it
//! read: the server applies the patch only to that very version, so nothing
//! can change between the check and the write. A node that changed on the
//! way (a status update, say) is refused too; the explanation then says the
//! annotations still read as shown, and the operator confirms again.

use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};

use super::errors::{self, Target};
use super::{WriteError, Writer};
use crate::domain::action::plan::AnnotationChange;
use crate::sanitize::sanitize;

/// `openstack.lcm.mirantis.com/instance_migration_mode` ->
/// `/metadata/annotations/openstack.lcm.mirantis.com~1instance_migration_mode`.
pub fn annotation_path(key: &str) -> String {
    format!(
        "/metadata/annotations/{}",
        key.replace('~', "~0").replace('/', "~1")
    )
}

/// The JSON patch that makes `changes` on the node read at `resource_version`
/// with uid `uid` (see the module text). An empty `uid` is not tested.
pub fn annotation_patch(uid: &str, resource_version: &str, changes: &[AnnotationChange]) -> Value {
    annotation_patch_on(uid, resource_version, true, changes)
}

/// [`annotation_patch`] for a node that may have no `metadata.annotations`
/// at all: a JSON patch `add` needs its parent object, so the map is added
/// first (under the resourceVersion test, nobody else can have added it).
pub fn annotation_patch_on(
    uid: &str,
    resource_version: &str,
    annotations_present: bool,
    changes: &[AnnotationChange],
) -> Value {
    let mut ops = Vec::new();
    if !uid.is_empty() {
        ops.push(json!({"op": "test", "path": "/metadata/uid", "value": uid}));
    }
    ops.push(json!({"op": "test", "path": "/metadata/resourceVersion", "value": resource_version}));
    if !annotations_present && changes.iter().any(|c| c.new.is_some()) {
        ops.push(json!({"op": "add", "path": "/metadata/annotations", "value": {}}));
    }
    for c in changes {
        let path = annotation_path(&c.key);
        match (&c.old, &c.new) {
            (Some(old), Some(new)) => {
                ops.push(json!({"op": "test", "path": path, "value": old}));
                ops.push(json!({"op": "replace", "path": path, "value": new}));
            }
            (Some(old), None) => {
                ops.push(json!({"op": "test", "path": path, "value": old}));
                ops.push(json!({"op": "remove", "path": path}));
            }
            (None, Some(new)) => ops.push(json!({"op": "add", "path": path, "value": new})),
            (None, None) => {}
        }
    }
    Value::Array(ops)
}

/// The short name of an annotation key (`instance_migration_mode`).
fn short(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or(key)
}

fn shown(v: Option<&str>) -> String {
    v.map_or_else(|| "unset".to_string(), |v| format!("\"{v}\""))
}

/// What differs between the node as the dialog showed it (`uid`, each
/// change's old value) and `now` (the node as read, its values sanitized
/// as the screen's are); `None` when it reads as shown.
pub fn changed_since_drawn(
    name: &str,
    uid: &str,
    changes: &[AnnotationChange],
    now: &Node,
) -> Option<String> {
    let now_uid = now.metadata.uid.as_deref().unwrap_or_default();
    if !uid.is_empty() && now_uid != uid {
        return Some(format!(
            "node {name} was deleted and created again since it was drawn (uid {uid} is now {})",
            sanitize(now_uid)
        ));
    }
    let annotations = now.metadata.annotations.as_ref();
    let diffs: Vec<String> = changes
        .iter()
        .filter_map(|c| {
            let value = annotations.and_then(|a| a.get(&c.key)).map(|v| sanitize(v));
            (value != c.old).then(|| {
                format!(
                    "{} is {} now (the dialog showed {})",
                    short(&c.key),
                    shown(value.as_deref()),
                    shown(c.old.as_deref())
                )
            })
        })
        .collect();
    (!diffs.is_empty()).then(|| {
        format!(
            "node {name} changed since it was drawn: {}",
            diffs.join(", ")
        )
    })
}

impl Writer {
    /// Changes the annotations of node `name` (uid `uid` as drawn) from each
    /// change's old value to its new one, only if the node still reads as
    /// the dialog showed it (see the module text). Returns the annotations'
    /// values the server answered with (sanitized), in the order of `changes`.
    pub async fn patch_node_annotations(
        &self,
        name: &str,
        uid: &str,
        changes: &[AnnotationChange],
    ) -> Result<Vec<Option<String>>, WriteError> {
        self.guard()?;
        let target = Target::node(name);
        let api: Api<Node> = Api::all(self.client(crate::domain::objects::ClusterId::Mosk));
        let now = api
            .get(name)
            .await
            .map_err(|e| errors::explain(e, &target))?;
        if let Some(what) = changed_since_drawn(name, uid, changes, &now) {
            return Err(WriteError::Refused(format!("{what}; nothing was sent")));
        }
        let version = now.metadata.resource_version.clone().unwrap_or_default();
        let patch: json_patch::Patch = serde_json::from_value(annotation_patch_on(
            uid,
            &version,
            now.metadata.annotations.is_some(),
            changes,
        ))
        .map_err(|e| WriteError::Failed(format!("the JSON patch could not be built: {e}")))?;
        let mut params = PatchParams {
            field_manager: Some(super::FIELD_MANAGER.to_string()),
            ..PatchParams::default()
        };
        if self.mode().dry_run() {
            params = params.dry_run();
        }
        let node = match api.patch(name, &params, &Patch::Json::<()>(patch)).await {
            Ok(n) => n,
            // A failed `test` (kube-apiserver answers 422 Invalid): say what
            // changed, from the node as it is now.
            Err(kube::Error::Api(s)) if s.code == 422 => {
                let what = match api.get(name).await {
                    Ok(n) => changed_since_drawn(name, uid, changes, &n).unwrap_or_else(|| {
                        format!(
                            "node {name} changed while the request was sent (resourceVersion {version} is {} now), \
                             though its annotations still read as the dialog showed; confirm again \
                             (server: {})",
                            sanitize(n.metadata.resource_version.as_deref().unwrap_or("?")),
                            sanitize(&s.message)
                        )
                    }),
                    Err(e) => format!(
                        "node {name} changed since it was drawn and could not be read back ({})",
                        errors::explain(e, &target)
                    ),
                };
                return Err(WriteError::Refused(format!("{what}; nothing was changed")));
            }
            Err(e) => return Err(errors::explain(e, &target)),
        };
        let got = node.metadata.annotations.unwrap_or_default();
        Ok(changes
            .iter()
            .map(|c| got.get(&c.key).map(|v| sanitize(v)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(old: Option<&str>, new: Option<&str>) -> AnnotationChange {
        AnnotationChange {
            key: "openstack.lcm.mirantis.com/instance_migration_mode".into(),
            old: old.map(str::to_string),
            new: new.map(str::to_string),
        }
    }

    #[test]
    fn the_patch_pins_uid_version_and_old_values_with_escaped_keys() {
        assert_eq!(
            annotation_patch("u1", "42", &[change(Some("manual"), Some("skip"))]).to_string(),
            r#"[{"op":"test","path":"/metadata/uid","value":"u1"},{"op":"test","path":"/metadata/resourceVersion","value":"42"},{"op":"test","path":"/metadata/annotations/openstack.lcm.mirantis.com~1instance_migration_mode","value":"manual"},{"op":"replace","path":"/metadata/annotations/openstack.lcm.mirantis.com~1instance_migration_mode","value":"skip"}]"#
        );
        // Unset before: no value to test; the version read pins it.
        assert_eq!(
            annotation_patch("u1", "42", &[change(None, Some("live"))]).to_string(),
            r#"[{"op":"test","path":"/metadata/uid","value":"u1"},{"op":"test","path":"/metadata/resourceVersion","value":"42"},{"op":"add","path":"/metadata/annotations/openstack.lcm.mirantis.com~1instance_migration_mode","value":"live"}]"#
        );
        assert_eq!(annotation_path("a~b/c"), "/metadata/annotations/a~0b~1c");
    }

    fn node(uid: &str, mode: Option<&str>) -> Node {
        let mut n = Node::default();
        n.metadata.uid = Some(uid.into());
        if let Some(m) = mode {
            n.metadata.annotations = Some(
                [(
                    "openstack.lcm.mirantis.com/instance_migration_mode".to_string(),
                    m.to_string(),
                )]
                .into(),
            );
        }
        n
    }

    #[test]
    fn what_changed_is_named_and_unset_counts_as_a_value() {
        let c = [change(Some("manual"), Some("skip"))];
        assert_eq!(
            changed_since_drawn("n1", "u1", &c, &node("u1", Some("manual"))),
            None
        );
        assert_eq!(
            changed_since_drawn("n1", "u1", &c, &node("u1", Some("live"))).unwrap(),
            "node n1 changed since it was drawn: instance_migration_mode is \"live\" now (the dialog showed \"manual\")"
        );
        let unset = [change(None, Some("skip"))];
        assert_eq!(
            changed_since_drawn("n1", "u1", &unset, &node("u1", Some("manual"))).unwrap(),
            "node n1 changed since it was drawn: instance_migration_mode is \"manual\" now (the dialog showed unset)"
        );
        assert!(
            changed_since_drawn("n1", "u1", &c, &node("u2", Some("manual")))
                .unwrap()
                .contains("deleted and created again since it was drawn (uid u1 is now u2)")
        );
    }
}
