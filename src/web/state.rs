//! What every handler of the page shares: the server's services, the admins' logins,
//! the live table's publisher, and the shutdown signal. One cheap handle ([`Shared`]),
//! cloned into each request by axum.

use std::sync::Arc;

use axum_extra::extract::cookie::CookieJar;
use tokio_util::sync::CancellationToken;

use super::live::Live;
use super::logins::{Admin, Logins};
use crate::seat::Services;

/// What every handler shares.
#[derive(Debug)]
pub struct Web {
    /// The registry, the store, the metrics: what the sessions share.
    pub services: Services,
    /// The admins logged in to the page.
    pub logins: Logins,
    /// The live table, published once for every browser.
    pub live: Live,
    /// Cancelled at shutdown: the live streams end, so that serving can.
    pub shutdown: CancellationToken,
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
