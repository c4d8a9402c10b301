//! What the page shows live, as Server-Sent Events: the table of sessions, and one
//! player's board.
//!
//! The table: one task asks the registry for its rows every [`TICK`] while anyone
//! follows it, and publishes them (as JSON) only when they changed; every browser
//! holds a receiver of that one value. Fifty browsers cost one snapshot a tick, not
//! fifty, and nothing a session does waits for them. The rows carry each player's
//! last input rather than an idle time, so an idle class changes nothing and is sent
//! nothing; the page counts the idle seconds itself.
//!
//! A board: the page watches the player exactly as `watch NAME` does, with an inbox
//! of its own. The watched session sends it the frames it sends its other watchers,
//! dropping the oldest when the browser falls behind; closing the page stops watching.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use bytes::Bytes;
use futures_util::stream::{self, StreamExt};
use serde::Serialize;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::{auth, pages, Shared};
use crate::metrics::Metrics;
use crate::players::inbox::{self, Delivery, Inbox, Message};
use crate::players::listing::SessionRow;
use crate::players::registry::{Place, Registry, SessionId};
use crate::races::rules::how_far;

/// How often the table is looked at while someone follows it: a change shows within
/// this (and the browser's own delay), inside a second. Every look at a busy server
/// sends the table to every browser, so not more often (docs/BENCHMARKS.md, row 11).
const TICK: Duration = Duration::from_millis(500);

/// The rows the table shows at most (sorted by name); the page says how many more
/// there are. A class is thirty; a load test of ten thousand is not read row by row,
/// and every row is sent to every browser at each change.
pub const MAX_ROWS: usize = 100;

/// The live table's publisher.
#[derive(Debug)]
pub struct Live {
    /// The latest table as a whole Server-Sent Event, encoded once for every browser:
    /// each sends the same bytes (a reference count, not a copy).
    latest: Arc<watch::Sender<Bytes>>,
    /// Browsers that have followed the table, for their place in the [`STAGGER`].
    followers: AtomicU64,
}

/// Browsers are sent a change in [`STAGGER_GROUPS`] groups, [`STAGGER`] apart, rather
/// than all at once: fifty browsers woken together queue the sessions' own work behind
/// fifty writes (docs/BENCHMARKS.md, row 11). A change still shows within a second.
const STAGGER: Duration = Duration::from_millis(20);
const STAGGER_GROUPS: u64 = 10;

impl Live {
    /// Start publishing `registry`'s table until `shutdown`.
    pub fn start(registry: Registry, shutdown: CancellationToken) -> Live {
        let (sender, _) = watch::channel(Bytes::new());
        let latest = Arc::new(sender);
        tokio::spawn(publish(registry, Arc::clone(&latest), shutdown));
        Live {
            latest,
            followers: AtomicU64::new(0),
        }
    }
}

/// The table as the page receives it.
#[derive(Debug, Serialize)]
struct Snapshot {
    /// The registry's clock, in seconds: what `last_active` counts in.
    now: u32,
    /// Sessions online (the rows may be fewer: [`MAX_ROWS`]).
    total: usize,
    rows: Vec<Row>,
}

/// One session, as the page shows it.
#[derive(Debug, Serialize)]
struct Row {
    name: String,
    /// `lobby`, `sokoban classic`, `watching NAME`, `race 3`: as `who` says it.
    place: String,
    game: String,
    level: String,
    /// `2/4 boxes, 12 moves`, `score 1024, tile 128, 40 moves`: how far the game has
    /// got, as the race standings say it.
    progress: String,
    last_active: u32,
    watchers: usize,
    /// Playing a game now, so an admin can watch the board.
    playing: bool,
}

/// The registry's table now, and its JSON (on a blocking thread: ten thousand rows
/// take a millisecond or two that no session should wait behind).
async fn snapshot(registry: Registry) -> Option<(Vec<SessionRow>, usize, Bytes)> {
    tokio::task::spawn_blocking(move || {
        let (rows, total) = registry.table(MAX_ROWS);
        let json = render(registry.now(), total, &rows);
        (rows, total, json)
    })
    .await
    .ok()
}

