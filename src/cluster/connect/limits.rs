//! How much of an API server's answer the console reads: a watch event (one
//! line) at most [`MAX_WATCH_LINE`] bytes, any other answer (a list page, an
//! object) at most [`MAX_BODY`] bytes. Beyond that the answer becomes an
//! error ([`TooLong`]) instead of memory.
//!
//! kube-client 5 reads a watch with `FramedRead::new(…, LinesCodec::new())`
//! (`Client::request_events`, src/client/mod.rs), whose line length is
//! unbounded: a server that never sends a newline grows one buffer without
//! end. Lists and objects are `collect()`ed whole (`Client::request_text`).
//! Neither can be configured, so the cut is made below kube, on the response
//! body of the client's service (a tower layer, [`AnswerLimits`]): a watch
//! body fails as soon as a line runs past the limit, any other body as soon
//! as its total does. kube turns the body's error into a failed list
//! (`InitialListFailed`) or a broken watch stream (`WatchFailed`); the watch
//! names it ([`crate::cluster::watch`]) and retries under its backoff.
//!
//! A followed log stream (`follow=true`) is endless by design and is read
//! line by line with its own cap (`cluster::logs::lines::read_line_capped`,
//! which discards the rest of an over-long line): it is not limited here.
//!
//! The limits are far above what a real API server can hold: etcd refuses a
//! value over 1.5 MiB (`--max-request-bytes`) and the API server a request
//! body over 3 MiB, so one object's JSON stays well under 8 MiB, and a list
//! page holds at most 500 (`WatchOptions::page_size`).

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tower::BoxError;

/// The longest watch event (one JSON line) read: 8 MiB.
pub const MAX_WATCH_LINE: usize = 8 << 20;
/// The longest other answer read (a list page, an object): 64 MiB.
pub const MAX_BODY: usize = 64 << 20;

/// An answer that ran past its limit; it was not read further.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TooLong {
    /// A watch event without a line end within `limit` bytes.
    WatchLine { limit: usize },
    /// A list or object answer over `limit` bytes.
    Body { limit: usize },
}

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TooLong::WatchLine { limit } => write!(
                f,
                "the server sent a watch event over {} MiB (no line end): not read",
                limit >> 20
            ),
            TooLong::Body { limit } => write!(
                f,
                "the server's answer is over {} MiB: not read",
                limit >> 20
            ),
        }
    }
}

impl std::error::Error for TooLong {}

impl TooLong {
    /// The [`TooLong`] inside a kube error, if that is what it is: a list's
    /// (`ServiceError`) or a watch stream's (`ReadEvents` around it).
    pub fn find(err: &kube::Error) -> Option<TooLong> {
        let service = match err {
            kube::Error::Service(e) => e,
            kube::Error::ReadEvents(io) => match io.get_ref()?.downcast_ref::<kube::Error>()? {
                kube::Error::Service(e) => e,
                _ => return None,
            },
            _ => return None,
        };
        service.downcast_ref::<TooLong>().copied()
    }
}

/// The tower layer applying the limits to every answer of a client:
/// `ClientBuilder::…​.with_layer(&AnswerLimits::default())`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswerLimits {
    pub watch_line: usize,
    pub body: usize,
}

impl Default for AnswerLimits {
    fn default() -> Self {
        AnswerLimits {
            watch_line: MAX_WATCH_LINE,
            body: MAX_BODY,
        }
    }
}

impl<S> tower::Layer<S> for AnswerLimits {
    type Service = Limited<S>;

    fn layer(&self, inner: S) -> Limited<S> {
        Limited {
            inner,
            limits: *self,
        }
    }
}

/// See [`AnswerLimits`].
#[derive(Debug, Clone)]
pub struct Limited<S> {
    inner: S,
    limits: AnswerLimits,
}

/// Which limit a request's answer gets, from its query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    Lines(usize),
    Total(usize),
    None,
}

fn limit_for(uri: &http::Uri, limits: AnswerLimits) -> Limit {
    let flag = |name: &str| {
        uri.query().is_some_and(|q| {
            q.split('&')
                .filter_map(|kv| kv.split_once('='))
                .any(|(k, v)| k == name && (v == "true" || v == "1"))
        })
    };
    if flag("watch") {
        Limit::Lines(limits.watch_line)
    } else if flag("follow") {
        Limit::None
    } else {
        Limit::Total(limits.body)
    }
}

impl<S, ReqBody, ResBody> tower::Service<http::Request<ReqBody>> for Limited<S>
where
    S: tower::Service<http::Request<ReqBody>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
    ResBody: Body<Data = Bytes> + Send + 'static,
    ResBody::Error: Into<BoxError>,
{
    type Response = http::Response<LimitedBody<ResBody>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send + 'static>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<ReqBody>) -> Self::Future {
        let limit = limit_for(req.uri(), self.limits);
        let fut = self.inner.call(req);
        Box::pin(async move {
            let resp = fut.await?;
            Ok(resp.map(|body| LimitedBody {
                inner: Box::pin(body),
                limit,
                seen: 0,
                failed: false,
            }))
        })
    }
}

