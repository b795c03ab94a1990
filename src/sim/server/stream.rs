//! Chunked streaming bodies fed by a task through a channel.

use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::mpsc;

/// A channel whose receiving end is a chunked response body. When the client
/// goes away the body is dropped and `Sender::closed()` resolves.
pub fn channel(content_type: &'static str) -> (mpsc::Sender<Bytes>, Response) {
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    let body = Body::from_stream(futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<_, Infallible>(b), rx))
    }));
    let mut resp = Response::new(body);
    *resp.status_mut() = StatusCode::OK;
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    (tx, resp)
}

/// An answer that never completes: the body fails at once, so the server
/// cuts the connection (an outage seen from a connection already open).
pub fn aborted() -> Response {
    let body = Body::from_stream(futures::stream::once(async {
        Err::<Bytes, std::io::Error>(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "injected outage: connection cut",
        ))
    }));
    let mut resp = Response::new(body);
    *resp.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    resp
}
