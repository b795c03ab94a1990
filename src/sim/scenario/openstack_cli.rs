//! The `openstack` command of the simulated `keystone-client` pod: the
//! part of python-openstackclient (OSC) an operator uses on the servers of
//! a node during a maintenance window, answered from the simulated Nova
//! (`nova.rs`).
//!
//! Followed (read-only, nothing copied):
//! - the columns and their order: openstack/python-openstackclient
//!   `openstackclient/compute/v2/server.py` `ListServer.take_action` and
//!   `_prep_server_detail` (`ShowServer`), commit 5b7da4b4; the SDK
//!   negotiates the newest microversion both sides know, and the simulated
//!   Nova is taken to be OpenStack 2024.1 (Caracal, microversion 2.96
//!   [I]): the flavor is the embedded one (`Flavor`, 2.47+), the pinned
//!   availability zone is shown (2.96), scheduler hints are not (2.100), and
//!   the admin sees `Host Status` (2.16+);
//! - the values: cliff's `-f json` writes each column's
//!   `machine_readable()` (`cliff/formatters/json_format.py`, ba631ae4):
//!   the power state stays Nova's number, networks and properties stay
//!   dicts; `-f value` writes Python's `str()` of each (`value.py`);
//! - the errors: an unknown command is cliff's `run_subcommand` (on stdout,
//!   with the commands at the smallest distance, exit 2); a command is
//!   found as cliff's `CommandManager.find_command` finds it (a unique
//!   abbreviation of each word counts); argparse's errors exit 2; an
//!   exception is logged on stderr and exits 1 (`App.run_subcommand`);
//!   a server not found is openstacksdk's `Resource.find` ("No Server found
//!   for …", commit 94758e92), an HTTP error its `HttpException.__str__`;
//!   Nova's 409 text is `raise_http_conflict_for_instance_invalid_state`.
//! - a name is looked up in the admin's own project only, unless the
//!   command has `--all-projects` (`server stop`): the simulated servers
//!   all belong to tenant projects, so they are found by ID.
//!
//! Not simulated, and said so on stderr with exit 1: the other output
//! formats (table, the default, csv, yaml, shell), `--wait` and
//! `--offload` (they would block on the simulated clock), a target
//! `--host` or a cold migration, and every other OSC command (the `server`
//! and `project` commands are known by name, so abbreviations and the
//! suggestions after an unknown `server …` are the real ones; after other
//! unknown words the suggestions come from those commands only [I]).
//! Options the simulator does not know are argparse's "unrecognized
//! arguments", even where OSC has them; argparse's abbreviations of long
//! options are not accepted; the usage line names only the options known
//! here [I].

use std::collections::{HashMap, HashSet};

use jiff::{SignedDuration, Timestamp};
use rand::rngs::SmallRng;

use super::nova::{NOVA_API, Nova, NovaError, Server};
use super::objects::{stable_hex, stable_uuid};
use crate::sim::exec::Ran;

/// What the command runs against.
pub struct Cloud<'a> {
    pub nova: &'a mut Nova,
    pub now: Timestamp,
    pub rng: &'a mut SmallRng,
    /// How long a live migration from a host takes.
    pub live_migration: &'a dyn Fn(&str) -> SignedDuration,
}

/// OSC's `server` and `project` commands (its pyproject.toml entry points,
/// 5b7da4b4), for finding a command and suggesting one.
const KNOWN: &[&str] = &[
    "project cleanup",
    "project create",
    "project delete",
    "project list",
    "project set",
    "project show",
    "project unset",
    "server add fixed ip",
    "server add floating ip",
    "server add network",
    "server add port",
    "server add security group",
    "server add share",
    "server add volume",
    "server backup create",
    "server create",
    "server delete",
    "server dump create",
    "server evacuate",
    "server event list",
    "server event show",
    "server group create",
    "server group delete",
    "server group list",
    "server group show",
    "server image create",
    "server list",
    "server lock",
    "server migrate",
    "server migrate confirm",
    "server migrate revert",
    "server migration abort",
    "server migration confirm",
    "server migration force complete",
    "server migration list",
    "server migration revert",
    "server migration show",
    "server pause",
    "server reboot",
    "server rebuild",
    "server remove fixed ip",
    "server remove floating ip",
    "server remove network",
    "server remove port",
    "server remove security group",
    "server remove share",
    "server remove volume",
    "server rescue",
    "server resize",
    "server resize confirm",
    "server resize revert",
    "server restore",
    "server resume",
    "server set",
    "server share list",
    "server share show",
    "server shelve",
    "server show",
    "server ssh",
    "server start",
    "server stop",
    "server suspend",
    "server unlock",
    "server unpause",
    "server unrescue",
    "server unset",
    "server unshelve",
    "server volume list",
    "server volume set",
    "server volume update",
];

/// The projects of the simulated cloud ([I]: names of our own).
const PROJECTS: [&str; 5] = ["admin", "service", "tenant-a", "tenant-b", "tenant-c"];

/// A project's ID: 32 hex digits, stable for its name.
pub fn project_id(name: &str) -> String {
    stable_hex(&format!("project:{name}"), 32)
}

