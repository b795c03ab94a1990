//! Acting from where the operator looks: `a` and `R` on the Overview act on
//! the attention item under the cursor, through the one action path
//! (confirmation, audit), and only on an item that offers the action.

use jiff::SignedDuration;
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::domain::action::ActionId;
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::domain::attention::{AttentionItem, AttentionKind};
use mosk_console::domain::objects::Kind;
use mosk_console::sim::scenario::UpdatePhase;
use mosk_console::sim::world::SimWorld;

use super::harness::*;

/// Every watch delivers its first list (what the harness's snapshot holds),
/// as the watchers do: until then the Overview shows no attention item.
fn lists_in(h: &mut Harness) {
    for kind in Kind::ALL {
        let objects: Vec<_> = h
            .model
            .snapshot
            .objects()
            .values()
            .filter(|o| o.key().kind == kind)
            .cloned()
            .collect();
        update(
            &mut h.model,
            Msg::Cluster(ClusterEvent::Resynced { kind, objects }),
        );
    }
}

/// The attention queue the Overview shows.
fn queue(m: &Model) -> Vec<AttentionItem> {
    m.derived.attention.clone()
}

/// Moves the Overview's cursor (with `j`, as the operator does) to the
/// first item of `kind`; returns it.
fn cursor_to(h: &mut Harness, kind: AttentionKind) -> AttentionItem {
    assert_eq!(h.model.view, View::Overview);
    let items = queue(&h.model);
    let at = items
        .iter()
        .position(|i| i.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} item in {items:#?}"));
    h.press('g');
    for _ in 0..at {
        h.press('j');
    }
    items[at].clone()
}

fn manual_world() -> SimWorld {
    custom_world(
        "worker_concurrency = 3\nvrouter_manual_restart = true\nrelease = { from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 3\ninstances = 1\nmigration_mode = \"manual\"\n",
    )
}

#[tokio::test(start_paused = true)]
async fn a_on_the_overview_acknowledges_the_node_of_the_item_under_the_cursor() {
    let world = manual_world();
    let waiting = world.step_until(SignedDuration::from_secs(4 * 3600), |w| {
        w.mosk()
            .list("nodeworkloadlocks", None)
            .iter()
            .filter(|l| {
                str_at(l, "/spec/controllerName") == "openstack"
                    && str_at(l, "/status/errorMessage").contains("Some servers are still present")
            })
            .count()
            == 3
    });
    assert!(waiting, "all three computes wait for the operator");
    let mut h = Harness::new(world, Options::default());
    h.tick_and_settle().await;
    lists_in(&mut h);
    let nodes = h.computes();

    // The cursor starts on the first item; move it to the second manual
    // migration item, so the first one is not what `a` acts on.
    let manual: Vec<AttentionItem> = queue(&h.model)
        .into_iter()
        .filter(|i| i.kind == AttentionKind::ManualMigration)
        .collect();
    assert_eq!(manual.len(), 3, "{manual:#?}");
    let target = manual[1].clone();
    let node = target.node.clone().expect("the item names its node");
    let at = queue(&h.model).iter().position(|i| *i == target).unwrap();
    h.press('g');
    for _ in 0..at {
        h.press('j');
    }
    h.press('a');
    assert!(
        h.model.modals.dialog().is_some(),
        "a opens the confirmation: {:?}",
        h.model.notice()
    );
    assert!(
        h.changes().is_empty(),
        "nothing is changed before confirmation"
    );
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );

    // The server received one change: the node of the item under the cursor.
    let changes = h.changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].method, "PATCH");
    assert_eq!(changes[0].path, format!("/api/v1/nodes/{node}"));
    assert_eq!(changes[0].intents_on_disk, 1);
    for n in &nodes {
        let want = if *n == node { "skip" } else { "manual" };
        assert_eq!(h.annotation(n, MODE).as_deref(), Some(want), "{n}");
    }
    let audit = h.audit();
    assert_eq!(audit.len(), 2, "{audit:#?}");
    for r in &audit {
        assert_eq!(r.action, ActionId::AcknowledgeMigration.name());
        assert_eq!(r.name, node);
    }
}

