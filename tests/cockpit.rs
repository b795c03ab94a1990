//! The cockpit: what waits, since when, and what to do.
//! The `stuck-drain` scenario stepped on the simulator's clock with a
//! History fed as the console feeds it (its failed drain as the screen
//! shows it), and small fixtures for the first machine's stall, a cluster
//! lock and the honest age after an operator's wait.

#[path = "support/domain.rs"]
mod domain;
mod sim_snapshot;
#[path = "ui_support/mod.rs"]
mod ui_support;

use crate::domain::fixtures::{self, Scenario, at, names::*};
use jiff::{SignedDuration, Timestamp};
use mosk_console::app::model::View;
use mosk_console::domain::attention::{AttentionItem, AttentionKind, attention_with, queue};
use mosk_console::domain::expected::Expected;
use mosk_console::domain::history::History;
use mosk_console::domain::next_step;
use mosk_console::domain::objects::{Controller, Kind, LockState, MachineState, Object, Snapshot};
use mosk_console::domain::progress::{blocked, progress};
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::world::SimWorld;
use mosk_console::ui::format;
use std::sync::Arc;

/// The console's view of a simulated world over time: each kind re-listed
/// into one snapshot and its history, as a watch re-list does.
struct Played {
    world: SimWorld,
    snap: Snapshot,
    history: History,
}

impl Played {
    fn new(scenario: &str) -> Played {
        Played::of(load_scenario(scenario).unwrap())
    }
    fn of(spec: mosk_console::sim::scenario::spec::ScenarioSpec) -> Played {
        Played::from(SimWorld::new(spec, 7))
    }
    /// A console started on `world` as it is now.
    fn from(world: SimWorld) -> Played {
        let mut p = Played {
            world,
            snap: Snapshot::default(),
            history: History::new(),
        };
        p.observe();
        p
    }
    fn observe(&mut self) {
        let fresh = sim_snapshot::snapshot(&self.world);
        let now = self.world.now();
        for kind in Kind::ALL {
            let objs: Vec<Object> = fresh
                .objects()
                .values()
                .filter(|o| o.key().kind == kind)
                .cloned()
                .collect();
            self.history.relist(&mut self.snap, kind, objs, now);
        }
    }
    fn step(&mut self, d: SignedDuration) {
        let end = self.world.now() + d;
        while self.world.now() < end {
            self.world.step(SignedDuration::from_secs(10));
            self.observe();
        }
    }
    fn queue(&self) -> Vec<AttentionItem> {
        queue(
            &self.snap,
            &self.history,
            self.world.now(),
            &Default::default(),
            &Expected::default(),
        )
    }
}

