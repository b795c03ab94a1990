//! Tests of `lockmsg` with the exact texts of the reference's catalogue.
use super::*;

const UUID1: &str = "0ab4dd8f-ef0d-401d-9d5e-e9e97e077422";
const UUID2: &str = "6a0e3d1c-0000-4000-8000-00000000beef";

#[test]
fn timestamp_with_microseconds() {
    let m = parse(
        "2022-02-04 14:43:52.674125 Starting migration for 6a0e3d1c-0000-4000-8000-00000000beef",
    );
    assert_eq!(m.at, Some("2022-02-04T14:43:52.674125Z".parse().unwrap()));
    assert_eq!(m.text, format!("Starting migration for {UUID2}"));
    assert_eq!(
        m.kind,
        MessageKind::MigrationStarted {
            server: UUID2.to_string()
        }
    );
}

#[test]
fn timestamp_without_microseconds() {
    let m = parse("2022-02-04 14:43:52 Waiting for all OpenStack services are healthy.");
    assert_eq!(m.at, Some("2022-02-04T14:43:52Z".parse().unwrap()));
    assert_eq!(m.kind, MessageKind::HealthWait);
}

#[test]
fn no_or_invalid_timestamp_keeps_whole_text() {
    let m = parse("Waiting for all OpenStack services are healthy.");
    assert_eq!(m.at, None);
    assert_eq!(m.kind, MessageKind::HealthWait);
    let m = parse("2022-13-45 99:99:99 something");
    assert_eq!(m.at, None);
    assert_eq!(m.text, "2022-13-45 99:99:99 something");
    assert_eq!(m.kind, MessageKind::Other);
    assert_eq!(parse("").kind, MessageKind::Other);
}

#[test]
fn old_servers_present_list_form_from_docs() {
    // The documented 22.1 example (D-UPD22), folded onto one line by sanitizing.
    let msg = "2022-02-04 14:43:52.674125 Some servers ['0ab4dd8f-ef0d-401d-9d5e-e9e97e077422'] are still present on host kaas-node-b2a55089-5b03-4698-9879-8756e2e81df5. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'";
    let m = parse(msg);
    let MessageKind::ServersPresent(p) = m.kind else {
        panic!("not servers present: {:?}", m.kind)
    };
    assert_eq!(p.format, ServersFormat::Old);
    assert_eq!(p.servers, vec![UUID1.to_string()]);
    assert_eq!(
        p.host.as_deref(),
        Some("kaas-node-b2a55089-5b03-4698-9879-8756e2e81df5")
    );
    // Kept multi-line (as `kubectl -o yaml` folds it): same reading.
    let folded = msg.replace(". Waiting", ".\n  Waiting");
    assert_eq!(parse(&folded).kind.servers(), vec![UUID1.to_string()]);
}

#[test]
fn old_servers_present_dict_form_from_code() {
    let msg = format!(
        "2023-01-10 08:00:01.5 Some servers {{'{UUID1}': 'ACTIVE', '{UUID2}': 'PAUSED'}} are still present on host kaas-node-1. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'"
    );
    let MessageKind::ServersPresent(p) = parse(&msg).kind else {
        panic!("not servers present")
    };
    assert_eq!(p.servers, vec![UUID1.to_string(), UUID2.to_string()]);
    assert_eq!(
        p.statuses,
        vec![
            (UUID1.to_string(), "ACTIVE".to_string()),
            (UUID2.to_string(), "PAUSED".to_string())
        ]
    );
    assert_eq!(p.host.as_deref(), Some("kaas-node-1"));
}

#[test]
fn new_servers_present_with_both_lists() {
    let msg = format!(
        "2025-03-04 10:15:02.118734 Some servers are still present on the host. Notify owners of the following server: ['{UUID1}'] Servers with unset maintenance action: ['{UUID2}']"
    );
    let MessageKind::ServersPresent(p) = parse(&msg).kind else {
        panic!("not servers present")
    };
    assert_eq!(p.format, ServersFormat::New);
    assert_eq!(p.notify, vec![UUID1.to_string()]);
    assert_eq!(p.unset, vec![UUID2.to_string()]);
    assert_eq!(p.servers, vec![UUID1.to_string(), UUID2.to_string()]);
    assert_eq!(p.host, None);
}

