//! The servers on a node as the OpenStack CLI lists them (`openstack server
//! list --all-projects --host <node> --long -f json`, each completed by
//! `server show <id> -f json` for its tags and `vm_state`, and `openstack
//! project list -f json` for the projects' names), and what the OpenStack
//! controller will do with each under the node's migration mode.
//!
//! The columns are python-openstackclient's (`ListServer.take_action`,
//! openstack/python-openstackclient `openstackclient/compute/v2/server.py`,
//! commit 5b7da4b4): `Flavor` (not `Flavor Name`), `Project ID` only,
//! `Power State` a number under `-f json` (cliff's `machine_readable()`).
//!
//! What the controller does follows the rules `domain::migration` ports
//! from github:Mirantis/rockoon at commit 1390883a: exactly one
//! `openstack.lcm.mirantis.com:maintenance_action` tag wins, otherwise the
//! node's mode decides (`compute_get_server_maintenance_action`,
//! `rockoon/openstack_utils.py`; `NODE_MAINTENANCE_TO_INSTANCE_MAINTENANCE`,
//! `rockoon/maintenance.py`); the completion check leaves out servers whose
//! `vm_state` is in `SERVER_STATES_SAFE_FOR_REBOOT` or whose power state is
//! in `SERVER_STOPPED_POWER_STATES`, and those whose action is `poweroff`
//! (`Nova._check_migration_completed`, `rockoon/services/__init__.py`); the
//! controller live-migrates only ACTIVE or PAUSED servers not already
//! migrating (`compute_get_servers_valid_for_live_migration`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::objects::MigrationMode;

/// The server tag the controller reads (rockoon `maintenance.py`,
/// `INSTANCE_MAINTENANCE_ACTION_TAG`, 1390883a).
pub const MAINTENANCE_ACTION_TAG: &str = "openstack.lcm.mirantis.com:maintenance_action";

/// rockoon `SERVER_STATES_SAFE_FOR_REBOOT` (`openstack_utils.py`, 1390883a).
const STATES_SAFE_FOR_REBOOT: [&str; 7] = [
    "building",
    "deleted",
    "soft_deleted",
    "stopped",
    "suspended",
    "shelved",
    "shelve_offloaded",
];

/// rockoon `SERVER_STOPPED_POWER_STATES` (`openstack_utils.py`, 1390883a):
/// shutdown, crashed, suspended.
const STOPPED_POWER_STATES: [i64; 3] = [4, 6, 7];

/// One server on the node, as the CLI gave it (every string sanitized by
/// the exec layer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub id: String,
    pub name: String,
    pub status: String,
    pub task_state: Option<String>,
    /// Nova's number (`-f json`).
    pub power_state: Option<i64>,
    pub flavor: String,
    pub host: Option<String>,
    pub project_id: String,
    /// From `server show`; `None` when it was not read.
    pub vm_state: Option<String>,
    /// From `server show`; `None` when it was not read.
    pub tags: Option<Vec<String>>,
}

/// What the controller does with one server (the values of rockoon's
/// `NODE_MAINTENANCE_TO_INSTANCE_MAINTENANCE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaintenanceAction {
    LiveMigrate,
    Notify,
    Poweroff,
}

impl MaintenanceAction {
    pub fn as_str(self) -> &'static str {
        match self {
            MaintenanceAction::LiveMigrate => "live_migrate",
            MaintenanceAction::Notify => "notify",
            MaintenanceAction::Poweroff => "poweroff",
        }
    }
}

/// Nova's power state in words (`nova/compute/power_state.py`'s names).
pub fn power_state_words(p: Option<i64>) -> String {
    match p {
        None => "-".into(),
        Some(0) => "NOSTATE".into(),
        Some(1) => "Running".into(),
        Some(3) => "Paused".into(),
        Some(4) => "Shutdown".into(),
        Some(6) => "Crashed".into(),
        Some(7) => "Suspended".into(),
        Some(n) => format!("unknown ({n})"),
    }
}

impl Server {
    /// The one maintenance-action tag, when exactly one is set
    /// (`compute_get_server_maintenance_action`); `Ok(None)`: none or
    /// several (the node's mode decides); `None`: the tags were not read.
    pub fn tag(&self) -> Option<Option<MaintenanceAction>> {
        let tags = self.tags.as_ref()?;
        let seen: Vec<MaintenanceAction> = [
            MaintenanceAction::Poweroff,
            MaintenanceAction::Notify,
            MaintenanceAction::LiveMigrate,
        ]
        .into_iter()
        .filter(|a| tags.contains(&format!("{MAINTENANCE_ACTION_TAG}={}", a.as_str())))
        .collect();
        Some(match seen.as_slice() {
            [one] => Some(*one),
            _ => None,
        })
    }