#[tokio::test(start_paused = true)]
async fn a_on_an_item_that_offers_no_acknowledge_sends_nothing() {
    let world = manual_world();
    assert!(world.step_until(SignedDuration::from_secs(4 * 3600), |w| {
        w.mosk()
            .list("nodeworkloadlocks", None)
            .iter()
            .any(|l| str_at(l, "/status/errorMessage").contains("Some servers are still present"))
    }));
    let mut h = Harness::new(world, Options::default());
    h.tick_and_settle().await;
    lists_in(&mut h);
    let other = queue(&h.model)
        .into_iter()
        .position(|i| i.action != Some(ActionId::AcknowledgeMigration));
    let Some(at) = other else {
        panic!("every item offers acknowledge: {:#?}", queue(&h.model));
    };
    h.press('g');
    for _ in 0..at {
        h.press('j');
    }
    h.press('a');
    assert!(h.model.modals.dialog().is_none());
    let notice = h.model.notice().clone().expect("a notice says why").text;
    assert!(
        notice.contains("does not apply to the item under the cursor"),
        "{notice}"
    );
    assert!(h.changes().is_empty(), "{:?}", h.changes());
    assert!(h.audit().is_empty());
}

#[tokio::test(start_paused = true)]
async fn capital_r_on_the_overview_restarts_the_outdated_pods_of_the_item() {
    // MOSK 22.2: vRouter pods are restarted by hand after the update.
    let world = custom_world(
        "vrouter_manual_restart = true\nrelease = { from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 3\ninstances = 0\n",
    );
    assert!(
        world.step_until(SignedDuration::from_secs(2 * 3600), |w| w.phase()
            == UpdatePhase::Done)
    );
    let mut h = Harness::new(world, Options::default());
    h.tick_and_settle().await;
    lists_in(&mut h);
    let before: Vec<String> = h
        .vrouter_pods()
        .iter()
        .map(|p| str_at(p, "/metadata/name").to_string())
        .collect();
    assert_eq!(before.len(), 3);

    let item = cursor_to(&mut h, AttentionKind::VrouterOutdated);
    assert!(item.node.is_none(), "the item is about the DaemonSet");
    h.press('R');
    assert!(h.model.modals.dialog().is_some(), "{:?}", h.model.notice());
    h.press('y');
    assert_eq!(
        h.run_to_end(true).await,
        RunOutcome::Completed { dry_run: false }
    );
    // Every outdated pod of the item's DaemonSet, one DELETE each, each
    // after its intent was on disk.
    let deletes = h.changes();
    assert_eq!(deletes.len(), 3, "{deletes:?}");
    let mut deleted: Vec<String> = deletes
        .iter()
        .map(|d| {
            assert_eq!(d.method, "DELETE");
            d.path.rsplit('/').next().unwrap().to_string()
        })
        .collect();
    deleted.sort();
    let mut want = before.clone();
    want.sort();
    assert_eq!(deleted, want);
    for (i, d) in deletes.iter().enumerate() {
        assert_eq!(d.intents_on_disk, i + 1);
    }
    assert!(
        h.audit()
            .iter()
            .all(|r| r.action == ActionId::RestartVrouter.name())
    );
}

/// The whole screen at 200x50, as drawn.
fn screen(h: &mut Harness) -> String {
    update(
        &mut h.model,
        Msg::Resize {
            width: 200,
            height: 50,
        },
    );
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 50)).unwrap();
    let theme = mosk_console::config::theme::Theme::load("mono").unwrap();
    t.draw(|f| mosk_console::ui::draw(f, &h.model, &theme))
        .unwrap();
    format!("{}", t.backend())
}

/// The manual-migration world once a compute waits for the operator.
fn waiting_world() -> SimWorld {
    let world = manual_world();
    assert!(world.step_until(SignedDuration::from_secs(4 * 3600), |w| {
        w.mosk()
            .list("nodeworkloadlocks", None)
            .iter()
            .any(|l| str_at(l, "/status/errorMessage").contains("Some servers are still present"))
    }));
    world
}

#[tokio::test(start_paused = true)]
async fn an_action_the_access_review_denied_is_not_offered_on_the_item() {
    let allowed_screen = {
        let mut h = Harness::new(waiting_world(), Options::default());
        h.tick_and_settle().await;
        lists_in(&mut h);
        screen(&mut h)
    };
    assert!(
        allowed_screen.contains("a: acknowledge migration"),
        "{allowed_screen}"
    );

    let mut h = Harness::new(
        waiting_world(),
        Options {
            deny: vec![deny("patch", "nodes", None)],
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    lists_in(&mut h);
    let s = screen(&mut h);
    assert!(s.contains("manual migration"), "the item is there: {s}");
    assert!(!s.contains("a: acknowledge migration"), "{s}");
    // The key still answers, with the server's reason.
    cursor_to(&mut h, AttentionKind::ManualMigration);
    h.press('a');
    assert!(h.model.modals.dialog().is_none());
    let notice = format!("{:?}", h.model.notice());
    assert!(notice.contains("does not allow"), "{notice}");
    assert!(h.changes().is_empty());
}
