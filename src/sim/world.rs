//! The simulated world: both clusters' stores, the clock, the running
//! scenario, and the fault and RBAC settings of each API server.
//!
//! Tests and `demo` drive it by calling [`SimWorld::step`]; the HTTP routers
//! serve the stores while it runs.

use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use jiff::{SignedDuration, Timestamp};

use super::clock::Clock;
use super::exec::{Exec, ExecTarget, Programs, Ran};
use super::faults::schedule::{FaultSchedule, Target};
use super::faults::spec::FaultPlan;
use super::faults::{FaultCounts, Faults};
use super::rbac::Rbac;
use super::registry::Registry;
use super::scenario::lcm::MachineStep;
use super::scenario::topology::MachineInfo;
use super::scenario::{HardReboot, ScenarioRun, ScenarioSpec, UpdatePhase};
use super::server::{ServerOptions, router};
use super::store::Store;

/// Longest clock increment between two runs of the state machine.
pub const MAX_TICK: SignedDuration = SignedDuration::from_secs(1);

/// The minor Kubernetes version the simulated API servers report.
pub const VERSION_MINOR: u32 = 33;

/// Which of the two simulated clusters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimCluster {
    Mgmt,
    Mosk,
}

/// The MOSK cluster's programs: the scenario's, at the simulated clock's time.
#[derive(Debug)]
struct ScenarioPrograms {
    run: Arc<Mutex<ScenarioRun>>,
    clock: Arc<Clock>,
}

impl Programs for ScenarioPrograms {
    fn run(&self, target: ExecTarget<'_>, command: &[String]) -> Ran {
        let now = self.clock.now();
        self.run
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .exec(now, target, command)
    }
}

/// Both clusters and the scenario playing on them.
#[derive(Debug)]
pub struct SimWorld {
    clock: Arc<Clock>,
    mgmt: Arc<Store>,
    mosk: Arc<Store>,
    /// Shared with the MOSK cluster's programs (`kubectl exec` runs there).
    run: Arc<Mutex<ScenarioRun>>,
    mgmt_exec: Arc<Exec>,
    mosk_exec: Arc<Exec>,
    mgmt_faults: Arc<Faults>,
    mosk_faults: Arc<Faults>,
    mgmt_rbac: Mutex<Rbac>,
    mosk_rbac: Mutex<Rbac>,
    /// The injected faults' plan, applied to both API servers as the clock moves.
    fault_schedule: Mutex<Option<FaultSchedule>>,
}

impl SimWorld {
    /// Builds the clusters for `spec` with names and ids drawn from `seed`,
    /// and seeds the objects that exist before the update. The clock stands
    /// at the scenario's start time.
    pub fn new(spec: ScenarioSpec, seed: u64) -> SimWorld {
        let clock = Clock::new(spec.start.0);
        let mgmt = Store::new(Registry::mgmt(), clock.clone());
        let mosk = Store::new(Registry::mosk(), clock.clone());
        let mut run = ScenarioRun::new(spec, seed);
        run.seed(clock.now(), &mgmt, &mosk);
        let run = Arc::new(Mutex::new(run));
        let programs = ScenarioPrograms {
            run: run.clone(),
            clock: clock.clone(),
        };
        SimWorld {
            clock,
            mgmt,
            mosk,
            run,
            mgmt_exec: Arc::new(Exec::default()),
            mosk_exec: Arc::new(Exec::new(Arc::new(programs))),
            mgmt_faults: Arc::new(Faults::new()),
            mosk_faults: Arc::new(Faults::new()),
            mgmt_rbac: Mutex::new(Rbac::allow_all("sim-admin")),
            mosk_rbac: Mutex::new(Rbac::allow_all("sim-admin")),
            fault_schedule: Mutex::new(None),
        }
    }

    /// A busier lcm-controller log (`sim serve --log-rate`).
    pub fn set_log_rate(&self, per_minute: f64) {
        self.run
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .set_log_rate(per_minute);
    }

    fn fault_targets(&self) -> [Target<'_>; 2] {
        [
            Target {
                faults: &self.mgmt_faults,
                store: &self.mgmt,
            },
            Target {
                faults: &self.mosk_faults,
                store: &self.mosk,
            },
        ]
    }

    /// Injects `plan` into both API servers, its times counted from now on
    /// the simulated clock (replaces an earlier plan and ends its outage, if
    /// one is on; pending 5xx answers and truncations stay armed).
    pub fn set_fault_plan(&self, plan: FaultPlan) {
        for t in self.fault_targets() {
            t.faults.set_outage(false);
        }
        let schedule = FaultSchedule::new(plan, self.now(), &self.fault_targets());
        *self
            .fault_schedule
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(schedule);
    }

