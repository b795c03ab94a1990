//! Readiness: what the seeds' "Before you begin", Step 1 and Step 2 and the
//! update flow's assumptions ask of the cluster before an update starts, one
//! [`Check`] each, with its verdict, the evidence the console read and the
//! source the check comes from.
//!
//! A check reads only kinds the console has listed: a kind not served (a
//! missing CRD), refused (401/403) or not listed yet makes the check
//! [`Verdict::Unknown`], never ok ([`Seen`]); so does an object the check
//! needs and does not find. What the console does not watch at all (the
//! management cluster's own release) is unknown too, and the check says
//! where the operator reads it instead.

use std::collections::BTreeMap;

use jiff::SignedDuration;

use super::migration::invalid_settings;
use super::objects::{
    CephHealthStatus, ClusterId, Kind, LockState, MigrationMode, NodeRole, OsdplState, Snapshot,
    WorkloadLock,
};
use super::update_plan::active_plan;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Ok,
    /// Worth a look before starting; the update can run.
    Warning,
    /// The update would stop on it, or start from a state it does not expect.
    Blocking,
    /// The console cannot see what the check needs.
    Unknown,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Warning => "warning",
            Verdict::Blocking => "blocking",
            Verdict::Unknown => "unknown",
        }
    }
}

/// The checks, in the order the screen lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CheckId {
    Nodes,
    Requests,
    Locks,
    MigrationSettings,
    OpenstackDeployment,
    CephHealth,
    TargetRelease,
    ManagementRelease,
    UpdatePlan,
}

impl CheckId {
    pub const ALL: [CheckId; 9] = [
        CheckId::Nodes,
        CheckId::Requests,
        CheckId::Locks,
        CheckId::MigrationSettings,
        CheckId::OpenstackDeployment,
        CheckId::CephHealth,
        CheckId::TargetRelease,
        CheckId::ManagementRelease,
        CheckId::UpdatePlan,
    ];

    /// What the check asks, as the screen names it.
    pub fn title(self) -> &'static str {
        match self {
            CheckId::Nodes => "Nodes Ready and schedulable",
            CheckId::Requests => "No maintenance request left",
            CheckId::Locks => "Workload locks active, no error",
            CheckId::MigrationSettings => "Migration mode and attempts",
            CheckId::OpenstackDeployment => "OpenStackDeployment APPLIED, healthy",
            CheckId::CephHealth => "Ceph health",
            CheckId::TargetRelease => "Target release",
            CheckId::ManagementRelease => "Management cluster release",
            CheckId::UpdatePlan => "Update plan: expected length",
        }
    }

    /// Where the check comes from: the seeds (`seed 000` = "Update a MOSK
    /// cluster to 22.2 or earlier", `seed 001` = the update flow), the
    /// reference (`ref §N` = mosk-lcm-api.md, `plan ref §N` =
    /// mosk-update-plan.md) and the controllers' source; `[I]` where it is
    /// our inference.
    pub fn source(self) -> &'static str {
        match self {
            CheckId::Nodes => {
                "seed 001 (nodes are drained and rebooted one by one); ref §9.1 [I: a node NotReady or cordoned before the update is not one LCM expects]"
            }
            CheckId::Requests => {
                "seed 001 (LCM creates the ClusterMaintenanceRequest and one NodeMaintenanceRequest per node, and removes them at the end); ref §2.2, §2.3"
            }
            CheckId::Locks => {
                "ref §2.4, §2.5 (active: the controller holds the lock; it is taken back active, errorMessage removed, when a request is deleted: rockoon controllers/maintenance.py node_maintenance_request_delete_handler, cluster_maintenance_request_delete_handler @1390883a) [I: that every lock is active before the update]"
            }
            CheckId::MigrationSettings => {
                "seed 000 Step 2 (live default, manual, skip; attempts default 3; instances on LVM ephemeral storage, encrypted volumes or CPU/NUMA pinning are known to fail live migration); rockoon maintenance.py NodeMaintenanceConfig._cast_to_type @1390883a"
            }
            CheckId::OpenstackDeployment => {
                "rockoon osdplstatus.py OpenStackDeploymentStatus (status.osdpl.state, lcm_progress; status.health.<app>.<component>.status), health.py is_application_ready (every component Ready), controllers/maintenance.py cluster_maintenance_request_change_handler (the cluster lock is released only once APPLIED and every service healthy) @1390883a; ref §3.2"
            }
            CheckId::CephHealth => {
                "pelagia pkg/apis/ceph.pelagia.lcm/v1alpha1/health_types.go CephDeploymentHealth (status.healthReport.rookCephObjects.cephCluster.ceph.health, .details), pkg/controller/health/controller.go @d4713b61; ref §6 (Ceph updates after OpenStack, D-FLOW) [I: that HEALTH_ERR blocks: Pelagia's statusCluster updates Ceph whatever its health]"
            }
            CheckId::TargetRelease => {
                "seed 000 \"Before you begin\" (release notes of the target); ref §7.3 (LCMCluster spec.release, status.release); plan ref §1.2 (spec.target)"
            }
            CheckId::ManagementRelease => {
                "seed 000 Step 1 (the management cluster on the latest Container Cloud release; its web UI shows it)"
            }
            CheckId::UpdatePlan => "plan ref §1.2 (steps, duration.estimated), ref §9.3",
        }
    }
}

