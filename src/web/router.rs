//! Which handler answers which path, the headers every answer carries, and the
//! page's assets (its stylesheet and scripts, compiled into the binary).

use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use super::connection::Timeouts;
use super::html::message;
use super::state::Shared;
use super::{auth, csv, events, forms, health, ladders, pages, recording_list, recordings, top};

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

/// The page's routes, over `web`. The forms' requests must arrive whole within the
/// idle timeout: a body sent a byte a minute does not hold its connection.
pub fn router(web: Shared, timeouts: Timeouts) -> Router {
    let forms = Router::new()
        .route("/login", get(auth::login_page).post(auth::log_in))
        .route("/logout", post(auth::log_out))
        .route("/admin/broadcast", post(forms::broadcast))
        .route("/admin/kick", post(forms::kick))
        .route("/admin/race", post(forms::race))
        .route("/admin/start", post(forms::start))
        .route("/admin/leave", post(forms::leave))
        .route("/admin/reload", post(forms::reload))
        .route_layer(axum::middleware::from_fn_with_state(timeouts, within));
    Router::new()
        .route("/", get(pages::live))
        .route("/events", get(events::sessions))
        .route("/watch/{name}", get(pages::watch))
        .route("/watch/{name}/events", get(events::board))
        .route("/top", get(top::boards))
        .route("/top/{game}/{*level}", get(top::top))
        .route("/results.csv", get(csv::results))
        .route("/ladders", get(ladders::list))
        .route("/ladders/{id}", get(ladders::ladder))
        .route("/recordings", get(recording_list::list))
        .route("/recordings/{id}", get(recordings::recording))
        .route("/metrics", get(health::metrics))
        .route("/healthz", get(health::healthz))
        .merge(forms)
        .route("/assets/{name}", get(asset))
        .fallback(not_found)
        .layer(axum::middleware::map_response(secure))
        .with_state(web)
}

/// A request answered within the idle timeout, its body read included, or 408.
async fn within(State(timeouts): State<Timeouts>, request: Request, next: Next) -> Response {
    match tokio::time::timeout(timeouts.idle, next.run(request)).await {
        Ok(response) => response,
        Err(_) => (
            StatusCode::REQUEST_TIMEOUT,
            "The request took too long to arrive: send it again.\n",
        )
            .into_response(),
    }
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

/// `GET /assets/NAME`: one of [`ASSETS`].
async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(asset, _, _)| *asset == name) {
        Some((_, media_type, content)) => {
            ([(header::CONTENT_TYPE, *media_type)], *content).into_response()
        }
        None => not_found().await,
    }
}

/// Any other path.
async fn not_found() -> Response {
    message(StatusCode::NOT_FOUND, "Not found", "There is no such page.")
}
