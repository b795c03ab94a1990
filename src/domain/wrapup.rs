//! The wrap-up after the update (`:wrapup`): the migration settings (a
//! node's migration mode and its attempts) this console changed, each with
//! the value it had before, so the operator can put it back (a `skip` or an
//! attempts count set during the window would otherwise stay on the node
//! into the next update), and the update guide's remaining steps as a
//! checklist.
//!
//! The settings come from the audit log, written by this console and read back
//! when it starts (`crate::audit::read_back`), so they survive a restart;
//! `app` turns each record into a [`SettingWrite`] (this module knows no other
//! module of ours).

use jiff::Timestamp;

use crate::domain::migration::setting_problem;
use crate::domain::objects::{MigrationMode, Snapshot};

/// The node annotations a migration setting is: the mode and the attempts
/// (the keys `set migration mode` writes).
pub const SETTINGS: [&str; 2] = [
    MigrationMode::ANNOTATION,
    MigrationMode::ATTEMPTS_ANNOTATION,
];

/// What the wrap-up calls the setting of annotation `key`.
pub fn setting_name(key: &str) -> &'static str {
    if key == MigrationMode::ATTEMPTS_ANNOTATION {
        "attempts"
    } else {
        "mode"
    }
}

/// The value a record says the node had before: an annotation value, unset
/// (`None`), or not in the record at all (a record that did not keep it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Previous {
    Recorded(Option<String>),
    NotRecorded,
}

/// One applied change of a node's migration setting, as an audit result
/// record tells it (succeeded, not a dry run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingWrite {
    pub time: Timestamp,
    pub node: String,
    /// The annotation (one of [`SETTINGS`]).
    pub key: String,
    /// Whether the write was a restore (`restore-migration-mode`).
    pub restore: bool,
    pub old: Previous,
    pub new: Option<String>,
}

/// One migration setting of a node that this console changed, and what to
/// do about it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingChange {
    pub node: String,
    /// The annotation (one of [`SETTINGS`]).
    pub key: String,
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