/// Whether the console sees a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// Listed at least once.
    Listed,
    /// The watch has not finished its first list.
    NotYet,
    /// The cluster does not serve the kind (its CRD is missing).
    NotServed,
    /// The API server refused to list it (401/403).
    Refused,
}

impl Seen {
    fn why(&self, kind: Kind) -> Option<String> {
        let k = kind.api_kind();
        match self {
            Seen::Listed => None,
            Seen::NotYet => Some(format!("{k}: not listed yet")),
            Seen::NotServed => Some(format!("{k}: not served by the cluster (CRD missing)")),
            Seen::Refused => Some(format!("{k}: the API server refuses to list it")),
        }
    }
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub id: CheckId,
    pub verdict: Verdict,
    /// One line: what was found.
    pub summary: String,
    /// The objects behind the verdict, one line each (bounded).
    pub evidence: Vec<String>,
}

impl Check {
    fn new(id: CheckId, verdict: Verdict, summary: impl Into<String>) -> Check {
        Check {
            id,
            verdict,
            summary: summary.into(),
            evidence: Vec::new(),
        }
    }
    fn with(mut self, evidence: Vec<String>) -> Check {
        self.evidence = evidence;
        self
    }
}

/// Evidence lines kept per check: the rest are counted.
pub const EVIDENCE_MAX: usize = 8;

fn bounded(mut lines: Vec<String>) -> Vec<String> {
    if lines.len() > EVIDENCE_MAX {
        let more = lines.len() - (EVIDENCE_MAX - 1);
        lines.truncate(EVIDENCE_MAX - 1);
        lines.push(format!("… and {more} more"));
    }
    lines
}

/// What the checks read besides the snapshot.
pub struct Inputs<'a> {
    pub snapshot: &'a Snapshot,
    /// How each kind is seen; a kind absent from the map is not listed yet.
    pub seen: &'a BTreeMap<Kind, Seen>,
    /// The followed cluster (its update plan).
    pub cluster: &'a str,
    /// The MOSK context is another cluster's
    /// ([`crate::domain::which_cluster::check_mosk_context`]): what it
    /// serves says nothing about this cluster.
    pub other_mosk_cluster: bool,
    /// Now on the MOSK API server's clock (the console's, moved by the
    /// offset it measured): how old a report stamped in that cluster is.
    pub now: jiff::Timestamp,
}

