//! Restarting vRouter pods: one, several, all one at a time; a replacement
//! that never becomes Ready; a stale screen (409, 404).

use crossterm::event::{KeyCode, KeyModifiers};
use jiff::SignedDuration;
use mosk_console::audit::{AuditOutcome, AuditPhase};
use mosk_console::domain::action::run::{RunOutcome, StepStatus};
use mosk_console::domain::attention::{AttentionKind, attention};
use mosk_console::sim::scenario::UpdatePhase;
use serde_json::{Value, json};

use super::harness::*;

const HOUR: SignedDuration = SignedDuration::from_secs(3600);

/// Three computes, vRouter pods left on the old revision after the update;
/// `extra` adds overrides.
fn updated_world(extra: &str) -> Harness {
    updated_world_with("", extra)
}

/// [`updated_world`] with top-level settings `top`.
fn updated_world_with(top: &str, extra: &str) -> Harness {
    let world = custom_world(&format!(
        "{top}vrouter_manual_restart = true\nrelease = {{ from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }}\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 3\ninstances = 0\n{extra}"
    ));
    assert!(world.step_until(2 * HOUR, |w| w.phase() == UpdatePhase::Done));
    Harness::new(world, Options::default())
}

fn ds(h: &Harness) -> Value {
    h.world
        .mosk()
        .list("daemonsets", Some("tf"))
        .into_iter()
        .find(|d| str_at(d, "/metadata/name").starts_with("tf-vrouter"))
        .unwrap()
}

fn generation_label(pod: &Value) -> String {
    str_at(pod, "/metadata/labels/pod-template-generation").to_string()
}

fn is_ready(pod: &Value) -> bool {
    pod.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Ready" && c["status"] == "True")
        })
}

#[tokio::test(start_paused = true)]
async fn restart_one_pod_waits_for_a_ready_replacement_on_the_current_revision() {
    let mut h = updated_world("");
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    let old = h.pod_on(&node);
    let generation = ds(&h)["metadata"]["generation"]
        .as_i64()
        .unwrap()
        .to_string();
    assert_ne!(generation_label(&old), generation, "outdated before");
    h.select(&[&node]);
    h.press('R');
    h.press('y');
    assert_eq!(
        h.run_to_end(true).await,
        RunOutcome::Completed { dry_run: false }
    );

    let new = h.pod_on(&node);
    assert_ne!(new["metadata"]["uid"], old["metadata"]["uid"]);
    assert_eq!(generation_label(&new), generation);
    assert!(is_ready(&new));
    let changes = h.changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].method, "DELETE");
    assert_eq!(
        changes[0].path,
        format!(
            "/api/v1/namespaces/tf/pods/{}",
            str_at(&old, "/metadata/name")
        )
    );
    let audit = h.audit();
    assert_eq!(audit.len(), 2);
    assert_eq!(audit[0].kind, "Pod");
    assert_eq!(audit[0].namespace.as_deref(), Some("tf"));
    assert_eq!(audit[0].uid, str_at(&old, "/metadata/uid"));
    assert_eq!(audit[1].outcome, AuditOutcome::Succeeded);
    assert!(
        audit[1]
            .message
            .as_deref()
            .unwrap()
            .contains(str_at(&new, "/metadata/name")),
        "{:?}",
        audit[1].message
    );
    // The other two are still outdated: UP-TO-DATE 1 of CURRENT 3.
    h.world.step(SignedDuration::from_secs(2));
    let d = ds(&h);
    assert_eq!(d["status"]["updatedNumberScheduled"], 1);
    assert_eq!(d["status"]["currentNumberScheduled"], 3);
}

