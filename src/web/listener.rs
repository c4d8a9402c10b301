//! The page's listener: who gets a connection, and what the others are told.
//!
//! At most [`MAX_CONNECTIONS`] connections at once, [`CONNECTIONS_PER_ADDRESS`] of
//! them from any one address, each holding its place for as long as it lives. Beyond
//! them a connection gets one of [`RESERVED`] reserved places, where `/healthz` is
//! answered and every other path is refused with a line saying why (429 when its
//! address holds its share, 503 when the page is full), one request and closed: a
//! load balancer's health check is answered however many idle sockets a student
//! holds. Beyond those too, the refusal is written at once and the connection closed.
//! How long a connection may stay idle is `connection.rs`'s.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::CancellationToken;

use super::connection::{self, Peer, Timeouts};
use crate::records::places::{Full, Places};

/// Connections to the page at once (the server keeps this many, and the
/// [`RESERVED`] ones, out of `--max-sessions`' budget of file descriptors when the
/// page is on).
pub const MAX_CONNECTIONS: usize = 256;

/// Connections to the page at once from one address: a browser opens six; a teacher
/// with a few tabs, or a few browsers behind one school NAT, fit. One address cannot
/// hold more than a quarter of the page.
pub const CONNECTIONS_PER_ADDRESS: usize = 64;

/// Places kept for `/healthz` when the page is full (or an address holds its share):
/// each serves one request and closes, within the header-read timeout.
pub const RESERVED: usize = 16;

/// Reserved places one address may hold: a flood from one address cannot take them
/// from the load balancer.
const RESERVED_PER_ADDRESS: usize = 4;

/// Refusals being written at once; beyond them a connection is closed unanswered.
const MAX_REFUSALS: usize = 64;

/// How long writing a refusal may take.
const REFUSAL_TIMEOUT: Duration = Duration::from_secs(1);

/// What a connection beyond its address's share is told.
pub const TOO_MANY_FROM_ADDRESS: &str =
    "Too many connections to this page from your address: close some pages and try again.\n";

/// What a connection beyond [`MAX_CONNECTIONS`] is told.
pub const PAGE_FULL: &str = "The page is full: try again in a moment.\n";

/// Why a connection has no ordinary place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crowded {
    /// Its address holds its share.
    Address,
    /// Every place is taken.
    Page,
}

impl Crowded {
    fn from_full(full: Full) -> Crowded {
        match full {
            Full::Address => Crowded::Address,
            Full::Total => Crowded::Page,
        }
    }

    /// The status and the line it is refused with.
    pub fn refusal(self) -> (axum::http::StatusCode, &'static str) {
        match self {
            Crowded::Address => (
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                TOO_MANY_FROM_ADDRESS,
            ),
            Crowded::Page => (axum::http::StatusCode::SERVICE_UNAVAILABLE, PAGE_FULL),
        }
    }
}

/// Accept connections on `listener` and serve `app` on them until `shutdown`, then
/// wait for the connections to finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    timeouts: Timeouts,
    shutdown: CancellationToken,
) {
    let places = Places::new(MAX_CONNECTIONS, CONNECTIONS_PER_ADDRESS);
    let reserved = Places::new(RESERVED, RESERVED_PER_ADDRESS);
    let refusals = Arc::new(Semaphore::new(MAX_REFUSALS));
    // Each connection holds a sender; when all are dropped, every one has finished.
    let (done, mut finished) = mpsc::channel::<()>(1);
    loop {
        let (stream, peer) = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, most likely: back off rather than spin.
                    tracing::warn!(%error, "web page: accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let (place, crowded) = match places.take(peer.ip()) {
            Ok(place) => (place, None),
            Err(full) => {
                let crowded = Crowded::from_full(full);
                match reserved.take(peer.ip()) {
                    Ok(place) => (place, Some(crowded)),
                    Err(_) => {
                        refuse(stream, crowded, &refusals);
                        continue;
                    }
                }
            }
        };
        if crowded == Some(Crowded::Address) {
            tracing::debug!(%peer, "web page: an address beyond its share of connections");
        }
        let app = app.clone();
        let shutdown = shutdown.clone();
        let done = done.clone();
        tokio::spawn(async move {
            connection::serve(
                stream,
                Peer(peer),
                app,
                crowded.map(Crowded::refusal),
                timeouts,
                shutdown,
            )
            .await;
            drop(place);
            drop(done);
        });
    }
    drop(done);
    let _ = finished.recv().await;
}

/// Write `crowded`'s refusal on `stream` and close it, in a task of its own (at most
/// [`MAX_REFUSALS`] at once: beyond them the connection is just closed).
fn refuse(mut stream: TcpStream, crowded: Crowded, refusals: &Arc<Semaphore>) {
    let Ok(permit) = Arc::clone(refusals).try_acquire_owned() else {
        return;
    };
    tokio::spawn(async move {
        let (status, line) = crowded.refusal();
        let answer = format!(
            "HTTP/1.1 {} {}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{line}",
            status.as_u16(),
            status.canonical_reason().unwrap_or_default(),
            line.len()
        );
        let _ = tokio::time::timeout(REFUSAL_TIMEOUT, async {
            stream.write_all(answer.as_bytes()).await?;
            stream.shutdown().await
        })
        .await;
        drop(permit);
    });
}
