//! The live table's publisher: one task asks the registry for its rows every [`TICK`]
//! while anyone follows the table, and publishes them (as one Server-Sent Event of
//! JSON) only when they changed; every browser holds a receiver of that one value.
//! Fifty browsers cost one snapshot a tick, not fifty, and nothing a session does
//! waits for them. The rows carry each player's last input rather than an idle time,
//! so an idle class changes nothing and is sent nothing; the page counts the idle
//! seconds itself. `events.rs` streams it to the browsers.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde::Serialize;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::cluster::bus::Bus;
use crate::players::listing::SessionRow;
use crate::players::registry::{Place, Registry};
use crate::races::rules::{how_far, limit_words};

/// How often the table is looked at while someone follows it: a change shows within
/// this (and the browser's own delay), inside a second. Every look at a busy server
/// sends the table to every browser, so not more often (docs/BENCHMARKS.md, row 11).
const TICK: Duration = Duration::from_millis(500);

/// The rows the table shows at most (players in games first, then by activity: the
/// registry's `table`); the page says how many more there are and links to `/?all`,
/// which shows every row ([`ALL_ROWS`]). A class is thirty; a load test of ten
/// thousand is not read row by row, and every row is sent to every browser at each
/// change.
pub const MAX_ROWS: usize = 100;

/// The rows of `/?all`: every session.
pub const ALL_ROWS: usize = usize::MAX;

/// The races the page shows at most (the lowest numbers, which opened first): a class
/// runs one or two at once.
pub const MAX_RACES: usize = 20;

/// The standings' lines shown at most for one race (the first places).
pub const STANDING_ROWS: usize = 30;

/// The live table's publisher.
#[derive(Debug)]
pub struct Live {
    /// The latest table as a whole Server-Sent Event, encoded once for every browser:
    /// each sends the same bytes (a reference count, not a copy).
    latest: Arc<watch::Sender<Bytes>>,
    /// Browsers that have followed the table, for their place in the [`STAGGER`].
    followers: AtomicU64,
    /// The rows shown at most ([`MAX_ROWS`] or [`ALL_ROWS`]).
    rows: usize,
}

/// Browsers are sent a change in [`STAGGER_GROUPS`] groups, [`STAGGER`] apart, rather
/// than all at once: fifty browsers woken together queue the sessions' own work behind
/// fifty writes (docs/BENCHMARKS.md, row 11). A change still shows within a second.
const STAGGER: Duration = Duration::from_millis(20);
const STAGGER_GROUPS: u64 = 10;

impl Live {
    /// Start publishing the first `rows` of `registry`'s table, and the races (this
    /// instance's, and those `bus` hears of), until `shutdown`.
    pub fn start(
        registry: Registry,
        bus: Option<Bus>,
        rows: usize,
        shutdown: CancellationToken,
    ) -> Live {
        let (sender, _) = watch::channel(Bytes::new());
        let latest = Arc::new(sender);
        let sources = Sources { registry, bus };
        tokio::spawn(publish(sources, rows, Arc::clone(&latest), shutdown));
        Live {
            latest,
            followers: AtomicU64::new(0),
            rows,
        }
    }

    /// The table now, as the event a new follower is sent first.
    pub async fn now(&self, registry: Registry, bus: Option<Bus>) -> Bytes {
        snapshot(Sources { registry, bus }, self.rows)
            .await
            .map_or_else(Bytes::new, |(_, event)| event)
    }

    /// Follow the table: every change from now on, and how long this follower waits
    /// before it is sent each (its place in the [`STAGGER`]).
    pub fn follow(&self) -> (watch::Receiver<Bytes>, Duration) {
        let receiver = self.latest.subscribe();
        let group = self.followers.fetch_add(1, Ordering::Relaxed) % STAGGER_GROUPS;
        (receiver, STAGGER * u32::try_from(group).unwrap_or(0))
    }
}

/// Whether a page's query (`/?all`, `/events?all`) asks for every row.
pub fn asks_all(query: Option<&str>) -> bool {
    query.is_some_and(|query| {
        query
            .split('&')
            .any(|part| part == "all" || part.starts_with("all="))
    })
}

/// The table as the page receives it.
#[derive(Debug, Serialize)]
struct Snapshot {
    /// The registry's clock, in seconds: what `last_active` counts in.
    now: u32,
    /// Sessions online (the rows may be fewer: [`MAX_ROWS`]).
    total: usize,
    rows: Vec<Row>,
    races: Vec<RaceView>,
}

/// Where the table comes from: who is online, and the races of other instances.
#[derive(Debug, Clone)]
struct Sources {
    registry: Registry,
    bus: Option<Bus>,
}

/// A race, as the page shows it beside the table: its host and its standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct RaceView {
    id: u32,
    /// `sokoban classic (time 5m00s)`.
    label: String,
    host: String,
    racers: usize,
    /// When it started, on the registry's clock (as `now`): the page counts the
    /// running time itself. `None` while it waits for its start.
    started: Option<u32>,
    /// One line per racer, best first (`  1. ann   solved, 40 moves, in 10s`); a
    /// race of another instance has none here (its count of racers only).
    standings: Vec<String>,
    /// Kept by another instance (`--bus`).
    elsewhere: bool,
}

/// What a snapshot is compared by, to tell whether to publish it: its clock left
/// out (a running race's start, read at two moments, may differ by a second).
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    rows: Vec<SessionRow>,
    total: usize,
    races: Vec<RaceView>,
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
    /// A program playing (SPEC section 12): `[bot]` after the name.
    bot: bool,
}

