//! Attention items from vRouter pods: a hand restart due (before MOSK 22.4)
//! or pods still outdated after the automatic restart should have done them.

use super::*;
use crate::domain::vrouter;

pub(super) fn vrouter_outdated(
    snap: &Snapshot,
    history: &History,
    now: Timestamp,
    out: &mut Vec<AttentionItem>,
) {
    let finished = snap.cluster_requests().next().is_none()
        && snap
            .machines()
            .filter(|m| m.machine_type.is_updated())
            .all(|m| m.state.is_ready());
    if !finished {
        return;
    }
    let policy = vrouter::restart_policy(snap);
    for ds in vrouter::daemonsets(snap) {
        // Only pods shown to be outdated ask for a restart: a DaemonSet its
        // controller has not caught up with, or pods whose revision cannot
        // be told, are not a reason to cut a node's network.
        if ds.up_to_date() || !ds.observed || ds.outdated_count() == 0 {
            continue;
        }
        let old = ds.outdated_count();
        let key = ObjectKey {
            kind: Kind::VrouterDaemonSet,
            namespace: ds.namespace.clone(),
            name: ds.name.clone(),
        };
        let since = history
            .update_finished()
            .or(history.first_seen(&key))
            .unwrap_or(now);
        let counts = format!(
            "{old} vRouter pod(s) run the old template (UP-TO-DATE {} of CURRENT {})",
            ds.updated, ds.current
        );
        let (kind, why) = match &policy {
            vrouter::RestartPolicy::Manual(v) => (
                AttentionKind::VrouterOutdated,
                format!(
                    "the update is over but {counts}; MOSK {v} restarts vRouter pods by hand (automatic since {}): restart them one node at a time",
                    vrouter::AUTOMATIC_SINCE
                ),
            ),
            vrouter::RestartPolicy::Unknown(release) => (
                AttentionKind::VrouterOutdated,
                format!(
                    "the update is over but {counts}; the MOSK version of {} is unknown: check whether your release restarts vRouter automatically ({}+), else restart them one node at a time",
                    release
                        .as_deref()
                        .map_or("the target release".to_string(), quote),
                    vrouter::AUTOMATIC_SINCE
                ),
            ),
            vrouter::RestartPolicy::Automatic(v) => {
                let waited = now.duration_since(since);
                if waited < VROUTER_AUTO_RESTART_GRACE {
                    continue;
                }
                (
                    AttentionKind::VrouterStillOutdated,
                    format!(
                        "{} after the update {counts}; the automatic restart (MOSK {v}, {}+) should have replaced them [I: {} grace]: restart them one node at a time",
                        human_duration(waited),
                        vrouter::AUTOMATIC_SINCE,
                        human_duration(VROUTER_AUTO_RESTART_GRACE)
                    ),
                )
            }
        };
        out.push(AttentionItem {
            kind,
            subject: ds.name.clone(),
            node: None,
            why,
            since,
            action: Some(ActionId::RestartVrouter),
            key,
            at_least: false,
            since_inferred: None,
            symptoms: Vec::new(),
            unraised_since: None,
        });
    }
}
