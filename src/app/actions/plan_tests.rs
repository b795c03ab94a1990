//! Pure tests of planning: what each action would change, old -> new.

use super::*;
use crate::domain::fixtures::{self, names::*};
use crate::domain::objects::{LockState, Object, WorkloadLock};
use std::sync::Arc;

fn ctx() -> PlanContext {
    PlanContext {
        mosk_context: "sim-mosk".into(),
        dry_run: false,
    }
}

fn annotations(step: &PlannedStep) -> &[AnnotationChange] {
    match &step.change {
        Change::Annotations { annotations } => annotations,
        other => panic!("not an annotation change: {other:?}"),
    }
}

fn ann(key: &str, old: Option<&str>, new: Option<&str>) -> AnnotationChange {
    AnnotationChange {
        key: key.into(),
        old: old.map(str::to_string),
        new: new.map(str::to_string),
    }
}

#[test]
fn set_mode_on_one_node_names_the_node_and_the_change() {
    let snap = fixtures::mid_update();
    let plan = plan_set_mode(&snap, &ctx(), &[NODE_W3.into()], &MigrationMode::Skip, None).unwrap();
    assert_eq!(plan.action, ActionId::SetMigrationMode);
    assert_eq!(plan.context, "sim-mosk");
    assert_eq!(plan.cluster, ClusterId::Mosk);
    assert_eq!(plan.steps.len(), 1);
    let s = &plan.steps[0];
    assert_eq!(s.target.kind, Kind::Node);
    assert_eq!(s.target.name, NODE_W3);
    assert_eq!(s.target.uid, format!("uid-{NODE_W3}"));
    assert_eq!(
        annotations(s),
        [ann(MigrationMode::ANNOTATION, Some("manual"), Some("skip"))]
    );
    assert_eq!(
        s.change.describe(),
        "instance_migration_mode: manual -> skip"
    );
    assert!(
        plan.warnings
            .iter()
            .any(|w| w.contains("go down when it reboots"))
    );
}

#[test]
fn set_mode_on_several_nodes_with_attempts() {
    let snap = fixtures::mid_update();
    let nodes = [NODE_W1.to_string(), NODE_W2.to_string()];
    let plan = plan_set_mode(&snap, &ctx(), &nodes, &MigrationMode::Manual, Some(3)).unwrap();
    assert_eq!(plan.steps.len(), 2);
    // worker-1: live with 5 attempts.
    assert_eq!(
        annotations(&plan.steps[0]),
        [
            ann(MigrationMode::ANNOTATION, Some("live"), Some("manual")),
            ann(MigrationMode::ATTEMPTS_ANNOTATION, Some("5"), Some("3")),
        ]
    );
    // worker-2: nothing set.
    assert_eq!(
        annotations(&plan.steps[1]),
        [
            ann(MigrationMode::ANNOTATION, None, Some("manual")),
            ann(MigrationMode::ATTEMPTS_ANNOTATION, None, Some("3")),
        ]
    );
    assert_eq!(
        plan.steps[1].change.describe(),
        "instance_migration_mode: (unset) -> manual; instance_migration_attempts: (unset) -> 3"
    );
}

#[test]
fn set_mode_leaves_out_nodes_already_set_and_refuses_when_nothing_changes() {
    let snap = fixtures::mid_update();
    let nodes = [NODE_W1.to_string(), NODE_W3.to_string()];
    let plan = plan_set_mode(&snap, &ctx(), &nodes, &MigrationMode::Manual, None).unwrap();
    assert_eq!(plan.steps.len(), 1, "worker-3 is already manual");
    assert_eq!(plan.steps[0].target.name, NODE_W1);
    assert!(plan.notes[0].contains(NODE_W3));
    let e = plan_set_mode(
        &snap,
        &ctx(),
        &[NODE_W3.into()],
        &MigrationMode::Manual,
        None,
    )
    .unwrap_err();
    assert!(e.0.starts_with("nothing to change"), "{e}");
    let e = plan_set_mode(
        &snap,
        &ctx(),
        &["kaas-node-gone".into()],
        &MigrationMode::Skip,
        None,
    )
    .unwrap_err();
    assert!(
        e.0.contains("kaas-node-gone") && e.0.contains("refresh"),
        "{e}"
    );
    let e = plan_set_mode(&snap, &ctx(), &[], &MigrationMode::Skip, None).unwrap_err();
    assert!(e.0.contains("no node selected"), "{e}");
}