impl Inputs<'_> {
    /// An object of `kind` that came but could not be read, said as an
    /// unknown check (for the kinds a check reads one object of).
    fn unreadable(&self, id: CheckId, kind: Kind) -> Option<Check> {
        let bad = self.snapshot.malformed().find(|m| m.kind == kind)?;
        Some(Check::new(
            id,
            Verdict::Unknown,
            format!(
                "{} {} could not be read: {}",
                kind.api_kind(),
                bad.name,
                bad.error
            ),
        ))
    }

    /// The first of `kinds` the console cannot read, said as an unknown check.
    fn unseen(&self, id: CheckId, kinds: &[Kind]) -> Option<Check> {
        if self.other_mosk_cluster && kinds.iter().any(|k| k.cluster() == ClusterId::Mosk) {
            return Some(Check::new(
                id,
                Verdict::Unknown,
                "the MOSK context is another cluster's: its objects say nothing about this one",
            ));
        }
        let why: Vec<String> = kinds
            .iter()
            .filter_map(|k| self.seen.get(k).unwrap_or(&Seen::NotYet).why(*k))
            .collect();
        (!why.is_empty()).then(|| Check::new(id, Verdict::Unknown, why.join("; ")))
    }
}

/// Every check, in [`CheckId::ALL`]'s order.
pub fn checks(inputs: &Inputs) -> Vec<Check> {
    CheckId::ALL.iter().map(|id| check(*id, inputs)).collect()
}

/// One check.
pub fn check(id: CheckId, i: &Inputs) -> Check {
    match id {
        CheckId::Nodes => nodes(i),
        CheckId::Requests => requests(i),
        CheckId::Locks => locks(i),
        CheckId::MigrationSettings => migration_settings(i),
        CheckId::OpenstackDeployment => openstack_deployment(i),
        CheckId::CephHealth => ceph_health(i),
        CheckId::TargetRelease => target_release(i),
        CheckId::ManagementRelease => Check::new(
            id,
            Verdict::Unknown,
            "not reported to the console: the Container Cloud web UI shows the management cluster's release",
        ),
        CheckId::UpdatePlan => update_plan(i),
    }
}

/// Ceph's health checks named in the Ceph check's summary.
const CEPH_CHECKS_NAMED: usize = 3;

fn ceph_health(i: &Inputs) -> Check {
    let id = CheckId::CephHealth;
    let kind = Kind::CephDeploymentHealth;
    if let Some(c) = i.unseen(id, &[kind]) {
        return c;
    }
    let Some(h) = i.snapshot.ceph_deployment_healths().next() else {
        if let Some(c) = i.unreadable(id, kind) {
            return c;
        }
        // Releases before Pelagia's CRD report Ceph's health elsewhere
        // (MiraCephHealth [I]), which the console does not watch.
        return Check::new(
            id,
            Verdict::Unknown,
            format!(
                "no {} in namespace ceph-lcm-mirantis (an older release's MiraCephHealth is not read): `ceph -s` in the Ceph tools pod shows it",
                kind.api_kind()
            ),
        );
    };
    let mut evidence = vec![format!(
        "{} {}: {}, state {}, last check {}",
        kind.api_kind(),
        h.name,
        match h.health.as_str() {
            "" => "no Ceph health",
            s => s,
        },
        h.state.as_deref().unwrap_or("not set"),
        h.last_check.as_deref().unwrap_or("not set"),
    )];
    evidence.extend(h.checks.iter().map(|c| {
        let severity = if c.severity.is_empty() {
            "?"
        } else {
            &c.severity
        };
        format!("{} ({severity}): {}", c.code, c.message)
    }));
    if h.checks_count > h.checks.len() {
        evidence.push(format!(
            "… and {} more health checks",
            h.checks_count - h.checks.len()
        ));
    }
    evidence.extend(h.issues.iter().map(|i| format!("issue: {i}")));
    if h.issues_count > h.issues.len() {
        evidence.push(format!(
            "… and {} more issues",
            h.issues_count - h.issues.len()
        ));
    }
    let named = || {
        let mut codes: Vec<String> = h
            .checks
            .iter()
            .take(CEPH_CHECKS_NAMED)
            .map(|c| c.code.clone())
            .collect();
        if h.checks_count > codes.len() {
            codes.push(format!("{} more", h.checks_count - codes.len()));
        }
        if codes.is_empty() {
            String::new()
        } else {
            format!(": {}", codes.join(", "))
        }
    };
    let (verdict, summary) = match &h.health {
        // Pelagia's own verdict can fail beside a HEALTH_OK (the Rook
        // operator or a daemon missing: `updateCephDeploymentHealthStatus`
        // sets Failed with the issues its verification found).
        CephHealthStatus::Ok if h.state.as_deref() == Some("Failed") || h.issues_count > 0 => (
            Verdict::Warning,
            format!(
                "HEALTH_OK, but the Ceph controller reports {}{}",
                h.state.as_deref().unwrap_or("issues"),
                h.issues
                    .first()
                    .map(|i| format!(": {i}"))
                    .unwrap_or_default()
            ),
        ),
        CephHealthStatus::Ok => (Verdict::Ok, "HEALTH_OK".to_string()),
        CephHealthStatus::Warn => (Verdict::Warning, format!("HEALTH_WARN{}", named())),
        CephHealthStatus::Err => (
            Verdict::Blocking,
            format!(
                "HEALTH_ERR{}: the update would start from a Ceph cluster in error",
                named()
            ),
        ),
        CephHealthStatus::Other(v) if v.is_empty() => (
            Verdict::Unknown,
            "the health report has no Ceph health (rookCephObjects.cephCluster.ceph.health)"
                .to_string(),
        ),
        CephHealthStatus::Other(v) => (
            Verdict::Unknown,
            format!("Ceph health {v:?} is none of HEALTH_OK, HEALTH_WARN, HEALTH_ERR"),
        ),
    };
    // Pelagia checks every 30 s and stamps `lastHealthCheck` each time: a
    // report much older says its controller stopped, and what it says of
    // Ceph may no longer be true.
    let age = h
        .last_check
        .as_deref()
        .and_then(|t| t.trim().parse::<jiff::Timestamp>().ok())
        .map(|t| i.now.duration_since(t));
    if let Some(age) = age.filter(|a| *a > CEPH_REPORT_STALE) {
        return Check::new(
            id,
            Verdict::Unknown,
            format!(
                "{summary} as last checked {} ago: the Ceph controller checks every 30 s, so this report is stale",
                crate::domain::progress::human_duration(age)
            ),
        )
        .with(bounded(evidence));
    }
    Check::new(id, verdict, summary).with(bounded(evidence))
}

