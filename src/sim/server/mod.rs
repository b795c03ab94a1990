//! The Kubernetes-compatible HTTP API over a [`Store`] (axum 0.8): one
//! fallback handler parses the URL grammar once and dispatches.
//!
//! Serves legacy discovery, `/version`, list (paged, consistent snapshots),
//! watch (chunked JSON lines, bookmarks, streaming lists, 410 on expired
//! versions), get/create/patch/update/delete, `pods/{name}/log`,
//! `pods/{name}/exec` (WebSocket, `exec.rs`), access reviews, and `meta.k8s.io/v1 Table` answers for kubectl. Every answer
//! carries a `Date` header from the simulated clock.

mod access;
pub mod date;
mod discovery;
mod exec;
mod jsonpath;
mod list;
mod logs;
mod object;
pub mod path;
mod request;
mod stream;
pub mod table;
mod watch;

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::response::Response;

use crate::sim::exec::Exec;
use crate::sim::faults::{Faults, SeenRequest};
use crate::sim::rbac::{Attributes, Rbac};
use crate::sim::registry::ResourceInfo;
use crate::sim::store::{ApiError, Store, StoreResult, qualified};
use path::{ResourcePath, Route};
use request::{Output, Query, error_response, json_response, negotiate, text_response};

/// How the server behaves beyond the store's contents.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub rbac: Rbac,
    pub faults: Arc<Faults>,
    /// The minor version `/version` reports (kubectl's dispatcher picks its
    /// client from it; keep it within 27..=33).
    pub version_minor: u32,
    /// What runs in the pods when a client execs a command, and what they received.
    pub exec: Arc<Exec>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            rbac: Rbac::allow_all("kubernetes-admin"),
            faults: Arc::new(Faults::new()),
            version_minor: 30,
            exec: Arc::new(Exec::default()),
        }
    }
}

/// Shared by every request.
#[derive(Debug)]
struct Ctx {
    store: Arc<Store>,
    opts: ServerOptions,
}

/// Largest request body accepted.
const MAX_BODY: usize = 8 * 1024 * 1024;

/// The API server's router. Serve it with `axum::serve` on a TCP listener, or
/// hand it to `kube::Client::new(router, "default")` in-process.
pub fn router(store: Arc<Store>, opts: ServerOptions) -> Router {
    let clock = store.clock().clone();
    Router::new()
        .fallback(handle)
        .with_state(Arc::new(Ctx { store, opts }))
        .layer(axum::middleware::from_fn(move |req, next| {
            date::stamp(clock.clone(), req, next)
        }))
}

async fn handle(State(ctx): State<Arc<Ctx>>, req: Request) -> Response {
    ctx.opts.faults.note_request(SeenRequest {
        method: req.method().to_string(),
        path: req.uri().path().to_string(),
        user_agent: header_str(req.headers(), header::USER_AGENT)
            .unwrap_or_default()
            .to_string(),
        field_manager: Query::parse(req.uri().query())
            .get("fieldManager")
            .map(str::to_string),
    });
    if ctx.opts.faults.in_outage() {
        // A request on a connection opened before the outage: no answer, the
        // connection is cut (the body fails at once, so hyper closes it).
        ctx.opts.faults.count_refused();
        return stream::aborted();
    }
    let latency = ctx.opts.faults.current_latency();
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    if let Some(code) = ctx.opts.faults.take_failure() {
        let reason = match code {
            429 => "TooManyRequests",
            503 => "ServiceUnavailable",
            504 => "Timeout",
            _ => "InternalError",
        };
        return error_response(&ApiError::new(
            code,
            reason,
            format!("injected fault: the server answered {code}"),
        ));
    }
    match dispatch(&ctx, req).await {
        Ok(r) => r,
        Err(e) => error_response(&e),
    }
}

fn only_get(method: &Method) -> StoreResult<()> {
    if method == Method::GET || method == Method::HEAD {
        Ok(())
    } else {
        Err(ApiError::method_not_allowed(format!(
            "the server does not allow this method on the requested resource ({method})"
        )))
    }
}

