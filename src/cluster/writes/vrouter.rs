//! Restarting one vRouter pod: ask the server that no other vRouter pod is
//! down, delete the pod with a uid precondition (so a stale screen can never
//! delete the pod that already replaced it), then watch the node's pods
//! until the DaemonSet's replacement runs the current template (its
//! `pod-template-generation` label equals the DaemonSet's
//! `deprecated.daemonset.template.generation` annotation, Kubernetes'
//! `IsPodUpdated`; see `domain::vrouter::revision`) and is Ready — or the
//! timeout passes.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Pod;
use kube::Api;
use kube::api::{DeleteParams, Preconditions};
use kube::core::Request;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};

use super::errors::{Target, explain};
use super::{WriteError, Writer};
use crate::cluster::convert::{
    TEMPLATE_GENERATION_ANNOTATION, TEMPLATE_GENERATION_LABEL, VROUTER_PREFIX,
};
use crate::sanitize::sanitize;

/// The replacement pod that made a restart complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub name: String,
    pub uid: String,
    pub generation: i64,
}

/// What the watch saw last, for the timeout message.
#[derive(Debug, Default)]
struct Seen {
    last: Option<String>,
}

impl Writer {
    /// Deletes the pod if its uid is still `uid` (409 otherwise). In dry-run
    /// mode the server only validates.
    pub async fn delete_pod(
        &self,
        namespace: &str,
        name: &str,
        uid: &str,
    ) -> Result<(), WriteError> {
        self.guard()?;
        let target = Target::pod_delete(namespace, name);
        let params = DeleteParams {
            dry_run: self.mode().dry_run(),
            preconditions: Some(Preconditions {
                uid: Some(uid.to_string()),
                resource_version: None,
            }),
            ..Default::default()
        };
        let mut req = Request::new(format!("/api/v1/namespaces/{namespace}/pods"))
            .delete(name, &params)
            .map_err(|e| {
                WriteError::Failed(format!(
                    "could not build the delete of {}: {e}",
                    target.what
                ))
            })?;
        if params.dry_run {
            // kube sends dryRun only in the DeleteOptions body; the query
            // parameter too makes sure no server can take it as a real delete.
            let uri = format!("{}dryRun=All", req.uri());
            *req.uri_mut() = uri.parse().map_err(|e| {
                WriteError::Failed(format!(
                    "could not build the delete of {}: {e}",
                    target.what
                ))
            })?;
        }
        self.client(crate::domain::objects::ClusterId::Mosk)
            .request::<serde_json::Value>(req)
            .await
            .map(|_| ())
            .map_err(|e| explain(e, &target))
    }

    /// The vRouter pods of `namespace` other than `except_uid` that are down
    /// (Terminating, or not Ready), as the server has them now: `<pod> on
    /// <node> is Terminating|not Ready`. Two vRouters are never down at once,
    /// so a restart is sent only when this is empty; asked before each
    /// delete, since the screen's view may be older than the last restart.
    pub async fn vrouters_down(
        &self,
        namespace: &str,
        except_uid: &str,
    ) -> Result<Vec<String>, WriteError> {
        let pods: Api<Pod> = Api::namespaced(
            self.client(crate::domain::objects::ClusterId::Mosk),
            namespace,
        );
        let list = pods.list(&Default::default()).await.map_err(|e| {
            explain(
                e,
                &Target::other(format!("the vRouter pods of namespace {namespace}")),
            )
        })?;
        Ok(list
            .items
            .iter()
            .filter(|p| {
                p.metadata
                    .name
                    .as_deref()
                    .is_some_and(|n| n.starts_with(VROUTER_PREFIX))
                    && p.metadata.uid.as_deref() != Some(except_uid)
            })
            .filter_map(|p| {
                let state = if p.metadata.deletion_timestamp.is_some() {
                    "Terminating"
                } else if !is_ready(p) {
                    "not Ready"
                } else {
                    return None;
                };
                Some(format!(
                    "{} on {} is {state}",
                    sanitize(p.metadata.name.as_deref().unwrap_or_default()),
                    p.spec
                        .as_ref()
                        .and_then(|s| s.node_name.as_deref())
                        .map_or_else(|| "no node".to_string(), sanitize)
                ))
            })
            .collect())
    }

