//! Watching (SPEC section 7, 9): `watch NAME`, `watch race N`, and the watchers of
//! this session's own game.

use std::sync::Arc;
use std::time::Instant;

use crate::catalog::table::GameKind;
use crate::players::accounts::PlayerName;
use crate::players::inbox::{InboxSender, Message};
use crate::players::registry::{Place, SessionId};
use crate::races::rules::RaceId;

use super::shown::shown_name;
use super::state::Seat;
use super::work::Reply;

impl Seat {
    /// The game this session watches being played.
    pub fn watched_game(&self) -> Option<&'static GameKind> {
        self.watching.as_ref().and_then(|watching| watching.2)
    }

    /// Whether this session watches someone's game or a race (its prompt comes with
    /// what it watches).
    pub fn is_watching(&self) -> bool {
        self.watching.is_some() || self.watching_race.is_some()
    }

    /// `watch NAME` or `watch race N`: the text to show, and whether watching began.
    pub fn watch(&mut self, name: Option<&str>, race: Option<&str>) -> Reply {
        let Some(name) = name else {
            return Reply::Say(String::from("Usage: watch NAME, or watch race N\n"));
        };
        if let (true, Some(race)) = (name.eq_ignore_ascii_case("race"), race) {
            return self.watch_race(race);
        }
        let Some((id, name, inbox)) = self.services.registry.find(name) else {
            return Reply::Say(format!("No player called {}.\n", shown_name(name)));
        };
        if id == self.id {
            return Reply::Say(String::from("You cannot watch yourself.\n"));
        }
        if !self.services.registry.is_playing(id) {
            return Reply::Say(format!("{name} is not playing a game.\n"));
        }
        let asked = inbox.send(Message::Watch {
            watcher: self.id,
            inbox: self.inbox.clone(),
            reader: self.settings.reader,
        });
        if asked.is_err() {
            return Reply::Say(format!("No player called {name}.\n"));
        }
        self.set_place(Place::Watching {
            id,
            name: name.clone(),
        });
        let text = format!("You are watching {name}. Type anything to stop.\n");
        let game = match self.services.registry.place_of(id) {
            Some(Place::Game { game, .. }) => GameKind::from_name(game),
            Some(Place::Race { race, .. }) => self
                .services
                .registry
                .with_races(|races| races.game(race))
                .map(|game| game.kind),
            _ => None,
        };
        self.watching = Some(Box::new((id, name, game)));
        self.frame_closed();
        Reply::Watching(text)
    }

    /// Stop watching; the text to show, if this session watched anyone.
    pub fn stop_watching(&mut self) -> Option<String> {
        if let Some(race) = self.watching_race.take() {
            let id = self.id;
            self.services.registry.with_races(|races| races.unwatch(id));
            self.set_place(Place::Lobby);
            return Some(format!("You stop watching race {race}.\n"));
        }
        if let Some(replaying) = self.replaying.take() {
            let (id, handle) = *replaying;
            handle.abort();
            return Some(format!("Replay of recording {id} stopped.\n"));
        }
        let (id, name, _) = *self.watching.take()?;
        self.services.registry.send(id, Message::Unwatch(self.id));
        self.set_place(Place::Lobby);
        Some(format!("You stop watching {name}.\n"))
    }

    /// The watched game ended: the text to show, if it was the one watched.
    pub fn watch_ended(&mut self, name: &PlayerName) -> Option<String> {
        if self.watching.as_ref().map(|watching| &watching.1) != Some(name) {
            return None;
        }
        self.watching = None;
        self.set_place(Place::Lobby);
        Some(format!("{name} left the game.\n"))
    }

    /// Someone wants to watch this session's game: they get `view` at once and every
    /// frame from now on (descriptions for a `reader`). The player is not interrupted
    /// (a script being watched must not get lines it never asked for); `who` shows how
    /// many watch.
    pub fn add_watcher(
        &mut self,
        watcher: SessionId,
        inbox: InboxSender,
        view: Option<String>,
        reader: bool,
    ) {
        let Some(view) = view else {
            // Not in a game after all (it ended while the request was on its way).
            let _ = inbox.send(Message::WatchEnded {
                name: self.name.clone(),
            });
            return;
        };
        if inbox.send(Message::Frame(Arc::from(view))).is_err() {
            return;
        }
        let watchers = self.watchers.get_or_insert_with(Box::default);
        watchers.retain(|(id, _, _)| *id != watcher);
        watchers.push((watcher, inbox, reader));
        let count = watchers.len();
        self.services.registry.set_watchers(self.id, count);
    }

    /// A watcher stopped.
    pub fn remove_watcher(&mut self, watcher: SessionId) {
        if let Some(watchers) = self.watchers.as_mut() {
            watchers.retain(|(id, _, _)| *id != watcher);
        }
        let count = self.forget_watchers_if_none();
        self.services.registry.set_watchers(self.id, count);
    }

    /// How many watch; their list is dropped when none are left.
    fn forget_watchers_if_none(&mut self) -> usize {
        let count = self.watchers.as_ref().map_or(0, |watchers| watchers.len());
        if count == 0 {
            self.watchers = None;
        }
        count
    }

    /// Whether anyone watches.
    pub fn is_watched(&self) -> bool {
        self.watchers
            .as_ref()
            .is_some_and(|watchers| !watchers.is_empty())
    }

    /// Whether a watcher reads through a screen reader (and so needs the game
    /// described, [`Seat::show_watchers`]).
    pub fn has_reader_watchers(&self) -> bool {
        self.watchers
            .iter()
            .flat_map(|watchers| watchers.iter())
            .any(|(_, _, reader)| *reader)
    }

    /// Send the game's output to every watcher, and `described` (the game in words,
    /// when a watcher reads through a screen reader) to those who read so; those gone
    /// are forgotten.
    pub fn show_watchers(&mut self, text: &str, described: Option<&str>) {
        let Some(watchers) = self.watchers.as_mut() else {
            return;
        };
        if watchers.is_empty() || text.is_empty() {
            return;
        }
        let frame: Arc<str> = Arc::from(text);
        let words: Option<Arc<str>> = described.map(Arc::from);
        let before = watchers.len();
        watchers.retain(|(_, inbox, reader)| {
            let shown = match (&words, reader) {
                (Some(words), true) => Arc::clone(words),
                _ => Arc::clone(&frame),
            };
            inbox.send(Message::Frame(shown)).is_ok()
        });
        if watchers.len() != before {
            let count = self.forget_watchers_if_none();
            self.services.registry.set_watchers(self.id, count);
        }
    }

    /// The game is over: every watcher goes back to the lobby.
    pub fn end_watching(&mut self) {
        for (_, inbox, _) in self
            .watchers
            .take()
            .map_or_else(Vec::new, |watchers| *watchers)
        {
            let _ = inbox.send(Message::WatchEnded {
                name: self.name.clone(),
            });
        }
        self.services.registry.set_watchers(self.id, 0);
    }

    /// `watch race N`.
    pub(super) fn watch_race(&mut self, race: &str) -> Reply {
        let Ok(race_id) = race.parse::<RaceId>() else {
            return Reply::Say(String::from("Usage: watch race N (races lists them)\n"));
        };
        let (id, inbox) = (self.id, self.inbox.clone());
        let now = Instant::now();
        let watched = self
            .services
            .registry
            .with_races(|races| races.watch(race_id, id, inbox, now));
        match watched {
            Ok(table) => {
                self.watching_race = Some(race_id);
                self.set_place(Place::WatchingRace(race_id));
                Reply::Watching(format!(
                    "You are watching race {race_id}. Type anything to stop.\n{table}"
                ))
            }
            Err(error) => Reply::Say(format!("{error}\n")),
        }
    }

    /// The race this session watched is over: the text to show, if it watched it.
    pub fn race_watch_ended(&mut self, race: RaceId) -> Option<String> {
        if self.watching_race != Some(race) {
            return None;
        }
        self.watching_race = None;
        self.set_place(Place::Lobby);
        Some(format!("Race {race} is over.\n"))
    }
}
