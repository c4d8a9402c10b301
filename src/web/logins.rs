//! The admins logged in to the page: a random session token per login, carried by a
//! cookie, with the CSRF token every form of theirs must send back and what their last
//! form did.
//!
//! Logins live in memory: a restart logs the teacher out, as it disconnects the
//! students. They last [`LOGIN_LIFETIME`] and there are at most [`MAX_LOGINS`], so
//! nobody can grow the table by logging in again and again. Nothing here knows HTTP
//! beyond the cookie's name: `auth.rs` turns a request into an [`Admin`].

use std::time::{Duration, Instant};

use axum_extra::extract::cookie::CookieJar;
use dashmap::DashMap;
use rand::RngCore;

use crate::players::accounts::PlayerName;

/// The cookie that carries an admin's session token.
pub const COOKIE: &str = "arcade_admin";

/// How long a login lasts.
const LOGIN_LIFETIME: Duration = Duration::from_secs(12 * 3600);

/// Logins kept at once; the oldest goes first beyond it.
const MAX_LOGINS: usize = 1024;

/// The admins logged in to the page, by session token.
#[derive(Debug, Default)]
pub struct Logins {
    by_token: DashMap<String, Login>,
}

#[derive(Debug, Clone)]
struct Login {
    name: PlayerName,
    csrf: String,
    expires: Instant,
    /// What the last form did, shown once on the next page.
    notice: Option<String>,
}

/// An admin, logged in: what a page needs to show admin controls.
#[derive(Debug, Clone)]
pub struct Admin {
    /// The admin's name.
    pub name: PlayerName,
    /// The token every form of theirs must carry.
    pub csrf: String,
    token: String,
}

impl Admin {
    /// Whether `csrf` (from a form) is this admin's token, compared in time that does
    /// not depend on where they differ.
    pub fn signed(&self, csrf: &str) -> bool {
        same_token(&self.csrf, csrf)
    }
}

impl Logins {
    /// A new login for `name`: its token.
    pub fn open(&self, name: PlayerName) -> String {
        let now = Instant::now();
        if self.by_token.len() >= MAX_LOGINS {
            self.by_token.retain(|_, login| login.expires > now);
        }
        if self.by_token.len() >= MAX_LOGINS {
            let oldest = self
                .by_token
                .iter()
                .min_by_key(|entry| entry.expires)
                .map(|entry| entry.key().clone());
            if let Some(oldest) = oldest {
                self.by_token.remove(&oldest);
            }
        }
        let token = random_token();
        self.by_token.insert(
            token.clone(),
            Login {
                name,
                csrf: random_token(),
                expires: now + LOGIN_LIFETIME,
                notice: None,
            },
        );
        token
    }

    /// The admin whose cookie is in `jar`, if logged in and still an admin.
    pub fn admin(&self, jar: &CookieJar, is_admin: impl Fn(&PlayerName) -> bool) -> Option<Admin> {
        let token = jar.get(COOKIE)?.value();
        let login = self.by_token.get(token)?.clone();
        if login.expires <= Instant::now() || !is_admin(&login.name) {
            self.by_token.remove(token);
            return None;
        }
        Some(Admin {
            name: login.name,
            csrf: login.csrf,
            token: token.to_string(),
        })
    }

    /// End `admin`'s login.
    pub fn close(&self, admin: &Admin) {
        self.by_token.remove(&admin.token);
    }

    /// Show `text` on the admin's next page.
    pub fn tell(&self, admin: &Admin, text: String) {
        if let Some(mut login) = self.by_token.get_mut(&admin.token) {
            login.notice = Some(text);
        }
    }

    /// What the last form did, once.
    pub fn take_notice(&self, admin: &Admin) -> Option<String> {
        self.by_token
            .get_mut(&admin.token)
            .and_then(|mut login| login.notice.take())
    }
}

/// One login as it moves to a new server process in an upgrade (SPEC section 11), so
/// that the teacher's page stays logged in.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct MovedLogin {
    token: String,
    name: PlayerName,
    csrf: String,
    /// Seconds it has left.
    left: u64,
}

impl Logins {
    /// Every login still valid, to move.
    pub fn pack(&self) -> Vec<MovedLogin> {
        let now = Instant::now();
        self.by_token
            .iter()
            .filter(|entry| entry.expires > now)
            .map(|entry| MovedLogin {
                token: entry.key().clone(),
                name: entry.name.clone(),
                csrf: entry.csrf.clone(),
                left: entry.expires.saturating_duration_since(now).as_secs(),
            })
            .collect()
    }

