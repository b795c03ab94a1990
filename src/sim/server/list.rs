//! LIST: selectors, `limit`/`continue` over a consistent snapshot,
//! `resourceVersion`/`resourceVersionMatch`.

use axum::response::Response;
use serde_json::{Value, json};

use super::Ctx;
use super::request::{Output, Query, json_bytes_response, json_response};
use super::table::{self, IncludeObject};
use crate::sim::registry::ResourceInfo;
use crate::sim::store::objects::{name_of, namespace_of};
use crate::sim::store::selectors::Selectors;
use crate::sim::store::{ApiError, ListPage, Page, StoreResult};

/// An opaque continue token: the snapshot's resource version and the last key served.
fn encode_continue(rv: u64, ns: &str, name: &str) -> String {
    format!("{rv}/{ns}/{name}")
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn decode_continue(token: &str) -> StoreResult<(u64, String, String)> {
    let bad = || ApiError::bad_request(format!("continue key is not valid: {token:?}"));
    if !token.len().is_multiple_of(2) || token.len() > 2048 {
        return Err(bad());
    }
    let bytes = (0..token.len())
        .step_by(2)
        .map(|i| {
            token
                .get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(bad)?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let mut parts = text.splitn(3, '/');
    let rv = parts.next().and_then(|r| r.parse().ok()).ok_or_else(bad)?;
    let ns = parts.next().ok_or_else(bad)?.to_string();
    let name = parts.next().ok_or_else(bad)?.to_string();
    Ok((rv, ns, name))
}

/// Parses a resource version parameter.
pub fn parse_rv(s: &str) -> StoreResult<u64> {
    s.parse().map_err(|_| {
        ApiError::bad_request(format!(
            "resourceVersion: Invalid value: {s:?}: must be a non-negative integer"
        ))
    })
}

pub fn serve(
    ctx: &Ctx,
    info: &ResourceInfo,
    ns: Option<&str>,
    q: &Query,
    output: Output,
) -> StoreResult<Response> {
    let sel = Selectors::parse(q.str("labelSelector"), q.str("fieldSelector"), &info.plural)?;
    let include = IncludeObject::parse(q.str("includeObject"))
        .ok_or_else(|| ApiError::bad_request("includeObject must be None, Metadata or Object"))?;
    let limit = q
        .int("limit")?
        .filter(|l| *l > 0)
        .map(|l| l.min(1_000_000) as usize);
    let rv = q.str("resourceVersion");
    let rvm = q.str("resourceVersionMatch");
    let mut after: Option<(String, String)> = None;
    let at = match q.get("continue").filter(|c| !c.is_empty()) {
        Some(token) => {
            if !rv.is_empty() && rv != "0" {
                return Err(ApiError::bad_request(
                    "specifying resource version is not allowed when using continue",
                ));
            }
            let (rv, ns, name) = decode_continue(token)?;
            after = Some((ns, name));
            Some(rv)
        }
        None => match (rv, rvm) {
            ("", "") => None,
            ("", _) => {
                return Err(ApiError::bad_request(
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                ));
            }
            (r, "Exact") => {
                let r = parse_rv(r)?;
                if r == 0 {
                    return Err(ApiError::bad_request(
                        "resourceVersionMatch \"Exact\" is forbidden for resourceVersion \"0\"",
                    ));
                }
                Some(r)
            }
            (r, "" | "NotOlderThan") => {
                parse_rv(r)?;
                None
            }
            (_, other) => {
                return Err(ApiError::bad_request(format!(
                    "resourceVersionMatch: Unsupported value: {other:?}: supported values: \"Exact\", \"NotOlderThan\""
                )));
            }
        },
    };
    if let Some(r) = at
        && ctx.opts.faults.is_expired(r)
    {
        return Err(ApiError::expired(r));
    }
    let page = ListPage { after, limit };
    let now = ctx.store.now();
    ctx.store
        .with_page(
            &info.plural,
            ns,
            at,
            &page,
            |o| sel.matches(o),
            |p| respond(info, p, sel == Selectors::default(), output, include, now),
        )
        .map_err(|e| match (&page.after, e.code) {
            (Some(_), 410) => ApiError::new(
                410,
                "Expired",
                "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
            ),
            _ => e,
        })
}

/// The list response for one page, written while the store holds it.
fn respond(
    info: &ResourceInfo,
    page: Page<'_>,
    unselected: bool,
    output: Output,
    include: IncludeObject,
    now: jiff::Timestamp,
) -> Response {
    let mut metadata = json!({"resourceVersion": page.rv.to_string()});
    if page.remaining > 0
        && let Some(last) = page.items.last()
    {
        metadata["continue"] = json!(encode_continue(page.rv, namespace_of(last), name_of(last)));
        // Only for a list without selectors, as the API server says it:
        // kubernetes/kubernetes `staging/src/k8s.io/apiserver/pkg/storage/
        // etcd3/store.go`, `store.GetList` (read at 00319881a809): its count
        // would include the objects a selector drops, so it gives none.
        if unselected {
            metadata["remainingItemCount"] = json!(page.remaining);
        }
    }
    let body = match output {
        Output::Table => {
            let items: Vec<Value> = page.items.into_iter().cloned().collect();
            table::table(info, &items, now, include, metadata, true)
        }
        Output::PartialMetadata => json!({
            "kind": "PartialObjectMetadataList",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": metadata,
            "items": page.items.into_iter().map(table::partial_metadata).collect::<Vec<_>>(),
        }),
        // The common case, and the large one: written straight from the
        // stored objects, without a copy of the page to build and drop.
        Output::Json => {
            #[derive(serde::Serialize)]
            #[serde(rename_all = "camelCase")]
            struct List<'a> {
                kind: String,
                api_version: String,
                metadata: Value,
                items: Vec<&'a Value>,
            }
            return json_bytes_response(
                200,
                serde_json::to_vec(&List {
                    kind: format!("{}List", info.kind),
                    api_version: info.api_version(),
                    metadata,
                    items: page.items,
                }),
            );
        }
    };
    json_response(200, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip_and_reject_garbage() {
        let t = encode_continue(42, "tf", "tf-vrouter-agent-x");
        assert_eq!(
            decode_continue(&t).unwrap(),
            (42, "tf".into(), "tf-vrouter-agent-x".into())
        );
        for bad in ["zz", "abc", "", "41"] {
            assert_eq!(decode_continue(bad).unwrap_err().code, 400, "{bad}");
        }
    }
}
