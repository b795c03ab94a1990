//! Exploration: stuck-drain played with a History.
#[path = "../sim_snapshot/mod.rs"]
mod sim_snapshot;

use jiff::SignedDuration;
use mosk_console::domain::attention::queue;
use mosk_console::domain::history::History;
use mosk_console::domain::objects::{Kind, Snapshot};
use mosk_console::domain::progress::progress;
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::world::SimWorld;

#[test]
fn explore() {
    let world = SimWorld::new(
        load_scenario(&std::env::var("SCEN").unwrap_or("stuck-drain".into())).unwrap(),
        7,
    );
    let mut snap = Snapshot::default();
    let mut history = History::new();
    for i in 0..(2 * 60 * 6) {
        let fresh = sim_snapshot::snapshot(&world);
        for kind in Kind::ALL {
            let objs = fresh
                .objects
                .values()
                .filter(|o| o.key().kind == kind)
                .cloned()
                .collect();
            history.relist(&mut snap, kind, objs, world.now());
        }
        if i % std::env::var("EVERY")
            .map(|v| v.parse().unwrap())
            .unwrap_or(30)
            == 0
        {
            let now = world.now();
            let p = progress(&snap, &history, now);
            println!(
                "== {now} done {}/{} eta {:?} {:?}",
                p.done, p.total, p.eta, p.eta_source
            );
            for m in snap.machines() {
                println!(
                    "   {} {} {:?}",
                    m.name,
                    m.state,
                    history.turn_started(&m.name)
                );
            }
            if i == 360 {
                for l in snap.node_locks().chain(snap.cluster_locks()) {
                    println!(
                        "   LOCK {} {} {:?} {:?} {:?}",
                        l.name,
                        l.state,
                        l.node_name,
                        l.error_message,
                        history.lock_since(
                            &mosk_console::domain::objects::Object::NodeWorkloadLock(l.clone())
                                .key()
                        )
                    );
                }
                for c in snap.cluster_states() {
                    println!(
                        "   CS {} {} {:?} {:?} {:?} {:?}",
                        c.name, c.state_type, c.arg, c.attempt, c.message, c.value
                    );
                }
                for r in snap.node_requests() {
                    println!("   NMR {} {:?}", r.name, r.created);
                }
            }
            for it in queue(
                &snap,
                &history,
                now,
                &Default::default(),
                &Default::default(),
            ) {
                println!(
                    "  [{}] {} since {} : {}",
                    it.kind.label(),
                    it.subject,
                    it.since,
                    it.why
                );
            }
        }
        world.step(SignedDuration::from_secs(10));
    }
}
