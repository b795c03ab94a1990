//! Values the console does not know (a machine state, a lock controller and
//! lock state, a cluster-state type that no reference lists) reach the
//! screen with their own text: nothing is dropped, renamed or shown as a
//! known value. The objects come as the API server sends them, go through
//! `cluster::convert` as the watchers do, and reach the model through
//! `update` as watch events; the screen is reached by key presses.

use crate::domain::fixtures::names::*;
use crate::ui_support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kube::api::DynamicObject;
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::cluster::convert::convert;
use mosk_console::cluster::events::ClusterEvent;
use mosk_console::domain::objects::{ClusterStateType, Controller, Kind, LockState, MachineState};
use serde_json::{Value, json};

/// Not an LCMMachine state in the CRD's list: the docs show `Provision`
/// for a provider Machine before the LCM states (reference §7.3).
const UNKNOWN_STATE: &str = "Provision";

fn arrive(model: &mut Model, kind: Kind, body: Value) {
    let obj: DynamicObject = serde_json::from_value(body).expect("a DynamicObject");
    update(
        model,
        Msg::Cluster(ClusterEvent::Applied(convert(kind, &obj))),
    );
}

fn key(model: &mut Model, code: KeyCode) {
    update(model, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// The mid-update cluster, then worker-4's LCMMachine in an unknown state,
/// a lock of an unknown controller in an unknown state on its node, and a
/// cluster state of an unknown type for it, all as watch events.
fn with_unknown_values() -> Model {
    let mut m = with_view(View::Overview);
    arrive(
        &mut m,
        Kind::LcmMachine,
        json!({
            "apiVersion": "lcm.mirantis.com/v1alpha1", "kind": "LCMMachine",
            "metadata": {"name": WORKER_4, "namespace": NAMESPACE, "uid": format!("uid-{WORKER_4}"),
                         "annotations": {"lcm.mirantis.com/index": "6"}},
            "spec": {"clusterName": CLUSTER, "type": "worker"},
            "status": {"state": UNKNOWN_STATE, "agentVersion": "1.42.7", "release": CURRENT_RELEASE,
                       "addresses": [{"type": "InternalIP", "address": "10.10.0.16"},
                                     {"type": "Hostname", "address": NODE_W4}]}
        }),
    );
    arrive(
        &mut m,
        Kind::NodeWorkloadLock,
        json!({
            "apiVersion": "lcm.mirantis.com/v1alpha1", "kind": "NodeWorkloadLock",
            "metadata": {"name": format!("stacklight-{NODE_W4}")},
            "spec": {"controllerName": "stacklight", "nodeName": NODE_W4},
            "status": {"state": "pending"}
        }),
    );
    arrive(
        &mut m,
        Kind::LcmClusterState,
        json!({
            "apiVersion": "lcm.mirantis.com/v1alpha1", "kind": "LCMClusterState",
            "metadata": {"name": format!("nl-{WORKER_4}"), "namespace": NAMESPACE},
            "spec": {"clusterName": CLUSTER, "type": "node-label", "arg": WORKER_4, "value": "true"},
            "status": {"attempt": 2}
        }),
    );
    m
}

#[test]
fn the_unknown_values_are_kept_as_others_with_their_text() {
    let m = with_unknown_values();
    let machine = m
        .snapshot
        .machines()
        .find(|x| x.name == WORKER_4)
        .expect("worker-4");
    assert_eq!(machine.state, MachineState::Other(UNKNOWN_STATE.into()));
    let lock = m
        .snapshot
        .node_locks()
        .find(|l| l.name == format!("stacklight-{NODE_W4}"))
        .expect("the stacklight lock");
    assert_eq!(lock.controller, Controller::Other("stacklight".into()));
    assert_eq!(lock.state, LockState::Other("pending".into()));
    assert!(
        m.snapshot.objects().values().any(|o| matches!(
            o,
            mosk_console::domain::objects::Object::ClusterState(s)
                if s.state_type == ClusterStateType::Other("node-label".into())
        )),
        "the node-label cluster state"
    );
}

#[test]
fn an_unknown_machine_state_lock_and_cluster_state_are_drawn_with_their_own_text() {
    let mut m = with_unknown_values();
    key(&mut m, KeyCode::Char('2'));
    // At 200 columns every column of the row has room (at 160 the lower
    // priority LOCKS column is cut to give WAITING ON its text).
    let text = text_of(render(&m, 200, 48).backend().buffer());
    let row = text
        .lines()
        .find(|l| l.contains(WORKER_4))
        .unwrap_or_else(|| panic!("no row for {WORKER_4}:\n{text}"));
    assert!(row.contains(UNKNOWN_STATE), "state not drawn: {row}");
    // The lock's unknown state and, in WAITING ON, the pending cluster
    // state by its type.
    assert!(row.contains("stacklight:pending"), "lock not drawn: {row}");
    assert!(
        row.contains("node-label attempt 2"),
        "cluster state not drawn: {row}"
    );

    // Its detail: the state, the lock and the cluster state, each as sent.
    key(&mut m, KeyCode::Char('G'));
    key(&mut m, KeyCode::Enter);
    let t = render(&m, 160, 48);
    insta::assert_snapshot!("machine_in_an_unknown_state_160x48", t.backend());
    let text = text_of(t.backend().buffer());
    for needle in [
        UNKNOWN_STATE,
        "stacklight pending",
        "node-label value true actual -",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }

    // The Locks view lists the lock under its own controller and state.
    key(&mut m, KeyCode::Esc);
    key(&mut m, KeyCode::Char('4'));
    let text = text_of(render(&m, 160, 48).backend().buffer());
    let row = text
        .lines()
        .find(|l| l.contains(" stacklight "))
        .unwrap_or_else(|| panic!("no stacklight lock row:\n{text}"));
    assert!(row.contains("pending"), "{row}");
}
