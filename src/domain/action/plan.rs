//! The data a confirmed action is made of: every object it touches and the
//! exact change, old -> new. `app::actions::plan` makes it from the
//! snapshot, the confirmation dialog shows it, `cluster::writes` sends it,
//! and the audit log records it; nothing else decides what is written.

use serde::Serialize;

use crate::domain::action::ActionId;
use crate::domain::action::access::AccessVerdict;
use crate::domain::lockmsg::ServerGroup;
use crate::domain::objects::{ClusterId, Impact, Kind};

/// One object a plan touches, as it was when the plan was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRef {
    pub cluster: ClusterId,
    pub kind: Kind,
    /// Empty for cluster-scoped objects.
    pub namespace: String,
    pub name: String,
    /// The uid seen on screen: deletes carry it as a precondition.
    pub uid: String,
}

impl ObjectRef {
    /// `Node/kaas-node-…` or `Pod tf/tf-vrouter-agent-…`.
    pub fn display(&self) -> String {
        if self.namespace.is_empty() {
            format!("{}/{}", self.kind.api_kind(), self.name)
        } else {
            format!("{}/{}/{}", self.kind.api_kind(), self.namespace, self.name)
        }
    }
}

/// One annotation: its value before and after (`None`: not set / removed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnnotationChange {
    pub key: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

impl AnnotationChange {
    /// `instance_migration_mode: manual -> skip` (the key without its prefix).
    pub fn describe(&self) -> String {
        let short = self.key.rsplit('/').next().unwrap_or(&self.key);
        format!(
            "{short}: {} -> {}",
            self.old.as_deref().unwrap_or("(unset)"),
            self.new.as_deref().unwrap_or("(unset)")
        )
    }
}

/// The exact change to one object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Change {
    /// A change of `metadata.annotations`, sent as a JSON patch that tests
    /// the node's uid and each old value (`cluster::writes::node`).
    Annotations { annotations: Vec<AnnotationChange> },
    /// Delete the pod (uid precondition), then wait for its DaemonSet to
    /// create the replacement on the same node from the current template.
    RestartPod {
        node: String,
        daemonset: String,
        /// The template generation the pod was created from (its
        /// `pod-template-generation` label).
        running_generation: Option<i64>,
        /// The DaemonSet's template generation now (its
        /// `deprecated.daemonset.template.generation` annotation): what the
        /// replacement must run.
        current_generation: Option<i64>,
    },
    /// Set `commence: true` on a step of a ClusterUpdatePlan (JSON patch
    /// with `test` ops on the step's id/name and current `commence`).
    Commence(CommenceStep),
    /// Run one OpenStack CLI command on one server in the `keystone-client`
    /// pod, after `server show` finds it still on `node` with the status
    /// the operator saw.
    ServerCommand(ServerCommand),
}

/// One server command, as the servers panel showed its server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerCommand {
    /// The argv (`openstack server migrate --live-migration <id>`).
    pub command: Vec<String>,
    pub server: String,
    pub name: String,
    /// The node it must still be on.
    pub node: String,
    /// The status it must still have.
    pub status: String,
    /// The task state it must still have (`None`: no task under way).
    pub task_state: Option<String>,
}

impl ServerCommand {
    /// The command as typed.
    pub fn text(&self) -> String {
        self.command.join(" ")
    }
}

impl Change {
    /// One line: what changes, old -> new.
    pub fn describe(&self) -> String {
        match self {
            Change::Annotations { annotations } => annotations
                .iter()
                .map(AnnotationChange::describe)
                .collect::<Vec<_>>()
                .join("; "),
            Change::RestartPod {
                running_generation,
                current_generation,
                ..
            } => format!(
                "delete; replacement runs template generation {} -> {}",
                gen_text(*running_generation),
                gen_text(*current_generation)
            ),
            Change::Commence(c) => c.describe(),
            Change::ServerCommand(c) => format!("{} (server {}, {})", c.text(), c.name, c.status),
        }
    }
}

fn gen_text(g: Option<i64>) -> String {
    g.map_or_else(|| "?".to_string(), |g| g.to_string())
}

/// One object and its change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedStep {
    pub target: ObjectRef,
    pub change: Change,
    /// The node the object is (or is on).
    pub node: String,
    /// For an acknowledgement: the servers the OpenStack lock says are still on the node.
    pub servers: Vec<String>,
    /// For an acknowledgement: the same servers as the lock's message lists
    /// them (owners to notify, unset maintenance action, still on the node),
    /// each list with what `skip` does to it.
    pub acknowledge: Vec<AcknowledgeGroup>,
}

/// One list of servers in the acknowledge dialog, under its own heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcknowledgeGroup {
    pub group: ServerGroup,
    /// What setting the node to `skip` does to these servers (true for each).
    pub warning: &'static str,
}

/// Everything one confirmed action will do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionPlan {
    /// Unique in this session (set by `update` when the plan is made).
    pub id: u64,
    pub action: ActionId,
    pub cluster: ClusterId,
    /// The kubeconfig context of that cluster.
    pub context: String,
    /// Sent with `dryRun=All`: the server validates, nothing changes.
    pub dry_run: bool,
    /// In order; vRouter restarts run one at a time in this order.
    pub steps: Vec<PlannedStep>,
    /// Shown in the confirmation dialog before the operator confirms.
    pub warnings: Vec<String>,
    /// Objects left out and why.
    pub notes: Vec<String>,
    /// The answer the model's access cache held for the action's permission
    /// when the operator confirmed (set by `update`); `None`: the executor
    /// asks the server.
    pub access: Option<AccessVerdict>,
    /// Why no write of this plan may be sent, when a precondition of every
    /// action failed at confirm (set by `update`: the MOSK context is
    /// another cluster's). The executor then sends nothing and writes the
    /// refusal to the audit log.
    pub refused: Option<String>,
}

/// The step to commence, as the screen showed it: what the patch tests and
/// what the confirmation dialog names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommenceStep {
    /// Position in `spec.steps` (the patch path).
    pub index: usize,
    /// The step's `id`; `None` on plans before MCC 2.28 (the patch then tests `name`).
    pub id: Option<String>,
    pub name: String,
    /// Whether `commence` is present (`false`) or was removed by auto-pause.
    pub commence_present: bool,
    pub impact_users: String,
    pub impact_workloads: String,
    pub impact_info: Vec<String>,
    /// `~1h00m`, the raw text, or `no estimate`.
    pub estimate: String,
    pub granularity: Option<String>,
    /// Source -> target of the plan, for the dialog.
    pub releases: String,
}

impl CommenceStep {
    /// `step 2 "ceph"` (the id, else the name).
    pub fn label(&self) -> String {
        format!(
            "step {} \"{}\"",
            self.index + 1,
            self.id.as_deref().unwrap_or(&self.name)
        )
    }

    /// A major impact on workloads: the dialog asks for the step's name.
    pub fn needs_typed_name(&self) -> bool {
        self.impact_workloads == Impact::Major.as_str()
    }

    /// One line for the audit log and the dialog: what changes.
    pub fn describe(&self) -> String {
        let old = if self.commence_present {
            "false"
        } else {
            "(removed)"
        };
        format!(
            "spec.steps[{}].commence: {old} -> true ({})",
            self.index,
            self.label()
        )
    }
}
