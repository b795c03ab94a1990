//! The scenario engine: shared facts, the step context handed to each
//! simulated controller, and small store helpers.
//!
//! Each controller (LCM, OpenStack, Ceph, TF, the vRouter DaemonSet) keeps
//! its own timers and writes the objects it owns to the stores, as the real
//! controllers would. What the operator can change (node annotations, pods,
//! lock objects) is read back from the stores.

use jiff::{SignedDuration, Timestamp};
use rand::Rng;
use rand::rngs::SmallRng;
use serde_json::Value;

use super::lcmlog::{LcmLog, Level};
use super::nova::Nova;
use super::objects::KAAS_NS;
use super::plan_spec::Stage;
use super::spec::{Dur, ScenarioSpec};
use super::text::rockoon_message;
use super::topology::MachineInfo;
use crate::sim::store::{Store, StoreResult};

/// The phase of the whole update (the five phases of the update flow, plus before and after).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UpdatePhase {
    /// The update has not been triggered yet.
    NotStarted,
    /// Phases 1–2: ClusterMaintenanceRequest created; OpenStack, then Ceph update; cluster locks go inactive.
    ClusterLocks,
    /// Phase 3: Kubernetes masters, one at a time.
    Masters,
    /// Phase 4: workers, `worker_concurrency` at a time.
    Workers,
    /// Phase 5: StackLight, TF and other applications; then the ClusterMaintenanceRequest is removed.
    Finalization,
    /// The update is complete.
    Done,
}

impl UpdatePhase {
    pub fn as_str(self) -> &'static str {
        match self {
            UpdatePhase::NotStarted => "not started",
            UpdatePhase::ClusterLocks => "cluster locks",
            UpdatePhase::Masters => "masters",
            UpdatePhase::Workers => "workers",
            UpdatePhase::Finalization => "finalization",
            UpdatePhase::Done => "done",
        }
    }
}

/// Whether a maintenance request exists and whether it is being deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RequestState {
    #[default]
    Absent,
    Present,
    /// Deleted by LCM; Terminating until the OpenStack controller removes its finalizer.
    Deleting,
}

/// Servers that were still on a node when it rebooted (the operator chose `skip`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HardReboot {
    pub node: String,
    pub machine: String,
    pub servers: Vec<String>,
    pub at: Timestamp,
}

/// What the simulated controllers know about each other, as the real ones
/// would learn it from watching objects.
#[derive(Debug, Clone)]
pub struct Facts {
    pub phase: UpdatePhase,
    pub cmr: RequestState,
    /// Per machine (by index): its NodeMaintenanceRequest.
    pub nmr: Vec<RequestState>,
    /// Per machine: the node is rebooting (NotReady).
    pub rebooting: Vec<bool>,
    /// Per machine: the vRouter pod on the node exists and is Ready (false without a vRouter).
    pub vrouter_ready: Vec<bool>,
    /// LCM asked for the TF update (finalization).
    pub tf_update_requested: bool,
    /// The TF update is rolled out (the automated vRouter restart, when there is one, finished).
    pub tf_rollout_done: bool,
    pub hard_reboots: Vec<HardReboot>,
    /// Notable events in order, for tests and debugging.
    pub timeline: Vec<(Timestamp, String)>,
    /// Per stage (by `Stage as usize`): may it start, or start new machines?
    /// Always open without a ClusterUpdatePlan; the plan controller closes
    /// the gates of steps not commenced and of everything while an alert fires.
    pub gates: [bool; 5],
    /// Per stage: when it started and when it finished.
    pub stages: [(Option<Timestamp>, Option<Timestamp>); 5],
}

impl Facts {
    pub fn new(machines: usize) -> Facts {
        Facts {
            phase: UpdatePhase::NotStarted,
            cmr: RequestState::Absent,
            nmr: vec![RequestState::Absent; machines],
            rebooting: vec![false; machines],
            vrouter_ready: vec![false; machines],
            tf_update_requested: false,
            tf_rollout_done: false,
            hard_reboots: Vec::new(),
            timeline: Vec::new(),
            gates: [true; 5],
            stages: [(None, None); 5],
        }
    }

    /// Whether `stage` may start (or start new machines).
    pub fn gate(&self, stage: Stage) -> bool {
        self.gates[stage as usize]
    }

    /// Records that `stage` started (the first time only).
    pub fn begin(&mut self, stage: Stage, now: Timestamp) {
        let s = &mut self.stages[stage as usize];
        if s.0.is_none() {
            s.0 = Some(now);
        }
    }

