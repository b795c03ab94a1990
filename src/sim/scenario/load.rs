//! Loading a scenario: built-in names or files, TOML errors located to a
//! line and field, and range/consistency validation.

use std::fmt;
use std::path::Path;

use jiff::SignedDuration;

use super::spec::{Dur, MessageFormat, Role, ScenarioSpec, has_lock};

/// The scenarios built into the binary: (name, file name, TOML text).
pub const BUILTIN: &[(&str, &str, &str)] = &[
    (
        "quick",
        "quick.toml",
        include_str!("../../../assets/scenarios/quick.toml"),
    ),
    (
        "standard",
        "standard.toml",
        include_str!("../../../assets/scenarios/standard.toml"),
    ),
    (
        "stuck-drain",
        "stuck-drain.toml",
        include_str!("../../../assets/scenarios/stuck-drain.toml"),
    ),
    (
        "legacy",
        "legacy.toml",
        include_str!("../../../assets/scenarios/legacy.toml"),
    ),
    (
        "large",
        "large.toml",
        include_str!("../../../assets/scenarios/large.toml"),
    ),
    (
        "plan",
        "plan.toml",
        include_str!("../../../assets/scenarios/plan.toml"),
    ),
];

/// Since MOSK 22.4 the update restarts vRouter pods itself (reference §5.2).
const AUTOMATIC_VROUTER_RESTART: (u32, u32) = (22, 4);

