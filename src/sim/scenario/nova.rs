//! A model of Nova: servers on compute hosts, live migrations that take
//! time, succeed or fail, and the compute services' state.
//!
//! A server carries what the OpenStack controller (Rockoon) reads from the
//! Compute API: `status`, `vm_state`, `task_state`, `power_state`, `tags`,
//! and its host; plus name, project and flavor for whoever serves it. The
//! queries follow Rockoon's `OpenStackClientManager` (github:Mirantis/rockoon,
//! rockoon/openstack_utils.py, commit 1390883a): `compute_get_all_servers`,
//! `compute_get_servers_valid_for_live_migration`,
//! `compute_get_servers_in_migrating_state` and
//! `compute_get_server_maintenance_action`.

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use rand::Rng;
use rand::rngs::SmallRng;

use super::plan_spec::ServerTag;
use super::spec::{LiveMigrationProblem, ServerState};

/// Nova server `status` values.
pub const ACTIVE: &str = "ACTIVE";
pub const PAUSED: &str = "PAUSED";
pub const MIGRATING: &str = "MIGRATING";
pub const ERROR: &str = "ERROR";
pub const SHUTOFF: &str = "SHUTOFF";
pub const SHELVED_OFFLOADED: &str = "SHELVED_OFFLOADED";

/// The `task_state` of a server being live-migrated.
pub const TASK_MIGRATING: &str = "migrating";
/// The `task_state` while a stop asked through the API runs.
pub const TASK_POWERING_OFF: &str = "powering-off";
/// The `task_state` while a shelve asked through the API runs.
pub const TASK_SHELVING: &str = "shelving";

/// How long a stop asked through the API takes (the guest's clean
/// shutdown; inferred [I]).
pub const STOP_TAKES: SignedDuration = SignedDuration::from_secs(5);
/// How long a shelve takes until the server is offloaded (Nova's default
/// `shelved_offload_time` is 0: offloaded at once after the snapshot;
/// the snapshot's time is inferred [I]).
pub const SHELVE_TAKES: SignedDuration = SignedDuration::from_secs(20);
/// How long a live migration the conductor's pre-check refuses stays
/// `migrating` before the server is back to its state (inferred [I]).
pub const PRECHECK_TAKES: SignedDuration = SignedDuration::from_secs(2);

/// Nova power states (Rockoon's `SERVER_POWER_STATES`).
pub const POWER_NOSTATE: u8 = 0;
pub const POWER_RUNNING: u8 = 1;
pub const POWER_PAUSED: u8 = 3;
pub const POWER_SHUTDOWN: u8 = 4;
pub const POWER_CRASHED: u8 = 6;
pub const POWER_SUSPENDED: u8 = 7;

/// Rockoon's `SERVER_STOPPED_POWER_STATES` (openstack_utils.py, 1390883a).
pub const STOPPED_POWER_STATES: [u8; 3] = [POWER_SHUTDOWN, POWER_CRASHED, POWER_SUSPENDED];

/// Rockoon's `SERVER_STATES_SAFE_FOR_REBOOT` (openstack_utils.py, 1390883a):
/// vm_states of servers that are not running. `error` is deliberately not
/// there (a server in error may be running).
pub const STATES_SAFE_FOR_REBOOT: [&str; 7] = [
    "building",
    "deleted",
    "soft_deleted",
    "stopped",
    "suspended",
    "shelved",
    "shelve_offloaded",
];

/// The server tag key (Rockoon's `INSTANCE_MAINTENANCE_ACTION_TAG`, maintenance.py).
pub const MAINTENANCE_ACTION_TAG: &str = "openstack.lcm.mirantis.com:maintenance_action";

/// A stop or a shelve asked through the Compute API, until it is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Underway {
    Stop { ends: Timestamp },
    Shelve { ends: Timestamp },
}

/// A live migration in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    pub target: String,
    pub ends: Timestamp,
    /// false: aborted at `ends`; the server stays on its host.
    pub succeeds: bool,
    /// The status it returns to (ACTIVE or PAUSED).
    pub from_status: &'static str,
}

