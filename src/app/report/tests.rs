use super::*;
use crate::app::model::SessionInfo;
use crate::app::msg::Msg;
use crate::app::update::update;
use crate::audit::{AuditRecord, PermissionCheck};
use crate::cluster::events::ClusterEvent;
use crate::cluster::writes::WriteEvent;
use crate::config::keymap::Keymap;
use crate::domain::fixtures::{self, mid_update, mid_update_now, names};
use crate::domain::objects::{ErrorMessage, Object};
use std::sync::Arc;

const HOSTILE: &str = "a|b\x1b[31m*c*\n<script>`x`_y_ [l](http://e) \\ # ~~s~~ \u{202e}rev";

#[test]
fn md_escapes_markup_and_drops_controls() {
    let s = md(HOSTILE);
    assert_eq!(
        s,
        "a\\|b\\*c\\* \\<script\\>\\`x\\`\\_y\\_ \\[l\\](http://e) \\\\ \\# \\~\\~s\\~\\~ rev"
    );
    assert!(!s.contains('\x1b') && !s.contains('\n') && !s.contains('\u{202e}'));
}

/// The pipes of a table line that Markdown reads as cell borders.
fn borders(line: &str) -> usize {
    let mut n = 0;
    let mut escaped = false;
    for c in line.chars() {
        match c {
            '\\' if !escaped => escaped = true,
            '|' if !escaped => n += 1,
            _ => escaped = false,
        }
        if c != '\\' {
            escaped = false;
        }
    }
    n
}

fn hostile_audit_record(phase: AuditPhase, outcome: AuditOutcome) -> AuditRecord {
    AuditRecord {
        time: mid_update_now(),
        session: "s".into(),
        plan: 1,
        phase,
        action: "acknowledge-migration".into(),
        user: "jane|doe".into(),
        user_source: "kubeconfig".into(),
        context: "sim-mosk".into(),
        kind: "Node".into(),
        namespace: None,
        name: names::NODE_W3.into(),
        uid: "u1".into(),
        change: serde_json::json!({}),
        change_text: "instance_migration_mode: manual -> skip".into(),
        servers: vec![format!("{}|evil\x1b[2J", names::SERVER_C)],
        dry_run: false,
        permission: Some(PermissionCheck::Allowed),
        permission_note: None,
        kubeconfig_user: None,
        connection: None,
        outcome,
        message: Some(HOSTILE.into()),
        simulated: false,
    }
}

/// Hostile strings from the cluster and the audit log reach every section
/// of the report and break none of its tables.
#[test]
fn hostile_strings_do_not_break_the_tables() {
    let session = SessionInfo {
        cluster_name: "evil|cl\x1b]0;title\x07".into(),
        ..SessionInfo::default()
    };
    let mut model = Model::new(session, Keymap::default_keymap(), mid_update_now());
    for obj in mid_update().objects().values() {
        let mut obj = obj.clone();
        if let Object::NodeWorkloadLock(l) = &mut obj
            && l.error_message.is_some()
        {
            Arc::make_mut(l).error_message = Some(ErrorMessage::new(format!(
                "{} Some servers are still present on the host. {HOSTILE}",
                fixtures::rockoon_stamp("10:29:05")
            )));
        }
        update(&mut model, Msg::Cluster(ClusterEvent::Applied(obj)));
    }
    for (phase, outcome) in [
        (AuditPhase::Intent, AuditOutcome::Pending),
        (AuditPhase::Result, AuditOutcome::Succeeded),
    ] {
        let rec = hostile_audit_record(phase, outcome);
        update(&mut model, Msg::Action(WriteEvent::Audit(Box::new(rec))));
    }
    let text = render(&model);
    assert!(!text.contains('\x1b'), "{text}");
    assert!(!text.contains('\u{202e}'), "{text}");
    assert!(text.contains("evil\\|cl"), "{text}");
    assert!(text.contains("\\<script\\>"), "{text}");
    assert!(text.contains("jane\\|doe"), "{text}");
    // Every row of a table has as many cell borders as its header.
    let mut header: Option<usize> = None;
    let mut rows = 0;
    for line in text.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        match header {
            None => header = Some(borders(line)),
            Some(n) => {
                rows += 1;
                assert_eq!(borders(line), n, "{line}");
            }
        }
    }
    assert!(rows >= 5, "tables with rows: {text}");
    // The acknowledged servers are the workload impact, escaped.
    let impact = text.split("## Workload impact").nth(1).unwrap();
    assert!(impact.contains(names::NODE_W3), "{impact}");
    assert!(impact.contains("\\|evil"), "{impact}");
    let file = report(&model).file_name;
    assert_eq!(file, "report-evil_cl-20250304T103000Z.md");
}