/// Runs `argv` (`openstack …`) against the cloud.
pub fn run(cloud: &mut Cloud<'_>, argv: &[String]) -> Ran {
    let mut args: Vec<String> = argv.iter().skip(1).cloned().collect();
    // The global options an operator may give; the environment already
    // names the admin cloud (OS_CLOUD=admin).
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--insecure" {
            args.remove(i);
        } else if a == "--os-cloud" && i + 1 < args.len() {
            args.drain(i..i + 2);
        } else if a.starts_with("--os-cloud=") {
            args.remove(i);
        } else if a == "--os-compute-api-version" || a.starts_with("--os-compute-api-version=") {
            return not_simulated("--os-compute-api-version");
        } else {
            i += 1;
        }
    }
    if args.is_empty() {
        return not_simulated("the interactive shell");
    }
    let Some((name, used)) = find_command(&args) else {
        return unknown_command(&args);
    };
    let rest = &args[used..];
    let prog = format!("openstack {name}");
    let result = match name {
        "server list" => server_list(cloud, &prog, rest),
        "server show" => server_show(cloud, &prog, rest),
        "server migrate" => server_migrate(cloud, &prog, rest),
        "server stop" => server_stop(cloud, &prog, rest),
        "server shelve" => server_shelve(cloud, &prog, rest),
        "project list" => project_list(&prog, rest),
        other => Err(not_simulated(&format!("openstack {other}"))),
    };
    result.unwrap_or_else(|r| r)
}

/// cliff's `find_command`: the longest run of words before the first
/// option that names a command, exactly or by a unique abbreviation of
/// each word; returns the command and how many words it took.
fn find_command(args: &[String]) -> Option<(&'static str, usize)> {
    let start = args
        .iter()
        .position(|a| a.starts_with('-'))
        .unwrap_or(args.len());
    for i in (1..=start).rev() {
        let words = &args[..i];
        let name = words.join(" ");
        if let Some(k) = KNOWN.iter().find(|k| **k == name) {
            return Some((k, i));
        }
        let partial: Vec<&'static str> = KNOWN
            .iter()
            .copied()
            .filter(|k| {
                let parts: Vec<&str> = k.split(' ').collect();
                parts.len() == i
                    && parts
                        .iter()
                        .zip(words)
                        .all(|(p, w)| p.starts_with(w.as_str()))
            })
            .collect();
        if let [one] = partial.as_slice() {
            return Some((one, i));
        }
    }
    None
}

/// cliff's `utils.damerau_levenshtein` with its `COST` (swap 0,
/// substitution 2, insertion 1, deletion 3).
fn distance(s1: &str, s2: &str) -> usize {
    let (w, s, a, d) = (0, 2, 1, 3);
    let (s1, s2): (Vec<char>, Vec<char>) = (s1.chars().collect(), s2.chars().collect());
    if s1 == s2 {
        return 0;
    }
    if s1.is_empty() {
        return s2.len() * a;
    }
    if s2.is_empty() {
        return s1.len() * d;
    }
    let mut row1: Vec<usize> = (0..=s2.len()).map(|i| i * a).collect();
    let mut row2 = row1.clone();
    let mut row0 = row1.clone();
    for i in 0..s1.len() {
        row2[0] = (i + 1) * d;
        for j in 0..s2.len() {
            let sub = row1[j] + usize::from(s1[i] != s2[j]) * s;
            let ins = row2[j] + a;
            let del = row1[j + 1] + d;
            let mut best = sub.min(ins).min(del);
            if i > 0 && j > 0 && s1[i - 1] == s2[j] && s1[i] == s2[j - 1] {
                best = best.min(row0[j - 1] + w);
            }
            row2[j + 1] = best;
        }
        std::mem::swap(&mut row0, &mut row1);
        std::mem::swap(&mut row1, &mut row2);
    }
    row1[s2.len()]
}

/// cliff's answer to an unknown command: on stdout, the commands at the
/// smallest distance from its first word (`App.get_fuzzy_matches`), exit 2.
fn unknown_command(args: &[String]) -> Ran {
    let cmd = args[0].as_str();
    let mut dist: Vec<(usize, &str)> = KNOWN
        .iter()
        .map(|c| {
            if c.starts_with(cmd) {
                (0, *c)
            } else {
                let prefix = c.split(' ').next().unwrap_or_default();
                (distance(cmd, prefix) + 1, *c)
            }
        })
        .collect();
    dist.sort();
    let mut matches = Vec::new();
    let mut at = 0;
    for (d, c) in dist {
        if d > at {
            if at > 0 {
                break;
            }
            at = d;
        }
        matches.push(c);
    }
    let mut out = format!(
        "openstack: '{}' is not an openstack command. See 'openstack --help'.\nDid you mean one of these?\n",
        args.join(" ")
    );
    for m in matches {
        out.push_str(&format!("  {m}\n"));
    }
    Ran::exited(2, out, "")
}

/// What the simulator does not do, said plainly (not OSC's words).
fn not_simulated(what: &str) -> Ran {
    Ran::exited(
        1,
        "",
        format!("mosk-console simulator: {what} is not simulated\n"),
    )
}

/// An exception cliff logs on stderr (exit 1).
fn failed(msg: &str) -> Ran {
    Ran::exited(1, "", format!("{msg}\n"))
}

/// openstacksdk's text for a Compute API error on a server action.
fn api_error(id: &str, e: NovaError) -> Ran {
    match e {
        NovaError::NotFound => failed(&format!(
            "NotFoundException: 404: Client Error for url: {NOVA_API}/servers/{id}/action, Instance {id} could not be found."
        )),
        NovaError::Conflict(m) => failed(&format!(
            "ConflictException: 409: Client Error for url: {NOVA_API}/servers/{id}/action, {m}"
        )),
    }
}

// ---------------------------------------------------------------------------
// argparse, as far as these commands need it

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Flag,
    Value,
    Append,
}

#[derive(Debug, Clone, Copy)]
struct Opt {
    names: &'static [&'static str],
    takes: Takes,
    metavar: &'static str,
    choices: &'static [&'static str],
}