/// One Nova server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub id: String,
    pub name: String,
    pub project: String,
    pub flavor: String,
    /// `OS-EXT-SRV-ATTR:host`; `None` when shelved offloaded.
    pub host: Option<String>,
    pub status: &'static str,
    pub vm_state: &'static str,
    pub task_state: Option<&'static str>,
    pub power_state: u8,
    pub tags: Vec<String>,
    /// Why it cannot be live-migrated, if it cannot.
    pub problem: Option<LiveMigrationProblem>,
    pub migration: Option<Migration>,
    /// When its owner shuts it off.
    pub stop_at: Option<Timestamp>,
    /// A stop or shelve asked through the API (`openstack server stop|shelve`).
    pub underway: Option<Underway>,
}

/// What the OpenStack controller does with one instance (the values of
/// Rockoon's `NODE_MAINTENANCE_TO_INSTANCE_MAINTENANCE`, maintenance.py).
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

/// `NODE_MAINTENANCE_TO_INSTANCE_MAINTENANCE[mode]` (maintenance.py,
/// 1390883a), in the dict's order; `Err` is Python's KeyError for a mode
/// the controller does not know.
pub fn node_mode_action(mode: &str) -> Result<MaintenanceAction, String> {
    match mode {
        "skip" => Ok(MaintenanceAction::Poweroff),
        "manual" => Ok(MaintenanceAction::Notify),
        "live" => Ok(MaintenanceAction::LiveMigrate),
        other => Err(format!("KeyError: '{other}'")),
    }
}

impl Server {
    /// Rockoon's `compute_get_server_maintenance_action` (openstack_utils.py,
    /// 1390883a): exactly one action tag wins; none or several fall back to
    /// the node's mode, which raises KeyError for an unknown mode.
    pub fn maintenance_action(&self, node_mode: &str) -> Result<MaintenanceAction, String> {
        let seen: Vec<MaintenanceAction> = [
            MaintenanceAction::Poweroff,
            MaintenanceAction::Notify,
            MaintenanceAction::LiveMigrate,
        ]
        .into_iter()
        .filter(|a| {
            let tag = format!("{MAINTENANCE_ACTION_TAG}={}", a.as_str());
            self.tags.contains(&tag)
        })
        .collect();
        if seen.len() == 1 {
            return Ok(seen[0]);
        }
        node_mode_action(node_mode)
    }

    /// Shut off, suspended, shelved or otherwise not running: Rockoon's
    /// completion check leaves it out.
    pub fn not_running(&self) -> bool {
        STATES_SAFE_FOR_REBOOT.contains(&self.vm_state)
            || STOPPED_POWER_STATES.contains(&self.power_state)
    }

    pub fn on(&self, host: &str) -> bool {
        self.host.as_deref() == Some(host)
    }
}

/// The exception text a refused live migration raises (openstacksdk's
/// BadRequestException around Nova's pre-check error; the wording is inferred).
pub fn migration_exception(server: &str, problem: Option<LiveMigrationProblem>) -> String {
    let reason = match problem {
        Some(LiveMigrationProblem::LvmEphemeral) => {
            "Live migration can not be used without shared storage except a booted from volume VM which does not have a local disk."
        }
        Some(LiveMigrationProblem::EncryptedVolume) => {
            "Cannot live migrate an instance with encrypted volumes attached."
        }
        Some(LiveMigrationProblem::CpuPinning) => {
            "Instance with dedicated CPUs or NUMA topology cannot be live migrated to the requested host."
        }
        Some(LiveMigrationProblem::NotConverging) | None => {
            "No valid host was found. There are not enough hosts available."
        }
    };
    format!(
        "BadRequestException: 400: Client Error for url: {NOVA_API}/servers/{server}/action, Migration pre-check error: {reason}"
    )
}

/// The Compute API's address inside the MOSK cluster (in exception texts).
pub const NOVA_API: &str = "http://nova-api.openstack.svc.cluster.local:8774/v2.1";

