//! Operator actions, safe by construction.
//!
//! The flow: an action key (`KeyAction::Act`, one per
//! `crate::domain::action::ActionId`) -> a dialog ([`dialog`]; the
//! migration-mode picker first for `m`) -> an [`plan::ActionPlan`] naming
//! every object and its exact change -> the confirmation dialog (Cancel
//! focused) -> `Command::Execute(plan)` -> the executor
//! (`crate::cluster::writes`) writes the audit intent, sends, writes the
//! result, and reports `WriteEvent`s, which the console's effects send
//! back as `Msg::Action`. `update` stays pure: everything here only changes
//! the model and returns commands.

pub mod access;
pub mod commence;
pub mod dialog;
pub mod keys;
pub mod plan;
pub mod precondition;
pub mod restore;

use jiff::Timestamp;

use crate::app::model::{Model, NoticeLevel, View};
use crate::app::msg::Command;
use crate::app::views::overview;
use crate::audit::{AuditPhase, AuditRecord, PermissionCheck};
use crate::domain::migration::setting;
use crate::domain::objects::{MigrationMode, Snapshot};

use crate::cluster::writes::WriteEvent;
use crate::domain::action::ActionId;
use crate::domain::action::run::{RunOutcome, StepStatus};
use access::{AccessCache, AccessKey, AccessVerdict, Availability};
use dialog::{ConfirmDialog, Dialog, MigrationPicker, NodeModes, RunningAction, WhichSet};
use plan::{ActionPlan, PlanContext};

/// How many audit records of this session the model keeps for the Audit view.
const AUDIT_KEEP: usize = 2000;

/// How long the console waits, when it quits, for the answer to a write in
/// flight before recording its outcome as unknown.
pub const EXIT_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The actions' part of the model.
#[derive(Debug, Clone, Default)]
pub struct ActionsState {
    /// RBAC answers.
    pub access: AccessCache,
    /// This session's audit records, oldest first.
    pub audit: Vec<AuditRecord>,
    /// The plan being executed, or the last one until its dialog is closed.
    pub running: Option<RunningAction>,
    /// The last plan id handed out.
    pub last_plan_id: u64,
    /// Why no action can run in this session (the audit log cannot be
    /// opened); `None`: actions are on. Its own verdict, checked before the
    /// user's RBAC, so a refusal never blames the wrong cause.
    pub off: Option<String>,
    /// The node writes of earlier sessions, read back from the audit log
    /// when the console started.
    pub earlier: Vec<AuditRecord>,
    /// Why the read-back is not complete (lines skipped, a file that would
    /// not read); the wrap-up says it.
    pub read_back_note: Option<String>,
    /// The migration settings (mode, attempts) this console changed on the MOSK context, from
    /// `earlier` and `audit` (kept up to date as records arrive).
    pub setting_changes: Vec<crate::domain::wrapup::SettingChange>,
}

impl ActionsState {
    /// Whether a plan is being executed now.
    pub fn busy(&self) -> bool {
        self.running.as_ref().is_some_and(|r| !r.finished())
    }
}

/// Whether `action` can be offered now, and if not why (read-only mode, RBAC).
pub fn availability(model: &Model, action: ActionId) -> Availability {
    if model.session.read_only {
        return Availability::Unavailable(
            "read-only mode (--read-only): no write can be sent".into(),
        );
    }
    if let Some(why) = &model.actions.off {
        return Availability::Unavailable(why.clone());
    }
    let mut worst = Availability::Available;
    for key in AccessKey::all_for_action(action, &model.session.namespace) {
        let a = model.actions.access.availability(&key, model.now);
        let rank = |a: &Availability| match a {
            Availability::Available => 0,
            Availability::NotVerified(_) => 1,
            Availability::Checking => 2,
            Availability::Unavailable(_) => 3,
        };
        if rank(&a) > rank(&worst) {
            worst = a;
        }
    }
    worst
}