const fn flag(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        takes: Takes::Flag,
        metavar: "",
        choices: &[],
    }
}

const fn value(names: &'static [&'static str], metavar: &'static str) -> Opt {
    Opt {
        names,
        takes: Takes::Value,
        metavar,
        choices: &[],
    }
}

const LIST_FORMATS: &[&str] = &["csv", "json", "table", "value", "yaml"];
const SHOW_FORMATS: &[&str] = &["json", "shell", "table", "value", "yaml"];

/// cliff's formatter options (`-f` with the formats of its kind of
/// command, `-c`, `--noindent`).
const fn output(formats: &'static [&'static str]) -> [Opt; 3] {
    [
        Opt {
            names: &["-f", "--format"],
            takes: Takes::Value,
            metavar: "",
            choices: formats,
        },
        Opt {
            names: &["-c", "--column"],
            takes: Takes::Append,
            metavar: "COLUMN",
            choices: &[],
        },
        flag(&["--noindent"]),
    ]
}

/// cliff's formatter options of a list command.
const LIST_OUTPUT: [Opt; 3] = output(LIST_FORMATS);
/// cliff's formatter options of a show command.
const SHOW_OUTPUT: [Opt; 3] = output(SHOW_FORMATS);

/// The positional arguments of a command.
#[derive(Debug, Clone, Copy)]
enum Positional {
    None,
    One(&'static str),
    OneOrMore(&'static str),
}

#[derive(Debug, Default)]
struct Parsed {
    positional: Vec<String>,
    flags: HashSet<&'static str>,
    values: HashMap<&'static str, Vec<String>>,
}

impl Parsed {
    fn has(&self, name: &str) -> bool {
        self.flags.contains(name)
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .and_then(|v| v.last())
            .map(String::as_str)
    }

    fn all(&self, name: &str) -> Vec<String> {
        self.values.get(name).cloned().unwrap_or_default()
    }
}

fn usage(prog: &str, opts: &[Opt], pos: Positional) -> String {
    let mut u = format!("usage: {prog} [-h]");
    for o in opts {
        let n = o.names[0];
        match o.takes {
            Takes::Flag => u.push_str(&format!(" [{n}]")),
            _ if !o.choices.is_empty() => {
                u.push_str(&format!(" [{n} {{{}}}]", o.choices.join(",")));
            }
            _ => u.push_str(&format!(" [{n} {}]", o.metavar)),
        }
    }
    match pos {
        Positional::None => {}
        Positional::One(m) => u.push_str(&format!(" {m}")),
        Positional::OneOrMore(m) => u.push_str(&format!(" {m} [{m} ...]")),
    }
    u
}

fn argparse_error(prog: &str, opts: &[Opt], pos: Positional, msg: &str) -> Ran {
    Ran::exited(
        2,
        "",
        format!("{}\n{prog}: error: {msg}\n", usage(prog, opts, pos)),
    )
}

fn parse(prog: &str, args: &[String], opts: &[Opt], pos: Positional) -> Result<Parsed, Ran> {
    let err = |msg: String| argparse_error(prog, opts, pos, &msg);
    let mut p = Parsed::default();
    let mut unknown: Vec<String> = Vec::new();
    let mut i = 0;
    let mut only_positional = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if only_positional || !a.starts_with('-') || a == "-" {
            p.positional.push(a.clone());
            continue;
        }
        if a == "--" {
            only_positional = true;
            continue;
        }
        if a == "-h" || a == "--help" {
            return Err(not_simulated("--help"));
        }
        // `--name=value`, `-fjson`, or the name alone.
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if a.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ if !a.starts_with("--") && a.len() > 2 => {
                (a[..2].to_string(), Some(a[2..].to_string()))
            }
            _ => (a.clone(), None),
        };
        let Some(opt) = opts.iter().find(|o| o.names.contains(&name.as_str())) else {
            unknown.push(a.clone());
            continue;
        };
        let dest = opt.names[opt.names.len() - 1];
        let shown = opt.names.join("/");
        match opt.takes {
            Takes::Flag => {
                if inline.is_some() {
                    return Err(err(format!(
                        "argument {shown}: ignored explicit argument {:?}",
                        inline.unwrap_or_default()
                    )));
                }
                p.flags.insert(dest);
            }
            Takes::Value | Takes::Append => {
                let v = match inline {
                    Some(v) => v,
                    None if i < args.len() && !args[i].starts_with('-') => {
                        i += 1;
                        args[i - 1].clone()
                    }
                    None => return Err(err(format!("argument {shown}: expected one argument"))),
                };
                if !opt.choices.is_empty() && !opt.choices.contains(&v.as_str()) {
                    let choices: Vec<String> =
                        opt.choices.iter().map(|c| format!("'{c}'")).collect();
                    return Err(err(format!(
                        "argument {shown}: invalid choice: '{v}' (choose from {})",
                        choices.join(", ")
                    )));
                }
                let slot = p.values.entry(dest).or_default();
                if opt.takes == Takes::Value {
                    slot.clear();
                }
                slot.push(v);
            }
        }
    }
    match pos {
        Positional::None => unknown.append(&mut p.positional),
        Positional::One(m) => {
            if p.positional.is_empty() {
                return Err(err(format!("the following arguments are required: {m}")));
            }
            unknown.extend(p.positional.drain(1..));
        }
        Positional::OneOrMore(m) => {
            if p.positional.is_empty() {
                return Err(err(format!("the following arguments are required: {m}")));
            }
        }
    }
    if !unknown.is_empty() {
        return Err(err(format!(
            "unrecognized arguments: {}",
            unknown.join(" ")
        )));
    }
    Ok(p)
}