/// Why the Compute API refused a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NovaError {
    /// 404: no such server.
    NotFound,
    /// 409: the server's state does not allow it (Nova's text).
    Conflict(String),
}

/// One nova-compute service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputeService {
    /// Not disabled: the scheduler may place (or migrate) instances here.
    pub enabled: bool,
    /// `state` up (false: down).
    pub up: bool,
    /// When a down service reports up again.
    pub up_at: Option<Timestamp>,
}

/// A new server to place on a host at the start.
#[derive(Debug, Clone)]
pub struct NewServer<'a> {
    pub id: &'a str,
    pub name: String,
    pub project: String,
    pub flavor: String,
    pub host: &'a str,
    pub state: ServerState,
    pub problem: Option<LiveMigrationProblem>,
    pub tag: Option<ServerTag>,
}

/// All servers, by id (ordered for determinism), and the compute services by host.
#[derive(Debug, Clone, Default)]
pub struct Nova {
    servers: BTreeMap<String, Server>,
    services: BTreeMap<String, ComputeService>,
}

impl Nova {
    pub fn add_host(&mut self, host: &str) {
        self.services.insert(
            host.to_string(),
            ComputeService {
                enabled: true,
                up: true,
                up_at: None,
            },
        );
    }

    pub fn add_server(&mut self, s: NewServer) {
        let (status, vm_state, power_state, host) = match s.state {
            ServerState::Active => (ACTIVE, "active", POWER_RUNNING, Some(s.host)),
            ServerState::Paused => (PAUSED, "paused", POWER_PAUSED, Some(s.host)),
            ServerState::Error => (ERROR, "error", POWER_NOSTATE, Some(s.host)),
            ServerState::Shutoff => (SHUTOFF, "stopped", POWER_SHUTDOWN, Some(s.host)),
            ServerState::ShelvedOffloaded => {
                (SHELVED_OFFLOADED, "shelved_offloaded", POWER_SHUTDOWN, None)
            }
        };
        let tag = |a: &str| format!("{MAINTENANCE_ACTION_TAG}={a}");
        let tags = match s.tag {
            None | Some(ServerTag::None) => vec![],
            Some(ServerTag::Poweroff) => vec![tag("poweroff")],
            Some(ServerTag::LiveMigrate) => vec![tag("live_migrate")],
            Some(ServerTag::Notify) => vec![tag("notify")],
            Some(ServerTag::Several) => vec![tag("notify"), tag("live_migrate")],
        };
        self.servers.insert(
            s.id.to_string(),
            Server {
                id: s.id.to_string(),
                name: s.name,
                project: s.project,
                flavor: s.flavor,
                host: host.map(str::to_string),
                status,
                vm_state,
                task_state: None,
                power_state,
                tags,
                problem: s.problem,
                migration: None,
                stop_at: None,
                underway: None,
            },
        );
    }

    /// The owner of a server shuts it off at `at` (once).
    pub fn owner_stops(&mut self, id: &str, at: Timestamp) {
        if let Some(s) = self.servers.get_mut(id)
            && s.stop_at.is_none()
            && !s.not_running()
        {
            s.stop_at = Some(at);
        }
    }

    /// Disables or enables a compute service (scheduling to the host).
    pub fn set_enabled(&mut self, host: &str, enabled: bool) {
        if let Some(e) = self.services.get_mut(host) {
            e.enabled = enabled;
        }
    }

    /// The host's compute service goes down (its node reboots).
    pub fn service_down(&mut self, host: &str) {
        if let Some(e) = self.services.get_mut(host) {
            e.up = false;
            e.up_at = None;
        }
    }

    /// The host's compute service reports up at `at`.
    pub fn service_up_at(&mut self, host: &str, at: Timestamp) {
        if let Some(e) = self.services.get_mut(host) {
            e.up_at = Some(at);
        }
    }

    /// Every compute service on the host is up (Rockoon's
    /// `wait_for_service_found_and_up`: none found counts as not up).
    pub fn services_up(&self, host: &str) -> bool {
        self.services.get(host).is_some_and(|s| s.up)
    }

