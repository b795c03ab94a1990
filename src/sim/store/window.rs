//! Change events and the bounded window of past events per resource, from
//! which watches resume and consistent past snapshots are rebuilt.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use super::objects::{name_of, namespace_of};

/// What happened to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    /// The watch event `type` string.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One change in the store. `object` carries the resource version of the
/// change (for deletions too); `old` is the object before the change.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreEvent {
    pub plural: String,
    pub kind: EventType,
    pub rv: u64,
    pub object: Value,
    pub old: Option<Value>,
}

/// Object key within one resource: (namespace or "", name).
pub type Key = (String, String);

/// The key of an object.
pub fn key_of(obj: &Value) -> Key {
    (namespace_of(obj).to_string(), name_of(obj).to_string())
}

/// The last `cap` events of one resource.
#[derive(Debug)]
pub struct Window {
    events: VecDeque<Arc<StoreEvent>>,
    /// Resource version of the newest event that fell out of the window.
    evicted_upto: u64,
    cap: usize,
}

impl Window {
    pub fn new(cap: usize) -> Window {
        Window {
            events: VecDeque::new(),
            evicted_upto: 0,
            cap: cap.max(1),
        }
    }

    pub fn push(&mut self, ev: Arc<StoreEvent>) {
        if self.events.len() >= self.cap
            && let Some(old) = self.events.pop_front()
        {
            self.evicted_upto = old.rv;
        }
        self.events.push_back(ev);
    }

    /// Whether every event after `rv` is still in the window.
    pub fn covers(&self, rv: u64) -> bool {
        rv >= self.evicted_upto
    }

    /// The events after `rv`, or `None` when some of them fell out of the window.
    pub fn since(&self, rv: u64) -> Option<Vec<Arc<StoreEvent>>> {
        if !self.covers(rv) {
            return None;
        }
        Some(self.events.iter().filter(|e| e.rv > rv).cloned().collect())
    }

    /// The objects as they stood at `rv`, rebuilt from `current` by undoing
    /// later events; `None` when the window does not reach back that far.
    /// Borrowed, not copied: a list page copies only the objects it serves.
    pub fn snapshot_at<'a>(
        &'a self,
        current: &'a BTreeMap<Key, Value>,
        rv: u64,
    ) -> Option<BTreeMap<Key, &'a Value>> {
        if !self.covers(rv) {
            return None;
        }
        let mut snap: BTreeMap<Key, &Value> = current.iter().map(|(k, v)| (k.clone(), v)).collect();
        for ev in self.events.iter().rev().take_while(|e| e.rv > rv) {
            match (ev.kind, &ev.old) {
                (EventType::Added, _) => {
                    snap.remove(&key_of(&ev.object));
                }
                (_, Some(old)) => {
                    snap.insert(key_of(old), old);
                }
                (_, None) => {}
            }
        }
        Some(snap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(kind: EventType, rv: u64, name: &str, v: u64, old: Option<u64>) -> Arc<StoreEvent> {
        let obj = |x: u64| json!({"metadata": {"name": name, "resourceVersion": x.to_string()}});
        Arc::new(StoreEvent {
            plural: "nodes".into(),
            kind,
            rv,
            object: obj(v),
            old: old.map(obj),
        })
    }

    #[test]
    fn eviction_moves_the_resume_floor() {
        let mut w = Window::new(2);
        w.push(ev(EventType::Added, 5, "a", 5, None));
        w.push(ev(EventType::Added, 6, "b", 6, None));
        assert!(w.covers(0));
        w.push(ev(EventType::Modified, 7, "a", 7, Some(5)));
        assert!(!w.covers(4));
        assert!(w.covers(5));
        assert_eq!(w.since(5).unwrap().len(), 2);
        assert!(w.since(4).is_none());
    }

    #[test]
    fn snapshot_undoes_later_events() {
        let mut w = Window::new(10);
        w.push(ev(EventType::Added, 5, "a", 5, None));
        w.push(ev(EventType::Modified, 6, "a", 6, Some(5)));
        w.push(ev(EventType::Added, 7, "b", 7, None));
        w.push(ev(EventType::Deleted, 8, "a", 8, Some(6)));
        let mut cur = BTreeMap::new();
        cur.insert(
            ("".into(), "b".into()),
            json!({"metadata": {"name": "b", "resourceVersion": "7"}}),
        );
        let at6 = w.snapshot_at(&cur, 6).unwrap();
        assert_eq!(at6.len(), 1);
        assert_eq!(
            at6[&("".to_string(), "a".to_string())]["metadata"]["resourceVersion"],
            "6"
        );
        let at7 = w.snapshot_at(&cur, 7).unwrap();
        assert_eq!(at7.len(), 2);
    }
}