/// The answer the model holds for every question `action` asks, as one;
/// `None` when one of them has no fresh answer.
pub fn fresh_access(model: &Model, action: ActionId) -> Option<AccessVerdict> {
    let verdicts: Option<Vec<AccessVerdict>> =
        AccessKey::all_for_action(action, &model.session.namespace)
            .iter()
            .map(|k| model.actions.access.fresh(k, model.now).cloned())
            .collect();
    verdicts.map(AccessVerdict::combine)
}

/// The permission question `action` asks in this session (its project
/// namespace for the update plan).
pub fn access_key(model: &Model, action: ActionId) -> AccessKey {
    AccessKey::for_action(action, &model.session.namespace)
}

fn plan_context(model: &Model) -> PlanContext {
    PlanContext {
        mosk_context: model.session.mosk_context.clone(),
        dry_run: model.session.dry_run,
    }
}

/// The node a table row stands for: a machine's node, a node, a vRouter
/// pod's node, a node lock's or node maintenance request's node.
pub fn node_of_row(snap: &Snapshot, id: &str) -> Option<String> {
    let candidates = [id, id.rsplit('/').next().unwrap_or(id)];
    for id in candidates {
        if let Some(m) = snap.machines().find(|m| m.name == id) {
            return m.hostname.clone();
        }
        if snap.nodes().any(|n| n.name == id) {
            return Some(id.to_string());
        }
        if let Some(p) = snap.vrouter_pods().find(|p| p.name == id) {
            return p.node_name.clone();
        }
        if let Some(l) = snap.node_locks().find(|l| l.name == id) {
            return l.node_name.clone();
        }
        if let Some(r) = snap.node_requests().find(|r| r.name == id) {
            return Some(r.node_name.clone());
        }
    }
    None
}

/// The nodes an action applies to: the rows selected with `space`, else the
/// node of the row under the cursor.
pub fn target_nodes(model: &Model) -> Vec<String> {
    if !model.selected_nodes().is_empty() {
        return model.selected_nodes().iter().cloned().collect();
    }
    cursor_row_target(model)
        .map(|(_, nodes)| nodes)
        .unwrap_or_default()
}

/// The row under the cursor of a table view and its node, if it has one.
fn cursor_row_target(model: &Model) -> Option<(String, Vec<String>)> {
    if !model.view.is_table() {
        return None;
    }
    let row = crate::app::views::selected_row(&model.views, &model.derived, model.view)?;
    let node = row
        .node
        .clone()
        .or_else(|| node_of_row(&model.snapshot, &row.id))?;
    Some((row.id.clone(), vec![node]))
}

/// The item under the Overview's cursor (its subject) and the nodes
/// `action` acts on from it: the item's node for acknowledge and
/// set-migration-mode; for restart-vRouter the item's node, else (an item
/// about a DaemonSet) the nodes of that DaemonSet's outdated pods. Only an
/// item the last frame drew. `Err` says why nothing can be targeted.
fn attention_targets(model: &Model, action: ActionId) -> Result<(String, Vec<String>), String> {
    use crate::domain::attention::AttentionKind;
    let shown = &model.frame.attention_shown;
    let item = match overview::on_screen(&model.views.overview, &model.derived.attention, shown)? {
        Some(item) => item,
        None => return Err("the attention queue is empty: nothing to act on".into()),
    };
    let offered = item.action;
    // The migration mode can be set on any item about a node; acknowledge
    // and restart only on the items that offer them.
    if action != ActionId::SetMigrationMode && offered != Some(action) {
        return Err(format!(
            "{} does not apply to the item under the cursor ({} {}): move the cursor (j/k) to an item that offers it",
            action.label(),
            item.subject,
            item.kind.label()
        ));
    }
    let name = item.subject.clone();
    if let Some(node) = &item.node {
        return Ok((name, vec![node.clone()]));
    }
    if action == ActionId::RestartVrouter
        && matches!(
            item.kind,
            AttentionKind::VrouterOutdated | AttentionKind::VrouterStillOutdated
        )
    {
        let mut nodes: Vec<String> = crate::domain::vrouter::restart_order(&model.snapshot)
            .into_iter()
            .filter(|p| p.daemonset.as_deref() == Some(item.subject.as_str()))
            .filter_map(|p| p.node)
            .collect();
        nodes.sort();
        nodes.dedup();
        if !nodes.is_empty() {
            return Ok((name, nodes));
        }
    }
    Err(format!(
        "{} {} is not about a node",
        item.subject,
        item.kind.label()
    ))
}

