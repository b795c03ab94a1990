//! GET, POST, PATCH, PUT and DELETE of single objects (and DELETE of collections).

use axum::response::Response;
use serde_json::{Value, json};

use super::Ctx;
use super::request::{Output, Query, json_response};
use super::table::{self, IncludeObject};
use crate::sim::registry::ResourceInfo;
use crate::sim::store::objects::meta_mut;
use crate::sim::store::selectors::Selectors;
use crate::sim::store::{ApiError, StoreResult};

pub fn get(
    ctx: &Ctx,
    info: &ResourceInfo,
    ns: Option<&str>,
    name: &str,
    sub: Option<&str>,
    q: &Query,
    output: Output,
) -> StoreResult<Response> {
    match sub {
        None => {}
        Some("status") if info.has_status() => {}
        Some(_) => return Err(ApiError::no_route()),
    }
    let obj = ctx
        .store
        .get(&info.plural, ns, name)
        .ok_or_else(|| ApiError::not_found(info, name))?;
    let body = match output {
        Output::Json => obj,
        Output::PartialMetadata => table::partial_metadata(&obj),
        Output::Table => {
            let include = IncludeObject::parse(q.str("includeObject")).ok_or_else(|| {
                ApiError::bad_request("includeObject must be None, Metadata or Object")
            })?;
            let rv = obj["metadata"]["resourceVersion"].clone();
            table::table(
                info,
                std::slice::from_ref(&obj),
                ctx.store.now(),
                include,
                json!({"resourceVersion": rv}),
                true,
            )
        }
    };
    Ok(json_response(200, &body))
}

/// Parses a POST/PUT body: JSON, or YAML when the content type says so.
fn parse_body(content_type: &str, body: &[u8]) -> StoreResult<Value> {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let v: Value = match mime.as_str() {
        "" | "application/json" => serde_json::from_slice(body).map_err(|e| {
            ApiError::bad_request(format!("the object provided is not valid JSON: {e}"))
        })?,
        "application/yaml" | "application/x-yaml" | "text/yaml" => {
            let text = std::str::from_utf8(body)
                .map_err(|_| ApiError::bad_request("the YAML body is not UTF-8"))?;
            serde_saphyr::from_str(text).map_err(|e| {
                ApiError::bad_request(format!("the object provided is not valid YAML: {e}"))
            })?
        }
        other => {
            return Err(ApiError::unsupported_media_type(format!(
                "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (got {other:?})"
            )));
        }
    };
    if !v.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    Ok(v)
}

/// 400 when the body names another apiVersion or kind than the URL.
fn check_type(info: &ResourceInfo, obj: &Value) -> StoreResult<()> {
    if let Some(av) = obj.get("apiVersion").and_then(Value::as_str)
        && !av.is_empty()
        && av != info.api_version()
    {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({av}) does not match the expected API version ({})",
            info.api_version()
        )));
    }
    if let Some(k) = obj.get("kind").and_then(Value::as_str)
        && !k.is_empty()
        && k != info.kind
    {
        return Err(ApiError::bad_request(format!(
            "the kind in the data ({k}) does not match the expected kind ({})",
            info.kind
        )));
    }
    Ok(())
}

/// 400 when the body's namespace differs from the URL's; otherwise sets it.
fn set_namespace(info: &ResourceInfo, obj: &mut Value, ns: Option<&str>) -> StoreResult<()> {
    if !info.namespaced {
        return Ok(());
    }
    let ns = ns.ok_or_else(ApiError::no_route)?;
    let meta = meta_mut(obj);
    match meta.get("namespace").and_then(Value::as_str) {
        Some(b) if !b.is_empty() && b != ns => Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        )),
        _ => {
            meta.insert("namespace".into(), json!(ns));
            Ok(())
        }
    }
}

