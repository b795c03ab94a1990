//! Instance migration modes: live with failures, manual, skip, old message format.

use std::collections::BTreeSet;

use jiff::SignedDuration;
use mosk_console::sim::scenario::lcm::MachineStep;
use mosk_console::sim::scenario::spec::Role;
use mosk_console::sim::scenario::text::left_new;
use mosk_console::sim::world::SimWorld;

use super::*;

#[test]
fn manual_node_waits_for_the_operator_then_skip_hard_reboots_its_servers() {
    let w = quick(3);
    let m = w
        .machines()
        .into_iter()
        .find(|m| m.role == Role::Compute && m.role_index == 1)
        .unwrap();
    let lock = format!("openstack-{}", m.node);
    let left = |w: &SimWorld| {
        str_at(&nwl(w, &lock), "/status/errorMessage")
            .contains("Notify owners of the following server:")
    };
    // Other nodes waiting for the operator are released so the update reaches this one.
    assert!(w.step_until(3 * HOUR, |w| {
        for other in w.mosk().list("nodeworkloadlocks", None) {
            let node = str_at(&other, "/spec/nodeName");
            if node != m.node
                && str_at(&other, "/status/errorMessage").contains("Some servers are still present")
            {
                annotate(w, node, MODE, "skip");
            }
        }
        left(w)
    }));
    let servers = w.servers_on(&m.node);
    assert!(servers.len() >= 2, "{servers:?}");
    let l = nwl(&w, &lock);
    let first = str_at(&l, "/status/errorMessage").to_string();
    assert_eq!(strip_ts(&first), left_new(&servers, &[]));
    assert_eq!(str_at(&l, "/status/state"), "active");
    assert_eq!(str_at(&l, "/metadata/annotations/inner_state"), "active");

    // Nothing moves while the operator does nothing; the controller re-checks every minute.
    let cd_name = format!("cd-{}", m.name);
    let attempt = |w: &SimWorld| {
        get(w, false, "lcmclusterstates", Some("child-ns"), &cd_name).unwrap()["status"]["attempt"]
            .as_u64()
            .unwrap()
    };
    let a0 = attempt(&w);
    w.step(10 * MIN);
    let l = nwl(&w, &lock);
    assert_eq!(str_at(&l, "/status/state"), "active");
    let later = str_at(&l, "/status/errorMessage").to_string();
    assert_ne!(
        later, first,
        "the message is rewritten with a new timestamp at each retry"
    );
    assert_eq!(strip_ts(&later), left_new(&servers, &[]));
    assert_eq!(machine_state(&w, &m.name), "Prepare");
    assert!(matches!(
        w.machine_step(m.index),
        MachineStep::WaitingLocks { .. }
    ));
    assert_eq!(
        (a0, attempt(&w)),
        (0, 0),
        "the cordon-drain attempt stays 0 while the lock is active, as in the seed"
    );
    let cd = get(&w, false, "lcmclusterstates", Some("child-ns"), &cd_name).unwrap();
    assert_eq!(
        str_at(&cd, "/status/message"),
        "Error: following NodeWorkloadLocks are still active - openstack: InProgress"
    );
    assert_eq!(cd["spec"]["value"], "true");
    assert!(cd["status"].get("value").is_none());
    let sd = get(
        &w,
        false,
        "lcmclusterstates",
        Some("child-ns"),
        &format!("sd-{}", m.name),
    )
    .unwrap();
    assert_eq!(
        str_at(&sd, "/status/message"),
        format!(
            "Error: waiting for kubernetes node {} to be drained first",
            m.node
        )
    );

    // The operator migrated by hand (not modelled) and confirms with `skip`.
    let t_skip = w.now();
    annotate(&w, &m.node, MODE, "skip");
    assert!(
        w.step_until(2 * MIN, |w| str_at(&nwl(w, &lock), "/status/state")
            == "inactive")
    );
    assert!(
        w.now().duration_since(t_skip) <= SignedDuration::from_secs(62),
        "taken at the next retry"
    );
    assert!(nwl(&w, &lock).pointer("/status/errorMessage").is_none());
    assert!(w.step_until(30 * MIN, |w| machine_state(w, &m.name) == "Ready"));
    let hr = w.hard_reboots();
    let rec = hr
        .iter()
        .find(|r| r.node == m.node)
        .expect("hard reboot recorded");
    assert_eq!(rec.machine, m.name);
    assert_eq!(
        rec.servers.iter().cloned().collect::<BTreeSet<_>>(),
        servers.into_iter().collect::<BTreeSet<_>>()
    );
}