/// The registry's table and the races now, and their JSON (on a blocking thread: ten
/// thousand rows take a millisecond or two that no session should wait behind).
async fn snapshot(sources: Sources, limit: usize) -> Option<(Seen, Bytes)> {
    tokio::task::spawn_blocking(move || {
        let registry = &sources.registry;
        let (rows, total) = registry.table(limit);
        let now = registry.now();
        let races = races(registry, sources.bus.as_ref(), now);
        let json = render(now, total, &rows, &races);
        let races = races
            .into_iter()
            .map(|race| RaceView {
                started: race.started.map(|_| 0),
                ..race
            })
            .collect();
        (Seen { rows, total, races }, json)
    })
    .await
    .ok()
}

/// The races: this instance's with their standings, then those other instances told
/// of; the first [`MAX_RACES`] by number.
fn races(registry: &Registry, bus: Option<&Bus>, now_secs: u32) -> Vec<RaceView> {
    let now = std::time::Instant::now();
    let started = |running: Option<u64>| {
        running.map(|running| now_secs.saturating_sub(u32::try_from(running).unwrap_or(u32::MAX)))
    };
    let mut views: Vec<RaceView> = registry.with_races(|races| {
        races
            .list(now)
            .into_iter()
            .take(MAX_RACES)
            .map(|race| {
                let standings = races
                    .standings_top(race.id, now, STANDING_ROWS)
                    .map(|table| standing_rows(&table))
                    .unwrap_or_default();
                RaceView {
                    id: race.id,
                    label: format!("{}{}", race.label, limit_words(race.limit)),
                    host: race.host.to_string(),
                    racers: race.racers,
                    started: started(race.running.map(|running| running.as_secs())),
                    standings,
                    elsewhere: false,
                }
            })
            .collect()
    });
    if let Some(bus) = bus {
        views.extend(
            bus.races()
                .into_iter()
                .take(MAX_RACES)
                .map(|race| RaceView {
                    id: race.id,
                    label: format!(
                        "{}{}",
                        race.label,
                        limit_words(race.limit.map(Duration::from_secs))
                    ),
                    host: race.host,
                    racers: race.racers,
                    started: started(race.running),
                    standings: Vec::new(),
                    elsewhere: true,
                }),
        );
        views.sort_by_key(|race| race.id);
        views.truncate(MAX_RACES);
    }
    views
}

/// The racers' lines of a race's standings (its heading, which carries the clock,
/// left out), the first [`STANDING_ROWS`] of them; a table already cut there
/// (`... and N more` last) is kept as it is.
fn standing_rows(table: &str) -> Vec<String> {
    let mut lines: Vec<String> = table
        .lines()
        .skip(1)
        .map(|line| line.trim().to_string())
        .collect();
    let cut = lines.last().is_some_and(|line| line.starts_with("..."));
    if lines.len() > STANDING_ROWS && !cut {
        let more = lines.len() - STANDING_ROWS;
        lines.truncate(STANDING_ROWS);
        lines.push(format!("... and {more} more"));
    }
    lines
}

/// The table as one Server-Sent Event: `event: sessions`, its JSON on one `data:` line
/// (JSON escapes every line break inside its strings).
fn render(now: u32, total: usize, rows: &[SessionRow], races: &[RaceView]) -> Bytes {
    let snapshot = Snapshot {
        now,
        total,
        rows: rows.iter().map(row).collect(),
        races: races.to_vec(),
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
        bot: session.bot,
    }
}

/// Publish the table every [`TICK`] while someone follows it, when it changed.
async fn publish(
    sources: Sources,
    limit: usize,
    latest: Arc<watch::Sender<Bytes>>,
    shutdown: CancellationToken,
) {
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last: Option<Seen> = None;
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        if latest.receiver_count() == 0 {
            last = None;
            continue;
        }
        let Some((seen, json)) = snapshot(sources.clone(), limit).await else {
            continue;
        };
        if last.as_ref() == Some(&seen) {
            continue;
        }
        latest.send_replace(json);
        last = Some(seen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standings_are_the_racers_lines_without_the_clock() {
        let mut table = String::from("Race 1: sokoban classic, running for 12s.\n");
        for n in 1..=STANDING_ROWS + 2 {
            table.push_str(&format!("  {n:>3}. p{n}  0/2 boxes, 0 moves\n"));
        }
        let rows = standing_rows(&table);
        assert_eq!(rows.len(), STANDING_ROWS + 1);
        assert_eq!(rows[0], "1. p1  0/2 boxes, 0 moves");
        assert_eq!(rows[STANDING_ROWS], "... and 2 more");
        assert!(rows.iter().all(|row| !row.contains("running for")));
        // Cut by the race itself (`standings_top`): kept as it is.
        let mut cut = String::from("Race 1: sokoban classic, running for 12s.\n");
        for n in 1..=STANDING_ROWS {
            cut.push_str(&format!("  {n:>3}. p{n}  0/2 boxes, 0 moves\n"));
        }
        cut.push_str("  ... and 470 more\n");
        let rows = standing_rows(&cut);
        assert_eq!(rows.len(), STANDING_ROWS + 1);
        assert_eq!(rows[STANDING_ROWS], "... and 470 more");
    }

    #[test]
    fn the_snapshot_is_json_with_the_rows() {
        let registry = Registry::new();
        let (rows, total) = registry.table(MAX_ROWS);
        let event = render(registry.now(), total, &rows, &[]);
        let event = std::str::from_utf8(&event).unwrap();
        let json = event
            .strip_prefix("event: sessions\ndata: ")
            .and_then(|rest| rest.strip_suffix("\n\n"))
            .unwrap();
        assert!(!json.contains('\n'), "{event}");
        let parsed: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(parsed["total"], 0);
        assert!(parsed["rows"].as_array().unwrap().is_empty());
        assert!(parsed["races"].as_array().unwrap().is_empty());
    }
}
