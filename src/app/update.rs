//! `update`: the one place the model changes. Pure: no I/O, no clock reads;
//! anything with an effect is returned as a [`Command`] for the runtime.

use std::collections::BTreeSet;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::actions;
use crate::app::actions::dialog::{ConfirmFocus, Dialog};
use crate::app::cluster_picker::PickerOutcome;
use crate::app::derive::settle;
use crate::app::frame::{ConfirmView, FrameReport};
use crate::app::freshness;
use crate::app::line_input::LineInput;
use crate::app::modal::Modal;
use crate::app::model::{Model, NoticeLevel, View};
use crate::app::msg::{Command, Msg};
use crate::app::views::{self, Outcome, ViewCtx};
use crate::cluster::events::ClusterEvent;
use crate::config::keymap::KeyAction;
use crate::domain::join::incremental::{Reach, reach, reach_change};

/// Applies one message to the model, brings what is derived from it up to
/// date, and returns what the runtime must do.
pub fn update(model: &mut Model, msg: Msg) -> Vec<Command> {
    update_batch(model, [msg])
}

/// Applies a batch of messages in order (a burst of watch events and keys
/// the runtime received together), then brings what is derived up to date
/// once ([`settle`]): keys in the batch act on what the last frame showed.
pub fn update_batch(model: &mut Model, msgs: impl IntoIterator<Item = Msg>) -> Vec<Command> {
    let mut commands = Vec::new();
    for msg in msgs {
        commands.extend(apply(model, msg));
    }
    settle(model);
    commands
}

fn apply(model: &mut Model, msg: Msg) -> Vec<Command> {
    match msg {
        Msg::Key(key) => on_key(model, key),
        Msg::Paste(text) => {
            // Like a key: nothing acts while the terminal is too small.
            if model.frame.too_small {
                return Vec::new();
            }
            if let Some(input) = model.modals.input_mut() {
                input.paste(&text);
                sync_live_filter(model);
            }
            Vec::new()
        }
        Msg::Resize { height, .. } => {
            // Tab bar, status bar, footer, table border and header.
            model.page_rows = (height as usize).saturating_sub(7).max(1);
            Vec::new()
        }
        Msg::Tick(now) => {
            model.now = model.server_time(now);
            model.logs.tick_overview(now);
            let mut commands = actions::on_tick(model);
            commands.extend(crate::app::servers::on_tick(model));
            commands
        }
        Msg::RealTime(t) => {
            model.real_time = model.real_time.max(t);
            model.notices.expire(model.real_time);
            Vec::new()
        }
        Msg::Cluster(ev) => {
            on_cluster(model, ev);
            Vec::new()
        }
        Msg::Action(ev) => actions::on_event(model, ev),
        Msg::Drawn(report) => {
            on_drawn(model, report);
            Vec::new()
        }
        Msg::AuditReadBack(rb) => actions::on_read_back(model, rb),
        Msg::ServersRead {
            node,
            asked,
            result,
        } => {
            crate::app::servers::on_read(model, node, asked, result);
            Vec::new()
        }
        Msg::ReportWritten(written) => {
            match written {
                Ok(path) => model.notify(
                    NoticeLevel::Info,
                    format!("session report written to {}", path.display()),
                ),
                Err(e) => model.notify(
                    NoticeLevel::Error,
                    format!("the session report was not written: {e}"),
                ),
            }
            Vec::new()
        }
    }
}