// ---------------------------------------------------------------------------
// Output: Python values, written as cliff's formatters write them

/// A Python value as the formatters see it (dicts keep their order).
#[derive(Debug, Clone, PartialEq)]
enum Py {
    None,
    Bool(bool),
    Int(i64),
    Str(String),
    List(Vec<Py>),
    Dict(Vec<(String, Py)>),
}

impl Py {
    fn str(s: &str) -> Py {
        Py::Str(s.to_string())
    }

    fn opt(s: Option<&str>) -> Py {
        s.map_or(Py::None, Py::str)
    }

    /// `json.dump(…, indent=…)` with its default `ensure_ascii`.
    fn json(&self, indent: Option<usize>) -> String {
        let mut out = String::new();
        self.write_json(&mut out, indent, 0);
        out
    }

    fn write_json(&self, out: &mut String, indent: Option<usize>, level: usize) {
        let newline = |out: &mut String, level: usize| {
            if let Some(n) = indent {
                out.push('\n');
                out.push_str(&" ".repeat(n * level));
            }
        };
        let sep = if indent.is_some() { "," } else { ", " };
        match self {
            Py::None => out.push_str("null"),
            Py::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Py::Int(i) => out.push_str(&i.to_string()),
            Py::Str(s) => json_str(out, s),
            Py::List(items) if items.is_empty() => out.push_str("[]"),
            Py::Dict(items) if items.is_empty() => out.push_str("{}"),
            Py::List(items) => {
                out.push('[');
                for (k, v) in items.iter().enumerate() {
                    if k > 0 {
                        out.push_str(sep);
                    }
                    newline(out, level + 1);
                    v.write_json(out, indent, level + 1);
                }
                newline(out, level);
                out.push(']');
            }
            Py::Dict(items) => {
                out.push('{');
                for (k, (key, v)) in items.iter().enumerate() {
                    if k > 0 {
                        out.push_str(sep);
                    }
                    newline(out, level + 1);
                    json_str(out, key);
                    out.push_str(": ");
                    v.write_json(out, indent, level + 1);
                }
                newline(out, level);
                out.push('}');
            }
        }
    }

    /// Python's `str()`: a string as it is, anything else its `repr()`.
    fn py_str(&self) -> String {
        match self {
            Py::Str(s) => s.clone(),
            other => other.repr(),
        }
    }

    fn repr(&self) -> String {
        match self {
            Py::None => "None".into(),
            Py::Bool(b) => if *b { "True" } else { "False" }.into(),
            Py::Int(i) => i.to_string(),
            Py::Str(s) => {
                let q = if s.contains('\'') && !s.contains('"') {
                    '"'
                } else {
                    '\''
                };
                let mut out = String::from(q);
                for c in s.chars() {
                    match c {
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        '\r' => out.push_str("\\r"),
                        '\t' => out.push_str("\\t"),
                        c if c == q => {
                            out.push('\\');
                            out.push(c);
                        }
                        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                            out.push_str(&format!("\\x{:02x}", c as u32));
                        }
                        c => out.push(c),
                    }
                }
                out.push(q);
                out
            }
            Py::List(items) => {
                let inner: Vec<String> = items.iter().map(Py::repr).collect();
                format!("[{}]", inner.join(", "))
            }
            Py::Dict(items) => {
                let inner: Vec<String> = items
                    .iter()
                    .map(|(k, v)| format!("{}: {}", Py::Str(k.clone()).repr(), v.repr()))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
        }
    }
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || !c.is_ascii() => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// cliff's column selection (`-c`, names compared lower-cased with `_`
/// for spaces; the command's order kept).
fn select(columns: &[&str], parsed: &Parsed) -> Result<Vec<usize>, Ran> {
    let asked = parsed.all("--column");
    if asked.is_empty() {
        return Ok((0..columns.len()).collect());
    }
    let norm = |c: &str| c.trim().to_lowercase().replace(' ', "_");
    let wanted: Vec<String> = asked.iter().map(|c| norm(c)).collect();
    let picked: Vec<usize> = (0..columns.len())
        .filter(|i| wanted.contains(&norm(columns[*i])))
        .collect();
    if picked.is_empty() {
        let asked: Vec<String> = asked.iter().map(|c| format!("'{c}'")).collect();
        let names: Vec<String> = columns.iter().map(|c| format!("'{c}'")).collect();
        return Err(failed(&format!(
            "No recognized column names in [{}]. Recognized columns are ({}).",
            asked.join(", "),
            names.join(", ")
        )));
    }
    Ok(picked)
}

fn indent_of(parsed: &Parsed) -> Option<usize> {
    if parsed.has("--noindent") {
        None
    } else {
        Some(2)
    }
}

/// A list command's output (`Lister`).
fn emit_list(columns: &[&str], rows: Vec<Vec<Py>>, parsed: &Parsed) -> Ran {
    let picked = match select(columns, parsed) {
        Ok(p) => p,
        Err(r) => return r,
    };
    match parsed.value("--format").unwrap_or("table") {
        "json" => {
            let items: Vec<Py> = rows
                .into_iter()
                .map(|row| {
                    Py::Dict(
                        picked
                            .iter()
                            .map(|i| (columns[*i].to_string(), row[*i].clone()))
                            .collect(),
                    )
                })
                .collect();
            Ran::exited(
                0,
                format!("{}\n", Py::List(items).json(indent_of(parsed))),
                "",
            )
        }
        "value" => {
            let mut out = String::new();
            for row in rows {
                let cells: Vec<String> = picked.iter().map(|i| row[*i].py_str()).collect();
                out.push_str(&cells.join(" "));
                out.push('\n');
            }
            Ran::exited(0, out, "")
        }
        other => not_simulated(&format!("the {other} format (use -f json or -f value)")),
    }
}

/// A show command's output (`ShowOne`).
fn emit_one(fields: Vec<(String, Py)>, parsed: &Parsed) -> Ran {
    let names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
    let picked = match select(&names, parsed) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let fields: Vec<(String, Py)> = picked.iter().map(|i| fields[*i].clone()).collect();
    match parsed.value("--format").unwrap_or("table") {
        "json" => Ran::exited(
            0,
            format!("{}\n", Py::Dict(fields).json(indent_of(parsed))),
            "",
        ),
        "value" => {
            let out: String = fields
                .iter()
                .map(|(_, v)| format!("{}\n", v.py_str()))
                .collect();
            Ran::exited(0, out, "")
        }
        other => not_simulated(&format!("the {other} format (use -f json or -f value)")),
    }
}

// ---------------------------------------------------------------------------
// What Nova returns about a server (the values are of our own [I])

fn networks(s: &Server) -> Py {
    let h = stable_hex(&format!("ip:{}", s.id), 4);
    let n = u16::from_str_radix(&h, 16).unwrap_or(0);
    let net = format!("{}-net", s.project);
    Py::Dict(vec![(
        net,
        Py::List(vec![Py::Str(format!(
            "192.168.{}.{}",
            n % 250,
            (n >> 8) % 250 + 2
        ))]),
    )])
}

const IMAGE_NAME: &str = "ubuntu-22.04-x64";

fn image_id() -> String {
    stable_uuid("image:ubuntu-22.04-x64")
}

/// A flavor's resources (OpenStack's classic `m1` sizes).
fn flavor(name: &str) -> Py {
    let (vcpus, ram, disk) = match name {
        "m1.tiny" => (1, 512, 1),
        "m1.small" => (1, 2048, 20),
        "m1.medium" => (2, 4096, 40),
        "m1.large" => (4, 8192, 80),
        _ => (8, 16384, 160),
    };
    Py::Dict(vec![
        ("vcpus".into(), Py::Int(vcpus)),
        ("ram".into(), Py::Int(ram)),
        ("disk".into(), Py::Int(disk)),
        ("ephemeral".into(), Py::Int(0)),
        ("swap".into(), Py::Int(0)),
        ("original_name".into(), Py::str(name)),
        ("extra_specs".into(), Py::Dict(vec![])),
    ])
}

/// The compute host as the list's `Host` column and `server show` name it
/// (the hypervisor hostname; MOSK's hypervisors are named as their nodes).
fn hypervisor(s: &Server) -> Py {
    Py::opt(s.host.as_deref())
}

/// The servers an admin sees: every project's with `--all-projects`, else
/// the admin project's own (none of the simulated servers).
fn visible<'a>(nova: &'a Nova, all_projects: bool) -> impl Iterator<Item = &'a Server> + 'a {
    nova.servers()
        .filter(move |s| all_projects || s.project == "admin")
}

