//! The page's two live streams, as Server-Sent Events: `/events` (the table of
//! sessions, from `live.rs`'s publisher) and `/watch/NAME/events` (one player's board).
//!
//! A board: the page watches the player exactly as `watch NAME` does, with an inbox
//! of its own. The watched session sends it the frames it sends its other watchers,
//! dropping the oldest when the browser falls behind; closing the page stops watching.
//!
//! A stream lives as long as its browser reads it, so each takes one of its
//! address's [`STREAMS_PER_ADDRESS`](super::state::STREAMS_PER_ADDRESS) places: one address cannot hold the page's
//! connections open with streams.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::stream::{self, StreamExt};

use super::connection::Peer;
use super::live;
use super::logins::Admin;
use super::state::Shared;
use crate::metrics::Metrics;
use crate::players::inbox::{self, Delivery, Inbox, Message};
use crate::players::registry::{Registry, SessionId};
use crate::records::places::{Full, Place};

/// Counts a browser following the table for as long as its stream lives.
struct Viewer(Arc<Metrics>);

impl Viewer {
    fn new(metrics: Arc<Metrics>) -> Viewer {
        metrics.web_viewers.inc();
        Viewer(metrics)
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        self.0.web_viewers.dec();
    }
}

/// What a stream beyond its address's share is answered.
pub const TOO_MANY_STREAMS: &str =
    "Too many live pages are open from your address: close some and try again.\n";

/// A live stream refused: 429, or 503 when the page is full.
fn refused(full: Full) -> Response {
    let status = match full {
        Full::Address => StatusCode::TOO_MANY_REQUESTS,
        Full::Total => StatusCode::SERVICE_UNAVAILABLE,
    };
    (status, TOO_MANY_STREAMS).into_response()
}

/// How often an idle stream says it is alive, so that proxies keep it open (axum's
/// default for its own events).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `GET /events` (`/events?all`: every row): the table now, then every change, as Server-Sent Events written by
/// hand rather than through axum's `Sse`: every browser is sent the one encoding of
/// the table, where `Sse` would copy and scan it again for each.
pub async fn sessions(
    State(web): State<Shared>,
    ConnectInfo(Peer(peer)): ConnectInfo<Peer>,
    RawQuery(query): RawQuery,
) -> Response {
    let place = match web.streams.take(peer.ip()) {
        Ok(place) => place,
        Err(full) => return refused(full),
    };
    // Subscribed before the first snapshot, so that no change falls between them.
    let live = if live::asks_all(query.as_deref()) {
        &web.live_all
    } else {
        &web.live
    };
    let (receiver, delay) = live.follow();
    let first = live
        .now(web.services.registry.clone(), web.services.bus.clone())
        .await;
    let viewer = (Viewer::new(Arc::clone(&web.services.metrics)), place);
    let changes = stream::unfold(
        (receiver, viewer),
        move |(mut receiver, viewer)| async move {
            receiver.changed().await.ok()?;
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            // The latest by now, which may be newer than the change that woke it.
            let event = receiver.borrow_and_update().clone();
            Some((event, (receiver, viewer)))
        },
    );
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let alive = stream::unfold(ticks, |mut ticks| async move {
        ticks.tick().await;
        Some((Bytes::from_static(b": alive\n\n"), ticks))
    });
    let events = stream::once(async move { first })
        .chain(changes)
        .map(Ok::<_, Infallible>);
    let body =
        stream::select(events, alive.map(Ok)).take_until(web.shutdown.clone().cancelled_owned());
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// How often a board's stream says it is alive while the game does not move.
const BOARD_KEEP_ALIVE: Duration = Duration::from_secs(3);

/// Stops watching when the page's stream is dropped (the browser went away).
struct Watching {
    registry: Registry,
    watched: SessionId,
    watcher: SessionId,
    /// The stream's place among its address's ([`STREAMS_PER_ADDRESS`](super::state::STREAMS_PER_ADDRESS)).
    _place: Place,
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.registry
            .send(self.watched, Message::Unwatch(self.watcher));
    }
}

/// Where a board's stream is.
enum Board {
    Watching(Inbox, Watching),
    Ended,
}

/// `GET /watch/NAME/events` (admins): the player's frames as they see them, each as
/// a JSON string; `ended` when the game ends or the player goes.
pub async fn board(
    State(web): State<Shared>,
    _: Admin,
    ConnectInfo(Peer(peer)): ConnectInfo<Peer>,
    Path(name): Path<String>,
) -> Response {
    let place = match web.streams.take(peer.ip()) {
        Ok(place) => place,
        Err(full) => return refused(full),
    };
    let registry = &web.services.registry;
    let Some((watched, _, player)) = registry.find(&name) else {
        return (StatusCode::NOT_FOUND, "no such player\n").into_response();
    };
    let (sender, receiver) = inbox::inbox();
    let watcher = registry.watcher_id();
    if player
        .send(Message::Watch {
            watcher,
            inbox: sender,
            reader: false,
        })
        .is_err()
    {
        return (StatusCode::NOT_FOUND, "no such player\n").into_response();
    }
    let watching = Watching {
        registry: registry.clone(),
        watched,
        watcher,
        _place: place,
    };
    let frames = stream::unfold(Board::Watching(receiver, watching), |board| async move {
        let Board::Watching(mut inbox, watching) = board else {
            return None;
        };
        loop {
            match inbox.recv().await {
                Delivery {
                    message: Message::Frame(text),
                    ..
                } => {
                    let event = Event::default()
                        .event("frame")
                        .data(serde_json::to_string(&*text).unwrap_or_default());
                    return Some((Ok::<_, Infallible>(event), Board::Watching(inbox, watching)));
                }
                Delivery {
                    message: Message::WatchEnded { .. },
                    ..
                } => {
                    let event = Event::default().event("ended").data("ended");
                    return Some((Ok(event), Board::Ended));
                }
                // Nothing else is sent to a watcher's inbox.
                Delivery { .. } => {}
            }
        }
    });
    let events = frames.take_until(web.shutdown.clone().cancelled_owned());
    // A browser that vanished without closing its connection (its network gone) is
    // only noticed when something is written: a short keep-alive stops that watching
    // (and the player's watcher count in `who`) within seconds even on a board that
    // does not move.
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(BOARD_KEEP_ALIVE))
        .into_response()
}
