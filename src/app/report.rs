//! The session report (`:report`, and on quit when an action was taken or
//! an attention item raised): a Markdown file an operator attaches to the
//! change record. Rendering is pure ([`render`]): it reads the model — the
//! [`SessionLog`], the machines' turns in the [`History`], this session's
//! audit records — and returns text; the console's effects write the file.
//!
//! Plain and complete: no terminal escapes, every cluster string sanitized
//! and Markdown-escaped ([`md`]), times on the management API server's
//! clock in UTC.
//!
//! [`SessionLog`]: crate::domain::session_log::SessionLog
//! [`History`]: crate::domain::history::History

pub mod document;

pub use document::Report;

use std::fmt::Write as _;

use jiff::{SignedDuration, Timestamp};

use crate::app::actions::audit_rows;
use crate::app::model::Model;
use crate::audit::{AuditOutcome, AuditPhase};
use crate::domain::action::ActionId;
use crate::domain::session_log::{Ended, EndedBy, LoggedItem, RaisedKnown};
use crate::sanitize::sanitize;

/// Whether quitting writes a report: an action was taken or an attention
/// item was raised during the session, or a wrap-up step ticked.
pub fn due_at_quit(model: &Model) -> bool {
    !model.actions.audit.is_empty()
        || model.session_log.any_item()
        || !model.views.wrapup.ticked.is_empty()
}

/// The report of the session as it stands now.
pub fn report(model: &Model) -> Report {
    let cluster: String = sanitize(&model.session.cluster_name)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    // A demo's report never takes the name of a real one.
    let demo = if model.session.demo.is_some() {
        "demo-"
    } else {
        ""
    };
    Report {
        file_name: format!(
            "report-{demo}{cluster}-{}.md",
            model.now.strftime("%Y%m%dT%H%M%SZ")
        ),
        markdown: render(model),
    }
}

