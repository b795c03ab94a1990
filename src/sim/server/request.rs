//! Query parameters, content negotiation and JSON/Status responses.

use std::collections::HashMap;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::Value;

use crate::sim::store::{ApiError, StoreResult};

/// The query string of a request.
#[derive(Debug, Clone, Default)]
pub struct Query(HashMap<String, String>);

impl Query {
    pub fn parse(q: Option<&str>) -> Query {
        Query(
            q.map(|q| {
                url::form_urlencoded::parse(q.as_bytes())
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default(),
        )
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        self.0.get(k).map(String::as_str)
    }

    /// A string parameter, empty when absent.
    pub fn str(&self, k: &str) -> &str {
        self.get(k).unwrap_or_default()
    }

    /// `true`/`1` or `false`/`0`; 400 on anything else.
    pub fn bool(&self, k: &str) -> StoreResult<bool> {
        match self.get(k) {
            None | Some("") | Some("false") | Some("0") | Some("False") => Ok(false),
            Some("true") | Some("1") | Some("True") => Ok(true),
            Some(v) => Err(ApiError::bad_request(format!(
                "invalid boolean value {v:?} for query parameter {k:?}"
            ))),
        }
    }

    /// An integer parameter; 400 when it does not parse.
    pub fn int(&self, k: &str) -> StoreResult<Option<i64>> {
        match self.get(k) {
            None | Some("") => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| {
                ApiError::bad_request(format!(
                    "invalid integer value {v:?} for query parameter {k:?}"
                ))
            }),
        }
    }

    /// `dryRun=All` (true), absent (false), anything else 400.
    pub fn dry_run(&self) -> StoreResult<bool> {
        match self.get("dryRun") {
            None | Some("") => Ok(false),
            Some("All") => Ok(true),
            Some(v) => Err(ApiError::bad_request(format!(
                "dryRun: Unsupported value: {v:?}: supported values: \"All\""
            ))),
        }
    }
}

/// What the client asked the answer to look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Json,
    /// `meta.k8s.io/v1 Table`.
    Table,
    /// `PartialObjectMetadata[List]`.
    PartialMetadata,
}

/// Picks the first media range of the Accept header we can serve.
pub fn negotiate(accept: Option<&str>) -> StoreResult<Output> {
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return Ok(Output::Json);
    };
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let mime = parts.next().unwrap_or_default().to_ascii_lowercase();
        let params: HashMap<String, String> = parts
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        if !matches!(mime.as_str(), "application/json" | "*/*" | "application/*") {
            continue;
        }
        match params.get("as").map(String::as_str) {
            None => return Ok(Output::Json),
            Some("Table") if params.get("g").is_some_and(|g| g == "meta.k8s.io") => {
                return Ok(Output::Table);
            }
            Some("PartialObjectMetadata" | "PartialObjectMetadataList")
                if params.get("g").is_some_and(|g| g == "meta.k8s.io") =>
            {
                return Ok(Output::PartialMetadata);
            }
            // Aggregated discovery and other transforms: try the next range.
            Some(_) => continue,
        }
    }
    Err(ApiError::new(
        406,
        "NotAcceptable",
        format!("only the following media types are accepted: application/json (asked: {accept})"),
    ))
}

/// A JSON response.
pub fn json_response(code: u16, body: &Value) -> Response {
    json_bytes_response(code, serde_json::to_vec(body))
}

/// A JSON response from serialized bytes (`{}` if serializing failed).
pub fn json_bytes_response(code: u16, bytes: serde_json::Result<Vec<u8>>) -> Response {
    let bytes = bytes.unwrap_or_else(|_| b"{}".to_vec());
    let mut resp = Response::new(Body::from(bytes));
    *resp.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// A `Status` error response.
pub fn error_response(e: &ApiError) -> Response {
    json_response(e.code, &e.to_status_json())
}

/// A plain-text response.
pub fn text_response(code: u16, text: &str) -> Response {
    let mut resp = Response::new(Body::from(text.to_string()));
    *resp.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_get_asks_for_tables_first() {
        let a = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
        assert_eq!(negotiate(Some(a)).unwrap(), Output::Table);
        assert_eq!(negotiate(None).unwrap(), Output::Json);
        assert_eq!(negotiate(Some("*/*")).unwrap(), Output::Json);
        let agg =
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
        assert_eq!(negotiate(Some(agg)).unwrap(), Output::Json);
        assert_eq!(
            negotiate(Some(
                "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
            ))
            .unwrap(),
            Output::PartialMetadata
        );
        assert_eq!(
            negotiate(Some("application/vnd.kubernetes.protobuf"))
                .unwrap_err()
                .code,
            406
        );
    }

    #[test]
    fn bad_query_values_are_400() {
        let q = Query::parse(Some("limit=abc&watch=maybe&dryRun=Some"));
        assert_eq!(q.int("limit").unwrap_err().code, 400);
        assert_eq!(q.bool("watch").unwrap_err().code, 400);
        assert_eq!(q.dry_run().unwrap_err().code, 400);
        let q = Query::parse(Some("limit=500&watch=1&dryRun=All"));
        assert_eq!(q.int("limit").unwrap(), Some(500));
        assert!(q.bool("watch").unwrap());
        assert!(q.dry_run().unwrap());
    }
}
