//! The OpenStack controller (Rockoon) on maintenance requests, ported from
//! its source (github:Mirantis/rockoon, commit 1390883a unless said
//! otherwise): the cluster lock (`cluster_maintenance_request_change_handler`
//! and `..._delete_handler`, rockoon/controllers/maintenance.py), the node
//! locks (`node_maintenance_request_change_handler` and
//! `..._delete_handler`, same file), the concurrency check
//! (`NodeWorkloadLock.acquire_internal_lock`, `maintenance_locks`,
//! `can_handle_nmr`, rockoon/maintenance.py), the node's maintenance
//! options (`NodeMaintenanceConfig`, same file) and Nova's part
//! (`Nova._migrate_servers`, `prepare_node_after_reboot`,
//! rockoon/services/__init__.py) and what it writes to the
//! OpenStackDeploymentStatus on the way (`osdpl_status`). Messages before MOSK 25.1 follow the
//! first public commit, 777a3a19 (the controller before 25.1 is not public;
//! that commit still has the old texts and the `skip` early return).
//!
//! kopf's retry delay after a TemporaryError or a failed handler is
//! `retry_interval` (kopf's default, 60 s, is inferred).

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use rand::Rng;
use serde_json::Value;

use super::engine::{
    CMR, CWL, Ctx, NMR, NWL, RequestState, check, set_annotation, set_lock, set_lock_message,
    set_status_str, update_lock,
};
use super::nova::{MAINTENANCE_ACTION_TAG, MaintenanceAction};
use super::objects::{CWL_OPENSTACK, nwl_name};
use super::osdpl_status;
use super::plan_spec::Stage;
use super::spec::{Controller, MessageFormat, Role};
use super::text::{
    ANN_INNER_STATE, ANN_MIGRATION_ATTEMPTS, ANN_MIGRATION_MODE, COMPUTE_SERVICES_TIMEOUT,
    CWL_CONTROLLER_NOT_UPDATED, E_HEALTH, ROCKOON_FINALIZER, concurrency, cwl_not_applied,
    left_new, left_old, mig_err, mig_start, mig_wait, release_mismatch, rockoon_message,
};

/// `_do_servers_migration`'s sleeps: 5 s after a start plus 5 s at the end
/// of the round; 5 s after an API error; 30 + 5 s after "Waiting ...".
const AFTER_START: SignedDuration = SignedDuration::from_secs(10);
const AFTER_ERROR: SignedDuration = SignedDuration::from_secs(5);
const AFTER_WAIT: SignedDuration = SignedDuration::from_secs(35);
/// `MAINTENANCE_DEFAULT_NODE_CONFIG` (maintenance.py).
const DEFAULT_MODE: &str = "live";
const DEFAULT_ATTEMPTS: i64 = 3;
/// `prepare_node_after_reboot`'s timeout for the compute services.
const SERVICES_TIMEOUT: SignedDuration = SignedDuration::from_secs(300);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClusterLock {
    Active,
    /// The CMR handler raises until the new controller runs and the
    /// OpenStackDeployment is APPLIED (`controller_update`).
    Updating {
        new_controller_at: Timestamp,
        version_at: Timestamp,
        applied_at: Timestamp,
        next: Timestamp,
        /// The new controller has reset the locks' release.
        reset: bool,
    },
    /// `health.wait_services_healthy` (one message, then blocking).
    Checking {
        until: Timestamp,
    },
    Inactive,
}

/// The migration loop of one handler run: its counters live for this run only.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Loop {
    /// The node mode as read; `None` before 25.1 (tags not read).
    filter_mode: Option<String>,
    mode: String,
    attempts: i64,
    counts: BTreeMap<String, i64>,
}

