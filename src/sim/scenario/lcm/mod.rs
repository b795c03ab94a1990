//! LCM (lcm-controller and the LCM Agent): the cluster update phases and
//! the per-machine flow Ready → Prepare → Deploy (→ Reboot) → Ready.
//!
//! Flow from the update guide and the update-flow page (reference §9.1):
//! the ClusterMaintenanceRequest is created, LCM waits for every cluster lock
//! to be inactive, updates masters one at a time, then workers
//! (`worker_concurrency` at a time; the others wait in Prepare), each with a
//! NodeMaintenanceRequest, `cd-`/`sd-` LCMClusterStates while node locks are
//! active, drain, agent states and reboot; finalization updates the other
//! applications and removes the ClusterMaintenanceRequest. Timings are the
//! scenario's placeholders; the exact lcm-controller log texts are inferred.

mod machine;

use jiff::Timestamp;
use serde_json::Value;

use super::engine::{CMR, CWL, Ctx, RequestState, UpdatePhase, check, set_status_str};
use super::lcmlog::Level;
use super::objects;
use super::plan_spec::Stage;
use super::spec::Role;

const LCMMACHINES: &str = "lcmmachines";
const LCMCLUSTERSTATES: &str = "lcmclusterstates";
const LCMCLUSTERS: &str = "lcmclusters";

/// Kernel versions before and after the update (placeholders).
pub const KERNEL_FROM: &str = "5.15.0-113-generic";
pub const KERNEL_TO: &str = "5.15.0-122-generic";

/// Where one machine is in the update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MachineStep {
    /// Ready on the old release; the update has not reached it.
    Current,
    /// Prepare: downloading the new artefacts.
    Preparing {
        until: Timestamp,
    },
    /// Prepare: downloaded, waiting for its turn.
    Prepared,
    /// NodeMaintenanceRequest created; waiting for every node lock to go inactive.
    WaitingLocks {
        next_retry: Timestamp,
    },
    Draining {
        until: Timestamp,
    },
    SwarmDraining {
        until: Timestamp,
    },
    Deploying {
        until: Timestamp,
    },
    Rebooting {
        until: Timestamp,
    },
    /// Ready on the new release.
    Done,
}

impl MachineStep {
    fn in_flight(self) -> bool {
        matches!(
            self,
            MachineStep::WaitingLocks { .. }
                | MachineStep::Draining { .. }
                | MachineStep::SwarmDraining { .. }
                | MachineStep::Deploying { .. }
                | MachineStep::Rebooting { .. }
        )
    }
}

/// The lcm-controller.
#[derive(Debug)]
pub struct Lcm {
    steps: Vec<MachineStep>,
    /// LCM's re-checks of each machine's node locks (for its log lines).
    retries: Vec<u32>,
    next_cluster_check_log: Timestamp,
    finalization_until: Option<Timestamp>,
    cmr_deleted: bool,
    ready_written: Option<usize>,
    /// When each machine's drain started (for drain errors).
    drain_started: Vec<Option<Timestamp>>,
    drain_error_written: Vec<bool>,
    stuck_written: Vec<bool>,
}

impl Lcm {
    pub fn new(machines: usize, now: Timestamp) -> Lcm {
        Lcm {
            steps: vec![MachineStep::Current; machines],
            retries: vec![0; machines],
            next_cluster_check_log: now,
            finalization_until: None,
            cmr_deleted: false,
            ready_written: None,
            drain_started: vec![None; machines],
            drain_error_written: vec![false; machines],
            stuck_written: vec![false; machines],
        }
    }

    pub fn step_of(&self, i: usize) -> MachineStep {
        self.steps[i]
    }