/// A response body that fails once it runs past its limit.
pub struct LimitedBody<B> {
    inner: Pin<Box<B>>,
    limit: Limit,
    /// Bytes of the current line (watch) or of the whole body (other answers).
    seen: usize,
    failed: bool,
}

impl<B> LimitedBody<B> {
    /// Counts `data`; the error when it runs past the limit.
    fn count(&mut self, data: &[u8]) -> Result<(), TooLong> {
        match self.limit {
            Limit::None => Ok(()),
            Limit::Total(limit) => {
                self.seen = self.seen.saturating_add(data.len());
                if self.seen > limit {
                    return Err(TooLong::Body { limit });
                }
                Ok(())
            }
            Limit::Lines(limit) => {
                let mut segments = data.split(|b| *b == b'\n');
                // The first segment continues the current line; every later
                // one starts a line (the last one is still open).
                let first = segments.next().map_or(0, <[u8]>::len);
                let mut open = self.seen.saturating_add(first);
                let mut longest = open;
                for s in segments {
                    open = s.len();
                    longest = longest.max(open);
                }
                if longest > limit {
                    return Err(TooLong::WatchLine { limit });
                }
                self.seen = open;
                Ok(())
            }
        }
    }
}

impl<B> Body for LimitedBody<B>
where
    B: Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        if self.failed {
            return Poll::Ready(None);
        }
        let frame = match self.inner.as_mut().poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => frame,
            Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e.into()))),
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => return Poll::Pending,
        };
        if let Some(data) = frame.data_ref()
            && let Err(e) = self.count(data)
        {
            self.failed = true;
            tracing::warn!("{e}");
            return Poll::Ready(Some(Err(Box::new(e))));
        }
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.failed || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(limit: Limit) -> LimitedBody<http_body_empty::Empty> {
        LimitedBody {
            inner: Box::pin(http_body_empty::Empty),
            limit,
            seen: 0,
            failed: false,
        }
    }

    /// A body with nothing in it, for counting by hand.
    mod http_body_empty {
        use super::*;
        pub struct Empty;
        impl Body for Empty {
            type Data = Bytes;
            type Error = std::convert::Infallible;
            fn poll_frame(
                self: Pin<&mut Self>,
                _: &mut Context<'_>,
            ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
                Poll::Ready(None)
            }
        }
    }

    #[test]
    fn a_watch_line_is_limited_across_chunks_and_within_one() {
        let mut b = body(Limit::Lines(10));
        assert_eq!(b.count(b"{\"a\":1}\n{\"b\""), Ok(()));
        assert_eq!(b.count(b":22}\n"), Ok(()));
        // Many short lines in one chunk are fine, whatever its size.
        assert_eq!(b.count(&b"12345\n".repeat(1000)), Ok(()));
        assert_eq!(b.count(b"123456"), Ok(()));
        assert_eq!(b.count(b"78901"), Err(TooLong::WatchLine { limit: 10 }));
        let mut b = body(Limit::Lines(10));
        assert_eq!(
            b.count(b"1\n12345678901\n1"),
            Err(TooLong::WatchLine { limit: 10 })
        );
    }

    #[test]
    fn any_other_answer_is_limited_in_total() {
        let mut b = body(Limit::Total(10));
        assert_eq!(b.count(b"12345\n"), Ok(()));
        assert_eq!(b.count(b"1234"), Ok(()));
        assert_eq!(b.count(b"1"), Err(TooLong::Body { limit: 10 }));
        let mut b = body(Limit::None);
        assert_eq!(b.count(&[b'x'; 100]), Ok(()));
    }

    #[test]
    fn watches_lines_follows_none_the_rest_total() {
        let l = AnswerLimits {
            watch_line: 1,
            body: 2,
        };
        let at = |s: &str| limit_for(&s.parse().unwrap(), l);
        assert_eq!(
            at("/api/v1/nodes?watch=true&resourceVersion=5"),
            Limit::Lines(1)
        );
        assert_eq!(
            at("/api/v1/nodes?resourceVersion=5&watch=1"),
            Limit::Lines(1)
        );
        assert_eq!(
            at("/api/v1/namespaces/kaas/pods/p/log?follow=true"),
            Limit::None
        );
        assert_eq!(at("/api/v1/nodes?limit=500"), Limit::Total(2));
        assert_eq!(at("/api/v1/nodes/n1"), Limit::Total(2));
        assert_eq!(at("/api/v1/nodes?watchy=true"), Limit::Total(2));
    }

    #[test]
    fn the_error_is_found_through_kubes_wrapping() {
        let e = TooLong::Body { limit: MAX_BODY };
        let list = kube::Error::Service(Box::new(e));
        assert_eq!(TooLong::find(&list), Some(e));
        let w = TooLong::WatchLine {
            limit: MAX_WATCH_LINE,
        };
        let watch =
            kube::Error::ReadEvents(std::io::Error::other(kube::Error::Service(Box::new(w))));
        assert_eq!(TooLong::find(&watch), Some(w));
        assert_eq!(
            w.to_string(),
            "the server sent a watch event over 8 MiB (no line end): not read"
        );
    }
}