fn on_cluster(model: &mut Model, ev: ClusterEvent) {
    match ev {
        ClusterEvent::Applied(obj) => {
            model.last_event = Some(model.now);
            freshness::confirmed(model, obj.kind());
            let mut reaches = Vec::new();
            model.pending.before(&model.snapshot);
            model
                .history
                .apply_seen(&mut model.snapshot, obj, model.now, |old, new| {
                    reach_change(old, new, &mut reaches)
                });
            model.pending.after(&model.snapshot, reaches);
        }
        ClusterEvent::Deleted(key) => {
            model.last_event = Some(model.now);
            freshness::confirmed(model, key.kind);
            let mut reaches = Vec::new();
            if let Some(old) = model.snapshot.objects().get(&key) {
                reach(old, &mut reaches);
            }
            model.pending.before(&model.snapshot);
            model.history.remove(&mut model.snapshot, &key, model.now);
            model.pending.after(&model.snapshot, reaches);
        }
        ClusterEvent::Resynced { kind, objects } => {
            model.last_event = Some(model.now);
            model.missing_kinds.remove(&kind);
            freshness::listed(model, kind);
            // A re-list can change any row: the whole join.
            model.pending.before(&model.snapshot);
            model
                .history
                .relist(&mut model.snapshot, kind, objects, model.now);
            model.pending.after(&model.snapshot, [Reach::All]);
        }
        ClusterEvent::Health { kind, mut health } => {
            // The watch stamps on this machine's clock; the model keeps the server's.
            health.last_event = health.last_event.map(|t| model.server_time(t));
            health.retry_at = health.retry_at.map(|t| model.server_time(t));
            freshness::health_changed(model, kind, &health);
            model.health.insert(kind, health);
        }
        ClusterEvent::KindMissing { kind, message } => {
            model.pending.before(&model.snapshot);
            model
                .history
                .relist(&mut model.snapshot, kind, Vec::new(), model.now);
            model.pending.after(&model.snapshot, [Reach::All]);
            freshness::listed(model, kind);
            model.missing_kinds.insert(kind, message);
        }
        ClusterEvent::LogLines { pod, lines } => {
            model.logs.push(&pod, &lines);
        }
        ClusterEvent::LogStatus { message } => {
            model.logs.status = message;
        }
        ClusterEvent::Drift { count, .. } => model.drift_found += count as u64,
        ClusterEvent::Capped { kind, over } if over.not_shown == 0 => {
            model.over_cap.remove(&kind);
        }
        ClusterEvent::Capped { kind, over } => {
            model.over_cap.insert(kind, over);
        }
        ClusterEvent::ClockOffset { cluster, offset } => model.set_clock_offset(cluster, offset),
    }
}

/// While `/` is open the table filters as the operator types.
fn sync_live_filter(model: &mut Model) {
    if let Some(Modal::FilterInput { text }) = model.modals.top() {
        let text = text.text().to_string();
        let view = model.view;
        model.cursor_mut(view).filter = text;
    }
}

fn on_key(model: &mut Model, key: KeyEvent) -> Vec<Command> {
    // Ctrl-C always quits, whatever is open.
    if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
        model.quit = true;
        return vec![Command::Quit];
    }
    // Too small to draw: nothing on screen to act on, so only quit acts
    // (an open dialog stays open and unconfirmed).
    if model.frame.too_small {
        if model.keymap.action_for(&key) == Some(KeyAction::Quit) {
            return on_action(model, KeyAction::Quit);
        }
        model.keys_ignored = model.keys_ignored.saturating_add(1);
        return Vec::new();
    }
    // The top modal takes the keys before the keymap.
    match model.modals.top() {
        Some(Modal::Dialog(_)) => {
            if confirms_unseen(model, &key) {
                return Vec::new();
            }
            if model.keymap.action_for(&key) == Some(KeyAction::DismissReminder)
                && crate::app::reminders::dismiss_dialog_reminder(model)
            {
                return Vec::new();
            }
            // The acknowledge dialog opens the servers on its node.
            if model.keymap.action_for(&key) == Some(KeyAction::Servers)
                && let Some(Dialog::Confirm(c)) = model.modals.top_dialog()
                && c.plan.action == crate::domain::action::ActionId::AcknowledgeMigration
                && let Some(step) = c.plan.steps.first()
            {
                let node = step.node.clone();
                return crate::app::servers::open(model, node);
            }
            actions::keys::on_dialog_key(model, key)
        }
        Some(Modal::Help { .. }) | Some(Modal::Notices { .. }) => {
            on_help_key(model, key);
            Vec::new()
        }
        Some(Modal::ClusterPicker(_)) => on_picker_key(model, key),
        Some(Modal::Servers(_)) => crate::app::servers::on_key(model, key),
        Some(Modal::Detail { .. }) => {
            on_detail_key(model, key);
            Vec::new()
        }
        Some(Modal::FilterInput { .. })
        | Some(Modal::CommandInput { .. })
        | Some(Modal::LogSearchInput { .. }) => on_input_key(model, key),
        None => match model.keymap.action_for(&key) {
            Some(action) => on_action(model, action),
            None => Vec::new(),
        },
    }
}