    pub fn service(&self, host: &str) -> Option<&ComputeService> {
        self.services.get(host)
    }

    pub fn server(&self, id: &str) -> Option<&Server> {
        self.servers.get(id)
    }

    /// Every server, in id order.
    pub fn servers(&self) -> impl Iterator<Item = &Server> {
        self.servers.values()
    }

    /// `compute_get_all_servers(host=...)`: servers on a host, in id order.
    pub fn on_host<'a>(&'a self, host: &'a str) -> impl Iterator<Item = &'a Server> + 'a {
        self.servers.values().filter(move |s| s.on(host))
    }

    /// `compute_get_servers_in_migrating_state`: status MIGRATING on the host.
    pub fn migrating_on(&self, host: &str) -> Vec<String> {
        self.on_host(host)
            .filter(|s| s.status == MIGRATING)
            .map(|s| s.id.clone())
            .collect()
    }

    /// `compute_get_servers_valid_for_live_migration`: ACTIVE then PAUSED
    /// servers on the host whose task_state is not `migrating` and, from
    /// MOSK 25.1 (`node_mode` given), whose action is `live_migrate`. The
    /// action is only computed for servers not migrating (Python's `and`),
    /// so an unknown mode raises only when such an untagged server exists.
    /// Before 25.1 (`node_mode` None, rockoon 777a3a19) tags are not read.
    pub fn valid_for_live_migration(
        &self,
        host: &str,
        node_mode: Option<&str>,
    ) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for status in [ACTIVE, PAUSED] {
            for s in self.on_host(host).filter(|s| s.status == status) {
                if s.task_state == Some(TASK_MIGRATING) {
                    continue;
                }
                let live = match node_mode {
                    Some(mode) => s.maintenance_action(mode)? == MaintenanceAction::LiveMigrate,
                    None => true,
                };
                if live {
                    out.push(s.id.clone());
                }
            }
        }
        Ok(out)
    }

    /// `live_migrate_server`: refused at once (the API call raises) for
    /// instances Nova's pre-check rejects or when no other host is enabled;
    /// otherwise MIGRATING with task_state `migrating` for `takes`.
    pub fn live_migrate(
        &mut self,
        id: &str,
        now: Timestamp,
        takes: SignedDuration,
        rng: &mut SmallRng,
    ) -> Result<(), String> {
        let Some(server) = self.servers.get(id) else {
            return Err(format!("NotFoundException: 404: No Server found for {id}"));
        };
        if let Some(task) = server.task_state {
            // A stop or shelve the operator asked for is under way.
            return Err(format!(
                "ConflictException: 409: Client Error for url: {NOVA_API}/servers/{id}/action, \
                 Cannot 'os-migrateLive' instance {id} while it is in task_state {task}"
            ));
        }
        if server
            .problem
            .is_some_and(|p| p != LiveMigrationProblem::NotConverging)
        {
            return Err(migration_exception(id, server.problem));
        }
        let targets = self.targets(server);
        if targets.is_empty() {
            return Err(migration_exception(id, None));
        }
        let target = targets[rng.random_range(0..targets.len())].clone();
        let ends = now.saturating_add(takes).unwrap_or(now);
        if let Some(s) = self.servers.get_mut(id) {
            s.migration = Some(Migration {
                target,
                ends,
                succeeds: s.problem.is_none(),
                from_status: s.status,
            });
            s.status = MIGRATING;
            s.task_state = Some(TASK_MIGRATING);
        }
        Ok(())
    }

    /// Nova's `check_instance_state` for an API action on a server: its
    /// vm_state must be one of `vm_states` and it must have no task_state;
    /// otherwise the API's 409 text (nova `api/openstack/common.py`,
    /// `raise_http_conflict_for_instance_invalid_state`).
    fn check_state(&self, id: &str, action: &str, vm_states: &[&str]) -> Result<(), NovaError> {
        let Some(s) = self.servers.get(id) else {
            return Err(NovaError::NotFound);
        };
        let conflict = |attr: &str, state: &str| {
            NovaError::Conflict(format!(
                "Cannot '{action}' instance {id} while it is in {attr} {state}"
            ))
        };
        if !vm_states.contains(&s.vm_state) {
            return Err(conflict("vm_state", s.vm_state));
        }
        if let Some(task) = s.task_state {
            return Err(conflict("task_state", task));
        }
        Ok(())
    }

    /// A live migration asked through the Compute API at a microversion
    /// from 2.34 on (the `openstack` CLI negotiates the newest; [I]: the
    /// 2.34 asynchronous pre-check and the negotiation are from Nova's API
    /// reference and the CLI's behaviour, not read in their source): the API
    /// checks the server's state at once (409), the scheduler and the
    /// conductor's pre-checks run after the 202, so a refused migration
    /// shows as `migrating` for [`PRECHECK_TAKES`] and leaves the server
    /// where it was. The scheduler picks the host. Nova's `live_migrate`
    /// accepts vm_states active and paused (nova `compute/api.py`, [I] from
    /// its `check_instance_state` decorator).
    pub fn api_live_migrate(
        &mut self,
        id: &str,
        now: Timestamp,
        takes: SignedDuration,
        rng: &mut SmallRng,
    ) -> Result<(), NovaError> {
        self.check_state(id, "os-migrateLive", &["active", "paused"])?;
        let Some(server) = self.servers.get(id) else {
            return Err(NovaError::NotFound);
        };
        let refused = server
            .problem
            .is_some_and(|p| p != LiveMigrationProblem::NotConverging);
        let targets = self.targets(server);
        let (target, ends, succeeds) = match (refused, targets.is_empty()) {
            (false, false) => (
                targets[rng.random_range(0..targets.len())].clone(),
                now.saturating_add(takes).unwrap_or(now),
                server.problem.is_none(),
            ),
            _ => (
                server.host.clone().unwrap_or_default(),
                now.saturating_add(PRECHECK_TAKES).unwrap_or(now),
                false,
            ),
        };
        if let Some(s) = self.servers.get_mut(id) {
            s.migration = Some(Migration {
                target,
                ends,
                succeeds,
                from_status: s.status,
            });
            s.status = MIGRATING;
            s.task_state = Some(TASK_MIGRATING);
        }
        Ok(())
    }

    /// `POST /servers/{id}/action {"os-stop": null}`: vm_states active,
    /// rescued or error ([I] nova `compute/api.py` `stop`); the server is
    /// SHUTOFF after [`STOP_TAKES`].
    pub fn api_stop(&mut self, id: &str, now: Timestamp) -> Result<(), NovaError> {
        self.check_state(id, "stop", &["active", "rescued", "error"])?;
        if let Some(s) = self.servers.get_mut(id) {
            s.task_state = Some(TASK_POWERING_OFF);
            s.underway = Some(Underway::Stop {
                ends: now.saturating_add(STOP_TAKES).unwrap_or(now),
            });
        }
        Ok(())
    }

    /// `POST /servers/{id}/action {"shelve": null}`: vm_states active,
    /// stopped, paused or suspended ([I] nova `compute/api.py` `shelve`);
    /// SHELVED_OFFLOADED and off its host after [`SHELVE_TAKES`].
    pub fn api_shelve(&mut self, id: &str, now: Timestamp) -> Result<(), NovaError> {
        self.check_state(id, "shelve", &["active", "stopped", "paused", "suspended"])?;
        if let Some(s) = self.servers.get_mut(id) {
            s.task_state = Some(TASK_SHELVING);
            s.underway = Some(Underway::Shelve {
                ends: now.saturating_add(SHELVE_TAKES).unwrap_or(now),
            });
        }
        Ok(())
    }

    /// Hosts the scheduler may place `server` on: enabled, up, not its own.
    fn targets(&self, server: &Server) -> Vec<String> {
        self.services
            .iter()
            .filter(|(h, s)| s.enabled && s.up && !server.on(h))
            .map(|(h, _)| h.clone())
            .collect()
    }

    /// The compute service of a host as the API's `host_status` names it
    /// (admin only, microversion 2.16+): UP, DOWN, MAINTENANCE (disabled),
    /// or empty for a server without a host ([I] nova `compute/api.py`
    /// `get_instance_host_status`, without its UNKNOWN).
    pub fn host_status(&self, server: &Server) -> &'static str {
        match server.host.as_deref().and_then(|h| self.services.get(h)) {
            None => "",
            Some(s) if !s.up => "DOWN",
            Some(s) if !s.enabled => "MAINTENANCE",
            Some(_) => "UP",
        }
    }

    /// Ends migrations due by `now`, shuts off servers whose owners said so,
    /// brings compute services up.
    pub fn tick(&mut self, now: Timestamp) {
        for s in self.servers.values_mut() {
            match s.underway {
                Some(Underway::Stop { ends }) if ends <= now => {
                    s.underway = None;
                    s.task_state = None;
                    s.status = SHUTOFF;
                    s.vm_state = "stopped";
                    s.power_state = POWER_SHUTDOWN;
                }
                Some(Underway::Shelve { ends }) if ends <= now => {
                    s.underway = None;
                    s.task_state = None;
                    s.status = SHELVED_OFFLOADED;
                    s.vm_state = "shelved_offloaded";
                    s.power_state = POWER_SHUTDOWN;
                    s.host = None;
                }
                _ => {}
            }
            if s.stop_at.is_some_and(|t| t <= now) {
                s.stop_at = None;
                s.status = SHUTOFF;
                s.vm_state = "stopped";
                s.power_state = POWER_SHUTDOWN;
            }
            if let Some(m) = s.migration.clone()
                && m.ends <= now
            {
                if m.succeeds {
                    s.host = Some(m.target);
                }
                s.status = m.from_status;
                s.task_state = None;
                s.migration = None;
            }
        }
        for svc in self.services.values_mut() {
            if svc.up_at.is_some_and(|t| t <= now) {
                svc.up = true;
                svc.up_at = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn add(n: &mut Nova, id: &str, host: &str, problem: Option<LiveMigrationProblem>) {
        add_full(n, id, host, problem, None, ServerState::Active);
    }

    fn add_full(
        n: &mut Nova,
        id: &str,
        host: &str,
        problem: Option<LiveMigrationProblem>,
        tag: Option<ServerTag>,
        state: ServerState,
    ) {
        n.add_server(NewServer {
            id,
            name: format!("vm-{id}"),
            project: "p".into(),
            flavor: "m1.small".into(),
            host,
            state,
            problem,
            tag,
        });
    }

    fn t0() -> Timestamp {
        "2026-01-01T00:00:00Z".parse().unwrap()
    }

    #[test]
    fn migration_moves_server_after_its_duration_and_problems_fail() {
        let mut n = Nova::default();
        n.add_host("a");
        n.add_host("b");
        add(&mut n, "s1", "a", None);
        add(&mut n, "s2", "a", Some(LiveMigrationProblem::CpuPinning));
        let mut rng = SmallRng::seed_from_u64(1);
        let d = SignedDuration::from_secs(30);
        n.set_enabled("a", false);
        n.live_migrate("s1", t0(), d, &mut rng).unwrap();
        let err = n.live_migrate("s2", t0(), d, &mut rng).unwrap_err();
        assert!(err.contains("Migration pre-check error"), "{err}");
        assert_eq!(n.migrating_on("a"), vec!["s1".to_string()]);
        let s1 = n.server("s1").unwrap();
        assert_eq!((s1.status, s1.task_state), (MIGRATING, Some("migrating")));
        assert_eq!(
            n.valid_for_live_migration("a", Some("live")).unwrap(),
            vec!["s2".to_string()]
        );
        assert!(
            n.valid_for_live_migration("a", Some("manual"))
                .unwrap()
                .is_empty()
        );
        n.tick(t0() + SignedDuration::from_secs(29));
        assert!(n.server("s1").unwrap().on("a"));
        n.tick(t0() + d);
        let s1 = n.server("s1").unwrap();
        assert!(s1.on("b"));
        assert_eq!((s1.status, s1.task_state), (ACTIVE, None));
    }

    #[test]
    fn a_migration_that_does_not_converge_leaves_the_server_active_on_its_host() {
        let mut n = Nova::default();
        n.add_host("a");
        n.add_host("b");
        add_full(
            &mut n,
            "s",
            "a",
            Some(LiveMigrationProblem::NotConverging),
            None,
            ServerState::Paused,
        );
        let mut rng = SmallRng::seed_from_u64(1);
        let d = SignedDuration::from_secs(60);
        n.live_migrate("s", t0(), d, &mut rng).unwrap();
        assert_eq!(n.server("s").unwrap().status, MIGRATING);
        assert!(
            n.valid_for_live_migration("a", Some("live"))
                .unwrap()
                .is_empty()
        );
        n.tick(t0() + d);
        let s = n.server("s").unwrap();
        assert!(s.on("a"));
        assert_eq!((s.status, s.task_state), (PAUSED, None));
        assert_eq!(
            n.valid_for_live_migration("a", Some("live")).unwrap(),
            vec!["s".to_string()]
        );
    }

    #[test]
    fn one_tag_wins_several_fall_back_and_an_unknown_mode_raises_only_for_untagged() {
        let mut n = Nova::default();
        n.add_host("a");
        let a = ServerState::Active;
        add_full(&mut n, "p", "a", None, Some(ServerTag::Poweroff), a);
        add_full(&mut n, "l", "a", None, Some(ServerTag::LiveMigrate), a);
        add_full(&mut n, "n", "a", None, Some(ServerTag::Notify), a);
        add_full(&mut n, "s", "a", None, Some(ServerTag::Several), a);
        assert_eq!(
            n.valid_for_live_migration("a", Some("live")).unwrap(),
            vec!["l".to_string(), "s".to_string()]
        );
        assert_eq!(
            n.valid_for_live_migration("a", Some("manual")).unwrap(),
            vec!["l".to_string()]
        );
        let err = n.valid_for_live_migration("a", Some("livee")).unwrap_err();
        assert_eq!(err, "KeyError: 'livee'");
        let mut tagged = Nova::default();
        tagged.add_host("a");
        add_full(&mut tagged, "l", "a", None, Some(ServerTag::LiveMigrate), a);
        assert_eq!(
            tagged.valid_for_live_migration("a", Some("livee")).unwrap(),
            vec!["l".to_string()]
        );
        // Before 25.1 tags are not read.
        assert_eq!(n.valid_for_live_migration("a", None).unwrap().len(), 4);
    }

    #[test]
    fn error_servers_are_never_candidates_and_stopped_ones_are_not_running() {
        let mut n = Nova::default();
        n.add_host("a");
        add_full(&mut n, "e", "a", None, None, ServerState::Error);
        add_full(&mut n, "o", "a", None, None, ServerState::Shutoff);
        add_full(&mut n, "v", "a", None, None, ServerState::ShelvedOffloaded);
        assert!(
            n.valid_for_live_migration("a", Some("live"))
                .unwrap()
                .is_empty()
        );
        let on: Vec<(&str, bool)> = n
            .on_host("a")
            .map(|s| (s.id.as_str(), s.not_running()))
            .collect();
        assert_eq!(on, vec![("e", false), ("o", true)]);
        n.owner_stops("e", t0());
        n.tick(t0());
        assert!(n.server("e").unwrap().not_running());
    }

    #[test]
    fn no_other_enabled_host_means_no_valid_host() {
        let mut n = Nova::default();
        n.add_host("a");
        add(&mut n, "s1", "a", None);
        let mut rng = SmallRng::seed_from_u64(1);
        let err = n
            .live_migrate("s1", t0(), SignedDuration::from_secs(1), &mut rng)
            .unwrap_err();
        assert!(err.contains("No valid host"), "{err}");
    }
}