/// The cells of the Attention items row about `subject`.
fn item_row(text: &str, subject: &str) -> Vec<String> {
    let section = text.split("## Attention items").nth(1).unwrap();
    let row = section
        .lines()
        .find(|l| l.contains(&format!("| reminder | {subject} |")))
        .unwrap_or_else(|| panic!("no {subject} row in:\n{section}"));
    row.trim_matches('|')
        .split(" | ")
        .map(|c| c.trim().to_string())
        .collect()
}

/// A reminder that leaves the queue by itself (the update ended, so the
/// write freeze is no longer due) is not reported as cleared: nothing says
/// anyone followed it. One the operator dismissed says dismissed.
#[test]
fn a_reminder_leaving_the_queue_by_itself_is_not_reported_cleared() {
    use crate::domain::attention::AttentionKind;
    use crate::domain::reminders::Reminder;
    let mut model = Model::new(
        SessionInfo::default(),
        Keymap::default_keymap(),
        mid_update_now(),
    );
    for obj in mid_update().objects().values() {
        update(&mut model, Msg::Cluster(ClusterEvent::Applied(obj.clone())));
    }
    let due = |m: &Model| -> Vec<Reminder> {
        m.derived
            .attention
            .iter()
            .filter_map(|i| match i.kind {
                AttentionKind::Reminder(r) => Some(r),
                _ => None,
            })
            .collect()
    };
    assert_eq!(due(&model), vec![Reminder::WriteFreeze]);

    // 10:40: LCM removes the maintenance request, the update is over; the
    // write freeze is no longer due, the silences are to be expired.
    update(&mut model, Msg::Tick(fixtures::at("10:40")));
    let key = model
        .snapshot
        .objects()
        .keys()
        .find(|k| k.kind == crate::domain::objects::Kind::ClusterMaintenanceRequest)
        .unwrap()
        .clone();
    update(&mut model, Msg::Cluster(ClusterEvent::Deleted(key)));
    assert_eq!(due(&model), vec![Reminder::ExpireSilences]);
    // 10:45: the operator dismisses that one.
    update(&mut model, Msg::Tick(fixtures::at("10:45")));
    crate::app::reminders::dismissed(&mut model, Reminder::ExpireSilences);
    update(&mut model, Msg::Tick(fixtures::at("10:46")));
    assert!(due(&model).is_empty());

    let text = render(&model);
    let freeze = item_row(&text, "write freeze");
    assert_eq!(
        freeze[1], "not cleared: no longer due 2025-03-04 10:40:00, not dismissed",
        "{text}"
    );
    let expire = item_row(&text, "expire silences");
    assert_eq!(expire[1], "dismissed 2025-03-04 10:45:00", "{text}");
}

