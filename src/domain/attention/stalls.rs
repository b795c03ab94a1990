//! Stalls: a machine far longer in its turn than its peers, or than the
//! expected duration when it has no peers yet (the first master, the first
//! worker), and an update whose finalization runs past its expected
//! duration. Times count from the start of the machine's turn, never from
//! the start of the update: a worker waits in Prepare for its turn, and
//! that wait is not a stall.

use jiff::{SignedDuration, Timestamp};

use super::{AttentionItem, AttentionKind, STALL_FACTOR, STALL_MIN};
use crate::domain::blocking::queued;
use crate::domain::expected::Expected;
use crate::domain::history::{History, PeerGroup};
use crate::domain::join::requested_nodes;
use crate::domain::objects::{Kind, Machine, MachineState, Notable, Object, ObjectKey, Snapshot};
use crate::domain::progress::{Done, human_duration};
use crate::domain::update_groups::GroupIndex;

pub(super) fn stalls(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    expected: &Expected,
    out: &mut Vec<AttentionItem>,
) {
    machines(snap, history, now, expected, out);
    finalization(snap, history, now, expected, out);
}

fn machines(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    expected: &Expected,
    out: &mut Vec<AttentionItem>,
) {
    // Runs at every computation: the nodes under a maintenance request (by
    // short name, as `same_node` compares) and each state's median are
    // looked up once, not per machine.
    let requested = requested_nodes(snap);
    let mut medians: Vec<(PeerGroup, MachineState, Option<SignedDuration>)> = Vec::new();
    // Counted once for every stall without a peer (a walk of every machine).
    let mut done: Option<DoneCounts> = None;
    // Workers wait in Prepare for their turn [I]: only a machine whose turn
    // has come (a maintenance request exists) can stall there. Those are
    // found through the requested nodes' index, the others (neither Ready
    // nor in Prepare) as the snapshot flagged them: not a read of every
    // machine (on `large`, 1,900 workers wait in Prepare).
    let in_turn_prepare = requested.iter().flat_map(|node| {
        snap.on_node(node).filter_map(|o| match o {
            Object::Machine(m) if m.state == MachineState::Prepare => Some(&**m),
            _ => None,
        })
    });
    let others = snap
        .notable(Notable::MachineBusy)
        .filter_map(|o| match o {
            Object::Machine(m) => Some(&**m),
            _ => None,
        })
        .filter(|m| m.state != MachineState::Prepare && !m.state.is_ready());
    for m in others.chain(in_turn_prepare) {
        if !m.machine_type.is_updated() {
            continue;
        }
        // A node queued by the OpenStack controller (E-CONC: another node
        // holds the slot): its request exists, but its turn has not come.
        if m.hostname.as_deref().is_some_and(|h| queued(snap, h)) {
            continue;
        }
        // The time in the state within the machine's turn.
        let Some(in_turn) = history.in_turn_since(&m.name) else {
            continue;
        };
        let (since, at_least) = (in_turn.at, !in_turn.observed);
        let turn = history.turn_since(&m.name);
        // Compared with machines of its own type and node role: a master's
        // Deploy says nothing about a worker's, a storage worker's nothing
        // about a compute's (the first of a group uses the expected turn).
        let group = history.peer_group(m);
        let median = match medians
            .iter()
            .find(|(g, s, _)| *g == group && *s == m.state)
        {
            Some((_, _, d)) => *d,
            None => {
                let d = history.median_state_duration_of(&group, &m.state);
                medians.push((group.clone(), m.state.clone(), d));
                d
            }
        };
        let spent = now.duration_since(since);
        let why = match median {
            Some(median) => {
                if spent <= median * STALL_FACTOR || spent <= STALL_MIN {
                    continue;
                }
                format!(
                    "in {} for {}, more than {STALL_FACTOR}x the median {} of {} machine(s) before it ({group})",
                    m.state,
                    human_duration(spent),
                    human_duration(median),
                    history.state_samples_of(&group, &m.state)
                )
            }
            // No machine has been through this state yet: the expected
            // duration of a whole turn is the measure.
            None => {
                let (limit, key) = expected.turn(&m.machine_type);
                let in_turn = turn.map_or(spent, |t| now.duration_since(t.at));
                if in_turn <= limit {
                    continue;
                }
                format!(
                    "in its turn for {} (in {} for {}), longer than the expected {} for a {} ({key}; {})",
                    human_duration(in_turn),
                    m.state,
                    human_duration(spent),
                    human_duration(limit),
                    m.machine_type,
                    no_peer_yet(
                        done.get_or_insert_with(|| DoneCounts::new(snap, history)),
                        &group,
                        &m.state
                    )
                )
            }
        };
        out.push(AttentionItem {
            kind: AttentionKind::Stall,
            subject: m.name.clone(),
            node: m.hostname.clone(),
            why,
            since,
            at_least,
            since_inferred: None,
            action: None,
            key: ObjectKey::new(Kind::LcmMachine, &m.namespace, &m.name),
            symptoms: Vec::new(),
            unraised_since: None,
        });
    }
}

