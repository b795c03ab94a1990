//! One running scenario: the machines, the simulated controllers and their
//! shared facts, stepped over the simulator clock.

use jiff::{SignedDuration, Timestamp};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::ceph_health::{self, CDH};
use super::engine::check;
use super::engine::{Ctx, Facts, HardReboot, UpdatePhase};
use super::lcm::{Lcm, MachineStep};
use super::lcmlog::{LcmLog, Level};
use super::nova::Nova;
use super::objects;
use super::objects::{KEYSTONE_CLIENT, OPENSTACK_NS};
use super::openstack::Openstack;
use super::openstack_cli::{self, Cloud};
use super::osdpl_status::{self, OSDPLST};
use super::plan_controllers::Plan;
use super::seed::seed;
use super::spec::{Controller, Role, ScenarioSpec};
use super::storage_net::AppController;
use super::topology::{self, MachineInfo, k8s_suffix};
use super::vrouter::Vrouter;
use crate::sim::exec::{ExecTarget, Ran};
use crate::sim::store::Store;

/// The scenario state machine.
#[derive(Debug)]
pub struct ScenarioRun {
    spec: ScenarioSpec,
    machines: Vec<MachineInfo>,
    rng: SmallRng,
    log: LcmLog,
    lcm_pod: String,
    /// The keystone-client pod (namespace `openstack`) and its ReplicaSet's hash.
    keystone_client_pod: String,
    keystone_client_hash: String,
    facts: Facts,
    nova: Nova,
    lcm: Lcm,
    openstack: Openstack,
    ceph: AppController,
    tf: AppController,
    vrouter: Option<Vrouter>,
    /// The ClusterUpdatePlan controller (MCC 2.27+ scenarios only).
    plan: Option<Plan>,
    /// The MOSK store's resource version after our last step.
    mosk_rv: u64,
    /// When the Ceph controller last checked Ceph's health.
    ceph_checked: Timestamp,
}

macro_rules! ctx {
    ($s:ident, $now:expr, $mgmt:expr, $mosk:expr) => {
        Ctx {
            now: $now,
            spec: &$s.spec,
            machines: &$s.machines,
            mgmt: $mgmt,
            mosk: $mosk,
            rng: &mut $s.rng,
            facts: &mut $s.facts,
            nova: &mut $s.nova,
            log: &mut $s.log,
            lcm_pod: &$s.lcm_pod,
        }
    };
}

impl ScenarioRun {
    /// A busier lcm-controller log: about `per_minute` background lines a
    /// simulated minute ([`LcmLog::set_noise_rate`]).
    pub fn set_log_rate(&mut self, per_minute: f64) {
        self.log.set_noise_rate(per_minute);
    }

    /// Builds the machines for `spec` from `seed` (nothing is stored yet).
    pub fn new(spec: ScenarioSpec, seed: u64) -> ScenarioRun {
        let mut rng = SmallRng::seed_from_u64(seed);
        let machines = topology::build(&spec, &mut rng);
        let lcm_pod = format!(
            "lcm-lcm-controller-{}-{}",
            k8s_suffix(&mut rng, 10),
            k8s_suffix(&mut rng, 5)
        );
        // Drawn from a generator of its own, so the names drawn above and
        // after stay as they were before the pod existed.
        let mut pod_rng = SmallRng::seed_from_u64(seed ^ 0x6b65_7973_746f_6e65);
        let keystone_client_hash = k8s_suffix(&mut pod_rng, 10);
        let keystone_client_pod = format!(
            "{KEYSTONE_CLIENT}-{keystone_client_hash}-{}",
            k8s_suffix(&mut pod_rng, 5)
        );
        let n = machines.len();
        let start = spec.start.0;
        let mut facts = Facts::new(n);
        let plan = Plan::new(&spec, &mut facts.gates);
        ScenarioRun {
            log: LcmLog::new(seed, start),
            facts,
            plan,
            nova: Nova::default(),
            lcm: Lcm::new(n, start),
            openstack: Openstack::new(n),
            ceph: AppController::new(Controller::Ceph, n),
            tf: AppController::new(Controller::Tf, n),
            vrouter: None,
            mosk_rv: 0,
            ceph_checked: start,
            lcm_pod,
            keystone_client_pod,
            keystone_client_hash,
            machines,
            rng,
            spec,
        }
    }