#[tokio::test(start_paused = true)]
async fn restart_all_outdated_one_at_a_time_until_up_to_date_equals_current() {
    let mut h = updated_world("");
    h.tick_and_settle().await;
    h.key(KeyCode::Char('r'), KeyModifiers::CONTROL);
    h.press('y');
    assert_eq!(
        h.run_to_end(true).await,
        RunOutcome::Completed { dry_run: false }
    );
    let run = h.model.actions.running.clone().unwrap();
    assert_eq!(run.steps.len(), 3);
    assert!(
        run.steps.iter().all(|s| matches!(s, StepStatus::Done(_))),
        "{:?}",
        run.steps
    );
    let deletes = h.changes();
    assert_eq!(deletes.len(), 3);
    assert!(deletes.iter().all(|d| d.method == "DELETE"));
    for (i, d) in deletes.iter().enumerate() {
        assert_eq!(d.intents_on_disk, i + 1, "intent on disk before delete {i}");
    }
    // One at a time: each pod's result is recorded before the next intent.
    let phases: Vec<AuditPhase> = h.audit().iter().map(|r| r.phase).collect();
    assert_eq!(
        phases,
        [AuditPhase::Intent, AuditPhase::Result].repeat(3),
        "strictly alternating"
    );
    h.world.step(SignedDuration::from_secs(2));
    let d = ds(&h);
    assert_eq!(
        d["status"]["updatedNumberScheduled"],
        d["status"]["currentNumberScheduled"]
    );
    assert_eq!(d["status"]["updatedNumberScheduled"], 3);
    // Nothing is left to restart.
    h.close();
    h.refresh();
    h.key(KeyCode::Char('r'), KeyModifiers::CONTROL);
    assert!(h.model.modals.dialog().is_none());
    assert!(h.notice_text().contains("no outdated vRouter pod"));
}

#[tokio::test(start_paused = true)]
async fn restart_on_several_selected_nodes() {
    let mut h = updated_world("");
    h.tick_and_settle().await;
    let nodes = h.computes();
    h.select(&[&nodes[0], &nodes[2]]);
    h.press('R');
    h.press('y');
    assert_eq!(
        h.run_to_end(true).await,
        RunOutcome::Completed { dry_run: false }
    );
    assert_eq!(h.changes().len(), 2);
    let generation = ds(&h)["metadata"]["generation"]
        .as_i64()
        .unwrap()
        .to_string();
    assert_eq!(generation_label(&h.pod_on(&nodes[0])), generation);
    assert_eq!(generation_label(&h.pod_on(&nodes[2])), generation);
    assert_ne!(
        generation_label(&h.pod_on(&nodes[1])),
        generation,
        "not selected"
    );
}

#[tokio::test(start_paused = true)]
async fn the_run_stops_at_a_pod_that_never_becomes_ready() {
    let mut h =
        updated_world("[[overrides]]\nrole = \"compute\"\nindex = 1\nvrouter_never_ready = true\n");
    h.tick_and_settle().await;
    let bad_node = h.computes()[1].clone();
    h.key(KeyCode::Char('r'), KeyModifiers::CONTROL);
    h.press('y');
    let plan = h.model.actions.running.clone().unwrap().plan;
    let bad = plan.steps.iter().position(|s| s.node == bad_node).unwrap();
    let outcome = h.run_to_end(true).await;
    let RunOutcome::Failed { message } = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        message.contains("not Ready") && message.contains(&bad_node),
        "{message}"
    );
    let run = h.model.actions.running.clone().unwrap();
    for (i, s) in run.steps.iter().enumerate() {
        match i.cmp(&bad) {
            std::cmp::Ordering::Less => assert!(matches!(s, StepStatus::Done(_)), "{i}: {s:?}"),
            std::cmp::Ordering::Equal => assert!(matches!(s, StepStatus::Failed(_)), "{s:?}"),
            std::cmp::Ordering::Greater => {
                assert!(matches!(s, StepStatus::NotSent(_)), "{i}: {s:?}")
            }
        }
    }
    assert_eq!(
        h.changes().len(),
        bad + 1,
        "nothing deleted after the failure"
    );
    let audit = h.audit();
    assert_eq!(audit.len(), 2 * (bad + 1));
    let last = audit.last().unwrap();
    assert_eq!(last.outcome, AuditOutcome::Timeout);
    assert!(last.message.as_deref().unwrap().contains("not Ready"));
}