/// The node the item under the Overview's cursor (drawn in the last
/// frame) or the cursor row of a table view is about.
pub fn node_under_cursor(model: &Model) -> Result<String, String> {
    if model.view == View::Overview {
        let shown = &model.frame.attention_shown;
        let item = overview::on_screen(&model.views.overview, &model.derived.attention, shown)?
            .ok_or("the attention queue is empty: no node to show the servers of")?;
        return item
            .node
            .clone()
            .ok_or_else(|| format!("{} {} is not about a node", item.subject, item.kind.label()));
    }
    cursor_row_target(model)
        .and_then(|(_, nodes)| nodes.into_iter().next())
        .ok_or_else(|| "the row under the cursor is not about a node".to_string())
}

/// The plan of a server action on the open servers panel's servers.
fn server_plan(model: &Model, action: ActionId) -> Result<ActionPlan, String> {
    let panel = model
        .modals
        .iter()
        .find_map(|m| match m {
            crate::app::modal::Modal::Servers(p) => Some(p),
            _ => None,
        })
        .ok_or("open the servers on a node first (o)")?;
    let uid = model
        .snapshot
        .nodes()
        .find(|x| x.name == panel.node)
        .map(|x| x.uid.clone())
        .unwrap_or_default();
    crate::app::servers_state::plan(
        panel,
        &model.servers,
        &uid,
        &model.session.mosk_context,
        model.session.dry_run,
        action,
    )
}

/// What an action key acts on.
enum Targets {
    Nodes(Vec<String>),
    /// The cursor row and the selection both could be meant: ask.
    Ask(WhichSet),
}

/// Whether `action` could act on `nodes` at all (a plan can be made), so
/// that the cursor row is a possible meaning of the key.
fn applies(model: &Model, action: ActionId, nodes: &[String]) -> bool {
    let ctx = plan_context(model);
    match action {
        ActionId::AcknowledgeMigration => {
            plan::plan_acknowledge(&model.snapshot, &model.history, &ctx, nodes).is_ok()
        }
        ActionId::RestartVrouter => plan::plan_restart(&model.snapshot, &ctx, nodes).is_ok(),
        _ => true,
    }
}

/// The nodes `action` applies to. With nothing selected with `space`: on
/// the Overview the attention item under the cursor's, when the last frame
/// drew it ([`attention_targets`]); elsewhere the
/// cursor row's. With rows selected: the selection, unless the cursor row
/// (or item) is another set the action could act on — then the operator is
/// asked which is meant. `Err` says why there is no target.
fn action_targets(model: &Model, action: ActionId) -> Result<Targets, String> {
    let cursor = if model.view == View::Overview {
        attention_targets(model, action)
    } else {
        Ok(cursor_row_target(model).unwrap_or_default())
    };
    if model.selected_nodes().is_empty() {
        return cursor.map(|(_, nodes)| Targets::Nodes(nodes));
    }
    let selected: Vec<String> = model.selected_nodes().iter().cloned().collect();
    match cursor {
        Ok((name, mut nodes)) if !nodes.is_empty() => {
            nodes.sort();
            nodes.dedup();
            if nodes == selected || !applies(model, action, &nodes) {
                return Ok(Targets::Nodes(selected));
            }
            Ok(Targets::Ask(WhichSet {
                action,
                cursor_name: name,
                cursor_nodes: nodes,
                selected,
            }))
        }
        _ => Ok(Targets::Nodes(selected)),
    }
}