#[test]
fn attempts_must_be_a_whole_number_from_1_to_100() {
    assert_eq!(parse_attempts(""), Ok(None));
    assert_eq!(parse_attempts("  "), Ok(None));
    assert_eq!(parse_attempts("1"), Ok(Some(1)));
    assert_eq!(parse_attempts(" 7 "), Ok(Some(7)));
    assert_eq!(parse_attempts("100"), Ok(Some(100)));
    for bad in [
        "0",
        "101",
        "-1",
        "2.5",
        "three",
        "1e2",
        "99999999999999999999",
    ] {
        let e = parse_attempts(bad).unwrap_err();
        assert!(e.0.contains("whole number from 1 to 100"), "{bad}: {e}");
    }
}

#[test]
fn acknowledge_is_offered_for_both_message_formats_with_their_servers() {
    let snap = fixtures::mid_update();
    // worker-2: E-LEFT-OLD (dict repr).
    assert_eq!(
        acknowledge_offer(&snap, &History::new(), NODE_W2),
        Ok(vec![SERVER_A.to_string(), SERVER_B.to_string()])
    );
    // worker-3: E-LEFT (MOSK 25.1).
    assert_eq!(
        acknowledge_offer(&snap, &History::new(), NODE_W3),
        Ok(vec![SERVER_C.to_string()])
    );
    // worker-4: no message; worker-1: done.
    assert!(acknowledge_offer(&snap, &History::new(), NODE_W4).is_err());
    assert!(acknowledge_offer(&snap, &History::new(), NODE_W1).is_err());
}

#[test]
fn acknowledge_reads_the_documented_list_form_too() {
    let mut snap = fixtures::mid_update();
    // The 22.1 docs example (a node in manual mode, seed 000 Step 5) prints
    // a list where the code printed a dict.
    let mut n = fixtures::node(NODE_W4, true);
    n.migration_mode = Some(MigrationMode::Manual);
    snap.apply(Object::Node(Arc::new(n)));
    let msg = format!(
        "2022-02-04 14:43:52.674125 Some servers ['{SERVER_A}'] are still present on host {NODE_W4}. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'"
    );
    let lock: WorkloadLock = fixtures::node_lock(
        Controller::Openstack,
        NODE_W4,
        LockState::Active,
        Some(&msg),
    );
    snap.apply(Object::NodeWorkloadLock(Arc::new(lock)));
    assert_eq!(
        acknowledge_offer(&snap, &History::new(), NODE_W4),
        Ok(vec![SERVER_A.to_string()])
    );
}

#[test]
fn acknowledge_is_not_offered_when_the_lock_is_inactive_or_says_something_else() {
    let mut snap = fixtures::mid_update();
    let msg = fixtures::worker2_lock_message();
    snap.apply(Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
        Controller::Openstack,
        NODE_W2,
        LockState::Inactive,
        Some(&msg),
    ))));
    let e = acknowledge_offer(&snap, &History::new(), NODE_W2).unwrap_err();
    assert!(e.contains("already inactive"), "{e}");
    let other = format!(
        "{} Starting migration for {SERVER_A}",
        fixtures::rockoon_stamp("10:00:00")
    );
    snap.apply(Object::NodeWorkloadLock(Arc::new(fixtures::node_lock(
        Controller::Openstack,
        NODE_W2,
        LockState::Active,
        Some(&other),
    ))));
    let e = acknowledge_offer(&snap, &History::new(), NODE_W2).unwrap_err();
    assert!(e.contains("does not say servers are still present"), "{e}");
    // A TF lock's message never counts, even one that reads like OpenStack's
    // (on a node with no OpenStack lock, so only the TF lock could answer).
    let tf_only = "kaas-node-tf-only";
    snap.apply(Object::NodeWorkloadLock(Arc::new(
        fixtures::tf_lock_saying_servers_present(tf_only),
    )));
    let e = acknowledge_offer(&snap, &History::new(), tf_only).unwrap_err();
    assert!(e.contains("no OpenStack node lock"), "{e}");
}