/// How old a CephDeploymentHealth's last check may be before the report is
/// not believed: ten of Pelagia's 30 s checks (`requeueAfterInterval`), which
/// also absorbs a clock a few minutes apart from the cluster's.
const CEPH_REPORT_STALE: SignedDuration = SignedDuration::from_secs(300);

/// Components named in the OpenStackDeployment check's summary; the rest
/// are counted (the evidence lists more).
const COMPONENTS_NAMED: usize = 3;

fn openstack_deployment(i: &Inputs) -> Check {
    let id = CheckId::OpenstackDeployment;
    let kind = Kind::OpenstackDeploymentStatus;
    if let Some(c) = i.unseen(id, &[kind]) {
        return c;
    }
    let Some(st) = i.snapshot.openstack_deployment_statuses().next() else {
        if let Some(c) = i.unreadable(id, kind) {
            return c;
        }
        return Check::new(
            id,
            Verdict::Unknown,
            format!("no {} in namespace openstack", kind.api_kind()),
        );
    };
    let or_unset = |v: &Option<String>| v.clone().unwrap_or_else(|| "not set".to_string());
    let state = match st.state.as_str() {
        "" => "not set",
        s => s,
    };
    let mut evidence = vec![
        format!(
            "{} {}: state {state}, LCM progress {}, health {}",
            kind.api_kind(),
            st.name,
            or_unset(&st.lcm_progress),
            or_unset(&st.health)
        ),
        format!(
            "release {}, controller {}, OpenStack {}",
            or_unset(&st.release),
            or_unset(&st.controller_version),
            or_unset(&st.openstack_version)
        ),
    ];
    let component = |c: &crate::domain::objects::ComponentHealth| {
        let status = if c.status.is_empty() {
            "no status"
        } else {
            &c.status
        };
        format!("{}/{}: {status}", c.application, c.component)
    };
    evidence.extend(st.not_ready.iter().map(component));
    let shown = st.not_ready.len();
    if st.not_ready_count > shown {
        evidence.push(format!(
            "… and {} more not Ready",
            st.not_ready_count - shown
        ));
    }
    // The OpenStack controller releases its cluster lock only once the
    // status is APPLIED and every service healthy
    // (`cluster_maintenance_request_change_handler`, see `source`): either
    // missing, the update would wait on it.
    if st.state != OsdplState::Applied {
        return Check::new(
            id,
            Verdict::Blocking,
            format!(
                "state {state}, not APPLIED: the OpenStack controller holds its cluster lock until it is"
            ),
        )
        .with(bounded(evidence));
    }
    if st.not_ready_count > 0 {
        let n = st.not_ready_count;
        let mut named: Vec<String> = st
            .not_ready
            .iter()
            .take(COMPONENTS_NAMED)
            .map(|c| format!("{}/{}", c.application, c.component))
            .collect();
        if n > named.len() {
            named.push(format!("{} more", n - named.len()));
        }
        return Check::new(
            id,
            Verdict::Blocking,
            format!(
                "APPLIED, {n} component{} not Ready ({}): the OpenStack controller holds its cluster lock while an enabled service's is [I]",
                plural(n),
                named.join(", ")
            ),
        )
        .with(bounded(evidence));
    }
    if st.components == 0 {
        // `is_application_ready` is false for an application absent from
        // `status.health`: no health at all is not healthy.
        return Check::new(
            id,
            Verdict::Unknown,
            "APPLIED, but status.health lists no component: the services' health is not reported",
        )
        .with(bounded(evidence));
    }
    // The controller waits for each enabled service's applications
    // (`health.wait_services_healthy` → `is_application_ready`, false for an
    // application `status.health` does not list); which services are
    // enabled is in the OpenStackDeployment, which the console does not read.
    evidence.push(
        "[I] not checked: that status.health lists every enabled service (the OpenStackDeployment is not read)"
            .to_string(),
    );
    Check::new(
        id,
        Verdict::Ok,
        format!(
            "APPLIED, {} of {} components listed Ready",
            st.components, st.components
        ),
    )
    .with(bounded(evidence))
}

