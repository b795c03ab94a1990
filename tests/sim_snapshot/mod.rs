//! The console's view of a simulated world without the HTTP path: every
//! object of every watched kind, filtered and converted as the watchers do.
//! For tests that step the simulator's clock and read the domain at once.
#![allow(dead_code)]

use kube::api::DynamicObject;
use mosk_console::cluster::convert::{convert, is_wanted};
use mosk_console::domain::objects::{ClusterId, Kind, Snapshot};
use mosk_console::sim::world::SimWorld;

pub fn snapshot(world: &SimWorld) -> Snapshot {
    let mut snap = Snapshot::default();
    for kind in Kind::ALL {
        let store = match kind.cluster() {
            ClusterId::Mgmt => world.mgmt(),
            ClusterId::Mosk => world.mosk(),
        };
        for v in store.list(kind.plural(), None) {
            let obj: DynamicObject = serde_json::from_value(v).unwrap();
            if is_wanted(kind, &obj, None) {
                snap.apply(convert(kind, &obj));
            }
        }
    }
    snap
}