#[test]
fn acknowledge_plans_skip_and_keeps_the_servers() {
    let snap = fixtures::mid_update();
    let nodes = [
        NODE_W2.to_string(),
        NODE_W3.to_string(),
        NODE_W4.to_string(),
    ];
    let plan = plan_acknowledge(&snap, &History::new(), &ctx(), &nodes).unwrap();
    assert_eq!(plan.action, ActionId::AcknowledgeMigration);
    assert_eq!(plan.steps.len(), 2);
    assert_eq!(
        annotations(&plan.steps[0]),
        [ann(MigrationMode::ANNOTATION, None, Some("skip"))]
    );
    assert_eq!(plan.steps[0].servers, vec![SERVER_A, SERVER_B]);
    assert_eq!(
        annotations(&plan.steps[1]),
        [ann(MigrationMode::ANNOTATION, Some("manual"), Some("skip"))]
    );
    assert_eq!(plan.steps[1].servers, vec![SERVER_C]);
    assert!(plan.notes.iter().any(|n| n.contains(NODE_W4)));
    let e = plan_acknowledge(&snap, &History::new(), &ctx(), &[NODE_W4.into()]).unwrap_err();
    assert!(e.0.contains("servers are still present"), "{e}");
}

#[test]
fn restart_targets_the_outdated_pod_with_its_uid_and_warns_under_maintenance() {
    let snap = fixtures::mid_update();
    let plan = plan_restart(&snap, &ctx(), &[NODE_W2.into()]).unwrap();
    assert_eq!(plan.steps.len(), 1);
    let s = &plan.steps[0];
    assert_eq!(s.target.kind, Kind::VrouterPod);
    assert_eq!(s.target.namespace, "tf");
    assert_eq!(s.target.name, VROUTER_POD_W2);
    assert_eq!(s.target.uid, format!("uid-{VROUTER_POD_W2}"));
    assert_eq!(
        s.change,
        Change::RestartPod {
            node: NODE_W2.into(),
            daemonset: VROUTER_DS.into(),
            running_generation: Some(1),
            current_generation: Some(2),
        }
    );
    assert_eq!(
        s.change.describe(),
        "delete; replacement runs template generation 1 -> 2"
    );
    assert!(
        plan.warnings
            .iter()
            .any(|w| w.contains(NODE_W2) && w.contains("NodeMaintenanceRequest")),
        "{:?}",
        plan.warnings
    );
    // worker-4 has no maintenance request: no such warning.
    let plan = plan_restart(&snap, &ctx(), &[NODE_W4.into()]).unwrap();
    assert!(
        !plan
            .warnings
            .iter()
            .any(|w| w.contains("NodeMaintenanceRequest"))
    );
    // worker-1's pod is current already.
    let e = plan_restart(&snap, &ctx(), &[NODE_W1.into()]).unwrap_err();
    assert!(e.0.contains("already runs the current revision"), "{e}");
}