fn nodes(i: &Inputs) -> Check {
    let id = CheckId::Nodes;
    if let Some(c) = i.unseen(id, &[Kind::Node]) {
        return c;
    }
    let nodes: Vec<_> = i.snapshot.nodes().collect();
    if nodes.is_empty() {
        return Check::new(id, Verdict::Unknown, "no Node seen");
    }
    let not_ready: Vec<String> = nodes
        .iter()
        .filter(|n| !n.ready)
        .map(|n| format!("{}: NotReady", n.name))
        .collect();
    let cordoned: Vec<String> = nodes
        .iter()
        .filter(|n| n.ready && n.unschedulable)
        .map(|n| format!("{}: SchedulingDisabled", n.name))
        .collect();
    let total = nodes.len();
    let verdict = if !not_ready.is_empty() {
        Verdict::Blocking
    } else if !cordoned.is_empty() {
        Verdict::Warning
    } else {
        Verdict::Ok
    };
    let summary = match verdict {
        Verdict::Ok => format!("{total} of {total} nodes Ready and schedulable"),
        _ => format!(
            "{} NotReady, {} cordoned, of {total} nodes",
            not_ready.len(),
            cordoned.len()
        ),
    };
    let mut evidence = not_ready;
    evidence.extend(cordoned);
    Check::new(id, verdict, summary).with(bounded(evidence))
}

fn requests(i: &Inputs) -> Check {
    let id = CheckId::Requests;
    if let Some(c) = i.unseen(
        id,
        &[
            Kind::ClusterMaintenanceRequest,
            Kind::NodeMaintenanceRequest,
        ],
    ) {
        return c;
    }
    let terminating = |d: bool| if d { " (Terminating)" } else { "" };
    let mut left: Vec<String> = i
        .snapshot
        .cluster_requests()
        .map(|r| {
            format!(
                "ClusterMaintenanceRequest {}{}",
                r.name,
                terminating(r.deleting)
            )
        })
        .collect();
    left.extend(i.snapshot.node_requests().map(|r| {
        format!(
            "NodeMaintenanceRequest {} (node {}){}",
            r.name,
            r.node_name,
            terminating(r.deleting)
        )
    }));
    if left.is_empty() {
        return Check::new(
            id,
            Verdict::Ok,
            "no ClusterMaintenanceRequest, no NodeMaintenanceRequest",
        );
    }
    let n = left.len();
    Check::new(
        id,
        Verdict::Blocking,
        format!("{n} maintenance request{} left", plural(n)),
    )
    .with(bounded(left))
}

