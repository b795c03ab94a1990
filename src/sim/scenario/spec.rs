//! The scenario file format (TOML). Loading and validation are in `load`.
//!
//! A scenario says what the simulated clusters look like (machine groups and
//! per-node overrides), how the update behaves (reboot, worker concurrency,
//! message format, vRouter restart) and how long each step takes. The real
//! phase durations of a MOSK update are not public: every duration in a
//! scenario file is a placeholder.

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Deserializer};

use super::plan_spec::{AutoPauseSpec, PlanSpec, ServerTag, UpdateGroupSpec};

/// A duration written as text in the scenario file ("45s", "2m", "1h 30m").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dur(pub SignedDuration);

impl Dur {
    pub const fn secs(s: i64) -> Dur {
        Dur(SignedDuration::from_secs(s))
    }
    pub fn get(self) -> SignedDuration {
        self.0
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse::<SignedDuration>().map(Dur).map_err(|_| {
            serde::de::Error::custom(format!(
                "invalid duration {s:?}: write it like \"45s\", \"2m\" or \"1h 30m\""
            ))
        })
    }
}

/// A point in time written as RFC 3339 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct When(pub Timestamp);

impl<'de> Deserialize<'de> for When {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse::<Timestamp>().map(When).map_err(|_| {
            serde::de::Error::custom(format!(
                "invalid time {s:?}: write it like \"2026-01-01T10:00:00Z\""
            ))
        })
    }
}

/// Which errorMessage texts the OpenStack controller writes when servers are
/// left on a node (reference §3.9 E-LEFT vs E-LEFT-OLD).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageFormat {
    /// MOSK 25.1 and later: `Some servers are still present on the host. ...`
    #[default]
    New,
    /// MOSK 24.3 and earlier: `Some servers {...} are still present on host <node>. Waiting unless ...`
    Old,
}

/// The role of a machine in the scenario; decides names, labels and locks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Kubernetes master with collocated OpenStack control plane, Ceph mon/mgr and TF control.
    Control,
    /// Worker with Ceph OSDs.
    Storage,
    /// Worker running the OpenStack networking gateway (OpenStack node lock
    /// only; which locks a gateway has is inferred).
    Gateway,
    /// Worker running OpenStack instances and the TF vRouter.
    Compute,
}

impl Role {
    /// Update order of the roles (a scenario without gateways keeps the
    /// names and ids it had before gateways existed).
    pub const ALL: [Role; 4] = [Role::Control, Role::Storage, Role::Gateway, Role::Compute];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Control => "control",
            Role::Storage => "storage",
            Role::Gateway => "gateway",
            Role::Compute => "compute",
        }
    }
}

/// The `openstack.lcm.mirantis.com/instance_migration_mode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MigrationMode {
    Live,
    Manual,
    Skip,
}

impl MigrationMode {
    pub fn as_str(self) -> &'static str {
        match self {
            MigrationMode::Live => "live",
            MigrationMode::Manual => "manual",
            MigrationMode::Skip => "skip",
        }
    }
}

/// Why an instance cannot be live-migrated. The first three are the cases
/// the update guide names: Nova refuses them at once (the API call raises).
/// `NotConverging`: the call is accepted, the instance is MIGRATING for the
/// migration's duration, then the migration is aborted and the instance is
/// back to its status on its host (Nova's completion timeout; inferred).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LiveMigrationProblem {
    LvmEphemeral,
    EncryptedVolume,
    CpuPinning,
    NotConverging,
}

/// A server's state at the start of a scenario (Nova `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ServerState {
    #[default]
    Active,
    Paused,
    /// `ERROR`: never live-migrated by the controller, still listed on the host.
    Error,
    /// `SHUTOFF` (power state SHUTDOWN): ignored by the controller.
    Shutoff,
    /// `SHELVED_OFFLOADED`: no longer on any host.
    ShelvedOffloaded,
}

/// The application controllers that own workload locks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Controller {
    Openstack,
    Ceph,
    Tf,
}

impl Controller {
    /// The lock's `spec.controllerName`.
    pub fn controller_name(self) -> &'static str {
        match self {
            Controller::Openstack => "openstack",
            Controller::Ceph => "ceph",
            Controller::Tf => "tungstenfabric",
        }
    }
}

