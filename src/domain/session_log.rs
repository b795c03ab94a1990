//! What happened during this console session, kept for the session report
//! (`:report`): the model knows the present and the [`History`] keeps the
//! machines' turns, but nothing else remembers when the phase and the update
//! plan's steps changed, when each attention item was raised and cleared, and
//! what the objects recorded about the workloads (servers left on a node set
//! to `skip`, vRouter pods replaced).
//!
//! Fed once per settle, after the timed part of what is derived is up to
//! date ([`SessionLog::observe`]). Every list is bounded; what a bound drops
//! is counted so the report can say so.
//!
//! [`History`]: crate::domain::history::History

use std::collections::{BTreeMap, VecDeque};

use jiff::Timestamp;

use super::attention::{AttentionItem, AttentionKind};
use super::lockmsg::MessageKind;
use super::objects::{Controller, Kind, KindsSeen, MigrationMode, Snapshot};
use super::phase::PhaseInfo;
use super::reminders::Reminder;

/// At most this many timeline entries are kept (the oldest go first).
pub const MAX_TIMELINE: usize = 2_000;
/// At most this many attention items are kept (the oldest go first).
pub const MAX_ITEMS: usize = 2_000;
/// At most this many workload-impact records of each kind are kept.
pub const MAX_IMPACT: usize = 2_000;

/// One change of the update's course.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineEntry {
    pub at: Timestamp,
    pub what: String,
}

/// Between the kinds a wait was read as, in [`LoggedItem::kind`].
pub const KIND_CHANGED: &str = " \u{2192} ";

/// How an attention item left the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndedBy {
    /// Evidence: what raised it no longer holds.
    Cleared,
    /// The operator dismissed it (a reminder, `x`).
    Dismissed,
    /// A reminder that is no longer due (the update moved on or ended):
    /// nobody dismissed it, and nothing the console can see says it was
    /// followed (no StackLight silence, no write freeze is visible to it),
    /// so it is not reported as cleared.
    NoLongerDue,
}

/// When and how an attention item left the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended {
    pub at: Timestamp,
    pub by: EndedBy,
}

/// One attention item, from when it was first raised until it left the queue.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedItem {
    /// The item's kind, as the screen labels it; when the same wait was
    /// read as other kinds later, each of them once, in order, separated
    /// by [`KIND_CHANGED`] (`migration failing → servers left`).
    pub kind: String,
    pub subject: String,
    pub node: Option<String>,
    /// The item's sentence when it was first raised.
    pub why: String,
    /// The item's `since` when first raised (the history's first sight of
    /// the condition, or its message's time).
    pub raised: Timestamp,
    /// How `raised` is known, as the item said when first raised: a lower
    /// bound (`≥`), inferred (`~`, with how), or exact.
    pub raised_known: RaisedKnown,
    /// When the console first showed it.
    pub shown: Timestamp,
    /// The reminder it is, if it is one: only dismissal ends it as such.
    pub reminder: Option<Reminder>,
    /// When and how it left the queue; `None` while it is still open.
    pub ended: Option<Ended>,
}

/// How an item's raised time is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RaisedKnown {
    Exact,
    /// The condition began before the console could see it.
    AtLeast,
    /// Inferred, not read from an object nor seen: how.
    Inferred(&'static str),
}

/// Servers a node still held when its migration mode became `skip`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkipImpact {
    pub node: String,
    /// The servers the node's OpenStack lock listed last before (or when)
    /// the mode became `skip`.
    pub servers: Vec<String>,
    /// When the console saw the mode `skip` with those servers listed.
    pub at: Timestamp,
}

/// A vRouter pod replaced by another on the same node.
#[derive(Debug, Clone, PartialEq)]
pub struct PodReplacement {
    pub node: String,
    pub old: String,
    pub new: String,
    /// The new pod's creation time, else when the console saw it.
    pub at: Timestamp,
}

/// What the console recorded over this session. See the module documentation.
#[derive(Debug, Clone, Default)]
pub struct SessionLog {
    timeline: VecDeque<TimelineEntry>,
    items: VecDeque<LoggedItem>,
    /// Open items: identity -> sequence number of its entry in `items`.
    open: BTreeMap<String, u64>,
    /// Sequence number of `items.front()`.
    first_seq: u64,
    skipped: VecDeque<SkipImpact>,
    replaced: VecDeque<PodReplacement>,
    /// Entries the bounds dropped, over every list.
    dropped: u64,
    /// The last phase seen: (number, name).
    phase: Option<(Option<u8>, &'static str)>,
    /// The last status of each update-plan step: "plan/index" -> (name, status).
    steps: BTreeMap<String, String>,
    /// The last servers each node's OpenStack lock listed as present.
    lock_servers: BTreeMap<String, Vec<String>>,
    /// The vRouter pod seen on each node: (name, uid).
    pods: BTreeMap<String, (String, String)>,
    /// The snapshot generation the object part was last read at.
    generation: Option<u64>,
    /// The kinds each part of the object part reads, as last read: a part
    /// whose kinds did not move is not read again (it walks every node,
    /// lock or pod).
    steps_read: KindsSeen,
    skip_read: KindsSeen,
    pods_read: KindsSeen,
}

fn push_bounded<T>(list: &mut VecDeque<T>, value: T, max: usize, dropped: &mut u64) -> bool {
    list.push_back(value);
    if list.len() > max {
        list.pop_front();
        *dropped += 1;
        return true;
    }
    false
}

impl SessionLog {
    pub fn new() -> SessionLog {
        SessionLog::default()
    }