/// `find_server(name_or_id, ignore_missing=False)`: by ID in any project,
/// else by name among the visible servers.
fn find_server<'a>(
    nova: &'a Nova,
    name_or_id: &str,
    all_projects: bool,
) -> Result<&'a Server, Ran> {
    if let Some(s) = nova.server(name_or_id) {
        return Ok(s);
    }
    let named: Vec<&Server> = visible(nova, all_projects)
        .filter(|s| s.name == name_or_id)
        .collect();
    match named.as_slice() {
        [one] => Ok(one),
        [] => Err(failed(&format!("No Server found for {name_or_id}"))),
        _ => Err(failed(&format!(
            "More than one Server exists with the name '{name_or_id}'."
        ))),
    }
}

// ---------------------------------------------------------------------------
// The commands

const LIST_OPTS: [Opt; 6] = [
    LIST_OUTPUT[0],
    LIST_OUTPUT[1],
    LIST_OUTPUT[2],
    flag(&["--all-projects"]),
    value(&["--host"], "<hostname>"),
    flag(&["--long"]),
];

fn server_list(cloud: &mut Cloud<'_>, prog: &str, args: &[String]) -> Result<Ran, Ran> {
    let p = parse(prog, args, &LIST_OPTS, Positional::None)?;
    let long = p.has("--long");
    let all = p.has("--all-projects");
    let mut columns: Vec<&str> = vec!["ID", "Name", "Status"];
    if long {
        columns.extend(["Task State", "Power State"]);
    }
    columns.push("Networks");
    if long {
        columns.extend(["Image Name", "Image ID"]);
    } else {
        columns.push("Image");
    }
    columns.push("Flavor");
    if long {
        columns.extend([
            "Availability Zone",
            "Host",
            "Properties",
            "Pinned Availability Zone",
        ]);
    }
    if all {
        columns.push("Project ID");
    }
    let nova = &*cloud.nova;
    let servers: Vec<&Server> = visible(nova, all)
        .filter(|s| p.value("--host").is_none_or(|h| s.on(h)))
        .collect();
    // `Host Status` is added when any server listed has one (admin, 2.16+).
    if long && !servers.is_empty() {
        columns.push("Host Status");
    }
    let rows = servers
        .iter()
        .map(|s| {
            let mut row = vec![Py::str(&s.id), Py::str(&s.name), Py::str(s.status)];
            if long {
                row.push(Py::opt(s.task_state));
                row.push(Py::Int(i64::from(s.power_state)));
            }
            row.push(networks(s));
            row.push(Py::str(IMAGE_NAME));
            if long {
                row.push(Py::Str(image_id()));
            }
            row.push(Py::str(&s.flavor));
            if long {
                row.extend([Py::str("nova"), hypervisor(s), Py::Dict(vec![]), Py::None]);
            }
            if all {
                row.push(Py::Str(project_id(&s.project)));
            }
            if long {
                row.push(Py::str(nova.host_status(s)));
            }
            row
        })
        .collect();
    Ok(emit_list(&columns, rows, &p))
}

