//! The teacher's web page (SPEC section 11): who is playing, live; a student's board,
//! live; the leaderboards; the ladders; the results as CSV; recordings played in the
//! browser; `/metrics` and `/healthz`.
//!
//! Served by axum from the server's own runtime, off unless `--http-port` is given. It
//! reads what the sessions share (the registry, the store, the metrics) and never a
//! session's own state: the live table is a snapshot the registry gives a few times a
//! second, a board is watched as a player would watch it (the watched session sends it
//! frames), and the page's admin commands are the telnet commands' own code. Pages
//! are HTML from maud templates, which escape whatever they are given; the little
//! JavaScript they use is compiled into the binary (`assets/`), with a
//! Content-Security-Policy that allows no other script.
//!
//! The files, lowest first (each uses only those above it):
//! - `connection.rs`: one connection, served by hyper, its timeouts, and the client's
//!   address;
//! - `listener.rs`: the listener, bounded to [`MAX_CONNECTIONS`] and a share per
//!   address, with places kept for `/healthz`;
//! - `logins.rs`: the admins logged in, their cookie and CSRF tokens;
//! - `hosts.rs`: the admins as hosts of the races they open from the page, and what
//!   those races tell them;
//! - `live.rs`: the live table's publisher, one snapshot for every browser;
//! - `tables.rs`: the ladders' tables, read one at a time and shared for a moment;
//! - `state.rs`: what every handler shares;
//! - `html.rs`: the layout and the fragments every page shares;
//! - `auth.rs`: the `Admin` and `AdminForm` extractors (403 for everyone else), login
//!   and logout;
//! - `pages.rs` (`/`, `/watch/NAME`), `top.rs` (leaderboards), `recordings.rs`,
//!   `csv.rs` (`/results.csv`), `recording_list.rs` (`/recordings`, filtered),
//!   `forms.rs` (broadcast, kick), `events.rs` (the live streams), `health.rs`
//!   (`/healthz`, `/metrics`), `ladder_csv.rs` (`/ladders/N.csv`);
//! - `ladders.rs`: `/ladders` and `/ladders/N` (and the CSV's door);
//! - `router.rs`: which handler answers which path, headers and assets.

mod auth;
mod connection;
mod csv;
mod events;
mod forms;
mod health;
mod hosts;
mod html;
mod ladder_csv;
mod ladders;
mod listener;
mod live;
pub mod logins;
mod pages;
mod recording_list;
mod recordings;
mod router;
mod state;
mod top;

use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::seat::Services;

pub use connection::Timeouts;
pub use health::{check_health, Unhealthy};
pub use listener::{CONNECTIONS_PER_ADDRESS, MAX_CONNECTIONS, RESERVED};
pub use state::{DOWNLOADS_PER_ADDRESS, MAX_DOWNLOADS, STREAMS_PER_ADDRESS};

/// Serve the page on `listener` until `shutdown` is cancelled. `proxies` may say that
/// the browser reached them over HTTPS (`X-Forwarded-Proto`): the admin's cookie is
/// then `Secure`.
#[allow(clippy::too_many_arguments)] // each is one thing the server lends
pub async fn serve(
    listener: TcpListener,
    services: Services,
    logins: Arc<logins::Logins>,
    timeouts: Timeouts,
    proxies: crate::net::proxy::Proxies,
    shutdown: CancellationToken,
) {
    let start = |rows| {
        live::Live::start(
            services.registry.clone(),
            services.bus.clone(),
            rows,
            shutdown.clone(),
        )
    };
    let live = start(live::MAX_ROWS);
    let live_all = start(live::ALL_ROWS);
    let web = Arc::new(state::Web {
        services,
        logins,
        hosts: hosts::Hosts::default(),
        live,
        live_all,
        shutdown: shutdown.clone(),
        streams: state::streams(),
        downloads: state::downloads(),
        proxies,
    });
    if let Ok(address) = listener.local_addr() {
        tracing::info!(%address, "web page listening");
    }
    let app = router::router(web, timeouts);
    listener::serve(listener, app, timeouts, shutdown).await;
}
