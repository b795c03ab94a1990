//! The OpenStackDeploymentStatus (`lcm.mirantis.com/v1alpha1`, namespace
//! `openstack`), read leniently like every custom kind: unknown fields
//! ignored, wrong types an error. Its layout is Rockoon's
//! (github:Mirantis/rockoon, commit 1390883a: `rockoon/osdplstatus.py`
//! `set_osdpl_status`, `update_osdpl_lcm_progress`; `rockoon/health.py`
//! `set_multi_application_health`; the CRD
//! `charts/rockoon/templates/resources_shared/_24-openstackdeploymentstatus-crd.yaml.tpl`).

use std::collections::BTreeMap;

use kube::api::DynamicObject;
use serde::Deserialize;

use super::{body, name_of, parse, s, s_opt, so};
use crate::domain::objects::{ComponentHealth, NOT_READY_KEPT, OpenstackDeploymentStatus};

/// The namespace Rockoon runs in and writes its status to (`settings.OSCTL_OS_DEPLOYMENT_NAMESPACE`).
pub const OPENSTACK_NAMESPACE: &str = "openstack";

/// `constants.K8sObjHealth.OK`: the status of a healthy component
/// (`health.is_application_ready` wants every component so).
const READY: &str = "Ready";

#[derive(Deserialize, Default)]
#[serde(default)]
struct Status {
    osdpl: Osdpl,
    /// `<application>: {<component>: {status, generation}}`. A key set to
    /// null is a component removed by a merge patch
    /// (`remove_osdpl_service_health`): read as absent.
    health: BTreeMap<String, Option<BTreeMap<String, Option<Component>>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Osdpl {
    state: Option<String>,
    controller_version: Option<String>,
    openstack_version: Option<String>,
    release: Option<String>,
    lcm_progress: Option<String>,
    health: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Component {
    status: Option<String>,
}

pub(super) fn osdpl_status(obj: &DynamicObject) -> Result<OpenstackDeploymentStatus, String> {
    let (_, status): (serde_json::Value, Status) = body(obj)?;
    let mut components = 0;
    let mut not_ready = Vec::new();
    let mut not_ready_count = 0;
    for (application, parts) in &status.health {
        for (component, health) in parts.iter().flatten() {
            let Some(health) = health else { continue };
            components += 1;
            // `is_application_ready` compares `status` with "Ready"; a
            // component without one is not ready (the controller's
            // `component_health["status"]` raises there).
            if health.status.as_deref() == Some(READY) {
                continue;
            }
            not_ready_count += 1;
            if not_ready.len() < NOT_READY_KEPT {
                not_ready.push(ComponentHealth {
                    application: s(application),
                    component: s(component),
                    status: s_opt(health.status.as_deref()),
                });
            }
        }
    }
    let osdpl = status.osdpl;
    Ok(OpenstackDeploymentStatus {
        name: name_of(&obj.metadata)?,
        namespace: s_opt(obj.metadata.namespace.as_deref()),
        state: parse(osdpl.state.as_deref()),
        controller_version: so(osdpl.controller_version),
        openstack_version: so(osdpl.openstack_version),
        release: so(osdpl.release),
        lcm_progress: so(osdpl.lcm_progress),
        health: so(osdpl.health),
        components,
        not_ready,
        not_ready_count,
    })
}