/// `node_maintenance_request_delete_handler`'s waits.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DeleteStep {
    /// `while not node.ready: time.sleep(10)`.
    NodeReady,
    /// Waiting for the pods on the node to be Ready (`durations.reacquire`).
    Pods { until: Timestamp },
    /// `Nova.prepare_node_after_reboot`: compute services up within 300 s
    /// (777a3a19's `asyncio.wait_for(async_retry(...), timeout=300)`; since
    /// 6a76c13c, 2025-10-27, the check runs once and does not wait).
    Services { deadline: Timestamp },
    /// kopf retries the delete handler.
    Retry { at: Timestamp },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Handler {
    /// No maintenance request being handled.
    Idle,
    /// The NMR change handler runs (again) at this time.
    Run { at: Timestamp },
    /// Inside `_do_servers_migration`; the next round at `next`.
    Migrating { next: Timestamp, run: Loop },
    /// A node without instances to move: released after a short preparation.
    Preparing { until: Timestamp },
    /// Lock inactive: LCM may drain and reboot.
    Released,
    /// The NMR is being deleted: the delete handler runs.
    Deleting(DeleteStep),
}

#[derive(Debug, Clone)]
struct NodeState {
    handler: Handler,
    was_rebooting: bool,
}

/// The OpenStack controller.
#[derive(Debug)]
pub struct Openstack {
    cwl: ClusterLock,
    /// The new controller has written APPLYING to the OpenStackDeploymentStatus.
    status_applying: bool,
    nodes: Vec<NodeState>,
    finalized: Vec<bool>,
}

impl Openstack {
    pub fn new(machines: usize) -> Openstack {
        Openstack {
            cwl: ClusterLock::Active,
            status_applying: false,
            nodes: vec![
                NodeState {
                    handler: Handler::Idle,
                    was_rebooting: false,
                };
                machines
            ],
            finalized: vec![false; machines],
        }
    }

    pub fn step(&mut self, ctx: &mut Ctx) {
        self.cluster_lock(ctx);
        for i in 0..ctx.machines.len() {
            self.compute_service(ctx, i);
            self.request_finalizer(ctx, i);
            if ctx.machines[i].has_lock(Controller::Openstack) {
                self.node(ctx, i);
            } else if ctx.facts.nmr[i] == RequestState::Deleting {
                // No OpenStack role: nothing to do but let the request go.
                self.release_request(ctx, i);
            }
        }
    }

    /// nova-compute goes down with its node and reports up again once the
    /// node is Ready (after `compute_services_down`, when set).
    fn compute_service(&mut self, ctx: &mut Ctx, i: usize) {
        let m = &ctx.machines[i];
        if !m.is_compute() {
            return;
        }
        let rebooting = ctx.facts.rebooting[i];
        if rebooting && !self.nodes[i].was_rebooting {
            ctx.nova.service_down(&m.node);
        } else if !rebooting && self.nodes[i].was_rebooting {
            let down = m
                .compute_services_down
                .map_or(SignedDuration::ZERO, |d| d.get());
            let at = ctx.after_d(down);
            ctx.nova.service_up_at(&m.node, at);
            ctx.nova.tick(ctx.now);
        }
        self.nodes[i].was_rebooting = rebooting;
    }

    /// kopf puts Rockoon's finalizer on every request it handles.
    fn request_finalizer(&mut self, ctx: &mut Ctx, i: usize) {
        if ctx.facts.nmr[i] == RequestState::Present && !self.finalized[i] {
            self.finalized[i] = true;
            let node = &ctx.machines[i].node;
            check(
                ctx.mosk.update(NMR, None, node, |o| {
                    o["metadata"]["finalizers"] = serde_json::json!([ROCKOON_FINALIZER]);
                }),
                "add NMR finalizer",
            );
        }
    }

    /// The delete handler succeeded: kopf removes the finalizer.
    fn release_request(&mut self, ctx: &mut Ctx, i: usize) {
        let node = ctx.machines[i].node.clone();
        if ctx.mosk.get(NMR, None, &node).is_some() {
            check(
                ctx.mosk.remove_finalizers_and_delete(NMR, None, &node),
                "remove NMR finalizer",
            );
        }
        ctx.facts.nmr[i] = RequestState::Absent;
        self.finalized[i] = false;
    }

