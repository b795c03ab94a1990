//! The cluster picker: when the management context holds several MOSK
//! clusters and the operator named none (`--cluster`), the console opens on
//! this modal and watches nothing of the management cluster's project
//! namespaces until one is chosen. It holds its state and reads its keys
//! in place ([`ClusterPicker::on_key`]), like a dialog; `update` applies
//! the [`PickerOutcome`]. It cannot be closed without a choice: there is
//! nothing to show behind it. `?` and quit keep working.

use crate::config::keymap::KeyAction;
use crate::domain::which_cluster::ClusterRef;

/// The clusters to choose from and the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterPicker {
    /// Sorted by namespace, then name (sanitized when listed).
    pub clusters: Vec<ClusterRef>,
    pub cursor: usize,
    /// Why the last key did nothing (Esc: a cluster must be chosen).
    pub note: Option<String>,
}

/// What a key did, for `update` to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerOutcome {
    /// The cursor moved, or nothing happened.
    Stay,
    /// Enter: follow this cluster.
    Follow(ClusterRef),
    /// `?`: the help overlay on top.
    Help,
    /// The quit key.
    Quit,
}

impl ClusterPicker {
    pub fn new(clusters: Vec<ClusterRef>) -> ClusterPicker {
        ClusterPicker {
            clusters,
            cursor: 0,
            note: None,
        }
    }

    /// A key of the keymap (`action`) while the picker is on top; `page`:
    /// the rows a page moves.
    pub fn on_key(&mut self, action: Option<KeyAction>, page: usize) -> PickerOutcome {
        let last = self.clusters.len().saturating_sub(1);
        self.note = None;
        match action {
            Some(KeyAction::Down) => self.cursor = (self.cursor + 1).min(last),
            Some(KeyAction::Up) => self.cursor = self.cursor.saturating_sub(1),
            Some(KeyAction::Top) => self.cursor = 0,
            Some(KeyAction::Bottom) => self.cursor = last,
            Some(KeyAction::PageDown) => self.cursor = (self.cursor + page.max(1)).min(last),
            Some(KeyAction::PageUp) => self.cursor = self.cursor.saturating_sub(page.max(1)),
            Some(KeyAction::Open) => {
                if let Some(c) = self.clusters.get(self.cursor) {
                    return PickerOutcome::Follow(c.clone());
                }
            }
            Some(KeyAction::Help) => return PickerOutcome::Help,
            Some(KeyAction::Quit) => return PickerOutcome::Quit,
            Some(KeyAction::Back) => {
                self.note = Some(
                    "choose the cluster to follow (Enter), or quit: nothing is watched until then"
                        .into(),
                );
            }
            _ => {}
        }
        PickerOutcome::Stay
    }

    /// The footer's hints while the picker is on top: the keys
    /// [`ClusterPicker::on_key`] reads, most useful first.
    pub const HINTS: [(KeyAction, &'static str); 5] = [
        (KeyAction::Down, "down"),
        (KeyAction::Up, "up"),
        (KeyAction::Open, "follow this cluster"),
        (KeyAction::Help, "help"),
        (KeyAction::Quit, "quit"),
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picker() -> ClusterPicker {
        ClusterPicker::new(vec![
            ClusterRef::new("a-ns", "a-cl"),
            ClusterRef::new("b-ns", "b-cl"),
            ClusterRef::new("c-ns", "c-cl"),
        ])
    }

    #[test]
    fn the_keys_move_within_the_list_and_enter_follows_the_cluster_under_the_cursor() {
        let mut p = picker();
        assert_eq!(p.on_key(Some(KeyAction::Up), 10), PickerOutcome::Stay);
        assert_eq!(p.cursor, 0);
        p.on_key(Some(KeyAction::PageDown), 10);
        assert_eq!(p.cursor, 2);
        p.on_key(Some(KeyAction::Up), 10);
        assert_eq!(
            p.on_key(Some(KeyAction::Open), 10),
            PickerOutcome::Follow(ClusterRef::new("b-ns", "b-cl"))
        );
        assert_eq!(p.on_key(Some(KeyAction::Back), 10), PickerOutcome::Stay);
        assert!(p.note.as_deref().unwrap().contains("choose the cluster"));
        assert_eq!(p.on_key(Some(KeyAction::Quit), 10), PickerOutcome::Quit);
        assert_eq!(p.on_key(Some(KeyAction::Help), 10), PickerOutcome::Help);
    }
}