pub fn create(
    ctx: &Ctx,
    info: &ResourceInfo,
    ns: Option<&str>,
    q: &Query,
    content_type: &str,
    body: &[u8],
) -> StoreResult<Response> {
    let dry_run = q.dry_run()?;
    let mut obj = parse_body(content_type, body)?;
    check_type(info, &obj)?;
    set_namespace(info, &mut obj, ns)?;
    if info.has_status()
        && let Some(m) = obj.as_object_mut()
    {
        // The status of a kind with a status subresource is not set on create.
        m.remove("status");
    }
    let created = ctx.store.create_opts(&info.plural, obj, dry_run)?;
    Ok(json_response(201, &created))
}

#[allow(clippy::too_many_arguments)]
pub fn patch(
    ctx: &Ctx,
    info: &ResourceInfo,
    ns: Option<&str>,
    name: &str,
    sub: Option<&str>,
    q: &Query,
    content_type: &str,
    body: &[u8],
) -> StoreResult<Response> {
    let dry_run = q.dry_run()?;
    if content_type.contains("apply-patch") && q.str("fieldManager").is_empty() {
        return Err(ApiError::bad_request(
            "PATCH, application/apply-patch+yaml requires fieldManager to be set",
        ));
    }
    let out = ctx
        .store
        .patch(&info.plural, ns, name, sub, content_type, body, dry_run)?;
    Ok(json_response(200, &out))
}

#[allow(clippy::too_many_arguments)]
pub fn replace(
    ctx: &Ctx,
    info: &ResourceInfo,
    ns: Option<&str>,
    name: &str,
    sub: Option<&str>,
    q: &Query,
    content_type: &str,
    body: &[u8],
) -> StoreResult<Response> {
    let dry_run = q.dry_run()?;
    let mut obj = parse_body(content_type, body)?;
    check_type(info, &obj)?;
    set_namespace(info, &mut obj, ns)?;
    let out = ctx
        .store
        .replace(&info.plural, ns, name, sub, obj, dry_run)?;
    Ok(json_response(200, &out))
}

/// The DeleteOptions of a DELETE: JSON body, with query parameters on top.
fn delete_options(q: &Query, body: &[u8]) -> StoreResult<(Value, bool)> {
    let mut opts = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        serde_json::from_slice::<Value>(body).map_err(|e| {
            ApiError::bad_request(format!("the DeleteOptions body is not valid JSON: {e}"))
        })?
    };
    if !opts.is_object() {
        return Err(ApiError::bad_request("DeleteOptions must be a JSON object"));
    }
    if let Some(g) = q.int("gracePeriodSeconds")? {
        opts["gracePeriodSeconds"] = json!(g);
    }
    let mut dry_run = q.dry_run()?;
    match opts.get("dryRun") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) if a.is_empty() => {}
        Some(Value::Array(a)) if a.len() == 1 && a[0] == "All" => dry_run = true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "dryRun: Unsupported value: {other}: supported values: \"All\""
            )));
        }
    }
    Ok((opts, dry_run))
}

pub fn delete(
    ctx: &Ctx,
    info: &ResourceInfo,
    ns: Option<&str>,
    name: &str,
    q: &Query,
    body: &[u8],
) -> StoreResult<Response> {
    let (opts, dry_run) = delete_options(q, body)?;
    let out = ctx.store.delete(&info.plural, ns, name, &opts, dry_run)?;
    Ok(json_response(200, &out))
}

pub fn delete_collection(
    ctx: &Ctx,
    info: &ResourceInfo,
    ns: Option<&str>,
    q: &Query,
    body: &[u8],
) -> StoreResult<Response> {
    let (opts, dry_run) = delete_options(q, body)?;
    let sel = Selectors::parse(q.str("labelSelector"), q.str("fieldSelector"), &info.plural)?;
    let items = ctx
        .store
        .delete_collection(&info.plural, ns, &sel, &opts, dry_run)?;
    Ok(json_response(
        200,
        &json!({
            "kind": format!("{}List", info.kind),
            "apiVersion": info.api_version(),
            "metadata": {"resourceVersion": ctx.store.resource_version().to_string()},
            "items": items,
        }),
    ))
}