fn assign_id(model: &mut Model, mut plan: ActionPlan) -> ActionPlan {
    model.actions.last_plan_id += 1;
    plan.id = model.actions.last_plan_id;
    // Said before the operator confirms; the confirmation is refused.
    if let Some(why) = precondition::refusal(model) {
        plan.warnings
            .insert(0, format!("this will be refused: {why}"));
    }
    plan
}

/// An action key was pressed: open its dialog (or say why not, or ask
/// which rows are meant).
pub fn start(model: &mut Model, action: ActionId) -> Vec<Command> {
    start_on(model, action, None)
}

/// The answer to "which set?": `nodes` go on through the one action path.
pub fn start_chosen(model: &mut Model, action: ActionId, nodes: Vec<String>) -> Vec<Command> {
    start_on(model, action, Some(nodes))
}

/// [`start`], on the `chosen` nodes when the operator already said which.
fn start_on(model: &mut Model, action: ActionId, chosen: Option<Vec<String>>) -> Vec<Command> {
    let label = action.label();
    if model.session.read_only {
        model.notify(
            NoticeLevel::Warning,
            format!("{label} is unavailable: read-only mode (--read-only), no write can be sent"),
        );
        return Vec::new();
    }
    if model.actions.busy() {
        model.notify(
            NoticeLevel::Warning,
            "an action is running: wait for it to finish or cancel it (Esc)",
        );
        model.modals.open_dialog(Dialog::Progress);
        return Vec::new();
    }
    let mut commands = Vec::new();
    match availability(model, action) {
        Availability::Unavailable(reason) => {
            model.notify(
                NoticeLevel::Error,
                format!("{label} is unavailable: {reason}"),
            );
            return Vec::new();
        }
        Availability::Checking => commands.extend(check_access(model)),
        // Not verified: offered; the dialog says the server will decide.
        Availability::Available | Availability::NotVerified(_) => {}
    }
    let ctx = plan_context(model);
    let nodes = match action {
        ActionId::SetMigrationMode | ActionId::AcknowledgeMigration | ActionId::RestartVrouter => {
            let targets = match chosen {
                Some(nodes) => Ok(Targets::Nodes(nodes)),
                None => action_targets(model, action),
            };
            match targets {
                Ok(Targets::Nodes(nodes)) => nodes,
                Ok(Targets::Ask(question)) => {
                    model.modals.open_dialog(Dialog::WhichSet(question));
                    return commands;
                }
                Err(why) => {
                    model.notify(NoticeLevel::Warning, format!("{label}: {why}"));
                    return commands;
                }
            }
        }
        ActionId::RestartAllVrouters
        | ActionId::CommenceStep
        | ActionId::RestoreMigrationSetting
        | ActionId::LiveMigrateServers
        | ActionId::StopServers
        | ActionId::ShelveServers => Vec::new(),
    };
    let planned = match action {
        ActionId::SetMigrationMode => {
            if nodes.is_empty() {
                model.notify(
                    NoticeLevel::Info,
                    "select a machine (or several with space) to set its migration mode",
                );
                return commands;
            }
            let modes = nodes
                .iter()
                .map(|n| {
                    let node = model.snapshot.nodes().find(|x| &x.name == n);
                    NodeModes {
                        node: n.clone(),
                        mode: node.and_then(|x| setting(x, MigrationMode::ANNOTATION).flatten()),
                        attempts: node
                            .and_then(|x| setting(x, MigrationMode::ATTEMPTS_ANNOTATION).flatten()),
                    }
                })
                .collect();
            model
                .modals
                .open_dialog(Dialog::MigrationMode(Box::new(MigrationPicker::new(modes))));
            return commands;
        }
        ActionId::AcknowledgeMigration => {
            plan::plan_acknowledge(&model.snapshot, &model.history, &ctx, &nodes)
        }
        ActionId::RestartVrouter => plan::plan_restart(&model.snapshot, &ctx, &nodes),
        ActionId::RestartAllVrouters => plan::plan_restart_all(&model.snapshot, &ctx),
        ActionId::CommenceStep => commence::plan_commence(model),
        ActionId::RestoreMigrationSetting => restore_target(model)
            .and_then(|change| restore::plan_restore(&model.snapshot, &ctx, &change)),
        ActionId::LiveMigrateServers | ActionId::StopServers | ActionId::ShelveServers => {
            server_plan(model, action).map_err(plan::PlanError)
        }
    };
    match planned {
        Ok(plan) => {
            let plan = assign_id(model, plan);
            model
                .modals
                .open_dialog(Dialog::Confirm(ConfirmDialog::new(plan)));
        }
        Err(e) => model.notify(NoticeLevel::Warning, format!("{label}: {e}")),
    }
    commands
}

