//! One connection to the page, served by hyper with axum's router inside, and the
//! timeouts that keep an idle or stalled client from holding its place: a request's
//! headers must arrive within the idle timeout (which also closes a kept-alive
//! connection that sends nothing more), an answer that the client stops reading is
//! given up when no byte of it could be written for as long, and so is a request
//! whose body does not arrive in that time (`router.rs`). A live stream that the
//! client reads stays open: what bounds those is their count per address
//! (`events.rs`).
//!
//! A connection on a reserved place (`listener.rs`) answers `/healthz` and refuses
//! everything else, one request, then closes.

use std::convert::Infallible;
use std::future::Future as _;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;
use tower_service::Service as _;

/// How long a connection on a reserved place may take to send its request: a health
/// check sends it at once.
const RESERVED_HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// The client's address, for the login throttle, the limits and the log.
#[derive(Debug, Clone, Copy)]
pub struct Peer(
    /// The client's address and port.
    pub SocketAddr,
);

/// The page's timeouts (`--http-idle-timeout`).
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// How long a connection may send no whole request, take no byte of an answer,
    /// or take to send a request's body.
    pub idle: Duration,
}

/// Serve `app` on `stream` from `peer` until the client closes, a timeout passes, or
/// `shutdown` (then the request under way finishes first). `refusal`: on a reserved
/// place, what every path but `/healthz` is answered.
pub async fn serve(
    stream: TcpStream,
    peer: Peer,
    app: Router,
    refusal: Option<(StatusCode, &'static str)>,
    timeouts: Timeouts,
    shutdown: CancellationToken,
) {
    let io = TokioIo::new(Stalls::new(stream, timeouts.idle));
    let mut builder = http1::Builder::new();
    let header_timeout = match refusal {
        Some(_) => timeouts.idle.min(RESERVED_HEADER_TIMEOUT),
        None => timeouts.idle,
    };
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(refusal.is_none());
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        let mut app = app.clone();
        async move {
            match refusal {
                Some(refusal) if request.uri().path() != "/healthz" => {
                    Ok::<Response, Infallible>(refusal.into_response())
                }
                _ => app.call(request).await,
            }
        }
    });
    let connection = builder.serve_connection(io, service);
    tokio::pin!(connection);
    let served = tokio::select! {
        served = connection.as_mut() => served,
        () = shutdown.cancelled() => {
            connection.as_mut().graceful_shutdown();
            // Live streams end at shutdown; anything else has the idle timeout.
            tokio::time::timeout(timeouts.idle, connection)
                .await
                .unwrap_or(Ok(()))
        }
    };
    if let Err(error) = served {
        tracing::debug!(peer = %peer.0, %error, "web page: connection closed");
    }
}

/// A socket whose writes fail with `TimedOut` once none of their bytes could be
/// written for `limit`: a client that stops reading an answer loses its connection
/// rather than holding it (and the answer's work) for good.
struct Stalls {
    stream: TcpStream,
    limit: Duration,
    /// Since when a write has been waiting, if one is.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl Stalls {
    fn new(stream: TcpStream, limit: Duration) -> Stalls {
        Stalls {
            stream,
            limit,
            stalled: None,
        }
    }

    /// What a write that could not proceed returns: still waiting, or timed out.
    fn waiting<T>(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<T>> {
        let limit = self.limit;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        if stalled.as_mut().poll(cx).is_ready() {
            self.stalled = None;
            return Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client took no bytes for the idle timeout",
            )));
        }
        Poll::Pending
    }

    /// After a write that went through (or failed): no longer stalled.
    fn moved<T>(
        &mut self,
        done: Poll<std::io::Result<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<T>> {
        match done {
            Poll::Pending => self.waiting(cx),
            ready => {
                self.stalled = None;
                ready
            }
        }
    }
}

impl AsyncRead for Stalls {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stalls {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let done = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.moved(done, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let done = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.moved(done, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        // A socket's flush is immediate: it says nothing of a write that waits.
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