    /// `cluster_maintenance_request_change_handler` / `_delete_handler`.
    fn cluster_lock(&mut self, ctx: &mut Ctx) {
        match (self.cwl, ctx.facts.cmr) {
            (ClusterLock::Active, RequestState::Present) => {
                if ctx.mosk.get(CMR, None, &ctx.spec.cluster).is_some() {
                    check(
                        ctx.mosk.update(CMR, None, &ctx.spec.cluster, |o| {
                            o["metadata"]["finalizers"] = serde_json::json!([ROCKOON_FINALIZER]);
                        }),
                        "add CMR finalizer",
                    );
                }
                let upd = ctx.spec.openstack.controller_update.get();
                if upd.is_zero() {
                    self.health_check(ctx);
                } else {
                    let third = SignedDuration::from_secs(upd.as_secs() / 3);
                    self.cwl = ClusterLock::Updating {
                        new_controller_at: ctx.after_d(third),
                        version_at: ctx.after_d(third * 2),
                        applied_at: ctx.after_d(upd),
                        next: ctx.now,
                        reset: false,
                    };
                    ctx.note("openstack: updating the controller");
                    self.cluster_lock(ctx);
                }
            }
            (
                ClusterLock::Updating {
                    new_controller_at,
                    version_at,
                    applied_at,
                    next,
                    mut reset,
                },
                RequestState::Present,
            ) => {
                if ctx.now >= new_controller_at && !reset {
                    // The new controller starts: `LockBase.present()` sets
                    // its locks back to active with its own release.
                    self.reset_releases(ctx);
                    reset = true;
                }
                if ctx.now >= applied_at {
                    self.health_check(ctx);
                } else if ctx.now >= next {
                    // Each handler run raises TemporaryError with its reason.
                    let release = &ctx.spec.release;
                    let text = if ctx.now < new_controller_at {
                        release_mismatch(&release.controller_to, &release.controller_from)
                    } else if ctx.now < version_at {
                        // The new controller runs; the status still has the
                        // old one's version (and its APPLIED): the version
                        // is checked first.
                        CWL_CONTROLLER_NOT_UPDATED.to_string()
                    } else {
                        // The new controller's `handle` has written
                        // `set_osdpl_status(APPLYING, …)` by this run [I:
                        // the order of the two handlers is ours]: the
                        // handler reads what it says.
                        if !self.status_applying {
                            osdpl_status::applying(ctx.mosk, &release.controller_to, ctx.now);
                            self.status_applying = true;
                        }
                        cwl_not_applied("APPLYING")
                    };
                    let msg = ctx.rockoon_msg(&text);
                    set_lock_message(ctx.mosk, CWL, CWL_OPENSTACK, Some(&msg));
                    self.cwl = ClusterLock::Updating {
                        new_controller_at,
                        version_at,
                        applied_at,
                        next: ctx.after(ctx.spec.retry_interval),
                        reset,
                    };
                } else {
                    self.cwl = ClusterLock::Updating {
                        new_controller_at,
                        version_at,
                        applied_at,
                        next,
                        reset,
                    };
                }
            }
            (ClusterLock::Checking { until }, RequestState::Present) if ctx.now >= until => {
                // `health.wait_services_healthy` returns once every
                // component is Ready again.
                osdpl_status::component(ctx.mosk, osdpl_status::RESTARTING, true);
                // The updated controller resets its locks to its new release (reference §3.2).
                self.reset_releases(ctx);
                update_lock(ctx.mosk, CWL, CWL_OPENSTACK, |o| {
                    set_status_str(o, "state", Some("inactive"));
                    set_status_str(o, "errorMessage", None);
                });
                ctx.note("openstack: cluster lock inactive");
                ctx.facts.end(Stage::Openstack, ctx.now);
                self.cwl = ClusterLock::Inactive;
            }
            (
                ClusterLock::Updating { .. } | ClusterLock::Checking { .. } | ClusterLock::Inactive,
                RequestState::Deleting | RequestState::Absent,
            ) => {
                set_lock(ctx.mosk, CWL, CWL_OPENSTACK, "active", None);
                if ctx.mosk.get(CMR, None, &ctx.spec.cluster).is_some() {
                    check(
                        ctx.mosk
                            .remove_finalizers_and_delete(CMR, None, &ctx.spec.cluster),
                        "remove CMR finalizer",
                    );
                }
                ctx.facts.cmr = RequestState::Absent;
                ctx.note("openstack: cluster lock active again");
                self.cwl = ClusterLock::Active;
            }
            (ClusterLock::Active, RequestState::Deleting) => {
                // A request we never handled: just let it go.
                check(
                    ctx.mosk
                        .remove_finalizers_and_delete(CMR, None, &ctx.spec.cluster),
                    "remove CMR finalizer",
                );
                ctx.facts.cmr = RequestState::Absent;
            }
            _ => {}
        }
    }

