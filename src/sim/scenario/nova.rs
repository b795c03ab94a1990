//! A tiny model of Nova: which servers run on which host, and live
//! migrations that take time or fail.
//!
//! Only what the OpenStack controller's migration loop looks at is modelled
//! (reference §4.3): server status, the host, whether a migration is in
//! progress, the per-instance maintenance action tag (MOSK 25.1, reference
//! §4.1–4.2: a tag wins over the node's mode), and servers shut off by their
//! owners.

use std::collections::BTreeMap;

use jiff::Timestamp;
use rand::Rng;
use rand::rngs::SmallRng;

use super::plan_spec::ServerTag;
use super::spec::{LiveMigrationProblem, MigrationMode};

/// Nova server status values the simulator uses.
pub const ACTIVE: &str = "ACTIVE";
pub const MIGRATING: &str = "MIGRATING";

/// One Nova server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub id: String,
    pub host: String,
    /// Why it cannot be live-migrated, if it cannot.
    pub problem: Option<LiveMigrationProblem>,
    /// A live migration in progress: the target host and when it lands.
    pub migration: Option<(String, Timestamp)>,
    /// Its maintenance action tag (`None`: untagged).
    pub tag: Option<ServerTag>,
    /// Shut off (by its owner); Rockoon's completion check ignores it.
    pub stopped: bool,
    /// When its owner shuts it off.
    pub stop_at: Option<Timestamp>,
}

impl Server {
    /// The action for this server on a node in `mode`: the tag wins, else
    /// the node's mode (Rockoon's `compute_get_server_maintenance_action`).
    pub fn action(&self, mode: MigrationMode) -> MaintenanceAction {
        match self.tag {
            Some(ServerTag::Poweroff) => MaintenanceAction::Poweroff,
            Some(ServerTag::LiveMigrate) => MaintenanceAction::LiveMigrate,
            Some(ServerTag::Notify) => MaintenanceAction::Notify,
            Some(ServerTag::None) | None => effective_action(mode),
        }
    }

    pub fn status(&self) -> &'static str {
        if self.migration.is_some() {
            MIGRATING
        } else {
            ACTIVE
        }
    }
}

/// What the OpenStack controller does with one running instance (reference §4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaintenanceAction {
    LiveMigrate,
    Notify,
    Poweroff,
}

/// The node mode translated to a per-instance action (for untagged servers).
pub fn effective_action(mode: MigrationMode) -> MaintenanceAction {
    match mode {
        MigrationMode::Live => MaintenanceAction::LiveMigrate,
        MigrationMode::Manual => MaintenanceAction::Notify,
        MigrationMode::Skip => MaintenanceAction::Poweroff,
    }
}

/// The exception text a failing live migration raises. The wording is
/// inferred (openstacksdk's BadRequestException around Nova's pre-check error).
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
        None => "No valid host was found. There are not enough hosts available.",
    };
    format!(
        "BadRequestException: 400: Client Error for url: http://nova-api.openstack.svc.cluster.local:8774/v2.1/servers/{server}/action, Migration pre-check error: {reason}"
    )
}

/// All servers, by id (ordered for determinism).
#[derive(Debug, Clone, Default)]
pub struct Nova {
    servers: BTreeMap<String, Server>,
    /// Hosts that accept migrated instances (enabled computes), by name.
    enabled: BTreeMap<String, bool>,
}

impl Nova {
    pub fn add_host(&mut self, host: &str) {
        self.enabled.insert(host.to_string(), true);
    }

    pub fn add_server(
        &mut self,
        id: &str,
        host: &str,
        problem: Option<LiveMigrationProblem>,
        tag: Option<ServerTag>,
    ) {
        self.servers.insert(
            id.to_string(),
            Server {
                id: id.to_string(),
                host: host.to_string(),
                problem,
                migration: None,
                tag,
                stopped: false,
                stop_at: None,
            },
        );
    }

    /// The owner of a `notify`-tagged server shuts it off at `at` (once).
    pub fn owner_stops(&mut self, id: &str, at: Timestamp) {
        if let Some(s) = self.servers.get_mut(id)
            && s.stop_at.is_none()
            && !s.stopped
        {
            s.stop_at = Some(at);
        }
    }

    /// Disables or enables scheduling to a compute (`nova-compute` service).
    pub fn set_enabled(&mut self, host: &str, enabled: bool) {
        if let Some(e) = self.enabled.get_mut(host) {
            *e = enabled;
        }
    }

    pub fn server(&self, id: &str) -> Option<&Server> {
        self.servers.get(id)
    }