#[test]
fn new_servers_present_bare_and_single_list() {
    let MessageKind::ServersPresent(p) = classify("Some servers are still present on the host.")
    else {
        panic!("not servers present")
    };
    assert!(p.servers.is_empty());
    let MessageKind::ServersPresent(p) = classify(&format!(
        "Some servers are still present on the host. Servers with unset maintenance action: ['{UUID2}', '{UUID1}']"
    )) else {
        panic!("not servers present")
    };
    assert!(p.notify.is_empty());
    assert_eq!(p.unset, vec![UUID2.to_string(), UUID1.to_string()]);
}

#[test]
fn migration_wait_and_error() {
    let k = classify(&format!(
        "Waiting servers migration is completed: ['{UUID1}', '{UUID2}']"
    ));
    assert_eq!(
        k,
        MessageKind::MigrationWaiting {
            servers: vec![UUID1.to_string(), UUID2.to_string()]
        }
    );
    // Rockoon formats the list of server objects; accept bare UUIDs too.
    let k = classify(&format!(
        "Waiting servers migration is completed: [{UUID1}]"
    ));
    assert_eq!(k.servers(), vec![UUID1.to_string()]);
    let k = classify(&format!(
        "Got error while trying to migrate server {UUID1}: No valid host was found."
    ));
    assert_eq!(
        k,
        MessageKind::MigrationError {
            server: UUID1.to_string(),
            error: "No valid host was found.".to_string()
        }
    );
}

#[test]
fn concurrency_both_texts() {
    let k = classify(
        "Number of inactive NodeWorkloadLocks exceeds allowed concurrency. Deferring processing for node kaas-node-7",
    );
    assert_eq!(
        k,
        MessageKind::ConcurrencyDeferred {
            node: Some("kaas-node-7".to_string())
        }
    );
    let k = classify(
        "Inactive NodeWorkloadLocks for openstack detected, deferring processing for node kaas-node-8",
    );
    assert_eq!(
        k,
        MessageKind::ConcurrencyDeferred {
            node: Some("kaas-node-8".to_string())
        }
    );
}

#[test]
fn services_blocking() {
    let k = classify(
        "Some services blocks nmr handling {'mariadb': True, 'nova': False}. Deferring processing for node kaas-node-2",
    );
    assert_eq!(
        k,
        MessageKind::ServicesBlocking {
            services: "{'mariadb': True, 'nova': False}".to_string(),
            node: Some("kaas-node-2".to_string())
        }
    );
}

#[test]
fn node_removal_is_not_a_migration_wait() {
    let k = classify(&format!(
        "Some servers {{'{UUID1}': 'ACTIVE'}} are still present on host kaas-node-1. Blocking node removal unless they removed or migrated."
    ));
    assert_eq!(
        k,
        MessageKind::RemovalBlocked {
            ids: vec![UUID1.to_string()]
        }
    );
}

#[test]
fn the_cluster_locks_waits_are_told_apart() {
    // rockoon/controllers/maintenance.py cluster_maintenance_request_change_handler @1390883a
    for (t, want) in [
        (
            "Waitinging for cwl release is 17.3.0+24.3.",
            MessageKind::ReleaseMismatch,
        ),
        (
            "Current maintenancerequest 17.3.0+24.3 release does not match ours 17.4.0+25.1. Skipping handling.",
            MessageKind::ReleaseMismatch,
        ),
        (
            "OpenStackDeploymentStatus controller version is not updated yet.",
            MessageKind::ControllerVersionPending,
        ),
        (
            "Waiting osdpl status APPLIED, current state is APPLYING",
            MessageKind::DeploymentNotApplied {
                state: "APPLYING".into(),
            },
        ),
        (
            "Waiting for all OpenStack services are healthy.",
            MessageKind::HealthWait,
        ),
    ] {
        assert_eq!(classify(t), want, "{t}");
    }
}