/// Release strings before and after the update. All are placeholders.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Releases {
    /// Cluster release on LCMCluster / LCMMachine before the update.
    pub from: String,
    /// Cluster release the update goes to.
    pub to: String,
    /// The application controllers' release string on locks before the update.
    pub controller_from: String,
    /// ... and after (`<cluster release>+<MOSK release>` style).
    pub controller_to: String,
    /// LCM Agent version before the update.
    pub agent_from: String,
    /// LCM Agent version after the update.
    pub agent_to: String,
}

impl Default for Releases {
    fn default() -> Self {
        Releases {
            from: "mosk-17-3-4-24-3-4".into(),
            to: "mosk-17-4-0-25-1".into(),
            controller_from: "17.3.4+24.3.4".into(),
            controller_to: "17.4.0+25.1".into(),
            agent_from: "1.41.12".into(),
            agent_to: "1.42.7".into(),
        }
    }
}

/// How long each step takes. PLACEHOLDERS: the real durations are not public.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Durations {
    /// From the start of the simulation to the update being triggered.
    pub update_start: Dur,
    /// Downloading the new artefacts in Prepare (per machine, in parallel).
    pub prepare: Dur,
    /// OpenStack update while its cluster lock is still active.
    pub openstack_update: Dur,
    /// Ceph update after the OpenStack cluster lock went inactive.
    pub ceph_update: Dur,
    /// TF checking its cluster before releasing its cluster lock.
    pub tf_ready: Dur,
    /// How often LCM re-checks node locks (and logs a warning; the cordon-drain `attempt` stays 0).
    pub lcm_retry: Dur,
    /// An application controller preparing a node without instances to migrate.
    pub node_prepare: Dur,
    /// One live migration of one instance.
    pub live_migration: Dur,
    /// Kubernetes cordon and drain of a node.
    pub drain: Dur,
    /// Swarm drain after the Kubernetes drain.
    pub swarm_drain: Dur,
    /// The LCM Agent running its deploy states.
    pub deploy: Dur,
    /// The node rebooting (Node NotReady).
    pub reboot: Dur,
    /// A controller taking its node lock back after the maintenance request is removed.
    pub reacquire: Dur,
    /// Finalization: StackLight, TF and other applications.
    pub finalization: Dur,
    /// A new vRouter pod going from Pending to Running and Ready.
    pub vrouter_pod_start: Dur,
    /// The owner of a server tagged `notify` shutting it off once the
    /// OpenStack controller lists it under "Notify owners" (inferred).
    pub owner_reaction: Dur,
}

impl Default for Durations {
    fn default() -> Self {
        Durations {
            update_start: Dur::secs(30),
            prepare: Dur::secs(60),
            openstack_update: Dur::secs(180),
            ceph_update: Dur::secs(120),
            tf_ready: Dur::secs(20),
            lcm_retry: Dur::secs(30),
            node_prepare: Dur::secs(10),
            live_migration: Dur::secs(40),
            drain: Dur::secs(30),
            swarm_drain: Dur::secs(10),
            deploy: Dur::secs(120),
            reboot: Dur::secs(180),
            reacquire: Dur::secs(20),
            finalization: Dur::secs(120),
            vrouter_pod_start: Dur::secs(20),
            owner_reaction: Dur::secs(300),
        }
    }
}

impl Durations {
    pub(crate) fn fields(&self) -> [(&'static str, Dur); 16] {
        [
            ("update_start", self.update_start),
            ("prepare", self.prepare),
            ("openstack_update", self.openstack_update),
            ("ceph_update", self.ceph_update),
            ("tf_ready", self.tf_ready),
            ("lcm_retry", self.lcm_retry),
            ("node_prepare", self.node_prepare),
            ("live_migration", self.live_migration),
            ("drain", self.drain),
            ("swarm_drain", self.swarm_drain),
            ("deploy", self.deploy),
            ("reboot", self.reboot),
            ("reacquire", self.reacquire),
            ("finalization", self.finalization),
            ("vrouter_pod_start", self.vrouter_pod_start),
            ("owner_reaction", self.owner_reaction),
        ]
    }
}

/// The OpenStack controller's `[maintenance]` options that matter here (reference §3.8).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpenstackSettings {
    /// Live migrations started in parallel on one host (default 1).
    pub instance_migrate_concurrency: u32,
    /// Computes handled in parallel (default 30).
    pub nwl_parallel_max_compute: u32,
    /// Gateways handled in parallel (default 1).
    pub nwl_parallel_max_gateway: u32,
    /// How long, after the ClusterMaintenanceRequest appears, the old
    /// controller still runs (the request's release is not its own), then
    /// the new one has not yet recorded its version, then the
    /// OpenStackDeployment is not yet APPLIED (a third each); the cluster
    /// lock says so at each retry before "Waiting for all OpenStack services
    /// are healthy." (default 0: straight to the health check).
    pub controller_update: Dur,
}

