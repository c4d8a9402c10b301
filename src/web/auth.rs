//! Who may do what on the page: the [`Admin`] extractor that admin pages take (403 for
//! everyone else), `Option<Admin>` for pages that only show more to an admin, the
//! [`AdminForm`] extractor that checks a form's CSRF token, and the login form itself.
//!
//! Logging in uses the same accounts and `--admin` names as telnet's: the password is
//! checked as `name` checks it (and slowed down the same way), and the login is a random
//! session token in a cookie (HttpOnly, SameSite=Strict, and Secure when a trusted
//! proxy says the browser came over HTTPS), kept in `logins.rs`.

use std::convert::Infallible;
use std::net::SocketAddr;

use axum::extract::rejection::FormRejection;
use axum::extract::{
    ConnectInfo, FromRequest, FromRequestParts, OptionalFromRequestParts, Request, State,
};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use maud::html;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::connection::Peer;
use super::html::{layout, message, page, store_down};
use super::logins::{Admin, COOKIE};
use super::state::{Shared, Web};
use crate::players::accounts::PlayerName;

/// The longest password looked at (Argon2 hashes whatever it is given).
const MAX_PASSWORD: usize = 1024;

/// Why a request that needs an admin was refused.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// No admin is logged in with this request's cookie.
    #[error("for admins only")]
    NotAdmin,
    /// An admin, but the form does not carry their CSRF token.
    #[error("the form's token is not the admin's")]
    FormExpired,
    /// The form could not be read.
    #[error(transparent)]
    Form(#[from] FormRejection),
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::NotAdmin => forbidden(),
            Refusal::FormExpired => message(
                StatusCode::FORBIDDEN,
                "Form expired",
                "This form is out of date: open the page again and send it from there.",
            ),
            Refusal::Form(rejection) => rejection.into_response(),
        }
    }
}

/// What every admin page answers everyone else.
fn forbidden() -> Response {
    let body = html! {
        h1 { "For admins only" }
        p {
            "This page is for the server's admins ("
            code { "arcade serve --admin NAME" }
            "). "
            a href="/login" { "Log in" }
            " with an admin's name and password."
        }
    };
    page(
        StatusCode::FORBIDDEN,
        layout("For admins only", None, body, None),
    )
}

/// A handler that takes an [`Admin`] runs for a logged-in admin only.
impl FromRequestParts<Shared> for Admin {
    type Rejection = Refusal;

    async fn from_request_parts(parts: &mut Parts, web: &Shared) -> Result<Self, Refusal> {
        web.admin(&CookieJar::from_headers(&parts.headers))
            .ok_or(Refusal::NotAdmin)
    }
}

/// A handler that takes an `Option<Admin>` runs for everyone, and knows whether an
/// admin asks.
impl OptionalFromRequestParts<Shared> for Admin {
    type Rejection = Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        web: &Shared,
    ) -> Result<Option<Self>, Infallible> {
        Ok(web.admin(&CookieJar::from_headers(&parts.headers)))
    }
}

/// A form that changes something: it carries the admin's CSRF token.
pub trait Signed {
    /// The token the form was sent with.
    fn csrf(&self) -> &str;
}

/// An admin's form, sent with their CSRF token: the admin, and the form. Everyone else
/// is refused before the form is read.
#[derive(Debug)]
pub struct AdminForm<T>(pub Admin, pub T);

impl<T> FromRequest<Shared> for AdminForm<T>
where
    T: DeserializeOwned + Signed + Send,
{
    type Rejection = Refusal;

    async fn from_request(request: Request, web: &Shared) -> Result<Self, Refusal> {
        let (mut parts, body) = request.into_parts();
        let admin =
            <Admin as FromRequestParts<Shared>>::from_request_parts(&mut parts, web).await?;
        let Form(form) = Form::<T>::from_request(Request::from_parts(parts, body), web).await?;
        if !admin.signed(form.csrf()) {
            return Err(Refusal::FormExpired);
        }
        Ok(AdminForm(admin, form))
    }
}