#[test]
fn stuck_drain_names_the_ceph_lock_with_its_age_and_next_step_and_the_eta_grows() {
    let mut p = Played::new("stuck-drain");
    // Until the storage worker's turn comes.
    let storage = p
        .snap
        .machines()
        .find(|m| m.name.contains("storage"))
        .map(|m| (m.name.clone(), m.hostname.clone().unwrap()))
        .unwrap();
    let mut minutes = 0;
    let turn = loop {
        p.step(SignedDuration::from_mins(1));
        if let Some(r) = p.snap.node_requests().find(|r| r.node_name == storage.1) {
            break r.created.unwrap();
        }
        minutes += 1;
        assert!(minutes < 24 * 60, "the storage worker's turn never came");
    };
    // Twenty minutes into its turn: one item for the node, naming the lock.
    p.step(SignedDuration::from_mins(20));
    let items = p.queue();
    let of_node: Vec<&AttentionItem> = items
        .iter()
        .filter(|i| i.node.as_deref() == Some(storage.1.as_str()))
        .collect();
    assert_eq!(
        of_node.len(),
        1,
        "one item per cause per node: {of_node:#?}"
    );
    let item = of_node[0];
    assert_eq!(item.kind, AttentionKind::LockHeld);
    assert_eq!(item.subject, storage.0);
    assert!(
        item.why.starts_with(&format!(
            "ceph NodeWorkloadLock ceph-{} is still active",
            storage.1
        )),
        "{}",
        item.why
    );
    assert!(
        item.why.contains("LCM's cordon-drain waits for it"),
        "{}",
        item.why
    );
    // Its age counts from the node's turn (exact: the request's creation).
    assert_eq!(item.since, turn);
    assert!(!item.at_least);
    // The first worker has no peer yet: no stall before its expected turn.
    assert!(item.symptoms.is_empty(), "{:#?}", item.symptoms);
    // What to do, with its source, marked inferred.
    let step = next_step::for_item(item, &p.snap).expect("a next step");
    assert_eq!(step.cause, "lock-held/ceph");
    assert!(step.text.starts_with("Check Ceph health"), "{}", step.text);
    assert!(step.inferred);

    // The ETA: blocked on that machine, and the wait grows with the clock.
    let blocked_at = |p: &Played| {
        let b = blocked(&p.queue()).expect("the update is blocked");
        (b.subject.clone(), p.world.now().duration_since(b.since))
    };
    let (on, first) = blocked_at(&p);
    assert_eq!(on, storage.0);
    p.step(SignedDuration::from_mins(40));
    let (on, later) = blocked_at(&p);
    assert_eq!(on, storage.0);
    assert_eq!(later - first, SignedDuration::from_mins(40));
    // Past the expected worker turn (60m) the stall appears, as a symptom
    // of that wait, folded under it.
    p.step(SignedDuration::from_mins(2));
    let items = p.queue();
    let item = items
        .iter()
        .find(|i| i.node.as_deref() == Some(storage.1.as_str()))
        .unwrap();
    assert_eq!(item.kind, AttentionKind::LockHeld);
    let stall = item
        .symptoms
        .iter()
        .find(|s| s.kind == AttentionKind::Stall)
        .unwrap_or_else(|| panic!("{:#?}", item.symptoms));
    assert!(stall.why.contains("expected.worker_turn"), "{}", stall.why);
    // The three masters are done, none of them its peer: counted, not
    // "no machine has been through Prepare".
    assert!(
        stall.why.contains(
            "3 of 6 machines are done, none of them a peer (worker, no OpenStack role) to compare with"
        ),
        "{}",
        stall.why
    );
    // The estimate itself is still there, for after the wait.
    let pr = progress(
        &p.snap,
        &p.history,
        &mosk_console::domain::join::machine_rows(&p.snap),
        p.world.now(),
        &[storage.0.as_str()],
    );
    assert!(pr.eta.is_some() && pr.updating, "{pr:#?}");
}

/// The simulator's note that the Kubernetes drain of a machine failed: the
/// machine and when.
fn drain_failed(world: &SimWorld) -> Option<(String, Timestamp)> {
    world.timeline().into_iter().find_map(|(at, note)| {
        note.strip_prefix("drain error: ")
            .map(|machine| (machine.to_string(), at))
    })
}

/// What the console draws of `p` in `view` at 120x40.
fn screen(p: &Played, view: View) -> String {
    let mut m = ui_support::model_of(p.snap.clone(), p.history.clone(), p.world.now());
    m.view = view;
    let t = ui_support::render(&m, 120, 40);
    ui_support::text_of(t.backend().buffer())
}

/// The line of `screen` that holds `needle`.
fn line_with<'a>(screen: &'a str, needle: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{screen}"))
}