    /// The fault plan in force (empty when none).
    pub fn fault_plan(&self) -> FaultPlan {
        self.fault_schedule
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|s| s.plan().clone())
            .unwrap_or_default()
    }

    /// The faults injected so far into both API servers, added up.
    pub fn fault_counts(&self) -> FaultCounts {
        let (a, b) = (self.mgmt_faults.counts(), self.mosk_faults.counts());
        FaultCounts {
            watch_drops: a.watch_drops + b.watch_drops,
            injected_5xx: a.injected_5xx + b.injected_5xx,
            gone: a.gone + b.gone,
            refused: a.refused + b.refused,
            outages: a.outages + b.outages,
            log_closes: a.log_closes + b.log_closes,
            truncated_events: a.truncated_events + b.truncated_events,
        }
    }

    fn run(&self) -> MutexGuard<'_, ScenarioRun> {
        // A panic inside a step leaves the state usable enough to look at.
        self.run.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Advances the clock by `dt` in increments of at most [`MAX_TICK`],
    /// expiring pod grace periods and running the scenario after each.
    pub fn step(&self, dt: SignedDuration) {
        let mut run = self.run();
        let mut left = dt;
        while left.is_positive() {
            let chunk = left.min(MAX_TICK);
            self.clock.advance(chunk);
            self.mgmt.tick();
            self.mosk.tick();
            run.step(self.clock.now(), &self.mgmt, &self.mosk);
            if let Some(s) = self
                .fault_schedule
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_mut()
            {
                s.advance(self.clock.now(), &self.fault_targets());
            }
            left -= chunk;
        }
    }

    /// Steps one second at a time until `done` holds or `limit` has passed;
    /// returns whether `done` held.
    pub fn step_until(
        &self,
        limit: SignedDuration,
        mut done: impl FnMut(&SimWorld) -> bool,
    ) -> bool {
        let end = self.now().saturating_add(limit).unwrap_or(self.now());
        loop {
            if done(self) {
                return true;
            }
            if self.now() >= end {
                return false;
            }
            self.step(MAX_TICK);
        }
    }

    /// The management cluster's API (kube-rs and kubectl speak to it).
    pub fn mgmt_router(&self) -> Router {
        self.router(SimCluster::Mgmt)
    }

    /// The MOSK cluster's API.
    pub fn mosk_router(&self) -> Router {
        self.router(SimCluster::Mosk)
    }

    pub fn router(&self, which: SimCluster) -> Router {
        let opts = ServerOptions {
            rbac: self.rbac(which),
            faults: self.faults(which).clone(),
            version_minor: VERSION_MINOR,
            exec: self.exec(which).clone(),
        };
        router(self.store(which).clone(), opts)
    }

    /// What runs in one cluster's pods, and the commands they received.
    pub fn exec(&self, which: SimCluster) -> &Arc<Exec> {
        match which {
            SimCluster::Mgmt => &self.mgmt_exec,
            SimCluster::Mosk => &self.mosk_exec,
        }
    }

    /// The keystone-client pod's name (MOSK cluster, namespace `openstack`,
    /// container `keystone-client`): its `openstack` command answers from
    /// the simulated Nova.
    pub fn keystone_client_pod(&self) -> String {
        self.run().keystone_client_pod().to_string()
    }

    pub fn store(&self, which: SimCluster) -> &Arc<Store> {
        match which {
            SimCluster::Mgmt => &self.mgmt,
            SimCluster::Mosk => &self.mosk,
        }
    }

    pub fn mgmt(&self) -> &Arc<Store> {
        &self.mgmt
    }

    pub fn mosk(&self) -> &Arc<Store> {
        &self.mosk
    }

    pub fn clock(&self) -> &Arc<Clock> {
        &self.clock
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Fault switches of one cluster's API server (shared with its routers).
    pub fn faults(&self, which: SimCluster) -> &Arc<Faults> {
        match which {
            SimCluster::Mgmt => &self.mgmt_faults,
            SimCluster::Mosk => &self.mosk_faults,
        }
    }

    /// The user and deny rules of one cluster; applies to routers built afterwards.
    pub fn set_rbac(&self, which: SimCluster, rbac: Rbac) {
        let slot = match which {
            SimCluster::Mgmt => &self.mgmt_rbac,
            SimCluster::Mosk => &self.mosk_rbac,
        };
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = rbac;
    }

    pub fn rbac(&self, which: SimCluster) -> Rbac {
        let slot = match which {
            SimCluster::Mgmt => &self.mgmt_rbac,
            SimCluster::Mosk => &self.mosk_rbac,
        };
        slot.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The scenario as loaded.
    pub fn spec(&self) -> ScenarioSpec {
        self.run().spec().clone()
    }

    /// The update phase now.
    pub fn phase(&self) -> UpdatePhase {
        self.run().phase()
    }

    /// The machines in update order (names, nodes, roles, per-node settings).
    pub fn machines(&self) -> Vec<MachineInfo> {
        self.run().machines().to_vec()
    }

    /// Where LCM is with machine `index`.
    pub fn machine_step(&self, index: usize) -> MachineStep {
        self.run().machine_step(index)
    }

    /// Nodes that rebooted with instances still on them, in order.
    pub fn hard_reboots(&self) -> Vec<HardReboot> {
        self.run().hard_reboots().to_vec()
    }

    /// Notable events so far (simulated time, text).
    pub fn timeline(&self) -> Vec<(Timestamp, String)> {
        self.run().timeline().to_vec()
    }

    /// Servers (Nova instances) on a node now.
    pub fn servers_on(&self, node: &str) -> Vec<String> {
        self.run().servers_on(node)
    }

    /// Nova's servers now (a copy), in id order.
    pub fn nova_servers(&self) -> Vec<crate::sim::scenario::nova::Server> {
        self.run().nova().servers().cloned().collect()
    }

    /// The lcm-controller pod's name (namespace `kaas`, container `controller`).
    pub fn lcm_pod(&self) -> String {
        self.run().lcm_pod().to_string()
    }

    /// The lcm-controller log so far.
    pub fn lcm_log(&self) -> Vec<String> {
        let pod = self.lcm_pod();
        self.mgmt
            .logs(super::scenario::objects::KAAS_NS, &pod, "controller")
            .into_iter()
            .map(|l| l.line)
            .collect()
    }
}
