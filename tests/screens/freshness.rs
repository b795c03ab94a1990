//! Freshness on screen, driven through `update` with the messages the
//! cluster layer sends (lists, health changes, ticks) and read back from the
//! drawn screen: a pane whose watch broke says so in its border and its
//! derived claims are marked stale; recovery removes the marks; until every
//! watch has listed once the Overview says what is still loading.

use crate::domain::fixtures;
use jiff::{SignedDuration, Timestamp};
use mosk_console::app::model::{Model, SessionInfo, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::cluster::connect::Transport;
use mosk_console::cluster::events::{ClusterEvent, WatchHealth, WatchProblem};
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;
use mosk_console::domain::objects::{ClusterId, Kind, Object, Snapshot};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn t0() -> Timestamp {
    fixtures::mid_update_now()
}

fn at(secs: i64) -> Timestamp {
    t0() + SignedDuration::from_secs(secs)
}

fn list(m: &mut Model, snap: &Snapshot, kind: Kind) {
    let objects: Vec<Object> = snap.of_kind(kind).cloned().collect();
    update(m, Msg::Cluster(ClusterEvent::Resynced { kind, objects }));
}

fn health(m: &mut Model, kind: Kind, connected: bool, retry_at: Option<Timestamp>) {
    let health = WatchHealth {
        cluster: kind.cluster(),
        connected,
        last_event: Some(m.now),
        last_error: (!connected).then(|| "connection refused".to_string()),
        retry_at,
        problem: Default::default(),
    };
    update(m, Msg::Cluster(ClusterEvent::Health { kind, health }));
}

/// Every kind listed from `snap`, every watch connected.
fn loaded(snap: &Snapshot) -> Model {
    let mut m = Model::new(SessionInfo::default(), Keymap::default_keymap(), t0());
    for kind in Kind::ALL {
        health(&mut m, kind, true, None);
        list(&mut m, snap, kind);
    }
    m
}

fn screen(m: &Model, view: View, w: u16, h: u16) -> String {
    let mut m = m.clone();
    m.view = view;
    update(
        &mut m,
        Msg::Resize {
            width: w,
            height: h,
        },
    );
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    let theme = Theme::default_theme();
    t.draw(|f| mosk_console::ui::draw(f, &m, &theme)).unwrap();
    let buf = t.backend().buffer();
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

fn mosk_kinds() -> Vec<Kind> {
    Kind::ALL
        .into_iter()
        .filter(|k| k.cluster() == ClusterId::Mosk)
        .collect()
}

fn tick(m: &mut Model, now: Timestamp) {
    update(m, Msg::Tick(now));
}

#[test]
fn a_broken_watch_marks_its_panes_stale_until_it_recovers() {
    let mut m = loaded(&fixtures::idle());
    let fresh = screen(&m, View::Overview, 160, 48);
    assert!(fresh.contains("idle"), "{fresh}");
    assert!(fresh.contains("nothing waits for a human"), "{fresh}");
    assert!(
        !fresh.contains("STALE") && !fresh.contains("(stale)"),
        "{fresh}"
    );

    // The MOSK API goes away at t0+5: every watch on it reports it.
    tick(&mut m, at(5));
    for kind in mosk_kinds() {
        health(&mut m, kind, false, Some(at(58)));
    }
    tick(&mut m, at(50));
    let clock = at(5).strftime("%H:%M:%S").to_string();
    let stale = screen(&m, View::Overview, 160, 48);
    let mark = format!("STALE: mosk API unreachable for 45s, data as of {clock}, retrying in 8s");
    assert!(stale.contains(&mark), "{stale}");
    assert!(
        stale.contains("attention queue may be incomplete: data stale"),
        "{stale}"
    );
    assert!(!stale.contains("nothing waits for a human"), "{stale}");
    assert!(
        stale.contains("idle (stale)"),
        "the phase is not a fact: {stale}"
    );
    // At 80 columns the mark is cut to the border, never dropped.
    let narrow = screen(&m, View::Overview, 80, 24);
    assert!(narrow.contains("STALE: mosk API"), "{narrow}");
    // Panes that read nodes say so; a pane that does not, does not.
    let machines = screen(&m, View::Machines, 160, 48);
    assert!(machines.contains(&mark), "{machines}");
    let states = screen(&m, View::States, 160, 48);
    assert!(!states.contains("STALE"), "{states}");

    // A second cluster's watch breaks too: both are named.
    health(&mut m, Kind::LcmMachine, false, None);
    let both = screen(&m, View::Machines, 160, 48);
    assert!(
        both.contains("STALE: mgmt and mosk APIs unreachable for 45s"),
        "{both}"
    );
    let states = screen(&m, View::States, 160, 48);
    assert!(!states.contains("STALE"), "{states}");

    // Recovery removes every mark.
    tick(&mut m, at(70));
    for kind in mosk_kinds() {
        health(&mut m, kind, true, None);
    }
    health(&mut m, Kind::LcmMachine, true, None);
    for view in [View::Overview, View::Machines, View::Events] {
        let s = screen(&m, view, 160, 48);
        assert!(!s.contains("STALE") && !s.contains("(stale)"), "{s}");
    }
    assert!(screen(&m, View::Overview, 160, 48).contains("nothing waits for a human"));
}

#[test]
fn stale_data_marks_the_phase_gauge_eta_and_a_non_empty_queue() {
    let mut m = loaded(&fixtures::mid_update());
    let fresh = screen(&m, View::Overview, 160, 48);
    assert!(fresh.contains("waiting for you, oldest first"), "{fresh}");
    assert!(fresh.contains("machines done "), "{fresh}");
    health(&mut m, Kind::ClusterWorkloadLock, false, None);
    let s = screen(&m, View::Overview, 160, 48);
    assert!(s.contains("phase 4/5 worker nodes (stale)"), "{s}");
    assert!(s.contains("machines done (stale)"), "{s}");
    // Two items (LCM's retry folded under the servers that cause it) and
    // the write-freeze reminder.
    assert!(s.contains("Attention (3, may be incomplete)"), "{s}");
    assert!(!s.contains("waiting for you, oldest first"), "{s}");
    assert!(
        !s.contains("retrying in"),
        "no retry time known: none claimed"
    );
}

#[test]
fn the_overview_says_what_is_loading_until_every_watch_has_listed() {
    let snap = fixtures::idle();
    let mut m = Model::new(SessionInfo::default(), Keymap::default_keymap(), t0());
    let s = screen(&m, View::Overview, 160, 48);
    assert!(s.contains("loading: 0 of 18 lists"), "{s}");
    let kinds = Kind::ALL;
    for kind in &kinds[..7] {
        health(&mut m, *kind, true, None);
        list(&mut m, &snap, *kind);
    }
    for size in [(80, 24), (160, 48)] {
        let s = screen(&m, View::Overview, size.0, size.1);
        assert!(s.contains("loading: 7 of 18 lists"), "{s}");
        for claim in ["idle", "machines done", "nothing waits for a human", "ETA"] {
            assert!(!s.contains(claim), "{claim:?} claimed while loading:\n{s}");
        }
    }
    // A table whose kinds have not all listed says so too.
    let vr = screen(&m, View::Vrouter, 160, 48);
    assert!(vr.contains("loading: 7 of 18 lists"), "{vr}");
    // A missing CRD settles its kind as much as a list does.
    for kind in &kinds[7..17] {
        list(&mut m, &snap, *kind);
    }
    update(
        &mut m,
        Msg::Cluster(ClusterEvent::KindMissing {
            kind: kinds[17],
            message: "the server could not find the requested resource".into(),
        }),
    );
    let s = screen(&m, View::Overview, 160, 48);
    assert!(!s.contains("loading"), "{s}");
    assert!(s.contains("nothing waits for a human"), "{s}");
}

#[test]
fn the_status_bar_keeps_the_watch_health_whole_when_narrow() {
    let mut m = loaded(&fixtures::mid_update());
    m.session.mgmt_context = "kaas-mgmt-admin@kaas-mgmt-production-eu".into();
    m.session.mosk_context = "mosk-admin@mosk-child-production-eu".into();
    tick(&mut m, at(30));
    health(&mut m, Kind::Node, false, None);
    health(&mut m, Kind::VrouterPod, false, None);
    let wide = screen(&m, View::Overview, 200, 40);
    let bar = |s: &str| s.lines().rev().nth(1).unwrap().to_string();
    assert!(
        bar(&wide).contains("2 degraded: nodes (connection refused, 0s) +1"),
        "{}",
        bar(&wide)
    );
    for w in [80u16, 90, 100, 120] {
        let s = screen(&m, View::Overview, w, 24);
        let line = bar(&s);
        assert!(line.contains("2 degraded"), "{w}: {line}");
        // Whatever form it takes, the health is never cut mid-word.
        let health = line.split(" │ ").nth(1).unwrap().trim_end();
        assert!(!health.ends_with('…'), "{w}: {line}");
        assert!(
            ["2 degraded", "+1"].iter().any(|e| health.ends_with(e)) || health.ends_with(')'),
            "{w}: {line}"
        );
    }
}

#[test]
fn a_refused_watch_is_named_forbidden_not_unreachable() {
    let mut m = loaded(&fixtures::idle());
    tick(&mut m, at(5));
    let health = WatchHealth {
        cluster: ClusterId::Mgmt,
        connected: false,
        last_event: Some(m.now),
        last_error: Some("forbidden: viewer may not list lcmmachines in child-ns".into()),
        retry_at: Some(at(13)),
        problem: WatchProblem::Refused,
    };
    update(
        &mut m,
        Msg::Cluster(ClusterEvent::Health {
            kind: Kind::LcmMachine,
            health,
        }),
    );
    tick(&mut m, at(8));
    let s = screen(&m, View::Machines, 200, 48);
    assert!(
        s.contains("STALE: forbidden: viewer may not list lcmmachines in child-ns for 3s"),
        "{s}"
    );
    assert!(!s.contains("unreachable"), "{s}");
}

#[test]
fn the_status_bar_says_when_a_connection_is_not_verified() {
    let mut m = loaded(&fixtures::idle());
    let bar = |m: &Model, w: u16| {
        let s = screen(m, View::Overview, w, 30);
        s.lines().rev().nth(1).unwrap().to_string()
    };
    assert!(!bar(&m, 200).contains("APIs:"), "{}", bar(&m, 200));
    m.session.mosk_transport = Transport::TlsNotVerified;
    // A warning stays even on a narrow terminal.
    for w in [80u16, 200] {
        assert!(
            bar(&m, w).contains("mosk API: TLS NOT VERIFIED"),
            "{}",
            bar(&m, w)
        );
    }
    m.session.mgmt_transport = Transport::Loopback;
    m.session.mosk_transport = Transport::Loopback;
    assert!(
        bar(&m, 200).contains("APIs: http (loopback)"),
        "{}",
        bar(&m, 200)
    );
}
