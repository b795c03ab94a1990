//! Commence an update plan step against the simulated management cluster
//! (`plan` scenario): the exact JSON patch the server received (with its
//! `test` ops), the audit record, read-only and dry-run, a stale step
//! refused by the server (the plan changed over HTTP between draw and
//! confirm) and shown with a clear message, and the typed name a step with a
//! major workload impact needs.

use std::sync::{Arc, Mutex};

use crossterm::event::{KeyCode, KeyModifiers};
use kube::Client;
use mosk_console::app::actions::dialog::Dialog;
use mosk_console::app::model::View;
use mosk_console::audit::{AuditLog, AuditOutcome, AuditPhase};
use mosk_console::cluster::writes::WriteMode;
use mosk_console::cluster::writes::executor::{ActionExecutor, ExecutorConfig};
use mosk_console::console::effects::{ConsoleEffects, to_msgs};
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::sim::rbac::{Rbac, RbacRule};
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::world::{SimCluster, SimWorld};
use serde_json::{Value, json};

use super::harness::*;

/// A request the management API server received, with its body.
#[derive(Debug, Clone)]
struct MgmtSeen {
    method: String,
    path: String,
    query: String,
    content_type: String,
    body: Vec<u8>,
}

const PLAN_PATH: &str =
    "/apis/kaas.mirantis.com/v1alpha1/namespaces/child-ns/clusterupdateplans/child-cl-17.4.0";

/// The harness on the `plan` scenario, its executor speaking to a management
/// API server that records every request with its body.
fn plan_harness(mode: WriteMode) -> (Harness, Arc<Mutex<Vec<MgmtSeen>>>) {
    plan_harness_denying(mode, Vec::new())
}

/// [`plan_harness`] whose management API server denies what `deny` matches.
fn plan_harness_denying(
    mode: WriteMode,
    deny: Vec<RbacRule>,
) -> (Harness, Arc<Mutex<Vec<MgmtSeen>>>) {
    let world = SimWorld::new(load_scenario("plan").unwrap(), 7);
    let mut rbac = Rbac::allow_all("operator-jane");
    rbac.deny = deny;
    world.set_rbac(SimCluster::Mgmt, rbac);
    let mut h = Harness::new(
        world,
        Options {
            mode,
            ..Options::default()
        },
    );
    let seen: Arc<Mutex<Vec<MgmtSeen>>> = Arc::default();
    let log = seen.clone();
    let mgmt = h.world.mgmt_router().layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| {
            let log = log.clone();
            async move {
                let (parts, body) = req.into_parts();
                let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
                log.lock().unwrap().push(MgmtSeen {
                    method: parts.method.to_string(),
                    path: parts.uri.path().to_string(),
                    query: parts.uri.query().unwrap_or_default().to_string(),
                    content_type: parts
                        .headers
                        .get("content-type")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string(),
                    body: body.to_vec(),
                });
                next.run(axum::extract::Request::from_parts(parts, body.into()))
                    .await
            }
        },
    ));
    let exec = ActionExecutor::new(ExecutorConfig {
        mgmt: Client::new(mgmt, "default"),
        mosk: Client::new(h.world.mosk_router(), "default"),
        mgmt_context: "sim-mgmt".into(),
        mosk_context: "sim-mosk".into(),
        mgmt_user: Some("kubeconfig-user".into()),
        mosk_user: Some("kubeconfig-user".into()),
        transports: Default::default(),
        audit: Arc::new(AuditLog::open(Some(&h.audit_path)).unwrap()),
        mode,
        project: h.model.session.namespace.clone(),
        events: to_msgs(h.tx.clone()),
        replacement_timeout: std::time::Duration::from_secs(5),
    });
    h.exec = ConsoleEffects::with_executor(exec, h.tx.clone());
    h.model.view = View::UpdatePlan;
    (h, seen)
}

/// The PATCH requests the management API server received.
fn patches(seen: &Arc<Mutex<Vec<MgmtSeen>>>) -> Vec<MgmtSeen> {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|r| r.method == "PATCH")
        .cloned()
        .collect()
}