async fn dispatch(ctx: &Ctx, req: Request) -> StoreResult<Response> {
    let (mut parts, body) = req.into_parts();
    let route = path::parse(parts.uri.path()).ok_or_else(ApiError::no_route)?;
    let reg = ctx.store.registry();
    let method = parts.method.clone();
    match route {
        Route::Version => {
            only_get(&method)?;
            Ok(json_response(
                200,
                &discovery::version(ctx.opts.version_minor),
            ))
        }
        Route::Health => {
            only_get(&method)?;
            Ok(text_response(200, "ok"))
        }
        Route::CoreVersions => {
            only_get(&method)?;
            Ok(json_response(200, &discovery::core_versions()))
        }
        Route::Groups => {
            only_get(&method)?;
            Ok(json_response(200, &discovery::groups(reg)))
        }
        Route::Group(g) => {
            only_get(&method)?;
            let doc = discovery::group(reg, &g).ok_or_else(ApiError::no_route)?;
            Ok(json_response(200, &doc))
        }
        Route::Resources { group, version } => {
            only_get(&method)?;
            let mut doc =
                discovery::resources(reg, &group, &version).ok_or_else(ApiError::no_route)?;
            hide_from_discovery(&ctx.opts.faults, &mut doc);
            Ok(json_response(200, &doc))
        }
        Route::OpenApi => Err(ApiError::no_route()),
        Route::Resource(rp) if ctx.opts.faults.kind_hidden(&rp.plural) => {
            Ok(text_response(404, "404 page not found"))
        }
        Route::Resource(rp)
            if rp.group.is_empty()
                && rp.plural == "pods"
                && rp.subresource.as_deref() == Some("exec") =>
        {
            pod_exec(ctx, &mut parts, &rp)
        }
        Route::Resource(rp) => {
            let query = Query::parse(parts.uri.query());
            let body = if matches!(
                method,
                Method::POST | Method::PUT | Method::PATCH | Method::DELETE
            ) {
                axum::body::to_bytes(body, MAX_BODY).await.map_err(|_| {
                    ApiError::new(
                        413,
                        "RequestEntityTooLarge",
                        "the request body is too large or could not be read",
                    )
                })?
            } else {
                Bytes::new()
            };
            resource(ctx, &method, &parts.headers, rp, query, body).await
        }
    }
}

/// Leaves the resources [`Faults::hide_kind`] hides (and their subresources)
/// out of an `APIResourceList`.
fn hide_from_discovery(faults: &Faults, doc: &mut serde_json::Value) {
    if let Some(list) = doc
        .get_mut("resources")
        .and_then(serde_json::Value::as_array_mut)
    {
        list.retain(|r| {
            let name = r.get("name").and_then(serde_json::Value::as_str);
            let plural = name.and_then(|n| n.split('/').next()).unwrap_or_default();
            !faults.kind_hidden(plural)
        });
    }
}

/// The request verb, as RBAC names it.
fn verb_of(method: &Method, rp: &ResourcePath, watch: bool) -> StoreResult<&'static str> {
    Ok(match (method.as_str(), rp.name.is_some()) {
        ("GET" | "HEAD", _) if watch => "watch",
        ("GET" | "HEAD", false) => "list",
        ("GET" | "HEAD", true) => "get",
        ("POST", false) => "create",
        ("PUT", true) => "update",
        ("PATCH", true) => "patch",
        ("DELETE", true) => "delete",
        ("DELETE", false) => "deletecollection",
        _ => {
            return Err(ApiError::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({method})"
            )));
        }
    })
}

/// 403 with the API server's message.
fn forbidden(
    ctx: &Ctx,
    attrs: &Attributes<'_>,
    info: &ResourceInfo,
    name: Option<&str>,
) -> ApiError {
    ApiError::new(
        403,
        "Forbidden",
        ctx.opts
            .rbac
            .forbidden_message(attrs, &qualified(info), name),
    )
}

