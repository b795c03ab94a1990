//! How a confirmed plan's run goes: each object's status and the run's
//! outcome, as the executor reports them and the progress dialog shows them.

/// Where one object of a plan is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepStatus {
    Pending,
    /// The request is being sent.
    Sending,
    /// The pod was deleted; waiting for its replacement to run the current
    /// revision and be Ready.
    Waiting(String),
    /// Done, with what happened.
    Done(String),
    /// Failed, with the explanation.
    Failed(String),
    /// Not sent: the run was cancelled or stopped before this object.
    NotSent(String),
}

impl StepStatus {
    pub fn label(&self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::Sending => "sending",
            StepStatus::Waiting(_) => "waiting",
            StepStatus::Done(_) => "done",
            StepStatus::Failed(_) => "FAILED",
            StepStatus::NotSent(_) => "not sent",
        }
    }

    pub fn detail(&self) -> &str {
        match self {
            StepStatus::Waiting(s)
            | StepStatus::Done(s)
            | StepStatus::Failed(s)
            | StepStatus::NotSent(s) => s,
            _ => "",
        }
    }
}

/// How a plan ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    /// Every step done (in dry-run: accepted by the server, nothing changed).
    Completed { dry_run: bool },
    /// Stopped at the first failure.
    Failed { message: String },
    /// The operator cancelled; `done` steps had finished.
    Cancelled { done: usize },
    /// Nothing was sent (read-only, forbidden, audit log unwritable).
    Refused { message: String },
}

impl RunOutcome {
    pub fn summary(&self) -> String {
        match self {
            RunOutcome::Completed { dry_run: true } => {
                "dry run: the server accepted every request; nothing changed".into()
            }
            RunOutcome::Completed { dry_run: false } => "done".into(),
            RunOutcome::Failed { message } => format!("stopped: {message}"),
            RunOutcome::Cancelled { done } => {
                format!("cancelled after {done} step(s); the rest was not sent")
            }
            RunOutcome::Refused { message } => format!("not sent: {message}"),
        }
    }
}