/// The MOSK `(year, minor)` of a cluster release name
/// `mosk-<cluster major>-<minor>-<patch>-<year>-<minor>[-<patch>]`
/// (`mosk-17-4-0-25-1`); `None` for other forms. [I] The name's layout is
/// inferred from the Container Cloud release names, not documented.
fn mosk_year_minor(release: &str) -> Option<(u32, u32)> {
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

/// Most machines a scenario may have.
pub const MAX_MACHINES: u32 = 10_000;

/// Why a scenario could not be loaded. Every variant names the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScenarioError {
    /// Neither a built-in scenario name nor an existing file.
    NotFound { name: String },
    /// The file exists but could not be read.
    Io { file: String, problem: String },
    /// The TOML could not be read into a scenario (syntax, unknown field, wrong type).
    Parse {
        file: String,
        field: Option<String>,
        line: Option<usize>,
        problem: String,
    },
    /// The scenario was read but a value is out of range or inconsistent.
    Invalid {
        file: String,
        field: String,
        problem: String,
    },
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::NotFound { name } => {
                let names: Vec<&str> = BUILTIN.iter().map(|b| b.0).collect();
                write!(
                    f,
                    "scenario `{name}`: no built-in scenario has that name and no such file exists (built-in: {})",
                    names.join(", ")
                )
            }
            ScenarioError::Io { file, problem } => {
                write!(f, "scenario file {file}: cannot read it: {problem}")
            }
            ScenarioError::Parse {
                file,
                field,
                line,
                problem,
            } => {
                write!(f, "scenario file {file}")?;
                if let Some(line) = line {
                    write!(f, ", line {line}")?;
                }
                if let Some(field) = field {
                    write!(f, ", field `{field}`")?;
                }
                write!(f, ": {problem}")
            }
            ScenarioError::Invalid {
                file,
                field,
                problem,
            } => write!(f, "scenario file {file}, field `{field}`: {problem}"),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Loads a built-in scenario by name (`quick`, `standard`, `stuck-drain`,
/// `legacy`, `large`, `plan`) or a scenario file by path.
pub fn load_scenario(name_or_path: &str) -> Result<ScenarioSpec, ScenarioError> {
    if let Some((_, file, text)) = BUILTIN.iter().find(|b| b.0 == name_or_path) {
        return parse_scenario(text, &format!("assets/scenarios/{file} (built-in)"));
    }
    let path = Path::new(name_or_path);
    if !path.exists() {
        return Err(ScenarioError::NotFound {
            name: name_or_path.to_string(),
        });
    }
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Io {
        file: file.clone(),
        problem: e.to_string(),
    })?;
    parse_scenario(&text, &file)
}

/// Parses and validates scenario TOML; `file` names the source in errors.
pub fn parse_scenario(text: &str, file: &str) -> Result<ScenarioSpec, ScenarioError> {
    let spec: ScenarioSpec = toml::from_str(text).map_err(|e| {
        let (line, field) = match e.span() {
            Some(span) => locate(text, span.start),
            None => (None, None),
        };
        ScenarioError::Parse {
            file: file.to_string(),
            field,
            line,
            problem: e.message().trim().to_string(),
        }
    })?;
    spec.validate(file)?;
    Ok(spec)
}

/// The line number (1-based) and dotted key at a byte offset of TOML text.
/// Hand-written: toml's error gives a span but no key path.
fn locate(text: &str, offset: usize) -> (Option<usize>, Option<String>) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line_no = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let line = &text[line_start..line_end];
    let key = line
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_string())
        .filter(|k| !k.is_empty() && !k.starts_with('['));
    // The innermost table header above the line gives the prefix.
    let table = before[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    let field = match (table, key) {
        (Some(t), Some(k)) => Some(format!("{t}.{k}")),
        (None, Some(k)) => Some(k),
        (Some(t), None) if line.trim_start().starts_with('[') => Some(t),
        (_, None) => None,
    };
    (Some(line_no), field)
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

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: &str = "name = \"t\"\n[[machines]]\nrole = \"control\"\ncount = 1\n";

    #[test]
    fn every_builtin_scenario_loads() {
        for (name, _, _) in BUILTIN {
            let spec = load_scenario(name).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(spec.name, *name);
        }
        assert_eq!(load_scenario("large").unwrap().total_machines(), 2000);
    }

    #[test]
    fn vrouter_restart_follows_the_target_release() {
        // Built-ins: 25.1 targets restart automatically; `legacy` (22.2) by hand.
        for (name, _, _) in BUILTIN {
            let spec = load_scenario(name).unwrap();
            assert_eq!(spec.vrouter_manual_restart, *name == "legacy", "{name}");
        }
        assert_eq!(mosk_year_minor("mosk-17-4-0-25-1"), Some((25, 1)));
        assert_eq!(mosk_year_minor("mosk-17-3-4-24-3-4"), Some((24, 3)));
        assert_eq!(mosk_year_minor("17.4.0+25.1"), None);
        let e = parse_scenario(&format!("vrouter_manual_restart = true\n{MIN}"), "v.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "scenario file v.toml, field `vrouter_manual_restart`: the target mosk-17-4-0-25-1 is MOSK 22.4 or later, whose update restarts vRouter pods automatically"
        );
        let old = "release = { from = \"mosk-8-5-0-22-1\", to = \"mosk-8-7-0-22-3\", controller_from = \"a\", controller_to = \"b\", agent_from = \"c\", agent_to = \"d\" }\n";
        let e = parse_scenario(&format!("{old}{MIN}"), "v.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("field `vrouter_manual_restart`") && e.contains("before MOSK 22.4"),
            "{e}"
        );
        assert!(
            parse_scenario(
                &format!("vrouter_manual_restart = true\n{old}{MIN}"),
                "v.toml"
            )
            .is_ok()
        );
        // A release name the loader cannot read is left to the scenario's word.
        let odd = old.replace("mosk-8-7-0-22-3", "custom");
        assert!(
            parse_scenario(
                &format!("vrouter_manual_restart = true\n{odd}{MIN}"),
                "v.toml"
            )
            .is_ok()
        );
    }

    #[test]
    fn minimal_file_gets_documented_defaults() {
        let s = parse_scenario(MIN, "t.toml").unwrap();
        assert_eq!(s.namespace, "child-ns");
        assert_eq!(s.cluster, "child-cl");
        assert_eq!(s.worker_concurrency, 1);
        assert_eq!(s.retry_interval, Dur::secs(60));
        assert!(s.reboot);
    }

    #[test]
    fn unknown_field_names_file_and_field() {
        let text = format!("{MIN}\n[durations]\ndeploy = \"1m\"\nreboto = \"1m\"\n");
        let e = parse_scenario(&text, "my.toml").unwrap_err().to_string();
        assert!(e.starts_with("scenario file my.toml"), "{e}");
        assert!(e.contains("durations.reboto"), "{e}");
        assert!(e.contains("unknown field"), "{e}");
    }

    #[test]
    fn bad_duration_names_the_field() {
        let text = format!("{MIN}\n[durations]\ndeploy = \"soon\"\n");
        let e = parse_scenario(&text, "my.toml").unwrap_err().to_string();
        assert!(e.contains("field `durations.deploy`"), "{e}");
        assert!(e.contains("invalid duration \"soon\""), "{e}");
        let text = format!("{MIN}\n[durations]\ndeploy = \"0s\"\n");
        let e = parse_scenario(&text, "my.toml").unwrap_err().to_string();
        assert_eq!(
            e,
            "scenario file my.toml, field `durations.deploy`: 0s is too short; the minimum is 1s"
        );
    }

    #[test]
    fn out_of_range_override_and_wrong_role_are_rejected() {
        let text = format!("{MIN}\n[[overrides]]\nrole = \"compute\"\nindex = 0\n");
        let e = parse_scenario(&text, "x.toml").unwrap_err().to_string();
        assert!(e.contains("field `overrides[0].index`"), "{e}");
        let text = format!(
            "{MIN}\n[[overrides]]\nrole = \"control\"\nindex = 0\nvrouter_never_ready = true\n"
        );
        let e = parse_scenario(&text, "x.toml").unwrap_err().to_string();
        assert!(e.contains("overrides[0].vrouter_never_ready"), "{e}");
        let text = format!("{MIN}worker_concurrency = 0\n");
        // a top-level key after a table header belongs to the table: TOML rejects it
        assert!(parse_scenario(&text, "x.toml").is_err());
        let text = format!("worker_concurrency = 0\n{MIN}");
        let e = parse_scenario(&text, "x.toml").unwrap_err().to_string();
        assert!(e.contains("field `worker_concurrency`"), "{e}");
    }

    #[test]
    fn wrong_enum_value_names_line_and_field() {
        let text = "name = \"t\"\nmessage_format = \"ancient\"\n[[machines]]\nrole = \"control\"\ncount = 1\n";
        let e = parse_scenario(text, "y.toml").unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        assert!(e.contains("field `message_format`"), "{e}");
    }

    #[test]
    fn plan_scenario_features_are_validated() {
        let p = load_scenario("plan").unwrap();
        assert_eq!(p.plan.as_ref().unwrap().steps.len(), 5);
        assert_eq!(p.update_groups.len(), 5);
        let compute = "[[machines]]\nrole = \"compute\"\ncount = 2\ninstances = 1\n";
        let tags = "[[overrides]]\nrole = \"compute\"\nindex = 0\nserver_tags = [\"notify\"]\n";
        let e = parse_scenario(
            &format!("message_format = \"old\"\n{MIN}{compute}{tags}"),
            "t.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("overrides[0].server_tags") && e.contains("MOSK 25.1"),
            "{e}"
        );
        assert!(parse_scenario(&format!("{MIN}{compute}{tags}"), "t.toml").is_ok());
        let e = parse_scenario(&format!("{MIN}[auto_pause]\nalerts = [\"A\"]\n"), "t.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `auto_pause`"), "{e}");
        let step = |id: &str, stage: &str| {
            format!(
                "[[plan.steps]]\nid = \"{id}\"\nname = \"n\"\nstage = \"{stage}\"\n\
                 impact = {{ users = \"none\", workloads = \"none\" }}\ngranularity = \"cluster\"\n"
            )
        };
        let e = parse_scenario(
            &format!("{MIN}{}{}", step("a", "ceph"), step("b", "openstack")),
            "t.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("field `plan.steps`") && e.contains("follow the flow"),
            "{e}"
        );
        let e = parse_scenario(
            &format!("{MIN}{}{}", step("a", "ceph"), step("a", "masters")),
            "t.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("plan.steps[1].id"), "{e}");
        let e = parse_scenario(
            &format!("{MIN}[[overrides]]\nrole = \"control\"\nindex = 0\ndisabled = true\n"),
            "t.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("cannot be disabled"), "{e}");
    }

    #[test]
    fn missing_scenario_is_not_found() {
        let e = load_scenario("no-such-scenario").unwrap_err();
        assert!(matches!(e, ScenarioError::NotFound { .. }));
        assert!(e.to_string().contains("quick"), "{e}");
    }
}