fn lock_line(l: &WorkloadLock) -> String {
    let kind = if l.node_name.is_some() {
        "NodeWorkloadLock"
    } else {
        "ClusterWorkloadLock"
    };
    let msg = l
        .error_message
        .as_ref()
        .map(|m| format!(": {}", m.as_str()))
        .unwrap_or_default();
    format!("{kind} {} {}{msg}", l.name, l.state.as_str())
}

fn locks(i: &Inputs) -> Check {
    let id = CheckId::Locks;
    if let Some(c) = i.unseen(id, &[Kind::ClusterWorkloadLock, Kind::NodeWorkloadLock]) {
        return c;
    }
    let all: Vec<&WorkloadLock> = i
        .snapshot
        .cluster_locks()
        .chain(i.snapshot.node_locks())
        .collect();
    if all.is_empty() {
        // Rockoon creates its cluster lock whenever it handles the
        // OpenStackDeployment (ref §3.2): none at all is not a quiet cluster.
        return Check::new(
            id,
            Verdict::Warning,
            "no workload lock seen: no controller has created one",
        );
    }
    let not_active: Vec<String> = all
        .iter()
        .filter(|l| l.state != LockState::Active)
        .map(|l| lock_line(l))
        .collect();
    let with_error: Vec<String> = all
        .iter()
        .filter(|l| l.state == LockState::Active && l.error_message.is_some())
        .map(|l| lock_line(l))
        .collect();
    let total = all.len();
    let verdict = if !not_active.is_empty() {
        Verdict::Blocking
    } else if !with_error.is_empty() {
        Verdict::Warning
    } else {
        Verdict::Ok
    };
    let summary = match verdict {
        Verdict::Ok => format!("{total} of {total} locks active, none with an error"),
        _ => format!(
            "{} not active, {} active with an error, of {total} locks",
            not_active.len(),
            with_error.len()
        ),
    };
    let mut evidence = not_active;
    evidence.extend(with_error);
    Check::new(id, verdict, summary).with(bounded(evidence))
}

fn migration_settings(i: &Inputs) -> Check {
    let id = CheckId::MigrationSettings;
    if let Some(c) = i.unseen(id, &[Kind::Node]) {
        return c;
    }
    let computes: Vec<_> = i
        .snapshot
        .nodes()
        .filter(|n| n.role() == NodeRole::Compute)
        .collect();
    if computes.is_empty() {
        return Check::new(
            id,
            Verdict::Ok,
            "no compute node (no openstack-compute-node label)",
        );
    }
    // The count per mode, as the controller reads it: unset is `live`.
    let mut per_mode: BTreeMap<String, usize> = BTreeMap::new();
    let mut invalid = Vec::new();
    let mut live = Vec::new();
    let mut skip = Vec::new();
    let mut attempts = Vec::new();
    for n in &computes {
        if let Some(a) = &n.migration_attempts
            && super::migration::parse_python_int(a).is_some()
        {
            attempts.push(format!("{} {}", n.name, a.trim()));
        }
        if let Some(bad) = invalid_settings(n) {
            invalid.push(format!("{}: {}", bad.node, bad.problems.join("; ")));
        }
        let mode = match &n.migration_mode {
            None => "live (unset)".to_string(),
            Some(m) => m.as_str().to_string(),
        };
        *per_mode.entry(mode).or_default() += 1;
        match &n.migration_mode {
            None | Some(MigrationMode::Live) => live.push(n.name.clone()),
            Some(MigrationMode::Skip) => skip.push(n.name.clone()),
            _ => {}
        }
    }
    let counts = per_mode
        .iter()
        .map(|(m, c)| format!("{m} {c}"))
        .collect::<Vec<_>>()
        .join(", ");
    let verdict = if !invalid.is_empty() {
        Verdict::Blocking
    } else if !skip.is_empty() {
        Verdict::Warning
    } else {
        Verdict::Ok
    };
    let mut evidence = invalid;
    if !skip.is_empty() {
        evidence.push(format!(
            "on skip (servers go down with the node): {}",
            skip.join(", ")
        ));
    }
    if !live.is_empty() {
        evidence.push(format!(
            "left on live ({}): {}",
            live.len(),
            live.join(", ")
        ));
    }
    if !attempts.is_empty() {
        evidence.push(format!("attempts set (else 3): {}", attempts.join(", ")));
    }
    let n = computes.len();
    Check::new(id, verdict, format!("{n} compute{}: {counts}", plural(n))).with(bounded(evidence))
}

