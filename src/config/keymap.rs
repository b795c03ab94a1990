//! Keymaps: which key does what. Loaded from TOML (`keymaps/default.toml` is
//! built in); every key of the active keymap is listed by the help overlay.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use crokey::KeyCombination;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

use crate::domain::action::ActionId;

/// What a key can do. The operator actions (which write to a cluster) are
/// one variant, [`KeyAction::Act`]: their names, labels and what they do
/// come from `crate::domain::action`, the one place an action is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyAction {
    Quit,
    Help,
    Filter,
    Command,
    Back,
    Open,
    Down,
    Up,
    Top,
    Bottom,
    PageDown,
    PageUp,
    /// Scroll the details pane beside a table (Machines, Update plan) down.
    DetailsDown,
    DetailsUp,
    NextView,
    PreviousView,
    Sort,
    ReverseSort,
    ViewOverview,
    ViewMachines,
    ViewStates,
    ViewLocks,
    ViewRequests,
    ViewVrouter,
    ViewLogs,
    ViewEvents,
    ViewAudit,
    LogFollow,
    LogWrap,
    LogLevel,
    LogSearch,
    LogNextMatch,
    LogPreviousMatch,
    LogsForMachine,
    /// Start an operator action (its dialog).
    Act(ActionId),
    ToggleSelect,
    DismissReminder,
    GroupByUpdateGroup,
    ViewUpdatePlan,
    /// The Readiness view: the checks before an update.
    ViewReady,
    /// The recent notices, whole (a long one is cut in the footer).
    Notices,
    /// The servers on the node of the item or row (the OpenStack CLI).
    Servers,
}

/// Help-overlay sections, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyGroup {
    General,
    Navigation,
    Views,
    Logs,
    Actions,
}

impl KeyGroup {
    pub fn title(self) -> &'static str {
        match self {
            KeyGroup::General => "General",
            KeyGroup::Navigation => "Navigation",
            KeyGroup::Views => "Views",
            KeyGroup::Logs => "Logs",
            KeyGroup::Actions => "Actions (write to a cluster)",
        }
    }
}

impl KeyAction {
    /// Every action, in help-overlay order.
    pub const ALL: [KeyAction; 50] = [
        KeyAction::Help,
        KeyAction::Filter,
        KeyAction::Command,
        KeyAction::Open,
        KeyAction::Back,
        KeyAction::Quit,
        KeyAction::DismissReminder,
        KeyAction::Notices,
        KeyAction::Down,
        KeyAction::Up,
        KeyAction::Top,
        KeyAction::Bottom,
        KeyAction::PageDown,
        KeyAction::PageUp,
        KeyAction::DetailsDown,
        KeyAction::DetailsUp,
        KeyAction::NextView,
        KeyAction::PreviousView,
        KeyAction::Sort,
        KeyAction::ReverseSort,
        KeyAction::GroupByUpdateGroup,
        KeyAction::ViewOverview,
        KeyAction::ViewMachines,
        KeyAction::ViewStates,
        KeyAction::ViewLocks,
        KeyAction::ViewRequests,
        KeyAction::ViewVrouter,
        KeyAction::ViewLogs,
        KeyAction::ViewEvents,
        KeyAction::ViewAudit,
        KeyAction::ViewUpdatePlan,
        KeyAction::ViewReady,
        KeyAction::LogFollow,
        KeyAction::LogWrap,
        KeyAction::LogLevel,
        KeyAction::LogSearch,
        KeyAction::LogNextMatch,
        KeyAction::LogPreviousMatch,
        KeyAction::LogsForMachine,
        KeyAction::Act(ActionId::SetMigrationMode),
        KeyAction::Act(ActionId::AcknowledgeMigration),
        KeyAction::Act(ActionId::RestartVrouter),
        KeyAction::Act(ActionId::RestartAllVrouters),
        KeyAction::Act(ActionId::CommenceStep),
        KeyAction::Act(ActionId::RestoreMigrationSetting),
        KeyAction::Servers,
        KeyAction::Act(ActionId::LiveMigrateServers),
        KeyAction::Act(ActionId::StopServers),
        KeyAction::Act(ActionId::ShelveServers),
        KeyAction::ToggleSelect,
    ];

