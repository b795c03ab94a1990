//! LCM's flow for one machine: NodeMaintenanceRequest, `cd-`/`sd-`
//! LCMClusterStates while node locks are active (their `status.attempt`
//! stays `0`, as the seed's 22.2 procedure shows it; LCM re-checks and logs a
//! warning at each retry), drain, swarm drain, deploy, reboot, Ready; then the
//! request is removed.

use serde_json::{Value, json};

use super::super::engine::{Ctx, HardReboot, NMR, NWL, RequestState, check, set_status_str};
use super::super::kaas_objects::{MACHINES, provider_status};
use super::super::kube_events::{Source, record_node_event};
use super::super::lcmlog::Level;
use super::super::objects::{self, cluster_state_name, nwl_name, ready_condition};
use super::super::spec::Controller;
use super::super::text::{cd_locks_active, cd_word, drain_evict_timeout, k8s_time, sd_waiting};
use super::{KERNEL_TO, LCMCLUSTERSTATES, LCMMACHINES, Lcm, MachineStep};

impl Lcm {
    pub(super) fn start_maintenance(&mut self, ctx: &mut Ctx, i: usize) {
        let m = &ctx.machines[i];
        let spec = ctx.spec;
        // A node without OpenStack, Ceph or TF has no workload locks and gets
        // no NodeMaintenanceRequest: LCM only drains it (inferred from the
        // update flow: requests exist for the application controllers).
        if m.has_any_lock() {
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
        }
        let ns = spec.namespace.clone();
        check(
            ctx.mgmt.update(MACHINES, Some(&ns), &m.name, |o| {
                o["status"]["providerStatus"] = provider_status(false, true);
            }),
            "update Machine",
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
        self.retries[i] = 0;
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

    pub(super) fn advance_machine(&mut self, ctx: &mut Ctx, i: usize) {
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
                    // A pod that cannot be evicted holds the drain (reference §7.1).
                    let blocked = m
                        .drain_blocked
                        .map_or(jiff::SignedDuration::ZERO, |b| b.get());
                    self.drain_started[i] = Some(ctx.now);
                    self.steps[i] = MachineStep::Draining {
                        until: ctx
                            .after(d.drain)
                            .saturating_add(blocked)
                            .unwrap_or(ctx.now),
                    };
                }
                Some(msg) => {
                    let retry = ctx.now >= next_retry;
                    if retry {
                        self.retries[i] += 1;
                    }
                    // The seed (`kubectl get lcmclusterstates -o wide` in the
                    // 22.2 procedure, reference §7.2) shows ATTEMPT 0 on both
                    // states while node locks are still active: LCM's waiting
                    // is not counted as an attempt. [I] When LCM does count
                    // attempts (failed drains) is not documented; the
                    // simulator never increments it.
                    Self::set_cluster_state(ctx, "cd", name, |o| {
                        set_status_str(o, "message", Some(&msg));
                        o["status"]["attempt"] = 0.into();
                    });
                    let sd = sd_waiting(node);
                    Self::set_cluster_state(ctx, "sd", name, |o| {
                        set_status_str(o, "message", Some(&sd));
                        o["status"]["attempt"] = 0.into();
                    });
                    if retry {
                        ctx.lcm(
                            Level::Warn,
                            &msg,
                            &[
                                ("machine", name),
                                ("node", node),
                                ("retry", &self.retries[i].to_string()),
                            ],
                        );
                        self.steps[i] = MachineStep::WaitingLocks {
                            next_retry: ctx.after(d.lcm_retry),
                        };
                    }
                }
            },
            MachineStep::Draining { until } if ctx.now < until && m.drain_blocked.is_some() => {
                self.drain_trouble(ctx, i);
            }
            MachineStep::Draining { until } if ctx.now >= until => {
                if m.drain_blocked.is_some() {
                    Self::update_machine(ctx, i, |o| {
                        set_status_str(o, "kubernetesCordonDrainError", None);
                        o["status"]["lcmOperationStuck"] = false.into();
                    });
                }
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
                    record_node_event(
                        ctx.mosk,
                        node,
                        Source::NodeController,
                        "Normal",
                        "NodeNotReady",
                        &format!("Node {node} status is now: NodeNotReady"),
                        ctx.now,
                    );
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
                let boot = objects::boot_id(node, ctx.now);
                Self::update_node(ctx, i, |o| {
                    o["status"]["conditions"] = json!([cond]);
                    o["status"]["nodeInfo"]["kernelVersion"] = KERNEL_TO.into();
                    o["status"]["nodeInfo"]["bootID"] = boot.clone().into();
                });
                let rebooted = format!("Node {node} has been rebooted, boot id: {boot}");
                for (type_, reason, message) in [
                    ("Warning", "Rebooted", rebooted.as_str()),
                    (
                        "Normal",
                        "NodeReady",
                        &format!("Node {node} status is now: NodeReady"),
                    ),
                ] {
                    record_node_event(
                        ctx.mosk,
                        node,
                        Source::Kubelet,
                        type_,
                        reason,
                        message,
                        ctx.now,
                    );
                }
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

    /// A drain that cannot evict a pod: after kubectl's global timeout (10m)
    /// the error is written; after two timeouts LCM marks the operation
    /// stuck (when LCM sets `lcmOperationStuck` is not documented: inferred).
    fn drain_trouble(&mut self, ctx: &mut Ctx, i: usize) {
        let Some(since) = self.drain_started[i] else {
            return;
        };
        let ran = ctx.now.duration_since(since);
        let timeout = jiff::SignedDuration::from_mins(10);
        if ran >= timeout && !self.drain_error_written[i] {
            self.drain_error_written[i] = true;
            let text = drain_evict_timeout("patroni-13-2", "stacklight");
            Self::update_machine(ctx, i, |o| {
                set_status_str(o, "kubernetesCordonDrainError", Some(&text))
            });
            let (name, node) = (ctx.machines[i].name.clone(), ctx.machines[i].node.clone());
            ctx.lcm(Level::Error, &text, &[("machine", &name), ("node", &node)]);
            ctx.note(format!("drain error: {name}"));
        }
        if ran >= timeout * 2 && !self.stuck_written[i] {
            self.stuck_written[i] = true;
            Self::update_machine(ctx, i, |o| o["status"]["lcmOperationStuck"] = true.into());
            ctx.note(format!("LCM operation stuck: {}", ctx.machines[i].name));
        }
    }

    /// Servers still on the node when it reboots go down with it.
    fn record_hard_reboot(&mut self, ctx: &mut Ctx, i: usize) {
        let m = &ctx.machines[i];
        let servers: Vec<String> = ctx
            .nova
            .on_host(&m.node)
            .filter(|s| !s.not_running())
            .map(|s| s.id.clone())
            .collect();
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
            ctx.mgmt.update(MACHINES, Some(&ns), &m.name, |o| {
                o["status"]["providerStatus"] = provider_status(true, false);
            }),
            "update Machine",
        );
        if ctx.facts.nmr[i] == RequestState::Present {
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
        } else {
            ctx.lcm(
                Level::Info,
                "Machine is updated",
                &[("machine", &m.name), ("node", &m.node)],
            );
        }
        ctx.note(format!("machine updated: {}", m.name));
        self.steps[i] = MachineStep::Done;
    }
}