#[test]
fn stuck_drain_says_the_drain_failed_and_ages_it_from_the_failure() {
    let mut p = Played::new("stuck-drain");
    let mut steps = 0;
    let (machine, failed) = loop {
        p.step(SignedDuration::from_secs(10));
        if let Some(f) = drain_failed(&p.world) {
            break f;
        }
        steps += 1;
        assert!(steps < 6 * 120, "the master's drain never failed");
    };
    // The console saw the error appear within its 10 s of watching.
    let seen = p.world.now();
    assert!(seen.duration_since(failed) < SignedDuration::from_secs(10));
    p.step(SignedDuration::from_mins(5));
    let item = p
        .queue()
        .into_iter()
        .find(|i| i.kind == AttentionKind::DrainError)
        .expect("the drain error is an item");
    assert_eq!(item.subject, machine);
    // From the failure, not from the machine's turn (which began before
    // the drain did).
    assert_eq!((item.since, item.at_least), (seen, false));
    let overview = screen(&p, View::Overview);
    let queued = line_with(&overview, "drain error");
    assert!(
        queued.contains(&format!(" 5m00s  {machine}")) && !queued.contains('≥'),
        "aged from the failure: {queued}"
    );
    // Being worked on: the drain failed, not "cordon-drain pending".
    let working = line_with(&overview, &format!("{machine}  Prepare"));
    assert!(
        working.contains("drain failed: evicting stacklight/patroni-13-2: global timeout"),
        "{overview}"
    );
    let machines = screen(&p, View::Machines);
    let row = line_with(&machines, &machine);
    assert!(row.contains("drain failed: evicting"), "{machines}");
    assert!(!machines.contains("cordon-drain pending"), "{machines}");
}

#[test]
fn a_console_started_after_the_drain_failed_ages_it_from_the_cordon_and_its_timeout() {
    // The simulator alone until five minutes after the failure: the console
    // sees the error at its first list.
    let world = SimWorld::new(load_scenario("stuck-drain").unwrap(), 7);
    let start = world.now();
    let (machine, failed) = loop {
        world.step(SignedDuration::from_secs(10));
        if let Some(f) = drain_failed(&world) {
            break f;
        }
        assert!(
            world.now().duration_since(start) < SignedDuration::from_hours(2),
            "the master's drain never failed"
        );
    };
    world.step(SignedDuration::from_mins(5));
    let p = Played::from(world);
    let node = p
        .snap
        .machines()
        .find(|m| m.name == machine)
        .and_then(|m| m.hostname.clone())
        .unwrap();
    let cordoned = p
        .snap
        .nodes()
        .find(|n| n.name == node)
        .and_then(|n| n.cordoned_at)
        .expect("the cordoned node's taint says when");
    let item = p
        .queue()
        .into_iter()
        .find(|i| i.kind == AttentionKind::DrainError)
        .expect("the drain error is an item");
    // kubectl's 10m0s global timeout ran out ten minutes after the cordon:
    // the failure's own time (within the simulator's second), not the
    // console's first sight, and not marked "at least" but inferred (no
    // object records when the drain failed).
    let expected = cordoned + SignedDuration::from_mins(10);
    assert_eq!((item.since, item.at_least), (expected, false));
    assert!(item.since_inferred.is_some());
    assert!(failed.duration_since(expected).abs() <= SignedDuration::from_secs(1));
    let overview = screen(&p, View::Overview);
    let queued = line_with(&overview, "drain error");
    let age = format::age(p.world.now(), expected);
    assert!(
        queued.contains(&format!("~{age}  {machine}"))
            && age.starts_with("5m")
            && !queued.contains('≥'),
        "{queued}"
    );
}

/// The fixture cluster before the update (07:00), the update started.
fn started() -> Scenario {
    let mut sc = Scenario::new();
    sc.load(fixtures::idle(), at("07:00"));
    sc.apply(
        Object::ClusterMaintenanceRequest(Arc::new(fixtures::cmr(at("07:00")))),
        at("07:00"),
    );
    sc
}

fn set_state(sc: &mut Scenario, name: &str, state: MachineState, when: Timestamp) {
    let Some(Object::Machine(m)) = sc
        .snap
        .objects()
        .values()
        .find(|o| matches!(o, Object::Machine(m) if m.name == name))
        .cloned()
    else {
        panic!("no machine {name}");
    };
    let mut m = m;
    Arc::make_mut(&mut m).state = state;
    sc.apply(Object::Machine(m), when);
}

