//! The vRouter DaemonSet controller (Kubernetes' DaemonSet controller with
//! `updateStrategy: OnDelete`) and the TF operator's part in it.
//!
//! In finalization the TF update gives the DaemonSet a new template. With
//! `vrouter_manual_restart` (before MOSK 22.4) old pods stay until someone
//! deletes them; otherwise the TF operator deletes them one node at a time,
//! waiting for each replacement to be Ready. A deleted pod is replaced on
//! the same node once it is gone: Pending, then Running and Ready after
//! `vrouter_pod_start` (or never Ready when the scenario says so).
//!
//! Three numbers, as Kubernetes keeps them apart:
//! - `metadata.generation` moves on any spec change (the store bumps it);
//! - the template generation (annotation
//!   `deprecated.daemonset.template.generation`, the pods'
//!   `pod-template-generation` label) moves only when the template changes:
//!   kubernetes/kubernetes `pkg/registry/apps/daemonset/strategy.go`,
//!   `daemonSetStrategy.PrepareForUpdate` (read at 152b09ac550d);
//! - the `controller-revision-hash` label names the ControllerRevision of
//!   the template a pod was made from, one per template.
//!
//! The status is recomputed from the pods every step, as
//! `updateDaemonSetStatus` in `pkg/controller/daemon/daemon_controller.go`
//! (read at d826f92a2f90) does: a pod counts as updated by `IsPodUpdated`
//! (`pkg/controller/daemon/util/daemonset_util.go`, read at 05c351a9037b):
//! its hash is the newest revision's, or its template generation label is
//! the DaemonSet's; `observedGeneration` is the generation acted on.
//! `vrouter_spec_edit_after` edits the spec outside the template.

use std::collections::{BTreeMap, VecDeque};

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use super::engine::{Ctx, check};
use super::objects::{self, PodPhase, TF_NS, VROUTER_DS};
use super::topology::k8s_suffix;

/// The DaemonSet annotation holding its template generation.
const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// How often a never-Ready vRouter container restarts (CrashLoopBackOff).
const CRASH_EVERY: SignedDuration = SignedDuration::from_secs(30);

#[derive(Debug, Clone)]
struct Pod {
    name: String,
    /// The template generation it was made from (its `pod-template-generation`).
    template_generation: i64,
    created: Timestamp,
    /// When the containers become Ready (`None`: never).
    ready_at: Option<Timestamp>,
    terminating: bool,
    /// Restarts from node reboots.
    reboots: u32,
    was_rebooting: bool,
    /// What was last written to the store: (phase, restarts).
    written: Option<(PodPhase, u32)>,
}

/// The DaemonSet controller for `tf/tf-vrouter-agent`.
#[derive(Debug)]
pub struct Vrouter {
    ds_uid: String,
    /// The DaemonSet's `metadata.generation` (any spec change).
    generation: i64,
    /// The template generation (template changes only): the annotation and
    /// the label of the pods made from it.
    template_generation: i64,
    /// `controller-revision-hash` per template generation (index = template
    /// generation - 1).
    revisions: Vec<String>,
    /// When the spec edit outside the template is due, until it is made.
    spec_edit_at: Option<Timestamp>,
    /// Per machine index with a vRouter: its current pod.
    pods: BTreeMap<usize, Pod>,
    updated: bool,
    /// Automated restart (22.4+): nodes left, and the one in progress.
    auto_queue: VecDeque<usize>,
    auto_current: Option<usize>,
    status_written: Option<Value>,
}

impl Vrouter {
    /// Creates the DaemonSet and one Running, Ready pod per vRouter node.
    pub fn seed(ctx: &mut Ctx) -> Vrouter {
        let ds = check(
            ctx.mosk
                .create("daemonsets", objects::vrouter_daemonset(1, ctx.now)),
            "create vRouter DaemonSet",
        );
        let ds_uid = ds
            .as_ref()
            .and_then(|d| d.pointer("/metadata/uid").and_then(Value::as_str))
            .unwrap_or_default()
            .to_string();
        let mut v = Vrouter {
            ds_uid,
            generation: 1,
            template_generation: 1,
            revisions: vec![k8s_suffix(ctx.rng, 10)],
            spec_edit_at: ctx.spec.vrouter_spec_edit_after.map(|d| ctx.after(d)),
            pods: BTreeMap::new(),
            updated: false,
            auto_queue: VecDeque::new(),
            auto_current: None,
            status_written: None,
        };
        let start = ctx
            .now
            .saturating_sub(SignedDuration::from_hours(24 * 30))
            .unwrap_or(ctx.now);
        for i in 0..ctx.machines.len() {
            if ctx.machines[i].has_vrouter() {
                v.create_pod(ctx, i, Some(start));
            }
        }
        v.step(ctx, false);
        v
    }

    fn revision(&self, template_generation: i64) -> &str {
        &self.revisions[(template_generation - 1) as usize]
    }

