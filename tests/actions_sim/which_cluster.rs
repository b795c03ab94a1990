//! Which cluster the console follows, against the simulator over HTTP
//! (kube-rs on the simulator's routers, in-process): the LCMClusters the
//! management context can see, the cluster picker and the watches it
//! starts, the errors (none, a wrong name, a refused list), and a MOSK
//! context of another cluster refusing every write.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kube::Client;
use mosk_console::app::model::{Model, SessionInfo};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::audit::{AuditOutcome, AuditPhase};
use mosk_console::cluster::Clusters;
use mosk_console::cluster::which::which_cluster;
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;
use mosk_console::console::effects::ConsoleEffects;
use mosk_console::console::runtime::Effects;
use mosk_console::console::{ClusterLayer, ConsoleOptions, initial_model};
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::domain::which_cluster::{Choice, ClusterRef, MoskContextCheck, Wanted};
use mosk_console::sim::rbac::{Rbac, RbacRule};
use mosk_console::sim::scenario::load::parse_scenario;
use mosk_console::sim::world::{SimCluster, SimWorld};
use tokio_util::sync::CancellationToken;

use super::harness::*;

const QUICK: &str = include_str!("../../assets/scenarios/quick.toml");

/// The `quick` cluster and two others the scenario does not play, in
/// namespaces sorted around its own (`other_clusters`).
fn several_clusters() -> SimWorld {
    let text = format!(
        "{QUICK}\n\
         [[other_clusters]]\nnamespace = \"alpha-ns\"\nname = \"alpha-cl\"\n\n\
         [[other_clusters]]\nnamespace = \"prod-ns\"\nname = \"prod-cl\"\nmachines = 5\n"
    );
    SimWorld::new(parse_scenario(&text, "several.toml").unwrap(), 7)
}

fn sorted_clusters() -> Vec<ClusterRef> {
    vec![
        ClusterRef::new("alpha-ns", "alpha-cl"),
        ClusterRef::new("child-ns", "child-cl"),
        ClusterRef::new("prod-ns", "prod-cl"),
    ]
}

/// The paths the management API server was asked for.
type Paths = Arc<Mutex<Vec<String>>>;

fn recording(router: axum::Router, paths: Paths) -> axum::Router {
    router.layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| {
            paths.lock().unwrap().push(req.uri().path().to_string());
            next.run(req)
        },
    ))
}

/// Both clusters of `world` as the console connects to them.
pub(super) fn clusters_of(world: &SimWorld) -> (Clusters, Paths) {
    let paths = Paths::default();
    let clusters = Clusters {
        mgmt: Client::new(recording(world.mgmt_router(), paths.clone()), "default"),
        mosk: Client::new(world.mosk_router(), "default"),
        mgmt_context: "sim-mgmt".into(),
        mosk_context: "sim-mosk".into(),
        mgmt_user: "u".into(),
        mosk_user: "u".into(),
        mgmt_server: "in-process".into(),
        mosk_server: "in-process".into(),
        clock: mosk_console::cluster::clock::ClockSync::new(),
        mgmt_transport: Default::default(),
        mosk_transport: Default::default(),
    };
    (clusters, paths)
}

fn wanted(namespace: Option<&str>, name: Option<&str>) -> Wanted {
    Wanted {
        namespace: namespace.map(str::to_string),
        name: name.map(str::to_string),
    }
}

use crate::harness::screen_of as screen;