/// Each node's changes of each setting, in the order of first change.
/// `writes` are in the order they were written.
pub fn setting_changes(writes: &[SettingWrite]) -> Vec<SettingChange> {
    let mut out: Vec<SettingChange> = Vec::new();
    for w in writes {
        let entry = out.iter_mut().find(|c| c.node == w.node && c.key == w.key);
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
            None => out.push(SettingChange {
                node: w.node.clone(),
                key: w.key.clone(),
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
    /// The node's setting is no longer the value this console set.
    ChangedSince {
        now: Option<String>,
    },
    NodeGone,
    /// The value before is the value now.
    Unchanged,
    /// The value before is one the OpenStack controller cannot read (the
    /// console does not write it back; readiness flags it on a node).
    Unreadable {
        previous: String,
        why: String,
    },
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
            RestoreOffer::Unreadable { why, .. } => {
                format!(
                    "not offered: the value before is unreadable ({why}); keep it or set one by hand (m)"
                )
            }
        }
    }
}

/// `"live"`, or `unset`.
pub fn shown(v: Option<&str>) -> String {
    v.map_or_else(|| "unset".to_string(), |v| format!("\"{v}\""))
}

/// The node's setting `key` as the snapshot reads it; `None` for unset,
/// and the outer `None` when the node is not seen.
pub fn value_now(snap: &Snapshot, node: &str, key: &str) -> Option<Option<String>> {
    let node = snap.nodes().find(|n| n.name == node)?;
    Some(crate::domain::migration::setting(node, key).flatten())
}

/// The restore rule: offered only while the node's setting is still the
/// value this console set, and the value before is known and differs.
pub fn restore_offer(snap: &Snapshot, change: &SettingChange) -> RestoreOffer {
    if change.restored {
        return RestoreOffer::Restored;
    }
    let Some(now) = value_now(snap, &change.node, &change.key) else {
        return RestoreOffer::NodeGone;
    };
    if now != change.set_to {
        return RestoreOffer::ChangedSince { now };
    }
    match &change.previous {
        Previous::NotRecorded => RestoreOffer::NotRecorded,
        Previous::Recorded(p) if *p == now => RestoreOffer::Unchanged,
        Previous::Recorded(Some(p)) if let Some(why) = setting_problem(&change.key, p) => {
            RestoreOffer::Unreadable {
                previous: p.clone(),
                why,
            }
        }
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

    fn w(secs: i64, node: &str, old: Previous, new: Option<&str>, restore: bool) -> SettingWrite {
        SettingWrite {
            time: Timestamp::from_second(1_700_000_000 + secs).unwrap(),
            node: node.into(),
            key: MigrationMode::ANNOTATION.into(),
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
        let c = setting_changes(&[
            w(1, "n1", rec(Some("live")), Some("manual"), false),
            w(2, "n1", rec(Some("manual")), Some("skip"), false),
        ]);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].previous, rec(Some("live")));
        assert_eq!(c[0].set_to.as_deref(), Some("skip"));
    }

    #[test]
    fn a_change_by_someone_else_in_between_starts_a_new_run() {
        let c = setting_changes(&[
            w(1, "n1", rec(Some("live")), Some("manual"), false),
            w(2, "n1", rec(Some("live")), Some("skip"), false),
        ]);
        assert_eq!(c[0].previous, rec(Some("live")));
        let c = setting_changes(&[
            w(1, "n1", rec(None), Some("manual"), false),
            w(2, "n1", rec(Some("live")), Some("skip"), false),
        ]);
        assert_eq!(c[0].previous, rec(Some("live")));
    }

    #[test]
    fn a_restore_ends_the_run_and_a_later_change_starts_another() {
        let c = setting_changes(&[
            w(1, "n1", rec(Some("live")), Some("skip"), false),
            w(2, "n1", rec(Some("skip")), Some("live"), true),
        ]);
        assert!(c[0].restored);
        let c = setting_changes(&[
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
        let c = setting_changes(&[w(1, "n1", Previous::NotRecorded, Some("skip"), false)]);
        assert_eq!(c[0].previous, Previous::NotRecorded);
    }

    #[test]
    fn the_mode_and_the_attempts_of_a_node_are_two_changes() {
        let attempts = |secs, old, new| SettingWrite {
            key: MigrationMode::ATTEMPTS_ANNOTATION.into(),
            ..w(secs, "n1", rec(old), new, false)
        };
        let c = setting_changes(&[
            w(1, "n1", rec(Some("live")), Some("manual"), false),
            attempts(1, None, Some("7")),
            attempts(2, Some("7"), Some("9")),
        ]);
        assert_eq!(c.len(), 2, "{c:#?}");
        assert_eq!(c[0].key, MigrationMode::ANNOTATION);
        assert_eq!(c[0].set_to.as_deref(), Some("manual"));
        assert_eq!(c[1].key, MigrationMode::ATTEMPTS_ANNOTATION);
        assert_eq!(c[1].previous, rec(None));
        assert_eq!(c[1].set_to.as_deref(), Some("9"));
    }

    /// The value before is written back only when the OpenStack controller
    /// can read it: a mode none of live/manual/skip or attempts `int()`
    /// refuses would fail its handler silently in the next maintenance.
    #[test]
    fn a_value_before_the_controller_cannot_read_is_not_offered_back() {
        use crate::domain::fixtures::{self, names::NODE_W2};
        use crate::domain::objects::Object;
        use std::sync::Arc;

        let mut n = fixtures::node(NODE_W2, true);
        n.migration_mode = Some(MigrationMode::Manual);
        n.migration_attempts = Some("7".into());
        let mut snap = fixtures::idle();
        snap.apply(Object::Node(Arc::new(n)));
        let change = |key: &str, before: &str, set_to: &str| SettingChange {
            key: key.into(),
            ..setting_changes(&[w(1, NODE_W2, rec(Some(before)), Some(set_to), false)]).remove(0)
        };

        let mode = restore_offer(&snap, &change(MigrationMode::ANNOTATION, "livee", "manual"));
        assert!(
            matches!(&mode, RestoreOffer::Unreadable { previous, .. } if previous == "livee"),
            "{mode:?}"
        );
        assert!(
            mode.describe().contains("none of live, manual, skip"),
            "{}",
            mode.describe()
        );
        let attempts = restore_offer(
            &snap,
            &change(MigrationMode::ATTEMPTS_ANNOTATION, "abc", "7"),
        );
        assert!(
            matches!(attempts, RestoreOffer::Unreadable { .. }),
            "{attempts:?}"
        );
        // A readable value before is offered as ever.
        let ok = restore_offer(&snap, &change(MigrationMode::ANNOTATION, "live", "manual"));
        assert_eq!(
            ok,
            RestoreOffer::Offered {
                previous: Some("live".into())
            }
        );
    }
}
