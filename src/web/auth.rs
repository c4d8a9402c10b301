//! Admin login on the web page: the same accounts and `--admin` names as telnet's,
//! a random session token in a cookie (HttpOnly, SameSite=Strict), a CSRF token in
//! every form that changes anything, and 403 for everyone else.
//!
//! Logins live in memory: a restart logs the teacher out, as it disconnects the
//! students. They last [`LOGIN_LIFETIME`] and there are at most [`MAX_LOGINS`], so
//! nobody can grow the table by logging in again and again.

use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use dashmap::DashMap;
use rand::RngCore;
use serde::Deserialize;

use super::{pages, Peer, Shared};
use crate::players::accounts::{self, clean_text, PlayerName, MAX_CHAT};

/// The cookie that carries an admin's session token.
pub const COOKIE: &str = "arcade_admin";

/// How long a login lasts.
const LOGIN_LIFETIME: Duration = Duration::from_secs(12 * 3600);

/// Logins kept at once; the oldest goes first beyond it.
const MAX_LOGINS: usize = 1024;

/// The longest password looked at (Argon2 hashes whatever it is given).
const MAX_PASSWORD: usize = 1024;

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

impl Logins {
    /// A new login for `name`: its token.
    fn open(&self, name: PlayerName) -> String {
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
    fn admin(&self, jar: &CookieJar, is_admin: impl Fn(&PlayerName) -> bool) -> Option<Admin> {
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

    /// Show `text` on the admin's next page.
    fn tell(&self, admin: &Admin, text: String) {
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

/// The admin making this request, if any.
pub fn admin(web: &Shared, jar: &CookieJar) -> Option<Admin> {
    web.logins
        .admin(jar, |name| web.services.names_admin(name.as_str()))
}

/// The admin making this form's request, if the form carries their CSRF token; else
/// the refusal (boxed: a response is large, and refusals are rare).
fn admin_posting(web: &Shared, jar: &CookieJar, csrf: &str) -> Result<Admin, Box<Response>> {
    match admin(web, jar) {
        Some(admin) if same_token(&admin.csrf, csrf) => Ok(admin),
        Some(_) => Err(Box::new(pages::message(
            StatusCode::FORBIDDEN,
            "Form expired",
            "This form is out of date: open the page again and send it from there.",
        ))),
        None => Err(Box::new(pages::forbidden())),
    }
}

/// `GET /login`.
pub async fn login_page(State(web): State<Shared>, jar: CookieJar) -> Response {
    pages::login(admin(&web, &jar).as_ref(), None, StatusCode::OK)
}

/// The login form.
#[derive(Debug, Deserialize)]
pub struct LoginForm {
    name: String,
    password: String,
}

/// `POST /login`: the name's password, checked as telnet's `name` checks it (and
/// slowed down the same way after repeated attempts); only `--admin` names may log in.
pub async fn log_in(
    State(web): State<Shared>,
    ConnectInfo(Peer(peer)): ConnectInfo<Peer>,
    jar: CookieJar,
    Form(form): Form<LoginForm>,
) -> Response {
    const WRONG: &str = "Wrong name or password.";
    let Ok(name) = PlayerName::parse(form.name.trim()) else {
        return pages::login(None, Some(WRONG), StatusCode::UNAUTHORIZED);
    };
    if form.password.len() > MAX_PASSWORD {
        return pages::login(None, Some(WRONG), StatusCode::UNAUTHORIZED);
    }
    let services = &web.services;
    let wait = services.throttle.delay(&name.key(), peer.ip());
    if !wait.is_zero() {
        tracing::warn!(name = %name, address = %peer.ip(), ?wait, "web login slowed down after repeated attempts");
        tokio::time::sleep(wait).await;
    }
    let account = match services.store.account(&name.key()).await {
        Ok(account) => account,
        Err(error) => {
            tracing::error!(%error, "web login: cannot read accounts");
            return pages::message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Try again",
                "The database does not answer; try again in a moment.",
            );
        }
    };
    let Some(account) = account else {
        return pages::login(None, Some(WRONG), StatusCode::UNAUTHORIZED);
    };
    let password = form.password;
    let hash = account.password_hash.clone();
    let matches = tokio::task::spawn_blocking(move || accounts::verify_password(&password, &hash))
        .await
        .unwrap_or(false);
    if !matches {
        tracing::warn!(name = %name, address = %peer.ip(), "web login: wrong password");
        return pages::login(None, Some(WRONG), StatusCode::UNAUTHORIZED);
    }
    let Ok(name) = PlayerName::parse(&account.name) else {
        return pages::login(None, Some(WRONG), StatusCode::UNAUTHORIZED);
    };
    if !services.names_admin(name.as_str()) {
        return pages::login(
            None,
            Some(&format!(
                "{name} is not an admin of this server (arcade serve --admin {name})."
            )),
            StatusCode::FORBIDDEN,
        );
    }
    tracing::info!(admin = %name, address = %peer.ip(), "web login");
    let token = web.logins.open(name);
    let cookie = Cookie::build((COOKIE, token))
        .http_only(true)
        .same_site(SameSite::Strict)
        .path("/")
        .build();
    (jar.add(cookie), Redirect::to("/")).into_response()
}

/// A form that carries only its CSRF token.
#[derive(Debug, Deserialize)]
pub struct PlainForm {
    csrf: String,
}

/// `POST /logout`.
pub async fn log_out(
    State(web): State<Shared>,
    jar: CookieJar,
    Form(form): Form<PlainForm>,
) -> Response {
    let admin = match admin_posting(&web, &jar, &form.csrf) {
        Ok(admin) => admin,
        Err(refusal) => return *refusal,
    };
    web.logins.by_token.remove(&admin.token);
    let gone = Cookie::build((COOKIE, "")).path("/").build();
    (jar.remove(gone), Redirect::to("/")).into_response()
}

/// The broadcast form.
#[derive(Debug, Deserialize)]
pub struct BroadcastForm {
    csrf: String,
    text: String,
}

/// `POST /admin/broadcast`: telnet's `broadcast TEXT`, then back to the live table
/// with what it did.
pub async fn broadcast(
    State(web): State<Shared>,
    jar: CookieJar,
    Form(form): Form<BroadcastForm>,
) -> Response {
    let admin = match admin_posting(&web, &jar, &form.csrf) {
        Ok(admin) => admin,
        Err(refusal) => return *refusal,
    };
    let notice = match clean_text(&form.text) {
        Ok(text) if text.is_empty() => String::from("Type something to broadcast."),
        Ok(text) => web.services.broadcast(&admin.name, &text),
        Err(length) => {
            format!("That line has {length} characters: a broadcast is at most {MAX_CHAT}.")
        }
    };
    web.logins.tell(&admin, notice);
    Redirect::to("/").into_response()
}

/// The kick form.
#[derive(Debug, Deserialize)]
pub struct KickForm {
    csrf: String,
    name: String,
    #[serde(default)]
    why: String,
}

/// `POST /admin/kick`: telnet's `kick NAME [WHY]`.
pub async fn kick(
    State(web): State<Shared>,
    jar: CookieJar,
    Form(form): Form<KickForm>,
) -> Response {
    let admin = match admin_posting(&web, &jar, &form.csrf) {
        Ok(admin) => admin,
        Err(refusal) => return *refusal,
    };
    let notice = if form.name.trim().is_empty() {
        String::from("Type the name of the player to disconnect.")
    } else {
        web.services.kick(&admin.name, form.name.trim(), &form.why)
    };
    web.logins.tell(&admin, notice);
    Redirect::to("/").into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
