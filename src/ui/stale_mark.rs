//! The mark a pane's border carries when its data may be stale or is still
//! loading: what the freshness bookkeeping (`app::freshness`) knows, in words
//! and ages as of this frame.

use crate::app::freshness::{self, Pane};
use crate::app::model::Model;
use crate::cluster::events::{WatchHealth, WatchProblem};
use crate::domain::objects::{ClusterId, Kind};
use crate::ui::format;

/// The mark a pane's border carries, if any:
/// `STALE: mosk API unreachable for 45s, data as of 12:41:03, retrying in 8s`,
/// `STALE: forbidden: viewer may not list lcmmachines in child-ns for 12s, …`
/// when the server refused, or `loading: 15 of 18 lists`.
pub(crate) fn mark(model: &Model, pane: Pane) -> Option<String> {
    let bad = freshness::unhealthy(model, pane.kinds());
    if bad.is_empty() {
        if freshness::is_loading(model, pane) {
            let (listed, total) = freshness::loading(model).unwrap_or((0, 0));
            return Some(format!("loading: {listed} of {total} lists"));
        }
        return None;
    }
    Some(stale_text(model, &bad))
}

fn stale_text(model: &Model, bad: &[Kind]) -> String {
    let mut clusters: Vec<ClusterId> = bad.iter().map(|k| k.cluster()).collect();
    clusters.sort();
    clusters.dedup();
    let names: Vec<&str> = clusters.iter().map(|c| c.label()).collect();
    let health: Vec<&WatchHealth> = bad.iter().filter_map(|k| model.health.get(k)).collect();
    let unreachable = health.iter().all(|h| !h.connected);
    // The server answered and said no: name the refusal, not an outage.
    let refusals: Vec<&str> = health
        .iter()
        .filter(|h| h.problem == WatchProblem::Refused)
        .filter_map(|h| h.last_error.as_deref())
        .collect();
    let what = match (names.as_slice(), unreachable) {
        _ if !refusals.is_empty() && refusals.len() == health.len() => match refusals.len() {
            1 => refusals[0].to_string(),
            n => format!("{} (+{} more refused)", refusals[0], n - 1),
        },
        ([one], true) => format!("{one} API unreachable"),
        (_, true) => format!("{} APIs unreachable", names.join(" and ")),
        ([one], false) => format!("{one} watch failing"),
        (_, false) => format!("{} watches failing", names.join(" and ")),
    };
    let since = bad
        .iter()
        .filter_map(|k| model.freshness.get(k).and_then(|f| f.down_since))
        .min();
    let mut text = format!("STALE: {what}");
    if let Some(t) = since {
        text.push_str(&format!(
            " for {}, data as of {}",
            format::age(model.now, t),
            format::clock(t)
        ));
    }
    // The earliest retry of the broken watches.
    if let Some(at) = health.iter().filter_map(|h| h.retry_at).min() {
        let secs = format::secs_between(at, model.now);
        if secs > 0 {
            text.push_str(&format!(", retrying in {}", format::duration_secs(secs)));
        } else {
            text.push_str(", retrying");
        }
    }
    text
}
