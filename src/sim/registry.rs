//! Which resources a simulated cluster serves: the built-in kinds and the
//! custom resources read from the CRD files in `assets/crds/`.

use serde_json::Value;

/// One printer column of a resource (CRD `additionalPrinterColumns` or a
/// built-in column). Priority 0 is always shown; anything higher only with `-o wide`.
#[derive(Debug, Clone, PartialEq)]
pub struct PrinterColumn {
    pub name: String,
    /// `string`, `integer`, `number`, `boolean` or `date`.
    pub type_: String,
    pub format: String,
    pub description: String,
    pub priority: u32,
    pub json_path: String,
}

/// One served resource (a plural in one API group/version).
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceInfo {
    /// API group; `""` for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub singular: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub verbs: Vec<String>,
    /// Subresources served, e.g. `status`, `log`.
    pub subresources: Vec<String>,
    /// A built-in kind (strategic merge patch allowed, server-side table columns).
    pub builtin: bool,
    /// Printer columns from the CRD; empty for built-ins (those are in the server's table code).
    pub printer_columns: Vec<PrinterColumn>,
}

impl ResourceInfo {
    /// `v1` or `group/version`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// Whether the resource has a `status` subresource.
    pub fn has_status(&self) -> bool {
        self.subresources.iter().any(|s| s == "status")
    }

    /// Whether `verb` is allowed on this resource.
    pub fn allows(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }
}

/// The resources one simulated cluster serves, plus the CRD objects behind the custom ones.
#[derive(Debug, Clone)]
pub struct Registry {
    resources: Vec<ResourceInfo>,
    crds: Vec<Value>,
}

const ALL_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

const LCMMACHINES: &str = include_str!("../../assets/crds/lcm.mirantis.com_lcmmachines.yaml");
const LCMCLUSTERSTATES: &str =
    include_str!("../../assets/crds/lcm.mirantis.com_lcmclusterstates.yaml");
const LCMCLUSTERS: &str = include_str!("../../assets/crds/derived-by-us_lcmclusters.yaml");
const CMR: &str =
    include_str!("../../assets/crds/lcm.mirantis.com_clustermaintenancerequests.yaml");
const NMR: &str = include_str!("../../assets/crds/lcm.mirantis.com_nodemaintenancerequests.yaml");
const CWL: &str = include_str!("../../assets/crds/lcm.mirantis.com_clusterworkloadlocks.yaml");
const NWL: &str = include_str!("../../assets/crds/lcm.mirantis.com_nodeworkloadlocks.yaml");
const NDR: &str = include_str!("../../assets/crds/lcm.mirantis.com_nodedeletionrequests.yaml");
const NDN: &str = include_str!("../../assets/crds/lcm.mirantis.com_nodedisablenotifications.yaml");
const OSDPLST: &str =
    include_str!("../../assets/crds/derived-by-us_openstackdeploymentstatus.yaml");
const CDH: &str = include_str!("../../assets/crds/derived-by-us_cephdeploymenthealths.yaml");
const MACHINES: &str = include_str!("../../assets/crds/derived-by-us_machines.yaml");
const PLANS: &str = include_str!("../../assets/crds/derived-by-us_clusterupdateplans.yaml");
const AUTOPAUSES: &str = include_str!("../../assets/crds/derived-by-us_updateautopauses.yaml");
const UPDATEGROUPS: &str = include_str!("../../assets/crds/derived-by-us_updategroups.yaml");

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[allow(clippy::too_many_arguments)]
fn builtin(
    group: &str,
    kind: &str,
    plural: &str,
    namespaced: bool,
    short: &[&str],
    verbs: &[&str],
    subresources: &[&str],
) -> ResourceInfo {
    ResourceInfo {
        group: group.into(),
        version: "v1".into(),
        kind: kind.into(),
        plural: plural.into(),
        singular: kind.to_lowercase(),
        namespaced,
        short_names: strings(short),
        verbs: strings(verbs),
        subresources: strings(subresources),
        builtin: true,
        printer_columns: Vec::new(),
    }
}