/// Replaces the pod with one of the same name and a new uid, as if the
/// DaemonSet had recreated it since the screen was drawn.
fn recreate_same_name(h: &Harness, pod: &Value) {
    let name = str_at(pod, "/metadata/name").to_string();
    h.world
        .mosk()
        .delete(
            "pods",
            Some("tf"),
            &name,
            &json!({"gracePeriodSeconds": 0}),
            false,
        )
        .unwrap();
    let mut again = pod.clone();
    for f in [
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ] {
        again["metadata"].as_object_mut().unwrap().remove(f);
    }
    h.world.mosk().create("pods", again).unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_stale_pod_uid_is_refused_with_409_and_explained() {
    let mut h = updated_world("");
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    let old = h.pod_on(&node);
    h.select(&[&node]);
    h.press('R'); // the dialog holds the plan with the uid on screen
    recreate_same_name(&h, &old);
    let now = h.pod_on(&node);
    assert_eq!(now["metadata"]["name"], old["metadata"]["name"]);
    assert_ne!(now["metadata"]["uid"], old["metadata"]["uid"]);
    h.press('y');
    let outcome = h.run_to_end(false).await;
    let RunOutcome::Failed { message } = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        message.contains("the pod was already replaced (uid changed): refresh and retry"),
        "{message}"
    );
    // Sent once, not retried; the new pod is untouched.
    assert_eq!(h.changes().len(), 1);
    let after = h.pod_on(&node);
    assert_eq!(after["metadata"]["uid"], now["metadata"]["uid"]);
    assert!(after.pointer("/metadata/deletionTimestamp").is_none());
    assert_eq!(h.audit().last().unwrap().outcome, AuditOutcome::Conflict);
}

#[tokio::test(start_paused = true)]
async fn a_pod_gone_since_the_screen_was_drawn_is_a_404_explained() {
    let mut h = updated_world("");
    h.tick_and_settle().await;
    let node = h.computes()[2].clone();
    let old = h.pod_on(&node);
    h.select(&[&node]);
    h.press('R');
    h.world
        .mosk()
        .delete(
            "pods",
            Some("tf"),
            str_at(&old, "/metadata/name"),
            &json!({"gracePeriodSeconds": 0}),
            false,
        )
        .unwrap();
    h.press('y');
    let outcome = h.run_to_end(false).await;
    let RunOutcome::Failed { message } = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        message.contains("no longer exists") && message.contains("refresh and retry"),
        "{message}"
    );
    assert_eq!(h.changes().len(), 1);
    assert_eq!(h.audit().last().unwrap().outcome, AuditOutcome::NotFound);
}

#[tokio::test(start_paused = true)]
async fn cancel_between_pods_sends_no_further_delete() {
    let mut h = updated_world("");
    h.tick_and_settle().await;
    h.key(KeyCode::Char('r'), KeyModifiers::CONTROL);
    h.press('y');
    // Cancel while the first pod's replacement is awaited: it finishes, the rest are not sent.
    h.pump_until(true, |m| {
        matches!(
            m.actions.running.as_ref().unwrap().steps[0],
            StepStatus::Waiting(_)
        )
    })
    .await;
    h.key(KeyCode::Esc, KeyModifiers::NONE);
    let outcome = h.run_to_end(true).await;
    assert_eq!(outcome, RunOutcome::Cancelled { done: 1 });
    assert_eq!(h.changes().len(), 1);
    let run = h.model.actions.running.clone().unwrap();
    assert!(matches!(run.steps[0], StepStatus::Done(_)));
    assert!(
        run.steps[1..]
            .iter()
            .all(|s| matches!(s, StepStatus::NotSent(_)))
    );
}

