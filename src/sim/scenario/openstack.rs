//! The OpenStack controller (Rockoon) on maintenance requests (reference
//! §3.2–3.6, §4): its cluster lock, its node locks with the `inner_state`
//! annotation, the concurrency check, and instance migration per the node's
//! migration mode, re-read at every handler retry.
//!
//! The migration loop follows Rockoon's `_migrate_servers`: start one
//! migration when fewer than `instance_migrate_concurrency` are running
//! (E-MIG-START; an API error gives E-MIG-ERR), otherwise write E-MIG-WAIT
//! and sleep 30 s; 5 s between rounds; a server is dropped after
//! `instance_migration_attempts` starts; the attempt counters live for one
//! handler run. Then the completion check writes E-LEFT and the handler is
//! retried after `retry_interval` (kopf's default delay, 60 s, is inferred).

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use rand::Rng;
use serde_json::Value;

use super::engine::{
    CMR, CWL, Ctx, NMR, NWL, RequestState, check, set_annotation, set_lock, set_lock_message,
    set_status_str, update_lock,
};
use super::nova::MaintenanceAction;
use super::objects::{CWL_OPENSTACK, nwl_name};
use super::plan_spec::{ServerTag, Stage};
use super::spec::{Controller, MessageFormat, MigrationMode, Role};
use super::text::{
    ANN_INNER_STATE, ANN_MIGRATION_ATTEMPTS, ANN_MIGRATION_MODE, E_HEALTH, ROCKOON_FINALIZER,
    concurrency, left_new, left_old, mig_err, mig_start, mig_wait,
};