    /// `LockBase.present()` under the new controller: every OpenStack lock
    /// records the new release (already active locks stay active).
    fn reset_releases(&self, ctx: &mut Ctx) {
        let release = ctx.spec.release.controller_to.clone();
        for m in ctx
            .machines
            .iter()
            .filter(|m| m.has_lock(Controller::Openstack))
        {
            update_lock(
                ctx.mosk,
                NWL,
                &nwl_name(Controller::Openstack, &m.node),
                |o| {
                    set_status_str(o, "release", Some(&release));
                },
            );
        }
        update_lock(ctx.mosk, CWL, CWL_OPENSTACK, |o| {
            set_status_str(o, "release", Some(&release));
        });
    }

    /// The status is APPLIED (the handler checked it) and the services are
    /// waited for: a component restarted by the update is not Ready yet.
    fn health_check(&mut self, ctx: &mut Ctx) {
        osdpl_status::applied(ctx.mosk, &ctx.spec.release.controller_to, ctx.now);
        osdpl_status::component(ctx.mosk, osdpl_status::RESTARTING, false);
        self.status_applying = false;
        let msg = ctx.rockoon_msg(E_HEALTH);
        set_lock_message(ctx.mosk, CWL, CWL_OPENSTACK, Some(&msg));
        ctx.note("openstack: updating, waiting for services to be healthy");
        self.cwl = ClusterLock::Checking {
            until: ctx.after(ctx.spec.durations.openstack_update),
        };
    }

    fn node(&mut self, ctx: &mut Ctx, i: usize) {
        let present = ctx.facts.nmr[i] == RequestState::Present;
        let deleting = ctx.facts.nmr[i] == RequestState::Deleting;
        let handler = self.nodes[i].handler.clone();
        match handler {
            Handler::Idle if present => self.nodes[i].handler = Handler::Run { at: ctx.now },
            Handler::Idle if deleting => self.delete_done(ctx, i),
            Handler::Run { .. }
            | Handler::Migrating { .. }
            | Handler::Preparing { .. }
            | Handler::Released
                if !present =>
            {
                // `if nwl.is_maintenance()`: wait for the node, else just take the lock back.
                if inner_state_active(ctx, i) {
                    self.nodes[i].handler = Handler::Deleting(DeleteStep::NodeReady);
                    self.node(ctx, i);
                } else {
                    self.delete_done(ctx, i);
                }
            }
            Handler::Run { at } if ctx.now >= at => self.run(ctx, i),
            Handler::Migrating { next, run } if ctx.now >= next => self.migrate_round(ctx, i, run),
            Handler::Preparing { until } if ctx.now >= until => self.release(ctx, i),
            Handler::Deleting(step) => self.delete_step(ctx, i, step),
            _ => {}
        }
    }