impl Default for OpenstackSettings {
    fn default() -> Self {
        OpenstackSettings {
            instance_migrate_concurrency: 1,
            nwl_parallel_max_compute: 30,
            nwl_parallel_max_gateway: 1,
            controller_update: Dur::secs(0),
        }
    }
}

/// A group of identical machines.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineGroup {
    pub role: Role,
    pub count: u32,
    /// Instances (servers) on each node of the group; computes only.
    #[serde(default)]
    pub instances: u32,
    /// Written as the node's instance_migration_mode annotation; absent = no annotation (live).
    #[serde(default)]
    pub migration_mode: Option<MigrationMode>,
    /// Written as the node's instance_migration_attempts annotation; absent = no annotation (3).
    #[serde(default)]
    pub migration_attempts: Option<u32>,
}

/// Settings for one node, picked by role and 0-based index within the role.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeOverride {
    pub role: Role,
    pub index: u32,
    #[serde(default)]
    pub instances: Option<u32>,
    #[serde(default)]
    pub migration_mode: Option<MigrationMode>,
    #[serde(default)]
    pub migration_attempts: Option<u32>,
    /// Instances on this node that cannot be live-migrated, one entry per instance.
    #[serde(default)]
    pub unmigratable: Vec<LiveMigrationProblem>,
    /// A controller whose lock on this node never goes inactive.
    #[serde(default)]
    pub stuck_lock: Option<Controller>,
    /// A controller whose lock on this node is `inactive` at the start, as
    /// an earlier maintenance left it (readiness finds it); the controller
    /// handles the node's turn as usual and takes the lock back after it.
    #[serde(default)]
    pub lock_left_inactive: Option<Controller>,
    /// The replacement vRouter pod on this node never becomes Ready.
    #[serde(default)]
    pub vrouter_never_ready: bool,
    /// A master without collocated OpenStack, Ceph or TF roles: no node
    /// locks and no NodeMaintenanceRequest, only LCM's own drain.
    #[serde(default)]
    pub no_collocated_roles: bool,
    /// A disabled worker: Machine `spec.providerSpec.value.disable: true`,
    /// a NodeDisableNotification for its node; the update skips it.
    #[serde(default)]
    pub disabled: bool,
    /// Per-instance maintenance action tags, one entry per instance (MOSK 25.1+).
    #[serde(default)]
    pub server_tags: Vec<ServerTag>,
    /// Server states at the start, one entry per instance (default `active`).
    #[serde(default)]
    pub server_states: Vec<ServerState>,
    /// The node's instance_migration_mode annotation written verbatim, even
    /// a value the controller does not know (`livee`); wins over `migration_mode`.
    #[serde(default)]
    pub migration_mode_value: Option<String>,
    /// The node's instance_migration_attempts annotation written verbatim,
    /// even when not an integer (`three`); wins over `migration_attempts`.
    #[serde(default)]
    pub migration_attempts_value: Option<String>,
    /// How long one live migration from this node takes (default: `durations.live_migration`).
    #[serde(default)]
    pub live_migration: Option<Dur>,
    /// OpenStack roles this node holds besides its own (its Node gets their
    /// labels): a compute that is also a gateway. `gateway` or `compute`.
    #[serde(default)]
    pub extra_openstack_roles: Vec<Role>,
    /// After this node's reboot, its nova-compute service reports `down`
    /// for this long (default: up as soon as the node is Ready).
    #[serde(default)]
    pub compute_services_down: Option<Dur>,
    /// The Kubernetes drain of this node cannot evict a pod for this long:
    /// LCMMachine `status.kubernetesCordonDrainError`, then `lcmOperationStuck`.
    #[serde(default)]
    pub drain_blocked: Option<Dur>,
}

