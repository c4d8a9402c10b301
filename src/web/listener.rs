//! The page's listener: at most [`MAX_CONNECTIONS`] connections at once, each holding
//! its place for as long as it lives, and the client's address for the handlers
//! ([`Peer`]: the login throttle and the log).

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Connections to the page at once. Beyond it the next waits in the listen backlog:
/// idle or slow connections can hold the page, never the game's file descriptors (the
/// server keeps this many out of `--max-sessions`' budget when the page is on).
pub const MAX_CONNECTIONS: usize = 256;

/// The listener, with a place under [`MAX_CONNECTIONS`] taken by each connection for
/// as long as it lives.
pub struct Limited {
    listener: TcpListener,
    places: Arc<Semaphore>,
}

impl Limited {
    /// `listener`, with [`MAX_CONNECTIONS`] places.
    pub fn new(listener: TcpListener) -> Limited {
        Limited {
            listener,
            places: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
        }
    }
}

/// A connection and its place.
pub struct LimitedStream {
    stream: TcpStream,
    _place: OwnedSemaphorePermit,
}

impl axum::serve::Listener for Limited {
    type Io = LimitedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (LimitedStream, SocketAddr) {
        loop {
            // The semaphore is never closed; should it be, the page stops accepting.
            let Ok(place) = Arc::clone(&self.places).acquire_owned().await else {
                std::future::pending::<()>().await;
                continue;
            };
            match self.listener.accept().await {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    return (
                        LimitedStream {
                            stream,
                            _place: place,
                        },
                        peer,
                    );
                }
                Err(error) => {
                    // Out of file descriptors, most likely: back off rather than spin.
                    tracing::warn!(%error, "web page: accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

impl tokio::io::AsyncRead for LimitedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for LimitedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// The client's address, for the login throttle and the log.
#[derive(Debug, Clone, Copy)]
pub struct Peer(
    /// The client's address and port.
    pub SocketAddr,
);

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, Limited>> for Peer {
    fn connect_info(stream: axum::serve::IncomingStream<'_, Limited>) -> Self {
        Peer(*stream.remote_addr())
    }
}