    /// Servers on a host, in id order.
    pub fn on_host<'a>(&'a self, host: &'a str) -> impl Iterator<Item = &'a Server> + 'a {
        self.servers.values().filter(move |s| s.host == host)
    }

    /// Servers on a host that are being migrated away.
    pub fn migrating_on(&self, host: &str) -> Vec<String> {
        self.on_host(host)
            .filter(|s| s.migration.is_some())
            .map(|s| s.id.clone())
            .collect()
    }

    /// Live-migration candidates on a host for a node mode (ACTIVE, not migrating, action live_migrate).
    pub fn valid_for_live_migration(&self, host: &str, mode: MigrationMode) -> Vec<String> {
        self.on_host(host)
            .filter(|s| {
                s.migration.is_none()
                    && !s.stopped
                    && s.action(mode) == MaintenanceAction::LiveMigrate
            })
            .map(|s| s.id.clone())
            .collect()
    }

    /// Requests a live migration. Fails at once (like the API call raising)
    /// for instances that cannot be live-migrated or when no host can take it.
    pub fn live_migrate(
        &mut self,
        id: &str,
        now: Timestamp,
        takes: jiff::SignedDuration,
        rng: &mut SmallRng,
    ) -> Result<(), String> {
        let Some(server) = self.servers.get(id) else {
            return Err(format!("NotFoundException: 404: No Server found for {id}"));
        };
        if server.problem.is_some() {
            return Err(migration_exception(id, server.problem));
        }
        let targets: Vec<&String> = self
            .enabled
            .iter()
            .filter(|(h, on)| **on && **h != server.host)
            .map(|(h, _)| h)
            .collect();
        if targets.is_empty() {
            return Err(migration_exception(id, None));
        }
        let target = targets[rng.random_range(0..targets.len())].clone();
        let lands = now.saturating_add(takes).unwrap_or(now);
        if let Some(s) = self.servers.get_mut(id) {
            s.migration = Some((target, lands));
        }
        Ok(())
    }

    /// Finishes migrations that landed by `now`; owners shut servers off.
    pub fn tick(&mut self, now: Timestamp) {
        for s in self.servers.values_mut() {
            if s.stop_at.is_some_and(|t| t <= now) {
                s.stopped = true;
                s.stop_at = None;
            }
            if let Some((target, lands)) = &s.migration
                && *lands <= now
            {
                s.host = target.clone();
                s.migration = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn migration_moves_server_after_its_duration_and_problems_fail() {
        let mut n = Nova::default();
        n.add_host("a");
        n.add_host("b");
        n.add_server("s1", "a", None, None);
        n.add_server("s2", "a", Some(LiveMigrationProblem::CpuPinning), None);
        let mut rng = SmallRng::seed_from_u64(1);
        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let d = jiff::SignedDuration::from_secs(30);
        n.set_enabled("a", false);
        n.live_migrate("s1", t0, d, &mut rng).unwrap();
        let err = n.live_migrate("s2", t0, d, &mut rng).unwrap_err();
        assert!(err.contains("Migration pre-check error"), "{err}");
        assert_eq!(n.migrating_on("a"), vec!["s1".to_string()]);
        assert_eq!(
            n.valid_for_live_migration("a", MigrationMode::Live),
            vec!["s2".to_string()]
        );
        assert!(
            n.valid_for_live_migration("a", MigrationMode::Manual)
                .is_empty()
        );
        n.tick(t0 + jiff::SignedDuration::from_secs(29));
        assert_eq!(n.server("s1").unwrap().host, "a");
        n.tick(t0 + d);
        assert_eq!(n.server("s1").unwrap().host, "b");
    }

    #[test]
    fn a_tag_wins_over_the_node_mode() {
        let mut n = Nova::default();
        n.add_host("a");
        n.add_server("p", "a", None, Some(ServerTag::Poweroff));
        n.add_server("l", "a", None, Some(ServerTag::LiveMigrate));
        n.add_server("n", "a", None, Some(ServerTag::Notify));
        n.add_server("u", "a", None, None);
        assert_eq!(
            n.valid_for_live_migration("a", MigrationMode::Live),
            vec!["l".to_string(), "u".to_string()]
        );
        assert_eq!(
            n.valid_for_live_migration("a", MigrationMode::Manual),
            vec!["l".to_string()]
        );
        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        n.owner_stops("n", t0 + jiff::SignedDuration::from_secs(60));
        n.tick(t0);
        assert!(!n.server("n").unwrap().stopped);
        n.tick(t0 + jiff::SignedDuration::from_secs(60));
        assert!(n.server("n").unwrap().stopped);
    }

    #[test]
    fn no_other_enabled_host_means_no_valid_host() {
        let mut n = Nova::default();
        n.add_host("a");
        n.add_server("s1", "a", None, None);
        let mut rng = SmallRng::seed_from_u64(1);
        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let err = n
            .live_migrate("s1", t0, jiff::SignedDuration::from_secs(1), &mut rng)
            .unwrap_err();
        assert!(err.contains("No valid host"), "{err}");
    }
}