/// A whole scenario, as read from a file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Project namespace in the management cluster.
    #[serde(default = "default_namespace")]
    pub namespace: String,
    /// Cluster name (LCMCluster, spec.clusterName).
    #[serde(default = "default_cluster")]
    pub cluster: String,
    /// First part of machine names: `<prefix><number>-<cluster>-<role>-<suffix>`.
    #[serde(default = "default_prefix")]
    pub machine_prefix: String,
    /// Simulated time at the start.
    #[serde(default = "default_start")]
    pub start: When,
    /// Whether the update reboots nodes (NodeMaintenanceRequest scope `os`, else `drain`).
    #[serde(default = "default_true")]
    pub reboot: bool,
    /// Workers updated at the same time (LCMCluster maxWorkerUpgradeCount).
    #[serde(default = "default_one")]
    pub worker_concurrency: u32,
    /// How often the OpenStack controller retries a node handler (kopf's default, 60s, is inferred).
    #[serde(default = "default_retry")]
    pub retry_interval: Dur,
    #[serde(default)]
    pub message_format: MessageFormat,
    /// Pre-22.4 behaviour: vRouter pods stay on the old revision until deleted by hand.
    #[serde(default)]
    pub vrouter_manual_restart: bool,
    /// This long after the simulation starts, someone edits the vRouter
    /// DaemonSet's spec outside its pod template (`revisionHistoryLimit`
    /// goes up by one): `metadata.generation` moves, the template generation,
    /// the revision hash and the pods do not, and no pod becomes outdated.
    #[serde(default)]
    pub vrouter_spec_edit_after: Option<Dur>,
    #[serde(default)]
    pub release: Releases,
    #[serde(default)]
    pub durations: Durations,
    #[serde(default)]
    pub openstack: OpenstackSettings,
    pub machines: Vec<MachineGroup>,
    #[serde(default)]
    pub overrides: Vec<NodeOverride>,
    /// MCC 2.27+: the ClusterUpdatePlan (absent: the update starts by itself).
    #[serde(default)]
    pub plan: Option<PlanSpec>,
    /// MCC 2.27+: UpdateGroups (absent: masters one at a time, workers `worker_concurrency` at a time).
    #[serde(default)]
    pub update_groups: Vec<UpdateGroupSpec>,
    /// MOSK 25.1+: the UpdateAutoPause object and the alerts that fire.
    #[serde(default)]
    pub auto_pause: Option<AutoPauseSpec>,
    /// Other clusters the management cluster holds besides the one the
    /// scenario plays: an LCMCluster and its Ready LCMMachines each, which
    /// nothing changes (the console's cluster picker lists them).
    #[serde(default)]
    pub other_clusters: Vec<OtherClusterSpec>,
}

/// A cluster of the management cluster that the scenario does not play.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtherClusterSpec {
    /// Its project namespace (it may be the played cluster's).
    pub namespace: String,
    /// Its name (the LCMCluster's, its LCMMachines' `spec.clusterName`).
    pub name: String,
    /// How many Ready LCMMachines it has (masters first, three at most).
    #[serde(default = "default_other_machines")]
    pub machines: u32,
}

fn default_other_machines() -> u32 {
    3
}

fn default_namespace() -> String {
    "child-ns".into()
}
fn default_cluster() -> String {
    "child-cl".into()
}
fn default_prefix() -> String {
    "cz".into()
}
fn default_start() -> When {
    When("2026-01-01T10:00:00Z".parse().expect("valid default start"))
}
fn default_true() -> bool {
    true
}
fn default_one() -> u32 {
    1
}
fn default_retry() -> Dur {
    Dur::secs(60)
}

impl ScenarioSpec {
    /// Number of machines of a role.
    pub fn count(&self, role: Role) -> u32 {
        self.machines
            .iter()
            .filter(|g| g.role == role)
            .map(|g| g.count)
            .sum()
    }

    /// Total number of machines.
    pub fn total_machines(&self) -> u32 {
        self.machines.iter().map(|g| g.count).sum()
    }

    /// Instances per node from the group holding the `index`-th machine of `role`.
    pub fn group_instances(&self, role: Role, index: u32) -> u32 {
        self.group_of(role, index).map_or(0, |g| g.instances)
    }

    /// The group holding the `index`-th (0-based) machine of `role`.
    pub fn group_of(&self, role: Role, index: u32) -> Option<&MachineGroup> {
        let mut left = index;
        for g in self.machines.iter().filter(|g| g.role == role) {
            if left < g.count {
                return Some(g);
            }
            left -= g.count;
        }
        None
    }
}

/// Which controllers keep a node lock on a machine of this role.
pub fn has_lock(role: Role, c: Controller) -> bool {
    match role {
        Role::Control => true,
        Role::Storage => c == Controller::Ceph,
        Role::Gateway => c == Controller::Openstack,
        Role::Compute => c != Controller::Ceph,
    }
}