fn target_release(i: &Inputs) -> Check {
    let id = CheckId::TargetRelease;
    if let Some(c) = i.unseen(id, &[Kind::LcmCluster]) {
        return c;
    }
    let Some(cluster) = i.snapshot.lcm_clusters().next() else {
        return Check::new(id, Verdict::Unknown, "the cluster's LCMCluster is not seen");
    };
    let current = cluster.current_release.as_deref().unwrap_or("?");
    let plan_target = matches!(i.seen.get(&Kind::ClusterUpdatePlan), Some(Seen::Listed))
        .then(|| active_plan(i.snapshot, Some(i.cluster)))
        .flatten()
        .and_then(|p| p.target.clone());
    let spec_target = cluster
        .target_release
        .as_deref()
        .filter(|t| Some(*t) != cluster.current_release.as_deref());
    let mut evidence = vec![format!(
        "LCMCluster {}: status.release {current}, spec.release {}",
        cluster.name,
        cluster.target_release.as_deref().unwrap_or("?")
    )];
    if let Some(t) = &plan_target {
        evidence.push(format!("ClusterUpdatePlan spec.target {t}"));
    }
    match (spec_target, plan_target.as_deref()) {
        (Some(t), _) => Check::new(
            id,
            Verdict::Ok,
            format!("runs {current}; driven to {t} (spec.release)"),
        )
        .with(evidence),
        (None, Some(t)) => Check::new(
            id,
            Verdict::Ok,
            format!("runs {current}; target {t} (update plan)"),
        )
        .with(evidence),
        (None, None) => Check::new(
            id,
            Verdict::Unknown,
            format!(
                "runs {current}; no target release seen (no update plan, spec.release unchanged)"
            ),
        )
        .with(evidence),
    }
}

fn update_plan(i: &Inputs) -> Check {
    let id = CheckId::UpdatePlan;
    if let Some(c) = i.unseen(id, &[Kind::ClusterUpdatePlan]) {
        return c;
    }
    let Some(plan) = active_plan(i.snapshot, Some(i.cluster)) else {
        return Check::new(
            id,
            Verdict::Unknown,
            format!("no ClusterUpdatePlan for {}: no estimate", i.cluster),
        );
    };
    let mut total = SignedDuration::ZERO;
    let mut without = 0;
    let mut evidence = Vec::new();
    for s in &plan.steps {
        let est = match (s.estimated, &s.estimated_raw) {
            (Some(d), _) => {
                total += d;
                crate::domain::progress::human_duration(d)
            }
            (None, Some(raw)) => {
                without += 1;
                format!("{raw} (unread)")
            }
            (None, None) => {
                without += 1;
                "no estimate".to_string()
            }
        };
        evidence.push(format!("step {} {:?}: {est}", s.index + 1, s.label()));
    }
    let n = plan.steps.len();
    let mut summary = format!(
        "{} ({n} step{}): about {} expected",
        plan.name,
        plural(n),
        crate::domain::progress::human_duration(total)
    );
    if without > 0 {
        summary.push_str(&format!(
            ", {without} step{} without estimate",
            plural(without)
        ));
    }
    let verdict = if without > 0 {
        Verdict::Warning
    } else {
        Verdict::Ok
    };
    Check::new(id, verdict, summary).with(bounded(evidence))
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests;