    /// The logins moved here, as they were (at most [`MAX_LOGINS`]).
    pub fn unpack(moved: Vec<MovedLogin>) -> Logins {
        let logins = Logins::default();
        let now = Instant::now();
        for login in moved.into_iter().take(MAX_LOGINS) {
            let left = Duration::from_secs(login.left).min(LOGIN_LIFETIME);
            logins.by_token.insert(
                login.token,
                Login {
                    name: login.name,
                    csrf: login.csrf,
                    expires: now + left,
                    notice: None,
                },
            );
        }
        logins
    }
}

/// 32 bytes from the operating system's seeded generator, in hex.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Whether two tokens are equal, in time that does not depend on where they differ.
fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |differ, (x, y)| differ | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum_extra::extract::cookie::Cookie;

    fn jar_with(token: &str) -> CookieJar {
        CookieJar::new().add(Cookie::new(COOKIE, token.to_string()))
    }

    #[test]
    fn a_login_is_found_by_its_cookie_only_while_its_name_is_an_admin() {
        let logins = Logins::default();
        let name = PlayerName::parse("Teacher").unwrap();
        let token = logins.open(name.clone());
        assert_eq!(token.len(), 64);
        let admin = logins.admin(&jar_with(&token), |_| true).unwrap();
        assert_eq!(admin.name, name);
        assert_ne!(admin.csrf, token);
        assert!(logins.admin(&jar_with("forged"), |_| true).is_none());
        assert!(logins.admin(&CookieJar::new(), |_| true).is_none());
        // No longer an admin: the login is gone.
        assert!(logins.admin(&jar_with(&token), |_| false).is_none());
        assert!(logins.admin(&jar_with(&token), |_| true).is_none());
    }

    #[test]
    fn logins_are_bounded() {
        let logins = Logins::default();
        let name = PlayerName::parse("Teacher").unwrap();
        let first = logins.open(name.clone());
        for _ in 0..MAX_LOGINS + 10 {
            logins.open(name.clone());
        }
        assert_eq!(logins.by_token.len(), MAX_LOGINS);
        assert!(logins.admin(&jar_with(&first), |_| true).is_none());
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abc", "abd"));
        assert!(!same_token("abc", "ab"));
        assert!(!same_token("", "a"));
    }

    #[test]
    fn logins_move_to_a_new_process_and_stay_logged_in() {
        let logins = Logins::default();
        let token = logins.open(PlayerName::parse("Teacher").unwrap());
        let admin = logins.admin(&jar_with(&token), |_| true).unwrap();
        let json = serde_json::to_string(&logins.pack()).unwrap();
        let moved = Logins::unpack(serde_json::from_str(&json).unwrap());
        let again = moved.admin(&jar_with(&token), |_| true).unwrap();
        assert_eq!(again.name, admin.name);
        assert!(again.signed(&admin.csrf));
        assert!(moved.admin(&jar_with("forged"), |_| true).is_none());
        let left = moved.by_token.get(&token).unwrap().expires - Instant::now();
        assert!(left > LOGIN_LIFETIME - Duration::from_secs(5), "{left:?}");
    }

    #[test]
    fn a_notice_is_shown_once() {
        let logins = Logins::default();
        let token = logins.open(PlayerName::parse("Teacher").unwrap());
        let admin = logins.admin(&jar_with(&token), |_| true).unwrap();
        logins.tell(&admin, String::from("Sent to 3 players."));
        assert_eq!(
            logins.take_notice(&admin).as_deref(),
            Some("Sent to 3 players.")
        );
        assert_eq!(logins.take_notice(&admin), None);
    }

    #[test]
    fn a_closed_login_is_gone_and_a_form_is_signed_by_its_token_only() {
        let logins = Logins::default();
        let token = logins.open(PlayerName::parse("Teacher").unwrap());
        let admin = logins.admin(&jar_with(&token), |_| true).unwrap();
        assert!(admin.signed(&admin.csrf.clone()));
        assert!(!admin.signed("0123"));
        assert!(!admin.signed(&token));
        logins.close(&admin);
        assert!(logins.admin(&jar_with(&token), |_| true).is_none());
    }
}
