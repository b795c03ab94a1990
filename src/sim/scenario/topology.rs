//! The concrete machines of a scenario: names, node names, addresses,
//! per-node settings and instances, generated deterministically from the
//! scenario and a seed.

use rand::rngs::SmallRng;
use rand::{Rng, RngCore};

use super::plan_spec::ServerTag;
use super::spec::{
    Controller, Dur, LiveMigrationProblem, MigrationMode, Role, ScenarioSpec, ServerState, has_lock,
};

/// Characters Kubernetes uses for generated name suffixes.
const SUFFIX_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// A random suffix like Kubernetes' generateName (`rgxhk`).
pub fn k8s_suffix(rng: &mut SmallRng, len: usize) -> String {
    (0..len)
        .map(|_| SUFFIX_ALPHABET[rng.random_range(0..SUFFIX_ALPHABET.len())] as char)
        .collect()
}

/// A random version-4 UUID drawn from the seeded generator.
pub fn seeded_uuid(rng: &mut SmallRng) -> String {
    let mut bytes = [0u8; 16];
    rng.fill_bytes(&mut bytes);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}

/// One instance (Nova server) placed on a compute at the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSeed {
    pub id: String,
    pub problem: Option<LiveMigrationProblem>,
    /// Its `openstack.lcm.mirantis.com:maintenance_action` tag (`None`: untagged).
    pub tag: Option<ServerTag>,
    /// Its status at the start.
    pub state: ServerState,
}

/// One machine (LCMMachine + Kubernetes node).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineInfo {
    /// Position in update order; the `lcm.mirantis.com/index` annotation.
    pub index: usize,
    pub role: Role,
    /// 0-based position among machines of the same role.
    pub role_index: u32,
    /// LCMMachine (and Machine) name.
    pub name: String,
    /// Kubernetes node name, `kaas-node-<uuid>`.
    pub node: String,
    pub ip: String,
    pub migration_mode: Option<MigrationMode>,
    pub migration_attempts: Option<u32>,
    /// The instance_migration_mode annotation verbatim (wins over `migration_mode`).
    pub migration_mode_value: Option<String>,
    /// The instance_migration_attempts annotation verbatim (wins over `migration_attempts`).
    pub migration_attempts_value: Option<String>,
    /// How long a live migration from this node takes, when not the scenario's.
    pub live_migration: Option<Dur>,
    /// OpenStack roles held besides its own.
    pub extra_openstack_roles: Vec<Role>,
    /// After its reboot, nova-compute reports down this long.
    pub compute_services_down: Option<Dur>,
    pub servers: Vec<ServerSeed>,
    pub stuck_lock: Option<Controller>,
    /// Its lock of this controller starts `inactive`.
    pub lock_left_inactive: Option<Controller>,
    pub vrouter_never_ready: bool,
    /// A master without collocated OpenStack, Ceph or TF roles.
    pub no_collocated_roles: bool,
    /// Disabled (Machine `disable: true`): the update skips it.
    pub disabled: bool,
    /// The Kubernetes drain cannot evict a pod for this long.
    pub drain_blocked: Option<Dur>,
    /// The UpdateGroup it belongs to (the Machine label), when the scenario has groups.
    pub update_group: Option<String>,
}

impl MachineInfo {
    /// `control` for masters, `worker` otherwise (LCMMachine spec.type).
    pub fn lcm_type(&self) -> &'static str {
        match self.role {
            Role::Control => "control",
            _ => "worker",
        }
    }

    /// Whether this node runs a vRouter pod (label tfvrouter=enabled).
    pub fn has_vrouter(&self) -> bool {
        self.role == Role::Compute
    }

    /// Whether the controller keeps a node lock for this node.
    pub fn has_lock(&self, c: Controller) -> bool {
        !self.no_collocated_roles && has_lock(self.role, c)
    }

    /// Whether any application controller keeps a node lock here.
    pub fn has_any_lock(&self) -> bool {
        [Controller::Openstack, Controller::Ceph, Controller::Tf]
            .into_iter()
            .any(|c| self.has_lock(c))
    }

    pub fn is_compute(&self) -> bool {
        self.role == Role::Compute
    }

    /// The OpenStack node roles Rockoon sees on the Node (its
    /// `NodeRole`: controller, gateway, compute), from the node's labels.
    pub fn openstack_roles(&self) -> Vec<Role> {
        if !self.has_lock(Controller::Openstack) {
            return Vec::new();
        }
        let mut roles = vec![self.role];
        for r in &self.extra_openstack_roles {
            if !roles.contains(r) {
                roles.push(*r);
            }
        }
        roles
    }

    /// The instance_migration_mode annotation's value, if any.
    pub fn mode_annotation(&self) -> Option<String> {
        self.migration_mode_value
            .clone()
            .or_else(|| self.migration_mode.map(|m| m.as_str().to_string()))
    }

    /// The instance_migration_attempts annotation's value, if any.
    pub fn attempts_annotation(&self) -> Option<String> {
        self.migration_attempts_value
            .clone()
            .or_else(|| self.migration_attempts.map(|n| n.to_string()))
    }
}