/// The login form, or the form again with why the last try failed.
fn login(admin: Option<&Admin>, problem: Option<&str>, status: StatusCode) -> Response {
    let body = html! {
        h1 { "Admin login" }
        @if let Some(admin) = admin {
            p { "You are logged in as " (admin.name.as_str()) "." }
        }
        @if let Some(problem) = problem {
            p class="problem" id="problem" { (problem) }
        }
        p {
            "With the name and password you registered on the server (telnet: "
            code { "name NAME" } ", then " code { "register" } "), for a name given with "
            code { "--admin" } "."
        }
        form method="post" action="/login" id="login" {
            label { "Name " input name="name" id="name" autocomplete="username" required; } " "
            label {
                "Password "
                input name="password" id="password" type="password"
                    autocomplete="current-password" required;
            } " "
            button type="submit" id="log-in" { "Log in" }
        }
    };
    page(status, layout("Admin login", admin, body, None))
}

/// `GET /login`.
pub async fn login_page(admin: Option<Admin>) -> Response {
    login(admin.as_ref(), None, StatusCode::OK)
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
    headers: HeaderMap,
    jar: CookieJar,
    Form(form): Form<LoginForm>,
) -> Response {
    const WRONG: &str = "Wrong name or password.";
    let Ok(name) = PlayerName::parse(form.name.trim()) else {
        return login(None, Some(WRONG), StatusCode::UNAUTHORIZED);
    };
    if form.password.len() > MAX_PASSWORD {
        return login(None, Some(WRONG), StatusCode::UNAUTHORIZED);
    }
    let services = &web.services;
    let _attempt = match services.safeguards.throttle.admit(&name.key(), peer.ip()) {
        Ok(attempt) => attempt,
        Err(refused) => {
            services.metrics.logins_refused.inc();
            tracing::debug!(name = %name, address = %peer.ip(), %refused, "web login refused");
            return login(
                None,
                Some(&refused.to_string()),
                StatusCode::TOO_MANY_REQUESTS,
            );
        }
    };
    let account = match services.store.account(&name.key()).await {
        Ok(account) => account,
        Err(error) => return store_down(&error),
    };
    // An unknown name is checked against a stand-in hash: it is answered no sooner
    // than a wrong password, so the page does not tell which names exist.
    let hash = account
        .as_ref()
        .map(|account| account.password_hash.clone());
    let matches = match services.safeguards.hasher.verify(form.password, hash).await {
        Ok(matches) => matches,
        Err(busy) => {
            services.metrics.logins_refused.inc();
            return login(None, Some(&busy.to_string()), StatusCode::TOO_MANY_REQUESTS);
        }
    };
    let (true, Some(account)) = (matches, account) else {
        tracing::warn!(name = %name, address = %peer.ip(), "web login: wrong name or password");
        return login(None, Some(WRONG), StatusCode::UNAUTHORIZED);
    };
    let Ok(name) = PlayerName::parse(&account.name) else {
        return login(None, Some(WRONG), StatusCode::UNAUTHORIZED);
    };
    if !services.names_admin(name.as_str()) {
        return login(
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
        .secure(over_https(&web, peer, &headers))
        .path("/")
        .build();
    (jar.add(cookie), Redirect::to("/")).into_response()
}

/// Whether the browser reached the page over HTTPS: a proxy of `--proxy-from` (this
/// machine by default) says so in `X-Forwarded-Proto`. The server speaks plain HTTP
/// itself; a client's own header is not believed (it would only make its own cookie
/// unusable, but the page does not act on what a client claims).
fn over_https(web: &Web, peer: SocketAddr, headers: &HeaderMap) -> bool {
    web.proxies.trusts(peer.ip())
        && headers
            .get("x-forwarded-proto")
            .and_then(|proto| proto.to_str().ok())
            .is_some_and(|proto| {
                // A chain of proxies lists one protocol each; the first is the browser's.
                proto
                    .split(',')
                    .next()
                    .is_some_and(|first| first.trim().eq_ignore_ascii_case("https"))
            })
}

/// A form that carries only its CSRF token.
#[derive(Debug, Deserialize)]
pub struct PlainForm {
    csrf: String,
}

impl Signed for PlainForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

/// `POST /logout`.
pub async fn log_out(
    State(web): State<Shared>,
    jar: CookieJar,
    AdminForm(admin, _): AdminForm<PlainForm>,
) -> Response {
    web.logins.close(&admin);
    let gone = Cookie::build((COOKIE, "")).path("/").build();
    (jar.remove(gone), Redirect::to("/")).into_response()
}
