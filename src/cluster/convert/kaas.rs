//! kaas.mirantis.com objects (ClusterUpdatePlan, UpdateAutoPause, UpdateGroup)
//! and the provider Machine (cluster.k8s.io), read leniently like every custom
//! kind: unknown fields ignored, wrong types an error.

use kube::api::DynamicObject;
use serde::Deserialize;
use serde_json::Value;

use super::{body, name_of, parse, s, s_opt, so, time};
use crate::domain::objects::{
    PlanStep, ProviderMachine, UpdateAutoPause, UpdateGroup, UpdatePlan, parse_go_duration,
};

pub use crate::domain::objects::{CLUSTER_NAME_LABEL, CONTROL_PLANE_LABEL, UPDATE_GROUP_LABEL};

/// A text field the docs show as "text": a list of strings [I], or one string.
#[derive(Deserialize, Default)]
#[serde(untagged)]
enum Text {
    Lines(Vec<String>),
    One(String),
    #[default]
    None,
}

impl Text {
    fn lines(self) -> Vec<String> {
        match self {
            Text::Lines(v) => v.iter().map(|l| s(l)).collect(),
            Text::One(l) => vec![s(&l)],
            Text::None => Vec::new(),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PlanSpec {
    cluster: Option<String>,
    source: Option<String>,
    target: Option<String>,
    release_notes: Option<String>,
    steps: Vec<StepSpec>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct StepSpec {
    id: Option<String>,
    name: Option<String>,
    description: Text,
    constraints: Text,
    impact: ImpactSpec,
    duration: DurationSpec,
    granularity: Option<String>,
    commence: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ImpactSpec {
    users: Option<String>,
    workloads: Option<String>,
    info: Text,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DurationSpec {
    estimated: Option<String>,
    /// The field's name before MCC 2.29.0.
    eta: Option<String>,
    info: Text,
}

/// [I] The whole status layout (see `domain::objects::kaas`).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PlanStatus {
    status: Option<String>,
    steps: Vec<StepStatusSpec>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct StepStatusSpec {
    id: Option<String>,
    name: Option<String>,
    status: Option<String>,
    message: Option<String>,
    started_at: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
    completed_at: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
}

pub(super) fn update_plan(obj: &DynamicObject) -> Result<UpdatePlan, String> {
    let (spec, status): (PlanSpec, PlanStatus) = body(obj)?;
    let steps = spec
        .steps
        .into_iter()
        .enumerate()
        .map(|(index, st)| {
            let id = so(st.id);
            let name = s_opt(st.name.as_deref());
            // Match the status entry by id, else by name [I].
            let found = status.steps.iter().find(|x| match (&id, &x.id) {
                (Some(a), Some(b)) => s(b) == *a,
                _ => x.name.as_deref().map(s).as_deref() == Some(name.as_str()),
            });
            let raw = st.duration.estimated.or(st.duration.eta);
            let estimated = raw.as_deref().and_then(parse_go_duration);
            PlanStep {
                index,
                id,
                name,
                description: st.description.lines(),
                constraints: st.constraints.lines(),
                impact_users: st.impact.users.as_deref().map(|v| parse(Some(v))),
                impact_workloads: st.impact.workloads.as_deref().map(|v| parse(Some(v))),
                impact_info: st.impact.info.lines(),
                estimated_raw: if estimated.is_none() { so(raw) } else { None },
                estimated,
                duration_info: st.duration.info.lines(),
                granularity: so(st.granularity),
                commence: st.commence.unwrap_or(false),
                commence_present: st.commence.is_some(),
                status: found
                    .and_then(|f| f.status.as_deref())
                    .map(|v| parse(Some(v))),
                message: found.and_then(|f| f.message.as_deref()).map(s),
                started_at: found.and_then(|f| time(f.started_at.as_ref())),
                completed_at: found.and_then(|f| time(f.completed_at.as_ref())),
            }
        })
        .collect();
    Ok(UpdatePlan {
        name: name_of(&obj.metadata)?,
        namespace: s_opt(obj.metadata.namespace.as_deref()),
        cluster: s_opt(spec.cluster.as_deref()),
        source: so(spec.source),
        target: so(spec.target),
        release_notes: so(spec.release_notes),
        steps,
        status: status.status.as_deref().map(|v| parse(Some(v))),
        created: time(obj.metadata.creation_timestamp.as_ref()),
    })
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct AutoPauseSpec {
    alerts: Vec<String>,
}

/// [I] `status.firingAlerts`: the docs do not name the field.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct AutoPauseStatus {
    firing_alerts: Vec<String>,
}

pub(super) fn auto_pause(obj: &DynamicObject) -> Result<UpdateAutoPause, String> {
    let (spec, status): (AutoPauseSpec, AutoPauseStatus) = body(obj)?;
    Ok(UpdateAutoPause {
        name: name_of(&obj.metadata)?,
        namespace: s_opt(obj.metadata.namespace.as_deref()),
        alerts: spec.alerts.iter().map(|a| s(a)).collect(),
        firing: status.firing_alerts.iter().map(|a| s(a)).collect(),
    })
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct GroupSpec {
    index: Option<i64>,
    concurrent_updates: Option<i64>,
    reboot_if_update_requires: Option<bool>,
}

fn label(obj: &DynamicObject, key: &str) -> Option<String> {
    obj.metadata.labels.as_ref()?.get(key).map(|v| s(v))
}

pub(super) fn update_group(obj: &DynamicObject) -> Result<UpdateGroup, String> {
    let (spec, _): (GroupSpec, Value) = body(obj)?;
    Ok(UpdateGroup {
        name: name_of(&obj.metadata)?,
        namespace: s_opt(obj.metadata.namespace.as_deref()),
        cluster: label(obj, CLUSTER_NAME_LABEL),
        index: spec.index,
        concurrent_updates: spec.concurrent_updates,
        reboot_if_update_requires: spec.reboot_if_update_requires,
    })
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ProviderMachineSpec {
    provider_spec: ProviderSpec,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ProviderSpec {
    value: ProviderValue,
}

/// Only the two fields the console reads; the provider's other fields vary by
/// provider and are ignored.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ProviderValue {
    disable: Option<bool>,
    upgrade_index: Option<i64>,
}

pub(super) fn provider_machine(obj: &DynamicObject) -> Result<ProviderMachine, String> {
    let (spec, _): (ProviderMachineSpec, Value) = body(obj)?;
    Ok(ProviderMachine {
        name: name_of(&obj.metadata)?,
        namespace: s_opt(obj.metadata.namespace.as_deref()),
        cluster: label(obj, CLUSTER_NAME_LABEL),
        update_group: label(obj, UPDATE_GROUP_LABEL).filter(|g| !g.is_empty()),
        control_plane: label(obj, CONTROL_PLANE_LABEL).is_some(),
        disabled: spec.provider_spec.value.disable.unwrap_or(false),
        upgrade_index: spec.provider_spec.value.upgrade_index,
    })
}
