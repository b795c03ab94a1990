//! What a watch has told the console about its kind, so that a periodic
//! re-list sends only what differs (the changes the watch never delivered).
//!
//! Only a fingerprint of each object sent is kept, not the object: the
//! model's snapshot holds the one full copy of what is shown. (Keeping the
//! objects here cost a second copy of every watched object: about 8 MiB with
//! the `large` scenario's 11,842 objects, see docs/PERFORMANCE.md.)

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::hash::{BuildHasher, Hasher};

use foldhash::quality::{FixedState, FoldHasher};

use crate::cluster::events::ClusterEvent;
use crate::domain::objects::{Kind, Object, ObjectKey};

/// A fingerprint of a converted object: 64 bits of foldhash (fixed seed;
/// cheaper than SipHash on the many short pieces `Debug` writes) over its
/// `Debug` form, streamed into the hasher without building the string.
/// `Object` has no `Hash` (and needs none elsewhere); its `Debug` form
/// holds every field, in a fixed order (the domain types use no hash
/// maps). Two different versions of one object share a fingerprint with a
/// probability of about 2^-64: the change would then wait for the next
/// re-list that differs.
pub(super) fn fingerprint(object: &Object) -> u64 {
    struct Sink(FoldHasher<'static>);
    impl fmt::Write for Sink {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    static SEED: FixedState = FixedState::with_seed(0x6d6f_736b);
    let mut sink = Sink(SEED.build_hasher());
    // Writing into the hasher cannot fail.
    let _ = write!(sink, "{object:?}");
    sink.0.finish()
}

/// The objects of one kind as last sent: key -> fingerprint. Hashed, not
/// ordered: every event looks its key up here (twice with the cap), and a
/// search of thousands of keys compared namespaces and names at each level;
/// only the periodic re-list reads them in order, and sorts them then.
#[derive(Debug, Default)]
pub(super) struct Known {
    objects: foldhash::HashMap<ObjectKey, u64>,
    /// Whether a full list was sent yet (before it, a re-list has nothing to compare with).
    listed: bool,
}

impl Known {
    pub(super) fn listed(&self) -> bool {
        self.listed
    }

    /// Records what is about to be sent.
    pub(super) fn note(&mut self, ev: &ClusterEvent) {
        match ev {
            ClusterEvent::Applied(o) => {
                self.objects.insert(o.key(), fingerprint(o));
            }
            ClusterEvent::Deleted(k) => {
                self.objects.remove(k);
            }
            ClusterEvent::Resynced { objects, .. } => {
                self.objects = objects.iter().map(|o| (o.key(), fingerprint(o))).collect();
                self.listed = true;
            }
            _ => {}
        }
    }

    pub(super) fn contains(&self, key: &ObjectKey) -> bool {
        self.objects.contains_key(key)
    }

    /// How many objects were sent (and not deleted since).
    pub(super) fn len(&self) -> usize {
        self.objects.len()
    }

    /// The events that turn what was sent into `listed` (the server's truth):
    /// `Applied` for each object that is new or differs, `Deleted` for each
    /// that is gone. Empty when nothing differs.
    pub(super) fn differences(&self, kind: Kind, listed: Vec<Object>) -> Vec<ClusterEvent> {
        let mut now: BTreeMap<ObjectKey, Object> =
            listed.into_iter().map(|o| (o.key(), o)).collect();
        let mut out = Vec::new();
        let mut sent: Vec<(&ObjectKey, &u64)> = self.objects.iter().collect();
        sent.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (key, old) in sent {
            match now.remove(key) {
                Some(new) if fingerprint(&new) == *old => {}
                Some(new) => out.push(ClusterEvent::Applied(new)),
                None if key.kind == kind => out.push(ClusterEvent::Deleted(key.clone())),
                None => {}
            }
        }
        out.extend(now.into_values().map(ClusterEvent::Applied));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::objects::Node;
    use std::sync::Arc;

    fn node(name: &str, ready: bool) -> Object {
        Object::Node(Arc::new(Node {
            name: name.into(),
            uid: format!("uid-{name}"),
            labels: Default::default(),
            migration_mode: None,
            migration_attempts: None,
            ready,
            unschedulable: false,
            cordoned_at: None,
        }))
    }

    #[test]
    fn the_fingerprint_follows_every_field() {
        let a = node("a", true);
        assert_eq!(fingerprint(&a), fingerprint(&a.clone()));
        let mut labelled = a.clone();
        let Object::Node(n) = &mut labelled else {
            unreachable!()
        };
        Arc::make_mut(n).labels.insert("later".into(), "1".into());
        let mut cordoned = a.clone();
        let Object::Node(n) = &mut cordoned else {
            unreachable!()
        };
        Arc::make_mut(n).unschedulable = true;
        let all = [a, node("a", false), node("b", true), labelled, cordoned];
        for (i, x) in all.iter().enumerate() {
            for y in &all[i + 1..] {
                assert_ne!(fingerprint(x), fingerprint(y), "{x:?} and {y:?}");
            }
        }
    }

    #[test]
    fn only_what_differs_is_sent() {
        let mut k = Known::default();
        assert!(!k.listed());
        k.note(&ClusterEvent::Resynced {
            kind: Kind::Node,
            objects: vec![node("a", true), node("b", true), node("c", true)],
        });
        assert!(k.listed());
        let same = vec![node("c", true), node("a", true), node("b", true)];
        assert_eq!(k.differences(Kind::Node, same), []);

        let listed = vec![node("a", false), node("b", true), node("d", true)];
        let diff = k.differences(Kind::Node, listed);
        assert_eq!(
            diff,
            [
                ClusterEvent::Applied(node("a", false)),
                ClusterEvent::Deleted(node("c", true).key()),
                ClusterEvent::Applied(node("d", true)),
            ]
        );
    }
}