    /// `node_maintenance_request_delete_handler` (controllers/maintenance.py).
    fn delete_step(&mut self, ctx: &mut Ctx, i: usize, step: DeleteStep) {
        let m = ctx.machines[i].clone();
        let next = match step {
            DeleteStep::NodeReady if node_ready(ctx, &m.node) => DeleteStep::Pods {
                until: ctx.after(ctx.spec.durations.reacquire),
            },
            DeleteStep::Pods { until } if ctx.now >= until => {
                // Nova's `delete_nmr` only acts on computes.
                if !m.openstack_roles().contains(&Role::Compute) {
                    return self.delete_done(ctx, i);
                }
                DeleteStep::Services {
                    deadline: ctx.after_d(SERVICES_TIMEOUT),
                }
            }
            DeleteStep::Services { .. } if ctx.nova.services_up(&m.node) => {
                return self.delete_done(ctx, i);
            }
            DeleteStep::Services { deadline } if ctx.now >= deadline => {
                // Written on the lock that is already inactive; the
                // request keeps its finalizer and deletionTimestamp.
                let msg = ctx.rockoon_msg(COMPUTE_SERVICES_TIMEOUT);
                set_lock_message(
                    ctx.mosk,
                    NWL,
                    &nwl_name(Controller::Openstack, &m.node),
                    Some(&msg),
                );
                ctx.note(format!("openstack: compute services not up: {}", m.node));
                DeleteStep::Retry {
                    at: ctx.after(ctx.spec.retry_interval),
                }
            }
            DeleteStep::Retry { at } if ctx.now >= at => DeleteStep::NodeReady,
            other => other,
        };
        self.nodes[i].handler = Handler::Deleting(next);
    }

    /// The end of the delete handler: `add_node_to_scheduling`, inner_state
    /// inactive, lock active, message unset; kopf drops its finalizer.
    fn delete_done(&mut self, ctx: &mut Ctx, i: usize) {
        let m = &ctx.machines[i];
        let name = nwl_name(Controller::Openstack, &m.node);
        update_lock(ctx.mosk, NWL, &name, |o| {
            set_annotation(o, ANN_INNER_STATE, Some("inactive"));
            set_status_str(o, "state", Some("active"));
            set_status_str(o, "errorMessage", None);
        });
        if m.is_compute() {
            ctx.nova.set_enabled(&m.node, true);
        }
        self.nodes[i].handler = Handler::Idle;
        ctx.note(format!("openstack: node lock active again: {}", m.node));
        self.release_request(ctx, i);
    }

    /// One run of `node_maintenance_request_change_handler`.
    fn run(&mut self, ctx: &mut Ctx, i: usize) {
        let m = ctx.machines[i].clone();
        let lock = nwl_name(Controller::Openstack, &m.node);
        let retry = ctx.after(ctx.spec.retry_interval);
        // `acquire_internal_lock`: only a node not yet in maintenance is checked.
        if !inner_state_active(ctx, i) {
            if self.concurrency_exceeded(ctx, i) {
                let msg = ctx.rockoon_msg(&concurrency(&m.node));
                set_lock_message(ctx.mosk, NWL, &lock, Some(&msg));
                self.nodes[i].handler = Handler::Run { at: retry };
                return;
            }
            update_lock(ctx.mosk, NWL, &lock, |o| {
                set_annotation(o, ANN_INNER_STATE, Some("active"))
            });
        }
        // Nova's `can_handle_nmr` compares availability zones only with
        // `respect_nova_az`, which the chart sets to false: always true here.
        // `Nova.remove_node_from_scheduling`, then `prepare_node_for_reboot`
        // only for computes and only with scope `os`.
        if !m.openstack_roles().contains(&Role::Compute) {
            self.nodes[i].handler = Handler::Preparing {
                until: ctx.after(ctx.spec.durations.node_prepare),
            };
            return;
        }
        ctx.nova.set_enabled(&m.node, false);
        if !ctx.spec.reboot {
            self.nodes[i].handler = Handler::Preparing {
                until: ctx.after(ctx.spec.durations.node_prepare),
            };
            return;
        }
        // `NodeMaintenanceConfig(node)` reloads the Node at every run; a
        // value `int()` refuses raises before any message is written: the
        // handler fails, kopf retries, the lock stays active.
        let Some((mode, attempts)) = read_node_config(ctx, &m.node) else {
            self.nodes[i].handler = Handler::Run { at: retry };
            return;
        };
        let run = |filter_mode: Option<String>| Loop {
            filter_mode,
            mode: mode.clone(),
            attempts,
            counts: BTreeMap::new(),
        };
        match ctx.spec.message_format {
            MessageFormat::Old => {
                // 777a3a19 `_migrate_servers`: `skip` returns at once, `live`
                // migrates, anything else (manual, unknown) only checks.
                match mode.as_str() {
                    "skip" => self.release(ctx, i),
                    "live" => self.migrate_round(ctx, i, run(None)),
                    _ => self.completion_check(ctx, i, &mode),
                }
            }
            MessageFormat::New => {
                let r = run(Some(mode.clone()));
                self.migrate_round(ctx, i, r);
            }
        }
    }

