//! What the console has seen over time.
//!
//! A Snapshot only knows the present. The phase "done", the progress of an
//! update, the ETA, stalls and "since when" in the attention queue need the
//! past: feed [`History::observe`] with every object change the console sees
//! (the old version from `Snapshot::apply`/`remove` and the new one), in the
//! order seen, including the objects of the first list (`before = None`).
//!
//! Memory is bounded: the last [`MAX_CHANGES`] changes, per-object data only
//! for objects that exist, and at most [`MAX_FINISHED`] finished machines and
//! [`MAX_SAMPLES`] durations per machine state.
//!
//! Two sides: `history/record.rs` is what [`History::apply`],
//! [`remove`](History::remove) and [`relist`](History::relist) write as
//! objects arrive (machine turns and state durations, lock states,
//! messages, the servers of a node's turn); `history/queries.rs` is what
//! the rules ask of it (since when, how long peers took, what finished).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

// Keyed by object on every change: a fast hash (the keys come from the
// clusters, but a collision costs only time, and foldhash is seeded per process).
use foldhash::{HashMap, HashSet};

use jiff::{SignedDuration, Timestamp};

use super::changes::Change;
use super::join::same_node;
use super::objects::{MachineState, MachineType, NodeRole, ObjectKey};

mod queries;
mod record;
mod servers;
pub use servers::{NodeServers, ServerTrack};

pub const MAX_CHANGES: usize = 5_000;
pub const MAX_FINISHED: usize = 10_000;
pub const MAX_SAMPLES: usize = 1_000;

/// Since when something holds, and whether the console saw it begin: when
/// `observed` is false, `at` is the console's first sight and the true start
/// is earlier (show the age as "≥ N").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Since {
    pub at: Timestamp,
    pub observed: bool,
}

/// The machines a machine's times are compared with: the same LCMMachine
/// type and the same OpenStack role of its node (a storage worker's drain
/// waits for Ceph, a compute's for its servers). The grouping is ours [I]:
/// LCM's source is not public; the roles come from the nodes' labels.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PeerGroup {
    pub machine_type: MachineType,
    pub role: NodeRole,
}

impl std::fmt::Display for PeerGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, {}", self.machine_type, self.role.as_str())
    }
}

/// A machine that went through an update and returned to Ready.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedMachine {
    pub name: String,
    pub machine_type: MachineType,
    /// When its turn started: its maintenance request was created, or it
    /// entered an active state, or (lacking both) it left Ready.
    pub started: Timestamp,
    pub finished: Timestamp,
    /// The start was observed; `false` when the console first saw the
    /// machine mid-way (the duration is then a lower bound).
    pub complete: bool,
}

impl FinishedMachine {
    pub fn duration(&self) -> SignedDuration {
        self.finished.duration_since(self.started)
    }
}

#[derive(Debug, Clone)]
struct MachineTrack {
    machine_type: MachineType,
    hostname: Option<String>,
    state: MachineState,
    since: Timestamp,
    /// The entry into `state` was seen (not just the first sight of the machine).
    since_observed: bool,
    /// When it left Ready (first sight if it was never seen Ready).
    left_ready: Option<(Timestamp, bool)>,
    /// When its turn started, and whether that was observed.
    turn: Option<(Timestamp, bool)>,
    /// Since when its Kubernetes drain has failed
    /// (`status.kubernetesCordonDrainError` set), while it has.
    drain_failed: Option<Since>,
    /// Since when LCM has reported an operation stuck on it
    /// (`status.lcmOperationStuck`), while it does.
    operation_stuck: Option<Since>,
}

/// What the console remembers. See the module documentation.
#[derive(Debug, Clone, Default)]
pub struct History {
    changes: VecDeque<Change>,
    total_changes: u64,
    first_seen: HashMap<ObjectKey, Timestamp>,
    machines: HashMap<String, MachineTrack>,
    /// The machines by their hostname's short node name (`short_node`),
    /// so that a node's request or lock finds its machine without a scan.
    machines_on_node: HashMap<String, BTreeSet<String>>,
    finished: VecDeque<FinishedMachine>,
    done: HashSet<String>,
    /// Durations of each state within a turn, by peer group (a master's
    /// Deploy says nothing about a worker's, a storage node's nothing
    /// about a compute's).
    samples: BTreeMap<(PeerGroup, MachineState), VecDeque<SignedDuration>>,
    /// Each node's OpenStack role, by node name.
    node_roles: HashMap<String, NodeRole>,
    /// Node maintenance requests by node name: (created or first seen).
    nmr_since: BTreeMap<String, Timestamp>,
    /// Each lock's state, since when, and whether that transition was seen.
    lock_state: HashMap<ObjectKey, (String, Since)>,
    message: HashMap<ObjectKey, (String, Timestamp)>,
    /// What the OpenStack controller did with each server on a node in its
    /// turn, by the node's OpenStack lock.
    servers: HashMap<ObjectKey, NodeServers>,
    /// Nodes the OpenStack controller queued (E-CONC) in their turn: when
    /// it took them up, by node name.
    turn_after_queue: BTreeMap<String, Timestamp>,
    cmrs: BTreeSet<String>,
    update_started: Option<Timestamp>,
    update_removed: Option<Timestamp>,
    max_concurrency: BTreeMap<MachineType, usize>,
    /// A machine entered or left its turn since `max_concurrency` was raised.
    concurrency_stale: bool,
}

impl History {
    pub fn new() -> History {
        History::default()
    }
}

/// The role of the node named `hostname` (short names compared), `Other`
/// when the console has not seen the node.
fn role_of(roles: &HashMap<String, NodeRole>, hostname: Option<&str>) -> NodeRole {
    let Some(h) = hostname else {
        return NodeRole::Other;
    };
    roles
        .get(h)
        .or_else(|| roles.iter().find(|(n, _)| same_node(n, h)).map(|(_, r)| r))
        .copied()
        .unwrap_or(NodeRole::Other)
}

#[cfg(test)]
mod tests;