/// Text from a cluster (or the audit log) made safe for one Markdown table
/// cell or list line: sanitized (no escapes, controls or line breaks), and
/// every character that Markdown or a table reads as markup escaped.
pub fn md(s: &str) -> String {
    let clean = sanitize(s);
    let mut out = String::with_capacity(clean.len());
    for c in clean.chars() {
        if matches!(
            c,
            '\\' | '|' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '~' | '&' | '#' | '!'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `2026-01-01 10:02:30` (UTC).
fn time(t: Timestamp) -> String {
    t.strftime("%Y-%m-%d %H:%M:%S").to_string()
}

/// `1h02m05s`, `4m30s`, `12s`.
fn duration(d: SignedDuration) -> String {
    let s = d.as_secs().max(0);
    let (h, m, s) = (s / 3600, (s % 3600) / 60, s % 60);
    if h > 0 {
        format!("{h}h{m:02}m{s:02}s")
    } else if m > 0 {
        format!("{m}m{s:02}s")
    } else {
        format!("{s}s")
    }
}

/// The first sentence of an item's text (up to the first ". ").
fn first_sentence(s: &str) -> &str {
    match s.find(". ") {
        Some(i) => &s[..=i],
        None => s,
    }
}

/// Renders the whole report.
pub fn render(model: &Model) -> String {
    let mut out = String::new();
    header(model, &mut out);
    timeline(model, &mut out);
    machines(model, &mut out);
    attention(model, &mut out);
    actions(model, &mut out);
    impact(model, &mut out);
    wrapup(model, &mut out);
    if model.session_log.dropped() > 0 {
        let _ = writeln!(
            out,
            "\n_{} older entries were dropped to bound memory: this report is not complete._",
            model.session_log.dropped()
        );
    }
    out
}

fn header(model: &Model, out: &mut String) {
    let s = &model.session;
    let _ = writeln!(
        out,
        "# MOSK cluster update: session report for {}\n",
        md(&s.cluster_name)
    );
    if let Some(scenario) = &s.demo {
        let _ = writeln!(
            out,
            "**SIMULATED:** this session ran on the built-in simulated clusters (`demo`, scenario {}); nothing was sent to a real cluster.\n",
            md(scenario)
        );
    }
    let mode = if s.read_only {
        "read-only"
    } else if s.dry_run {
        "dry-run (no change was sent)"
    } else {
        "live"
    };
    let phase = model
        .derived
        .phase
        .as_ref()
        .map(|p| match p.number() {
            Some(n) => format!("{n}/5 {}: {}", p.name(), md(&p.reason)),
            None => format!("{}: {}", p.name(), md(&p.reason)),
        })
        .unwrap_or_else(|| "not known yet".into());
    let _ = writeln!(
        out,
        "- Cluster: {} (project namespace {})",
        md(&s.cluster_name),
        md(&s.namespace)
    );
    let _ = writeln!(
        out,
        "- Contexts: management {}, MOSK {}; mode: {mode}",
        md(&s.mgmt_context),
        md(&s.mosk_context)
    );
    let _ = writeln!(
        out,
        "- Session: {} to {} ({})",
        time(model.started),
        time(model.now),
        duration(model.now.duration_since(model.started))
    );
    let _ = writeln!(out, "- Phase now: {phase}");
    let _ = writeln!(
        out,
        "- Times are UTC, on the management cluster's API server clock (the \
         audit log's: this machine's).\n"
    );
}

fn timeline(model: &Model, out: &mut String) {
    let _ = writeln!(out, "## Timeline\n");
    let mut entries = model.session_log.timeline().peekable();
    if entries.peek().is_none() {
        let _ = writeln!(out, "No phase or update-plan step change was seen.\n");
        return;
    }
    let _ = writeln!(out, "| Time | Change |\n| --- | --- |");
    for e in entries {
        let _ = writeln!(out, "| {} | {} |", time(e.at), md(&e.what));
    }
    out.push('\n');
}

/// The items raised for a machine (or its node) whose open span overlaps
/// `[from, to]`.
fn waited_on<'a>(
    model: &'a Model,
    machine: &'a str,
    node: Option<&'a str>,
    from: Timestamp,
    to: Timestamp,
) -> impl Iterator<Item = &'a LoggedItem> {
    model.session_log.items().filter(move |i| {
        let about = i.subject == machine
            || (node.is_some() && (i.node.as_deref() == node || Some(i.subject.as_str()) == node));
        about && i.raised <= to && i.ended.is_none_or(|e| e.at >= from)
    })
}

fn machines(model: &Model, out: &mut String) {
    let _ = writeln!(out, "## Machines\n");
    let hostname = |name: &str| {
        model
            .snapshot
            .machines()
            .find(|m| m.name == name)
            .and_then(|m| m.hostname.clone())
    };
    struct Turn {
        name: String,
        start: Timestamp,
        end: Option<Timestamp>,
        complete: bool,
    }
    let mut turns: Vec<Turn> = model
        .history
        .finished()
        .map(|f| Turn {
            name: f.name.clone(),
            start: f.started,
            end: Some(f.finished),
            complete: f.complete,
        })
        .collect();
    for m in model.snapshot.machines() {
        if let Some(start) = model.history.turn_started(&m.name)
            && !turns.iter().any(|t| t.name == m.name && t.start == start)
        {
            turns.push(Turn {
                name: m.name.clone(),
                start,
                end: None,
                complete: true,
            });
        }
    }
    if turns.is_empty() {
        let _ = writeln!(out, "No machine's turn was seen.\n");
        return;
    }
    turns.sort_by(|a, b| a.start.cmp(&b.start).then(a.name.cmp(&b.name)));
    let _ = writeln!(
        out,
        "| Machine | Node | Turn started | Turn ended | Duration | Waited on |\n| --- | --- | --- | --- | --- | --- |"
    );
    for t in turns {
        let node = hostname(&t.name);
        let to = t.end.unwrap_or(model.now);
        let mut took = duration(to.duration_since(t.start));
        if !t.complete {
            took = format!("≥ {took} (started before the console saw it)");
        }
        if t.end.is_none() {
            took = format!("{took} so far");
        }
        let waits: Vec<String> = waited_on(model, &t.name, node.as_deref(), t.start, to)
            .map(|i| format!("{}: {}", md(&i.kind), md(first_sentence(&i.why))))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            md(&t.name),
            node.as_deref().map(md).unwrap_or_else(|| "—".into()),
            time(t.start),
            t.end.map(time).unwrap_or_else(|| "in progress".into()),
            took,
            if waits.is_empty() {
                "nothing raised".to_string()
            } else {
                waits.join("; ")
            }
        );
    }
    out.push('\n');
}