    /// `NodeWorkloadLock.can_handle_nmr` over `maintenance_locks()`: every
    /// OpenStack lock whose inner_state is active counts once for each
    /// role its node holds; the request waits when ANY role has reached
    /// its maximum (controller 1, `nwl_parallel_max_gateway`,
    /// `nwl_parallel_max_compute`), whatever this node's own roles.
    fn concurrency_exceeded(&self, ctx: &Ctx, i: usize) -> bool {
        let os = &ctx.spec.openstack;
        let mut counts: BTreeMap<Role, u32> = BTreeMap::new();
        for (j, m) in ctx.machines.iter().enumerate() {
            if j == i || !inner_state_active(ctx, j) {
                continue;
            }
            for r in m.openstack_roles() {
                *counts.entry(r).or_default() += 1;
            }
        }
        counts.iter().any(|(r, n)| {
            let max = match r {
                Role::Control => 1,
                Role::Gateway => os.nwl_parallel_max_gateway,
                Role::Compute => os.nwl_parallel_max_compute,
                Role::Storage => u32::MAX,
            };
            *n >= max
        })
    }

    /// One round of `_do_servers_migration`'s `while servers_to_migrate:`.
    fn migrate_round(&mut self, ctx: &mut Ctx, i: usize, mut run: Loop) {
        let m = ctx.machines[i].clone();
        let node = m.node.clone();
        let lock = nwl_name(Controller::Openstack, &node);
        let valid = match ctx
            .nova
            .valid_for_live_migration(&node, run.filter_mode.as_deref())
        {
            Ok(v) => v,
            Err(e) => return self.handler_failed(ctx, i, &e),
        };
        // `servers_migrating_skip`: started more often than the attempts allow.
        let candidates: Vec<String> = valid
            .into_iter()
            .filter(|id| run.counts.get(id).is_none_or(|c| *c <= run.attempts))
            .collect();
        if candidates.is_empty() {
            let mode = run.mode.clone();
            self.completion_check(ctx, i, &mode);
            return;
        }
        let migrating = ctx.nova.migrating_on(&node);
        let next;
        if migrating.len() < ctx.spec.openstack.instance_migrate_concurrency as usize {
            let id = candidates[ctx.rng.random_range(0..candidates.len())].clone();
            // The error, when the call raises, is stamped after the start.
            let (m1, m2) = (
                ctx.rng.random_range(1..500_000),
                ctx.rng.random_range(1..400_000),
            );
            let started = ctx.after_d(SignedDuration::from_micros(m1));
            let failed = ctx.after_d(SignedDuration::from_micros(m1 + m2));
            let msg = rockoon_message(started, &mig_start(&id));
            set_lock_message(ctx.mosk, NWL, &lock, Some(&msg));
            // The counter starts at 1 and is bumped before each start.
            let c = run.counts.get(&id).copied().unwrap_or(1) + 1;
            run.counts.insert(id.clone(), c);
            let takes = m
                .live_migration
                .unwrap_or(ctx.spec.durations.live_migration)
                .get();
            match ctx.nova.live_migrate(&id, ctx.now, takes, ctx.rng) {
                Ok(()) => next = ctx.after_d(AFTER_START),
                Err(e) => {
                    let msg = rockoon_message(failed, &mig_err(&id, &e));
                    set_lock_message(ctx.mosk, NWL, &lock, Some(&msg));
                    next = ctx.after_d(AFTER_ERROR);
                }
            }
        } else {
            let msg = ctx.rockoon_msg(&mig_wait(&migrating));
            set_lock_message(ctx.mosk, NWL, &lock, Some(&msg));
            next = ctx.after_d(AFTER_WAIT);
        }
        self.nodes[i].handler = Handler::Migrating { next, run };
    }

