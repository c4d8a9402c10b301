//! Recordings: `/recordings/ID` plays one in the browser (`assets/player.js`), and
//! `/recordings/ID.cast` is its asciicast file, as `arcade export ID` writes it.
//!
//! Registered players' recordings are public, as their results are; a guest's are the
//! admins' only (a guest has no password, so nobody can say whose they are, and a
//! name anyone can take should not publish what was typed under it). A file is
//! written frame by frame from the store as the browser reads it
//! (`records::cast`), on a blocking thread: at most
//! [`MAX_DOWNLOADS`](super::state::MAX_DOWNLOADS) at once, and
//! [`DOWNLOADS_PER_ADDRESS`](super::state::DOWNLOADS_PER_ADDRESS) from one address.

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use maud::html;
use tokio::sync::{mpsc, oneshot};

use super::connection::Peer;
use super::html::{layout, message, page, store_down};
use super::logins::Admin;
use super::state::{Shared, Web};
use crate::records::cast::{self, write_asciicast, CastError, CastHeader};
use crate::records::reader::BlockingInputs;
use crate::records::scores;
use crate::store::RecordingHead;

/// What a download beyond the limits is answered.
pub const TOO_MANY_DOWNLOADS: &str = "Too many downloads at once, try again in a moment.\n";

/// Bytes of the file sent to the browser at a time.
const CHUNK: usize = 64 * 1024;

/// Chunks written ahead of what the browser has read.
const CHUNKS_AHEAD: usize = 4;

/// `/recordings/ID` (the player) and `/recordings/ID.cast` (the asciicast file).
pub async fn recording(
    State(web): State<Shared>,
    admin: Option<Admin>,
    ConnectInfo(Peer(peer)): ConnectInfo<Peer>,
    Path(id): Path<String>,
) -> Response {
    match id.strip_suffix(".cast") {
        Some(id) => cast(&web, admin.as_ref(), peer, id).await,
        None => player(&web, admin.as_ref(), &id).await,
    }
}

/// The recording numbered `id` (as in the URL), without its inputs, if `admin` may
/// see it; or the page that says why not.
async fn find(
    web: &Web,
    admin: Option<&Admin>,
    id: &str,
) -> Result<(i64, RecordingHead), Response> {
    let not_found = |text: &str| message(StatusCode::NOT_FOUND, "No such recording", text);
    let Ok(id) = id.parse::<i64>() else {
        return Err(not_found("Recordings are numbered: /recordings/12."));
    };
    match web.services.store.recording_head(id).await {
        Ok(Some(head)) if head.registered || admin.is_some() => Ok((id, head)),
        Ok(Some(_)) => Err(message(
            StatusCode::FORBIDDEN,
            "A guest's recording",
            &format!("Recording {id} is a guest's game: only an admin can see it. Log in as an admin to see it."),
        )),
        Ok(None) => Err(not_found(&format!("There is no recording {id}."))),
        Err(error) => Err(store_down(&error)),
    }
}

/// `GET /recordings/ID`: the recording played in the browser.
async fn player(web: &Web, admin: Option<&Admin>, id: &str) -> Response {
    let (id, RecordingHead { listed, .. }) = match find(web, admin, id).await {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    let title = cast::title(&listed);
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

/// `GET /recordings/ID.cast`: the asciicast file, as `arcade export ID` writes it,
/// streamed as it is written.
async fn cast(web: &Web, admin: Option<&Admin>, peer: SocketAddr, id: &str) -> Response {
    let (id, head) = match find(web, admin, id).await {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    let Ok(place) = web.downloads.take(peer.ip()) else {
        return (StatusCode::TOO_MANY_REQUESTS, TOO_MANY_DOWNLOADS).into_response();
    };
    let (chunks, receiver) = mpsc::channel(CHUNKS_AHEAD);
    let (measured, ready) = oneshot::channel();
    let export = Export {
        store: web.services.store.clone(),
        context: web.services.contexts.current(),
        runtime: tokio::runtime::Handle::current(),
        id,
        head,
    };
    // Replaying is the games' work, not the event loop's; the place goes with it.
    tokio::task::spawn_blocking(move || {
        export.run(chunks, measured);
        drop(place);
    });
    match ready.await {
        Ok(Ok(())) => {}
        Ok(Err(CastError::Replay(error))) => {
            return message(
                StatusCode::UNPROCESSABLE_ENTITY,
                "Cannot replay",
                &format!("Recording {id} cannot be played again: {error}"),
            )
        }
        Ok(Err(CastError::Store(error))) => return store_down(&error),
        Ok(Err(CastError::Write(_))) | Err(_) => {
            return message(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Cannot replay",
                "Replaying this recording failed.",
            )
        }
    }
    let body = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|chunk| (chunk, receiver))
    });
    (
        [
            (header::CONTENT_TYPE, "application/x-asciicast".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"arcade-{id}.cast\""),
            ),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// One download, written on a blocking thread.
struct Export {
    store: crate::store::Store,
    context: std::sync::Arc<crate::catalog::table::Context>,
    runtime: tokio::runtime::Handle,
    id: i64,
    head: RecordingHead,
}

impl Export {
    /// Write the file into `chunks`; `measured` is told whether the first pass (which
    /// writes nothing) succeeded, so that a failure there is a page rather than a
    /// broken file. A failure later ends the body with an error: the browser sees a
    /// download that failed, not a short file.
    fn run(
        self,
        chunks: mpsc::Sender<Result<Bytes, std::io::Error>>,
        measured: oneshot::Sender<Result<(), CastError>>,
    ) {
        let title = cast::title(&self.head.listed);
        let mut out = Chunks {
            sender: chunks.clone(),
            buffer: Vec::with_capacity(CHUNK),
            measured: Some(measured),
        };
        let written = write_asciicast(
            &self.head.start,
            CastHeader {
                title: &title,
                timestamp: self.head.listed.started_at / 1000,
            },
            &self.context,
            || BlockingInputs::new(self.runtime.clone(), self.store.clone(), self.id),
            &mut out,
        )
        .and_then(|()| std::io::Write::flush(&mut out).map_err(CastError::Write));
        match (written, out.measured.take()) {
            (Ok(()), Some(measured)) => {
                // Nothing at all was written (it cannot be: the header always is).
                let _ = measured.send(Ok(()));
            }
            (Ok(()), None) => {}
            (Err(error), Some(measured)) => {
                let _ = measured.send(Err(error));
            }
            (Err(error), None) => {
                tracing::debug!(recording = self.id, %error, "a download stopped");
                let _ = chunks.blocking_send(Err(std::io::Error::other(error.to_string())));
            }
        }
    }
}

/// The file as chunks sent to the response's body, each [`CHUNK`] bytes (the last
/// fewer); the first write says the first pass succeeded.
struct Chunks {
    sender: mpsc::Sender<Result<Bytes, std::io::Error>>,
    buffer: Vec<u8>,
    measured: Option<oneshot::Sender<Result<(), CastError>>>,
}

impl std::io::Write for Chunks {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Some(measured) = self.measured.take() {
            let _ = measured.send(Ok(()));
        }
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= CHUNK {
            self.flush()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(
            &mut self.buffer,
            Vec::with_capacity(CHUNK),
        ));
        // Waits while the browser is behind; fails once it has gone.
        self.sender.blocking_send(Ok(chunk)).map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the browser went away")
        })
    }
}