/// Whether `key` would confirm a confirmation dialog that the last frame did
/// not draw in full; if so the dialog stays open, unconfirmed, and says why.
fn confirms_unseen(model: &mut Model, key: &KeyEvent) -> bool {
    let seen = model.frame.confirm_in_full;
    let view = model.frame.confirm_view;
    let Some(Dialog::Confirm(c)) = model.modals.dialog_mut() else {
        return false;
    };
    // With a name to type, letters go to the field and Enter confirms.
    let confirms = match key.code {
        KeyCode::Char('y') | KeyCode::Char('Y') => c.typed_name.is_none(),
        KeyCode::Enter => c.focus == ConfirmFocus::Confirm || c.typed_name.is_some(),
        _ => false,
    };
    if !confirms || seen == Some(c.plan.id) {
        return false;
    }
    let drawn = view.filter(|v| v.plan == c.plan.id);
    c.error = Some(unseen_reason(drawn, c.seen_through).into());
    true
}

/// Why a confirmation was refused, from what the last frame drew of the
/// dialog (`None`: not drawn at all) and how far its body has been read.
/// Keys typed ahead of the screen (`a` then `y` in one burst) meet a dialog
/// no frame has drawn yet: the terminal is not too small then, and saying
/// so would send the operator to resize a window that was big enough.
fn unseen_reason(drawn: Option<ConfirmView>, seen_through: u16) -> &'static str {
    match drawn {
        None => {
            "not confirmed: this dialog had not been drawn yet when the key came \
             (typed ahead of the screen); read it, then confirm again"
        }
        Some(v) if seen_through < v.total => {
            "not confirmed: part of this dialog has not been on screen yet; \
             read it down to the end (j/k scroll), then confirm again"
        }
        Some(_) => {
            "not confirmed: the Confirm button does not fit on screen; \
             enlarge the terminal, then confirm again"
        }
    }
}

/// Keys while the cluster picker is on top; a choice starts the watches.
fn on_picker_key(model: &mut Model, key: KeyEvent) -> Vec<Command> {
    let action = model.keymap.action_for(&key);
    let page = model.page_rows;
    let Some(Modal::ClusterPicker(picker)) = model.modals.top_mut() else {
        return Vec::new();
    };
    match picker.on_key(action, page) {
        PickerOutcome::Stay => Vec::new(),
        PickerOutcome::Help => {
            model.modals.push(Modal::Help { scroll: 0 });
            Vec::new()
        }
        PickerOutcome::Quit => on_action(model, KeyAction::Quit),
        PickerOutcome::Follow(cluster) => {
            model.modals.pop();
            model.session.namespace = cluster.namespace.clone();
            model.session.cluster_name = cluster.name.clone();
            model.notify(
                NoticeLevel::Info,
                format!("following cluster {cluster}: reading its objects"),
            );
            vec![Command::FollowCluster(cluster)]
        }
    }
}

fn on_help_key(model: &mut Model, key: KeyEvent) {
    let page = model.page_rows as u16;
    let action = model.keymap.action_for(&key);
    if matches!(
        action,
        Some(KeyAction::Help)
            | Some(KeyAction::Notices)
            | Some(KeyAction::Back)
            | Some(KeyAction::Quit)
    ) {
        model.modals.pop();
        return;
    }
    let Some(Modal::Help { scroll } | Modal::Notices { scroll }) = model.modals.top_mut() else {
        return;
    };
    match action {
        Some(KeyAction::Down) => *scroll += 1,
        Some(KeyAction::Up) => *scroll = scroll.saturating_sub(1),
        Some(KeyAction::PageDown) => *scroll += page,
        Some(KeyAction::PageUp) => *scroll = scroll.saturating_sub(page),
        Some(KeyAction::Top) => *scroll = 0,
        _ => {}
    }
}

/// Keys while an input line (`/`, `:`, log search) is on top: Enter and Esc
/// close it here, the editing keys go to [`crate::app::line_input::LineInput::key`].
fn on_input_key(model: &mut Model, key: KeyEvent) -> Vec<Command> {
    match key.code {
        KeyCode::Esc => {
            if let Some(Modal::FilterInput { .. }) = model.modals.pop() {
                let view = model.view;
                model.cursor_mut(view).filter.clear();
            }
        }
        KeyCode::Enter => match model.modals.pop() {
            Some(Modal::CommandInput { text }) => return run_command(model, text.text()),
            Some(Modal::LogSearchInput { text }) => {
                let outcome = views::logs::search(&mut model.logs, text.text());
                apply_outcome(model, outcome);
            }
            _ => {}
        },
        _ => {
            if let Some(t) = model.modals.input_mut()
                && t.key(key)
            {
                sync_live_filter(model);
            }
        }
    }
    Vec::new()
}

