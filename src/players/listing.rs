//! The registry as lists: `who`, the web page's table of sessions, and the places
//! players are in.

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
}

impl Registry {
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
            })
            .collect();
        // The key allocates: once per line, not once per comparison.
        lines.sort_by_cached_key(|line| line.name.key());
        lines
    }

    /// The first `limit` sessions by name (ignoring case) as the web page's table shows
    /// them, and how many sessions there are. The rows are built for the `limit` shown
    /// only, so a table of a hundred out of ten thousand sessions costs one walk over
    /// the names (held in lower case already).
    pub fn table(&self, limit: usize) -> (Vec<SessionRow>, usize) {
        // The `limit` first names in a heap whose top is the last of them: a name is
        // copied only when it belongs there, a few hundred times for ten thousand
        // sessions rather than ten thousand.
        let mut first: BinaryHeap<(String, SessionId)> = BinaryHeap::with_capacity(limit + 1);
        let mut total = 0;
        for entry in self.shared.names.iter() {
            total += 1;
            if first.len() < limit {
                first.push((entry.key().clone(), *entry.value()));
            } else if first.peek().is_some_and(|(last, _)| entry.key() < last) {
                first.pop();
                first.push((entry.key().clone(), *entry.value()));
            }
        }
        let names = first.into_sorted_vec();
        let mut rows: Vec<SessionRow> = names
            .iter()
            .filter_map(|(_, id)| {
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