/// The machines counted as the progress line counts them (updated types,
/// disabled machines aside), and those done, by peer group: read only for a
/// stall reported without a peer, once per computation.
struct DoneCounts {
    total: usize,
    done: usize,
    done_by_group: Vec<(PeerGroup, usize)>,
}

impl DoneCounts {
    fn new(snap: &Snapshot, history: &History) -> DoneCounts {
        let groups = GroupIndex::new(snap);
        let rule = Done::of(snap);
        let counted: Vec<&Machine> = snap
            .machines()
            .filter(|m| m.machine_type.is_updated() && !groups.disabled(m))
            .collect();
        let mut counts = DoneCounts {
            total: counted.len(),
            done: 0,
            done_by_group: Vec::new(),
        };
        for m in counted.into_iter().filter(|m| rule.done(history, m)) {
            counts.done += 1;
            let group = history.peer_group(m);
            match counts.done_by_group.iter_mut().find(|(g, _)| *g == group) {
                Some((_, n)) => *n += 1,
                None => counts.done_by_group.push((group, 1)),
            }
        }
        counts
    }
}

/// Why a machine has no peer to be compared with: `3 of 6 machines are
/// done, none of them a peer (worker, no OpenStack role) to compare with`.
fn no_peer_yet(counts: &DoneCounts, group: &PeerGroup, state: &MachineState) -> String {
    let peers = counts
        .done_by_group
        .iter()
        .find(|(g, _)| g == group)
        .map_or(0, |(_, n)| *n);
    let total = counts.total;
    match (counts.done, peers) {
        (0, _) => format!("none of {total} machines is done yet to compare with"),
        (n, 0) => format!(
            "{n} of {total} machines are done, none of them a peer ({group}) to compare with"
        ),
        (n, p) => format!(
            "{n} of {total} machines are done, {p} of them peers ({group}), but none was seen through {state} to compare with"
        ),
    }
}

/// Every machine done and the ClusterMaintenanceRequest still there:
/// finalization (StackLight, TF and other applications, reference §9.1
/// [C: D-FLOW]) running longer than expected.
fn finalization(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    expected: &Expected,
    out: &mut Vec<AttentionItem>,
) {
    let Some(cmr) = snap
        .cluster_requests()
        .filter(|r| !r.deleting)
        .min_by_key(|r| r.created)
    else {
        return;
    };
    let mut counted = snap.machines().filter(|m| m.machine_type.is_updated());
    let rule = Done::of(snap);
    if !counted.all(|m| rule.done(history, m)) {
        return;
    }
    let Some(last) = history.finished_this_update().map(|f| f.finished).max() else {
        return;
    };
    let waited = now.duration_since(last);
    if waited <= expected.finalization {
        return;
    }
    out.push(AttentionItem {
        kind: AttentionKind::Stall,
        subject: "finalization".to_string(),
        node: None,
        why: format!(
            "every machine is done (the last at {last}), yet ClusterMaintenanceRequest {} remains: finalization (StackLight, TF and other applications) has run longer than the expected {} (expected.finalization)",
            cmr.name,
            human_duration(expected.finalization)
        ),
        since: last,
        at_least: false,
        since_inferred: None,
        action: None,
        key: ObjectKey {
            kind: Kind::ClusterMaintenanceRequest,
            namespace: String::new(),
            name: cmr.name.clone(),
        },
        symptoms: Vec::new(),
        unraised_since: None,
    });
}