/// Every machine of the scenario, in update order (masters, storage, computes).
pub fn build(spec: &ScenarioSpec, rng: &mut SmallRng) -> Vec<MachineInfo> {
    let mut out = Vec::with_capacity(spec.total_machines() as usize);
    for role in Role::ALL {
        for role_index in 0..spec.count(role) {
            let group = spec
                .group_of(role, role_index)
                .expect("validated: index within role count");
            let ov = spec
                .overrides
                .iter()
                .find(|o| o.role == role && o.index == role_index);
            let index = out.len();
            let role_part = match role {
                Role::Control => "control",
                Role::Storage => "storage-worker",
                Role::Gateway => "gateway",
                Role::Compute => "compute",
            };
            let name = format!(
                "{}{}-{}-{}-{}",
                spec.machine_prefix,
                7500 + index,
                spec.cluster,
                role_part,
                k8s_suffix(rng, 5)
            );
            let node = format!("kaas-node-{}", seeded_uuid(rng));
            let ip = format!("10.10.{}.{}", index / 200, index % 200 + 10);
            let instances = ov.and_then(|o| o.instances).unwrap_or(group.instances);
            let problems = ov.map(|o| o.unmigratable.clone()).unwrap_or_default();
            let tags = ov.map(|o| o.server_tags.clone()).unwrap_or_default();
            let states = ov.map(|o| o.server_states.clone()).unwrap_or_default();
            let servers = (0..instances as usize)
                .map(|i| ServerSeed {
                    id: seeded_uuid(rng),
                    problem: problems.get(i).copied(),
                    tag: tags.get(i).copied().filter(|t| *t != ServerTag::None),
                    state: states.get(i).copied().unwrap_or_default(),
                })
                .collect();
            let update_group = spec.update_groups.iter().find_map(|g| {
                g.members
                    .iter()
                    .any(|m| {
                        m.role == role
                            && role_index >= m.first
                            && m.count.is_none_or(|c| role_index < m.first + c)
                    })
                    .then(|| format!("{}-{}", spec.cluster, g.suffix))
            });
            out.push(MachineInfo {
                index,
                role,
                role_index,
                name,
                node,
                ip,
                migration_mode: ov.and_then(|o| o.migration_mode).or(group.migration_mode),
                migration_attempts: ov
                    .and_then(|o| o.migration_attempts)
                    .or(group.migration_attempts),
                migration_mode_value: ov.and_then(|o| o.migration_mode_value.clone()),
                migration_attempts_value: ov.and_then(|o| o.migration_attempts_value.clone()),
                live_migration: ov.and_then(|o| o.live_migration),
                extra_openstack_roles: ov
                    .map(|o| o.extra_openstack_roles.clone())
                    .unwrap_or_default(),
                compute_services_down: ov.and_then(|o| o.compute_services_down),
                servers,
                stuck_lock: ov.and_then(|o| o.stuck_lock),
                lock_left_inactive: ov.and_then(|o| o.lock_left_inactive),
                vrouter_never_ready: ov.is_some_and(|o| o.vrouter_never_ready),
                no_collocated_roles: ov.is_some_and(|o| o.no_collocated_roles),
                disabled: ov.is_some_and(|o| o.disabled),
                drain_blocked: ov.and_then(|o| o.drain_blocked),
                update_group,
            });
        }
    }
    out
}