/// The vRouter items of the attention queue the console builds from what
/// the simulator serves.
fn vrouter_items(h: &Harness) -> Vec<(AttentionKind, String)> {
    attention(&h.model.snapshot, &h.model.history, h.model.now)
        .into_iter()
        .filter(|i| {
            matches!(
                i.kind,
                AttentionKind::VrouterOutdated | AttentionKind::VrouterStillOutdated
            )
        })
        .map(|i| (i.kind, i.why))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_restart_prompt_follows_the_target_release() {
    // MOSK 22.2: the pods stay outdated after the update and the console asks
    // the operator to restart them.
    let mut h = updated_world("");
    h.tick_and_settle().await;
    let items = vrouter_items(&h);
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0].0, AttentionKind::VrouterOutdated);
    assert!(
        items[0]
            .1
            .contains("3 vRouter pod(s) run the old template (UP-TO-DATE 0 of CURRENT 3); MOSK 22.2 restarts vRouter pods by hand"),
        "{}",
        items[0].1
    );

    // MOSK 25.1 (the default target): the TF operator replaces them itself
    // (the simulated finalization waits for it) and the console never asks,
    // at no point of the update.
    let world = custom_world(
        "[[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 3\ninstances = 0\n",
    );
    let mut h = Harness::new(world, Options::default());
    let mut asked = Vec::new();
    let t0 = h.world.now();
    loop {
        h.world.step(SignedDuration::from_secs(30));
        h.tick_and_settle().await;
        asked.extend(vrouter_items(&h));
        let d = ds(&h);
        if h.world.phase() == UpdatePhase::Done
            && d["metadata"]["generation"] == 2
            && d["status"]["updatedNumberScheduled"] == d["status"]["currentNumberScheduled"]
        {
            break;
        }
        assert!(h.world.now().duration_since(t0) < 2 * HOUR, "never done");
    }
    assert_eq!(asked, vec![], "no restart prompt on a 25.1 target");
}

/// The whole screen at 160x48, as the operator sees it.
fn screen(h: &Harness) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    let theme = mosk_console::config::theme::Theme::load("mono").unwrap();
    t.draw(|f| mosk_console::ui::draw(f, &h.model, &theme))
        .unwrap();
    format!("{}", t.backend())
}