    /// The tag as shown: `notify`, `-` (none), `?` (not read).
    pub fn tag_text(&self) -> String {
        match self.tag() {
            Some(Some(a)) => a.as_str().to_string(),
            Some(None) => "-".to_string(),
            None => "?".to_string(),
        }
    }

    /// The action the controller takes: the one tag, else the node's mode
    /// (`live` when unset); `Err` for a mode the controller does not know
    /// (its KeyError) or tags not read.
    pub fn action(&self, mode: Option<&MigrationMode>) -> Result<MaintenanceAction, String> {
        if let Some(a) = self.tag().ok_or_else(|| "tags not read".to_string())? {
            return Ok(a);
        }
        match mode.unwrap_or(&MigrationMode::Live) {
            MigrationMode::Skip => Ok(MaintenanceAction::Poweroff),
            MigrationMode::Manual => Ok(MaintenanceAction::Notify),
            MigrationMode::Live => Ok(MaintenanceAction::LiveMigrate),
            MigrationMode::Other(v) => Err(format!("mode {v:?} unknown to the controller")),
        }
    }

    /// Not running: the completion check leaves it out.
    pub fn not_running(&self) -> bool {
        self.vm_state
            .as_deref()
            .is_some_and(|v| STATES_SAFE_FOR_REBOOT.contains(&v))
            || self
                .power_state
                .is_some_and(|p| STOPPED_POWER_STATES.contains(&p))
    }

    /// A live migration is under way (Nova's status or task state).
    pub fn migrating(&self) -> bool {
        self.status.eq_ignore_ascii_case("MIGRATING")
            || self.task_state.as_deref() == Some("migrating")
    }

    /// What the controller will do with it under `mode`, in words.
    pub fn controller_will(&self, mode: Option<&MigrationMode>) -> String {
        // The completion check's rule ([`Server::holds_node`]), said with its
        // reason; it filters by state before it reads the mode or the tags,
        // so a server not running is answered even when those are unknown.
        if self.not_running() {
            return "nothing: not running, it does not hold the node".into();
        }
        let action = match self.action(mode) {
            Ok(a) => a,
            Err(e) => return format!("cannot tell: {e}"),
        };
        if !self.holds_node(mode) {
            return "nothing: it goes down with the node's reboot (poweroff)".into();
        }
        match action {
            MaintenanceAction::LiveMigrate => {
                if self.migrating() {
                    "waits: its live migration runs".into()
                } else if matches!(self.status.as_str(), "ACTIVE" | "PAUSED") {
                    "live-migrates it (live_migrate)".into()
                } else {
                    format!(
                        "holds the node: status {} is not migrated by the controller",
                        self.status
                    )
                }
            }
            MaintenanceAction::Notify => "holds the node until the operator acts (notify)".into(),
            MaintenanceAction::Poweroff => unreachable!("answered above"),
        }
    }

