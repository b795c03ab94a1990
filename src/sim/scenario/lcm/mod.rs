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

use jiff::Timestamp;
use serde_json::{Value, json};

use super::engine::{
    CMR, CWL, Ctx, HardReboot, NMR, NWL, RequestState, UpdatePhase, check, set_status_str,
};
use super::lcmlog::Level;
use super::objects::{self, cluster_state_name, nwl_name, ready_condition};
use super::spec::{Controller, Role};
use super::text::{cd_locks_active, cd_word, k8s_time, sd_waiting};

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
    attempts: Vec<u32>,
    next_cluster_check_log: Timestamp,
    finalization_until: Option<Timestamp>,
    cmr_deleted: bool,
    ready_written: Option<usize>,
}

impl Lcm {
    pub fn new(machines: usize, now: Timestamp) -> Lcm {
        Lcm {
            steps: vec![MachineStep::Current; machines],
            attempts: vec![0; machines],
            next_cluster_check_log: now,
            finalization_until: None,
            cmr_deleted: false,
            ready_written: None,
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
                if ctx.now >= at {
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
        let prepare = spec.durations.prepare.get();
        for (i, m) in ctx.machines.iter().enumerate() {
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

    /// Masters (`masters = true`) one at a time, or workers `worker_concurrency` at a time.
    fn run_group(&mut self, ctx: &mut Ctx, masters: bool) {
        let in_group = |r: Role| (r == Role::Control) == masters;
        let members: Vec<usize> = (0..self.steps.len())
            .filter(|&i| in_group(ctx.machines[i].role))
            .collect();
        for &i in &members {
            if self.steps[i].in_flight() {
                self.advance_machine(ctx, i);
            }
        }
        let limit = if masters {
            1
        } else {
            ctx.spec.worker_concurrency as usize
        };
        let mut running = members
            .iter()
            .filter(|&&i| self.steps[i].in_flight())
            .count();
        for &i in &members {
            if running >= limit {
                break;
            }
            if self.steps[i] == MachineStep::Prepared {
                self.start_maintenance(ctx, i);
                running += 1;
            } else if masters && matches!(self.steps[i], MachineStep::Preparing { .. }) {
                // Masters go strictly in order.
                break;
            }
        }
        if members.iter().all(|&i| self.steps[i] == MachineStep::Done) {
            if masters {
                ctx.note("all masters updated");
                ctx.facts.phase = UpdatePhase::Workers;
            } else {
                ctx.note("all workers updated; finalization");
                self.start_finalization(ctx);
            }
        }
    }

    fn start_maintenance(&mut self, ctx: &mut Ctx, i: usize) {
        let m = &ctx.machines[i];
        let spec = ctx.spec;
        check(
            ctx.mosk
                .create(NMR, objects::node_maintenance_request(spec, m)),
            "create NodeMaintenanceRequest",
        );
        ctx.facts.nmr[i] = RequestState::Present;
        let scope = if spec.reboot { "os" } else { "drain" };
        ctx.lcm(
            Level::Info,
            "Created NodeMaintenanceRequest",
            &[("machine", &m.name), ("node", &m.node), ("scope", scope)],
        );
        let cd_msg = self.locks_message(ctx, i).unwrap_or_default();
        check(
            ctx.mgmt.create(
                LCMCLUSTERSTATES,
                objects::cluster_state(spec, m, false, &cd_msg),
            ),
            "create cd- LCMClusterState",
        );
        check(
            ctx.mgmt.create(
                LCMCLUSTERSTATES,
                objects::cluster_state(spec, m, true, &sd_waiting(&m.node)),
            ),
            "create sd- LCMClusterState",
        );
        self.attempts[i] = 0;
        ctx.note(format!("maintenance started: {} ({})", m.name, m.node));
        self.steps[i] = MachineStep::WaitingLocks {
            next_retry: ctx.after(spec.durations.lcm_retry),
        };
    }

    /// The cordon-drain message for the node's active locks, `None` when all are inactive.
    fn locks_message(&self, ctx: &Ctx, i: usize) -> Option<String> {
        let m = &ctx.machines[i];
        let mut active: Vec<(String, &'static str)> = Vec::new();
        for c in [Controller::Ceph, Controller::Openstack, Controller::Tf] {
            if !m.has_lock(c) {
                continue;
            }
            let state = ctx
                .mosk
                .get(NWL, None, &nwl_name(c, &m.node))
                .and_then(|o| {
                    o.pointer("/status/state")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
            if state.as_deref() != Some("inactive") && state.is_some() {
                active.push((
                    c.controller_name().to_string(),
                    cd_word(c.controller_name()),
                ));
            }
        }
        active.sort();
        (!active.is_empty()).then(|| cd_locks_active(&active))
    }

    fn set_cluster_state(ctx: &Ctx, prefix: &str, machine: &str, f: impl FnOnce(&mut Value)) {
        let name = cluster_state_name(prefix, machine);
        check(
            ctx.mgmt
                .update(LCMCLUSTERSTATES, Some(&ctx.spec.namespace), &name, f),
            "update LCMClusterState",
        );
    }

    fn update_machine(ctx: &Ctx, i: usize, f: impl FnOnce(&mut Value)) {
        let m = &ctx.machines[i];
        check(
            ctx.mgmt
                .update(LCMMACHINES, Some(&ctx.spec.namespace), &m.name, f),
            "update LCMMachine",
        );
    }

    fn update_node(ctx: &Ctx, i: usize, f: impl FnOnce(&mut Value)) {
        check(
            ctx.mosk.update("nodes", None, &ctx.machines[i].node, f),
            "update Node",
        );
    }

    fn advance_machine(&mut self, ctx: &mut Ctx, i: usize) {
        let d = ctx.spec.durations.clone();
        let m = ctx.machines[i].clone();
        let (name, node) = (m.name.as_str(), m.node.as_str());
        match self.steps[i] {
            MachineStep::WaitingLocks { next_retry } => match self.locks_message(ctx, i) {
                None => {
                    Self::set_cluster_state(ctx, "cd", name, |o| {
                        set_status_str(o, "message", None)
                    });
                    Self::update_machine(ctx, i, |o| {
                        set_status_str(o, "kubernetesCordonDrain", Some("cordondraining"))
                    });
                    let now = k8s_time(ctx.now);
                    Self::update_node(ctx, i, |o| {
                        o["spec"]["unschedulable"] = true.into();
                        o["spec"]["taints"] = json!([{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": now}]);
                    });
                    ctx.lcm(
                        Level::Info,
                        "All NodeWorkloadLocks are inactive, cordoning and draining node",
                        &[("machine", name), ("node", node)],
                    );
                    self.steps[i] = MachineStep::Draining {
                        until: ctx.after(d.drain),
                    };
                }
                Some(msg) => {
                    let retry = ctx.now >= next_retry;
                    if retry {
                        self.attempts[i] += 1;
                    }
                    let attempt = self.attempts[i];
                    Self::set_cluster_state(ctx, "cd", name, |o| {
                        set_status_str(o, "message", Some(&msg));
                        o["status"]["attempt"] = attempt.into();
                    });
                    let sd = sd_waiting(node);
                    Self::set_cluster_state(ctx, "sd", name, |o| {
                        set_status_str(o, "message", Some(&sd));
                        o["status"]["attempt"] = attempt.into();
                    });
                    if retry {
                        ctx.lcm(
                            Level::Warn,
                            &msg,
                            &[
                                ("machine", name),
                                ("node", node),
                                ("attempt", &attempt.to_string()),
                            ],
                        );
                        self.steps[i] = MachineStep::WaitingLocks {
                            next_retry: ctx.after(d.lcm_retry),
                        };
                    }
                }
            },
            MachineStep::Draining { until } if ctx.now >= until => {
                Self::set_cluster_state(ctx, "cd", name, |o| {
                    set_status_str(o, "value", Some("true"))
                });
                Self::update_machine(ctx, i, |o| {
                    set_status_str(o, "kubernetesCordonDrain", Some("cordondrained"))
                });
                ctx.lcm(
                    Level::Info,
                    "Node drained",
                    &[("machine", name), ("node", node)],
                );
                Self::set_cluster_state(ctx, "sd", name, |o| set_status_str(o, "message", None));
                self.steps[i] = MachineStep::SwarmDraining {
                    until: ctx.after(d.swarm_drain),
                };
            }
            MachineStep::SwarmDraining { until } if ctx.now >= until => {
                Self::set_cluster_state(ctx, "sd", name, |o| {
                    set_status_str(o, "value", Some("true"))
                });
                let agent = ctx.spec.release.agent_to.clone();
                Self::update_machine(ctx, i, |o| {
                    set_status_str(o, "state", Some("Deploy"));
                    set_status_str(o, "agentVersion", Some(&agent));
                });
                ctx.lcm(
                    Level::Info,
                    "Swarm node drained, running deploy phase state items",
                    &[("machine", name), ("node", node), ("phase", "deploy")],
                );
                self.steps[i] = MachineStep::Deploying {
                    until: ctx.after(d.deploy),
                };
            }
            MachineStep::Deploying { until } if ctx.now >= until => {
                if ctx.spec.reboot {
                    let at = k8s_time(ctx.now);
                    Self::update_machine(ctx, i, |o| {
                        set_status_str(o, "state", Some("Reboot"));
                        o["status"]["reboot"] = json!({"requestedAt": at, "completed": false});
                    });
                    let cond = ready_condition(false, ctx.now);
                    Self::update_node(ctx, i, |o| o["status"]["conditions"] = json!([cond]));
                    ctx.facts.rebooting[i] = true;
                    self.record_hard_reboot(ctx, i);
                    ctx.lcm(
                        Level::Info,
                        "Rebooting machine",
                        &[("machine", name), ("node", node)],
                    );
                    self.steps[i] = MachineStep::Rebooting {
                        until: ctx.after(d.reboot),
                    };
                } else {
                    self.finish(ctx, i);
                }
            }
            MachineStep::Rebooting { until } if ctx.now >= until => {
                ctx.facts.rebooting[i] = false;
                let cond = ready_condition(true, ctx.now);
                Self::update_node(ctx, i, |o| {
                    o["status"]["conditions"] = json!([cond]);
                    o["status"]["nodeInfo"]["kernelVersion"] = KERNEL_TO.into();
                });
                Self::update_machine(ctx, i, |o| o["status"]["reboot"]["completed"] = true.into());
                ctx.lcm(
                    Level::Info,
                    "Machine rebooted",
                    &[("machine", name), ("node", node)],
                );
                self.finish(ctx, i);
            }
            _ => {}
        }
    }

    /// Servers still on the node when it reboots go down with it.
    fn record_hard_reboot(&mut self, ctx: &mut Ctx, i: usize) {
        let m = &ctx.machines[i];
        let servers: Vec<String> = ctx.nova.on_host(&m.node).map(|s| s.id.clone()).collect();
        if servers.is_empty() {
            return;
        }
        tracing::warn!(target: "sim", node = %m.node, ?servers, "node rebooted with instances on it: hard reboot");
        ctx.note(format!(
            "hard reboot of {} instance(s) on {}: {}",
            servers.len(),
            m.node,
            servers.join(",")
        ));
        ctx.facts.hard_reboots.push(HardReboot {
            node: m.node.clone(),
            machine: m.name.clone(),
            servers,
            at: ctx.now,
        });
    }

    fn finish(&mut self, ctx: &mut Ctx, i: usize) {
        let m = ctx.machines[i].clone();
        let release = ctx.spec.release.to.clone();
        Self::update_machine(ctx, i, |o| {
            set_status_str(o, "state", Some("Ready"));
            set_status_str(o, "release", Some(&release));
            set_status_str(o, "kubernetesCordonDrain", None);
            o["spec"]["rebootRequired"] = false.into();
        });
        Self::update_node(ctx, i, |o| {
            if let Some(spec) = o["spec"].as_object_mut() {
                spec.remove("unschedulable");
                spec.remove("taints");
            }
        });
        let ns = ctx.spec.namespace.clone();
        for prefix in ["cd", "sd"] {
            let name = cluster_state_name(prefix, &m.name);
            check(
                ctx.mgmt
                    .delete(LCMCLUSTERSTATES, Some(&ns), &name, &Value::Null, false),
                "delete LCMClusterState",
            );
        }
        check(
            ctx.mosk.delete(NMR, None, &m.node, &Value::Null, false),
            "delete NodeMaintenanceRequest",
        );
        ctx.facts.nmr[i] = RequestState::Deleting;
        ctx.lcm(
            Level::Info,
            "Machine is updated, removed NodeMaintenanceRequest",
            &[("machine", &m.name), ("node", &m.node)],
        );
        ctx.note(format!("machine updated: {}", m.name));
        self.steps[i] = MachineStep::Done;
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