    pub fn step(&mut self, ctx: &mut Ctx) {
        match ctx.facts.phase {
            UpdatePhase::NotStarted => {
                let start = ctx.spec.start.0;
                let at = start
                    .saturating_add(ctx.spec.durations.update_start.get())
                    .unwrap_or(start);
                // With a ClusterUpdatePlan, nothing starts before its first step is commenced.
                if ctx.now >= at && ctx.facts.gate(Stage::Openstack) {
                    self.trigger(ctx);
                }
            }
            UpdatePhase::ClusterLocks => {
                self.advance_preparing(ctx);
                self.check_cluster_locks(ctx);
            }
            UpdatePhase::Masters => {
                self.advance_preparing(ctx);
                self.run_group(ctx, true);
            }
            UpdatePhase::Workers => {
                self.advance_preparing(ctx);
                self.run_group(ctx, false);
            }
            UpdatePhase::Finalization => self.finalize(ctx),
            UpdatePhase::Done => {}
        }
        self.write_ready_count(ctx);
    }

    fn trigger(&mut self, ctx: &mut Ctx) {
        let spec = ctx.spec;
        let (ns, cl) = (spec.namespace.as_str(), spec.cluster.as_str());
        check(
            ctx.mgmt.update(LCMCLUSTERS, Some(ns), cl, |o| {
                o["spec"]["release"] = spec.release.to.clone().into();
            }),
            "update LCMCluster release",
        );
        let key = format!("{ns}/{cl}");
        ctx.lcm(
            Level::Info,
            "Cluster release changed, starting cluster update",
            &[
                ("lcmcluster", &key),
                ("from", &spec.release.from),
                ("to", &spec.release.to),
            ],
        );
        check(
            ctx.mosk
                .create(CMR, objects::cluster_maintenance_request(spec)),
            "create ClusterMaintenanceRequest",
        );
        ctx.facts.cmr = RequestState::Present;
        ctx.lcm(
            Level::Info,
            "Created ClusterMaintenanceRequest",
            &[("lcmcluster", &key), ("name", cl)],
        );
        ctx.note("update triggered: ClusterMaintenanceRequest created");
        ctx.facts.begin(Stage::Openstack, ctx.now);
        let prepare = spec.durations.prepare.get();
        for (i, m) in ctx.machines.iter().enumerate() {
            if m.disabled {
                // A disabled machine is out of LCM's hands (reference §5.3).
                continue;
            }
            // Downloads finish at slightly different times (inferred).
            let spread = prepare.as_secs().max(4) / 4;
            let extra =
                jiff::SignedDuration::from_secs(rand::Rng::random_range(ctx.rng, 0..=spread));
            let until = ctx
                .after_d(prepare)
                .saturating_add(extra)
                .unwrap_or(ctx.now);
            self.steps[i] = MachineStep::Preparing { until };
            let reboot = spec.reboot;
            check(
                ctx.mgmt.update(LCMMACHINES, Some(ns), &m.name, |o| {
                    o["spec"]["release"] = spec.release.to.clone().into();
                    o["spec"]["rebootRequired"] = reboot.into();
                    set_status_str(o, "state", Some("Prepare"));
                }),
                "update LCMMachine",
            );
        }
        ctx.lcm(
            Level::Info,
            "Machines moved to Prepare phase",
            &[
                ("lcmcluster", &key),
                ("machines", &ctx.machines.len().to_string()),
            ],
        );
        ctx.facts.phase = UpdatePhase::ClusterLocks;
    }

    fn advance_preparing(&mut self, ctx: &mut Ctx) {
        for i in 0..self.steps.len() {
            if let MachineStep::Preparing { until } = self.steps[i]
                && ctx.now >= until
            {
                self.steps[i] = MachineStep::Prepared;
                let m = &ctx.machines[i];
                ctx.lcm(
                    Level::Info,
                    "Prepare phase state items finished",
                    &[
                        ("machine", &m.name),
                        ("node", &m.node),
                        ("phase", "prepare"),
                    ],
                );
            }
        }
    }