fn stalls(items: &[AttentionItem], subject: &str) -> usize {
    items
        .iter()
        .filter(|i| i.subject == subject)
        .flat_map(|i| std::iter::once(i.kind).chain(i.symptoms.iter().map(|s| s.kind)))
        .filter(|k| *k == AttentionKind::Stall)
        .count()
}

#[test]
fn the_first_master_stalls_after_the_expected_turn_not_before() {
    let mut sc = started();
    sc.apply(
        Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(NODE_M0, "os", at("07:05")))),
        at("07:05"),
    );
    // Its locks released: LCM has the node (nothing else to wait on).
    for l in sc
        .snap
        .node_locks()
        .filter(|l| l.node_name.as_deref() == Some(NODE_M0))
        .cloned()
        .collect::<Vec<_>>()
    {
        let l = mosk_console::domain::objects::WorkloadLock {
            state: LockState::Inactive,
            ..l
        };
        sc.apply(Object::NodeWorkloadLock(Arc::new(l)), at("07:06"));
    }
    set_state(&mut sc, MASTER_0, MachineState::Deploy, at("07:06"));
    let e = Expected::default();
    // No machine has finished: nothing to compare with but the expected
    // 45 minutes of a master's turn.
    let before = attention_with(&sc.snap, &sc.history, at("07:49"), &e);
    assert_eq!(stalls(&before, MASTER_0), 0, "{before:#?}");
    let after = attention_with(&sc.snap, &sc.history, at("07:51"), &e);
    assert_eq!(stalls(&after, MASTER_0), 1, "{after:#?}");
    let item = after.iter().find(|i| i.subject == MASTER_0).unwrap();
    assert_eq!(item.kind, AttentionKind::Stall);
    assert!(
        item.why.contains("in its turn for 46m")
            && item.why.contains("expected 45m")
            && item.why.contains("expected.master_turn"),
        "{}",
        item.why
    );
    // The config file's duration is the one used.
    let short = Expected {
        master_turn: SignedDuration::from_mins(30),
        ..e
    };
    let early = attention_with(&sc.snap, &sc.history, at("07:36"), &short);
    assert_eq!(stalls(&early, MASTER_0), 1, "{early:#?}");
}

#[test]
fn a_worker_whose_turn_comes_late_is_aged_from_its_turn_not_from_the_update() {
    let mut sc = started();
    // Every worker enters Prepare at the start and waits for its turn.
    for w in [WORKER_1, WORKER_2, WORKER_3, WORKER_4] {
        set_state(&mut sc, w, MachineState::Prepare, at("07:02"));
    }
    // Worker-1's turn: 07:10 to 07:40, Prepare taking 5 minutes of it.
    sc.apply(
        Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(NODE_W1, "os", at("07:10")))),
        at("07:10"),
    );
    set_state(&mut sc, WORKER_1, MachineState::Deploy, at("07:15"));
    set_state(&mut sc, WORKER_1, MachineState::Ready, at("07:40"));
    sc.remove(
        &Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(NODE_W1, "os", at("07:10")))).key(),
        at("07:40"),
    );
    // Worker-2 waited three hours for the operator; its turn starts at 10:40.
    sc.apply(
        Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(NODE_W2, "os", at("10:40")))),
        at("10:40"),
    );
    let since = sc.history.in_turn_since(WORKER_2).unwrap();
    assert_eq!(since.at, at("10:40"), "in Prepare since its turn");
    // The median Prepare (5 minutes, within a turn) x3 is 15 minutes: at
    // 10:50 worker-2 is not stalled, although it entered Prepare at 07:02.
    let items = attention_with(&sc.snap, &sc.history, at("10:50"), &Expected::default());
    assert_eq!(stalls(&items, WORKER_2), 0, "{items:#?}");
    // At 10:56 it is: 16 minutes of its own turn.
    let items = attention_with(&sc.snap, &sc.history, at("10:56"), &Expected::default());
    assert_eq!(stalls(&items, WORKER_2), 1, "{items:#?}");
    let item = items.iter().find(|i| i.subject == WORKER_2).unwrap();
    assert_eq!(item.since, at("10:40"));
    assert!(item.why.contains("in Prepare for 16m"), "{}", item.why);
}