fn run_command(model: &mut Model, text: &str) -> Vec<Command> {
    let cmd = text.trim();
    if cmd.is_empty() {
        return Vec::new();
    }
    if matches!(cmd, "q" | "quit") {
        // With a write in flight, asks first; `:q!` does not.
        return actions::quit(model);
    }
    if cmd == "q!" {
        model.quit = true;
        return Vec::new();
    }
    if matches!(cmd.trim_start_matches(':'), "report" | "rep") {
        // Written by the effects; `Msg::ReportWritten` names the file.
        settle(model);
        return vec![Command::WriteReport(crate::app::report::report(model))];
    }
    match View::from_command(cmd) {
        Some(view) => switch_view(model, view),
        None => model.notify(
            NoticeLevel::Warning,
            format!(
                "unknown view {cmd:?}; views: {}; or report",
                View::ALL.map(|v| v.command_name()).join(", ")
            ),
        ),
    }
    Vec::new()
}

pub(crate) fn switch_view(model: &mut Model, view: View) {
    model.view = view;
    model.modals.close_overlays();
    // The next key of the same batch acts on this view's rows as they are
    // now, not as they were at the last visit.
    crate::app::derive::settle(model);
    if view == View::UpdatePlan && model.cursor(view).selected_id.is_none() {
        // The first visit selects the step that runs, else the one waiting.
        let step = crate::app::tables::plan_steps::focus_step(model);
        if let Some(i) = step {
            model.cursor_mut(view).selected_id = Some(crate::app::tables::plan_steps::row_id(i));
        }
    }
}

/// A key of the keymap with no modal open: the view on screen takes it
/// first ([`views::on_key`]); what no view takes is the same everywhere.
fn on_action(model: &mut Model, action: KeyAction) -> Vec<Command> {
    use KeyAction::*;
    let outcome = {
        let Model {
            views,
            logs,
            snapshot,
            derived,
            frame,
            keymap,
            session,
            now,
            page_rows,
            selections,
            view,
            actions,
            ..
        } = model;
        static NONE: BTreeSet<String> = BTreeSet::new();
        let selected_nodes = selections.get(view).unwrap_or(&NONE);
        let ctx = ViewCtx {
            view: *view,
            snapshot,
            derived,
            frame,
            keymap,
            session,
            now: *now,
            page_rows: *page_rows,
            selected_nodes,
            setting_changes: &actions.setting_changes,
        };
        views::on_key(views, logs, action, &ctx)
    };
    if outcome.is_some() {
        apply_outcome(model, outcome);
        return Vec::new();
    }
    match action {
        // With a write in flight, asks first.
        Quit => return actions::quit(model),
        Help => model.modals.push(Modal::Help { scroll: 0 }),
        Command => model.modals.push(Modal::CommandInput {
            text: LineInput::default(),
        }),
        LogSearch => model.modals.push(Modal::LogSearchInput {
            text: model.logs.search.as_deref().unwrap_or_default().into(),
        }),
        NextView | PreviousView => {
            let i = View::ALL.iter().position(|v| *v == model.view).unwrap_or(0);
            let n = View::ALL.len();
            let next = if action == NextView {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            };
            switch_view(model, View::ALL[next]);
        }
        ViewOverview => switch_view(model, View::Overview),
        ViewMachines => switch_view(model, View::Machines),
        ViewStates => switch_view(model, View::States),
        ViewLocks => switch_view(model, View::Locks),
        ViewRequests => switch_view(model, View::Requests),
        ViewVrouter => switch_view(model, View::Vrouter),
        ViewLogs => switch_view(model, View::Logs),
        ViewEvents => switch_view(model, View::Events),
        ViewAudit => switch_view(model, View::Audit),
        ViewUpdatePlan => switch_view(model, View::UpdatePlan),
        ViewReady => switch_view(model, View::Ready),
        // The log pane is on the Overview too: its keys act from every view.
        LogFollow | LogWrap | LogLevel | LogNextMatch | LogPreviousMatch => {
            let outcome = views::logs::on_log_key(&mut model.logs, action);
            apply_outcome(model, outcome);
        }
        LogsForMachine => model.notify(
            NoticeLevel::Info,
            "select a machine in the Machines view first",
        ),
        GroupByUpdateGroup => model.notify(
            NoticeLevel::Info,
            "grouping by update group works in the Machines view",
        ),
        DetailsDown | DetailsUp => model.notify(
            NoticeLevel::Info,
            "no details pane here: Enter opens a machine's in the Machines view",
        ),
        Notices => model.modals.push(Modal::Notices { scroll: 0 }),
        Act(id) => return actions::start(model, id),
        Servers => match actions::node_under_cursor(model) {
            Ok(node) => return crate::app::servers::open(model, node),
            Err(why) => model.notify(NoticeLevel::Warning, format!("servers: {why}")),
        },
        // Keys of views other than this one.
        Filter | Back | Open | Down | Up | PageDown | PageUp | Top | Bottom | Sort
        | ReverseSort | ToggleSelect | DismissReminder => {}
    }
    Vec::new()
}

