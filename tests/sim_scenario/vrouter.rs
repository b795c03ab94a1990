//! The vRouter DaemonSet with OnDelete updates.

use jiff::SignedDuration;
use mosk_console::sim::scenario::UpdatePhase;
use mosk_console::sim::scenario::spec::Role;
use mosk_console::sim::world::SimWorld;
use regex::Regex;
use serde_json::Value;

use super::*;

/// DaemonSet status must match its pods at every moment.
fn check_ds_consistent(w: &SimWorld) -> Value {
    let ds = get(w, true, "daemonsets", Some("tf"), "tf-vrouter-agent").unwrap();
    let generation = ds["metadata"]["generation"].as_i64().unwrap();
    // Pods carry the template generation, not `metadata.generation`.
    let template: i64 = str_at(
        &ds,
        "/metadata/annotations/deprecated.daemonset.template.generation",
    )
    .parse()
    .unwrap();
    let pods: Vec<Value> = w
        .mosk()
        .list("pods", Some("tf"))
        .into_iter()
        .filter(|p| p.pointer("/metadata/deletionTimestamp").is_none())
        .collect();
    let ready = pods
        .iter()
        .filter(|p| {
            p["status"]["conditions"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|c| c["type"] == "Ready" && c["status"] == "True")
            })
        })
        .count();
    let updated = pods
        .iter()
        .filter(|p| {
            p["metadata"]["labels"]["pod-template-generation"] == template.to_string().as_str()
        })
        .count();
    let st = &ds["status"];
    assert_eq!(st["observedGeneration"], generation);
    assert_eq!(st["currentNumberScheduled"], pods.len(), "{st}");
    assert_eq!(st["updatedNumberScheduled"], updated, "{st}");
    assert_eq!(st["numberReady"], ready, "{st}");
    assert_eq!(st["numberAvailable"], ready, "{st}");
    ds
}