    /// The name used in keymap files.
    pub fn name(self) -> &'static str {
        match self {
            KeyAction::Quit => "quit",
            KeyAction::Help => "help",
            KeyAction::Filter => "filter",
            KeyAction::Command => "command",
            KeyAction::Back => "back",
            KeyAction::Open => "open",
            KeyAction::Down => "down",
            KeyAction::Up => "up",
            KeyAction::Top => "top",
            KeyAction::Bottom => "bottom",
            KeyAction::PageDown => "page-down",
            KeyAction::PageUp => "page-up",
            KeyAction::DetailsDown => "details-down",
            KeyAction::DetailsUp => "details-up",
            KeyAction::NextView => "next-view",
            KeyAction::PreviousView => "previous-view",
            KeyAction::Sort => "sort",
            KeyAction::ReverseSort => "reverse-sort",
            KeyAction::ViewOverview => "view-overview",
            KeyAction::ViewMachines => "view-machines",
            KeyAction::ViewStates => "view-states",
            KeyAction::ViewLocks => "view-locks",
            KeyAction::ViewRequests => "view-requests",
            KeyAction::ViewVrouter => "view-vrouter",
            KeyAction::ViewLogs => "view-logs",
            KeyAction::ViewEvents => "view-events",
            KeyAction::ViewAudit => "view-audit",
            KeyAction::LogFollow => "log-follow",
            KeyAction::LogWrap => "log-wrap",
            KeyAction::LogLevel => "log-level",
            KeyAction::LogSearch => "log-search",
            KeyAction::LogNextMatch => "log-next-match",
            KeyAction::LogPreviousMatch => "log-previous-match",
            KeyAction::LogsForMachine => "logs-for-machine",
            KeyAction::Act(a) => a.name(),
            KeyAction::ToggleSelect => "toggle-select",
            KeyAction::DismissReminder => "dismiss-reminder",
            KeyAction::GroupByUpdateGroup => "group-by-update-group",
            KeyAction::ViewUpdatePlan => "view-update-plan",
            KeyAction::ViewReady => "view-ready",
            KeyAction::Notices => "notices",
            KeyAction::Servers => "servers",
        }
    }

    /// One line for the help overlay (an action's: its label, then what
    /// it does).
    pub fn description(self) -> Cow<'static, str> {
        let text = match self {
            KeyAction::Quit => "quit (restores the terminal)",
            KeyAction::Help => "show or hide this help",
            KeyAction::Filter => "filter the current table (Enter keeps, Esc clears)",
            KeyAction::Command => "switch view (:machines, …) or :report (session report)",
            KeyAction::Back => "close dialog or overlay, clear selection, else filter",
            KeyAction::Open => "open details of a row or item; follow the picked cluster",
            KeyAction::Down => "move down",
            KeyAction::Up => "move up",
            KeyAction::Top => "go to the first row",
            KeyAction::Bottom => "go to the last row",
            KeyAction::PageDown => "page down",
            KeyAction::PageUp => "page up",
            KeyAction::DetailsDown => "scroll the details pane down (Machines, Update plan)",
            KeyAction::DetailsUp => "scroll the details pane up (Machines, Update plan)",
            KeyAction::NextView => "next view",
            KeyAction::PreviousView => "previous view",
            KeyAction::Sort => "sort by the next column shown (wraps)",
            KeyAction::ReverseSort => "reverse the sort order",
            KeyAction::ViewOverview => "Overview",
            KeyAction::ViewMachines => "Machines",
            KeyAction::ViewStates => "Cluster states",
            KeyAction::ViewLocks => "Locks",
            KeyAction::ViewRequests => "Maintenance requests",
            KeyAction::ViewVrouter => "vRouter",
            KeyAction::ViewLogs => "Logs (lcm-controller)",
            KeyAction::ViewEvents => "Events (changes seen)",
            KeyAction::ViewAudit => "Audit (this session's actions)",
            KeyAction::LogFollow => "follow / pause the log",
            KeyAction::LogWrap => "wrap long lines",
            KeyAction::LogLevel => "cycle the minimum level shown",
            KeyAction::LogSearch => "search the log",
            KeyAction::LogNextMatch => "next search match",
            KeyAction::LogPreviousMatch => "previous search match",
            KeyAction::LogsForMachine => "log lines about the selected machine",
            KeyAction::Act(a) => return format!("{}: {}", a.hint(), a.spec().detail).into(),
            KeyAction::ToggleSelect => "select / unselect the row",
            KeyAction::DismissReminder => "dismiss a reminder for this session",
            KeyAction::GroupByUpdateGroup => "Machines: group by update group (on / off)",
            KeyAction::ViewUpdatePlan => "Update plan (ClusterUpdatePlan steps)",
            KeyAction::ViewReady => "Readiness (checks before the update)",
            KeyAction::Notices => "recent notices, whole (the footer cuts long ones)",
            KeyAction::Servers => "servers on the node of the item, row or dialog",
        };
        Cow::Borrowed(text)
    }

    pub fn group(self) -> KeyGroup {
        use KeyAction::*;
        match self {
            Quit | Help | Filter | Command | Back | Open | DismissReminder | Notices => {
                KeyGroup::General
            }
            Down | Up | Top | Bottom | PageDown | PageUp | DetailsDown | DetailsUp | NextView
            | PreviousView | Sort | ReverseSort | GroupByUpdateGroup => KeyGroup::Navigation,
            ViewOverview | ViewMachines | ViewStates | ViewLocks | ViewRequests | ViewVrouter
            | ViewLogs | ViewEvents | ViewAudit | ViewUpdatePlan | ViewReady => KeyGroup::Views,
            LogFollow | LogWrap | LogLevel | LogSearch | LogNextMatch | LogPreviousMatch
            | LogsForMachine => KeyGroup::Logs,
            Act(_) | ToggleSelect | Servers => KeyGroup::Actions,
        }
    }

    pub fn from_name(name: &str) -> Option<KeyAction> {
        KeyAction::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// A loaded keymap.
#[derive(Debug, Clone)]
pub struct Keymap {
    /// Keys for each action, as written in the file (for the help overlay).
    pub keys: BTreeMap<KeyAction, Vec<String>>,
    by_key: BTreeMap<String, KeyAction>,
}

/// A keymap file that could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct KeymapError(pub String);

impl fmt::Display for KeymapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeymapError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeymapFile {
    keys: BTreeMap<String, Vec<String>>,
}

/// The built-in default keymap file.
pub const DEFAULT_KEYMAP: &str = include_str!("../../keymaps/default.toml");

/// Parses a key as written in a keymap (crokey syntax; a lone upper-case
/// letter such as `G` means shift-g).
pub fn parse_key(raw: &str) -> Result<KeyCombination, String> {
    let raw = raw.trim();
    let spelled = match raw.chars().collect::<Vec<_>>().as_slice() {
        [c] if c.is_ascii_uppercase() => format!("shift-{}", c.to_ascii_lowercase()),
        _ => raw.to_string(),
    };
    crokey::parse(&spelled)
        .map(normalize)
        .map_err(|e| format!("{raw:?} is not a key ({e})"))
}

/// Makes a key comparable regardless of how the terminal reported shift on
/// punctuation (`?` arrives with or without SHIFT depending on the terminal).
fn normalize(k: KeyCombination) -> KeyCombination {
    let mut k = k.normalized();
    if let crokey::OneToThree::One(KeyCode::Char(c)) = k.codes
        && !c.is_alphabetic()
    {
        k.modifiers.remove(KeyModifiers::SHIFT);
    }
    k
}

fn key_id(k: KeyCombination) -> String {
    format!("{:?}", normalize(k))
}

impl Keymap {
    /// Parses a keymap file. `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Keymap, KeymapError> {
        let file: KeymapFile =
            toml::from_str(text).map_err(|e| KeymapError(format!("keymap {origin}: {e}")))?;
        let mut keys = BTreeMap::new();
        let mut by_key: BTreeMap<String, KeyAction> = BTreeMap::new();
        for (name, list) in file.keys {
            let action = KeyAction::from_name(&name).ok_or_else(|| {
                KeymapError(format!(
                    "keymap {origin}: unknown action {name:?} (known: {})",
                    KeyAction::ALL.map(|a| a.name()).join(", ")
                ))
            })?;
            for raw in &list {
                let k = parse_key(raw)
                    .map_err(|e| KeymapError(format!("keymap {origin}: action {name}: {e}")))?;
                if let Some(other) = by_key.insert(key_id(k), action)
                    && other != action
                {
                    return Err(KeymapError(format!(
                        "keymap {origin}: key {raw:?} is bound to both {} and {}",
                        other.name(),
                        action.name()
                    )));
                }
            }
            keys.insert(action, list);
        }
        Ok(Keymap { keys, by_key })
    }

    /// The built-in default keymap.
    pub fn default_keymap() -> Keymap {
        Keymap::parse(DEFAULT_KEYMAP, "keymaps/default.toml").expect("built-in keymap is valid")
    }

    /// Loads a keymap by built-in name (`default`) or by path.
    pub fn load(name_or_path: &str) -> Result<Keymap, KeymapError> {
        if name_or_path == "default" {
            return Ok(Keymap::default_keymap());
        }
        let text = std::fs::read_to_string(name_or_path).map_err(|e| {
            KeymapError(format!(
                "keymap {name_or_path:?}: not a built-in keymap (built in: default) and not a readable file: {e}"
            ))
        })?;
        Keymap::parse(&text, name_or_path)
    }

    /// What a key press does, if anything.
    pub fn action_for(&self, ev: &KeyEvent) -> Option<KeyAction> {
        self.by_key.get(&key_id(KeyCombination::from(*ev))).copied()
    }

    /// The keys of an action, joined for display ("j, down").
    pub fn keys_of(&self, action: KeyAction) -> String {
        self.keys
            .get(&action)
            .map(|v| v.join(", "))
            .unwrap_or_default()
    }

    /// The first key of an action, for hints in the footer.
    pub fn first_key(&self, action: KeyAction) -> Option<&str> {
        self.keys
            .get(&action)
            .and_then(|v| v.first())
            .map(|s| s.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEventKind;

    fn ev(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        let mut e = KeyEvent::new(code, mods);
        e.kind = KeyEventKind::Press;
        e
    }

    #[test]
    fn default_keymap_binds_every_action() {
        let km = Keymap::default_keymap();
        for a in KeyAction::ALL {
            assert!(km.keys.contains_key(&a), "no key for {}", a.name());
        }
    }

    #[test]
    fn every_operator_action_has_one_key_action_named_as_the_action() {
        let km = Keymap::default_keymap();
        for id in ActionId::ALL {
            let act = KeyAction::Act(id);
            assert_eq!(
                KeyAction::ALL.iter().filter(|a| **a == act).count(),
                1,
                "{} is listed once",
                id.name()
            );
            assert_eq!(act.name(), id.name());
            assert_eq!(KeyAction::from_name(id.name()), Some(act));
            assert_eq!(act.group(), KeyGroup::Actions);
        }
        let act = |c| km.action_for(&ev(KeyCode::Char(c), KeyModifiers::NONE));
        assert_eq!(act('m'), Some(KeyAction::Act(ActionId::SetMigrationMode)));
        assert_eq!(
            act('a'),
            Some(KeyAction::Act(ActionId::AcknowledgeMigration))
        );
        assert_eq!(act('R'), Some(KeyAction::Act(ActionId::RestartVrouter)));
        assert_eq!(act('c'), Some(KeyAction::Act(ActionId::CommenceStep)));
        assert_eq!(
            km.action_for(&ev(KeyCode::Char('r'), KeyModifiers::CONTROL)),
            Some(KeyAction::Act(ActionId::RestartAllVrouters))
        );
    }

    #[test]
    fn keys_resolve_like_a_terminal_sends_them() {
        let km = Keymap::default_keymap();
        let c = |ch| ev(KeyCode::Char(ch), KeyModifiers::NONE);
        assert_eq!(km.action_for(&c('q')), Some(KeyAction::Quit));
        assert_eq!(km.action_for(&c('j')), Some(KeyAction::Down));
        assert_eq!(
            km.action_for(&ev(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(KeyAction::Bottom)
        );
        assert_eq!(km.action_for(&c('G')), Some(KeyAction::Bottom));
        assert_eq!(km.action_for(&c('g')), Some(KeyAction::Top));
        assert_eq!(km.action_for(&c('?')), Some(KeyAction::Help));
        assert_eq!(
            km.action_for(&ev(KeyCode::Char('?'), KeyModifiers::SHIFT)),
            Some(KeyAction::Help)
        );
        assert_eq!(
            km.action_for(&ev(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(KeyAction::Quit)
        );
        assert_eq!(
            km.action_for(&ev(KeyCode::Down, KeyModifiers::NONE)),
            Some(KeyAction::Down)
        );
        assert_eq!(
            km.action_for(&ev(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(KeyAction::PreviousView)
        );
        assert_eq!(km.action_for(&c(' ')), Some(KeyAction::ToggleSelect));
        assert_eq!(km.action_for(&c('x')), Some(KeyAction::DismissReminder));
        assert_eq!(km.action_for(&c('z')), None);
    }

    #[test]
    fn bad_keymaps_say_what_is_wrong() {
        let e = Keymap::parse("[keys]\nfly = [\"x\"]\n", "mine.toml").unwrap_err();
        assert!(
            e.0.contains("mine.toml") && e.0.contains("unknown action \"fly\""),
            "{e}"
        );
        let e = Keymap::parse("[keys]\nquit = [\"ctrl-\"]\n", "mine.toml").unwrap_err();
        assert!(e.0.contains("action quit"), "{e}");
        let e = Keymap::parse("[keys]\nquit = [\"x\"]\nhelp = [\"x\"]\n", "m").unwrap_err();
        assert!(e.0.contains("bound to both"), "{e}");
        let e = Keymap::load("/nonexistent/keys.toml").unwrap_err();
        assert!(e.0.contains("not a readable file"), "{e}");
    }
}