fn builtins() -> Vec<ResourceInfo> {
    vec![
        builtin(
            "",
            "Namespace",
            "namespaces",
            false,
            &["ns"],
            ALL_VERBS,
            &["status"],
        ),
        builtin("", "Node", "nodes", false, &["no"], ALL_VERBS, &["status"]),
        builtin(
            "",
            "Pod",
            "pods",
            true,
            &["po"],
            ALL_VERBS,
            &["status", "log", "exec"],
        ),
        builtin("", "Event", "events", true, &["ev"], ALL_VERBS, &[]),
        builtin(
            "apps",
            "DaemonSet",
            "daemonsets",
            true,
            &["ds"],
            ALL_VERBS,
            &["status"],
        ),
        builtin(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            "customresourcedefinitions",
            false,
            &["crd", "crds"],
            &["get", "list", "watch"],
            &[],
        ),
    ]
}

/// Parses one CRD YAML file (comments and a leading `---` allowed) into its JSON object.
pub fn parse_crd(yaml: &str) -> Result<Value, String> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(yaml).map_err(|e| e.to_string())?;
    docs.into_iter()
        .find(|d| d.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition"))
        .ok_or_else(|| "no CustomResourceDefinition document".to_string())
}

/// The served resource described by a CRD object (its first served version).
pub fn resource_from_crd(crd: &Value) -> Result<ResourceInfo, String> {
    let spec = crd.get("spec").ok_or("CRD without spec")?;
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    let names = spec.get("names").ok_or("CRD without spec.names")?;
    let versions = spec
        .get("versions")
        .and_then(Value::as_array)
        .ok_or("CRD without spec.versions")?;
    let version = versions
        .iter()
        .find(|v| v.get("served").and_then(Value::as_bool).unwrap_or(true))
        .ok_or("CRD without a served version")?;
    let mut subresources = Vec::new();
    if version.pointer("/subresources/status").is_some() {
        subresources.push("status".to_string());
    }
    let printer_columns = version
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .map(|cols| {
            cols.iter()
                .map(|c| PrinterColumn {
                    name: s(c.get("name")),
                    type_: s(c.get("type")),
                    format: s(c.get("format")),
                    description: s(c.get("description")),
                    priority: c.get("priority").and_then(Value::as_u64).unwrap_or(0) as u32,
                    json_path: s(c.get("jsonPath")),
                })
                .collect()
        })
        .unwrap_or_default();
    let plural = s(names.get("plural"));
    let kind = s(names.get("kind"));
    if plural.is_empty() || kind.is_empty() {
        return Err("CRD without names.plural or names.kind".into());
    }
    Ok(ResourceInfo {
        group: s(spec.get("group")),
        version: s(version.get("name")),
        singular: names
            .get("singular")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| kind.to_lowercase()),
        kind,
        plural,
        namespaced: s(spec.get("scope")) != "Cluster",
        short_names: names
            .get("shortNames")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        verbs: strings(ALL_VERBS),
        subresources,
        builtin: false,
        printer_columns,
    })
}

impl Registry {
    /// A registry of the built-in kinds plus the CRDs given as YAML texts.
    pub fn with_crds(yamls: &[&str]) -> Result<Registry, String> {
        let mut resources = builtins();
        let mut crds = Vec::new();
        for y in yamls {
            let crd = parse_crd(y)?;
            resources.push(resource_from_crd(&crd)?);
            crds.push(crd);
        }
        Ok(Registry { resources, crds })
    }

    /// The management cluster: built-ins plus LCMMachine, LCMClusterState,
    /// LCMCluster, the provider Machine, ClusterUpdatePlan, UpdateAutoPause
    /// and UpdateGroup.
    pub fn mgmt() -> Registry {
        Registry::with_crds(&[
            LCMMACHINES,
            LCMCLUSTERSTATES,
            LCMCLUSTERS,
            MACHINES,
            PLANS,
            AUTOPAUSES,
            UPDATEGROUPS,
        ])
        .expect("bundled management CRDs parse")
    }

    /// The MOSK cluster: built-ins plus the six Rockoon maintenance CRDs,
    /// the OpenStackDeploymentStatus and Pelagia's CephDeploymentHealth.
    pub fn mosk() -> Registry {
        Registry::with_crds(&[CMR, NMR, CWL, NWL, NDR, NDN, OSDPLST, CDH])
            .expect("bundled MOSK CRDs parse")
    }

    /// The resource with this plural in this group (`""` = core).
    pub fn by_plural(&self, group: &str, plural: &str) -> Option<&ResourceInfo> {
        self.resources
            .iter()
            .find(|r| r.group == group && r.plural == plural)
    }

