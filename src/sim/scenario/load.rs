//! Loading a scenario: built-in names or files, TOML errors located to a
//! line and field; the range and consistency checks are in `validate`.

use std::fmt;
use std::path::Path;

use super::spec::ScenarioSpec;

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
    (
        "controllers",
        "controllers.toml",
        include_str!("../../../assets/scenarios/controllers.toml"),
    ),
    (
        "ready",
        "ready.toml",
        include_str!("../../../assets/scenarios/ready.toml"),
    ),
];

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
/// `legacy`, `large`, `plan`, `controllers`, `ready`) or a scenario file by path.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::spec::Dur;
    use crate::sim::scenario::validate::mosk_year_minor;

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
    fn other_clusters_are_named_once_each_and_not_as_the_played_one() {
        let other = |ns: &str, name: &str| {
            format!("\n[[other_clusters]]\nnamespace = \"{ns}\"\nname = \"{name}\"\n")
        };
        let ok = format!(
            "{MIN}{}{}",
            other("child-ns", "b-cl"),
            other("a-ns", "child-cl")
        );
        let s = parse_scenario(&ok, "o.toml").unwrap();
        assert_eq!(s.other_clusters.len(), 2);
        assert_eq!(s.other_clusters[0].machines, 3);
        let played = format!("{MIN}{}", other("child-ns", "child-cl"));
        let e = parse_scenario(&played, "o.toml").unwrap_err().to_string();
        assert!(
            e.contains("field `other_clusters[0].name`") && e.contains("named twice"),
            "{e}"
        );
        let bad = format!("{MIN}{}", other("Prod", "p"));
        let e = parse_scenario(&bad, "o.toml").unwrap_err().to_string();
        assert!(e.contains("other_clusters[0].namespace"), "{e}");
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