fn server_show(cloud: &mut Cloud<'_>, prog: &str, args: &[String]) -> Result<Ran, Ran> {
    let p = parse(prog, args, &SHOW_OUTPUT, Positional::One("<server>"))?;
    let nova = &*cloud.nova;
    let s = find_server(nova, &p.positional[0], false)?;
    let created = "2026-01-01T00:00:00Z";
    let hex = |k: &str, n: usize| stable_hex(&format!("{k}:{}", s.id), n);
    let mut f: Vec<(String, Py)> = vec![
        ("OS-DCF:diskConfig".into(), Py::str("MANUAL")),
        ("OS-EXT-AZ:availability_zone".into(), Py::str("nova")),
        ("OS-EXT-SRV-ATTR:host".into(), Py::opt(s.host.as_deref())),
        ("OS-EXT-SRV-ATTR:hostname".into(), Py::str(&s.name)),
        ("OS-EXT-SRV-ATTR:hypervisor_hostname".into(), hypervisor(s)),
        (
            "OS-EXT-SRV-ATTR:instance_name".into(),
            Py::Str(format!("instance-{}", hex("instance", 8))),
        ),
        ("OS-EXT-SRV-ATTR:kernel_id".into(), Py::str("")),
        ("OS-EXT-SRV-ATTR:launch_index".into(), Py::Int(0)),
        ("OS-EXT-SRV-ATTR:ramdisk_id".into(), Py::str("")),
        (
            "OS-EXT-SRV-ATTR:reservation_id".into(),
            Py::Str(format!("r-{}", hex("reservation", 8))),
        ),
        (
            "OS-EXT-SRV-ATTR:root_device_name".into(),
            Py::str("/dev/vda"),
        ),
        ("OS-EXT-SRV-ATTR:user_data".into(), Py::None),
        (
            "OS-EXT-STS:power_state".into(),
            Py::Int(i64::from(s.power_state)),
        ),
        ("OS-EXT-STS:task_state".into(), Py::opt(s.task_state)),
        ("OS-EXT-STS:vm_state".into(), Py::str(s.vm_state)),
        (
            "OS-SRV-USG:launched_at".into(),
            Py::str("2026-01-01T00:01:00.000000"),
        ),
        ("OS-SRV-USG:terminated_at".into(), Py::None),
        ("accessIPv4".into(), Py::str("")),
        ("accessIPv6".into(), Py::str("")),
        ("addresses".into(), networks(s)),
        ("config_drive".into(), Py::str("")),
        ("created".into(), Py::str(created)),
        ("description".into(), Py::None),
        ("flavor".into(), flavor(&s.flavor)),
        ("hostId".into(), Py::Str(hex("hostId", 56))),
        ("host_status".into(), Py::str(nova.host_status(s))),
        ("id".into(), Py::str(&s.id)),
        (
            "image".into(),
            Py::Str(format!("{IMAGE_NAME} ({})", image_id())),
        ),
        ("key_name".into(), Py::None),
        ("locked".into(), Py::Bool(false)),
        ("locked_reason".into(), Py::None),
        ("name".into(), Py::str(&s.name)),
        ("pinned_availability_zone".into(), Py::None),
        ("progress".into(), Py::Int(0)),
        ("project_id".into(), Py::Str(project_id(&s.project))),
        ("properties".into(), Py::Dict(vec![])),
        (
            "security_groups".into(),
            Py::List(vec![Py::Dict(vec![("name".into(), Py::str("default"))])]),
        ),
        ("server_groups".into(), Py::List(vec![])),
        ("status".into(), Py::str(s.status)),
        (
            "tags".into(),
            Py::List(s.tags.iter().map(|t| Py::str(t)).collect()),
        ),
        ("trusted_image_certificates".into(), Py::None),
        ("updated".into(), Py::str(created)),
        ("user_id".into(), Py::Str(hex("user", 32))),
        ("volumes_attached".into(), Py::List(vec![])),
    ];
    if s.status == super::nova::ERROR {
        f.push((
            "fault".into(),
            Py::Dict(vec![
                ("code".into(), Py::Int(500)),
                ("created".into(), Py::str(created)),
                ("message".into(), Py::str("Build of instance aborted")),
            ]),
        ));
    }
    f.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(emit_one(f, &p))
}

const MIGRATE_OPTS: [Opt; 5] = [
    flag(&["--live-migration"]),
    value(&["--host"], "<hostname>"),
    flag(&["--shared-migration"]),
    flag(&["--block-migration"]),
    flag(&["--wait"]),
];

