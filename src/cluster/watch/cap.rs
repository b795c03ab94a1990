//! The per-kind object cap: a watch sends at most `WatchOptions::max_objects`
//! objects of its kind, so that a cluster with a million objects (or a
//! hostile one creating them) cannot grow the console without limit. What is
//! over the cap is counted, not kept: the fingerprints of the keys not shown
//! (at most as many as the cap), so that a change or a delete of one of them
//! is not counted twice, and [`ClusterEvent::Capped`] tells the UI how many.
//!
//! Which objects are shown: a list keeps the first ones in the server's
//! order (by namespace and name); between lists, a new object is shown while
//! there is room (after a delete), else counted. The next list sets the
//! shown objects again.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::cluster::events::{ClusterEvent, OverCap};
use crate::cluster::watch::known::Known;
use crate::domain::objects::{Kind, ObjectKey};

#[derive(Debug)]
pub(super) struct Cap {
    kind: Kind,
    limit: usize,
    /// Fingerprints of the keys of the objects not shown.
    hidden: HashSet<u64>,
    /// More objects were not shown than `hidden` holds (it is full).
    at_least: bool,
    /// The cap was reached when the running list started.
    reached_before_list: bool,
    /// What the UI was last told: (not shown, at least).
    reported: (usize, bool),
}

fn fingerprint(key: &ObjectKey) -> u64 {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

impl Cap {
    pub(super) fn new(kind: Kind, limit: usize) -> Cap {
        Cap {
            kind,
            limit,
            hidden: HashSet::new(),
            at_least: false,
            reached_before_list: false,
            reported: (0, false),
        }
    }

    /// Whether some objects are not shown.
    pub(super) fn reached(&self) -> bool {
        !self.hidden.is_empty() || self.at_least
    }

    /// A list starts: it counts again from nothing.
    pub(super) fn list_started(&mut self) {
        self.reached_before_list = self.reached();
        self.hidden.clear();
        self.at_least = false;
    }

    /// Whether a listed object fits after the `listed` ones kept so far;
    /// else it is counted as not shown.
    pub(super) fn admit_listed(&mut self, listed: usize, key: &ObjectKey) -> bool {
        if listed < self.limit {
            return true;
        }
        self.hide(key);
        false
    }

    /// Whether the list just finished can be compared with what the watch
    /// sent (the periodic re-list's drift): not when the cap changed what
    /// was shown, before or now.
    pub(super) fn list_comparable(&self) -> bool {
        !self.reached_before_list && !self.reached()
    }

    /// Whether an added or changed object is shown: it is already, or there
    /// is room; else it is counted as not shown.
    pub(super) fn admit(&mut self, known: &Known, key: &ObjectKey) -> bool {
        if known.contains(key) {
            return true;
        }
        if known.len() < self.limit {
            self.hidden.remove(&fingerprint(key));
            return true;
        }
        self.hide(key);
        false
    }

    /// An object is gone; true when it was one not shown (nothing to tell
    /// the UI but the count).
    pub(super) fn forget(&mut self, key: &ObjectKey) -> bool {
        self.hidden.remove(&fingerprint(key))
    }

    fn hide(&mut self, key: &ObjectKey) {
        let fp = fingerprint(key);
        if self.hidden.len() < self.limit || self.hidden.contains(&fp) {
            self.hidden.insert(fp);
        } else {
            self.at_least = true;
        }
    }

    /// [`ClusterEvent::Capped`] when the count changed since it was last sent.
    pub(super) fn report(&mut self) -> Option<ClusterEvent> {
        let now = (self.hidden.len(), self.at_least);
        if now == self.reported {
            return None;
        }
        let before = std::mem::replace(&mut self.reported, now);
        // Once when the cap is reached (a flood of new objects changes the
        // count with every event; the status bar follows it).
        if before.0 == 0 && now.0 > 0 {
            tracing::warn!(
                kind = ?self.kind,
                cap = self.limit,
                not_shown = now.0,
                at_least = now.1,
                "object cap reached: objects not shown"
            );
        }
        Some(ClusterEvent::Capped {
            kind: self.kind,
            over: OverCap {
                cap: self.limit,
                not_shown: now.0,
                at_least: now.1,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> ObjectKey {
        ObjectKey::new(Kind::Node, "", name)
    }

    fn capped(not_shown: usize, at_least: bool) -> Option<ClusterEvent> {
        Some(ClusterEvent::Capped {
            kind: Kind::Node,
            over: OverCap {
                cap: 2,
                not_shown,
                at_least,
            },
        })
    }

    #[test]
    fn over_the_cap_objects_are_counted_once_and_the_count_follows_them() {
        let mut cap = Cap::new(Kind::Node, 2);
        let mut known = Known::default();
        cap.list_started();
        assert!(cap.admit_listed(0, &key("a")));
        assert!(cap.admit_listed(1, &key("b")));
        assert!(!cap.admit_listed(2, &key("c")));
        assert!(!cap.list_comparable());
        assert_eq!(cap.report(), capped(1, false));
        assert_eq!(cap.report(), None);
        known.note(&ClusterEvent::Resynced {
            kind: Kind::Node,
            objects: vec![],
        });
        for n in ["a", "b"] {
            assert!(cap.admit(&known, &key(n)));
            known.note(&ClusterEvent::Applied(
                crate::domain::objects::Object::Malformed(std::sync::Arc::new(
                    crate::domain::objects::MalformedObject {
                        kind: Kind::Node,
                        namespace: String::new(),
                        name: n.into(),
                        error: String::new(),
                    },
                )),
            ));
        }
        // A change of a shown one is shown; of a hidden one, not counted again.
        assert!(cap.admit(&known, &key("a")));
        assert!(!cap.admit(&known, &key("c")));
        assert_eq!(cap.report(), None);
        // A new one is counted; when the count is as long as the cap, "at least".
        assert!(!cap.admit(&known, &key("d")));
        assert_eq!(cap.report(), capped(2, false));
        assert!(!cap.admit(&known, &key("e")));
        assert_eq!(cap.report(), capped(2, true));
        // A hidden one deleted: the count goes down.
        assert!(cap.forget(&key("c")));
        assert!(!cap.forget(&key("a")));
        assert_eq!(cap.report(), capped(1, true));
        // The next list counts from nothing; under the cap, the warning goes.
        cap.list_started();
        assert!(cap.admit_listed(0, &key("a")));
        assert!(!cap.list_comparable());
        assert_eq!(cap.report(), capped(0, false));
        cap.list_started();
        assert!(cap.list_comparable());
    }
}
