//! No outcome lost at exit. When the console quits (the operator, a signal,
//! a hang-up) while a request is in flight, [`ActionExecutor::finish`] waits
//! a bounded time for its answer. An answer that comes in time is written to
//! the audit log as usual; one that does not is recorded as an
//! `interrupted` result ("outcome unknown"), and the [`ExitReport`] makes the
//! process say so on stderr and exit non-zero.
//!
//! Who writes the result record is decided once, under the in-flight lock:
//! the plan's task takes its entry when the answer arrives
//! ([`Shared::end`]); `finish` takes what is left when the wait is over. A
//! request therefore gets exactly one result record.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::executor::{ActionExecutor, Shared};
use crate::audit::{AuditOutcome, AuditPhase, AuditRecord};

/// A request sent whose result record is not written yet.
#[derive(Debug, Clone)]
pub struct InFlight {
    /// The intent record written before it was sent.
    pub intent: AuditRecord,
    /// Where it is, for the interrupted record (`sent; no answer yet`, or a
    /// restart's `deleted; waiting for the replacement …`).
    pub stage: String,
}

impl InFlight {
    /// `Pod/tf/tf-vrouter-agent-x (restart …)`, for stderr and the dialog.
    pub fn describe(&self) -> String {
        let r = &self.intent;
        let object = match &r.namespace {
            Some(ns) => format!("{}/{ns}/{}", r.kind, r.name),
            None => format!("{}/{}", r.kind, r.name),
        };
        format!("{} {object}: {}", r.action, self.stage)
    }
}

/// What happened to the writes in flight when the console quit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExitReport {
    /// Results that arrived while the console waited, one line each.
    pub completed: Vec<String>,
    /// Writes whose outcome is unknown: an `interrupted` result was recorded.
    pub interrupted: Vec<String>,
    /// Interrupted results that could not be written to the audit log.
    pub audit_errors: Vec<String>,
    /// The audit log, to name it in the message.
    pub audit_path: Option<String>,
    /// How long the console waited.
    pub waited: Duration,
}

impl ExitReport {
    /// Whether every write sent has a known outcome.
    pub fn clean(&self) -> bool {
        self.interrupted.is_empty() && self.audit_errors.is_empty()
    }

    /// Lines for stderr about the writes that finished during the wait.
    pub fn notes(&self) -> Vec<String> {
        self.completed
            .iter()
            .map(|c| format!("the write in flight finished while quitting: {c}"))
            .collect()
    }

    /// The error for stderr (and a non-zero exit) when an outcome is unknown.
    pub fn failure(&self) -> Option<String> {
        if self.clean() {
            return None;
        }
        let mut lines = Vec::new();
        for w in &self.interrupted {
            lines.push(format!(
                "interrupted, outcome unknown: {w} (no result within {} s of quitting: check the object on the cluster)",
                self.waited.as_secs()
            ));
        }
        if !self.interrupted.is_empty()
            && let Some(p) = &self.audit_path
        {
            lines.push(format!("recorded as \"interrupted\" in the audit log {p}"));
        }
        for e in &self.audit_errors {
            lines.push(format!("the audit log could not record it: {e}"));
        }
        Some(lines.join("\n"))
    }
}

impl Shared {
    /// The intent is on disk and the request is about to leave.
    pub(super) fn begin(&self, plan: u64, intent: AuditRecord) {
        if let Ok(mut m) = self.in_flight.lock() {
            m.insert(
                plan,
                InFlight {
                    intent,
                    stage: "sent; no answer yet".into(),
                },
            );
        }
    }

    pub(super) fn set_stage(&self, plan: u64, stage: &str) {
        if let Ok(mut m) = self.in_flight.lock()
            && let Some(f) = m.get_mut(&plan)
        {
            f.stage = stage.to_string();
        }
    }

    /// The answer arrived: takes the entry. `false` when `finish` already
    /// recorded the request as interrupted (then no result is written here).
    pub(super) fn end(&self, plan: u64) -> bool {
        self.in_flight
            .lock()
            .map(|mut m| m.remove(&plan).is_some())
            .unwrap_or(true)
    }

    /// While quitting, remembers a result for the exit report.
    pub(super) fn note_after_quit(&self, rec: &AuditRecord) {
        if !self.quitting.load(Ordering::SeqCst) {
            return;
        }
        let object = match &rec.namespace {
            Some(ns) => format!("{}/{ns}/{}", rec.kind, rec.name),
            None => format!("{}/{}", rec.kind, rec.name),
        };
        let mut line = format!("{} {object}: {}", rec.action, rec.outcome.as_str());
        if let Some(m) = rec.message.as_deref().filter(|m| !m.is_empty()) {
            line = format!("{line}: {m}");
        }
        if let Ok(mut v) = self.after_quit.lock() {
            v.push(line);
        }
    }
}

impl ActionExecutor {
    /// The writes in flight now, in words (empty when none).
    pub fn in_flight(&self) -> Vec<String> {
        self.shared
            .in_flight
            .lock()
            .map(|m| m.values().map(InFlight::describe).collect())
            .unwrap_or_default()
    }

    /// Whether a plan is still running (a request in flight or more to send).
    pub fn running(&self) -> bool {
        self.tasks.iter().any(|t| !t.is_finished())
    }

    /// Called once when the console quits: stops every running plan before
    /// its next object and waits at most `grace` for the request in flight.
    /// A request still unanswered then gets an `interrupted` result record.
    pub async fn finish(&mut self, grace: Duration) -> ExitReport {
        let shared = self.shared.clone();
        shared.quitting.store(true, Ordering::SeqCst);
        if let Some(t) = &self.cancel {
            t.cancel();
        }
        let mut report = ExitReport {
            audit_path: Some(shared.audit.path().display().to_string()),
            waited: grace,
            ..ExitReport::default()
        };
        let tasks: Vec<_> = std::mem::take(&mut self.tasks)
            .into_iter()
            .filter(|t| !t.is_finished())
            .collect();
        if tasks.is_empty() {
            return report;
        }
        let aborts: Vec<_> = tasks.iter().map(|t| t.abort_handle()).collect();
        let all = futures::future::join_all(tasks);
        tokio::pin!(all);
        if tokio::time::timeout(grace, &mut all).await.is_err() {
            let left: Vec<InFlight> = shared
                .in_flight
                .lock()
                .map(|mut m| std::mem::take(&mut *m).into_values().collect())
                .unwrap_or_default();
            let took_any = !left.is_empty();
            for f in left {
                report.interrupted.push(f.describe());
                let rec = AuditRecord {
                    time: jiff::Timestamp::now(),
                    phase: AuditPhase::Result,
                    outcome: AuditOutcome::Interrupted,
                    message: Some(format!(
                        "interrupted, outcome unknown: the console quit and no answer came within {} s ({})",
                        grace.as_secs(),
                        f.stage
                    )),
                    ..f.intent
                };
                if let Err(e) = shared.write_audit(rec).await {
                    report.audit_errors.push(e);
                }
            }
            // A task that took its entry just before is writing its result
            // now: let it finish that (a local fsync), then stop every task.
            if !took_any {
                let _ = tokio::time::timeout(Duration::from_secs(1), &mut all).await;
            }
            for a in aborts {
                a.abort();
            }
        }
        report.completed = shared
            .after_quit
            .lock()
            .map(|v| v.clone())
            .unwrap_or_default();
        report
    }
}