    fn check_cluster_locks(&mut self, ctx: &mut Ctx) {
        let active: Vec<String> = ctx
            .mosk
            .list(CWL, None)
            .iter()
            .filter(|o| o.pointer("/status/state").and_then(Value::as_str) != Some("inactive"))
            .map(|o| {
                o["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        let key = format!("{}/{}", ctx.spec.namespace, ctx.spec.cluster);
        if active.is_empty() {
            if !ctx.facts.gate(Stage::Masters) {
                return;
            }
            ctx.facts.begin(Stage::Masters, ctx.now);
            ctx.lcm(
                Level::Info,
                "All ClusterWorkloadLocks are inactive, proceeding with machines update",
                &[("lcmcluster", &key)],
            );
            ctx.note("all cluster locks inactive");
            ctx.facts.phase = UpdatePhase::Masters;
        } else if ctx.now >= self.next_cluster_check_log {
            ctx.lcm(
                Level::Info,
                "Waiting for ClusterWorkloadLocks to become inactive",
                &[("lcmcluster", &key), ("active", &active.join(","))],
            );
            self.next_cluster_check_log = ctx.after(ctx.spec.durations.lcm_retry);
        }
    }

    /// Masters (`masters = true`) one at a time, or workers
    /// `worker_concurrency` at a time (by UpdateGroup when the scenario has
    /// groups). Disabled machines are skipped. New machines start only while
    /// the stage's gate is open (a machine-granularity plan step pauses
    /// between machines).
    fn run_group(&mut self, ctx: &mut Ctx, masters: bool) {
        let in_group = |r: Role| (r == Role::Control) == masters;
        let members: Vec<usize> = (0..self.steps.len())
            .filter(|&i| in_group(ctx.machines[i].role) && !ctx.machines[i].disabled)
            .collect();
        for &i in &members {
            if self.steps[i].in_flight() {
                self.advance_machine(ctx, i);
            }
        }
        let stage = if masters {
            Stage::Masters
        } else {
            Stage::Workers
        };
        let all_done = members.iter().all(|&i| self.steps[i] == MachineStep::Done);
        if ctx.facts.gate(stage) && !all_done {
            ctx.facts.begin(stage, ctx.now);
            if masters || ctx.spec.update_groups.is_empty() {
                let limit = if masters {
                    1
                } else {
                    ctx.spec.worker_concurrency as usize
                };
                self.start_in_order(ctx, &members, limit, masters);
            } else {
                self.start_by_groups(ctx, &members);
            }
        }
        if !all_done {
            return;
        }
        if masters {
            ctx.facts.end(Stage::Masters, ctx.now);
            ctx.note("all masters updated");
            ctx.facts.phase = UpdatePhase::Workers;
        } else {
            ctx.facts.end(Stage::Workers, ctx.now);
            if ctx.facts.gate(Stage::Finalization) {
                ctx.note("all workers updated; finalization");
                ctx.facts.begin(Stage::Finalization, ctx.now);
                self.start_finalization(ctx);
            }
        }
    }

    /// Starts Prepared machines of `members` in order while fewer than `limit` are in flight.
    fn start_in_order(&mut self, ctx: &mut Ctx, members: &[usize], limit: usize, strict: bool) {
        let mut running = members
            .iter()
            .filter(|&&i| self.steps[i].in_flight())
            .count();
        for &i in members {
            if running >= limit {
                break;
            }
            if self.steps[i] == MachineStep::Prepared {
                self.start_maintenance(ctx, i);
                running += 1;
            } else if strict && matches!(self.steps[i], MachineStep::Preparing { .. }) {
                // Masters go strictly in order.
                break;
            }
        }
    }

    /// UpdateGroups (reference §3.4): the groups of the lowest index that
    /// still has machines to update run together, each with at most
    /// `concurrentUpdates` machines in flight, in upgrade-index order.
    /// Workers without a group are in the default group, index 1 [I].
    fn start_by_groups(&mut self, ctx: &mut Ctx, members: &[usize]) {
        let group_of = |i: usize| -> (u32, usize, String) {
            let name = ctx.machines[i].update_group.clone().unwrap_or_default();
            let g = ctx
                .spec
                .update_groups
                .iter()
                .find(|g| format!("{}-{}", ctx.spec.cluster, g.suffix) == name);
            match g {
                Some(g) => (g.index, g.concurrent_updates as usize, name),
                None => (1, ctx.spec.worker_concurrency as usize, name),
            }
        };
        let Some(index) = members
            .iter()
            .filter(|&&i| self.steps[i] != MachineStep::Done)
            .map(|&i| group_of(i).0)
            .min()
        else {
            return;
        };
        let mut groups: Vec<(String, usize, Vec<usize>)> = Vec::new();
        for &i in members {
            let (gi, limit, name) = group_of(i);
            if gi != index {
                continue;
            }
            match groups.iter_mut().find(|g| g.0 == name) {
                Some(g) => g.2.push(i),
                None => groups.push((name, limit, vec![i])),
            }
        }
        for (_, limit, machines) in groups {
            self.start_in_order(ctx, &machines, limit, false);
        }
    }

    fn start_finalization(&mut self, ctx: &mut Ctx) {
        let key = format!("{}/{}", ctx.spec.namespace, ctx.spec.cluster);
        for release in ["stacklight", "tungstenfabric-operator", "metallb"] {
            ctx.lcm(
                Level::Info,
                "Updating HelmBundle release",
                &[("helmbundle", &key), ("release", release)],
            );
        }
        ctx.facts.tf_update_requested = true;
        self.finalization_until = Some(ctx.after(ctx.spec.durations.finalization));
        ctx.facts.phase = UpdatePhase::Finalization;
    }

    fn finalize(&mut self, ctx: &mut Ctx) {
        let key = format!("{}/{}", ctx.spec.namespace, ctx.spec.cluster);
        if !self.cmr_deleted {
            // With the automated vRouter restart (22.4+), TF finishes it first (inferred).
            if self.finalization_until.is_some_and(|t| ctx.now >= t) && ctx.facts.tf_rollout_done {
                check(
                    ctx.mosk
                        .delete(CMR, None, &ctx.spec.cluster, &Value::Null, false),
                    "delete ClusterMaintenanceRequest",
                );
                ctx.facts.cmr = RequestState::Deleting;
                self.cmr_deleted = true;
                ctx.lcm(
                    Level::Info,
                    "Removed ClusterMaintenanceRequest",
                    &[("lcmcluster", &key)],
                );
            }
            return;
        }
        if ctx.facts.cmr == RequestState::Absent {
            let release = ctx.spec.release.to.clone();
            let (ns, cl) = (ctx.spec.namespace.clone(), ctx.spec.cluster.clone());
            check(
                ctx.mgmt.update(LCMCLUSTERS, Some(&ns), &cl, |o| {
                    set_status_str(o, "release", Some(&release))
                }),
                "update LCMCluster status",
            );
            ctx.lcm(
                Level::Info,
                "Cluster update completed",
                &[("lcmcluster", &key), ("release", &release)],
            );
            ctx.note("update complete");
            ctx.facts.end(Stage::Finalization, ctx.now);
            ctx.facts.phase = UpdatePhase::Done;
        }
    }

    fn write_ready_count(&mut self, ctx: &mut Ctx) {
        let ready = self
            .steps
            .iter()
            .filter(|s| matches!(s, MachineStep::Current | MachineStep::Done))
            .count();
        if self.ready_written == Some(ready) {
            return;
        }
        self.ready_written = Some(ready);
        let (ns, cl) = (ctx.spec.namespace.clone(), ctx.spec.cluster.clone());
        check(
            ctx.mgmt.update(LCMCLUSTERS, Some(&ns), &cl, |o| {
                o["status"]["readyNodes"] = ready.into()
            }),
            "update LCMCluster readyNodes",
        );
    }
}