fn server_migrate(cloud: &mut Cloud<'_>, prog: &str, args: &[String]) -> Result<Ran, Ran> {
    let p = parse(prog, args, &MIGRATE_OPTS, Positional::One("<server>"))?;
    if p.has("--shared-migration") && p.has("--block-migration") {
        return Err(argparse_error(
            prog,
            &MIGRATE_OPTS,
            Positional::One("<server>"),
            "argument --block-migration: not allowed with argument --shared-migration",
        ));
    }
    if !p.has("--live-migration") {
        return Err(not_simulated("a cold migration (without --live-migration)"));
    }
    if p.value("--host").is_some() {
        return Err(not_simulated("a target --host"));
    }
    if p.has("--wait") {
        return Err(not_simulated("--wait"));
    }
    let id = find_server(cloud.nova, &p.positional[0], false)?.id.clone();
    let from = cloud
        .nova
        .server(&id)
        .and_then(|s| s.host.clone())
        .unwrap_or_default();
    let takes = (cloud.live_migration)(&from);
    match cloud
        .nova
        .api_live_migrate(&id, cloud.now, takes, cloud.rng)
    {
        Ok(()) => Ok(Ran::exited(0, "", "")),
        Err(e) => Err(api_error(&id, e)),
    }
}

const STOP_OPTS: [Opt; 1] = [flag(&["--all-projects"])];

fn server_stop(cloud: &mut Cloud<'_>, prog: &str, args: &[String]) -> Result<Ran, Ran> {
    let p = parse(prog, args, &STOP_OPTS, Positional::OneOrMore("<server>"))?;
    // One at a time; the first error ends the command (the loop raises).
    for name in &p.positional {
        let id = find_server(cloud.nova, name, p.has("--all-projects"))?
            .id
            .clone();
        cloud
            .nova
            .api_stop(&id, cloud.now)
            .map_err(|e| api_error(&id, e))?;
    }
    Ok(Ran::exited(0, "", ""))
}

const SHELVE_OPTS: [Opt; 2] = [flag(&["--offload"]), flag(&["--wait"])];

fn server_shelve(cloud: &mut Cloud<'_>, prog: &str, args: &[String]) -> Result<Ran, Ran> {
    let p = parse(prog, args, &SHELVE_OPTS, Positional::OneOrMore("<server>"))?;
    for f in ["--offload", "--wait"] {
        if p.has(f) {
            return Err(not_simulated(f));
        }
    }
    for name in &p.positional {
        let s = find_server(cloud.nova, name, false)?;
        // Already shelved: skipped, as `ShelveServer.take_action` does.
        if matches!(s.status, "SHELVED" | "SHELVED_OFFLOADED") {
            continue;
        }
        let id = s.id.clone();
        cloud
            .nova
            .api_shelve(&id, cloud.now)
            .map_err(|e| api_error(&id, e))?;
    }
    Ok(Ran::exited(0, "", ""))
}

const PROJECT_LIST_OPTS: [Opt; 4] = [
    LIST_OUTPUT[0],
    LIST_OUTPUT[1],
    LIST_OUTPUT[2],
    flag(&["--long"]),
];