/// The table as one Server-Sent Event: `event: sessions`, its JSON on one `data:` line
/// (JSON escapes every line break inside its strings).
fn render(now: u32, total: usize, rows: &[SessionRow]) -> Bytes {
    let snapshot = Snapshot {
        now,
        total,
        rows: rows.iter().map(row).collect(),
    };
    let mut event = b"event: sessions\ndata: ".to_vec();
    // Serialising plain strings and numbers into memory cannot fail.
    let _ = serde_json::to_writer(&mut event, &snapshot);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

fn row(session: &SessionRow) -> Row {
    let (game, level) = session
        .game
        .as_ref()
        .map_or((String::new(), String::new()), |(game, level)| {
            (game.to_string(), level.clone())
        });
    Row {
        name: session.name.to_string(),
        place: session.place.to_string(),
        game,
        level,
        progress: session.progress.as_ref().map(how_far).unwrap_or_default(),
        last_active: session.last_active,
        watchers: session.watchers,
        playing: matches!(
            session.place,
            Place::Game { .. } | Place::Race { playing: true, .. }
        ),
    }
}

/// Publish the table every [`TICK`] while someone follows it, when it changed.
async fn publish(
    registry: Registry,
    latest: Arc<watch::Sender<Bytes>>,
    shutdown: CancellationToken,
) {
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last: Option<(Vec<SessionRow>, usize)> = None;
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        if latest.receiver_count() == 0 {
            last = None;
            continue;
        }
        let Some((rows, total, json)) = snapshot(registry.clone()).await else {
            continue;
        };
        if last
            .as_ref()
            .is_some_and(|(last_rows, last_total)| *last_rows == rows && *last_total == total)
        {
            continue;
        }
        latest.send_replace(json);
        last = Some((rows, total));
    }
}

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

/// How often an idle stream says it is alive, so that proxies keep it open (axum's
/// default for its own events).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `GET /events`: the table now, then every change, as Server-Sent Events written by
/// hand rather than through axum's `Sse`: every browser is sent the one encoding of
/// the table, where `Sse` would copy and scan it again for each.
pub async fn sessions(State(web): State<Shared>) -> Response {
    // Subscribed before the first snapshot, so that no change falls between them.
    let receiver = web.live.latest.subscribe();
    let first = snapshot(web.services.registry.clone())
        .await
        .map_or_else(Bytes::new, |(_, _, event)| event);
    let viewer = Viewer::new(Arc::clone(&web.services.metrics));
    let group = web.live.followers.fetch_add(1, Ordering::Relaxed) % STAGGER_GROUPS;
    let delay = STAGGER * u32::try_from(group).unwrap_or(0);
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
    jar: CookieJar,
    Path(name): Path<String>,
) -> Response {
    if auth::admin(&web, &jar).is_none() {
        return pages::forbidden();
    }
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
        })
        .is_err()
    {
        return (StatusCode::NOT_FOUND, "no such player\n").into_response();
    }
    let watching = Watching {
        registry: registry.clone(),
        watched,
        watcher,
    };
    let frames = stream::unfold(Board::Watching(receiver, watching), |board| async move {
        let Board::Watching(mut inbox, watching) = board else {
            return None;
        };
        loop {
            match inbox.recv().await {
                Delivery::Message {
                    message: Message::Frame(text),
                    ..
                } => {
                    let event = Event::default()
                        .event("frame")
                        .data(serde_json::to_string(&*text).unwrap_or_default());
                    return Some((Ok::<_, Infallible>(event), Board::Watching(inbox, watching)));
                }
                Delivery::Message {
                    message: Message::WatchEnded { .. },
                    ..
                }
                | Delivery::Overflow => {
                    let event = Event::default().event("ended").data("ended");
                    return Some((Ok(event), Board::Ended));
                }
                // Nothing else is sent to a watcher's inbox.
                Delivery::Message { .. } => {}
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_is_json_with_the_rows() {
        let registry = Registry::new();
        let (rows, total) = registry.table(MAX_ROWS);
        let event = render(registry.now(), total, &rows);
        let event = std::str::from_utf8(&event).unwrap();
        let json = event
            .strip_prefix("event: sessions\ndata: ")
            .and_then(|rest| rest.strip_suffix("\n\n"))
            .unwrap();
        assert!(!json.contains('\n'), "{event}");
        let parsed: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(parsed["total"], 0);
        assert!(parsed["rows"].as_array().unwrap().is_empty());
    }
}
