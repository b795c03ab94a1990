//! Which cluster the console follows, on screen: the cluster picker, no
//! phase or progress claimed before the cluster's objects are seen, and a
//! MOSK context that is another cluster's.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mosk_console::app::cluster_picker::ClusterPicker;
use mosk_console::app::modal::Modal;
use mosk_console::app::model::Model;
use mosk_console::app::msg::{Command, Msg};
use mosk_console::app::update::update;
use mosk_console::domain::objects::{Kind, Object};
use mosk_console::domain::which_cluster::ClusterRef;

use crate::ui_support::*;

fn snap_both(name: &str, model: &Model) {
    for (w, h) in [(80, 24), (160, 48)] {
        let t = render(model, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), t.backend());
    }
}

fn screen(model: &Model, w: u16, h: u16) -> String {
    text_of(render(model, w, h).backend().buffer())
}

/// The mid-update model without the objects of `kinds`.
fn without(kinds: &[Kind]) -> Model {
    let mut m = base_model();
    let keys: Vec<_> = m
        .snapshot
        .objects()
        .keys()
        .filter(|k| kinds.contains(&k.kind))
        .cloned()
        .collect();
    for k in keys {
        m.snapshot.remove(&k);
    }
    settled(&mut m);
    m
}

#[test]
fn no_phase_or_progress_is_claimed_from_the_mosk_cluster_before_its_lcmcluster_is_seen() {
    // Every list is in; the management cluster has neither the cluster
    // nor its machines (a name that does not exist, a cluster deleted),
    // while the MOSK cluster's request and locks are there.
    let m = without(&[Kind::LcmCluster, Kind::LcmMachine]);
    assert!(m.snapshot.cluster_requests().next().is_some());
    assert!(m.derived.phase.is_none() && m.derived.progress.is_none());
    let text = screen(&m, 160, 48);
    for says in [
        "release: not known: LCMCluster child-ns/child-cl not seen in the management context",
        "phase: not known until the cluster's LCMCluster is seen",
        "progress: not known until the cluster's objects are seen",
    ] {
        assert!(text.contains(says), "{says}:\n{text}");
    }
    for claim in ["phase 2/5", "phase 4/5", "machines done", "█"] {
        assert!(!text.contains(claim), "{claim}:\n{text}");
    }
    snap_both("overview_cluster_not_seen", &m);
}

#[test]
fn a_cluster_without_machines_draws_no_full_progress_bar() {
    let m = without(&[Kind::LcmMachine]);
    let text = screen(&m, 160, 48);
    assert!(
        text.contains("progress: not known: no LCMMachine of the cluster seen"),
        "{text}"
    );
    assert!(
        !text.contains("0/0 machines done") && !text.contains("█"),
        "{text}"
    );
}

fn picking() -> Model {
    let mut m = base_model();
    m.session.namespace.clear();
    m.session.cluster_name.clear();
    m.snapshot = Default::default();
    for k in Kind::ALL {
        m.freshness.remove(&k);
        m.health.remove(&k);
    }
    m.modals.push(Modal::ClusterPicker(ClusterPicker::new(vec![
        ClusterRef::new("alpha-ns", "alpha-cl"),
        ClusterRef::new("child-ns", "child-cl"),
        ClusterRef::new("prod-ns", "prod-cl"),
    ])));
    settled(&mut m);
    m
}

fn key(m: &mut Model, code: KeyCode) -> Vec<Command> {
    update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

#[test]
fn the_cluster_picker_lists_the_clusters_and_enter_follows_the_one_under_the_cursor() {
    let mut m = picking();
    snap_both("cluster_picker", &m);
    let text = screen(&m, 80, 24);
    assert!(
        text.contains("Which MOSK cluster?")
            && text.contains("> alpha-ns/alpha-cl")
            && text.contains("child-ns/child-cl")
            && text.contains("prod-ns/prod-cl")
            && text.contains("cluster: not chosen yet")
            && text.contains("follow this cluster"),
        "{text}"
    );
    // No permission is asked while no project namespace is known.
    let tick = now();
    assert!(update(&mut m, Msg::Tick(tick)).is_empty());
    // Keys of the views do not reach behind the picker; Esc does not close it.
    assert!(key(&mut m, KeyCode::Char('2')).is_empty());
    assert!(key(&mut m, KeyCode::Esc).is_empty());
    assert!(m.modals.cluster_picker().is_some());
    assert!(screen(&m, 80, 24).contains("choose the cluster to follow"));
    // `?` opens the help over it, and closes again.
    key(&mut m, KeyCode::Char('?'));
    assert!(matches!(m.modals.top(), Some(Modal::Help { .. })));
    key(&mut m, KeyCode::Char('?'));
    key(&mut m, KeyCode::Char('j'));
    assert!(screen(&m, 80, 24).contains("> child-ns/child-cl"));
    let commands = key(&mut m, KeyCode::Enter);
    assert_eq!(
        commands,
        vec![Command::FollowCluster(ClusterRef::new(
            "child-ns", "child-cl"
        ))]
    );
    assert!(m.modals.is_empty());
    assert_eq!(
        (
            m.session.namespace.as_str(),
            m.session.cluster_name.as_str()
        ),
        ("child-ns", "child-cl")
    );
    assert!(screen(&m, 120, 40).contains("child-ns/child-cl"));
}

#[test]
fn q_quits_from_the_cluster_picker() {
    let mut m = picking();
    assert_eq!(key(&mut m, KeyCode::Char('q')), vec![Command::Quit]);
    assert!(m.quit);
}

/// The mid-update model whose MOSK side is another cluster's: the same
/// objects, every Node under another name.
pub fn mismatched() -> Model {
    let mut m = base_model();
    let nodes: Vec<_> = m.snapshot.nodes().cloned().collect();
    for n in nodes {
        m.snapshot.remove(&Object::Node(Arc::new(n.clone())).key());
        let mut other = n;
        other.name = format!("staging-{}", other.name);
        m.snapshot.apply(Object::Node(Arc::new(other)));
    }
    settled(&mut m);
    m
}

#[test]
fn a_mosk_context_of_another_cluster_is_said_on_the_overview_and_the_status_bar() {
    let m = mismatched();
    assert!(m.derived.mosk_context.is_mismatch());
    assert!(m.derived.phase.is_none());
    let text = screen(&m, 160, 48);
    for says in [
        "MOSK CONTEXT MISMATCH: writes refused",
        "MOSK context child-admin@child-cl is not cluster child-ns/child-cl: writes are refused",
        "in management context mgmt-admin@kaas-mgmt, the cluster's LCMMachines name 7 nodes",
        "phase: not known: the MOSK context is another cluster's",
    ] {
        assert!(text.contains(says), "{says}:\n{text}");
    }
    // However narrow, the status bar says it.
    assert!(
        screen(&m, 80, 24).contains("MOSK CONTEXT MISMATCH: writes refused"),
        "{}",
        screen(&m, 80, 24)
    );
    snap_both("overview_mosk_context_mismatch", &m);
}