/// Every write (anything but GET) the management API server received.
fn mgmt_writes(seen: &Arc<Mutex<Vec<MgmtSeen>>>) -> Vec<MgmtSeen> {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|r| r.method != "GET")
        .cloned()
        .collect()
}

fn plan_object(h: &Harness) -> Value {
    h.world
        .mgmt()
        .get("clusterupdateplans", Some("child-ns"), "child-cl-17.4.0")
        .expect("the plan scenario has its ClusterUpdatePlan")
}

fn commence_of(h: &Harness, i: usize) -> Option<bool> {
    plan_object(h)
        .pointer(&format!("/spec/steps/{i}/commence"))
        .and_then(Value::as_bool)
}

/// A JSON patch sent to the management API over HTTP, as another client would.
async fn patch_over_http(h: &Harness, patch: Value) {
    use tower::ServiceExt;
    let req = axum::http::Request::builder()
        .method("PATCH")
        .uri(PLAN_PATH)
        .header("content-type", "application/json-patch+json")
        .body(axum::body::Body::from(patch.to_string()))
        .unwrap();
    let resp = h.world.mgmt_router().oneshot(req).await.unwrap();
    assert_eq!(resp.status(), 200, "the out-of-band change was applied");
}

fn screen(h: &Harness) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    let theme = mosk_console::config::theme::Theme::load("mono").unwrap();
    t.draw(|f| mosk_console::ui::draw(f, &h.model, &theme))
        .unwrap();
    format!("{}", t.backend())
}

#[tokio::test(start_paused = true)]
async fn commence_sends_the_json_patch_with_its_tests_and_audits_it() {
    let (mut h, seen) = plan_harness(WriteMode::Live);
    h.tick_and_settle().await;
    assert_eq!(
        commence_of(&h, 0),
        Some(false),
        "the scenario starts paused"
    );
    h.press('c');
    assert!(
        matches!(h.model.modals.dialog(), Some(Dialog::Confirm(_))),
        "{:?}",
        h.model.notice()
    );
    h.press('y');
    let outcome = h.run_to_end(false).await;
    assert!(
        matches!(&outcome, RunOutcome::Completed { dry_run: false }),
        "{outcome:?}"
    );
    let sent = patches(&seen);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].path, PLAN_PATH);
    assert_eq!(sent[0].content_type, "application/json-patch+json");
    let body: Value = serde_json::from_slice(&sent[0].body).unwrap();
    assert_eq!(
        body,
        json!([
            {"op": "test", "path": "/spec/steps/0/id", "value": "openstack"},
            {"op": "test", "path": "/spec/steps/0/commence", "value": false},
            {"op": "replace", "path": "/spec/steps/0/commence", "value": true},
        ])
    );
    assert_eq!(commence_of(&h, 0), Some(true));
    assert_eq!(commence_of(&h, 1), Some(false), "only the next step");
    let audit = h.audit();
    assert_eq!(audit.len(), 2, "{audit:?}");
    assert_eq!(audit[0].phase, AuditPhase::Intent);
    let rec = &audit[1];
    assert_eq!(rec.phase, AuditPhase::Result);
    assert_eq!(rec.action, "commence-step");
    assert_eq!(rec.kind, "ClusterUpdatePlan");
    assert_eq!(rec.namespace.as_deref(), Some("child-ns"));
    assert_eq!(rec.name, "child-cl-17.4.0");
    assert_eq!(rec.context, "sim-mgmt");
    assert_eq!(rec.outcome, AuditOutcome::Succeeded);
    assert_eq!(
        rec.change_text,
        "spec.steps[0].commence: false -> true (step 1 \"openstack\")"
    );
    assert_eq!(rec.change["type"], "commence");
    assert_eq!(rec.change["id"], "openstack");
}