    /// An exception that is not a TemporaryError (KeyError, ValueError):
    /// nothing is written, kopf retries the handler.
    fn handler_failed(&mut self, ctx: &mut Ctx, i: usize, e: &str) {
        tracing::warn!(target: "sim", node = %ctx.machines[i].node, error = e, "openstack: NMR handler failed; kopf retries");
        ctx.note(format!(
            "openstack: handler failed ({e}): {}",
            ctx.machines[i].node
        ));
        self.nodes[i].handler = Handler::Run {
            at: ctx.after(ctx.spec.retry_interval),
        };
    }

    /// `_check_migration_completed`: every server on the host that is
    /// running (vm_state not safe for reboot, power state not stopped) and,
    /// from 25.1, whose action is not `poweroff` — a server still MIGRATING
    /// included — keeps the lock; TemporaryError, kopf retries.
    fn completion_check(&mut self, ctx: &mut Ctx, i: usize, mode: &str) {
        let node = ctx.machines[i].node.clone();
        let format = ctx.spec.message_format;
        let mut left: Vec<(String, &'static str, Option<MaintenanceAction>, bool)> = Vec::new();
        let mut failed = None;
        for s in ctx.nova.on_host(&node).filter(|s| !s.not_running()) {
            let action = match format {
                MessageFormat::New => match s.maintenance_action(mode) {
                    Ok(MaintenanceAction::Poweroff) => continue,
                    Ok(a) => Some(a),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                },
                MessageFormat::Old => None,
            };
            let tagged_notify = s.tags.contains(&format!("{MAINTENANCE_ACTION_TAG}=notify"));
            left.push((s.id.clone(), s.status, action, tagged_notify));
        }
        if let Some(e) = failed {
            return self.handler_failed(ctx, i, &e);
        }
        if left.is_empty() {
            self.release(ctx, i);
            return;
        }
        let text = match format {
            MessageFormat::New => {
                let notify: Vec<String> = left
                    .iter()
                    .filter(|l| l.2 == Some(MaintenanceAction::Notify))
                    .map(|l| l.0.clone())
                    .collect();
                let other: Vec<String> = left
                    .iter()
                    .filter(|l| l.2 != Some(MaintenanceAction::Notify))
                    .map(|l| l.0.clone())
                    .collect();
                // Owners of servers they tagged `notify` react to the
                // notification by shutting them off (inferred; untagged
                // servers on a `manual` node wait for the operator).
                let at = ctx.after(ctx.spec.durations.owner_reaction);
                for l in left.iter().filter(|l| l.3) {
                    ctx.nova.owner_stops(&l.0, at);
                }
                left_new(&notify, &other)
            }
            MessageFormat::Old => {
                let pairs: Vec<(String, String)> = left
                    .iter()
                    .map(|l| (l.0.clone(), l.1.to_string()))
                    .collect();
                left_old(&pairs, &node)
            }
        };
        let msg = ctx.rockoon_msg(&text);
        set_lock_message(
            ctx.mosk,
            NWL,
            &nwl_name(Controller::Openstack, &node),
            Some(&msg),
        );
        self.nodes[i].handler = Handler::Run {
            at: ctx.after(ctx.spec.retry_interval),
        };
    }

    /// The end of the change handler: lock inactive, message unset.
    fn release(&mut self, ctx: &mut Ctx, i: usize) {
        let node = ctx.machines[i].node.clone();
        set_lock(
            ctx.mosk,
            NWL,
            &nwl_name(Controller::Openstack, &node),
            "inactive",
            None,
        );
        ctx.note(format!("openstack: node lock inactive: {node}"));
        self.nodes[i].handler = Handler::Released;
    }
}

/// `nwl.is_maintenance()`: the lock's inner_state annotation, as stored.
fn inner_state_active(ctx: &Ctx, i: usize) -> bool {
    let m = &ctx.machines[i];
    m.has_lock(Controller::Openstack)
        && ctx
            .mosk
            .get(NWL, None, &nwl_name(Controller::Openstack, &m.node))
            .and_then(|o| {
                o.pointer(&format!("/metadata/annotations/{ANN_INNER_STATE}"))
                    .and_then(Value::as_str)
                    .map(|v| v == "active")
            })
            .unwrap_or(false)
}

/// The Node's Ready condition is True.
fn node_ready(ctx: &Ctx, node: &str) -> bool {
    ctx.mosk
        .get("nodes", None, node)
        .and_then(|o| {
            o.pointer("/status/conditions")
                .and_then(Value::as_array)
                .map(|cs| {
                    cs.iter()
                        .any(|c| c["type"] == "Ready" && c["status"] == "True")
                })
        })
        .unwrap_or(false)
}

/// `NodeMaintenanceConfig`: the mode as written (any string; `str()`), the
/// attempts through Python's `int()`. `None` when `int()` raises.
fn read_node_config(ctx: &mut Ctx, node: &str) -> Option<(String, i64)> {
    let obj = ctx.mosk.get("nodes", None, node)?;
    let ann = |k: &str| {
        obj.pointer(&format!("/metadata/annotations/{}", k.replace('/', "~1")))
            .and_then(Value::as_str)
    };
    let mode = ann(ANN_MIGRATION_MODE).unwrap_or(DEFAULT_MODE).to_string();
    let attempts = match ann(ANN_MIGRATION_ATTEMPTS) {
        None => DEFAULT_ATTEMPTS,
        Some(v) => match python_int(v) {
            Some(n) => n,
            None => {
                let e = format!("ValueError: invalid literal for int() with base 10: '{v}'");
                tracing::warn!(target: "sim", node, error = %e, "openstack: NMR handler failed; kopf retries");
                ctx.note(format!("openstack: handler failed ({e}): {node}"));
                return None;
            }
        },
    };
    Some((mode, attempts))
}

/// Python's `int(str)`: surrounding whitespace, a sign, digits and single underscores between digits.
fn python_int(v: &str) -> Option<i64> {
    let t = v.trim();
    let (sign, digits) = match t.strip_prefix('-') {
        Some(d) => (-1, d),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    digits
        .replace('_', "")
        .parse::<i64>()
        .ok()
        .map(|n| sign * n)
}

#[cfg(test)]
mod tests {
    use super::python_int;

    #[test]
    fn attempts_parse_like_python_int() {
        assert_eq!(python_int(" 3 "), Some(3));
        assert_eq!(python_int("+2"), Some(2));
        assert_eq!(python_int("1_0"), Some(10));
        assert_eq!(python_int("three"), None);
        assert_eq!(python_int("3.0"), None);
        assert_eq!(python_int(""), None);
    }
}