#[test]
fn failing_live_migration_falls_back_after_the_annotated_attempts() {
    let w = quick(4);
    let m = w
        .machines()
        .into_iter()
        .find(|m| m.role == Role::Compute && m.role_index == 2)
        .unwrap();
    let bad = m
        .servers
        .iter()
        .find(|s| s.problem.is_some())
        .unwrap()
        .id
        .clone();
    let lock = format!("openstack-{}", m.node);
    let mut rx = subscribe(&w);
    let mut msgs = Vec::new();
    let e_left_only_bad = left_new(&[], std::slice::from_ref(&bad));
    let lefts = |msgs: &[String]| {
        msgs.iter()
            .filter(|m| m.starts_with("Some servers are still present"))
            .count()
    };
    assert!(
        w.step_until(4 * HOUR, |w| {
            for other in w.mosk().list("nodeworkloadlocks", None) {
                let node = str_at(&other, "/spec/nodeName");
                if node != m.node
                    && str_at(&other, "/status/errorMessage")
                        .contains("Some servers are still present")
                {
                    annotate(w, node, MODE, "skip");
                }
            }
            drain_messages(&mut rx, &lock, &mut msgs);
            msgs.contains(&e_left_only_bad)
        }),
        "{msgs:?}"
    );
    // One round between two checks: exactly 2 attempts (annotation) for the bad server.
    let last_left = msgs.len() - 1;
    let prev_left = msgs[..last_left]
        .iter()
        .rposition(|x| x.starts_with("Some servers are still present"))
        .expect("an earlier check");
    let round = &msgs[prev_left + 1..last_left];
    let starts = round
        .iter()
        .filter(|x| **x == format!("Starting migration for {bad}"))
        .count();
    let errors: Vec<&String> = round
        .iter()
        .filter(|x| x.starts_with(&format!("Got error while trying to migrate server {bad}: ")))
        .collect();
    assert_eq!((starts, errors.len()), (2, 2), "{round:?}");
    assert!(
        errors[0].contains("Migration pre-check error"),
        "{}",
        errors[0]
    );

    // A new attempts value applies at the next retry.
    annotate(&w, &m.node, ATTEMPTS, "4");
    let n = lefts(&msgs);
    assert!(w.step_until(5 * MIN, |_| {
        drain_messages(&mut rx, &lock, &mut msgs);
        lefts(&msgs) > n
    }));
    let round = &msgs[last_left + 1..msgs.len() - 1];
    let errors = round
        .iter()
        .filter(|x| x.starts_with(&format!("Got error while trying to migrate server {bad}")))
        .count();
    assert_eq!(errors, 4, "{round:?}");
    assert_eq!(msgs.last().unwrap(), &e_left_only_bad);
    // The good instance was live-migrated away, the bad one is still there.
    assert_eq!(w.servers_on(&m.node), vec![bad.clone()]);
    assert_eq!(str_at(&nwl(&w, &lock), "/status/state"), "active");
}

#[test]
fn old_message_format_lists_servers_with_status_and_host() {
    let w = custom(&format!(
        "name = \"t\"\nmessage_format = \"old\"\n{SHORT_DURATIONS}\n\
         [[machines]]\nrole = \"control\"\ncount = 1\n\
         [[machines]]\nrole = \"compute\"\ncount = 2\ninstances = 1\nmigration_mode = \"manual\"\n"
    ));
    let m = w.machines()[1].clone();
    let lock = format!("openstack-{}", m.node);
    assert!(w.step_until(HOUR, |w| {
        str_at(&nwl(w, &lock), "/status/errorMessage").contains("Some servers")
    }));
    let msg = strip_ts(str_at(&nwl(&w, &lock), "/status/errorMessage"));
    assert_eq!(
        msg,
        format!(
            "Some servers {{'{}': 'ACTIVE'}} are still present on host {}. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'",
            m.servers[0].id, m.node
        )
    );
}
