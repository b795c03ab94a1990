//! The Ceph and Tungsten Fabric controllers on maintenance requests.
//!
//! Ceph (reference §6): waits for the OpenStack cluster lock to be inactive,
//! updates Ceph, then releases its cluster lock; node locks are released
//! after a short preparation (OSDs paused). The Ceph controller's code is not
//! public: the timings and the absence of messages are inferred. Its
//! CephDeploymentHealth says HEALTH_WARN while Ceph is updated
//! (`ceph_health`).
//!
//! TF (reference §5.1): the cluster lock goes inactive once the TF cluster
//! is ready, with `inactivationProgress`; a node lock goes inactive only
//! when the vRouter pod on the node is Ready and no other TF node lock is
//! inactive (serial); after the request is deleted TF waits for the vRouter
//! pod to be Ready and takes the lock back.

use jiff::Timestamp;
use serde_json::json;

use super::ceph_health;
use super::engine::{
    CWL, Ctx, NWL, RequestState, lock_state, set_lock, set_status_str, update_lock,
};
use super::objects::{CWL_OPENSTACK, CWL_TF, cwl_ceph, nwl_name};
use super::plan_spec::Stage;
use super::spec::Controller;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClusterLock {
    Active,
    /// Ceph: waiting for the OpenStack cluster lock; TF: checking the cluster.
    Waiting,
    Updating {
        until: Timestamp,
    },
    Inactive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeLock {
    Active,
    Preparing { until: Timestamp },
    Inactive,
    Reacquiring { until: Timestamp },
}

/// Ceph or TF: the same shape with different rules.
#[derive(Debug)]
pub struct AppController {
    which: Controller,
    cwl: ClusterLock,
    nodes: Vec<NodeLock>,
    /// TF: nodes whose maintenance finished (for inactivationProgress).
    updated: usize,
    /// TF: the new release was written to its locks (finalization).
    new_release_written: bool,
}

impl AppController {
    pub fn new(which: Controller, machines: usize) -> AppController {
        assert!(
            which != Controller::Openstack,
            "the OpenStack controller has its own module"
        );
        AppController {
            which,
            cwl: ClusterLock::Active,
            nodes: vec![NodeLock::Active; machines],
            updated: 0,
            new_release_written: false,
        }
    }

    fn cwl_name(&self, ctx: &Ctx) -> String {
        match self.which {
            Controller::Ceph => cwl_ceph(&ctx.spec.cluster),
            _ => CWL_TF.to_string(),
        }
    }

    pub fn step(&mut self, ctx: &mut Ctx) {
        self.cluster_lock(ctx);
        for i in 0..ctx.machines.len() {
            if ctx.machines[i].has_lock(self.which) {
                self.node(ctx, i);
            }
        }
    }

    fn tf_total(ctx: &Ctx) -> usize {
        ctx.machines
            .iter()
            .filter(|m| m.has_lock(Controller::Tf))
            .count()
    }

    fn cluster_lock(&mut self, ctx: &mut Ctx) {
        let name = self.cwl_name(ctx);
        let cmr = ctx.facts.cmr == RequestState::Present;
        match self.cwl {
            ClusterLock::Active if cmr => {
                self.cwl = match self.which {
                    Controller::Tf => ClusterLock::Updating {
                        until: ctx.after(ctx.spec.durations.tf_ready),
                    },
                    _ => ClusterLock::Waiting,
                };
            }
            ClusterLock::Waiting
                if cmr
                    && ctx.facts.gate(Stage::Ceph)
                    && lock_state(ctx.mosk, CWL, CWL_OPENSTACK).as_deref() == Some("inactive") =>
            {
                ctx.note("ceph: updating the Ceph cluster");
                ceph_health::updating(ctx.mosk, true, ctx.now);
                ctx.facts.begin(Stage::Ceph, ctx.now);
                self.cwl = ClusterLock::Updating {
                    until: ctx.after(ctx.spec.durations.ceph_update),
                };
            }
            ClusterLock::Updating { until } if cmr && ctx.now >= until => {
                let release = ctx.spec.release.controller_to.clone();
                let which = self.which;
                let total = Self::tf_total(ctx);
                let done = self.updated;
                update_lock(ctx.mosk, CWL, &name, |o| {
                    set_status_str(o, "state", Some("inactive"));
                    if which == Controller::Ceph {
                        set_status_str(o, "release", Some(&release));
                    } else {
                        o["status"]["inactivationProgress"] = progress(done, total);
                    }
                });
                if which == Controller::Ceph {
                    for m in ctx.machines.iter().filter(|m| m.has_lock(which)) {
                        update_lock(ctx.mosk, NWL, &nwl_name(which, &m.node), |o| {
                            set_status_str(o, "release", Some(&release));
                        });
                    }
                }
                ctx.note(format!(
                    "{}: cluster lock inactive",
                    which.controller_name()
                ));
                if which == Controller::Ceph {
                    ceph_health::updating(ctx.mosk, false, ctx.now);
                    ctx.facts.end(Stage::Ceph, ctx.now);
                }
                self.cwl = ClusterLock::Inactive;
            }
            ClusterLock::Waiting | ClusterLock::Updating { .. } | ClusterLock::Inactive if !cmr => {
                set_lock(ctx.mosk, CWL, &name, "active", None);
                if self.which == Controller::Tf {
                    update_lock(ctx.mosk, CWL, &name, |o| {
                        if let Some(st) = o["status"].as_object_mut() {
                            st.remove("inactivationProgress");
                        }
                    });
                }
                self.cwl = ClusterLock::Active;
            }
            _ => {}
        }
        // TF moves to its new release in finalization.
        if self.which == Controller::Tf
            && ctx.facts.tf_update_requested
            && !self.new_release_written
        {
            let release = ctx.spec.release.controller_to.clone();
            update_lock(ctx.mosk, CWL, &name, |o| {
                set_status_str(o, "release", Some(&release))
            });
            for m in ctx.machines.iter().filter(|m| m.has_lock(Controller::Tf)) {
                update_lock(ctx.mosk, NWL, &nwl_name(Controller::Tf, &m.node), |o| {
                    set_status_str(o, "release", Some(&release));
                });
            }
            self.new_release_written = true;
        }
    }

    fn node(&mut self, ctx: &mut Ctx, i: usize) {
        let m = &ctx.machines[i];
        let present = ctx.facts.nmr[i] == RequestState::Present;
        let stuck = m.stuck_lock == Some(self.which);
        let vrouter_ok = !m.has_vrouter() || ctx.facts.vrouter_ready[i];
        match self.nodes[i] {
            NodeLock::Active if present && !stuck => {
                let serial_ok = self.which != Controller::Tf
                    || !self.nodes.iter().enumerate().any(|(j, n)| {
                        j != i
                            && matches!(
                                n,
                                NodeLock::Preparing { .. }
                                    | NodeLock::Inactive
                                    | NodeLock::Reacquiring { .. }
                            )
                    });
                if serial_ok && (self.which != Controller::Tf || vrouter_ok) {
                    self.nodes[i] = NodeLock::Preparing {
                        until: ctx.after(ctx.spec.durations.node_prepare),
                    };
                }
            }
            NodeLock::Preparing { until } if ctx.now >= until => {
                set_lock(
                    ctx.mosk,
                    NWL,
                    &nwl_name(self.which, &m.node),
                    "inactive",
                    None,
                );
                ctx.note(format!(
                    "{}: node lock inactive: {}",
                    self.which.controller_name(),
                    m.node
                ));
                self.nodes[i] = NodeLock::Inactive;
            }
            NodeLock::Inactive if !present => {
                self.nodes[i] = NodeLock::Reacquiring {
                    until: ctx.after(ctx.spec.durations.reacquire),
                };
            }
            NodeLock::Reacquiring { until }
                if ctx.now >= until
                    && !ctx.facts.rebooting[i]
                    && (self.which != Controller::Tf || vrouter_ok) =>
            {
                set_lock(
                    ctx.mosk,
                    NWL,
                    &nwl_name(self.which, &m.node),
                    "active",
                    None,
                );
                ctx.note(format!(
                    "{}: node lock active again: {}",
                    self.which.controller_name(),
                    m.node
                ));
                self.nodes[i] = NodeLock::Active;
                if self.which == Controller::Tf {
                    self.updated += 1;
                    let (done, total) = (self.updated, Self::tf_total(ctx));
                    if self.cwl == ClusterLock::Inactive {
                        update_lock(ctx.mosk, CWL, CWL_TF, |o| {
                            o["status"]["inactivationProgress"] = progress(done, total);
                        });
                    }
                }
            }
            _ => {}
        }
    }
}

/// TF's cluster lock progress: `1 out of 5 nodes updated` (reference §5.1).
fn progress(done: usize, total: usize) -> serde_json::Value {
    let pct = (done * 100).checked_div(total).unwrap_or(100).min(100);
    json!({"percentage": pct, "description": format!("{done} out of {total} nodes updated")})
}
