//! `GET /api/v1/namespaces/{ns}/pods/{name}/log`: `container`, `follow`,
//! `tailLines`, `sinceSeconds`, `sinceTime`, `timestamps`, `limitBytes`.
//! Plain text; with `follow` the chunked body stays open until the pod is
//! deleted, the client leaves, or a `close-logs` fault closes it.

use axum::body::Bytes;
use axum::response::Response;
use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};

use super::request::{Query, text_response};
use super::{Ctx, stream};
use crate::sim::store::objects::{name_of, namespace_of};
use crate::sim::store::{ApiError, EventType, LogLine, StoreResult};

/// Kubelet's fixed-width RFC 3339 timestamp with nanoseconds.
fn stamp(ts: Timestamp) -> String {
    format!(
        "{}.{:09}Z",
        ts.strftime("%Y-%m-%dT%H:%M:%S"),
        ts.subsec_nanosecond().max(0)
    )
}

fn render(l: &LogLine, timestamps: bool) -> String {
    if timestamps {
        format!("{} {}\n", stamp(l.ts), l.line)
    } else {
        format!("{}\n", l.line)
    }
}

/// Counts bytes against `limitBytes`.
struct Limit(Option<usize>);

impl Limit {
    /// The part of `s` still allowed, or `None` when the limit is reached.
    fn take(&mut self, s: String) -> Option<String> {
        match &mut self.0 {
            None => Some(s),
            Some(0) => None,
            Some(left) => {
                let mut cut = s.len().min(*left);
                while !s.is_char_boundary(cut) {
                    cut -= 1;
                }
                *left -= cut;
                Some(s[..cut].to_string())
            }
        }
    }
}

pub fn serve(ctx: &Ctx, ns: &str, pod: &str, q: &Query) -> StoreResult<Response> {
    let info = ctx.store.info("pods")?.clone();
    let obj = ctx
        .store
        .get("pods", Some(ns), pod)
        .ok_or_else(|| ApiError::not_found(&info, pod))?;
    let spec_containers: Vec<String> = obj
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let known = if spec_containers.is_empty() {
        ctx.store.log_containers(ns, pod)
    } else {
        spec_containers
    };
    let container = match q.get("container").filter(|c| !c.is_empty()) {
        Some(c) if known.iter().any(|k| k == c) || known.is_empty() => c.to_string(),
        Some(c) => {
            return Err(ApiError::bad_request(format!(
                "container {c} is not valid for pod {pod}"
            )));
        }
        None => match known.as_slice() {
            [] => return Ok(text_response(200, "")),
            [one] => one.clone(),
            many => {
                return Err(ApiError::bad_request(format!(
                    "a container name must be specified for pod {pod}, choose one of: [{}]",
                    many.join(" ")
                )));
            }
        },
    };
    if q.bool("previous")? {
        return Err(ApiError::bad_request(format!(
            "previous terminated container \"{container}\" in pod \"{pod}\" not found"
        )));
    }
    let follow = q.bool("follow")?;
    let timestamps = q.bool("timestamps")?;
    let tail = match q.int("tailLines")? {
        Some(n) if n < 0 => None,
        other => other.map(|n| n as usize),
    };
    let now = ctx.store.now();
    let since = match (
        q.int("sinceSeconds")?,
        q.get("sinceTime").filter(|s| !s.is_empty()),
    ) {
        (Some(_), Some(_)) => {
            return Err(ApiError::bad_request(
                "at most one of sinceTime or sinceSeconds may be specified",
            ));
        }
        (Some(s), None) if s <= 0 => {
            return Err(ApiError::bad_request("sinceSeconds must be greater than 0"));
        }
        (Some(s), None) => now.checked_sub(SignedDuration::from_secs(s)).ok(),
        (None, Some(t)) => Some(t.parse::<Timestamp>().map_err(|_| {
            ApiError::bad_request(format!("sinceTime: invalid RFC 3339 time {t:?}"))
        })?),
        (None, None) => None,
    };
    let limit = match q.int("limitBytes")? {
        Some(n) if n <= 0 => {
            return Err(ApiError::bad_request("limitBytes must be greater than 0"));
        }
        other => other.map(|n| n as usize),
    };
    let follow_state = ctx.store.follow_logs(ns, pod, &container);
    let mut backlog: Vec<LogLine> = follow_state
        .backlog
        .into_iter()
        .filter(|l| since.is_none_or(|s| l.ts >= s))
        .collect();
    if let Some(t) = tail {
        let skip = backlog.len().saturating_sub(t);
        backlog.drain(..skip);
    }
    let mut limit = Limit(limit);
    let mut text = String::new();
    for l in &backlog {
        match limit.take(render(l, timestamps)) {
            Some(s) => text.push_str(&s),
            None => break,
        }
    }
    // The pod may have gone between the first look and the subscription.
    if !follow || ctx.store.get("pods", Some(ns), pod).is_none() {
        return Ok(text_response(200, &text));
    }
    let (tx, resp) = stream::channel("text/plain; charset=utf-8");
    let (ns, pod) = (ns.to_string(), pod.to_string());
    let mut lines = follow_state.lines;
    let mut events = follow_state.events;
    let mut close_rx = ctx.opts.faults.log_close_signal();
    close_rx.borrow_and_update();
    tokio::spawn(async move {
        if !text.is_empty() && tx.send(Bytes::from(text)).await.is_err() {
            return;
        }
        follow_loop(
            &tx,
            &mut lines,
            &mut events,
            &mut close_rx,
            &ns,
            &pod,
            &container,
            timestamps,
            &mut limit,
        )
        .await;
    });
    Ok(resp)
}

