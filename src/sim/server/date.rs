//! The `Date` header of every answer, from the SIMULATED clock (RFC 9110
//! IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`): a client that
//! estimates the API server's clock offset from `Date` sees the simulator's
//! time, as it would see a real server's. A layer over the whole router, so
//! the in-process router and the TCP servers both carry it (hyper keeps a
//! `Date` the service set).

use std::sync::Arc;

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use jiff::Timestamp;

use crate::sim::clock::Clock;

/// `ts` as an HTTP date (IMF-fixdate, always GMT, whole seconds).
pub fn http_date(ts: Timestamp) -> String {
    ts.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

/// Stamps the response with the clock's time when the answer is ready.
pub async fn stamp(clock: Arc<Clock>, req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    if let Ok(v) = HeaderValue::from_str(&http_date(clock.now())) {
        resp.headers_mut().insert(header::DATE, v);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imf_fixdate() {
        let t: Timestamp = "1994-11-06T08:49:37.9Z".parse().unwrap();
        assert_eq!(http_date(t), "Sun, 06 Nov 1994 08:49:37 GMT");
        let t: Timestamp = "2026-01-01T10:00:00Z".parse().unwrap();
        assert_eq!(http_date(t), "Thu, 01 Jan 2026 10:00:00 GMT");
    }
}