/// The end of an update as the watches deliver it, each event in its own
/// batch within one second: LCM deletes the maintenance request (Terminating
/// under the OpenStack controller's finalizer), the controllers take their
/// cluster locks back, the request goes. The timeline goes from
/// finalization to done; the locks taken back are not a return to phase 2.
#[test]
fn the_locks_taken_back_at_the_end_are_no_phase_2_in_the_timeline() {
    use crate::domain::fixtures::names::*;
    use crate::domain::objects::{
        ClusterMaintenanceRequest, Controller, Kind, LockState, MachineState,
    };
    let t = fixtures::at("11:00");
    let mut model = Model::new(SessionInfo::default(), Keymap::default_keymap(), t);
    let mut objects: Vec<Object> = vec![
        Object::LcmCluster(Arc::new(fixtures::lcm_cluster())),
        Object::ClusterMaintenanceRequest(Arc::new(fixtures::cmr(fixtures::at("08:05")))),
    ];
    for (name, controller) in [
        (OPENSTACK_CWL, Controller::Openstack),
        (CEPH_CWL, Controller::Ceph),
        (TF_CWL, Controller::Tungstenfabric),
    ] {
        objects.push(Object::ClusterWorkloadLock(Arc::new(
            fixtures::cluster_lock(name, controller, LockState::Inactive),
        )));
    }
    for (name, ty, node, index) in fixtures::MACHINES {
        let mut m = fixtures::machine(name, ty, MachineState::Ready, Some(node), Some(index));
        m.release = Some(TARGET_RELEASE.into());
        objects.push(Object::Machine(Arc::new(m)));
    }
    // What the console found when it started, in one batch.
    crate::app::update::update_batch(
        &mut model,
        objects
            .into_iter()
            .map(|o| Msg::Cluster(ClusterEvent::Applied(o))),
    );
    let phase = |m: &Model| m.derived.phase.as_ref().map(|p| p.phase);
    assert_eq!(
        phase(&model),
        Some(crate::domain::phase::Phase::Finalization)
    );

    let cmr = fixtures::cmr(fixtures::at("08:05"));
    let deleting = Object::ClusterMaintenanceRequest(Arc::new(ClusterMaintenanceRequest {
        deleting: true,
        deletion: Some(t),
        ..cmr
    }));
    let key = deleting.key();
    assert_eq!(key.kind, Kind::ClusterMaintenanceRequest);
    update(&mut model, Msg::Cluster(ClusterEvent::Applied(deleting)));
    for (name, controller) in [
        (CEPH_CWL, Controller::Ceph),
        (TF_CWL, Controller::Tungstenfabric),
        (OPENSTACK_CWL, Controller::Openstack),
    ] {
        let lock = fixtures::cluster_lock(name, controller, LockState::Active);
        update(
            &mut model,
            Msg::Cluster(ClusterEvent::Applied(Object::ClusterWorkloadLock(
                Arc::new(lock),
            ))),
        );
        assert_eq!(
            phase(&model),
            Some(crate::domain::phase::Phase::Finalization),
            "{:?}",
            model.derived.phase
        );
    }
    update(&mut model, Msg::Cluster(ClusterEvent::Deleted(key)));
    assert_eq!(phase(&model), Some(crate::domain::phase::Phase::Done));

    let text = render(&model);
    let timeline: Vec<&str> = text
        .split("## Timeline")
        .nth(1)
        .and_then(|t| t.split("## Machines").next())
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("| 2025"))
        .collect();
    assert_eq!(timeline.len(), 2, "{text}");
    assert!(
        timeline[0].contains("phase 5/5 finalization (when the console started)"),
        "{text}"
    );
    assert!(
        timeline[1].starts_with("| 2025-03-04 11:00:00 | phase done:"),
        "{text}"
    );
}

/// The report marks an item's raised time and age as the screen does: `~`
/// and how when inferred, `≤`/`≥` for a lower bound of the age; exact ones
/// unmarked.
#[test]
fn an_inferred_or_lower_bound_raised_time_is_marked_in_the_report() {
    use crate::domain::attention::{AttentionItem, AttentionKind};
    use crate::domain::objects::{Kind, ObjectKey};
    let mut model = Model::new(
        SessionInfo::default(),
        Keymap::default_keymap(),
        mid_update_now(),
    );
    let item =
        |subject: &str, at_least: bool, since_inferred: Option<&'static str>| AttentionItem {
            kind: AttentionKind::DrainError,
            subject: subject.into(),
            node: None,
            why: "the drain failed".into(),
            since: fixtures::at("10:00"),
            at_least,
            since_inferred,
            action: None,
            key: ObjectKey::new(Kind::LcmMachine, "ns", subject),
            symptoms: Vec::new(),
            unraised_since: None,
        };
    let items = [
        item("m-exact", false, None),
        item("m-lower", true, None),
        item(
            "m-inferred",
            false,
            Some("from the cordon time + the drain timeout"),
        ),
    ];
    let snap = model.snapshot.clone();
    model
        .session_log
        .observe(None, &items, &snap, mid_update_now());
    let text = render(&model);
    let row = |subject: &str| {
        let section = text.split("## Attention items").nth(1).unwrap();
        section
            .lines()
            .find(|l| l.contains(&format!("| {subject} |")))
            .unwrap_or_else(|| panic!("no {subject} row in:\n{section}"))
            .to_string()
    };
    assert!(
        row("m-exact").starts_with("| 2025-03-04 10:00:00 |"),
        "{text}"
    );
    // Begun before the console could see it: raised at or before, open at least.
    let lower = row("m-lower");
    assert!(
        lower.starts_with("| ≤ 2025-03-04 10:00:00 | still open | ≥ 30m00s |"),
        "{lower}"
    );
    let inferred = row("m-inferred");
    assert!(
        inferred.starts_with("| ~2025-03-04 10:00:00 |"),
        "{inferred}"
    );
    assert!(
        inferred
            .ends_with(r"the drain failed \[I\] raised from the cordon time + the drain timeout |"),
        "{inferred}"
    );
}