#[test]
fn vrouter_daemonset_converges_only_after_old_pods_are_deleted() {
    // MOSK 22.2: the operator restarts vRouter pods by hand.
    let w = SimWorld::new(load_scenario("legacy").unwrap(), 5);
    assert_eq!(
        check_ds_consistent(&w)["spec"]["updateStrategy"]["type"],
        "OnDelete"
    );
    drive_to_done(&w, 4 * HOUR);
    let ds = check_ds_consistent(&w);
    assert_eq!(ds["metadata"]["generation"], 2);
    assert_eq!(ds["status"]["desiredNumberScheduled"], 3);
    assert_eq!(ds["status"]["currentNumberScheduled"], 3);
    assert_eq!(ds["status"]["updatedNumberScheduled"], 0);
    w.step(10 * MIN);
    assert_eq!(
        check_ds_consistent(&w)["status"]["updatedNumberScheduled"],
        0,
        "OnDelete: nothing restarts by itself"
    );

    let pod_name = Regex::new(r"^tf-vrouter-agent-[a-z0-9]{5}$").unwrap();
    let computes: Vec<_> = w
        .machines()
        .into_iter()
        .filter(|m| m.role == Role::Compute)
        .collect();
    for (k, m) in computes.iter().enumerate() {
        let old = w
            .mosk()
            .list("pods", Some("tf"))
            .into_iter()
            .find(|p| p["spec"]["nodeName"] == m.node.as_str())
            .unwrap();
        let old_name = str_at(&old, "/metadata/name").to_string();
        let old_rev = str_at(&old, "/metadata/labels/controller-revision-hash").to_string();
        assert_eq!(old["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
        w.mosk()
            .delete("pods", Some("tf"), &old_name, &Value::Null, false)
            .unwrap();
        // The DaemonSet controller sees the deletion at its next step, like a real one.
        w.step(SignedDuration::from_secs(1));
        let mut saw_pending = false;
        assert!(w.step_until(2 * MIN, |w| {
            let ds = check_ds_consistent(w);
            let new = w.mosk().list("pods", Some("tf")).into_iter().find(|p| {
                p["spec"]["nodeName"] == m.node.as_str() && str_at(p, "/metadata/name") != old_name
            });
            if let Some(p) = &new {
                saw_pending |= p["status"]["phase"] == "Pending";
            }
            ds["status"]["updatedNumberScheduled"] == k + 1 && ds["status"]["numberReady"] == 3
        }));
        assert!(saw_pending, "replacement went through Pending");
        let new = w
            .mosk()
            .list("pods", Some("tf"))
            .into_iter()
            .find(|p| p["spec"]["nodeName"] == m.node.as_str())
            .unwrap();
        assert_eq!(new["metadata"]["labels"]["pod-template-generation"], "2");
        assert_ne!(
            str_at(&new, "/metadata/labels/controller-revision-hash"),
            old_rev
        );
        assert!(pod_name.is_match(str_at(&new, "/metadata/name")));
    }
    let ds = check_ds_consistent(&w);
    assert_eq!(
        ds["status"]["updatedNumberScheduled"],
        ds["status"]["currentNumberScheduled"]
    );
}

#[test]
fn a_replacement_vrouter_pod_can_be_made_to_never_become_ready() {
    let w = custom(&format!(
        "name = \"t\"\nvrouter_manual_restart = true\nrelease = {{ from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }}\n{SHORT_DURATIONS}\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\n\
         [[overrides]]\nrole = \"compute\"\nindex = 0\nvrouter_never_ready = true\n"
    ));
    assert!(w.step_until(2 * HOUR, |w| w.phase() == UpdatePhase::Done));
    let node = w.machines()[1].node.clone();
    let old = w
        .mosk()
        .list("pods", Some("tf"))
        .into_iter()
        .find(|p| p["spec"]["nodeName"] == node.as_str())
        .unwrap();
    w.mosk()
        .delete(
            "pods",
            Some("tf"),
            str_at(&old, "/metadata/name"),
            &Value::Null,
            false,
        )
        .unwrap();
    w.step(10 * MIN);
    let ds = check_ds_consistent(&w);
    assert_eq!(ds["status"]["numberReady"], 1);
    let new = w
        .mosk()
        .list("pods", Some("tf"))
        .into_iter()
        .find(|p| p["spec"]["nodeName"] == node.as_str())
        .unwrap();
    assert_eq!(new["status"]["phase"], "Running");
    assert!(
        new["status"]["containerStatuses"][0]["restartCount"]
            .as_u64()
            .unwrap()
            > 5
    );
}

#[test]
fn a_25_1_target_restarts_vrouter_pods_automatically_one_at_a_time() {
    let w = quick(5);
    assert_eq!(w.spec().release.to, "mosk-17-4-0-25-1");
    let mut most_terminating = 0;
    let mut generations_seen = std::collections::BTreeSet::new();
    assert!(w.step_until(4 * HOUR, |w| {
        for lock in w.mosk().list("nodeworkloadlocks", None) {
            if str_at(&lock, "/status/errorMessage").contains("Some servers are still present") {
                let node = str_at(&lock, "/spec/nodeName").to_string();
                annotate(w, &node, MODE, "skip");
            }
        }
        let ds = check_ds_consistent(w);
        let terminating = w
            .mosk()
            .list("pods", Some("tf"))
            .iter()
            .filter(|p| p.pointer("/metadata/deletionTimestamp").is_some())
            .count();
        most_terminating = most_terminating.max(terminating);
        generations_seen.insert(ds["status"]["updatedNumberScheduled"].as_u64().unwrap());
        w.phase() == UpdatePhase::Done
            && ds["status"]["updatedNumberScheduled"] == 3
            && ds["status"]["numberReady"] == 3
    }));
    // Nobody deleted a pod by hand: the TF operator did, one node at a time.
    assert_eq!(most_terminating, 1);
    assert_eq!(
        generations_seen.into_iter().collect::<Vec<_>>(),
        vec![0, 1, 2, 3],
        "UP-TO-DATE grows one pod at a time"
    );
    let ds = check_ds_consistent(&w);
    assert_eq!(ds["metadata"]["generation"], 2);
    for p in w.mosk().list("pods", Some("tf")) {
        assert_eq!(p["metadata"]["labels"]["pod-template-generation"], "2");
    }
}

#[test]
fn a_spec_edit_outside_the_template_moves_only_the_generation() {
    // The knob the `controllers` scenario uses: 5 s in, before the update
    // starts (10 s), `revisionHistoryLimit` goes up by one.
    let w = custom(&format!(
        "name = \"t\"\nvrouter_spec_edit_after = \"5s\"\nvrouter_manual_restart = true\nrelease = {{ from = \"mosk-8-5-0-22-1\", to = \"mosk-8-6-0-22-2\", controller_from = \"8.5.0+22.1\", controller_to = \"8.6.0+22.2\", agent_from = \"1.20.0\", agent_to = \"1.21.2\" }}\n{SHORT_DURATIONS}\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\n"
    ));
    let before = check_ds_consistent(&w);
    let pods_before: Vec<Value> = w.mosk().list("pods", Some("tf"));
    let hash = |p: &Value| str_at(p, "/metadata/labels/controller-revision-hash").to_string();
    w.step(SignedDuration::from_secs(6));
    let after = check_ds_consistent(&w);
    assert_eq!(before["metadata"]["generation"], 1);
    assert_eq!(after["metadata"]["generation"], 2, "the spec edit moves it");
    assert_eq!(after["status"]["observedGeneration"], 2);
    assert_eq!(
        after["spec"]["revisionHistoryLimit"],
        before["spec"]["revisionHistoryLimit"].as_i64().unwrap() + 1
    );
    assert_eq!(after["spec"]["template"], before["spec"]["template"]);
    assert_eq!(
        after["metadata"]["annotations"]["deprecated.daemonset.template.generation"], "1",
        "the template generation does not move"
    );
    assert_eq!(
        after["status"]["updatedNumberScheduled"], after["status"]["currentNumberScheduled"],
        "no pod is outdated by it"
    );
    let pods_after: Vec<Value> = w.mosk().list("pods", Some("tf"));
    assert_eq!(
        pods_after.iter().map(hash).collect::<Vec<_>>(),
        pods_before.iter().map(hash).collect::<Vec<_>>(),
        "same pods, same revision"
    );

    // The TF update then changes the template: both move, by one each.
    drive_to_done(&w, 4 * HOUR);
    let done = check_ds_consistent(&w);
    assert_eq!(done["metadata"]["generation"], 3);
    assert_eq!(
        done["metadata"]["annotations"]["deprecated.daemonset.template.generation"],
        "2"
    );
    assert_eq!(done["status"]["updatedNumberScheduled"], 0, "OnDelete");
}
