//! The teacher's web page (SPEC section 11): who is playing, live; a student's board,
//! live; the leaderboards; the results as CSV; recordings played in the browser;
//! `/metrics` and `/healthz`.
//!
//! Served by axum from the server's own runtime, off unless `--http-port` is given. It
//! reads what the sessions share (the registry, the store, the metrics) and never a
//! session's own state: the live table is a snapshot the registry gives a few times a
//! second, a board is watched as a player would watch it (the watched session sends it
//! frames), and the page's admin commands are the telnet commands' own code. Pages
//! are plain HTML built here; the little JavaScript they use is compiled into the
//! binary (`assets/`), with a Content-Security-Policy that allows no other script.
//!
//! - `live.rs`: the table of sessions and a board, as Server-Sent Events;
//! - `auth.rs`: admin login, its cookie, CSRF tokens, and the 403 for everyone else;
//! - `pages.rs`: the HTML of each page, and the CSV.

mod auth;
mod live;
mod pages;

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::seat::Services;

pub use auth::Logins;

/// What every handler shares.
#[derive(Debug)]
struct Web {
    services: Services,
    logins: Logins,
    live: live::Live,
    /// Cancelled at shutdown: the live streams end, so that serving can.
    shutdown: CancellationToken,
}

type Shared = Arc<Web>;

/// The page's assets, compiled in: name, media type, content.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("assets/style.css"),
    ),
    (
        "live.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/live.js"),
    ),
    (
        "watch.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/watch.js"),
    ),
    (
        "player.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/player.js"),
    ),
];

/// Every page refuses scripts, styles and frames from anywhere else: text a player
/// typed can never run in a teacher's browser, and no other site can frame the admin's
/// forms.
const SECURITY_POLICY: &str =
    "default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none'; form-action 'self'";

/// Connections to the page at once. Beyond it the next waits in the listen backlog:
/// idle or slow connections can hold the page, never the game's file descriptors (the
/// server keeps this many out of `--max-sessions`' budget when the page is on).
pub const MAX_CONNECTIONS: usize = 256;

/// The listener, with a place under [`MAX_CONNECTIONS`] taken by each connection for
/// as long as it lives.
struct Limited {
    listener: TcpListener,
    places: Arc<Semaphore>,
}

/// A connection and its place.
struct LimitedStream {
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
struct Peer(SocketAddr);

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, Limited>> for Peer {
    fn connect_info(stream: axum::serve::IncomingStream<'_, Limited>) -> Self {
        Peer(*stream.remote_addr())
    }
}

/// Serve the page on `listener` until `shutdown` is cancelled.
pub async fn serve(listener: TcpListener, services: Services, shutdown: CancellationToken) {
    let live = live::Live::start(services.registry.clone(), shutdown.clone());
    let web = Arc::new(Web {
        services,
        logins: Logins::default(),
        live,
        shutdown: shutdown.clone(),
    });
    if let Ok(address) = listener.local_addr() {
        tracing::info!(%address, "web page listening");
    }
    let app = router(web);
    let listener = Limited {
        listener,
        places: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
    };
    let served = axum::serve(listener, app.into_make_service_with_connect_info::<Peer>())
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await;
    if let Err(error) = served {
        tracing::error!(%error, "the web page stopped");
    }
}

fn router(web: Shared) -> Router {
    Router::new()
        .route("/", get(pages::live))
        .route("/events", get(live::sessions))
        .route("/watch/{name}", get(pages::watch))
        .route("/watch/{name}/events", get(live::board))
        .route("/top", get(pages::boards))
        .route("/top/{game}/{*level}", get(pages::top))
        .route("/results.csv", get(pages::results))
        .route("/recordings/{id}", get(recording))
        .route("/metrics", get(metrics))
        .route("/healthz", get(healthz))
        .route("/login", get(auth::login_page).post(auth::log_in))
        .route("/logout", post(auth::log_out))
        .route("/admin/broadcast", post(auth::broadcast))
        .route("/admin/kick", post(auth::kick))
        .route("/assets/{name}", get(asset))
        .fallback(not_found)
        .layer(axum::middleware::map_response(secure))
        .with_state(web)
}

/// The headers every answer carries.
async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    response
}

async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(asset, _, _)| *asset == name) {
        Some((_, media_type, content)) => {
            ([(header::CONTENT_TYPE, *media_type)], *content).into_response()
        }
        None => not_found().await,
    }
}

async fn not_found() -> Response {
    pages::message(StatusCode::NOT_FOUND, "Not found", "There is no such page.")
}

/// `/healthz`: the server runs and answers (for Docker's HEALTHCHECK and load
/// balancers).
async fn healthz() -> &'static str {
    "ok\n"
}

/// Why `/healthz` did not say the server is healthy.
#[derive(Debug, thiserror::Error)]
pub enum Unhealthy {
    /// No connection, or no answer in time.
    #[error("{0} (is the server running with --http-port on this port?)")]
    Io(#[from] std::io::Error),
    /// An answer other than 200.
    #[error("answered {0:?}")]
    Status(String),
}

/// Ask `/healthz` at `address` (what `arcade healthcheck` does for Docker): a plain
/// HTTP/1.0 GET on a blocking socket, so that the check needs no runtime and no curl.
///
/// # Errors
/// [`Unhealthy`] when the page does not answer `200` within `timeout`.
pub fn check_health(address: SocketAddr, timeout: std::time::Duration) -> Result<(), Unhealthy> {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect_timeout(&address, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.write_all(b"GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n")?;
    // The status line is all that matters; a few hundred bytes hold it.
    let mut answer = Vec::new();
    stream.take(512).read_to_end(&mut answer)?;
    let answer = String::from_utf8_lossy(&answer);
    let status = answer.lines().next().unwrap_or_default();
    if status.starts_with("HTTP/1.1 200") || status.starts_with("HTTP/1.0 200") {
        Ok(())
    } else {
        Err(Unhealthy::Status(status.to_string()))
    }
}

/// `/metrics`: Prometheus text, with the sessions by place and game counted from the
/// registry now.
async fn metrics(State(web): State<Shared>) -> Response {
    let places = web.services.registry.places();
    let sessions = places
        .iter()
        .map(|(place, game)| (place_label(place), game.unwrap_or("")));
    let text = web.services.metrics.render(sessions);
    ([(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)], text).into_response()
}

/// A place as `/metrics` labels it.
fn place_label(place: &crate::players::registry::Place) -> &'static str {
    use crate::players::registry::Place;
    match place {
        Place::Lobby => "lobby",
        Place::Game { .. } => "game",
        Place::Watching { .. } | Place::WatchingRace(_) => "watching",
        Place::Race { .. } => "race",
    }
}

/// `/recordings/ID` (the player) and `/recordings/ID.cast` (the asciicast file).
async fn recording(
    State(web): State<Shared>,
    jar: axum_extra::extract::cookie::CookieJar,
    Path(id): Path<String>,
) -> Response {
    match id.strip_suffix(".cast") {
        Some(id) => pages::cast(&web, id).await,
        None => {
            let admin = auth::admin(&web, &jar);
            pages::recording(&web, admin.as_ref(), &id).await
        }
    }
}