#[test]
fn a_cluster_lock_held_past_its_expected_time_is_named_first_in_the_updates_order() {
    let mut sc = started();
    for (name, controller) in [
        (OPENSTACK_CWL, Controller::Openstack),
        (CEPH_CWL, Controller::Ceph),
    ] {
        sc.apply(
            Object::ClusterWorkloadLock(Arc::new(fixtures::cluster_lock(
                name,
                controller,
                LockState::Active,
            ))),
            at("07:00"),
        );
    }
    let e = Expected::default();
    let held = |now: &str| -> Vec<AttentionItem> {
        attention_with(&sc.snap, &sc.history, at(now), &e)
            .into_iter()
            .filter(|i| i.kind == AttentionKind::LockHeld)
            .collect()
    };
    assert!(held("08:29").is_empty(), "{:#?}", held("08:29"));
    let items = held("08:31");
    // Ceph waits for OpenStack: the OpenStack lock is the one named.
    assert_eq!(items.len(), 1, "{items:#?}");
    assert_eq!(items[0].subject, OPENSTACK_CWL);
    assert_eq!(items[0].since, at("07:00"));
    assert!(
        items[0].why.contains("expected.cluster_lock"),
        "{}",
        items[0].why
    );
    // The cluster lock's own step (health, APPLIED, release), not the node
    // lock's advice about servers.
    let step = next_step::for_item(&items[0], &sc.snap).unwrap();
    assert_eq!(step.cause, "lock-held/cluster-openstack");
    // And the update is blocked on it.
    let b = blocked(&attention_with(&sc.snap, &sc.history, at("08:31"), &e)).unwrap();
    assert_eq!(b.subject, OPENSTACK_CWL);
}

#[test]
fn a_node_queued_by_the_openstack_controller_is_neither_held_nor_stalled() {
    let mut sc = started();
    set_state(&mut sc, WORKER_1, MachineState::Prepare, at("07:02"));
    sc.apply(
        Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(NODE_W1, "os", at("07:10")))),
        at("07:10"),
    );
    // Another node holds the maintenance slot (E-CONC): its turn has not come.
    let deferred = format!(
        "{} Number of inactive NodeWorkloadLocks exceeds allowed concurrency. Deferring processing for node {NODE_W1}",
        fixtures::rockoon_stamp("07:10:05")
    );
    let lock = fixtures::node_lock(
        Controller::Openstack,
        NODE_W1,
        LockState::Active,
        Some(&deferred),
    );
    sc.apply(
        Object::NodeWorkloadLock(Arc::new(lock.clone())),
        at("07:10"),
    );
    let e = Expected::default();
    let items = attention_with(&sc.snap, &sc.history, at("09:30"), &e);
    assert!(
        items
            .iter()
            .all(|i| i.subject != WORKER_1 && i.node.as_deref() != Some(NODE_W1)),
        "{items:#?}"
    );
    // Its turn taken (the deferral gone), the same wait is a held lock.
    sc.apply(
        Object::NodeWorkloadLock(Arc::new(mosk_console::domain::objects::WorkloadLock {
            error_message: None,
            ..lock
        })),
        at("09:30"),
    );
    let items = attention_with(&sc.snap, &sc.history, at("09:31"), &e);
    assert!(
        items
            .iter()
            .any(|i| i.kind == AttentionKind::LockHeld && i.subject == WORKER_1),
        "{items:#?}"
    );
}