    /// A new pod for machine `i` from the current template. `running_since`
    /// makes it Running and Ready from the start (initial pods).
    fn create_pod(&mut self, ctx: &mut Ctx, i: usize, running_since: Option<Timestamp>) {
        let m = &ctx.machines[i];
        let name = format!("{VROUTER_DS}-{}", k8s_suffix(ctx.rng, 5));
        let revision = self.revision(self.template_generation).to_string();
        let obj = objects::vrouter_pod(
            &name,
            &m.node,
            &m.ip,
            &revision,
            self.template_generation,
            &self.ds_uid,
            ctx.now,
        );
        check(ctx.mosk.create("pods", obj), "create vRouter pod");
        let ready_at = match running_since {
            Some(t) => Some(t),
            None if m.vrouter_never_ready => None,
            None => Some(ctx.after(ctx.spec.durations.vrouter_pod_start)),
        };
        self.pods.insert(
            i,
            Pod {
                name,
                template_generation: self.template_generation,
                created: running_since.unwrap_or(ctx.now),
                ready_at,
                terminating: false,
                reboots: 0,
                was_rebooting: false,
                written: None,
            },
        );
    }

    /// `pods_changed`: something other than this simulator may have changed pods since the last step.
    pub fn step(&mut self, ctx: &mut Ctx, pods_changed: bool) {
        if ctx.facts.tf_update_requested && !self.updated {
            self.roll_template(ctx);
        }
        if self.spec_edit_at.is_some_and(|t| ctx.now >= t) {
            self.spec_edit_at = None;
            self.edit_spec(ctx);
        }
        if pods_changed {
            self.observe_pods(ctx);
        }
        self.auto_restart(ctx);
        if self.updated && self.auto_queue.is_empty() && self.auto_current.is_none() {
            ctx.facts.tf_rollout_done = true;
        }
        for i in 0..ctx.machines.len() {
            if ctx.machines[i].has_vrouter() {
                self.pod_status(ctx, i);
            }
        }
        self.ds_status(ctx);
    }

    /// The TF update: a new template, hence a new generation, template
    /// generation and revision. The API server moves both generations in
    /// the same write (`PrepareForUpdate`).
    fn roll_template(&mut self, ctx: &mut Ctx) {
        self.updated = true;
        let template_generation = self.template_generation + 1;
        let image = objects::vrouter_image(template_generation);
        let t = template_generation.to_string();
        let new = check(
            ctx.mosk.update("daemonsets", Some(TF_NS), VROUTER_DS, |o| {
                o["spec"]["template"]["spec"]["containers"][0]["image"] = image.clone().into();
                o["metadata"]["annotations"][TEMPLATE_GENERATION] = t.into();
            }),
            "update vRouter DaemonSet",
        );
        self.observe_generation(new.as_ref());
        self.template_generation = template_generation;
        while (self.revisions.len() as i64) < template_generation {
            self.revisions.push(k8s_suffix(ctx.rng, 10));
        }
        ctx.note(format!(
            "tf: vRouter DaemonSet at generation {}, template generation {template_generation}",
            self.generation
        ));
        if !ctx.spec.vrouter_manual_restart {
            self.auto_queue = self.pods.keys().copied().collect();
        }
    }

    /// A spec edit outside the template (`revisionHistoryLimit` + 1): only
    /// `metadata.generation` moves; no pod is outdated by it.
    fn edit_spec(&mut self, ctx: &mut Ctx) {
        let new = check(
            ctx.mosk.update("daemonsets", Some(TF_NS), VROUTER_DS, |o| {
                let limit = o["spec"]["revisionHistoryLimit"].as_i64().unwrap_or(10);
                o["spec"]["revisionHistoryLimit"] = (limit + 1).into();
            }),
            "edit vRouter DaemonSet spec",
        );
        self.observe_generation(new.as_ref());
        ctx.note(format!(
            "tf: vRouter DaemonSet spec edited outside its template: generation {}, template generation {}",
            self.generation, self.template_generation
        ));
    }

    /// The DaemonSet's `metadata.generation` as the store wrote it.
    fn observe_generation(&mut self, ds: Option<&Value>) {
        if let Some(g) = ds.and_then(|d| d.pointer("/metadata/generation").and_then(Value::as_i64))
        {
            self.generation = g;
        }
    }