#[test]
fn restart_on_several_nodes_and_restart_all_go_one_at_a_time() {
    let snap = fixtures::mid_update();
    let nodes = [NODE_W4.to_string(), NODE_W3.to_string()];
    let plan = plan_restart(&snap, &ctx(), &nodes).unwrap();
    let names: Vec<&str> = plan.steps.iter().map(|s| s.node.as_str()).collect();
    let mut expected = vec![NODE_W3, NODE_W4];
    expected.sort();
    assert_eq!(names, expected, "stable order by node");
    let all = plan_restart_all(&snap, &ctx()).unwrap();
    assert_eq!(all.action, ActionId::RestartAllVrouters);
    assert_eq!(all.steps.len(), 3);
    assert!(all.steps.iter().all(|s| s.node != NODE_W1));
    assert!(all.warnings.iter().any(|w| w.contains("one at a time")));
    let e = plan_restart_all(&fixtures::idle(), &ctx()).unwrap_err();
    assert!(e.0.contains("no outdated vRouter pod"), "{e}");
}

#[test]
fn a_restart_is_refused_while_another_vrouter_is_down() {
    // worker-1's pod (current) is not Ready: restarting worker-3's would
    // leave two nodes without a vRouter.
    let mut snap = fixtures::mid_update();
    snap.apply(Object::VrouterPod(Arc::new(fixtures::vrouter_pod(
        VROUTER_POD_W1,
        NODE_W1,
        2,
        false,
    ))));
    let e = plan_restart(&snap, &ctx(), &[NODE_W3.into()]).unwrap_err();
    assert_eq!(
        e.0,
        format!(
            "refused: {VROUTER_POD_W1} on {NODE_W1} is not Ready; restarting {VROUTER_POD_W3} now would leave two vRouters down at once: wait until it is Ready, then retry"
        )
    );
    assert!(plan_restart_all(&snap, &ctx()).is_err());

    // worker-2's pod Terminating (the previous restart): refused too.
    let mut snap = fixtures::mid_update();
    let mut w2 = fixtures::vrouter_pod(VROUTER_POD_W2, NODE_W2, 1, true);
    w2.deleting = true;
    snap.apply(Object::VrouterPod(Arc::new(w2)));
    let e = plan_restart(&snap, &ctx(), &[NODE_W3.into()]).unwrap_err();
    assert!(
        e.0.contains(&format!("{VROUTER_POD_W2} on {NODE_W2} is Terminating")),
        "{e}"
    );

    // The pod that is down is the one to restart: nothing else is down.
    let mut snap = fixtures::mid_update();
    snap.apply(Object::VrouterPod(Arc::new(fixtures::vrouter_pod(
        VROUTER_POD_W3,
        NODE_W3,
        1,
        false,
    ))));
    let plan = plan_restart(&snap, &ctx(), &[NODE_W3.into()]).unwrap();
    assert_eq!(plan.steps[0].target.name, VROUTER_POD_W3);
}

#[test]
fn the_restart_dialog_says_to_migrate_the_workloads_first() {
    let snap = fixtures::mid_update();
    for plan in [
        plan_restart(&snap, &ctx(), &[NODE_W3.into()]).unwrap(),
        plan_restart_all(&snap, &ctx()).unwrap(),
    ] {
        assert!(
            plan.warnings.iter().any(|w| w
                .ends_with("migrate the workloads first where a network cut is not acceptable")),
            "{:?}",
            plan.warnings
        );
    }
}

#[test]
fn a_spec_edit_outside_the_template_offers_no_restart() {
    // metadata.generation 7, template generation 6, every pod from
    // template 6 with the matching hash, the controller caught up.
    let mut snap = fixtures::mid_update();
    for (node, pod) in fixtures::VROUTER_PODS {
        snap.apply(Object::VrouterPod(Arc::new(fixtures::vrouter_pod(
            pod, node, 6, true,
        ))));
    }
    let mut ds = fixtures::vrouter_ds(7, 4);
    ds.template_generation = Some(6);
    ds.updated = 4;
    snap.apply(Object::VrouterDaemonSet(Arc::new(ds)));
    let e = plan_restart_all(&snap, &ctx()).unwrap_err();
    assert!(e.0.contains("no outdated vRouter pod"), "{e}");
    let e = plan_restart(&snap, &ctx(), &[NODE_W3.into()]).unwrap_err();
    assert!(e.0.contains("already runs the current revision"), "{e}");
}