    /// Puts the initial objects in both stores.
    pub fn seed(&mut self, now: Timestamp, mgmt: &Store, mosk: &Store) {
        let rs_hash = self
            .lcm_pod
            .trim_start_matches("lcm-lcm-controller-")
            .split('-')
            .next()
            .unwrap_or_default()
            .to_string();
        let mut ctx = ctx!(self, now, mgmt, mosk);
        seed(&mut ctx, &rs_hash);
        let key = format!("{}/{}", ctx.spec.namespace, ctx.spec.cluster);
        ctx.lcm(
            Level::Info,
            "Starting lcm-controller",
            &[("version", &ctx.spec.release.agent_from)],
        );
        ctx.lcm(
            Level::Info,
            "LCMCluster is up to date",
            &[("lcmcluster", &key), ("release", &ctx.spec.release.from)],
        );
        self.vrouter = Some(Vrouter::seed(&mut ctx));
        // Last, so every object seeded before keeps its resource version
        // (the keystone-client pod, the OpenStackDeploymentStatus, the
        // CephDeploymentHealth).
        let node = self
            .machines
            .iter()
            .find(|m| m.role == Role::Control && !m.no_collocated_roles)
            .or(self.machines.first())
            .map(|m| m.node.clone())
            .unwrap_or_default();
        check(
            mosk.create(
                "pods",
                objects::keystone_client_pod(
                    &self.keystone_client_pod,
                    &self.keystone_client_hash,
                    &node,
                    now,
                ),
            ),
            "create keystone-client pod",
        );
        check(
            mosk.create(
                OSDPLST,
                osdpl_status::object(&self.spec.release.controller_from, now),
            ),
            "create OpenStackDeploymentStatus",
        );
        check(
            mosk.create(CDH, ceph_health::object(now)),
            "create CephDeploymentHealth",
        );
        self.mosk_rv = mosk.resource_version();
    }

    /// The keystone-client pod's name (namespace `openstack`, container `keystone-client`).
    pub fn keystone_client_pod(&self) -> &str {
        &self.keystone_client_pod
    }

    /// Runs a command in a MOSK pod at `now`: the keystone-client
    /// container has the `openstack` command; nothing else is simulated,
    /// so any other executable is not found.
    pub fn exec(&mut self, now: Timestamp, target: ExecTarget<'_>, command: &[String]) -> Ran {
        let program = command.first().map_or("", String::as_str);
        let is_openstack = program == "openstack" || program.ends_with("/openstack");
        if !(is_openstack
            && target.namespace == OPENSTACK_NS
            && target.pod == self.keystone_client_pod
            && target.container == KEYSTONE_CLIENT)
        {
            return Ran::not_found(program);
        }
        let default = self.spec.durations.live_migration.get();
        let per_host: Vec<(String, SignedDuration)> = self
            .machines
            .iter()
            .filter_map(|m| m.live_migration.map(|d| (m.node.clone(), d.get())))
            .collect();
        let takes = |host: &str| {
            per_host
                .iter()
                .find(|(h, _)| h == host)
                .map_or(default, |(_, d)| *d)
        };
        let mut cloud = Cloud {
            nova: &mut self.nova,
            now,
            rng: &mut self.rng,
            live_migration: &takes,
        };
        openstack_cli::run(&mut cloud, command)
    }

    /// Runs every controller once at `now`.
    pub fn step(&mut self, now: Timestamp, mgmt: &Store, mosk: &Store) {
        let pods_changed = mosk.resource_version() != self.mosk_rv;
        self.nova.tick(now);
        let mut ctx = ctx!(self, now, mgmt, mosk);
        self.lcm.step(&mut ctx);
        self.openstack.step(&mut ctx);
        self.ceph.step(&mut ctx);
        self.tf.step(&mut ctx);
        if let Some(v) = self.vrouter.as_mut() {
            v.step(&mut ctx, pods_changed);
        }
        if let Some(p) = self.plan.as_mut() {
            p.step(&mut ctx);
        }
        if now.duration_since(self.ceph_checked) >= ceph_health::CHECK_INTERVAL {
            ceph_health::checked(mosk, now);
            self.ceph_checked = now;
        }
        let names: Vec<&str> = ctx
            .machines
            .iter()
            .take(64)
            .map(|m| m.name.as_str())
            .collect();
        for line in ctx
            .log
            .noise(now, &ctx.spec.namespace, &ctx.spec.cluster, &names)
        {
            mgmt.append_log(super::objects::KAAS_NS, ctx.lcm_pod, "controller", &line);
        }
        self.mosk_rv = mosk.resource_version();
    }

    pub fn spec(&self) -> &ScenarioSpec {
        &self.spec
    }

    pub fn machines(&self) -> &[MachineInfo] {
        &self.machines
    }

    pub fn phase(&self) -> UpdatePhase {
        self.facts.phase
    }

    pub fn machine_step(&self, i: usize) -> MachineStep {
        self.lcm.step_of(i)
    }

    pub fn hard_reboots(&self) -> &[HardReboot] {
        &self.facts.hard_reboots
    }

    pub fn timeline(&self) -> &[(Timestamp, String)] {
        &self.facts.timeline
    }

    /// Name of the lcm-controller pod (namespace `kaas`, container `controller`).
    pub fn lcm_pod(&self) -> &str {
        &self.lcm_pod
    }

    /// Nova's state now.
    pub fn nova(&self) -> &Nova {
        &self.nova
    }

    /// Servers on a node now (Nova's view).
    pub fn servers_on(&self, node: &str) -> Vec<String> {
        self.nova.on_host(node).map(|s| s.id.clone()).collect()
    }
}
