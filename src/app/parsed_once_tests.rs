//! A lock's message is parsed once, when the lock arrives: the rules that
//! `update` settles (the join, history, attention, migrations, the session
//! log, the table on screen) read what the cluster layer parsed.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kube::api::DynamicObject;
use serde_json::json;

use crate::app::model::{Model, SessionInfo};
use crate::app::msg::Msg;
use crate::app::update::update;
use crate::cluster::convert::convert;
use crate::cluster::events::ClusterEvent;
use crate::config::keymap::Keymap;
use crate::domain::fixtures::{self, mid_update_now, names::*, rockoon_stamp};
use crate::domain::lockmsg::parse_count;
use crate::domain::objects::{Kind, Object};

/// The mid-update cluster, every kind listed, on the view of `view_key`.
fn model_on(view_key: char) -> Model {
    let mut m = Model::new(
        SessionInfo::default(),
        Keymap::default_keymap(),
        mid_update_now(),
    );
    let snap = fixtures::mid_update();
    for kind in Kind::ALL {
        let objects: Vec<Object> = snap
            .objects()
            .iter()
            .filter(|(k, _)| k.kind == kind)
            .map(|(_, o)| o.clone())
            .collect();
        update(
            &mut m,
            Msg::Cluster(ClusterEvent::Resynced { kind, objects }),
        );
    }
    let key = KeyEvent::new(KeyCode::Char(view_key), KeyModifiers::NONE);
    update(&mut m, Msg::Key(key));
    m
}

/// Worker-2's OpenStack lock as the API server sends it, its message now
/// naming one server less.
fn worker2_lock_changed() -> DynamicObject {
    let message = format!(
        "{} Some servers {{'{SERVER_B}': 'ACTIVE'}} are still present on host {NODE_W2}. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'",
        rockoon_stamp("10:29:41")
    );
    serde_json::from_value(json!({
        "apiVersion": "lcm.mirantis.com/v1alpha1", "kind": "NodeWorkloadLock",
        "metadata": {"name": format!("openstack-{NODE_W2}"),
                     "annotations": {"inner_state": "active"}},
        "spec": {"controllerName": "openstack", "nodeName": NODE_W2},
        "status": {"state": "active", "errorMessage": message, "release": LOCK_RELEASE}
    }))
    .expect("a DynamicObject")
}

#[test]
fn a_lock_change_parses_its_message_once() {
    // The Overview (attention queue), Machines (joined rows) and Locks
    // (its table) settle different derived facts from the same lock.
    for view_key in ['1', '2', '4'] {
        let mut m = model_on(view_key);
        parse_count::take();
        let lock = convert(Kind::NodeWorkloadLock, &worker2_lock_changed());
        assert!(
            matches!(&lock, Object::NodeWorkloadLock(_)),
            "view {view_key}: {lock:?}"
        );
        update(&mut m, Msg::Cluster(ClusterEvent::Applied(lock)));
        assert_eq!(
            parse_count::take(),
            1,
            "view {view_key}: the lock's message was parsed again after it arrived"
        );
        assert!(
            m.derived
                .attention
                .iter()
                .any(|i| i.node.as_deref() == Some(NODE_W2)),
            "view {view_key}: the rules did read the lock: {:#?}",
            m.derived.attention
        );
    }
}