#[test]
fn a_turn_first_seen_mid_way_takes_its_requests_creation_when_the_request_arrives_later() {
    let mut sc = Scenario::new();
    let mut snap = fixtures::idle();
    // The console starts with master-0 already in Deploy …
    let m0 = snap
        .machines()
        .find(|m| m.name == MASTER_0)
        .cloned()
        .unwrap();
    snap.apply(Object::Machine(Arc::new(
        mosk_console::domain::objects::Machine {
            state: MachineState::Deploy,
            ..m0
        },
    )));
    sc.load(snap, at("08:00"));
    let first = sc.history.turn_since(MASTER_0).unwrap();
    assert_eq!((first.at, first.observed), (at("08:00"), false));
    // … and its maintenance request (another cluster's watch) a moment later.
    sc.apply(
        Object::NodeMaintenanceRequest(Arc::new(fixtures::nmr(NODE_M0, "os", at("07:00")))),
        at("08:00"),
    );
    let turn = sc.history.turn_since(MASTER_0).unwrap();
    assert_eq!((turn.at, turn.observed), (at("07:00"), true));
}

/// `quick` without its manual node: the third compute's server cannot be
/// live-migrated, and the OpenStack controller starts it again at every
/// retry, rewriting the lock's message about once a minute. For two hours
/// the queue holds one item for that node, aged from the first failure,
/// and the session report one row.
#[test]
fn a_wait_through_two_hours_of_message_cycles_is_one_item_with_one_age_and_one_report_row() {
    use mosk_console::domain::attention::Waits;
    use mosk_console::domain::session_log::SessionLog;
    use std::collections::BTreeSet;
    let mut spec = load_scenario("quick").unwrap();
    spec.overrides.retain(|o| o.migration_mode.is_none());
    let mut p = Played::of(spec);
    let mut waits = Waits::new();
    let mut log = SessionLog::new();
    let start = p.world.now();
    let end_of_update = move |_: &Played| start + SignedDuration::from_hours(3);
    let mut settle = |p: &Played| {
        let q = waits.carry(p.queue(), &p.snap, p.world.now());
        log.observe(None, &q, &p.snap, p.world.now());
        q
    };
    // Until the failing node's turn brings its first item.
    let (node, first) = loop {
        p.step(SignedDuration::from_secs(10));
        let q = settle(&p);
        if let Some(i) = q.iter().find(|i| i.kind == AttentionKind::MigrationFailing) {
            break (i.node.clone().unwrap(), i.since);
        }
        assert!(
            p.world.now() < end_of_update(&p),
            "no failing migration came"
        );
    };
    let lock_message = |p: &Played| {
        p.snap
            .node_locks()
            .find(|l| {
                l.node_name.as_deref() == Some(node.as_str())
                    && l.controller == Controller::Openstack
            })
            .and_then(|l| l.error_message.as_ref().map(|m| m.as_str().to_string()))
    };
    let mut messages = BTreeSet::new();
    let end = p.world.now() + SignedDuration::from_hours(2);
    while p.world.now() < end {
        p.step(SignedDuration::from_secs(10));
        messages.extend(lock_message(&p));
        let q = settle(&p);
        let of_node: Vec<&AttentionItem> = q
            .iter()
            .filter(|i| i.node.as_deref() == Some(node.as_str()))
            .collect();
        assert_eq!(of_node.len(), 1, "at {}: {of_node:#?}", p.world.now());
        assert_eq!(
            of_node[0].since,
            first,
            "at {}: {:#?}",
            p.world.now(),
            of_node[0]
        );
    }
    // The message did cycle: a start and an error per attempt, the servers
    // left, again and again.
    assert!(messages.len() > 20, "{messages:#?}");
    let q = settle(&p);
    let item = q
        .iter()
        .find(|i| i.node.as_deref() == Some(node.as_str()))
        .unwrap();
    assert!(p.world.now().duration_since(item.since) >= SignedDuration::from_hours(2));
    let rows: Vec<_> = log
        .items()
        .filter(|i| i.node.as_deref() == Some(node.as_str()))
        .collect();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0].ended, None);
    assert_eq!(rows[0].raised, first);
}