#[test]
fn both_releases_servers_texts_plural_and_empty() {
    // 25.1 (E-LEFT): "server:" as Rockoon writes it, "servers:" tolerated.
    for (t, notify, unset) in [
        (
            "Some servers are still present on the host. Notify owners of the following server: ['a']",
            vec!["a"],
            vec![],
        ),
        (
            "Some servers are still present on the host. Notify owners of the following servers: ['a', 'b']",
            vec!["a", "b"],
            vec![],
        ),
        (
            "Some servers are still present on the host. Notify owners of the following server: ['a'] Servers with unset maintenance action: ['b']",
            vec!["a"],
            vec!["b"],
        ),
        (
            "Some servers are still present on the host. Notify owners of the following server: []",
            vec![],
            vec![],
        ),
    ] {
        let MessageKind::ServersPresent(p) = classify(t) else {
            panic!("{t}");
        };
        assert_eq!(p.format, ServersFormat::New, "{t}");
        assert_eq!(p.notify, notify, "{t}");
        assert_eq!(p.unset, unset, "{t}");
    }
    // Before 25.1 (E-LEFT-OLD): the dict with statuses, and the docs' list.
    for (t, servers, statuses) in [
        (
            "Some servers {'a': 'MIGRATING'} are still present on host n1. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'",
            vec!["a"],
            vec![("a".to_string(), "MIGRATING".to_string())],
        ),
        (
            "Some servers ['a', 'b'] are still present on host n1. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'",
            vec!["a", "b"],
            vec![],
        ),
        (
            "Some servers [] are still present on host n1. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'",
            vec![],
            vec![],
        ),
    ] {
        let MessageKind::ServersPresent(p) = classify(t) else {
            panic!("{t}");
        };
        assert_eq!(p.format, ServersFormat::Old, "{t}");
        assert_eq!(p.servers, servers, "{t}");
        assert_eq!(p.statuses, statuses, "{t}");
    }
}

#[test]
fn other_catalogue_texts_are_other() {
    for t in [
        "Timeout waiting for compute services up on the host.",
        "Can not disable compute service on a host to be deleted",
    ] {
        assert_eq!(classify(t), MessageKind::Other, "{t}");
    }
}

mod groups {
    use super::*;
    use crate::domain::objects::MigrationMode;

    fn group(kind: ServerGroupKind, servers: &[&str]) -> ServerGroup {
        ServerGroup {
            kind,
            servers: servers.iter().map(|s| s.to_string()).collect(),
            error: None,
        }
    }

    /// The 25.x example of the reference (§4.4), exact.
    #[test]
    fn new_format_notify_only_exact_text() {
        let m = parse(
            "2025-03-04 10:15:02.118734 Some servers are still present on the host. Notify owners of the following server: ['6a0e3d1c-0000-4000-8000-00000000beef']",
        );
        assert_eq!(m.at, Some("2025-03-04T10:15:02.118734Z".parse().unwrap()));
        assert_eq!(
            server_groups(&m.kind),
            vec![group(ServerGroupKind::NotifyOwners, &[UUID2])]
        );
        assert_eq!(
            servers::reading(&m.kind),
            vec![format!("owners to notify (1): {UUID2}")]
        );
    }

    #[test]
    fn new_format_both_lists_are_told_apart() {
        let m = parse(&format!(
            "2025-03-04 10:15:02 Some servers are still present on the host. Notify owners of the following server: ['{UUID1}'] Servers with unset maintenance action: ['{UUID2}', '{UUID1}x']"
        ));
        assert_eq!(
            server_groups(&m.kind),
            vec![
                group(ServerGroupKind::NotifyOwners, &[UUID1]),
                group(ServerGroupKind::UnsetAction, &[UUID2, &format!("{UUID1}x")]),
            ]
        );
        // Only the unset list.
        let m = classify(&format!(
            "Some servers are still present on the host. Servers with unset maintenance action: ['{UUID2}']"
        ));
        assert_eq!(
            server_groups(&m),
            vec![group(ServerGroupKind::UnsetAction, &[UUID2])]
        );
    }

