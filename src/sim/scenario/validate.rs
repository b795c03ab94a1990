//! Range and consistency checks of a scenario file (after it was read).

use jiff::SignedDuration;

use super::load::{MAX_MACHINES, ScenarioError};
use super::spec::{Dur, MessageFormat, Role, ScenarioSpec, has_lock};

/// Since MOSK 22.4 the update restarts vRouter pods itself (reference §5.2).
const AUTOMATIC_VROUTER_RESTART: (u32, u32) = (22, 4);

/// The MOSK `(year, minor)` of a cluster release name
/// `mosk-<cluster major>-<minor>-<patch>-<year>-<minor>[-<patch>]`
/// (`mosk-17-4-0-25-1`); `None` for other forms. [I] The name's layout is
/// inferred from the Container Cloud release names, not documented.
pub(crate) fn mosk_year_minor(release: &str) -> Option<(u32, u32)> {
    let n: Vec<u32> = release
        .strip_prefix("mosk-")?
        .split('-')
        .map(|t| t.parse().ok())
        .collect::<Option<_>>()?;
    match n.as_slice() {
        [_, _, _, year, minor] | [_, _, _, year, minor, _] => Some((*year, *minor)),
        _ => None,
    }
}

impl ScenarioSpec {
    pub(crate) fn validate(&self, file: &str) -> Result<(), ScenarioError> {
        let bad = |field: &str, problem: String| ScenarioError::Invalid {
            file: file.to_string(),
            field: field.to_string(),
            problem,
        };
        if self.name.trim().is_empty() {
            return Err(bad("name", "must not be empty".into()));
        }
        for (field, value) in [("namespace", &self.namespace), ("cluster", &self.cluster)] {
            if !is_dns_label(value) {
                return Err(bad(
                    field,
                    format!(
                        "{value:?} is not a valid name (lower-case letters, digits and '-', at most 63 characters)"
                    ),
                ));
            }
        }
        let p = &self.machine_prefix;
        if p.is_empty()
            || p.len() > 12
            || !p
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        {
            return Err(bad(
                "machine_prefix",
                format!("{p:?} must be 1 to 12 lower-case letters or digits"),
            ));
        }
        if !(1..=100).contains(&self.worker_concurrency) {
            return Err(bad(
                "worker_concurrency",
                format!("{} is out of range 1..=100", self.worker_concurrency),
            ));
        }
        check_dur(&bad, "retry_interval", self.retry_interval, 1)?;
        for (name, d) in self.durations.fields() {
            let min = if name == "update_start" { 0 } else { 1 };
            check_dur(&bad, &format!("durations.{name}"), d, min)?;
        }
        let r = &self.release;
        for (name, v) in [
            ("release.from", &r.from),
            ("release.to", &r.to),
            ("release.controller_from", &r.controller_from),
            ("release.controller_to", &r.controller_to),
            ("release.agent_from", &r.agent_from),
            ("release.agent_to", &r.agent_to),
        ] {
            if v.trim().is_empty() {
                return Err(bad(name, "must not be empty".into()));
            }
        }
        match (mosk_year_minor(&r.to), self.vrouter_manual_restart) {
            (Some(v), true) if v >= AUTOMATIC_VROUTER_RESTART => {
                return Err(bad(
                    "vrouter_manual_restart",
                    format!(
                        "the target {} is MOSK 22.4 or later, whose update restarts vRouter pods automatically",
                        r.to
                    ),
                ));
            }
            (Some(v), false) if v < AUTOMATIC_VROUTER_RESTART => {
                return Err(bad(
                    "vrouter_manual_restart",
                    format!(
                        "the target {} is before MOSK 22.4, whose vRouter pods are restarted by hand: set it to true",
                        r.to
                    ),
                ));
            }
            _ => {}
        }
        let os = &self.openstack;
        if !(1..=10).contains(&os.instance_migrate_concurrency) {
            return Err(bad(
                "openstack.instance_migrate_concurrency",
                format!("{} is out of range 1..=10", os.instance_migrate_concurrency),
            ));
        }
        if !(1..=1000).contains(&os.nwl_parallel_max_compute) {
            return Err(bad(
                "openstack.nwl_parallel_max_compute",
                format!("{} is out of range 1..=1000", os.nwl_parallel_max_compute),
            ));
        }
        if self.machines.is_empty() {
            return Err(bad(
                "machines",
                "at least one machine group is needed".into(),
            ));
        }
        for (i, g) in self.machines.iter().enumerate() {
            let f = |n: &str| format!("machines[{i}].{n}");
            if g.count == 0 {
                return Err(bad(&f("count"), "must be at least 1".into()));
            }
            if g.instances > 200 {
                return Err(bad(
                    &f("instances"),
                    format!("{} is out of range 0..=200", g.instances),
                ));
            }
            if g.instances > 0 && g.role != Role::Compute {
                return Err(bad(
                    &f("instances"),
                    "only compute machines run instances".into(),
                ));
            }
            check_attempts(&bad, &f("migration_attempts"), g.migration_attempts)?;
        }
        if self.count(Role::Control) == 0 {
            return Err(bad(
                "machines",
                "at least one `control` machine is needed".into(),
            ));
        }
        if self.count(Role::Control) > 9 {
            return Err(bad(
                "machines",
                "at most 9 `control` machines are supported".into(),
            ));
        }
        let total = self.total_machines();
        if total > MAX_MACHINES {
            return Err(bad(
                "machines",
                format!("{total} machines in all; at most {MAX_MACHINES}"),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (i, o) in self.overrides.iter().enumerate() {
            let f = |n: &str| format!("overrides[{i}].{n}");
            let count = self.count(o.role);
            if o.index >= count {
                return Err(bad(
                    &f("index"),
                    format!(
                        "there are {count} `{}` machines, so the index must be below {count}",
                        o.role.as_str()
                    ),
                ));
            }
            if !seen.insert((o.role, o.index)) {
                return Err(bad(
                    &f("index"),
                    format!(
                        "`{}` machine {} is overridden twice",
                        o.role.as_str(),
                        o.index
                    ),
                ));
            }
            if let Some(n) = o.instances {
                if n > 200 {
                    return Err(bad(&f("instances"), format!("{n} is out of range 0..=200")));
                }
                if n > 0 && o.role != Role::Compute {
                    return Err(bad(
                        &f("instances"),
                        "only compute machines run instances".into(),
                    ));
                }
            }
            check_attempts(&bad, &f("migration_attempts"), o.migration_attempts)?;
            if !o.unmigratable.is_empty() {
                if o.role != Role::Compute {
                    return Err(bad(
                        &f("unmigratable"),
                        "only compute machines run instances".into(),
                    ));
                }
                let instances = o
                    .instances
                    .unwrap_or_else(|| self.group_instances(o.role, o.index));
                if o.unmigratable.len() as u32 > instances {
                    return Err(bad(
                        &f("unmigratable"),
                        format!(
                            "{} entries but the node has only {instances} instances",
                            o.unmigratable.len()
                        ),
                    ));
                }
            }
            if let Some(c) = o.stuck_lock
                && !has_lock(o.role, c)
            {
                return Err(bad(
                    &f("stuck_lock"),
                    format!(
                        "a `{}` machine has no {} lock",
                        o.role.as_str(),
                        c.controller_name()
                    ),
                ));
            }
            if let Some(c) = o.lock_left_inactive
                && !has_lock(o.role, c)
            {
                return Err(bad(
                    &f("lock_left_inactive"),
                    format!(
                        "a `{}` machine has no {} lock",
                        o.role.as_str(),
                        c.controller_name()
                    ),
                ));
            }
            if o.vrouter_never_ready && o.role != Role::Compute {
                return Err(bad(
                    &f("vrouter_never_ready"),
                    "only compute machines run a vRouter pod".into(),
                ));
            }
            if o.no_collocated_roles && o.role != Role::Control {
                return Err(bad(
                    &f("no_collocated_roles"),
                    "only `control` machines can be without collocated roles".into(),
                ));
            }
            if o.disabled && o.role == Role::Control {
                return Err(bad(
                    &f("disabled"),
                    "control-plane machines cannot be disabled".into(),
                ));
            }
            if !o.server_tags.is_empty() {
                if self.message_format != MessageFormat::New {
                    return Err(bad(
                        &f("server_tags"),
                        "per-instance maintenance actions exist from MOSK 25.1 (message_format = \"new\")".into(),
                    ));
                }
                let instances = o
                    .instances
                    .unwrap_or_else(|| self.group_instances(o.role, o.index));
                if o.server_tags.len() as u32 > instances {
                    return Err(bad(
                        &f("server_tags"),
                        format!(
                            "{} entries but the node has only {instances} instances",
                            o.server_tags.len()
                        ),
                    ));
                }
            }
            if let Some(d) = o.drain_blocked {
                check_dur(&bad, &f("drain_blocked"), d, 1)?;
            }
            if !o.server_states.is_empty() {
                let instances = o
                    .instances
                    .unwrap_or_else(|| self.group_instances(o.role, o.index));
                if o.server_states.len() as u32 > instances {
                    return Err(bad(
                        &f("server_states"),
                        format!(
                            "{} entries but the node has only {instances} instances",
                            o.server_states.len()
                        ),
                    ));
                }
            }
            if let Some(d) = o.live_migration {
                check_dur(&bad, &f("live_migration"), d, 1)?;
            }
            if let Some(d) = o.compute_services_down {
                check_dur(&bad, &f("compute_services_down"), d, 1)?;
            }
            if o.role != Role::Compute && o.compute_services_down.is_some() {
                return Err(bad(
                    &f("compute_services_down"),
                    "only computes run nova-compute".into(),
                ));
            }
            for r in &o.extra_openstack_roles {
                if !matches!(r, Role::Gateway | Role::Compute) || *r == o.role {
                    return Err(bad(
                        &f("extra_openstack_roles"),
                        format!(
                            "`{}` cannot be added to a `{}` machine: only `gateway` or `compute`, other than its own",
                            r.as_str(),
                            o.role.as_str()
                        ),
                    ));
                }
            }
        }
        self.validate_plan(&bad)?;
        Ok(())
    }

    fn validate_plan(
        &self,
        bad: &impl Fn(&str, String) -> ScenarioError,
    ) -> Result<(), ScenarioError> {
        if let Some(plan) = &self.plan {
            if plan.steps.is_empty() {
                return Err(bad("plan.steps", "at least one step is needed".into()));
            }
            let mut stages = std::collections::HashSet::new();
            let mut ids = std::collections::HashSet::new();
            for (i, s) in plan.steps.iter().enumerate() {
                let f = |n: &str| format!("plan.steps[{i}].{n}");
                if s.id.trim().is_empty() || !ids.insert(s.id.as_str()) {
                    return Err(bad(&f("id"), format!("{:?} is empty or used twice", s.id)));
                }
                if s.name.trim().is_empty() {
                    return Err(bad(&f("name"), "must not be empty".into()));
                }
                if !stages.insert(s.stage) {
                    return Err(bad(
                        &f("stage"),
                        format!("{:?} is gated by two steps", s.stage),
                    ));
                }
                for d in [&s.duration.estimated, &s.duration.eta]
                    .into_iter()
                    .flatten()
                {
                    if d.parse::<SignedDuration>().is_err() {
                        return Err(bad(
                            &f("duration"),
                            format!("{d:?} is not a duration like \"1h0m0s\""),
                        ));
                    }
                }
            }
            // Steps run in flow order.
            let order: Vec<_> = plan.steps.iter().map(|s| s.stage).collect();
            if order.windows(2).any(|w| w[0] > w[1]) {
                return Err(bad(
                    "plan.steps",
                    "steps must follow the flow: openstack, ceph, masters, workers, finalization"
                        .into(),
                ));
            }
        }
        if let Some(ap) = &self.auto_pause {
            if self.plan.is_none() {
                return Err(bad(
                    "auto_pause",
                    "an UpdateAutoPause needs a ClusterUpdatePlan (`[plan]`)".into(),
                ));
            }
            for (i, f) in ap.fires.iter().enumerate() {
                check_dur(bad, &format!("auto_pause.fires[{i}].after"), f.after, 0)?;
                check_dur(bad, &format!("auto_pause.fires[{i}].lasts"), f.lasts, 1)?;
            }
        }
        let mut clusters = std::collections::HashSet::from([(&self.namespace, &self.cluster)]);
        for (i, c) in self.other_clusters.iter().enumerate() {
            let f = |n: &str| format!("other_clusters[{i}].{n}");
            for (field, value) in [("namespace", &c.namespace), ("name", &c.name)] {
                if !is_dns_label(value) {
                    return Err(bad(&f(field), format!("{value:?} is not a valid name")));
                }
            }
            if !clusters.insert((&c.namespace, &c.name)) {
                return Err(bad(
                    &f("name"),
                    format!("{}/{} is named twice", c.namespace, c.name),
                ));
            }
            if !(1..=50).contains(&c.machines) {
                return Err(bad(
                    &f("machines"),
                    format!("{} is out of range 1..=50", c.machines),
                ));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for (i, g) in self.update_groups.iter().enumerate() {
            let f = |n: &str| format!("update_groups[{i}].{n}");
            if !is_dns_label(&format!("{}-{}", self.cluster, g.suffix)) || !seen.insert(&g.suffix) {
                return Err(bad(
                    &f("suffix"),
                    format!("{:?} is not a valid, unique name part", g.suffix),
                ));
            }
            if !(1..=100).contains(&g.concurrent_updates) {
                return Err(bad(
                    &f("concurrent_updates"),
                    format!("{} is out of range 1..=100", g.concurrent_updates),
                ));
            }
            for (j, m) in g.members.iter().enumerate() {
                let count = self.count(m.role);
                let end = m.first + m.count.unwrap_or(count.saturating_sub(m.first));
                if m.first >= count || end > count {
                    return Err(bad(
                        &format!("update_groups[{i}].members[{j}]"),
                        format!(
                            "there are {count} `{}` machines; {}..{end} is out of range",
                            m.role.as_str(),
                            m.first
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn check_dur(
    bad: &impl Fn(&str, String) -> ScenarioError,
    field: &str,
    d: Dur,
    min_secs: i64,
) -> Result<(), ScenarioError> {
    let secs = d.0.as_secs();
    if d.0.is_negative() || secs < min_secs {
        return Err(bad(
            field,
            format!("{:#} is too short; the minimum is {min_secs}s", d.0),
        ));
    }
    if secs > 7 * 24 * 3600 {
        return Err(bad(
            field,
            format!("{:#} is too long; the maximum is 7 days", d.0),
        ));
    }
    Ok(())
}

fn check_attempts(
    bad: &impl Fn(&str, String) -> ScenarioError,
    field: &str,
    v: Option<u32>,
) -> Result<(), ScenarioError> {
    match v {
        Some(n) if !(1..=100).contains(&n) => {
            Err(bad(field, format!("{n} is out of range 1..=100")))
        }
        _ => Ok(()),
    }
}

fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}
