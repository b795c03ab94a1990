//! The in-process equivalent of a server that refuses connections: a
//! service around a simulated API server's router that, during an outage,
//! fails every request with "connection refused" before the router sees it.
//! Hand it to `kube::Client::new` in place of the bare router. (Over TCP,
//! `sim serve` closes new connections instead; see `sim::serve`.)

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::http::{Request, Response};
use tower::{Service, ServiceExt};

use super::Faults;

/// A router that is unreachable while its [`Faults`] say there is an outage.
#[derive(Debug, Clone)]
pub struct FaultyService {
    router: Router,
    faults: Arc<Faults>,
}

impl FaultyService {
    pub fn new(router: Router, faults: Arc<Faults>) -> FaultyService {
        FaultyService { router, faults }
    }
}

impl<B> Service<Request<B>> for FaultyService
where
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response<Body>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, std::io::Error>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        if self.faults.in_outage() {
            self.faults.count_refused();
            return Box::pin(async {
                Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionRefused,
                    "connection refused (injected outage)",
                ))
            });
        }
        let router = self.router.clone();
        Box::pin(async move {
            let resp = router.oneshot(req.map(Body::new)).await;
            Ok(resp.unwrap_or_else(|never| match never {}))
        })
    }
}