/// ClusterUpdatePlan is namespaced: commence asks its RBAC question in the
/// cluster's project namespace, not cluster-wide (a user whose rights stop
/// at the project could not commence).
#[tokio::test(start_paused = true)]
async fn commence_asks_its_permission_in_the_plans_namespace() {
    let (mut h, seen) = plan_harness(WriteMode::Live);
    h.tick_and_settle().await;
    let reviews: Vec<Value> = mgmt_writes(&seen)
        .iter()
        .filter(|r| r.path.ends_with("/selfsubjectaccessreviews"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(reviews.len(), 1, "{reviews:?}");
    assert_eq!(
        reviews[0]["spec"]["resourceAttributes"],
        json!({"verb": "patch", "group": "kaas.mirantis.com",
               "resource": "clusterupdateplans", "namespace": "child-ns"})
    );
}

/// The server's answer for the project namespace is the one that counts:
/// denied there, commence is unavailable at the key and nothing is sent.
#[tokio::test(start_paused = true)]
async fn a_denial_in_the_project_namespace_makes_commence_unavailable() {
    let deny = RbacRule {
        verb: "patch".into(),
        group: "kaas.mirantis.com".into(),
        resource: "clusterupdateplans".into(),
        namespace: Some("child-ns".into()),
    };
    let (mut h, seen) = plan_harness_denying(WriteMode::Live, vec![deny]);
    h.tick_and_settle().await;
    h.press('c');
    assert!(
        h.model.modals.dialog().is_none(),
        "{:?}",
        h.model.modals.dialog()
    );
    let notice = h
        .model
        .notice()
        .as_ref()
        .map(|n| n.text.clone())
        .unwrap_or_default();
    assert!(
        notice.contains("unavailable")
            && notice.contains("patch clusterupdateplans.kaas.mirantis.com in child-ns"),
        "{notice}"
    );
    assert!(patches(&seen).is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_stale_step_is_refused_by_the_server_and_said_so() {
    let (mut h, seen) = plan_harness(WriteMode::Live);
    h.tick_and_settle().await;
    h.press('c');
    assert!(matches!(h.model.modals.dialog(), Some(Dialog::Confirm(_))));
    // Someone else commences step 1 while the dialog is open.
    patch_over_http(
        &h,
        json!([{"op": "replace", "path": "/spec/steps/0/commence", "value": true}]),
    )
    .await;
    let rv = plan_object(&h)["metadata"]["resourceVersion"].clone();
    h.press('y');
    let outcome = h.run_to_end(false).await;
    let RunOutcome::Failed { message } = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        message.contains(
            "the update plan changed since it was drawn: step 1 \"openstack\" is already commenced; nothing was changed"
        ),
        "{message}"
    );
    assert_eq!(patches(&seen).len(), 1, "one patch, refused");
    assert_eq!(
        plan_object(&h)["metadata"]["resourceVersion"],
        rv,
        "the server changed nothing"
    );
    let rec = h.audit().pop().unwrap();
    assert_eq!(rec.phase, AuditPhase::Result);
    assert_eq!(rec.outcome, AuditOutcome::Refused);
    assert_eq!(rec.outcome.as_str(), "refused");
    assert!(
        rec.message
            .as_deref()
            .unwrap_or("")
            .contains("the update plan changed since it was drawn"),
        "{rec:?}"
    );
    let s = screen(&h);
    assert!(
        s.contains("the update plan changed since it was drawn"),
        "{s}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_reordered_plan_is_refused_by_its_id_test() {
    let (mut h, _seen) = plan_harness(WriteMode::Live);
    h.tick_and_settle().await;
    h.press('c');
    // The step at index 0 is another one now (its id changed).
    patch_over_http(
        &h,
        json!([{"op": "replace", "path": "/spec/steps/0/id", "value": "openstack-v2"}]),
    )
    .await;
    h.press('y');
    let RunOutcome::Failed { message } = h.run_to_end(false).await else {
        panic!("refused")
    };
    assert!(
        message.contains("step 1 is no longer \"openstack\" (it is \"openstack-v2\" now)"),
        "{message}"
    );
    assert_eq!(commence_of(&h, 0), Some(false), "nothing was commenced");
}

#[tokio::test(start_paused = true)]
async fn read_only_offers_no_commence_and_sends_nothing() {
    let (mut h, seen) = plan_harness(WriteMode::ReadOnly);
    h.tick_and_settle().await;
    h.press('c');
    assert!(h.model.modals.dialog().is_none());
    assert!(
        h.model
            .notice()
            .as_ref()
            .is_some_and(|n| n.text.contains("read-only")),
        "{:?}",
        h.model.notice()
    );
    assert!(mgmt_writes(&seen).is_empty(), "{:?}", mgmt_writes(&seen));
    assert!(h.audit().is_empty());
    assert_eq!(commence_of(&h, 0), Some(false));
}

#[tokio::test(start_paused = true)]
async fn dry_run_sends_dry_run_all_and_commences_nothing() {
    let (mut h, seen) = plan_harness(WriteMode::DryRun);
    h.tick_and_settle().await;
    h.press('c');
    let s = screen(&h);
    assert!(s.contains("DRY-RUN") && s.contains("dryRun=All"), "{s}");
    h.press('y');
    let outcome = h.run_to_end(false).await;
    assert!(
        matches!(outcome, RunOutcome::Completed { dry_run: true }),
        "{outcome:?}"
    );
    let sent = patches(&seen);
    assert_eq!(sent.len(), 1);
    assert!(sent[0].query.contains("dryRun=All"), "{:?}", sent[0]);
    assert_eq!(commence_of(&h, 0), Some(false), "a dry run changes nothing");
    let rec = h.audit().pop().unwrap();
    assert!(rec.dry_run);
    assert_eq!(rec.outcome, AuditOutcome::Succeeded);
}

#[tokio::test(start_paused = true)]
async fn a_major_step_needs_its_name_typed() {
    let (mut h, seen) = plan_harness(WriteMode::Live);
    // Steps 1-3 commenced (over HTTP): step 4 "k8s-workers" waits, with a
    // major impact on workloads.
    for i in 0..3 {
        patch_over_http(
            &h,
            json!([{"op": "replace", "path": format!("/spec/steps/{i}/commence"), "value": true}]),
        )
        .await;
    }
    h.tick_and_settle().await;
    h.press('c');
    let s = screen(&h);
    assert!(s.contains("step 4 (id k8s-workers)"), "{s}");
    assert!(s.contains("Type the step's name to confirm"), "{s}");
    // y, Enter, and a wrong name: nothing is sent.
    h.press('y');
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    for c in "k8s-workers".chars() {
        h.press(c);
    }
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    assert!(patches(&seen).is_empty(), "{:?}", patches(&seen));
    assert!(h.model.actions.running.is_none());
    assert!(matches!(h.model.modals.dialog(), Some(Dialog::Confirm(_))));
    assert!(screen(&h).contains("not confirmed: type the step's name"));
    for _ in 0.."yk8s-workers".len() {
        h.key(KeyCode::Backspace, KeyModifiers::NONE);
    }
    for c in "Update host OS and Kubernetes components on worker nodes".chars() {
        h.press(c);
    }
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    let outcome = h.run_to_end(false).await;
    assert!(
        matches!(outcome, RunOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let sent = patches(&seen);
    assert_eq!(sent.len(), 1);
    let body: Value = serde_json::from_slice(&sent[0].body).unwrap();
    assert_eq!(body[0]["path"], "/spec/steps/3/id");
    assert_eq!(body[0]["value"], "k8s-workers");
    assert_eq!(commence_of(&h, 3), Some(true));
}

/// Where the console reads the plan now (from what the watches would show).
fn console_state(h: &mut Harness) -> mosk_console::domain::update_plan::PlanState {
    // What `update` derives after the changes a batch brought.
    mosk_console::app::derive::settle(&mut h.model);
    assert!(h.model.derived.plan.is_some(), "a plan");
    mosk_console::app::tables::plan_steps::plan_state(&h.model)
}

/// Commences the next step through the keys (`c`, then the step's name
/// typed when asked, else `y`) and runs it to the end; the step's id (or
/// name), or `None` when no confirmation opened.
async fn commence_through_keys(h: &mut Harness) -> Option<String> {
    h.tick_and_settle().await;
    h.press('c');
    let Some(Dialog::Confirm(c)) = h.model.modals.dialog() else {
        return None;
    };
    let step = mosk_console::app::actions::plan::commence_step(&c.plan)
        .unwrap()
        .clone();
    match c.typed_name.as_ref().map(|t| t.expected.clone()) {
        Some(name) => {
            for ch in name.chars() {
                h.press(ch);
            }
            h.key(KeyCode::Enter, KeyModifiers::NONE);
        }
        None => h.press('y'),
    }
    let outcome = h.run_to_end(false).await;
    assert!(
        matches!(outcome, RunOutcome::Completed { .. }),
        "{outcome:?}"
    );
    h.close();
    Some(step.id.clone().unwrap_or(step.name))
}

/// Acknowledges manual migration on every node the console offers it for,
/// through the keys; where a live migration keeps failing, sets the mode to
/// manual first (what the console offers there instead).
async fn acknowledge_waiting_nodes(h: &mut Harness) {
    use mosk_console::app::actions::plan::acknowledge_offer;
    use mosk_console::domain::action::ActionId;
    use mosk_console::domain::attention::AttentionKind;
    // The queue as settled now (a refresh alone does not settle it).
    h.tick_and_settle().await;
    let failing: Vec<String> = h
        .model
        .derived
        .attention
        .iter()
        .filter(|i| {
            i.kind == AttentionKind::MigrationFailing
                && i.action == Some(ActionId::SetMigrationMode)
        })
        .filter_map(|i| i.node.clone())
        .filter(|n| {
            h.model.snapshot.nodes().any(|x| {
                x.name == *n
                    && x.migration_mode
                        .as_ref()
                        .is_none_or(|m| m.as_str() == "live")
            })
        })
        .collect();
    for node in failing {
        h.tick_and_settle().await;
        let outcome = h.set_manual(&node).await;
        assert!(
            matches!(outcome, RunOutcome::Completed { .. }),
            "{outcome:?}"
        );
    }
    let nodes: Vec<String> = h
        .model
        .snapshot
        .nodes()
        .filter(|n| n.migration_mode.as_ref().map(|m| m.as_str()) != Some("skip"))
        .map(|n| n.name.clone())
        .filter(|n| acknowledge_offer(&h.model.snapshot, &h.model.history, n).is_ok())
        .collect();
    for node in nodes {
        h.tick_and_settle().await;
        let outcome = h.acknowledge(&node).await;
        assert!(
            matches!(outcome, RunOutcome::Completed { .. }),
            "{outcome:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn the_plan_scenario_runs_to_the_end_when_each_step_is_commenced() {
    use mosk_console::domain::update_plan::PlanState;
    let (mut h, seen) = plan_harness(WriteMode::Live);
    h.tick_and_settle().await;
    let mut commenced: Vec<String> = Vec::new();
    let mut auto_paused = false;
    for _ in 0..5000 {
        h.refresh();
        match console_state(&mut h) {
            PlanState::Done => break,
            // The worker step waits for the operator on nodes whose servers
            // cannot leave by themselves: acknowledge them (mode -> skip).
            PlanState::Running { .. } => acknowledge_waiting_nodes(&mut h).await,
            PlanState::AutoPaused { alerts, .. } if !alerts.is_empty() => auto_paused = true,
            // Waiting for commence (or auto-paused with the alert cleared):
            // commence through the keys, typing the name when asked.
            _ => {
                let step = commence_through_keys(&mut h)
                    .await
                    .expect("a commence dialog");
                commenced.push(step);
            }
        }
        h.world.step(jiff::SignedDuration::from_secs(30));
    }
    assert_eq!(console_state(&mut h), PlanState::Done, "{commenced:?}");
    assert!(auto_paused, "the alert fired during the worker step");
    assert_eq!(
        commenced,
        [
            "openstack",
            "ceph",
            "k8s-controllers",
            "k8s-workers",
            "k8s-workers",
            "stacklight"
        ],
        "each step once, the worker step again after the auto-pause"
    );
    assert_eq!(patches(&seen).len(), commenced.len());
    let s = screen(&h);
    assert!(s.contains("update plan: done"), "{s}");
    assert!(!s.contains("c: commence"), "nothing left to commence:\n{s}");
}

/// The audit log names, per write, the user of the cluster the write goes
/// to: the management cluster's for a commence, the MOSK cluster's for an
/// acknowledge, even when one session does both (and whichever comes first).
#[tokio::test(start_paused = true)]
async fn commence_and_acknowledge_record_each_clusters_own_user() {
    let world = SimWorld::new(load_scenario("plan").unwrap(), 7);
    let mut h = Harness::new(
        world,
        Options {
            self_subject_review: false,
            ..Options::default()
        },
    );
    let mosk = without_self_subject_review(h.world.mosk_router());
    let mgmt = without_self_subject_review(h.world.mgmt_router());
    let exec = ActionExecutor::new(ExecutorConfig {
        mgmt: Client::new(mgmt, "default"),
        mosk: Client::new(mosk, "default"),
        mgmt_context: "sim-mgmt".into(),
        mosk_context: "sim-mosk".into(),
        mgmt_user: Some("mgmt-admin".into()),
        mosk_user: Some("mosk-operator".into()),
        audit: Arc::new(AuditLog::open(Some(&h.audit_path)).unwrap()),
        mode: WriteMode::Live,
        project: h.model.session.namespace.clone(),
        events: to_msgs(h.tx.clone()),
        replacement_timeout: std::time::Duration::from_secs(5),
        transports: Default::default(),
    });
    h.exec = ConsoleEffects::with_executor(exec, h.tx.clone());
    h.model.view = View::UpdatePlan;
    h.tick_and_settle().await;
    // The management cluster first: its identity must not become the MOSK one's.
    h.press('c');
    assert!(matches!(h.model.modals.dialog(), Some(Dialog::Confirm(_))));
    h.press('y');
    let outcome = h.run_to_end(false).await;
    assert!(
        matches!(outcome, RunOutcome::Completed { .. }),
        "{outcome:?}"
    );
    h.close();
    // Play on until a node waits for its manual migration to be acknowledged.
    let mut acknowledged = false;
    for _ in 0..2000 {
        h.world.step(jiff::SignedDuration::from_secs(30));
        h.refresh();
        if console_state(&mut h) != mosk_console::domain::update_plan::PlanState::Done
            && !matches!(
                console_state(&mut h),
                mosk_console::domain::update_plan::PlanState::Running { .. }
            )
        {
            commence_through_keys(&mut h).await;
            continue;
        }
        // What the console offers: acknowledge, or manual first where a
        // live migration keeps failing.
        acknowledge_waiting_nodes(&mut h).await;
        if h.audit()
            .iter()
            .any(|r| r.action == "acknowledge-migration")
        {
            acknowledged = true;
            break;
        }
    }
    assert!(acknowledged, "a node came to wait for its acknowledgement");
    let audit = h.audit();
    let commence: Vec<_> = audit
        .iter()
        .filter(|r| r.action == "commence-step")
        .collect();
    let ack: Vec<_> = audit
        .iter()
        .filter(|r| r.action == "acknowledge-migration")
        .collect();
    assert!(!commence.is_empty() && !ack.is_empty(), "{audit:#?}");
    for r in &commence {
        assert_eq!(
            (r.user.as_str(), r.context.as_str()),
            ("mgmt-admin", "sim-mgmt"),
            "{r:?}"
        );
        assert_eq!(r.user_source, "kubeconfig");
    }
    for r in &ack {
        assert_eq!(
            (r.user.as_str(), r.context.as_str()),
            ("mosk-operator", "sim-mosk"),
            "{r:?}"
        );
        assert_eq!(r.user_source, "kubeconfig");
    }
}