/// Applies what a view's key asked for beyond the view.
fn apply_outcome(model: &mut Model, outcome: Option<Outcome>) {
    let Some(o) = outcome else {
        return;
    };
    if o.clear_selection {
        model.selected_nodes_mut().clear();
    }
    if let Some(node) = o.toggle_node
        && !model.selected_nodes_mut().remove(&node)
    {
        model.selected_nodes_mut().insert(node);
    }
    if let Some(r) = o.dismiss {
        crate::app::reminders::dismissed(model, r);
    }
    if let Some((level, text)) = o.notice {
        model.notify(level, text);
    }
    if let Some(names) = o.logs_for {
        model.logs.set_subject(names);
        model.logs.follow_newest();
        switch_view(model, View::Logs);
    }
    if let Some(view) = o.switch_to {
        switch_view(model, view);
    }
    if let Some(modal) = o.open {
        model.modals.push(modal);
    }
}

/// Keys while a details modal is on top: Esc (or Enter, q) closes it,
/// `?` opens the help over it, the movement keys scroll it (the UI stops
/// at its last line).
fn on_detail_key(model: &mut Model, key: KeyEvent) {
    let page = model.page_rows.max(1) as u16;
    let action = model.keymap.action_for(&key);
    match action {
        Some(KeyAction::Back) | Some(KeyAction::Open) | Some(KeyAction::Quit) => {
            model.modals.pop();
            return;
        }
        Some(KeyAction::Help) => {
            model.modals.push(Modal::Help { scroll: 0 });
            return;
        }
        _ => {}
    }
    let most = model.frame.detail_scroll_max;
    let Some(Modal::Detail { scroll, .. }) = model.modals.top_mut() else {
        return;
    };
    let next = match action {
        Some(KeyAction::Down) => scroll.saturating_add(1),
        Some(KeyAction::Up) => scroll.saturating_sub(1),
        Some(KeyAction::PageDown) => scroll.saturating_add(page),
        Some(KeyAction::PageUp) => scroll.saturating_sub(page),
        Some(KeyAction::Top) => 0,
        Some(KeyAction::Bottom) => u16::MAX,
        _ => return,
    };
    // Never past the last line the last frame could show.
    *scroll = most.map_or(next, |m| next.min(m));
}

/// Takes a frame's report into the model: a confirmation dialog counts as
/// drawn in full once every line of its body has been on screen, read from
/// the top down (in one frame, or scrolling), and its Confirm button is drawn
/// whole in this frame.
fn on_drawn(model: &mut Model, mut report: FrameReport) {
    report.confirm_in_full = None;
    if let (Some(v), Some(Dialog::Confirm(c))) = (report.confirm_view, model.modals.dialog_mut())
        && v.plan == c.plan.id
    {
        // Only a view that starts inside what was read extends it: a jump
        // past unread lines does not count them as read.
        if v.scroll <= c.seen_through {
            c.seen_through = c.seen_through.max(v.scroll.saturating_add(v.shown));
        }
        if c.seen_through >= v.total && v.buttons {
            report.confirm_in_full = Some(v.plan);
        }
    }
    if !report.too_small {
        model.keys_ignored = 0;
    }
    model.frame = report;
}
