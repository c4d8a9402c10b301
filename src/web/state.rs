//! What every handler of the page shares: the server's services, the admins' logins,
//! the live table's publisher, the ladders' tables, and the shutdown signal. One cheap handle ([`Shared`]),
//! cloned into each request by axum.

use std::sync::Arc;

use axum_extra::extract::cookie::CookieJar;
use tokio_util::sync::CancellationToken;

use super::hosts::Hosts;
use super::live::Live;
use super::logins::{Admin, Logins};
use crate::records::places::Places;
use crate::seat::Services;

/// Live streams (`/events`, a watched board) open at once from one address: a
/// teacher's tabs fit; a script's thousand do not.
pub const STREAMS_PER_ADDRESS: usize = 16;

/// Downloads of recordings (`/recordings/ID.cast`) being written at once: each
/// replays its game on a blocking thread, and a long one writes close to a gigabyte.
pub const MAX_DOWNLOADS: usize = 4;

/// Downloads one address may have under way at once.
pub const DOWNLOADS_PER_ADDRESS: usize = 2;

/// The places for live streams.
pub fn streams() -> Places {
    Places::new(super::MAX_CONNECTIONS, STREAMS_PER_ADDRESS)
}

/// The places for downloads.
pub fn downloads() -> Places {
    Places::new(MAX_DOWNLOADS, DOWNLOADS_PER_ADDRESS)
}

/// What every handler shares.
#[derive(Debug)]
pub struct Web {
    /// The registry, the store, the metrics: what the sessions share.
    pub services: Services,
    /// The admins logged in to the page (shared with the server, which hands them to
    /// a new process in an upgrade).
    pub logins: std::sync::Arc<Logins>,
    /// The admins as hosts of the races they open from the page.
    pub hosts: Hosts,
    /// The live table, published once for every browser.
    pub live: Live,
    /// The live table with every row (`/?all`), published only while followed.
    pub live_all: Live,
    /// Cancelled at shutdown: the live streams end, so that serving can.
    pub shutdown: CancellationToken,
    /// Live streams open, counted per address ([`STREAMS_PER_ADDRESS`]).
    pub streams: Places,
    /// Downloads under way ([`MAX_DOWNLOADS`], [`DOWNLOADS_PER_ADDRESS`]).
    pub downloads: Places,
    /// The proxies whose `X-Forwarded-Proto` is believed (`--proxy-from`).
    pub proxies: crate::net::proxy::Proxies,
}

/// The handle every handler receives.
pub type Shared = Arc<Web>;

impl Web {
    /// The admin whose cookie is in `jar`, if logged in and still named by `--admin`.
    pub fn admin(&self, jar: &CookieJar) -> Option<Admin> {
        self.logins
            .admin(jar, |name| self.services.names_admin(name.as_str()))
    }
}