/// `pods/{name}/exec`: authorized for each verb its method needs, then served.
fn pod_exec(
    ctx: &Ctx,
    parts: &mut axum::http::request::Parts,
    rp: &ResourcePath,
) -> StoreResult<Response> {
    let (Some(ns), Some(name)) = (rp.namespace.as_deref(), rp.name.as_deref()) else {
        return Err(ApiError::no_route());
    };
    let info = ctx.store.info("pods")?.clone();
    if rp.version != info.version {
        return Err(ApiError::no_route());
    }
    for verb in exec::verbs(&parts.method, ctx.opts.version_minor)? {
        let attrs = Attributes {
            verb,
            group: "",
            resource: "pods",
            subresource: Some("exec"),
            namespace: Some(ns),
        };
        if !ctx.opts.rbac.allows(&attrs) {
            return Err(forbidden(ctx, &attrs, &info, Some(name)));
        }
    }
    exec::serve(ctx, parts, ns, name)
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

async fn resource(
    ctx: &Ctx,
    method: &Method,
    headers: &HeaderMap,
    rp: ResourcePath,
    query: Query,
    body: Bytes,
) -> StoreResult<Response> {
    if let Some(r) = access::handle(ctx, method, &rp, &body)? {
        return Ok(r);
    }
    let info: ResourceInfo = ctx
        .store
        .registry()
        .by_plural(&rp.group, &rp.plural)
        .filter(|i| i.version == rp.version)
        .cloned()
        .ok_or_else(ApiError::no_route)?;
    if (rp.namespace.is_some() && !info.namespaced)
        || (info.namespaced && rp.namespace.is_none() && rp.name.is_some())
    {
        return Err(ApiError::no_route());
    }
    let watch = rp.watch_prefix || query.bool("watch")?;
    let verb = verb_of(method, &rp, watch)?;
    let attrs = Attributes {
        verb,
        group: &info.group,
        resource: &info.plural,
        subresource: rp.subresource.as_deref(),
        namespace: rp.namespace.as_deref(),
    };
    let refused = matches!(verb, "get" | "list" | "watch")
        && rp.subresource.is_none()
        && ctx.opts.faults.reads_forbidden(&info.plural);
    if refused || !ctx.opts.rbac.allows(&attrs) {
        return Err(forbidden(ctx, &attrs, &info, rp.name.as_deref()));
    }
    if rp.subresource.is_none() && !info.allows(verb) {
        return Err(ApiError::method_not_allowed(
            "the server does not allow this method on the requested resource",
        ));
    }
    let output = if matches!(verb, "get" | "list" | "watch") {
        negotiate(header_str(headers, header::ACCEPT))?
    } else {
        Output::Json
    };
    let ns = rp.namespace.as_deref();
    let content_type = header_str(headers, header::CONTENT_TYPE).unwrap_or_default();
    match (verb, rp.subresource.as_deref()) {
        ("get", Some("log")) if info.plural == "pods" => logs::serve(
            ctx,
            ns.unwrap_or_default(),
            rp.name.as_deref().unwrap_or_default(),
            &query,
        ),
        (_, Some("log")) => Err(ApiError::method_not_allowed(
            "the server does not allow this method on the requested resource (pods/log)",
        )),
        ("watch", None | Some("status")) => {
            watch::serve(ctx, &info, ns, rp.name.as_deref(), &query, output)
        }
        ("list", None) => list::serve(ctx, &info, ns, &query, output),
        ("get", sub) => object::get(
            ctx,
            &info,
            ns,
            rp.name.as_deref().unwrap_or_default(),
            sub,
            &query,
            output,
        ),
        ("create", None) => object::create(ctx, &info, ns, &query, content_type, &body),
        ("patch", sub) => object::patch(
            ctx,
            &info,
            ns,
            rp.name.as_deref().unwrap_or_default(),
            sub,
            &query,
            content_type,
            &body,
        ),
        ("update", sub) => object::replace(
            ctx,
            &info,
            ns,
            rp.name.as_deref().unwrap_or_default(),
            sub,
            &query,
            content_type,
            &body,
        ),
        ("delete", None) => object::delete(
            ctx,
            &info,
            ns,
            rp.name.as_deref().unwrap_or_default(),
            &query,
            &body,
        ),
        ("deletecollection", None) => object::delete_collection(ctx, &info, ns, &query, &body),
        _ => Err(ApiError::no_route()),
    }
}