fn project_list(prog: &str, args: &[String]) -> Result<Ran, Ran> {
    let p = parse(prog, args, &PROJECT_LIST_OPTS, Positional::None)?;
    let long = p.has("--long");
    let mut columns = vec!["ID", "Name"];
    if long {
        columns.extend(["Domain ID", "Description", "Enabled"]);
    }
    let rows = PROJECTS
        .iter()
        .map(|name| {
            let mut row = vec![Py::Str(project_id(name)), Py::str(name)];
            if long {
                row.extend([Py::str("default"), Py::str(""), Py::Bool(true)]);
            }
            row
        })
        .collect();
    Ok(emit_list(&columns, rows, &p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::exec::Exit;
    use crate::sim::scenario::nova::NewServer;
    use crate::sim::scenario::spec::ServerState;
    use rand::SeedableRng;

    fn t0() -> Timestamp {
        "2026-01-01T00:00:00Z".parse().unwrap()
    }

    fn nova() -> Nova {
        let mut n = Nova::default();
        n.add_host("cmp-a");
        n.add_host("cmp-b");
        for (id, name, host, state) in [
            ("s1", "vm-00-00", "cmp-a", ServerState::Active),
            ("s2", "vm-00-01", "cmp-a", ServerState::Shutoff),
            ("s3", "vm-01-00", "cmp-b", ServerState::Active),
        ] {
            n.add_server(NewServer {
                id,
                name: name.into(),
                project: "tenant-a".into(),
                flavor: "m1.small".into(),
                host,
                state,
                problem: None,
                tag: None,
            });
        }
        n
    }

    fn run_on(n: &mut Nova, now: Timestamp, line: &str) -> Ran {
        let mut rng = SmallRng::seed_from_u64(1);
        let takes = |_: &str| SignedDuration::from_secs(30);
        let mut cloud = Cloud {
            nova: n,
            now,
            rng: &mut rng,
            live_migration: &takes,
        };
        let argv: Vec<String> = line.split(' ').map(str::to_string).collect();
        run(&mut cloud, &argv)
    }

    fn text(b: &[u8]) -> String {
        String::from_utf8(b.to_vec()).unwrap()
    }

    #[test]
    fn server_list_long_has_osc_columns_in_order() {
        let mut n = nova();
        let r = run_on(
            &mut n,
            t0(),
            "openstack server list --all-projects --host cmp-a --long -f json",
        );
        assert_eq!(r.exit, Exit::Code(0), "{}", text(&r.stderr));
        let out = text(&r.stdout);
        let keys: Vec<&str> = out
            .lines()
            .take_while(|l| !l.starts_with("  },"))
            .filter(|l| l.starts_with("    \""))
            .map(|l| l.trim().split('"').nth(1).unwrap())
            .collect();
        assert_eq!(
            keys,
            [
                "ID",
                "Name",
                "Status",
                "Task State",
                "Power State",
                "Networks",
                "Image Name",
                "Image ID",
                "Flavor",
                "Availability Zone",
                "Host",
                "Properties",
                "Pinned Availability Zone",
                "Project ID",
                "Host Status"
            ]
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let ids: Vec<&str> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["ID"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["s1", "s2"]);
        assert_eq!(v[0]["Power State"], 1);
        assert_eq!(v[1]["Status"], "SHUTOFF");
        assert_eq!(v[0]["Host"], "cmp-a");
        assert_eq!(v[0]["Project ID"], project_id("tenant-a"));
        assert!(out.starts_with("[\n  {\n    \"ID\": \"s1\",\n"), "{out}");
        // Without --all-projects the admin sees its own project only.
        let r = run_on(&mut n, t0(), "openstack server list --host cmp-a -f json");
        assert_eq!(text(&r.stdout), "[]\n");
    }

    #[test]
    fn unknown_commands_and_options_get_the_cli_errors() {
        let mut n = nova();
        let r = run_on(&mut n, t0(), "openstack foo");
        assert_eq!(r.exit, Exit::Code(2));
        assert!(
            text(&r.stdout)
                .starts_with("openstack: 'foo' is not an openstack command. See 'openstack --help'.\nDid you mean one of these?\n"),
            "{}",
            text(&r.stdout)
        );
        let r = run_on(&mut n, t0(), "openstack server frobnicate s1");
        assert_eq!(r.exit, Exit::Code(2));
        assert!(text(&r.stdout).contains("\n  server list\n"));
        let r = run_on(&mut n, t0(), "openstack server list --bogus");
        assert_eq!(r.exit, Exit::Code(2));
        assert!(
            text(&r.stderr)
                .ends_with("openstack server list: error: unrecognized arguments: --bogus\n"),
            "{}",
            text(&r.stderr)
        );
        let r = run_on(&mut n, t0(), "openstack server show nope");
        assert_eq!(
            (r.exit, text(&r.stderr)),
            (Exit::Code(1), "No Server found for nope\n".into())
        );
        let r = run_on(&mut n, t0(), "openstack server show");
        assert!(text(&r.stderr).contains("error: the following arguments are required: <server>"));
        let r = run_on(&mut n, t0(), "openstack server list -f xml");
        assert!(text(&r.stderr).contains("argument -f/--format: invalid choice: 'xml'"));
        // An abbreviation that names one command is that command.
        let r = run_on(
            &mut n,
            t0(),
            "openstack server li --all-projects -f value -c ID",
        );
        assert_eq!(text(&r.stdout), "s1\ns2\ns3\n");
    }

    #[test]
    fn migrate_stop_and_shelve_change_nova_and_take_time() {
        let mut n = nova();
        let r = run_on(&mut n, t0(), "openstack server migrate --live-migration s1");
        assert_eq!(r.exit, Exit::Code(0), "{}", text(&r.stderr));
        assert_eq!(n.server("s1").unwrap().status, "MIGRATING");
        let r = run_on(&mut n, t0(), "openstack server stop s1");
        assert_eq!(r.exit, Exit::Code(1));
        assert!(
            text(&r.stderr).contains("ConflictException: 409: Client Error for url: http://nova-api.openstack.svc.cluster.local:8774/v2.1/servers/s1/action, Cannot 'stop' instance s1 while it is in task_state migrating"),
            "{}",
            text(&r.stderr)
        );
        n.tick(t0() + SignedDuration::from_secs(30));
        assert!(n.server("s1").unwrap().on("cmp-b"));
        let r = run_on(&mut n, t0(), "openstack server stop s3");
        assert_eq!(r.exit, Exit::Code(0));
        assert_eq!(n.server("s3").unwrap().task_state, Some("powering-off"));
        let r = run_on(&mut n, t0(), "openstack server shelve s2");
        assert_eq!(r.exit, Exit::Code(0));
        n.tick(t0() + SignedDuration::from_secs(60));
        assert_eq!(n.server("s3").unwrap().status, "SHUTOFF");
        let s2 = n.server("s2").unwrap();
        assert_eq!((s2.status, s2.host.as_deref()), ("SHELVED_OFFLOADED", None));
        let r = run_on(&mut n, t0(), "openstack server migrate --live-migration s2");
        assert!(text(&r.stderr).contains("while it is in vm_state shelved_offloaded"));
        // Stop finds a name only across projects with --all-projects.
        let r = run_on(&mut n, t0(), "openstack server stop vm-00-00");
        assert_eq!(text(&r.stderr), "No Server found for vm-00-00\n");
        let r = run_on(
            &mut n,
            t0(),
            "openstack server stop --all-projects vm-00-00",
        );
        assert_eq!(r.exit, Exit::Code(0), "{}", text(&r.stderr));
    }

    #[test]
    fn value_format_writes_python_str() {
        let mut n = nova();
        let r = run_on(
            &mut n,
            t0(),
            "openstack server show s1 -f value -c addresses -c OS-EXT-STS:task_state -c locked -c name",
        );
        let out = text(&r.stdout);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        // Sorted by key, as `ShowServer` returns them.
        assert_eq!(lines[0], "None");
        assert!(lines[1].starts_with("{'tenant-a-net': ['192.168."), "{out}");
        assert_eq!(lines[2], "False");
        // A string is written as it is, not as its repr.
        assert_eq!(lines[3], "vm-00-00");
    }

    #[test]
    fn the_distance_is_cliffs() {
        assert_eq!(distance("abc", "abc"), 0);
        assert_eq!(distance("", "ab"), 2);
        assert_eq!(distance("ab", ""), 6);
        assert_eq!(distance("ab", "ba"), 0);
        assert_eq!(distance("foo", "fox"), 2);
    }
}