fn attention(model: &Model, out: &mut String) {
    let _ = writeln!(out, "## Attention items\n");
    let mut items = model.session_log.items().peekable();
    if items.peek().is_none() {
        let _ = writeln!(out, "No attention item was raised.\n");
        return;
    }
    let _ = writeln!(
        out,
        "| Raised | Cleared | Open for | Kind | Subject | Why |\n| --- | --- | --- | --- | --- | --- |"
    );
    for i in items {
        let to = i.ended.map_or(model.now, |e| e.at);
        let subject = match &i.node {
            Some(n) if *n != i.subject => format!("{} ({})", md(&i.subject), md(n)),
            _ => md(&i.subject),
        };
        // The screen's marks for an age not read exactly: a lower bound
        // (`≥` the age, so raised `≤` that time), inferred (`~`, and how
        // after the sentence).
        let (raised_mark, age_mark, how) = match i.raised_known {
            RaisedKnown::Exact => ("", "", String::new()),
            RaisedKnown::AtLeast => ("≤ ", "≥ ", String::new()),
            RaisedKnown::Inferred(how) => ("~", "~", format!(" [I] raised {how}")),
        };
        let _ = writeln!(
            out,
            "| {raised_mark}{} | {} | {age_mark}{} | {} | {} | {}{} |",
            time(i.raised),
            ended(i.ended),
            duration(to.duration_since(i.raised)),
            md(&i.kind),
            subject,
            md(&i.why),
            md(&how)
        );
    }
    out.push('\n');
}

/// The Cleared cell: when the item cleared, or why it left the queue
/// without evidence that it did (a reminder is cleared only by dismissal).
fn ended(e: Option<Ended>) -> String {
    match e {
        None => "still open".into(),
        Some(Ended {
            at,
            by: EndedBy::Cleared,
        }) => time(at),
        Some(Ended {
            at,
            by: EndedBy::Dismissed,
        }) => format!("dismissed {}", time(at)),
        Some(Ended {
            at,
            by: EndedBy::NoLongerDue,
        }) => format!("not cleared: no longer due {}, not dismissed", time(at)),
    }
}

fn actions(model: &Model, out: &mut String) {
    let _ = writeln!(out, "## Actions\n");
    let rows = audit_rows(model);
    if rows.is_empty() {
        let _ = writeln!(out, "No action was taken in this session.\n");
        return;
    }
    let user = model
        .actions
        .audit
        .first()
        .map(|r| format!("{} ({})", md(&r.user), md(&r.user_source)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "By {user}; from the audit log (one row per object written; its times are \
         this machine's clock, UTC).\n\n\
         | Time | Action | Object | Change | Outcome |\n| --- | --- | --- | --- | --- |"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            time(r.time),
            md(&r.action),
            md(&r.object),
            md(&r.change),
            md(&r.result)
        );
    }
    out.push('\n');
}