    /// Records that `stage` finished (the first time only).
    pub fn end(&mut self, stage: Stage, now: Timestamp) {
        self.begin(stage, now);
        let s = &mut self.stages[stage as usize];
        if s.1.is_none() {
            s.1 = Some(now);
        }
    }
}

/// Everything a controller needs during one step.
pub struct Ctx<'a> {
    pub now: Timestamp,
    pub spec: &'a ScenarioSpec,
    pub machines: &'a [MachineInfo],
    pub mgmt: &'a Store,
    pub mosk: &'a Store,
    pub rng: &'a mut SmallRng,
    pub facts: &'a mut Facts,
    pub nova: &'a mut Nova,
    pub log: &'a mut LcmLog,
    pub lcm_pod: &'a str,
}

impl Ctx<'_> {
    /// `now + d`.
    pub fn after(&self, d: Dur) -> Timestamp {
        self.after_d(d.get())
    }

    pub fn after_d(&self, d: SignedDuration) -> Timestamp {
        self.now.saturating_add(d).unwrap_or(self.now)
    }

    /// Writes one lcm-controller line.
    pub fn lcm(&mut self, level: Level, msg: &str, fields: &[(&str, &str)]) {
        let line = self.log.line(self.now, level, msg, fields);
        self.mgmt
            .append_log(KAAS_NS, self.lcm_pod, "controller", &line);
    }

    /// Records a notable event.
    pub fn note(&mut self, text: impl Into<String>) {
        let text = text.into();
        tracing::debug!(target: "sim", "{text}");
        self.facts.timeline.push((self.now, text));
    }

    /// A Rockoon errorMessage stamped a few microseconds into the current
    /// second (real messages rarely land on a whole second).
    pub fn rockoon_msg(&mut self, text: &str) -> String {
        let micros = self.rng.random_range(1..1_000_000);
        let ts = self
            .now
            .saturating_add(SignedDuration::from_micros(micros))
            .unwrap_or(self.now);
        rockoon_message(ts, text)
    }
}

/// Logs a failed store call; the simulation goes on.
pub fn check<T>(r: StoreResult<T>, what: &str) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::warn!(target: "sim", "{what}: {e:?}");
            None
        }
    }
}

/// Sets or removes (`None`) a string field under `status`.
pub fn set_status_str(obj: &mut Value, field: &str, v: Option<&str>) {
    if !obj["status"].is_object() {
        obj["status"] = Value::Object(Default::default());
    }
    let st = obj["status"].as_object_mut().expect("status object");
    match v {
        Some(v) => {
            st.insert(field.to_string(), Value::String(v.to_string()));
        }
        None => {
            st.remove(field);
        }
    }
}

/// Sets or removes an annotation.
pub fn set_annotation(obj: &mut Value, key: &str, v: Option<&str>) {
    if !obj["metadata"]["annotations"].is_object() {
        obj["metadata"]["annotations"] = Value::Object(Default::default());
    }
    let ann = obj["metadata"]["annotations"]
        .as_object_mut()
        .expect("annotations object");
    match v {
        Some(v) => {
            ann.insert(key.to_string(), Value::String(v.to_string()));
        }
        None => {
            ann.remove(key);
        }
    }
}

/// A lock's (`clusterworkloadlocks` / `nodeworkloadlocks`) status change.
pub fn update_lock(store: &Store, plural: &str, name: &str, f: impl FnOnce(&mut Value)) {
    check(
        store.update(plural, None, name, f),
        &format!("update {plural}/{name}"),
    );
}

/// Sets a lock's state and errorMessage (`None` removes the message).
pub fn set_lock(store: &Store, plural: &str, name: &str, state: &str, message: Option<&str>) {
    update_lock(store, plural, name, |o| {
        set_status_str(o, "state", Some(state));
        set_status_str(o, "errorMessage", message);
    });
}

/// Sets a lock's errorMessage only.
pub fn set_lock_message(store: &Store, plural: &str, name: &str, message: Option<&str>) {
    update_lock(store, plural, name, |o| {
        set_status_str(o, "errorMessage", message)
    });
}

/// A lock's `status.state` as stored (`None` when the lock is missing).
pub fn lock_state(store: &Store, plural: &str, name: &str) -> Option<String> {
    store.get(plural, None, name).and_then(|o| {
        o.pointer("/status/state")
            .and_then(Value::as_str)
            .map(str::to_string)
    })
}

pub const CWL: &str = "clusterworkloadlocks";
pub const NWL: &str = "nodeworkloadlocks";
pub const NMR: &str = "nodemaintenancerequests";
pub const CMR: &str = "clustermaintenancerequests";
