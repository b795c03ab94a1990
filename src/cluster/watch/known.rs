//! What a watch has told the console about its kind, so that a periodic
//! re-list sends only what differs (the changes the watch never delivered).

use std::collections::BTreeMap;

use crate::cluster::events::ClusterEvent;
use crate::domain::objects::{Kind, Object, ObjectKey};

/// The objects of one kind as last sent.
#[derive(Debug, Default)]
pub(super) struct Known {
    objects: BTreeMap<ObjectKey, Object>,
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
                self.objects.insert(o.key(), o.clone());
            }
            ClusterEvent::Deleted(k) => {
                self.objects.remove(k);
            }
            ClusterEvent::Resynced { objects, .. } => {
                self.objects = objects.iter().map(|o| (o.key(), o.clone())).collect();
                self.listed = true;
            }
            _ => {}
        }
    }

    pub(super) fn contains(&self, key: &ObjectKey) -> bool {
        self.objects.contains_key(key)
    }

    /// The events that turn what was sent into `listed` (the server's truth):
    /// `Applied` for each object that is new or differs, `Deleted` for each
    /// that is gone. Empty when nothing differs.
    pub(super) fn differences(&self, kind: Kind, listed: Vec<Object>) -> Vec<ClusterEvent> {
        let mut now: BTreeMap<ObjectKey, Object> =
            listed.into_iter().map(|o| (o.key(), o)).collect();
        let mut out = Vec::new();
        for (key, old) in &self.objects {
            match now.remove(key) {
                Some(new) if new == *old => {}
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

    fn node(name: &str, ready: bool) -> Object {
        Object::Node(Node {
            name: name.into(),
            uid: format!("uid-{name}"),
            labels: Default::default(),
            migration_mode: None,
            migration_attempts: None,
            ready,
            unschedulable: false,
        })
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