/// The setting under the wrap-up view's cursor: what `r` restores.
fn restore_target(model: &Model) -> Result<crate::domain::wrapup::SettingChange, plan::PlanError> {
    use crate::app::views::wrapup::{Row, selected};
    let changes = &model.actions.setting_changes;
    if model.view != View::Wrapup {
        return Err(plan::PlanError(
            "open the wrap-up (:wrapup) and move to a setting this console changed".into(),
        ));
    }
    match selected(&model.views.wrapup, changes.len()) {
        Row::Setting(i) => Ok(changes[i].clone()),
        Row::Step(_) => Err(plan::PlanError(if changes.is_empty() {
            "this console changed no migration setting (audit log)".into()
        } else {
            "move the cursor to a setting this console changed".into()
        })),
    }
}

/// Recomputes the modes this console changed from the audit records.
pub fn refresh_setting_changes(model: &mut Model) {
    model.actions.setting_changes = restore::setting_changes(
        &model.actions.earlier,
        &model.actions.audit,
        &model.session.mosk_context,
    );
}

/// The audit log of earlier sessions, read back at start.
pub fn on_read_back(model: &mut Model, rb: crate::audit::ReadBack) -> Vec<Command> {
    let mut notes = Vec::new();
    if let Some(e) = &rb.error {
        notes.push(format!("the audit log could not be read back: {e}"));
    }
    if rb.unreadable > 0 {
        notes.push(format!(
            "{} line(s) of the audit log are not records and were skipped",
            rb.unreadable
        ));
    }
    model.actions.read_back_note = (!notes.is_empty()).then(|| notes.join("; "));
    if let Some(n) = &model.actions.read_back_note {
        model.notify(NoticeLevel::Warning, n.clone());
    }
    model.actions.earlier = rb.records;
    refresh_setting_changes(model);
    Vec::new()
}

/// The operator asked to quit (`q`, `:q`): with a write in flight, ask
/// first; otherwise quit. Ctrl-C, signals and a hang-up quit without asking
/// (the console then waits [`EXIT_WAIT`] for the write's answer).
pub fn quit(model: &mut Model) -> Vec<Command> {
    if model.actions.busy() {
        model.modals.open_dialog(Dialog::ConfirmQuit);
        return Vec::new();
    }
    model.quit = true;
    vec![Command::Quit]
}

/// Asks the server about every permission that has no fresh answer.
pub fn check_access(model: &mut Model) -> Vec<Command> {
    // While the cluster picker is open there is no project namespace to ask about.
    if model.session.read_only
        || model.actions.off.is_some()
        || model.session.cluster_name.is_empty()
    {
        return Vec::new();
    }
    let now = model.now;
    let due = model
        .actions
        .access
        .due(&access::all_keys(&model.session.namespace), now);
    if due.is_empty() {
        Vec::new()
    } else {
        vec![Command::CheckAccess(due)]
    }
}

/// The slow tick: keep the RBAC answers fresh so actions show as available or not.
pub fn on_tick(model: &mut Model) -> Vec<Command> {
    check_access(model)
}