    /// Waits until a pod of `daemonset` other than `old_uid` runs on `node`
    /// from the DaemonSet's current generation and is Ready.
    pub async fn wait_for_replacement(
        &self,
        namespace: &str,
        node: &str,
        daemonset: &str,
        old_uid: &str,
        timeout: Duration,
    ) -> Result<Replacement, WriteError> {
        let client = self.client(crate::domain::objects::ClusterId::Mosk);
        let ds_api: Api<DaemonSet> = Api::namespaced(client.clone(), namespace);
        let pods: Api<Pod> = Api::namespaced(client, namespace);
        let mut seen = Seen::default();
        let work = async {
            let ds = ds_api.get(daemonset).await.map_err(|e| {
                explain(
                    e,
                    &Target::other(format!("daemonset {namespace}/{daemonset}")),
                )
            })?;
            // The template generation, not `metadata.generation`: an edit
            // of the DaemonSet's spec outside its template moves the latter
            // and no pod ever carries it.
            let want = ds
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(TEMPLATE_GENERATION_ANNOTATION))
                .and_then(|g| g.trim().parse::<i64>().ok())
                .ok_or_else(|| {
                    WriteError::Failed(format!(
                        "daemonset {namespace}/{daemonset} has no {TEMPLATE_GENERATION_ANNOTATION} annotation"
                    ))
                })?;
            let cfg = watcher::Config::default().fields(&format!("spec.nodeName={node}"));
            let mut stream = watcher::watcher(pods, cfg).default_backoff().boxed();
            while let Some(ev) = stream.next().await {
                let pod = match ev {
                    Ok(Event::Apply(p)) | Ok(Event::InitApply(p)) => p,
                    Ok(_) => continue,
                    Err(e) => {
                        seen.last = Some(sanitize(&format!("watch error: {e}")));
                        continue;
                    }
                };
                if let Some(r) = check_replacement(&pod, daemonset, old_uid, want, &mut seen) {
                    return Ok(r);
                }
            }
            Err(WriteError::Failed(format!(
                "the watch of pods on {node} ended before the replacement was Ready"
            )))
        };
        match tokio::time::timeout(timeout, work).await {
            Ok(r) => r,
            Err(_) => Err(WriteError::Timeout(format!(
                "the replacement vRouter pod on {node} was not Ready on the current revision within {}s ({}); the run stops here: look at the pod, then retry",
                timeout.as_secs(),
                seen.last
                    .unwrap_or_else(|| "no replacement pod appeared".into())
            ))),
        }
    }
}

fn check_replacement(
    pod: &Pod,
    daemonset: &str,
    old_uid: &str,
    want: i64,
    seen: &mut Seen,
) -> Option<Replacement> {
    let meta = &pod.metadata;
    let owned = meta.owner_references.as_ref().is_some_and(|refs| {
        refs.iter()
            .any(|o| o.kind == "DaemonSet" && o.name == daemonset)
    });
    let uid = meta.uid.clone().unwrap_or_default();
    if !owned || uid == old_uid || meta.deletion_timestamp.is_some() {
        return None;
    }
    let name = sanitize(meta.name.as_deref().unwrap_or_default());
    let generation = meta
        .labels
        .as_ref()
        .and_then(|l| l.get(TEMPLATE_GENERATION_LABEL))
        .and_then(|g| g.parse::<i64>().ok());
    let ready = is_ready(pod);
    match generation {
        Some(g) if g == want && ready => Some(Replacement {
            name,
            uid,
            generation: g,
        }),
        Some(g) if g != want => {
            seen.last = Some(format!(
                "pod {name} runs template generation {g}, the DaemonSet's is {want}"
            ));
            None
        }
        None => {
            seen.last = Some(format!(
                "pod {name} has no {TEMPLATE_GENERATION_LABEL} label"
            ));
            None
        }
        Some(_) => {
            let phase = pod
                .status
                .as_ref()
                .and_then(|s| s.phase.as_deref())
                .map_or_else(|| "unknown".into(), sanitize);
            seen.last = Some(format!("pod {name} is {phase}, not Ready"));
            None
        }
    }
}

fn is_ready(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}
