//! Which MOSK cluster to follow: the LCMClusters the management context can
//! see, listed once at start-up, and the choice among them
//! ([`crate::domain::which_cluster::choose`]).

use kube::Client;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, ListParams};

use crate::cluster::watch::{crd_missing, describe_kube_error, refusal_text};
use crate::domain::objects::Kind;
use crate::domain::which_cluster::{Choice, ClusterRef, Wanted, choose};
use crate::sanitize::sanitize;

/// Lists the LCMClusters of the management cluster in `wanted`'s namespace
/// (every namespace without one) and chooses among them. `Err` is the
/// one-paragraph error the console stops with: a refused list (401/403,
/// named as a refusal, never as "none found"), a management cluster that
/// serves no LCMCluster, a failed list, none found, or no cluster of the
/// name asked for.
pub async fn which_cluster(
    client: &Client,
    mgmt_context: &str,
    wanted: &Wanted,
) -> Result<Choice, String> {
    let found = list_clusters(client, wanted.namespace.as_deref())
        .await
        .map_err(|e| e.explain(mgmt_context, wanted))?;
    choose(found, wanted, mgmt_context)
}

/// Why the LCMClusters could not be listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListError {
    /// 401/403, in the operator's words (`forbidden: viewer may not list
    /// lcmclusters cluster-wide`).
    Refused(String),
    /// The management cluster does not serve the LCMCluster kind (404).
    NotServed,
    /// Anything else, described.
    Failed(String),
}

impl ListError {
    /// The one-paragraph error, naming the management context and what to do.
    pub fn explain(&self, mgmt_context: &str, wanted: &Wanted) -> String {
        let scope = wanted.scope();
        match self {
            ListError::Refused(why) => format!(
                "the management context {mgmt_context} refused to list its LCMClusters in \
                 {scope} ({why}), so the console cannot tell which MOSK cluster to follow{}",
                match wanted.namespace {
                    None =>
                        ": give its project namespace with --namespace (and its name with --cluster)",
                    Some(_) =>
                        ": ask for read access to lcmclusters in that namespace, or check --namespace",
                }
            ),
            ListError::NotServed => format!(
                "the management context {mgmt_context} serves no LCMCluster \
                 (lcmclusters.lcm.mirantis.com): is it the management cluster of your MOSK \
                 cluster? Check --kubeconfig and --mgmt-context"
            ),
            ListError::Failed(why) => format!(
                "the LCMClusters of the management context {mgmt_context} could not be \
                 listed in {scope}: {why}"
            ),
        }
    }
}

/// The LCMClusters in `namespace` (every namespace when `None`), their
/// names sanitized.
pub async fn list_clusters(
    client: &Client,
    namespace: Option<&str>,
) -> Result<Vec<ClusterRef>, ListError> {
    let (group, version) = Kind::LcmCluster.group_version();
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk(group, version, Kind::LcmCluster.api_kind()),
        Kind::LcmCluster.plural(),
    );
    let api: Api<DynamicObject> = match namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
        None => Api::all_with(client.clone(), &resource),
    };
    let list = api
        .list(&ListParams::default())
        .await
        .map_err(|e| match &e {
            kube::Error::Api(s) if matches!(s.code, 401 | 403) => {
                ListError::Refused(refusal_text(s.code, &s.message))
            }
            _ if crd_missing(&e) => ListError::NotServed,
            _ => ListError::Failed(describe_kube_error(&e)),
        })?;
    Ok(list
        .items
        .iter()
        .map(|o| {
            ClusterRef::new(
                sanitize(o.metadata.namespace.as_deref().unwrap_or_default()),
                sanitize(o.metadata.name.as_deref().unwrap_or_default()),
            )
        })
        .filter(|c| !c.name.is_empty())
        .collect())
}