#[tokio::test(start_paused = true)]
async fn several_clusters_open_the_picker_and_the_console_follows_the_one_chosen() {
    let world = several_clusters();
    let (clusters, mgmt_paths) = clusters_of(&world);
    let choice = which_cluster(&clusters.mgmt, "sim-mgmt", &Wanted::default())
        .await
        .unwrap();
    assert_eq!(choice, Choice::Pick(sorted_clusters()));
    let Choice::Pick(pick) = choice else {
        unreachable!()
    };

    let dir = tempfile::tempdir().unwrap();
    let opts = ConsoleOptions {
        session: SessionInfo {
            mgmt_context: "sim-mgmt".into(),
            mosk_context: "sim-mosk".into(),
            namespace: String::new(),
            cluster_name: String::new(),
            ..SessionInfo::default()
        },
        theme: Theme::default_theme(),
        keymap: Keymap::default_keymap(),
        audit_log: Some(dir.path().join("audit.jsonl")),
        now: Arc::new(jiff::Timestamp::now),
        resync_every: Duration::from_secs(300),
        expected: Default::default(),
        max_objects: mosk_console::cluster::watch::DEFAULT_MAX_OBJECTS,
        pick,
    };
    let cancel = CancellationToken::new();
    let (mut layer, mut events) = ClusterLayer::start(&clusters, &opts, cancel.clone());
    let mut model = initial_model(&opts);
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let mut effects = ConsoleEffects::new(&clusters, &opts, tx);
    effects.set_follow(Box::new(move |c| layer.follow(c)));

    let text = screen(&model, 100, 30);
    assert!(
        text.contains("Which MOSK cluster?")
            && text.contains("> alpha-ns/alpha-cl")
            && text.contains("  child-ns/child-cl")
            && text.contains("  prod-ns/prod-cl"),
        "{text}"
    );
    // Nothing of a project namespace is read before the choice (only
    // lcm-controller's log, in `kaas`).
    tokio::task::yield_now().await;
    assert!(
        !mgmt_paths
            .lock()
            .unwrap()
            .iter()
            .any(|p| p.contains("/namespaces/") && !p.contains("/namespaces/kaas/")),
        "{:?}",
        mgmt_paths.lock().unwrap()
    );

    let key = |model: &mut Model, code: KeyCode| {
        let theme = Theme::default_theme();
        update(
            model,
            Msg::Drawn(mosk_console::ui::report_at(model, &theme, 100, 30)),
        );
        update(model, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
    };
    assert!(key(&mut model, KeyCode::Char('j')).is_empty());
    for command in key(&mut model, KeyCode::Enter) {
        effects.run(command);
    }
    assert!(model.modals.cluster_picker().is_none());
    // The watches of the chosen cluster, until every list is in.
    until_listed(&mut model, &mut events).await;
    cancel.cancel();

    assert_eq!(
        (
            model.session.namespace.as_str(),
            model.session.cluster_name.as_str()
        ),
        ("child-ns", "child-cl")
    );
    let machines: Vec<_> = model.snapshot.machines().collect();
    assert_eq!(machines.len(), 7);
    assert!(
        machines
            .iter()
            .all(|m| m.cluster_name == "child-cl" && m.namespace == "child-ns")
    );
    let lcm: Vec<_> = model
        .snapshot
        .lcm_clusters()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(lcm, ["child-cl"]);
    assert_eq!(model.derived.mosk_context, MoskContextCheck::Matches);
    assert!(model.derived.phase.is_some());
    // Requests reached the chosen namespace only.
    let paths = mgmt_paths.lock().unwrap().clone();
    assert!(
        paths
            .iter()
            .any(|p| p.ends_with("/namespaces/child-ns/lcmmachines")),
        "{paths:?}"
    );
    assert!(
        !paths
            .iter()
            .any(|p| p.contains("/namespaces/alpha-ns/") || p.contains("/namespaces/prod-ns/")),
        "{paths:?}"
    );
    let text = screen(&model, 120, 40);
    assert!(
        text.contains("child-ns/child-cl") && text.contains("release mosk-17-3-4-24-3-4"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn without_a_name_the_only_cluster_is_followed_at_once() {
    let world = quick_world();
    let (clusters, _) = clusters_of(&world);
    assert_eq!(
        which_cluster(&clusters.mgmt, "sim-mgmt", &Wanted::default()).await,
        Ok(Choice::Use(ClusterRef::new("child-ns", "child-cl")))
    );
    // A name given is looked for in every namespace.
    let world = several_clusters();
    let (clusters, _) = clusters_of(&world);
    assert_eq!(
        which_cluster(&clusters.mgmt, "sim-mgmt", &wanted(None, Some("prod-cl"))).await,
        Ok(Choice::Use(ClusterRef::new("prod-ns", "prod-cl")))
    );
}

#[tokio::test(start_paused = true)]
async fn a_cluster_name_that_does_not_exist_is_an_error_listing_the_clusters_found() {
    let world = several_clusters();
    let (clusters, _) = clusters_of(&world);
    let err = which_cluster(&clusters.mgmt, "sim-mgmt", &wanted(None, Some("child")))
        .await
        .unwrap_err();
    assert!(
        err.contains(
            "the management context sim-mgmt has no LCMCluster named child in any namespace"
        ) && err.contains("found: alpha-ns/alpha-cl, child-ns/child-cl, prod-ns/prod-cl")
            && err.contains("--cluster"),
        "{err}"
    );
    let err = which_cluster(
        &clusters.mgmt,
        "sim-mgmt",
        &wanted(Some("prod-ns"), Some("child-cl")),
    )
    .await
    .unwrap_err();
    assert!(
        err.contains("no LCMCluster named child-cl in namespace prod-ns")
            && err.contains("found: prod-ns/prod-cl"),
        "{err}"
    );
}

#[tokio::test(start_paused = true)]
async fn no_cluster_found_is_a_clear_error() {
    let world = quick_world();
    let (clusters, _) = clusters_of(&world);
    let err = which_cluster(&clusters.mgmt, "sim-mgmt", &wanted(Some("kaas"), None))
        .await
        .unwrap_err();
    assert!(
        err.contains("the management context sim-mgmt has no LCMCluster in namespace kaas")
            && err.contains("--namespace"),
        "{err}"
    );
    world
        .mgmt()
        .delete(
            "lcmclusters",
            Some("child-ns"),
            "child-cl",
            &serde_json::Value::Null,
            false,
        )
        .unwrap();
    let err = which_cluster(&clusters.mgmt, "sim-mgmt", &Wanted::default())
        .await
        .unwrap_err();
    assert!(
        err.contains("has no LCMCluster in any namespace: no MOSK cluster to follow")
            && err.contains("--mgmt-context"),
        "{err}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_forbidden_list_of_the_clusters_is_named_a_refusal_not_none_found() {
    let world = quick_world();
    world.set_rbac(
        SimCluster::Mgmt,
        Rbac {
            deny: vec![RbacRule {
                verb: "list".into(),
                group: "lcm.mirantis.com".into(),
                resource: "lcmclusters".into(),
                namespace: None,
            }],
            ..Rbac::allow_all("viewer")
        },
    );
    let (clusters, _) = clusters_of(&world);
    let err = which_cluster(&clusters.mgmt, "sim-mgmt", &Wanted::default())
        .await
        .unwrap_err();
    assert!(
        err.contains(
            "the management context sim-mgmt refused to list its LCMClusters in any namespace"
        ) && err.contains("forbidden: viewer may not list lcmclusters cluster-wide")
            && err.contains("--namespace")
            && !err.contains("has no LCMCluster"),
        "{err}"
    );
    let err = which_cluster(&clusters.mgmt, "sim-mgmt", &wanted(Some("child-ns"), None))
        .await
        .unwrap_err();
    assert!(
        err.contains("forbidden: viewer may not list lcmclusters in child-ns"),
        "{err}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_mosk_context_of_another_cluster_refuses_writes_says_why_and_audits_it() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            mosk_seed: Some(8),
            ..Options::default()
        },
    );
    h.tick_and_settle().await;
    assert!(h.model.derived.mosk_context.is_mismatch());
    let text = screen(&h.model, 120, 40);
    assert!(
        text.contains("MOSK CONTEXT MISMATCH: writes refused")
            && text.contains(
                "MOSK context sim-mosk is not cluster child-ns/child-cl: writes are refused"
            ),
        "{text}"
    );
    // A compute of the MOSK side the console reads (another cluster's).
    let node = h
        .mosk_world
        .as_ref()
        .unwrap()
        .machines()
        .into_iter()
        .find(|m| m.has_vrouter())
        .unwrap()
        .node;
    assert!(h.model.snapshot.nodes().any(|n| n.name == node));
    h.select(&[&node]);
    h.press('m');
    h.press('j');
    h.press('j'); // skip
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    let dialog = screen(&h.model, 160, 48);
    assert!(dialog.contains("this will be refused"), "{dialog}");
    let asked = h.requests.lock().unwrap().len();
    h.press('y');
    let outcome = h.run_to_end(false).await;
    let RunOutcome::Refused { message } = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        message.contains("the MOSK context sim-mosk is not cluster child-ns/child-cl"),
        "{message}"
    );
    // Nothing reached the server: no write, not even a read or a review.
    assert_eq!(h.requests.lock().unwrap().len(), asked);
    assert!(h.changes().is_empty());
    let on_server = h
        .mosk_world
        .as_ref()
        .unwrap()
        .mosk()
        .get("nodes", None, &node)
        .unwrap();
    assert_ne!(
        on_server
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(MODE))
            .and_then(|v| v.as_str()),
        Some("skip")
    );
    // The audit log says why.
    let audit = h.audit();
    assert_eq!(audit.len(), 1, "{audit:#?}");
    let rec = &audit[0];
    assert_eq!(
        (
            rec.phase,
            rec.outcome,
            rec.name.as_str(),
            rec.context.as_str()
        ),
        (
            AuditPhase::Result,
            AuditOutcome::Refused,
            node.as_str(),
            "sim-mosk"
        )
    );
    let why = rec.message.as_deref().unwrap_or_default();
    assert!(
        why.contains("not sent: refused by the console") && why.contains("none of its 7 nodes"),
        "{why}"
    );
    // The screen says why.
    let text = screen(&h.model, 160, 48);
    assert!(text.contains("refused"), "{text}");
    assert!(
        h.notice_text()
            .contains("the MOSK context sim-mosk is not cluster child-ns/child-cl"),
        "{}",
        h.notice_text()
    );
}
