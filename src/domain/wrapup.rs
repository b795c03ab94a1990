//! The wrap-up after the update (`:wrapup`): the migration modes this
//! console changed, each with the value it had before, so the operator can
//! put it back (a `skip` set during the window would otherwise stay on the
//! node into the next update), and the update guide's remaining steps as a
//! checklist.
//!
//! The modes come from the audit log, written by this console and read back
//! when it starts (`crate::audit::read_back`), so they survive a restart;
//! `app` turns each record into a [`ModeWrite`] (this module knows no other
//! module of ours).

use jiff::Timestamp;

use crate::domain::objects::Snapshot;

/// The value a record says the node had before: an annotation value, unset
/// (`None`), or not in the record at all (a record that did not keep it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Previous {
    Recorded(Option<String>),
    NotRecorded,
}

/// One applied change of a node's migration mode, as an audit result record
/// tells it (succeeded, not a dry run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeWrite {
    pub time: Timestamp,
    pub node: String,
    /// Whether the write was a restore (`restore-migration-mode`).
    pub restore: bool,
    pub old: Previous,
    pub new: Option<String>,
}

/// One node whose migration mode this console changed, and what to do
/// about it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeChange {
    pub node: String,
    /// The value before this console's first change (of an unbroken run of
    /// changes: a change by someone else in between starts a new run).
    pub previous: Previous,
    /// The value this console set last.
    pub set_to: Option<String>,
    /// When it was set (or restored).
    pub time: Timestamp,
    /// The last write was a restore: nothing left to put back.
    pub restored: bool,
}

/// Each node's changes, in the order of first change. `writes` are in the
/// order they were written.
pub fn mode_changes(writes: &[ModeWrite]) -> Vec<ModeChange> {
    let mut out: Vec<ModeChange> = Vec::new();
    for w in writes {
        let entry = out.iter_mut().find(|c| c.node == w.node);
        match entry {
            Some(c) => {
                // A run continues when this change starts from the value
                // this console left; otherwise someone else changed the node
                // in between, and what was before is this record's old value.
                let continues = !c.restored && w.old == Previous::Recorded(c.set_to.clone());
                if !continues && !w.restore {
                    c.previous = w.old.clone();
                }
                c.set_to = w.new.clone();
                c.time = w.time;
                c.restored = w.restore;
            }
            None => out.push(ModeChange {
                node: w.node.clone(),
                previous: w.old.clone(),
                set_to: w.new.clone(),
                time: w.time,
                restored: w.restore,
            }),
        }
    }
    out
}

/// Whether a restore is offered for `change` now, and if not why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreOffer {
    /// Restore `set_to` -> `previous`.
    Offered {
        previous: Option<String>,
    },
    Restored,
    /// The record has no previous value: nothing to restore to.
    NotRecorded,
    /// The node's mode is no longer the one this console set.
    ChangedSince {
        now: Option<String>,
    },
    NodeGone,
    /// The value before is the value now.
    Unchanged,
}

impl RestoreOffer {
    /// What the wrap-up says about it.
    pub fn describe(&self) -> String {
        match self {
            RestoreOffer::Offered { previous } => {
                format!("restore offered: back to {}", shown(previous.as_deref()))
            }
            RestoreOffer::Restored => "restored".into(),
            RestoreOffer::NotRecorded => {
                "the record predates the previous value being kept: set it by hand (m)".into()
            }
            RestoreOffer::ChangedSince { now } => format!(
                "changed since by someone else: now {}; not restored",
                shown(now.as_deref())
            ),
            RestoreOffer::NodeGone => "the node is not seen: nothing to restore".into(),
            RestoreOffer::Unchanged => "already the value before".into(),
        }
    }
}

/// `"live"`, or `unset`.
pub fn shown(v: Option<&str>) -> String {
    v.map_or_else(|| "unset".to_string(), |v| format!("\"{v}\""))
}

/// The node's mode as the snapshot reads it; `None` for unset, and the
/// outer `None` when the node is not seen.
pub fn mode_now(snap: &Snapshot, node: &str) -> Option<Option<String>> {
    snap.nodes()
        .find(|n| n.name == node)
        .map(|n| n.migration_mode.as_ref().map(|m| m.as_str().to_string()))
}

