//! Read-only, dry-run and RBAC: what reaches the server and what does not.

use crossterm::event::{KeyCode, KeyModifiers};
use jiff::SignedDuration;
use mosk_console::app::actions::access::Availability;
use mosk_console::app::actions::availability;
use mosk_console::app::actions::plan::{self, PlanContext};
use mosk_console::app::msg::Command;
use mosk_console::audit::{AuditOutcome, AuditPhase};
use mosk_console::cluster::writes::WriteMode;
use mosk_console::console::runtime::Effects;
use mosk_console::domain::action::ActionId;
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::domain::objects::MigrationMode;
use mosk_console::sim::scenario::UpdatePhase;

use super::harness::*;

fn vrouter_world() -> mosk_console::sim::world::SimWorld {
    let w = custom_world(
        "vrouter_manual_restart = true\nrelease = { from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\ninstances = 0\n",
    );
    assert!(w.step_until(SignedDuration::from_secs(7200), |w| w.phase()
        == UpdatePhase::Done));
    w
}

#[tokio::test(start_paused = true)]
async fn read_only_sends_zero_write_requests() {
    let mut h = Harness::new(
        vrouter_world(),
        Options {
            mode: WriteMode::ReadOnly,
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let nodes = h.computes();
    h.select(&[&nodes[0]]);
    for c in ['m', 'a', 'R'] {
        h.press(c);
        assert!(h.model.modals.dialog().is_none());
    }
    h.key(KeyCode::Char('r'), KeyModifiers::CONTROL);
    assert!(h.model.modals.dialog().is_none());
    assert!(matches!(
        availability(&h.model, ActionId::RestartVrouter),
        Availability::Unavailable(r) if r.contains("read-only")
    ));
    // Even a plan handed straight to the executor is not sent.
    let ctx = PlanContext {
        mosk_context: "sim-mosk".into(),
        dry_run: false,
    };
    let mut set = plan::plan_set_mode(
        &h.model.snapshot,
        &ctx,
        &nodes,
        &MigrationMode::Skip,
        Some(2),
    )
    .unwrap();
    set.id = 101;
    let mut restart = plan::plan_restart_all(&h.model.snapshot, &ctx).unwrap();
    restart.id = 102;
    h.model.actions.running = Some(mosk_console::app::actions::dialog::RunningAction::new(
        set.clone(),
    ));
    h.exec.run(Command::Execute(set));
    assert!(
        matches!(h.run_to_end(false).await, RunOutcome::Refused { message } if message.contains("read-only"))
    );
    h.model.actions.running = Some(mosk_console::app::actions::dialog::RunningAction::new(
        restart.clone(),
    ));
    h.exec.run(Command::Execute(restart));
    assert!(matches!(
        h.run_to_end(false).await,
        RunOutcome::Refused { .. }
    ));
    h.exec.run(Command::CheckAccess(
        mosk_console::app::actions::access::all_keys("child-ns"),
    ));
    for _ in 0..2 {
        h.next_msg().await;
    }
    assert_eq!(
        h.writes(),
        vec![],
        "no POST, PATCH, PUT or DELETE left the process"
    );
    assert!(h.audit().is_empty());
    assert_eq!(h.annotation(&nodes[0], MODE), None);
}

#[tokio::test(start_paused = true)]
async fn dry_run_sends_dry_run_all_and_changes_nothing() {
    let mut h = Harness::new(
        vrouter_world(),
        Options {
            mode: WriteMode::DryRun,
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let nodes = h.computes();
    let pod_before = h.pod_on(&nodes[0]);
    let rv_before = h.world.mosk().resource_version();

    h.select(&[&nodes[0], &nodes[1]]);
    h.press('m');
    h.press('j');
    h.press('j'); // skip
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    let screen = render(&h);
    assert!(
        screen.contains("DRY-RUN") && screen.contains("dryRun=All"),
        "{screen}"
    );
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: true }
    );
    h.close();

    h.select(&[&nodes[0]]);
    h.press('R');
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: true }
    );
    let screen = render(&h);
    assert!(screen.contains("nothing changed"), "{screen}");

    let changes = h.changes();
    assert_eq!(changes.len(), 3, "{changes:?}");
    for c in &changes {
        assert!(
            c.query.split('&').any(|p| p == "dryRun=All"),
            "{} {} without dryRun=All: {:?}",
            c.method,
            c.path,
            c.query
        );
    }
    assert_eq!(changes.iter().filter(|c| c.method == "PATCH").count(), 2);
    assert_eq!(changes.iter().filter(|c| c.method == "DELETE").count(), 1);
    // Nothing changed on the server.
    assert_eq!(h.world.mosk().resource_version(), rv_before);
    for n in &nodes {
        assert_eq!(h.annotation(n, MODE), None);
    }
    let pod_after = h.pod_on(&nodes[0]);
    assert_eq!(pod_after["metadata"]["uid"], pod_before["metadata"]["uid"]);
    assert!(pod_after.pointer("/metadata/deletionTimestamp").is_none());
    let audit = h.audit();
    assert_eq!(audit.len(), 6);
    assert!(audit.iter().all(|r| r.dry_run));
    assert!(
        audit
            .iter()
            .filter(|r| r.phase == AuditPhase::Result)
            .all(|r| r.outcome == AuditOutcome::Succeeded)
    );
}