#[tokio::test(start_paused = true)]
async fn a_second_restart_is_refused_while_the_first_pod_is_not_ready() {
    // The first restart's replacement never becomes Ready.
    let mut h =
        updated_world("[[overrides]]\nrole = \"compute\"\nindex = 0\nvrouter_never_ready = true\n");
    h.tick_and_settle().await;
    let nodes = h.computes();
    h.select(&[&nodes[0]]);
    h.press('R');
    h.press('y');
    let outcome = h.run_to_end(true).await;
    assert!(matches!(outcome, RunOutcome::Failed { .. }), "{outcome:?}");
    h.close();
    h.refresh();
    let down = h.pod_on(&nodes[0]);
    assert!(!is_ready(&down));
    let next = h.pod_on(&nodes[1]);

    h.select(&[&nodes[1]]);
    h.press('R');
    assert!(
        h.model.modals.dialog().is_none(),
        "no dialog to confirm: {:?}",
        h.model.modals.dialog()
    );
    let why = format!(
        "refused: {} on {} is not Ready",
        str_at(&down, "/metadata/name"),
        nodes[0]
    );
    let notice = h.model.notice().as_ref().unwrap().text.clone();
    assert!(
        notice.contains(&why) && notice.contains("two vRouters down at once"),
        "{notice}"
    );
    assert!(screen(&h).contains(&why), "{}", screen(&h));
    // Restart-all is refused the same way.
    h.key(KeyCode::Char('r'), KeyModifiers::CONTROL);
    assert!(h.model.modals.dialog().is_none());
    assert!(h.notice_text().contains(&why));

    // The simulator received the first DELETE only; the second pod runs on.
    let changes = h.changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].method, "DELETE");
    assert_eq!(
        h.pod_on(&nodes[1])["metadata"]["uid"],
        next["metadata"]["uid"]
    );
    // The audit log holds the first restart only: nothing was attempted.
    let audit = h.audit();
    assert_eq!(audit.len(), 2, "{audit:?}");
    assert!(
        audit
            .iter()
            .all(|r| r.name != str_at(&next, "/metadata/name"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_restart_is_refused_while_another_vrouter_pod_is_terminating() {
    let mut h = updated_world("");
    h.tick_and_settle().await;
    let nodes = h.computes();
    // Someone else deleted the third node's pod: it is Terminating (its
    // grace period has not run out).
    let going = h.pod_on(&nodes[2]);
    h.world
        .mosk()
        .delete(
            "pods",
            Some("tf"),
            str_at(&going, "/metadata/name"),
            &Value::Null,
            false,
        )
        .unwrap();
    h.refresh();
    h.select(&[&nodes[0]]);
    h.press('R');
    assert!(h.model.modals.dialog().is_none());
    let why = format!(
        "refused: {} on {} is Terminating",
        str_at(&going, "/metadata/name"),
        nodes[2]
    );
    assert!(screen(&h).contains(&why), "{}", screen(&h));
    assert_eq!(h.changes(), vec![]);
    assert_eq!(h.audit().len(), 0);
}

#[tokio::test(start_paused = true)]
async fn the_executor_asks_again_before_each_delete_and_stops_the_run() {
    // Two pods to restart; while the first one's replacement is awaited,
    // the third node's vRouter goes down (deleted by someone else, its
    // replacement never Ready).
    let mut h =
        updated_world("[[overrides]]\nrole = \"compute\"\nindex = 2\nvrouter_never_ready = true\n");
    h.tick_and_settle().await;
    let nodes = h.computes();
    let third = h.pod_on(&nodes[2]);
    h.select(&[&nodes[0], &nodes[1]]);
    h.press('R');
    h.press('y');
    // The run goes by node name: its first and second pod.
    let plan = h.model.actions.running.clone().unwrap().plan;
    let first = h.pod_on(&plan.steps[0].node);
    let second = h.pod_on(&plan.steps[1].node);
    h.pump_until(true, |m| {
        matches!(
            m.actions.running.as_ref().unwrap().steps[0],
            StepStatus::Waiting(_)
        )
    })
    .await;
    h.world
        .mosk()
        .delete(
            "pods",
            Some("tf"),
            str_at(&third, "/metadata/name"),
            &Value::Null,
            false,
        )
        .unwrap();
    let outcome = h.run_to_end(true).await;
    let RunOutcome::Failed { message } = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        message.contains(&format!(" on {}", nodes[2]))
            && message.contains("two vRouters down at once"),
        "{message}"
    );
    let run = h.model.actions.running.clone().unwrap();
    assert!(
        matches!(run.steps[0], StepStatus::Done(_)),
        "{:?}",
        run.steps
    );
    assert!(
        matches!(run.steps[1], StepStatus::Failed(_)),
        "{:?}",
        run.steps
    );
    // One DELETE reached the server: the first pod's.
    let changes = h.changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(
        changes[0].path,
        format!(
            "/api/v1/namespaces/tf/pods/{}",
            str_at(&first, "/metadata/name")
        )
    );
    assert_eq!(
        h.pod_on(&plan.steps[1].node)["metadata"]["uid"],
        second["metadata"]["uid"]
    );
    // The audit log says why the second was not sent.
    let audit = h.audit();
    let phases: Vec<AuditPhase> = audit.iter().map(|r| r.phase).collect();
    assert_eq!(phases, [AuditPhase::Intent, AuditPhase::Result].repeat(2));
    assert_eq!(audit[1].outcome, AuditOutcome::Succeeded);
    let last = &audit[3];
    assert_eq!(last.name, str_at(&second, "/metadata/name"));
    assert_eq!(last.outcome, AuditOutcome::Refused);
    let m = last.message.as_deref().unwrap();
    assert!(
        m.starts_with("not sent: ") && m.contains(&format!(" on {}", nodes[2])),
        "{m}"
    );
}

/// A 22.2 world whose vRouter DaemonSet spec is edited outside its template
/// a minute in, before the TF update gives it a new template.
const SPEC_EDIT: &str = "vrouter_spec_edit_after = \"1m\"\n";

#[tokio::test(start_paused = true)]
async fn after_a_spec_edit_outside_the_template_a_restart_completes() {
    let mut h = updated_world_with(SPEC_EDIT, "");
    h.tick_and_settle().await;
    let d = ds(&h);
    assert_eq!(d["metadata"]["generation"], 3, "edit + new template");
    assert_eq!(
        d["metadata"]["annotations"]["deprecated.daemonset.template.generation"],
        "2"
    );
    let node = h.computes()[0].clone();
    h.select(&[&node]);
    h.press('R');
    h.press('y');
    // The replacement carries template generation 2; the run does not wait
    // for a generation-3 label no pod ever gets.
    assert_eq!(
        h.run_to_end(true).await,
        RunOutcome::Completed { dry_run: false }
    );
    assert_eq!(generation_label(&h.pod_on(&node)), "2");
    h.close();
    h.refresh();
    let ds = &mosk_console::domain::vrouter::daemonsets(&h.model.snapshot)[0];
    let on_node: Vec<_> = ds
        .pods
        .iter()
        .filter(|p| p.node.as_deref() == Some(node.as_str()))
        .collect();
    assert_eq!(on_node.len(), 1);
    assert_eq!(on_node[0].outdated, Some(false));
    assert_eq!(ds.outdated_count(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_spec_edit_outside_the_template_shows_no_outdated_pod() {
    // MOSK 25.1: the TF operator replaces every pod itself; the DaemonSet's
    // generation (3) then stays ahead of its template generation (2).
    let world = custom_world(&format!(
        "{SPEC_EDIT}[[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 3\ninstances = 0\n"
    ));
    let mut h = Harness::new(world, Options::default());
    assert!(h.world.step_until(2 * HOUR, |w| {
        let d = w
            .mosk()
            .get("daemonsets", Some("tf"), "tf-vrouter-agent")
            .unwrap();
        w.phase() == UpdatePhase::Done
            && d["status"]["updatedNumberScheduled"] == d["status"]["currentNumberScheduled"]
            && d["metadata"]["generation"] == 3
    }));
    // Past the automatic restart's grace, when a still-outdated pod is flagged.
    h.world.step(HOUR);
    h.tick_and_settle().await;
    let d = ds(&h);
    assert_eq!(d["status"]["observedGeneration"], 3);
    assert_eq!(
        d["metadata"]["annotations"]["deprecated.daemonset.template.generation"],
        "2"
    );
    assert!(
        h.vrouter_pods().iter().all(|p| generation_label(p) == "2"),
        "every pod from template generation 2"
    );
    assert_eq!(vrouter_items(&h), vec![], "no vRouter attention item");
    let ds = &mosk_console::domain::vrouter::daemonsets(&h.model.snapshot)[0];
    assert!(ds.up_to_date() && ds.outdated_count() == 0, "{ds:?}");
    // The vRouter view: every pod up to date, the verdict says done.
    h.model.view = mosk_console::app::model::View::Vrouter;
    h.apply(mosk_console::app::msg::Msg::Resize {
        width: 160,
        height: 48,
    });
    let s = screen(&h);
    assert!(
        s.contains("done: every pod runs the current template"),
        "{s}"
    );
    // No restart is offered.
    h.key(KeyCode::Char('r'), KeyModifiers::CONTROL);
    assert!(h.model.modals.dialog().is_none());
    assert!(h.notice_text().contains("no outdated vRouter pod"));
    assert_eq!(h.changes(), vec![]);
}