    /// Still holding the node as the controller's completion check sees it
    /// (`Nova._check_migration_completed`): running and not `poweroff`.
    /// [`Server::controller_will`] says it in words.
    pub fn holds_node(&self, mode: Option<&MigrationMode>) -> bool {
        !self.not_running() && self.action(mode) != Ok(MaintenanceAction::Poweroff)
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// `server list --long -f json`: one [`Server`] per row (tags and vm_state
/// not read).
pub fn parse_list(v: &Value) -> Result<Vec<Server>, String> {
    let rows = v
        .as_array()
        .ok_or("server list: not a JSON list".to_string())?;
    rows.iter()
        .map(|r| {
            Ok(Server {
                id: text(r, "ID").ok_or("server list: a row without ID")?,
                name: text(r, "Name").unwrap_or_default(),
                status: text(r, "Status").unwrap_or_default(),
                task_state: text(r, "Task State"),
                power_state: r.get("Power State").and_then(Value::as_i64),
                flavor: text(r, "Flavor").unwrap_or_default(),
                host: text(r, "Host"),
                project_id: text(r, "Project ID").unwrap_or_default(),
                vm_state: None,
                tags: None,
            })
        })
        .collect()
}

/// Completes `s` from `server show <id> -f json`: tags, vm_state, and the
/// newer status, task state, power state and host.
pub fn apply_show(s: &mut Server, v: &Value) {
    s.vm_state = text(v, "OS-EXT-STS:vm_state");
    s.tags = Some(
        v.get("tags")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
    );
    if let Some(st) = text(v, "status") {
        s.status = st;
    }
    s.task_state = text(v, "OS-EXT-STS:task_state");
    if let Some(p) = v.get("OS-EXT-STS:power_state").and_then(Value::as_i64) {
        s.power_state = Some(p);
    }
    s.host = text(v, "OS-EXT-SRV-ATTR:host");
}

/// `project list -f json`: ID -> name.
pub fn parse_projects(v: &Value) -> BTreeMap<String, String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| Some((text(r, "ID")?, text(r, "Name")?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server(status: &str, power: i64, vm: &str, tags: &[&str]) -> Server {
        Server {
            id: "id".into(),
            name: "vm".into(),
            status: status.into(),
            task_state: None,
            power_state: Some(power),
            flavor: "m1.small".into(),
            host: Some("n".into()),
            project_id: "p".into(),
            vm_state: Some(vm.into()),
            tags: Some(
                tags.iter()
                    .map(|t| format!("{MAINTENANCE_ACTION_TAG}={t}"))
                    .collect(),
            ),
        }
    }

    #[test]
    fn one_tag_wins_several_fall_back_to_the_mode() {
        let manual = MigrationMode::Manual;
        let s = server("ACTIVE", 1, "active", &["live_migrate"]);
        assert_eq!(s.action(Some(&manual)), Ok(MaintenanceAction::LiveMigrate));
        let s = server("ACTIVE", 1, "active", &["live_migrate", "notify"]);
        assert_eq!(s.action(Some(&manual)), Ok(MaintenanceAction::Notify));
        assert_eq!(s.tag_text(), "-");
        let s = server("ACTIVE", 1, "active", &[]);
        assert_eq!(s.action(None), Ok(MaintenanceAction::LiveMigrate));
        assert!(s.action(Some(&MigrationMode::Other("x".into()))).is_err());
        assert!(s.holds_node(Some(&manual)));
        assert!(!s.holds_node(Some(&MigrationMode::Skip)));
        assert_eq!(
            s.controller_will(Some(&manual)),
            "holds the node until the operator acts (notify)"
        );
    }

    /// The panel's column and the completion check's rule agree: the
    /// column says "nothing" exactly for the servers that do not hold the
    /// node, whatever the state, tag and mode.
    #[test]
    fn what_the_controller_will_do_says_nothing_exactly_when_the_server_does_not_hold_the_node() {
        let modes = [
            None,
            Some(MigrationMode::Live),
            Some(MigrationMode::Manual),
            Some(MigrationMode::Skip),
            Some(MigrationMode::Other("livee".into())),
        ];
        let mut checked = 0;
        for (status, power, vm) in [
            ("ACTIVE", 1, "active"),
            ("PAUSED", 3, "paused"),
            ("SHUTOFF", 4, "stopped"),
            ("SHELVED_OFFLOADED", 7, "shelved_offloaded"),
            ("ERROR", 1, "error"),
            ("MIGRATING", 1, "active"),
        ] {
            for tags in [&[][..], &["live_migrate"], &["notify"], &["poweroff"]] {
                for (mode, tags_read) in modes.iter().flat_map(|m| [(m, true), (m, false)]) {
                    let mut s = server(status, power, vm, tags);
                    if !tags_read {
                        s.tags = None;
                    }
                    let said = s.controller_will(mode.as_ref());
                    assert_eq!(
                        said.starts_with("nothing"),
                        !s.holds_node(mode.as_ref()),
                        "{status} {tags:?} (read: {tags_read}) {mode:?}: {said}"
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 240);
    }

    #[test]
    fn stopped_or_shelved_servers_do_not_hold_the_node() {
        let s = server("SHUTOFF", 4, "stopped", &["notify"]);
        assert!(!s.holds_node(None));
        assert!(s.controller_will(None).starts_with("nothing: not running"));
        let mut e = server("ERROR", 1, "error", &[]);
        assert!(e.holds_node(None), "a server in error may run");
        assert!(e.controller_will(None).contains("status ERROR"));
        e.tags = None;
        assert_eq!(e.tag_text(), "?");
    }

    #[test]
    fn list_and_show_and_projects_parse_as_osc_writes_them() {
        let list = json!([{"ID": "a", "Name": "vm-1", "Status": "ACTIVE", "Task State": null,
            "Power State": 1, "Flavor": "m1.small", "Host": "n1", "Project ID": "p1"}]);
        let mut s = parse_list(&list).unwrap().remove(0);
        assert_eq!(s.power_state, Some(1));
        assert_eq!(power_state_words(s.power_state), "Running");
        assert_eq!(s.tags, None);
        apply_show(
            &mut s,
            &json!({"status": "MIGRATING", "OS-EXT-STS:task_state": "migrating",
                "OS-EXT-STS:vm_state": "active", "OS-EXT-STS:power_state": 1,
                "OS-EXT-SRV-ATTR:host": "n1", "tags": [format!("{MAINTENANCE_ACTION_TAG}=notify")]}),
        );
        assert!(s.migrating());
        assert_eq!(s.tag_text(), "notify");
        let p = parse_projects(&json!([{"ID": "p1", "Name": "tenant-a"}]));
        assert_eq!(p.get("p1").map(String::as_str), Some("tenant-a"));
        assert!(parse_list(&json!({})).is_err());
    }
}