    /// Records what changed since the last call: the phase, the update
    /// plan's steps, the attention queue (`attention`, as just settled), and
    /// when the snapshot changed, the objects' workload impact.
    pub fn observe(
        &mut self,
        phase: Option<&PhaseInfo>,
        attention: &[AttentionItem],
        snapshot: &Snapshot,
        now: Timestamp,
    ) {
        self.observe_phase(phase, now);
        self.observe_items(attention, now);
        if self.generation != Some(snapshot.generation()) {
            self.generation = Some(snapshot.generation());
            if self.steps_read.moved(snapshot, [Kind::ClusterUpdatePlan]) {
                self.observe_steps(snapshot, now);
            }
            if self
                .skip_read
                .moved(snapshot, [Kind::NodeWorkloadLock, Kind::Node])
            {
                self.observe_skip(snapshot, now);
            }
            if self.pods_read.moved(snapshot, [Kind::VrouterPod]) {
                self.observe_pods(snapshot, now);
            }
        }
    }

    fn note(&mut self, at: Timestamp, what: String) {
        push_bounded(
            &mut self.timeline,
            TimelineEntry { at, what },
            MAX_TIMELINE,
            &mut self.dropped,
        );
    }

    fn observe_phase(&mut self, phase: Option<&PhaseInfo>, now: Timestamp) {
        let Some(p) = phase else { return };
        let seen = (p.number(), p.name());
        if self.phase == Some(seen) {
            return;
        }
        let first = self.phase.is_none();
        self.phase = Some(seen);
        let name = match p.number() {
            Some(n) => format!("phase {n}/5 {}", p.name()),
            None => format!("phase {}", p.name()),
        };
        let what = if first {
            format!("{name} (when the console started): {}", p.reason)
        } else {
            format!("{name}: {}", p.reason)
        };
        self.note(now, what);
    }

    fn observe_items(&mut self, attention: &[AttentionItem], now: Timestamp) {
        let mut present = BTreeMap::new();
        for item in attention {
            let id = item.id();
            if !self.open.contains_key(&id) && !present.contains_key(&id) {
                let logged = LoggedItem {
                    kind: item.kind.label().to_string(),
                    subject: item.subject.clone(),
                    node: item.node.clone(),
                    why: item.why.clone(),
                    raised: item.since.min(now),
                    raised_known: match (item.since_inferred, item.at_least) {
                        (Some(how), _) => RaisedKnown::Inferred(how),
                        (None, true) => RaisedKnown::AtLeast,
                        (None, false) => RaisedKnown::Exact,
                    },
                    shown: now,
                    reminder: match item.kind {
                        AttentionKind::Reminder(r) => Some(r),
                        _ => None,
                    },
                    ended: None,
                };
                if push_bounded(&mut self.items, logged, MAX_ITEMS, &mut self.dropped) {
                    self.first_seq += 1;
                    let gone = self.first_seq - 1;
                    self.open.retain(|_, s| *s != gone);
                }
                let seq = self.first_seq + self.items.len() as u64 - 1;
                self.open.insert(id.clone(), seq);
            } else if let Some(seq) = self.open.get(&id)
                && let Some(logged) = self.items.get_mut((seq - self.first_seq) as usize)
            {
                // The same wait read another way (the item changed its kind
                // in place): the row names each reading once, in order.
                let label = item.kind.label();
                if !logged.kind.split(KIND_CHANGED).any(|k| k == label) {
                    logged.kind.push_str(KIND_CHANGED);
                    logged.kind.push_str(label);
                }
            }
            present.insert(id, ());
        }
        let cleared: Vec<String> = self
            .open
            .keys()
            .filter(|id| !present.contains_key(*id))
            .cloned()
            .collect();
        for id in cleared {
            if let Some(seq) = self.open.remove(&id)
                && let Some(item) = self.items.get_mut((seq - self.first_seq) as usize)
            {
                // A reminder leaves the queue by itself when it stops being
                // due; that is no evidence anyone followed it.
                let by = match item.reminder {
                    Some(_) => EndedBy::NoLongerDue,
                    None => EndedBy::Cleared,
                };
                item.ended = Some(Ended { at: now, by });
            }
        }
    }

