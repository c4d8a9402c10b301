//! The registry as lists: `who`, the web page's table of sessions, and the places
//! players are in.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::games::Progress;
use crate::players::accounts::PlayerName;
use crate::players::ids::SessionId;
use crate::players::place::Place;
use crate::players::registry::{Home, Registry};

/// One line of `who`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhoLine {
    /// The player.
    pub name: PlayerName,
    /// Where.
    pub place: Place,
    /// Time since the last input.
    pub idle: Duration,
    /// How many watch this player.
    pub watchers: usize,
    /// A program playing (SPEC section 12).
    pub bot: bool,
}

/// One row of the web page's live table (SPEC section 11): `who`'s line, with the
/// game being played and how far it has got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// The player.
    pub name: PlayerName,
    /// Where.
    pub place: Place,
    /// The game played there (a race's too), if any, and its level or arguments.
    pub game: Option<(&'static str, String)>,
    /// How far the game has got.
    pub progress: Option<Progress>,
    /// The last input, in whole seconds since the registry started: unlike the idle
    /// time, it changes only when the player types.
    pub last_active: u32,
    /// How many watch this player.
    pub watchers: usize,
    /// A program playing (SPEC section 12).
    pub bot: bool,
}

impl Registry {
    /// Note that session `id` is a program playing (`bot NAME`, SPEC section 12):
    /// `who` and the web page show `[bot]` after its name.
    pub fn set_bot(&self, id: SessionId) {
        if let Some(mut entry) = self.shared.sessions.get_mut(&id) {
            entry.bot = true;
        }
        self.changed(id);
    }

    /// Everyone online, sorted by name (ignoring case).
    pub fn who(&self) -> Vec<WhoLine> {
        let mut lines: Vec<WhoLine> = self
            .shared
            .sessions
            .iter()
            .map(|entry| WhoLine {
                name: entry.name.clone(),
                place: entry.place.clone(),
                idle: entry.activity.idle(),
                watchers: entry.watchers,
                bot: entry.bot,
            })
            .collect();
        // The key allocates: once per line, not once per comparison.
        lines.sort_by_cached_key(|line| line.name.key());
        lines
    }

    /// The first `limit` sessions as the web page's table shows them, and how many
    /// sessions there are: players in a game (or playing in a race) first, then the
    /// most recently active, then those who came first. A hundred idle sessions with
    /// names that sort first cannot push a playing class off the table. The rows are
    /// built for the `limit` shown only, and nothing is copied for the others.
    pub fn table(&self, limit: usize) -> (Vec<SessionRow>, usize) {
        // The named sessions first, so that no shard of `names` is held while
        // `sessions` is read.
        let named: Vec<SessionId> = self
            .shared
            .names
            .iter()
            .map(|entry| *entry.value())
            .collect();
        let total = named.len();
        // The `limit` first in a heap whose top is the last of them.
        let mut first: BinaryHeap<(bool, Reverse<u32>, SessionId)> =
            BinaryHeap::with_capacity(limit.min(total) + 1);
        for id in named {
            let Some(entry) = self.shared.sessions.get(&id) else {
                continue;
            };
            let playing = matches!(
                entry.place,
                Place::Game { .. } | Place::Race { playing: true, .. }
            );
            let key = (
                !playing,
                Reverse(entry.activity.last.load(Ordering::Relaxed)),
                id,
            );
            drop(entry);
            if first.len() < limit {
                first.push(key);
            } else if first.peek().is_some_and(|last| key < *last) {
                first.pop();
                first.push(key);
            }
        }
        let names = first.into_sorted_vec();
        let mut rows: Vec<SessionRow> = names
            .iter()
            .filter_map(|(_, _, id)| {
                let entry = self.shared.sessions.get(id)?;
                Some(SessionRow {
                    name: entry.name.clone(),
                    place: entry.place.clone(),
                    game: match &entry.place {
                        Place::Game { game, label } => Some((*game, label.clone())),
                        _ => None,
                    },
                    progress: entry.activity.progress(),
                    last_active: entry.activity.last.load(Ordering::Relaxed),
                    watchers: entry.watchers,
                    bot: entry.bot,
                })
            })
            .collect();
        // Races' games are looked up after the shards are released, under the races'
        // lock once.
        if rows
            .iter()
            .any(|row| matches!(row.place, Place::Race { .. } | Place::WatchingRace(_)))
        {
            self.with_races(|races| {
                for row in &mut rows {
                    if let Place::Race { race, .. } | Place::WatchingRace(race) = row.place {
                        row.game = races
                            .game(race)
                            .map(|game| (game.kind.name, game.args.join(" ")));
                    }
                }
            });
        }
        (rows, total)
    }

    /// Every session's place, and the game played there when it is a plain game (for
    /// the metrics: no races' lock, no names copied).
    pub fn places(&self) -> Vec<(Place, Option<&'static str>)> {
        self.shared
            .sessions
            .iter()
            .filter(|entry| matches!(entry.home, Home::Here(_)))
            .map(|entry| {
                let game = match &entry.place {
                    Place::Game { game, .. } => Some(*game),
                    _ => None,
                };
                (entry.place.clone(), game)
            })
            .collect()
    }
}