/// The wrap-up: the checklist as the operator ticked it, the migration
/// settings this console changed and where each stands.
fn wrapup(model: &Model, out: &mut String) {
    use crate::domain::wrapup::{Previous, Step, restore_offer, setting_name, shown};
    let _ = writeln!(out, "## Wrap-up\n");
    let ticked = &model.views.wrapup.ticked;
    let _ = writeln!(
        out,
        "After the update (the update guide's remaining steps, ticked in `:wrapup`; \
         times on the management API server's clock, UTC):\n"
    );
    for step in Step::ALL {
        match ticked.get(&step) {
            Some(t) => {
                let _ = writeln!(
                    out,
                    "- [x] {} ({}), done {}",
                    step.text(),
                    step.source(),
                    time(*t)
                );
            }
            None => {
                let _ = writeln!(out, "- [ ] {} ({})", step.text(), step.source());
            }
        }
    }
    out.push('\n');
    let changes = &model.actions.setting_changes;
    if changes.is_empty() {
        let _ = writeln!(
            out,
            "This console changed no migration setting on this cluster.\n"
        );
        return;
    }
    let _ = writeln!(
        out,
        "Migration settings this console changed (audit log):\n\n\
         | Node | Setting | Before | Set to | Now |\n| --- | --- | --- | --- | --- |"
    );
    for c in changes {
        let before = match &c.previous {
            Previous::Recorded(p) => shown(p.as_deref()),
            Previous::NotRecorded => "not recorded".into(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            md(&c.node),
            setting_name(&c.key),
            md(&before),
            md(&shown(c.set_to.as_deref())),
            md(&restore_offer(&model.snapshot, c).describe())
        );
    }
    out.push('\n');
}

fn impact(model: &Model, out: &mut String) {
    let _ = writeln!(out, "## Workload impact\n");
    let machine_of = |node: &str| {
        model
            .snapshot
            .machines()
            .find(|m| m.hostname.as_deref() == Some(node))
            .map(|m| md(&m.name))
            .unwrap_or_else(|| "—".into())
    };
    // [I] Servers still on a node whose mode is `skip` go down with the
    // node's reboot (reference: "instances that are still there go down
    // with the host"); the console knows them from the OpenStack lock's
    // message and from the acknowledgements' audit records.
    let _ = writeln!(
        out,
        "### Servers rebooted with their node after migration mode `skip`\n"
    );
    let mut rows: Vec<(String, Vec<String>, Timestamp, &str)> = model
        .session_log
        .skipped()
        .map(|s| {
            (
                s.node.clone(),
                s.servers.clone(),
                s.at,
                "OpenStack lock message",
            )
        })
        .collect();
    for rec in &model.actions.audit {
        let acknowledged = ActionId::from_name(&rec.action) == Some(ActionId::AcknowledgeMigration)
            || rec.change_text.ends_with("-> skip");
        if rec.phase != AuditPhase::Result
            || rec.outcome != AuditOutcome::Succeeded
            || rec.dry_run
            || !acknowledged
            || rec.servers.is_empty()
        {
            continue;
        }
        match rows.iter_mut().find(|r| r.0 == rec.name) {
            Some(row) => {
                for s in &rec.servers {
                    if !row.1.contains(s) {
                        row.1.push(s.clone());
                    }
                }
                row.3 = "OpenStack lock message and audit log";
            }
            None => rows.push((rec.name.clone(), rec.servers.clone(), rec.time, "audit log")),
        }
    }
    if rows.is_empty() {
        let _ = writeln!(
            out,
            "None seen: no node was set to `skip` while its OpenStack lock listed servers.\n"
        );
    } else {
        let _ = writeln!(
            out,
            "Servers the node's OpenStack lock still listed when its mode became `skip`: \
             they went down with the node's reboot unless migrated, stopped or tagged to block.\n\n\
             | Node | Machine | Seen | Servers | Source |\n| --- | --- | --- | --- | --- |"
        );
        for (node, servers, at, source) in rows {
            let list: Vec<String> = servers.iter().map(|s| md(s)).collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} ({}) | {source} |",
                md(&node),
                machine_of(&node),
                time(at),
                list.join(", "),
                servers.len()
            );
        }
        out.push('\n');
    }

    let _ = writeln!(out, "### vRouter pod restarts\n");
    let requested: Vec<_> = audit_rows(model)
        .into_iter()
        .filter(|r| r.object.starts_with("Pod/"))
        .collect();
    if requested.is_empty() {
        let _ = writeln!(out, "Restarts requested from this console: none.\n");
    } else {
        let _ = writeln!(
            out,
            "Restarts requested from this console: {} (see Actions).\n",
            requested.len()
        );
    }
    let mut replaced = model.session_log.replaced().peekable();
    if replaced.peek().is_none() {
        let _ = writeln!(out, "vRouter pods replaced: none seen.\n");
        return;
    }
    let _ = writeln!(
        out,
        "vRouter pods replaced (each cuts the node's instance traffic while the new pod starts):\n\n\
         | Node | Machine | Replaced at | Old pod | New pod |\n| --- | --- | --- | --- | --- |"
    );
    for r in replaced {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            md(&r.node),
            machine_of(&r.node),
            time(r.at),
            md(&r.old),
            md(&r.new)
        );
    }
    out.push('\n');
}

#[cfg(test)]
mod tests;