/// Rockoon's sleeps in the migration loop (from its code).
const AFTER_START: SignedDuration = SignedDuration::from_secs(10);
const AFTER_ERROR: SignedDuration = SignedDuration::from_secs(5);
const AFTER_WAIT: SignedDuration = SignedDuration::from_secs(35);
/// Default of `instance_migration_attempts`.
const DEFAULT_ATTEMPTS: u32 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClusterLock {
    Active,
    Checking { until: Timestamp },
    Inactive,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Handler {
    /// No maintenance request being handled.
    Idle,
    /// The NMR handler runs (again) at this time.
    Run { at: Timestamp },
    /// Inside the migration loop.
    Migrating {
        next: Timestamp,
        mode: MigrationMode,
        limit: u32,
        counts: BTreeMap<String, u32>,
    },
    /// A node without instances to move: released after a short preparation.
    Preparing { until: Timestamp },
    /// Lock inactive: LCM may drain and reboot.
    Released,
    /// The NMR was deleted; taking the lock back.
    Reacquiring { until: Timestamp },
}

#[derive(Debug, Clone)]
struct NodeState {
    handler: Handler,
    inner_active: bool,
}

/// The OpenStack controller.
#[derive(Debug)]
pub struct Openstack {
    cwl: ClusterLock,
    nodes: Vec<NodeState>,
    finalized: Vec<bool>,
}

impl Openstack {
    pub fn new(machines: usize) -> Openstack {
        Openstack {
            cwl: ClusterLock::Active,
            nodes: vec![
                NodeState {
                    handler: Handler::Idle,
                    inner_active: false
                };
                machines
            ],
            finalized: vec![false; machines],
        }
    }

    pub fn step(&mut self, ctx: &mut Ctx) {
        self.cluster_lock(ctx);
        for i in 0..ctx.machines.len() {
            self.request_finalizer(ctx, i);
            if ctx.machines[i].has_lock(Controller::Openstack) {
                self.node(ctx, i);
            } else if ctx.facts.nmr[i] == RequestState::Deleting {
                // No OpenStack role: nothing to do but let the request go.
                self.release_request(ctx, i);
            }
        }
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
                let msg = ctx.rockoon_msg(E_HEALTH);
                set_lock_message(ctx.mosk, CWL, CWL_OPENSTACK, Some(&msg));
                ctx.note("openstack: updating, waiting for services to be healthy");
                self.cwl = ClusterLock::Checking {
                    until: ctx.after(ctx.spec.durations.openstack_update),
                };
            }
            (ClusterLock::Checking { until }, RequestState::Present) if ctx.now >= until => {
                // The updated controller resets its locks to its new release (reference §3.2).
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
                    set_status_str(o, "state", Some("inactive"));
                    set_status_str(o, "errorMessage", None);
                });
                ctx.note("openstack: cluster lock inactive");
                ctx.facts.end(Stage::Openstack, ctx.now);
                self.cwl = ClusterLock::Inactive;
            }
            (
                ClusterLock::Checking { .. } | ClusterLock::Inactive,
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

    fn node(&mut self, ctx: &mut Ctx, i: usize) {
        let present = ctx.facts.nmr[i] == RequestState::Present;
        let handler = self.nodes[i].handler.clone();
        match handler {
            Handler::Idle if present => self.nodes[i].handler = Handler::Run { at: ctx.now },
            Handler::Run { .. }
            | Handler::Migrating { .. }
            | Handler::Preparing { .. }
            | Handler::Released
                if !present =>
            {
                self.nodes[i].handler = Handler::Reacquiring {
                    until: ctx.after(ctx.spec.durations.reacquire),
                };
            }
            Handler::Run { at } if ctx.now >= at => self.run(ctx, i),
            Handler::Migrating {
                next,
                mode,
                limit,
                counts,
            } if ctx.now >= next => self.migrate_round(ctx, i, mode, limit, counts),
            Handler::Preparing { until } if ctx.now >= until => self.release(ctx, i),
            Handler::Reacquiring { until } if ctx.now >= until && !ctx.facts.rebooting[i] => {
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
                self.nodes[i] = NodeState {
                    handler: Handler::Idle,
                    inner_active: false,
                };
                ctx.note(format!("openstack: node lock active again: {}", m.node));
                self.release_request(ctx, i);
            }
            _ => {}
        }
    }

    /// One run of the NMR create/resume handler (reference §3.4).
    fn run(&mut self, ctx: &mut Ctx, i: usize) {
        let m = ctx.machines[i].clone();
        let lock = nwl_name(Controller::Openstack, &m.node);
        let retry = ctx.after(ctx.spec.retry_interval);
        if !self.nodes[i].inner_active {
            if self.concurrency_exceeded(ctx, i) {
                let msg = ctx.rockoon_msg(&concurrency(&m.node));
                set_lock_message(ctx.mosk, NWL, &lock, Some(&msg));
                self.nodes[i].handler = Handler::Run { at: retry };
                return;
            }
            self.nodes[i].inner_active = true;
            update_lock(ctx.mosk, NWL, &lock, |o| {
                set_annotation(o, ANN_INNER_STATE, Some("active"))
            });
        }
        if !m.is_compute() {
            self.nodes[i].handler = Handler::Preparing {
                until: ctx.after(ctx.spec.durations.node_prepare),
            };
            return;
        }
        // nova-compute is disabled with reason "OSDPL: Node is under maintenance".
        ctx.nova.set_enabled(&m.node, false);
        if !ctx.spec.reboot {
            // scope drain: nothing is migrated.
            self.nodes[i].handler = Handler::Preparing {
                until: ctx.after(ctx.spec.durations.node_prepare),
            };
            return;
        }
        // The Node is read again on every run: annotation changes apply at the next retry.
        let Some((mode, limit)) = read_node_config(ctx, &m.node) else {
            // An unreadable annotation makes the handler fail; kopf retries it.
            self.nodes[i].handler = Handler::Run { at: retry };
            return;
        };
        if ctx.spec.message_format == MessageFormat::Old && mode == MigrationMode::Skip {
            // Before 25.1, `skip` returned at once without looking at instances.
            self.release(ctx, i);
            return;
        }
        self.migrate_round(ctx, i, mode, limit, BTreeMap::new());
    }

    /// Rockoon's concurrency check: NWLs with inner_state active, per role (reference §3.4).
    fn concurrency_exceeded(&self, ctx: &Ctx, i: usize) -> bool {
        let count = |role: Role| {
            self.nodes
                .iter()
                .enumerate()
                .filter(|(j, n)| *j != i && n.inner_active && ctx.machines[*j].role == role)
                .count()
        };
        // `nwl_parallel_max_gateway` defaults to 1 (reference §4.5).
        count(Role::Control) >= 1
            || count(Role::Gateway) >= 1
            || count(Role::Compute) >= ctx.spec.openstack.nwl_parallel_max_compute as usize
    }

    fn migrate_round(
        &mut self,
        ctx: &mut Ctx,
        i: usize,
        mode: MigrationMode,
        limit: u32,
        mut counts: BTreeMap<String, u32>,
    ) {
        let node = ctx.machines[i].node.clone();
        let lock = nwl_name(Controller::Openstack, &node);
        let candidates: Vec<String> = ctx
            .nova
            .valid_for_live_migration(&node, mode)
            .into_iter()
            .filter(|id| counts.get(id).is_none_or(|c| *c <= limit))
            .collect();
        if candidates.is_empty() {
            self.completion_check(ctx, i, mode);
            return;
        }
        let migrating = ctx.nova.migrating_on(&node);
        let next;
        if migrating.len() < ctx.spec.openstack.instance_migrate_concurrency as usize {
            let id = candidates[ctx.rng.random_range(0..candidates.len())].clone();
            let msg = ctx.rockoon_msg(&mig_start(&id));
            set_lock_message(ctx.mosk, NWL, &lock, Some(&msg));
            // Rockoon's counter starts at 1 and is bumped before each start.
            let c = counts.get(&id).copied().unwrap_or(1) + 1;
            counts.insert(id.clone(), c);
            let takes = ctx.spec.durations.live_migration.get();
            match ctx.nova.live_migrate(&id, ctx.now, takes, ctx.rng) {
                Ok(()) => next = ctx.after_d(AFTER_START),
                Err(e) => {
                    let msg = ctx.rockoon_msg(&mig_err(&id, &e));
                    set_lock_message(ctx.mosk, NWL, &lock, Some(&msg));
                    next = ctx.after_d(AFTER_ERROR);
                }
            }
        } else {
            let msg = ctx.rockoon_msg(&mig_wait(&migrating));
            set_lock_message(ctx.mosk, NWL, &lock, Some(&msg));
            next = ctx.after_d(AFTER_WAIT);
        }
        self.nodes[i].handler = Handler::Migrating {
            next,
            mode,
            limit,
            counts,
        };
    }

    /// Servers still on the host block the release (reference §4.3 step 2).
    fn completion_check(&mut self, ctx: &mut Ctx, i: usize, mode: MigrationMode) {
        let node = ctx.machines[i].node.clone();
        // Servers left on the host, minus those shut off and those whose
        // action is `poweroff` (the tag wins over the node's mode).
        let left: Vec<(String, String, MaintenanceAction, bool)> = ctx
            .nova
            .on_host(&node)
            .filter(|s| !s.stopped && s.action(mode) != MaintenanceAction::Poweroff)
            .map(|s| {
                let tagged_notify = s.tag == Some(ServerTag::Notify);
                (
                    s.id.clone(),
                    s.status().to_string(),
                    s.action(mode),
                    tagged_notify,
                )
            })
            .collect();
        if left.is_empty() {
            self.release(ctx, i);
            return;
        }
        let text = match ctx.spec.message_format {
            MessageFormat::New => {
                let notify: Vec<String> = left
                    .iter()
                    .filter(|l| l.2 == MaintenanceAction::Notify)
                    .map(|l| l.0.clone())
                    .collect();
                let other: Vec<String> = left
                    .iter()
                    .filter(|l| l.2 != MaintenanceAction::Notify)
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
                let pairs: Vec<(String, String)> =
                    left.iter().map(|l| (l.0.clone(), l.1.clone())).collect();
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

/// The node's migration mode and attempts, read from the Node now.
/// `None` when an annotation cannot be used (the handler then fails and retries).
fn read_node_config(ctx: &Ctx, node: &str) -> Option<(MigrationMode, u32)> {
    let obj = ctx.mosk.get("nodes", None, node)?;
    let ann = |k: &str| {
        obj.pointer(&format!("/metadata/annotations/{}", k.replace('/', "~1")))
            .and_then(Value::as_str)
    };
    let mode = match ann(ANN_MIGRATION_MODE) {
        None => MigrationMode::Live,
        Some("live") => MigrationMode::Live,
        Some("manual") => MigrationMode::Manual,
        Some("skip") => MigrationMode::Skip,
        Some(other) => {
            tracing::warn!(target: "sim", node, value = other, "unknown instance_migration_mode; the handler retries");
            return None;
        }
    };
    let limit = match ann(ANN_MIGRATION_ATTEMPTS) {
        None => DEFAULT_ATTEMPTS,
        Some(v) => match v.trim().parse::<u32>() {
            Ok(n) => n,
            Err(_) => {
                tracing::warn!(target: "sim", node, value = v, "instance_migration_attempts is not an integer; the handler retries");
                return None;
            }
        },
    };
    Some((mode, limit))
}