/// A report from the executor.
pub fn on_event(model: &mut Model, ev: WriteEvent) -> Vec<Command> {
    match ev {
        WriteEvent::Access { key, verdict } => {
            let now = model.now;
            model.actions.access.record(key, verdict, now);
        }
        WriteEvent::ActionsOff(why) => {
            if model.actions.off.is_none() {
                model.notify(NoticeLevel::Error, why.clone());
            }
            model.actions.access.pending.clear();
            model.actions.off = Some(why);
        }
        WriteEvent::Audit(rec) => {
            model.actions.audit.push(*rec);
            let n = model.actions.audit.len();
            if n > AUDIT_KEEP {
                model.actions.audit.drain(..n - AUDIT_KEEP);
            }
            refresh_setting_changes(model);
        }
        WriteEvent::Step {
            plan_id,
            index,
            status,
        } => {
            if let Some(r) = model
                .actions
                .running
                .as_mut()
                .filter(|r| r.plan.id == plan_id)
                && let Some(s) = r.steps.get_mut(index)
            {
                if matches!(status, StepStatus::Done(_)) && r.plan.action.on_servers() {
                    let plan = r.plan.clone();
                    *s = status;
                    let now = model.now;
                    crate::app::servers_state::asked(&mut model.servers, &plan, index, now);
                    return Vec::new();
                }
                *s = status;
            }
        }
        WriteEvent::Finished { plan_id, outcome } => {
            let Some(r) = model
                .actions
                .running
                .as_mut()
                .filter(|r| r.plan.id == plan_id)
            else {
                return Vec::new();
            };
            let label = r.plan.action.label();
            r.outcome = Some(outcome.clone());
            let level = match outcome {
                RunOutcome::Completed { .. } => NoticeLevel::Info,
                RunOutcome::Cancelled { .. } => NoticeLevel::Warning,
                RunOutcome::Failed { .. } | RunOutcome::Refused { .. } => NoticeLevel::Error,
            };
            model.notify(level, format!("{label}: {}", outcome.summary()));
        }
    }
    Vec::new()
}

/// One row of the Audit view: this session's actions, one row per object
/// of a plan (the intent record, updated by its result).
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRow {
    /// Stable id: `<plan>/<kind>/<name>`.
    pub id: String,
    pub time: Timestamp,
    /// The action's label.
    pub action: String,
    /// `Node/kaas-node-…` or `Pod/tf/…`.
    pub object: String,
    /// old -> new.
    pub change: String,
    /// `pending`, `succeeded`, `conflict: …`; prefixed with `dry-run` when it was one.
    pub result: String,
}

/// The Audit view's rows, oldest first.
pub fn audit_rows(model: &Model) -> Vec<AuditRow> {
    let mut rows: Vec<AuditRow> = Vec::new();
    for rec in &model.actions.audit {
        let object = match &rec.namespace {
            Some(ns) => format!("{}/{ns}/{}", rec.kind, rec.name),
            None => format!("{}/{}", rec.kind, rec.name),
        };
        let id = format!("{}/{object}", rec.plan);
        let mut result = rec.outcome.as_str().to_string();
        if let Some(m) = rec.message.as_deref().filter(|m| !m.is_empty()) {
            result = format!("{result}: {m}");
        }
        if rec.dry_run {
            result = format!("dry-run {result}");
        }
        if rec.permission == Some(PermissionCheck::NotVerified) {
            result = format!("{result} (permission not verified)");
        }
        let action = ActionId::from_name(&rec.action)
            .map(|a| a.label().to_string())
            .unwrap_or_else(|| rec.action.clone());
        match (rec.phase, rows.iter_mut().find(|r| r.id == id)) {
            (AuditPhase::Result, Some(row)) => row.result = result,
            _ => rows.push(AuditRow {
                id,
                time: rec.time,
                action,
                object,
                change: rec.change_text.clone(),
                result,
            }),
        }
    }
    rows
}