/// The restore rule: offered only while the node's mode is still the one
/// this console set, and the value before is known and differs.
pub fn restore_offer(snap: &Snapshot, change: &ModeChange) -> RestoreOffer {
    if change.restored {
        return RestoreOffer::Restored;
    }
    let Some(now) = mode_now(snap, &change.node) else {
        return RestoreOffer::NodeGone;
    };
    if now != change.set_to {
        return RestoreOffer::ChangedSince { now };
    }
    match &change.previous {
        Previous::NotRecorded => RestoreOffer::NotRecorded,
        Previous::Recorded(p) if *p == now => RestoreOffer::Unchanged,
        Previous::Recorded(p) => RestoreOffer::Offered {
            previous: p.clone(),
        },
    }
}

/// The update guide's steps after the update that the operator does
/// elsewhere and ticks here (seeds/000, "After the update"; its step 1, the
/// vRouter pods, the wrap-up shows from the cluster, and its step 5, the
/// optional upgrade of OpenStack and Tungsten Fabric, is a change of its
/// own, not part of this window).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    UpdateNotes,
    ReenableFeatures,
    SmokeTests,
    ExpireSilences,
}

impl Step {
    pub const ALL: [Step; 4] = [
        Step::UpdateNotes,
        Step::ReenableFeatures,
        Step::SmokeTests,
        Step::ExpireSilences,
    ];

    /// What to do, in the guide's words (shortened).
    pub fn text(self) -> &'static str {
        match self {
            Step::UpdateNotes => "post-update steps of the target release's update notes, if any",
            Step::ReenableFeatures => {
                "re-enable features kept as custom configuration, through the standard mechanisms"
            }
            Step::SmokeTests => "smoke tests: run Tempest",
            Step::ExpireSilences => "expire the StackLight alert silences set for the window",
        }
    }

    /// The guide's step it is (seeds/000, "After the update").
    pub fn source(self) -> &'static str {
        match self {
            Step::UpdateNotes => "after the update, step 2",
            Step::ReenableFeatures => "after the update, step 3",
            Step::SmokeTests => "after the update, step 4",
            Step::ExpireSilences => "after the update, step 6",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(secs: i64, node: &str, old: Previous, new: Option<&str>, restore: bool) -> ModeWrite {
        ModeWrite {
            time: Timestamp::from_second(1_700_000_000 + secs).unwrap(),
            node: node.into(),
            restore,
            old,
            new: new.map(str::to_string),
        }
    }

    fn rec(v: Option<&str>) -> Previous {
        Previous::Recorded(v.map(str::to_string))
    }

    #[test]
    fn a_run_of_changes_keeps_the_value_before_the_first() {
        let c = mode_changes(&[
            w(1, "n1", rec(Some("live")), Some("manual"), false),
            w(2, "n1", rec(Some("manual")), Some("skip"), false),
        ]);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].previous, rec(Some("live")));
        assert_eq!(c[0].set_to.as_deref(), Some("skip"));
    }

    #[test]
    fn a_change_by_someone_else_in_between_starts_a_new_run() {
        let c = mode_changes(&[
            w(1, "n1", rec(Some("live")), Some("manual"), false),
            w(2, "n1", rec(Some("live")), Some("skip"), false),
        ]);
        assert_eq!(c[0].previous, rec(Some("live")));
        let c = mode_changes(&[
            w(1, "n1", rec(None), Some("manual"), false),
            w(2, "n1", rec(Some("live")), Some("skip"), false),
        ]);
        assert_eq!(c[0].previous, rec(Some("live")));
    }

    #[test]
    fn a_restore_ends_the_run_and_a_later_change_starts_another() {
        let c = mode_changes(&[
            w(1, "n1", rec(Some("live")), Some("skip"), false),
            w(2, "n1", rec(Some("skip")), Some("live"), true),
        ]);
        assert!(c[0].restored);
        let c = mode_changes(&[
            w(1, "n1", rec(Some("live")), Some("skip"), false),
            w(2, "n1", rec(Some("skip")), Some("live"), true),
            w(3, "n1", rec(Some("live")), Some("manual"), false),
        ]);
        assert!(!c[0].restored);
        assert_eq!(c[0].previous, rec(Some("live")));
        assert_eq!(c[0].set_to.as_deref(), Some("manual"));
    }

    #[test]
    fn a_record_without_the_previous_value_says_so() {
        let c = mode_changes(&[w(1, "n1", Previous::NotRecorded, Some("skip"), false)]);
        assert_eq!(c[0].previous, Previous::NotRecorded);
    }
}