    /// The operator dismissed reminder `r` at `now`: its open item ends as
    /// dismissed (the next [`SessionLog::observe`] no longer finds it open).
    pub fn dismissed(&mut self, r: Reminder, now: Timestamp) {
        let first = self.first_seq;
        let items = &mut self.items;
        self.open.retain(|_, seq| {
            let Some(item) = items.get_mut((*seq - first) as usize) else {
                return true;
            };
            if item.reminder != Some(r) {
                return true;
            }
            item.ended = Some(Ended {
                at: now,
                by: EndedBy::Dismissed,
            });
            false
        });
    }

    fn observe_steps(&mut self, snapshot: &Snapshot, now: Timestamp) {
        let mut notes = Vec::new();
        for plan in snapshot.update_plans() {
            let n = plan.steps.len();
            for step in &plan.steps {
                let status = step
                    .status
                    .as_ref()
                    .map_or("no status", |s| s.as_str())
                    .to_string();
                let key = format!("{}/{}", plan.name, step.index);
                let old = self.steps.insert(key, status.clone());
                if old.as_ref() == Some(&status) {
                    continue;
                }
                let step_name = format!(
                    "update plan {} step {}/{n} \u{201c}{}\u{201d}",
                    plan.name,
                    step.index + 1,
                    step.name
                );
                notes.push(match old {
                    Some(old) => format!("{step_name}: {old} \u{2192} {status}"),
                    None => format!("{step_name}: {status} (first seen)"),
                });
            }
        }
        for what in notes {
            self.note(now, what);
        }
    }

    /// A node set to `skip` while its OpenStack lock listed servers: those
    /// servers go down with the node's reboot. [I] The reference says
    /// instances still on a `skip` node "go down with the host" (Rockoon does
    /// not power them off itself); the lock's list is what the console knew.
    fn observe_skip(&mut self, snapshot: &Snapshot, now: Timestamp) {
        for lock in snapshot.node_locks() {
            let (Controller::Openstack, Some(node), Some(msg)) =
                (&lock.controller, &lock.node_name, &lock.error_message)
            else {
                continue;
            };
            if let MessageKind::ServersPresent(p) = &msg.parsed().kind
                && !p.servers.is_empty()
            {
                self.lock_servers.insert(node.clone(), p.servers.clone());
            }
        }
        let mut found = Vec::new();
        for node in snapshot.nodes() {
            if node.migration_mode != Some(MigrationMode::Skip)
                || self.skipped.iter().any(|s| s.node == node.name)
            {
                continue;
            }
            if let Some(servers) = self.lock_servers.get(&node.name) {
                found.push(SkipImpact {
                    node: node.name.clone(),
                    servers: servers.clone(),
                    at: now,
                });
            }
        }
        for s in found {
            push_bounded(&mut self.skipped, s, MAX_IMPACT, &mut self.dropped);
        }
    }

    fn observe_pods(&mut self, snapshot: &Snapshot, now: Timestamp) {
        let mut found = Vec::new();
        for pod in snapshot.vrouter_pods().filter(|p| !p.deleting) {
            let Some(node) = &pod.node_name else { continue };
            // Read every second for every pod: nothing is copied for a pod
            // already seen on its node.
            match self.pods.get_mut(node) {
                Some((_, uid)) if *uid == pod.uid => {}
                Some(seen) => {
                    let (old, _) = std::mem::replace(seen, (pod.name.clone(), pod.uid.clone()));
                    found.push(PodReplacement {
                        node: node.clone(),
                        old,
                        new: pod.name.clone(),
                        at: pod.created.unwrap_or(now),
                    });
                }
                None => {
                    self.pods
                        .insert(node.clone(), (pod.name.clone(), pod.uid.clone()));
                }
            }
        }
        for r in found {
            push_bounded(&mut self.replaced, r, MAX_IMPACT, &mut self.dropped);
        }
    }

    /// Phase and update-plan step changes, oldest first.
    pub fn timeline(&self) -> impl Iterator<Item = &TimelineEntry> {
        self.timeline.iter()
    }
    /// Every attention item raised, in the order first shown.
    pub fn items(&self) -> impl Iterator<Item = &LoggedItem> {
        self.items.iter()
    }
    /// Nodes set to `skip` with servers still listed on them.
    pub fn skipped(&self) -> impl Iterator<Item = &SkipImpact> {
        self.skipped.iter()
    }
    /// vRouter pods seen replaced.
    pub fn replaced(&self) -> impl Iterator<Item = &PodReplacement> {
        self.replaced.iter()
    }
    /// How many entries the bounds dropped.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
    /// Whether any attention item was raised during the session.
    pub fn any_item(&self) -> bool {
        !self.items.is_empty()
    }
}

#[cfg(test)]
mod tests;
