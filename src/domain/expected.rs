//! How long the parts of an update are expected to take: what stall
//! detection compares with before the console has seen a machine finish
//! (the first master, the first worker) and for the waits that have no
//! peers to compare with (a cluster lock, finalization, a node lock named
//! by LCM's drain). Loaded from the `[expected]` table of the config file
//! (`config::expected`), defaults below.
//!
//! ALL DEFAULTS ARE [I]: MOSK publishes no phase durations (reference §9.2:
//! the "Plan the cluster update" tables were not found). They are generous
//! on purpose: an item raised too late costs minutes, one raised on every
//! healthy node teaches the operator to ignore the queue.

use jiff::SignedDuration;

use super::objects::MachineType;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    /// A master's turn (maintenance request to Ready).
    pub master_turn: SignedDuration,
    /// A worker's turn (maintenance request to Ready), reboot included.
    pub worker_turn: SignedDuration,
    /// A node lock LCM's drain names as still active, in the node's turn.
    pub lock_wait: SignedDuration,
    /// A cluster lock still active while the update waits on it.
    pub cluster_lock: SignedDuration,
    /// Finalization: from the last machine Ready to the end of the update.
    pub finalization: SignedDuration,
    /// A maintenance request being deleted (its controllers bring the node
    /// or the cluster back) before the console calls it stuck, when no
    /// controller has said why.
    pub request_deletion: SignedDuration,
}

impl Default for Expected {
    fn default() -> Self {
        Expected {
            master_turn: SignedDuration::from_mins(45),
            worker_turn: SignedDuration::from_mins(60),
            lock_wait: SignedDuration::from_mins(15),
            cluster_lock: SignedDuration::from_mins(90),
            finalization: SignedDuration::from_mins(45),
            request_deletion: SignedDuration::from_mins(15),
        }
    }
}

impl Expected {
    /// The expected turn of a machine of type `ty`, and the config key
    /// that sets it.
    pub fn turn(&self, ty: &MachineType) -> (SignedDuration, &'static str) {
        if *ty == MachineType::Control {
            (self.master_turn, "expected.master_turn")
        } else {
            (self.worker_turn, "expected.worker_turn")
        }
    }
}