    /// Notices deleted and vanished pods; replaces vanished ones on the same node.
    fn observe_pods(&mut self, ctx: &mut Ctx) {
        let stored: BTreeMap<String, bool> = ctx
            .mosk
            .list("pods", Some(TF_NS))
            .iter()
            .map(|p| {
                let name = p["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                (name, p.pointer("/metadata/deletionTimestamp").is_some())
            })
            .collect();
        let mut gone = Vec::new();
        for (&i, pod) in self.pods.iter_mut() {
            match stored.get(&pod.name) {
                None => gone.push(i),
                Some(true) if !pod.terminating => {
                    pod.terminating = true;
                    ctx.note(format!("tf: vRouter pod {} terminating", pod.name));
                }
                _ => {}
            }
        }
        for i in gone {
            self.pods.remove(&i);
            self.create_pod(ctx, i, None);
            ctx.note(format!(
                "tf: vRouter pod replaced on {}",
                ctx.machines[i].node
            ));
        }
    }

    fn auto_restart(&mut self, ctx: &mut Ctx) {
        if let Some(i) = self.auto_current {
            let done = self.pods.get(&i).is_some_and(|p| {
                p.template_generation == self.template_generation
                    && !p.terminating
                    && p.written == Some((PodPhase::Running { ready: true }, p.reboots))
            });
            if !done {
                return;
            }
            self.auto_current = None;
        }
        while let Some(i) = self.auto_queue.pop_front() {
            let Some(pod) = self.pods.get(&i) else {
                continue;
            };
            if pod.template_generation == self.template_generation || pod.terminating {
                continue;
            }
            check(
                ctx.mosk
                    .delete("pods", Some(TF_NS), &pod.name, &Value::Null, false),
                "delete old vRouter pod",
            );
            self.auto_current = Some(i);
            // Like the DaemonSet controller, see the deletion before the
            // status is recomputed below, so the counts match the pods.
            self.observe_pods(ctx);
            break;
        }
    }

    fn pod_status(&mut self, ctx: &mut Ctx, i: usize) {
        let now = ctx.now;
        let rebooting = ctx.facts.rebooting[i];
        let Some(pod) = self.pods.get_mut(&i) else {
            ctx.facts.vrouter_ready[i] = false;
            return;
        };
        if rebooting && !pod.was_rebooting {
            pod.reboots += 1;
        }
        pod.was_rebooting = rebooting;
        let started = pod.ready_at.is_some_and(|t| now >= t);
        let crash_restarts = match pod.ready_at {
            None => {
                let since = now.duration_since(pod.created).as_secs();
                (since / CRASH_EVERY.as_secs()) as u32
            }
            Some(_) => 0,
        };
        let (phase, since) = match pod.ready_at {
            Some(t) if started => (PodPhase::Running { ready: !rebooting }, t),
            Some(_) => (PodPhase::Pending, pod.created),
            None if now.duration_since(pod.created) >= CRASH_EVERY / 3 => {
                (PodPhase::Running { ready: false }, pod.created)
            }
            None => (PodPhase::Pending, pod.created),
        };
        let restarts = pod.reboots + crash_restarts;
        ctx.facts.vrouter_ready[i] = !pod.terminating && phase == PodPhase::Running { ready: true };
        if pod.written == Some((phase, restarts)) {
            return;
        }
        pod.written = Some((phase, restarts));
        let image = objects::vrouter_image(pod.template_generation);
        let name = pod.name.clone();
        check(
            ctx.mosk.update("pods", Some(TF_NS), &name, |o| {
                objects::set_vrouter_pod_status(o, phase, restarts, since, &image)
            }),
            "update vRouter pod status",
        );
    }

    fn ds_status(&mut self, ctx: &mut Ctx) {
        let desired = ctx.machines.iter().filter(|m| m.has_vrouter()).count();
        let live: Vec<&Pod> = self.pods.values().filter(|p| !p.terminating).collect();
        let current = live.len();
        // `IsPodUpdated`: one revision per template here, so the hash and the
        // template generation agree.
        let updated = live
            .iter()
            .filter(|p| p.template_generation == self.template_generation)
            .count();
        let ready = live
            .iter()
            .filter(|p| matches!(p.written, Some((PodPhase::Running { ready: true }, _))))
            .count();
        let mut status = json!({
            "currentNumberScheduled": current,
            "desiredNumberScheduled": desired,
            "numberMisscheduled": 0,
            "numberReady": ready,
            "numberAvailable": ready,
            "updatedNumberScheduled": updated,
            "observedGeneration": self.generation,
        });
        if desired > ready {
            status["numberUnavailable"] = (desired - ready).into();
        }
        if self.status_written.as_ref() == Some(&status) {
            return;
        }
        let s = status.clone();
        check(
            ctx.mosk
                .update("daemonsets", Some(TF_NS), VROUTER_DS, |o| o["status"] = s),
            "update vRouter DaemonSet status",
        );
        self.status_written = Some(status);
    }

    /// Name and `pod-template-generation` of the pod on machine `i`, for tests.
    pub fn pod_on(&self, i: usize) -> Option<(String, i64)> {
        self.pods
            .get(&i)
            .map(|p| (p.name.clone(), p.template_generation))
    }

    /// The revision hash of the DaemonSet's current template.
    pub fn current_revision(&self) -> &str {
        self.revision(self.template_generation)
    }
}