    /// The resource with this plural in any group (plurals are unique in our registries).
    pub fn find_plural(&self, plural: &str) -> Option<&ResourceInfo> {
        self.resources.iter().find(|r| r.plural == plural)
    }

    /// Every served resource.
    pub fn all(&self) -> &[ResourceInfo] {
        &self.resources
    }

    /// The CRD objects behind the custom resources (served as `customresourcedefinitions`).
    pub fn crds(&self) -> &[Value] {
        &self.crds
    }

    /// The API groups served, in a stable order, each with its versions.
    pub fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for r in &self.resources {
            if r.group.is_empty() {
                continue;
            }
            match out.iter_mut().find(|(g, _)| *g == r.group) {
                Some((_, vs)) if !vs.contains(&r.version) => vs.push(r.version.clone()),
                Some(_) => {}
                None => out.push((r.group.clone(), vec![r.version.clone()])),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mgmt_serves_lcm_kinds_with_printer_columns() {
        let r = Registry::mgmt();
        let m = r.by_plural("lcm.mirantis.com", "lcmmachines").unwrap();
        assert_eq!(m.kind, "LCMMachine");
        assert!(m.namespaced);
        assert!(m.has_status());
        let names: Vec<_> = m.printer_columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "clusterName",
                "type",
                "state",
                "internalIP",
                "hostname",
                "agentVersion"
            ]
        );
        assert!(r.by_plural("lcm.mirantis.com", "lcmclusters").is_some());
        assert!(
            r.by_plural("lcm.mirantis.com", "nodeworkloadlocks")
                .is_none()
        );
        assert_eq!(r.crds().len(), 7);
        for (group, plural, kind, status) in [
            ("cluster.k8s.io", "machines", "Machine", true),
            (
                "kaas.mirantis.com",
                "clusterupdateplans",
                "ClusterUpdatePlan",
                true,
            ),
            (
                "kaas.mirantis.com",
                "updateautopauses",
                "UpdateAutoPause",
                true,
            ),
            ("kaas.mirantis.com", "updategroups", "UpdateGroup", false),
        ] {
            let info = r.by_plural(group, plural).unwrap();
            assert_eq!(info.kind, kind);
            assert!(info.namespaced, "{plural}");
            assert_eq!(info.has_status(), status, "{plural}");
            // The reference gives no printer columns: kubectl prints NAME AGE.
            assert!(info.printer_columns.is_empty(), "{plural}");
        }
    }

    #[test]
    fn mosk_serves_the_rockoon_maintenance_kinds_cluster_scoped_and_the_two_status_kinds() {
        let r = Registry::mosk();
        for p in [
            "clustermaintenancerequests",
            "nodemaintenancerequests",
            "clusterworkloadlocks",
            "nodeworkloadlocks",
            "nodedeletionrequests",
            "nodedisablenotifications",
        ] {
            let info = r.by_plural("lcm.mirantis.com", p).unwrap();
            assert!(!info.namespaced, "{p}");
            assert!(!info.builtin);
        }
        assert!(
            r.by_plural("lcm.mirantis.com", "nodeworkloadlocks")
                .unwrap()
                .has_status()
        );
        assert!(
            !r.by_plural("lcm.mirantis.com", "nodemaintenancerequests")
                .unwrap()
                .has_status()
        );
        assert_eq!(
            r.by_plural("apps", "daemonsets").unwrap().short_names,
            ["ds"]
        );
        // Rockoon's OpenStackDeploymentStatus: namespaced, plural in the
        // singular form, no status subresource, its printer columns.
        let st = r
            .by_plural("lcm.mirantis.com", "openstackdeploymentstatus")
            .unwrap();
        assert_eq!(st.kind, "OpenStackDeploymentStatus");
        assert!(st.namespaced && !st.has_status());
        assert_eq!(st.short_names, ["osdplst"]);
        let cols: Vec<_> = st.printer_columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            cols,
            [
                "OpenStack Version",
                "Controller Version",
                "State",
                "LCM Progress",
                "HEALTH",
                "MOSK Release"
            ]
        );
        let cdh = r
            .by_plural("lcm.mirantis.com", "cephdeploymenthealths")
            .unwrap();
        assert_eq!(cdh.kind, "CephDeploymentHealth");
        assert!(cdh.namespaced && cdh.has_status());
        assert_eq!(cdh.short_names, ["cdh"]);
    }
}
