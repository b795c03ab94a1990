//! The console is known to the cluster by name: every request carries
//! `User-Agent: mosk-console/<version>` and every patch
//! `fieldManager=mosk-console`, so the node's `managedFields` and the API
//! server's audit log say who changed what (a real server records an empty
//! User-Agent's writes as `unknown`).

use mosk_console::cluster::connect::USER_AGENT;
use mosk_console::cluster::writes::{FIELD_MANAGER, WriteMode, Writer};
use mosk_console::domain::action::plan::AnnotationChange;
use mosk_console::sim::registry::Registry;

use crate::cluster_support::{node, pair};

#[tokio::test]
async fn every_request_says_mosk_console_and_every_patch_its_field_manager() {
    assert_eq!(
        USER_AGENT,
        concat!("mosk-console/", env!("CARGO_PKG_VERSION"))
    );
    let p = pair(Registry::mgmt(), Registry::mosk()).await;
    p.mosk.store.create("nodes", node("kaas-node-1")).unwrap();
    let clusters = p.connect().await;
    let writer = Writer::new(
        clusters.mgmt.clone(),
        clusters.mosk.clone(),
        WriteMode::Live,
    );
    let uid = p
        .mosk
        .store
        .get("nodes", None, "kaas-node-1")
        .and_then(|n| {
            n.pointer("/metadata/uid")
                .and_then(|u| u.as_str())
                .map(str::to_string)
        })
        .expect("the node's uid");
    writer
        .patch_node_annotations(
            "kaas-node-1",
            &uid,
            &[AnnotationChange {
                key: "openstack.lcm.mirantis.com/instance_migration_mode".into(),
                old: None,
                new: Some("skip".into()),
            }],
        )
        .await
        .unwrap();

    let seen = p.mosk.faults.seen();
    assert!(seen.len() >= 2, "{seen:#?}");
    for r in seen.iter().chain(p.mgmt.faults.seen().iter()) {
        assert_eq!(r.user_agent, USER_AGENT, "{r:?}");
    }
    let patch = seen
        .iter()
        .find(|r| r.method == "PATCH")
        .expect("the patch reached the server");
    assert_eq!(patch.path, "/api/v1/nodes/kaas-node-1");
    assert_eq!(patch.field_manager.as_deref(), Some(FIELD_MANAGER));
    assert_eq!(FIELD_MANAGER, "mosk-console");
}
