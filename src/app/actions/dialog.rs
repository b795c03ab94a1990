//! The dialogs' state: the migration-mode picker, the confirmation dialog
//! (which is also the acknowledge dialog: it lists the servers), and the
//! progress of a running plan. Rendering is in `crate::ui::dialogs`; keys in
//! `super::keys`.

use crate::app::actions::plan::ActionPlan;
use crate::app::line_input::LineInput;
use crate::domain::action::run::{RunOutcome, StepStatus};
use crate::domain::objects::MigrationMode;

/// An action dialog; on top of the modal stack it takes every key.
#[derive(Debug, Clone, PartialEq)]
pub enum Dialog {
    MigrationMode(Box<MigrationPicker>),
    Confirm(ConfirmDialog),
    /// Shows `ActionsState::running` (the plan being executed or just finished).
    Progress,
    /// `q` while a write is in flight: "quit anyway? y/n".
    ConfirmQuit,
    /// An action on the cursor row while other rows are selected: which
    /// set is meant (`c` the cursor row, `s` the selected rows).
    WhichSet(WhichSet),
}

/// The question "act on the cursor row or on the selected rows?".
#[derive(Debug, Clone, PartialEq)]
pub struct WhichSet {
    pub action: crate::domain::action::ActionId,
    /// What the cursor is on: a machine, a row, an attention item's subject.
    pub cursor_name: String,
    /// The node(s) the cursor row stands for.
    pub cursor_nodes: Vec<String>,
    /// The nodes selected with `space`.
    pub selected: Vec<String>,
}

/// The modes the picker offers, in order.
pub const MODES: [MigrationMode; 3] = [
    MigrationMode::Live,
    MigrationMode::Manual,
    MigrationMode::Skip,
];

/// The most characters the attempts field holds.
pub const ATTEMPTS_CHARS: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerFocus {
    Mode,
    Attempts,
}

/// `m`: pick live | manual | skip, and optionally the attempts.
#[derive(Debug, Clone)]
pub struct MigrationPicker {
    /// The node(s) it applies to, with their current mode and attempts
    /// annotations as seen (`None`: unset).
    pub nodes: Vec<NodeModes>,
    /// Index into [`MODES`].
    pub choice: usize,
    /// At most [`ATTEMPTS_CHARS`] characters.
    pub attempts: LineInput,
    pub focus: PickerFocus,
    /// Why the last Enter was refused.
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeModes {
    pub node: String,
    pub mode: Option<String>,
    pub attempts: Option<String>,
}

/// Pickers are equal when they show the same (the field's undo history
/// does not count).
impl PartialEq for MigrationPicker {
    fn eq(&self, other: &MigrationPicker) -> bool {
        self.nodes == other.nodes
            && self.choice == other.choice
            && self.attempts_text() == other.attempts_text()
            && self.focus == other.focus
            && self.error == other.error
    }
}

impl MigrationPicker {
    pub fn new(nodes: Vec<NodeModes>) -> MigrationPicker {
        let current = nodes
            .first()
            .and_then(|n| n.mode.as_deref())
            .unwrap_or("live");
        let choice = MODES
            .iter()
            .position(|m| m.as_str() == current)
            .unwrap_or(0);
        let attempts = LineInput::with_cap(ATTEMPTS_CHARS).with_placeholder("empty: keep");
        MigrationPicker {
            nodes,
            choice,
            attempts,
            focus: PickerFocus::Mode,
            error: None,
        }
    }

    pub fn mode(&self) -> &MigrationMode {
        &MODES[self.choice.min(MODES.len() - 1)]
    }

    /// The attempts field's text (one line).
    pub fn attempts_text(&self) -> String {
        self.attempts.text().to_string()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmFocus {
    /// The default: Enter cancels.
    Cancel,
    Confirm,
}

/// Names the cluster context, every object and the exact change; Cancel focused.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmDialog {
    pub plan: ActionPlan,
    pub focus: ConfirmFocus,
    /// First line of the object list shown (for long lists).
    pub scroll: u16,
    /// Why the last confirmation was refused (access not known yet, …).
    pub error: Option<String>,
    /// The name the operator must type before the plan can be confirmed
    /// (commencing a step with a major impact on workloads), and the field.
    pub typed_name: Option<Box<TypedName>>,
    /// How many body lines, from the first, have been on screen (a body
    /// taller than the screen is read by scrolling through it).
    pub seen_through: u16,
}

impl ConfirmDialog {
    pub fn new(plan: ActionPlan) -> ConfirmDialog {
        let typed_name = crate::app::actions::plan::commence_step(&plan)
            .filter(|c| c.needs_typed_name())
            .map(|c| Box::new(TypedName::new(&c.name)));
        ConfirmDialog {
            plan,
            focus: ConfirmFocus::Cancel,
            scroll: 0,
            error: None,
            typed_name,
            seen_through: 0,
        }
    }

    /// Whether the dialog may be confirmed as far as the typed name goes:
    /// no name is asked, or the field holds exactly the name asked for.
    pub fn name_typed(&self) -> bool {
        self.typed_name.as_ref().is_none_or(|t| t.matches())
    }
}

/// The field where the operator types a step's name to confirm it.
#[derive(Debug, Clone)]
pub struct TypedName {
    /// What must be typed.
    pub expected: String,
    pub field: LineInput,
}

impl TypedName {
    pub fn new(expected: &str) -> TypedName {
        let field = LineInput::default().with_placeholder("type the step's name");
        TypedName {
            expected: expected.to_string(),
            field,
        }
    }

    /// The field's text (one line).
    pub fn text(&self) -> String {
        self.field.text().to_string()
    }

    pub fn matches(&self) -> bool {
        self.text() == self.expected
    }
}

impl PartialEq for TypedName {
    fn eq(&self, other: &TypedName) -> bool {
        self.expected == other.expected && self.text() == other.text()
    }
}

/// A plan being executed (or just finished, until the dialog is closed).
#[derive(Debug, Clone, PartialEq)]
pub struct RunningAction {
    pub plan: ActionPlan,
    pub steps: Vec<StepStatus>,
    /// The operator asked to stop after the current object.
    pub cancel_requested: bool,
    pub outcome: Option<RunOutcome>,
}

impl RunningAction {
    pub fn new(plan: ActionPlan) -> RunningAction {
        let steps = vec![StepStatus::Pending; plan.steps.len()];
        RunningAction {
            plan,
            steps,
            cancel_requested: false,
            outcome: None,
        }
    }

    pub fn finished(&self) -> bool {
        self.outcome.is_some()
    }

    pub fn done_count(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s, StepStatus::Done(_)))
            .count()
    }
}
