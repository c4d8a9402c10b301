//! What machines ask the page: `/healthz` (Docker's HEALTHCHECK, load balancers) and
//! `/metrics` (Prometheus), and the client side of `/healthz` that `arcade healthcheck`
//! runs.

use std::net::SocketAddr;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::state::Shared;

/// `/healthz`: the server runs and answers (for Docker's HEALTHCHECK and load
/// balancers): `200` and `ok` on the first line, always; a line after it for each
/// thing an operator should know that does not make the server unhealthy (today: an
/// empty `--levels` folder, with the built-in levels served). A check that reads only
/// the status, or only the first line, is unchanged.
pub async fn healthz(State(web): State<Shared>) -> String {
    let mut text = String::from("ok\n");
    if web.services.contexts.current().levels.unfilled.is_some() {
        // The folder's path is the operator's business, not the network's: the log
        // names it.
        text.push_str("levels: the --levels folder is empty: the built-in levels are served\n");
    }
    text
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

/// `/metrics`: Prometheus text.
pub async fn metrics(State(web): State<Shared>) -> Response {
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
