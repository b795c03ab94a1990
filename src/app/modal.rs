//! The one modal stack: everything drawn over the current view that takes
//! the keys while it is open — help, the full text of an attention item,
//! lock, maintenance request or cluster state ([`Modal::Detail`]), the
//! `/` filter, `:` command and log-search input lines, and the action
//! dialogs. The top of the stack takes the keys first (`update::on_key`),
//! Esc closes the top one only, and `ui::draw` draws the stack bottom to top.
//! An *overlay* is a modal other than an action dialog (help, the input
//! lines, an attention item's text): switching views closes the overlays.
//! The cluster picker is not one: it stays until a cluster is chosen.
//!
//! The Machines detail pane is not a modal: it is a split view drawn beside
//! the table, in the view's own area, and while it is open the table keeps
//! the keys (j/k move the row the pane describes). It stays view state
//! (`Model::detail_open`), closed by Esc when no modal is open.

use crate::app::actions::dialog::Dialog;
use crate::app::cluster_picker::ClusterPicker;
use crate::app::line_input::LineInput;
use crate::domain::objects::ObjectKey;

/// What a [`Modal::Detail`] shows: one thing, by what finds it again as
/// the cluster changes (the UI says when it is gone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DetailOf {
    /// The attention item with this id
    /// ([`crate::domain::attention::AttentionItem::id`]).
    Attention(String),
    /// A ClusterWorkloadLock or NodeWorkloadLock.
    Lock(ObjectKey),
    /// A ClusterMaintenanceRequest or NodeMaintenanceRequest.
    Request(ObjectKey),
    /// An LCMClusterState.
    State(ObjectKey),
}

impl Modal {
    /// The full text of the attention item `id`.
    pub fn attention_text(id: impl Into<String>) -> Modal {
        Modal::Detail {
            of: DetailOf::Attention(id.into()),
            scroll: 0,
        }
    }
}

/// One modal, drawn over the view; it takes the keys while on top.
#[derive(Debug, Clone, PartialEq)]
pub enum Modal {
    /// `?`: every key of the active keymap.
    Help { scroll: u16 },
    /// `/`: the filter being typed for the current table.
    FilterInput { text: LineInput },
    /// `:`: a view name being typed.
    CommandInput { text: LineInput },
    /// Log search being typed.
    LogSearchInput { text: LineInput },
    /// Enter on an attention item (Overview), a lock, a maintenance request
    /// or a cluster state: its full text, wrapped, scrolled down `scroll`
    /// lines (the UI stops at the end).
    Detail { of: DetailOf, scroll: u16 },
    /// The recent notices, newest first, whole (`model.notices`).
    Notices { scroll: u16 },
    /// An action dialog (`crate::app::actions`): picker, confirmation,
    /// progress, quit question.
    Dialog(Dialog),
    /// Which MOSK cluster to follow, at start-up when the management
    /// context holds several (`crate::app::cluster_picker`).
    ClusterPicker(ClusterPicker),
    /// The servers on a node (`crate::app::servers`).
    Servers(crate::app::servers_state::ServersPanel),
}

impl Modal {
    /// An input line (`/`, `:`, log search), drawn over the footer.
    pub fn input(&self) -> Option<&LineInput> {
        match self {
            Modal::FilterInput { text }
            | Modal::CommandInput { text }
            | Modal::LogSearchInput { text } => Some(text),
            _ => None,
        }
    }
}

/// The open modals, bottom first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModalStack {
    stack: Vec<Modal>,
}

impl ModalStack {
    /// Opens `modal` on top of the others.
    pub fn push(&mut self, modal: Modal) {
        self.stack.push(modal);
    }

    /// Closes the top modal and returns it.
    pub fn pop(&mut self) -> Option<Modal> {
        self.stack.pop()
    }

    /// The modal that takes the keys.
    pub fn top(&self) -> Option<&Modal> {
        self.stack.last()
    }

    pub fn top_mut(&mut self) -> Option<&mut Modal> {
        self.stack.last_mut()
    }

