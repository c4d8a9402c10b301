//! Recordings, public: `/recordings/ID` plays one in the browser (`assets/player.js`),
//! and `/recordings/ID.cast` is its asciicast file, as `arcade export ID` writes it.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::html;

use super::html::{layout, message, page, store_down};
use super::logins::Admin;
use super::state::{Shared, Web};
use crate::records::recording::{self, Recording};
use crate::records::scores;
use crate::store::Listed;

/// `/recordings/ID` (the player) and `/recordings/ID.cast` (the asciicast file).
pub async fn recording(
    State(web): State<Shared>,
    admin: Option<Admin>,
    Path(id): Path<String>,
) -> Response {
    match id.strip_suffix(".cast") {
        Some(id) => cast(&web, id).await,
        None => player(&web, admin.as_ref(), &id).await,
    }
}

/// The recording numbered `id` (as in the URL), or the page that says why not.
async fn find(web: &Web, id: &str) -> Result<(i64, Listed, Recording), Response> {
    let not_found = |text: &str| message(StatusCode::NOT_FOUND, "No such recording", text);
    let Ok(id) = id.parse::<i64>() else {
        return Err(not_found("Recordings are numbered: /recordings/12."));
    };
    match crate::records::recording::load(&web.services.store, id).await {
        Ok(Some((listed, recording))) => Ok((id, listed, recording)),
        Ok(None) => Err(not_found(&format!("There is no recording {id}."))),
        Err(error) => Err(store_down(&error)),
    }
}

/// `PLAYER playing GAME ARGS`: the recording's title on its page and in its file.
fn title(listed: &Listed) -> String {
    let title = format!("{} playing {} {}", listed.player, listed.game, listed.args);
    title.trim_end().to_string()
}

/// `GET /recordings/ID`: the recording played in the browser.
async fn player(web: &Web, admin: Option<&Admin>, id: &str) -> Response {
    let (id, listed, _) = match find(web, id).await {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    let title = title(&listed);
    let cast = format!("/recordings/{id}.cast");
    let body = html! {
        h1 { "Recording " (id) }
        p {
            (title) ", " (scores::date(listed.started_at)) ", "
            (listed.inputs) " lines."
        }
        div id="player" data-cast=(cast)
            data-max-pause=(crate::console::MAX_PAUSE.as_secs()) {
            p class="controls" {
                button type="button" id="play" { "Pause" } " "
                label {
                    "Speed "
                    select id="speed" {
                        option value="0.5" { "0.5×" }
                        option value="1" selected { "1×" }
                        option value="2" { "2×" }
                        option value="4" { "4×" }
                        option value="8" { "8×" }
                    }
                } " "
                button type="button" id="restart" { "From the start" } " "
                span id="position" {} " "
                a href=(cast) download={ "arcade-" (id) ".cast" } id="download" {
                    "Download (asciicast)"
                }
            }
            pre id="screen" {}
        }
    };
    page(
        StatusCode::OK,
        layout(&format!("Recording {id}"), admin, body, Some("player.js")),
    )
}

/// `GET /recordings/ID.cast`: the asciicast file, as `arcade export ID` writes it.
async fn cast(web: &Web, id: &str) -> Response {
    let (id, listed, recording) = match find(web, id).await {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    let context = web.services.contexts.current();
    let title = title(&listed);
    // Replaying is the games' work, not the event loop's.
    let cast = tokio::task::spawn_blocking(move || {
        recording::asciicast(&recording, &title, listed.started_at / 1000, &context)
    })
    .await;
    match cast {
        Ok(Ok(cast)) => (
            [
                (header::CONTENT_TYPE, "application/x-asciicast".to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"arcade-{id}.cast\""),
                ),
            ],
            cast,
        )
            .into_response(),
        Ok(Err(error)) => message(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Cannot replay",
            &format!("Recording {id} cannot be played again: {error}"),
        ),
        Err(_) => message(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Cannot replay",
            "Replaying this recording failed.",
        ),
    }
}