#[allow(clippy::too_many_arguments)]
async fn follow_loop(
    tx: &mpsc::Sender<Bytes>,
    lines: &mut broadcast::Receiver<std::sync::Arc<crate::sim::store::LogRecord>>,
    events: &mut broadcast::Receiver<std::sync::Arc<crate::sim::store::StoreEvent>>,
    close_rx: &mut tokio::sync::watch::Receiver<u64>,
    ns: &str,
    pod: &str,
    container: &str,
    timestamps: bool,
    limit: &mut Limit,
) {
    loop {
        tokio::select! {
            rec = lines.recv() => match rec {
                Ok(r) if r.namespace == ns && r.pod == pod && r.container == container => {
                    let Some(s) = limit.take(render(&r.line, timestamps)) else { return };
                    if s.is_empty() || tx.send(Bytes::from(s)).await.is_err() {
                        return;
                    }
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return,
            },
            ev = events.recv() => match ev {
                Ok(e) if e.plural == "pods" && e.kind == EventType::Deleted
                    && namespace_of(&e.object) == ns && name_of(&e.object) == pod => {
                    // Deliver lines written before the deletion, then end.
                    while let Ok(r) = lines.try_recv() {
                        if r.namespace == ns && r.pod == pod && r.container == container {
                            let Some(s) = limit.take(render(&r.line, timestamps)) else { return };
                            if tx.send(Bytes::from(s)).await.is_err() {
                                return;
                            }
                        }
                    }
                    return;
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return,
            },
            // The `close-logs` fault (or an outage): end the stream as a
            // restarted kubelet or a dropped proxy connection would.
            _ = close_rx.changed() => return,
            _ = tx.closed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_fixed_width_nanoseconds() {
        let t: Timestamp = "2026-01-01T00:00:01.5Z".parse().unwrap();
        assert_eq!(stamp(t), "2026-01-01T00:00:01.500000000Z");
    }

    #[test]
    fn limit_bytes_cuts_on_char_boundaries() {
        let mut l = Limit(Some(4));
        assert_eq!(l.take("abcé\n".into()).as_deref(), Some("abc"));
        assert_eq!(l.take("x".into()).as_deref(), Some("x"));
        assert_eq!(l.take("y".into()), None);
        let mut l = Limit(Some(3));
        assert_eq!(l.take("ab".into()).as_deref(), Some("ab"));
        assert_eq!(l.take("cd".into()).as_deref(), Some("c"));
        assert_eq!(l.take("e".into()), None);
    }
}