    pub fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }

    pub fn len(&self) -> usize {
        self.stack.len()
    }

    /// The open modals, bottom first (the order they are drawn in).
    pub fn iter(&self) -> impl Iterator<Item = &Modal> {
        self.stack.iter()
    }

    /// The open modals, to bring their state up to date (a servers panel
    /// following its cursor's server after a read).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Modal> {
        self.stack.iter_mut()
    }

    /// The uppermost action dialog, if one is open.
    pub fn dialog(&self) -> Option<&Dialog> {
        self.stack.iter().rev().find_map(|m| match m {
            Modal::Dialog(d) => Some(d),
            _ => None,
        })
    }

    pub fn dialog_mut(&mut self) -> Option<&mut Dialog> {
        self.stack.iter_mut().rev().find_map(|m| match m {
            Modal::Dialog(d) => Some(d),
            _ => None,
        })
    }

    /// The action dialog, when it is the top modal (it takes the keys).
    pub fn top_dialog(&self) -> Option<&Dialog> {
        match self.top() {
            Some(Modal::Dialog(d)) => Some(d),
            _ => None,
        }
    }

    /// Opens `dialog` on top, in place of any open action dialog: one
    /// action is in hand at a time (the picker gives way to its
    /// confirmation, the confirmation to the progress).
    pub fn open_dialog(&mut self, dialog: Dialog) {
        self.close_dialog();
        self.stack.push(Modal::Dialog(dialog));
    }

    /// Closes the action dialog and returns it (its keys take it out, and
    /// put back what follows).
    pub fn close_dialog(&mut self) -> Option<Dialog> {
        let i = self
            .stack
            .iter()
            .rposition(|m| matches!(m, Modal::Dialog(_)))?;
        match self.stack.remove(i) {
            Modal::Dialog(d) => Some(d),
            _ => None,
        }
    }

    /// Closes every modal but the action dialogs and the cluster picker
    /// (switching views).
    pub fn close_overlays(&mut self) {
        self.stack
            .retain(|m| matches!(m, Modal::Dialog(_) | Modal::ClusterPicker(_)));
    }

    /// The cluster picker, while the operator has not chosen.
    pub fn cluster_picker(&self) -> Option<&ClusterPicker> {
        self.stack.iter().find_map(|m| match m {
            Modal::ClusterPicker(p) => Some(p),
            _ => None,
        })
    }

    /// Whether a modal other than an action dialog is open: the view's pane
    /// is then drawn without focus (an action dialog leaves it lit, as it
    /// always did).
    pub fn overlay_open(&self) -> bool {
        self.stack.iter().any(|m| !matches!(m, Modal::Dialog(_)))
    }

    /// The input line being typed into, when it is on top.
    pub fn input_mut(&mut self) -> Option<&mut LineInput> {
        match self.stack.last_mut()? {
            Modal::FilterInput { text }
            | Modal::CommandInput { text }
            | Modal::LogSearchInput { text } => Some(text),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_pushed_is_on_top_and_pops_first() {
        let mut s = ModalStack::default();
        assert!(s.top().is_none() && s.pop().is_none());
        s.push(Modal::FilterInput { text: "wor".into() });
        s.push(Modal::Help { scroll: 0 });
        assert_eq!(s.len(), 2);
        assert_eq!(s.top(), Some(&Modal::Help { scroll: 0 }));
        assert!(s.input_mut().is_none(), "the input is not on top");
        assert_eq!(s.pop(), Some(Modal::Help { scroll: 0 }));
        assert_eq!(
            s.input_mut().map(|t| t.text().to_string()),
            Some("wor".into())
        );
        assert!(matches!(s.pop(), Some(Modal::FilterInput { .. })));
        assert!(s.is_empty());
    }

    #[test]
    fn a_dialog_replaces_the_dialog_in_hand_and_goes_on_top() {
        let mut s = ModalStack::default();
        s.push(Modal::attention_text("x"));
        s.open_dialog(Dialog::ConfirmQuit);
        s.push(Modal::Help { scroll: 0 });
        s.open_dialog(Dialog::Progress);
        let order: Vec<&Modal> = s.iter().collect();
        assert_eq!(
            order,
            [
                &Modal::attention_text("x"),
                &Modal::Help { scroll: 0 },
                &Modal::Dialog(Dialog::Progress),
            ]
        );
        assert!(matches!(s.top_dialog(), Some(Dialog::Progress)));
        assert!(matches!(s.close_dialog(), Some(Dialog::Progress)));
        assert!(s.dialog().is_none() && s.top_dialog().is_none());
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn switching_views_keeps_only_the_dialogs() {
        let mut s = ModalStack::default();
        s.push(Modal::Help { scroll: 3 });
        assert!(s.overlay_open());
        s.open_dialog(Dialog::ConfirmQuit);
        s.close_overlays();
        assert!(!s.overlay_open());
        assert_eq!(s.len(), 1);
        assert!(matches!(s.dialog(), Some(Dialog::ConfirmQuit)));
    }
}