    /// The pre-25.1 text (E-LEFT-OLD), exact: one list, no owners to notify.
    #[test]
    fn old_format_is_one_list() {
        let m = parse(&format!(
            "2024-10-01 09:00:00.5 Some servers {{'{UUID1}': 'ACTIVE', '{UUID2}': 'PAUSED'}} are still present on host kaas-node-1. Waiting unless all of them are migrated manually or instance_migration_mode is set to 'skip'"
        ));
        assert_eq!(
            server_groups(&m.kind),
            vec![group(ServerGroupKind::StillPresent, &[UUID1, UUID2])]
        );
    }

    #[test]
    fn migrating_errors_and_deferral() {
        let k = classify(&format!("Starting migration for {UUID1}"));
        assert_eq!(
            server_groups(&k),
            vec![group(ServerGroupKind::Migrating, &[UUID1])]
        );
        let k = classify(&format!(
            "Waiting servers migration is completed: ['{UUID1}', '{UUID2}']"
        ));
        assert_eq!(
            server_groups(&k),
            vec![group(ServerGroupKind::Migrating, &[UUID1, UUID2])]
        );
        let k = classify(&format!(
            "Got error while trying to migrate server {UUID2}: No valid host was found."
        ));
        assert_eq!(
            servers::reading(&k),
            vec![format!(
                "migration error (1): {UUID2}: No valid host was found."
            )]
        );
        let k = classify(
            "Number of inactive NodeWorkloadLocks exceeds allowed concurrency. Deferring processing for node kaas-node-7",
        );
        assert!(server_groups(&k).is_empty());
        let r = servers::reading(&k);
        assert_eq!(r.len(), 1);
        assert!(
            r[0].starts_with("deferred: other nodes hold the maintenance slots")
                && r[0].contains("kaas-node-7")
                && r[0].contains("not an error"),
            "{r:?}"
        );
        assert!(servers::reading(&MessageKind::HealthWait).is_empty());
    }

    #[test]
    fn long_lists_are_shortened_on_request() {
        let g = group(ServerGroupKind::UnsetAction, &["a", "b", "c", "d", "e"]);
        assert_eq!(
            g.line_max(3),
            "unset maintenance action (not migrated) (5): a, b, c and 2 more"
        );
        assert_eq!(
            g.line(),
            "unset maintenance action (not migrated) (5): a, b, c, d, e"
        );
    }

    /// What skip does depends on the node's mode now: under `manual` an
    /// untagged server is `notify`, under `live` it is `live_migrate`.
    #[test]
    fn skip_effect_is_true_for_each_list() {
        use ServerGroupKind::*;
        let manual = Some(MigrationMode::Manual);
        let live = Some(MigrationMode::Live);
        let n_manual = servers::skip_effect(NotifyOwners, manual.as_ref());
        assert!(n_manual.contains("servers without a maintenance_action tag go down"));
        assert!(n_manual.contains("tagged notify keep blocking"));
        for mode in [None, live.as_ref()] {
            let n = servers::skip_effect(NotifyOwners, mode);
            assert!(
                n.starts_with("tagged notify: skip does not release them"),
                "{n}"
            );
            let u = servers::skip_effect(UnsetAction, mode);
            assert!(
                u.contains("without a maintenance_action tag go down"),
                "{u}"
            );
            assert!(u.contains("tagged live_migrate are tried again"), "{u}");
        }
        let u = servers::skip_effect(UnsetAction, manual.as_ref());
        assert!(
            u.starts_with("tagged live_migrate: skip does not release them"),
            "{u}"
        );
        assert!(servers::skip_effect(StillPresent, None).contains("skip lets LCM reboot the node"));
    }
}
