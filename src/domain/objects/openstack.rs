//! OpenStackDeploymentStatus (`lcm.mirantis.com/v1alpha1`, MOSK cluster,
//! namespaced: `openstack`, named after its OpenStackDeployment, usually
//! `osh-dev`): what the OpenStack controller says of its deployment. Read
//! as github:Mirantis/rockoon writes it, commit 1390883a:
//! `rockoon/osdplstatus.py` (`set_osdpl_status` writes `status.osdpl`:
//! state, controller_version, release, …; `update_osdpl_lcm_progress` writes
//! `lcm_progress`), `rockoon/batch_health.py` (`get_overall_health` writes
//! `status.osdpl.health`, and `status.health.<application>.<component>.status`
//! is `Ready` or `Unhealthy`, `constants.K8sObjHealth`).

use super::OsdplState;

/// One component of `status.health` whose status is not `Ready`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentHealth {
    /// The application (`nova`, `neutron`, …).
    pub application: String,
    /// Its component (`api`, `compute`, …).
    pub component: String,
    /// `status`, verbatim (`Unhealthy`); empty when the component has none.
    pub status: String,
}

/// The components not Ready kept per object: what a screen can name; the
/// rest are counted ([`OpenstackDeploymentStatus::not_ready_count`]).
pub const NOT_READY_KEPT: usize = 16;

/// An OpenStackDeploymentStatus, with what the rules read, parsed once.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenstackDeploymentStatus {
    pub name: String,
    pub namespace: String,
    /// `status.osdpl.state` (`Other("")` when absent).
    pub state: OsdplState,
    /// `status.osdpl.controller_version`: the version of the controller
    /// that last wrote the status.
    pub controller_version: Option<String>,
    /// `status.osdpl.openstack_version`.
    pub openstack_version: Option<String>,
    /// `status.osdpl.release`: the MOSK release of that controller.
    pub release: Option<String>,
    /// `status.osdpl.lcm_progress`: `<services APPLIED>/<services>`, as written.
    pub lcm_progress: Option<String>,
    /// `status.osdpl.health`: `<applications with no Unhealthy
    /// component>/<applications>`, as written.
    pub health: Option<String>,
    /// How many components `status.health` lists.
    pub components: usize,
    /// The first [`NOT_READY_KEPT`] components of `status.health` whose
    /// status is not `Ready`, by application then component.
    pub not_ready: Vec<ComponentHealth>,
    /// How many components are not `Ready` in all.
    pub not_ready_count: usize,
}