fn render(h: &Harness) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    let theme = mosk_console::config::theme::Theme::load("mono").unwrap();
    t.draw(|f| mosk_console::ui::dialogs::draw(f, f.area(), &h.model, &theme))
        .unwrap();
    format!("{}", t.backend())
}

#[tokio::test(start_paused = true)]
async fn a_forbidden_action_is_shown_unavailable_and_never_sent() {
    let mut h = Harness::new(
        vrouter_world(),
        Options {
            deny: vec![deny("delete", "pods", Some("tf"))],
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    match availability(&h.model, ActionId::RestartVrouter) {
        Availability::Unavailable(r) => assert!(
            r.contains("your RBAC does not allow delete pods in tf"),
            "{r}"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        availability(&h.model, ActionId::SetMigrationMode),
        Availability::Available
    );
    let nodes = h.computes();
    h.select(&[&nodes[0]]);
    h.press('R');
    assert!(h.model.modals.dialog().is_none());
    let notice = h.model.notice().clone().unwrap().text;
    assert!(
        notice.contains("unavailable") && notice.contains("does not allow delete pods in tf"),
        "{notice}"
    );
    // A plan handed straight to the executor is refused before any delete.
    let ctx = PlanContext {
        mosk_context: "sim-mosk".into(),
        dry_run: false,
    };
    let mut p = plan::plan_restart_all(&h.model.snapshot, &ctx).unwrap();
    p.id = 77;
    h.model.actions.running = Some(mosk_console::app::actions::dialog::RunningAction::new(
        p.clone(),
    ));
    h.exec.run(Command::Execute(p));
    let outcome = h.run_to_end(false).await;
    assert!(
        matches!(&outcome, RunOutcome::Refused { message } if message.contains("does not allow delete pods in tf")),
        "{outcome:?}"
    );
    assert!(h.changes().is_empty(), "{:?}", h.changes());
    assert!(h.audit().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_403_at_execution_shows_the_servers_message() {
    let mut h = Harness::new(
        vrouter_world(),
        Options {
            deny_at_execution_only: vec![deny("patch", "nodes", None)],
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    h.select(&[&node]);
    h.press('m');
    h.press('j');
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    h.press('y');
    let outcome = h.run_to_end(false).await;
    let RunOutcome::Failed { message } = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        message.contains(&format!(
            "nodes \"{node}\" is forbidden: User \"operator-jane\" cannot patch resource \"nodes\""
        )),
        "{message}"
    );
    assert_eq!(h.changes().len(), 1, "sent once, not retried");
    assert_eq!(h.audit().last().unwrap().outcome, AuditOutcome::Forbidden);
    assert_eq!(h.annotation(&node, MODE), None);
}
