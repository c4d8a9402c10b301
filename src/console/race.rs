//! Races in the console: a race's game starting and stopping under the player, the
//! race hearing how far a racer's game got, and a racer's command sent to the
//! instance that has the race (`--bus`).

use std::sync::Arc;
use std::time::Duration;

use crate::games::{self, Reply, Status};
use crate::races::desk::Answer;
use crate::races::rules::{RaceGame, RaceId};
use crate::seat::{self, RaceReply, Seat};

use super::jobs::{FileWork, Job, Work};
use super::{Console, Outcome};

impl Console {
    /// A racer's command, answered by the race's desk: now, or as a job when the race
    /// is on another instance (`--bus`).
    pub(super) fn race_reply(&mut self, ask: impl FnOnce(&mut Seat) -> RaceReply) -> Outcome {
        let Some(seat) = self.seat.as_mut() else {
            return self.say(String::new());
        };
        match ask(seat) {
            RaceReply::Now(text) => self.social_reply(seat::Reply::Say(text)),
            RaceReply::Later { pending, join } => {
                Outcome::Wait(Job::new(Work::Race { pending, join }))
            }
        }
    }

    /// The race this player is in has started: its game starts, whatever the player
    /// was doing in the lobby (watching, a replay, a password half typed).
    pub(super) fn race_started(&mut self, race: RaceId, game: Arc<RaceGame>) -> Outcome {
        let Some(seat) = &mut self.seat else {
            return Outcome::Send(String::new());
        };
        if !seat.races_in(race) || self.game.is_some() {
            return Outcome::Send(String::new());
        }
        // Whatever the player was doing stops when the game begins (`begin`).
        Outcome::Wait(Job::new(Work::Files(FileWork::Start {
            kind: game.kind,
            args: game.args.clone(),
            saves: self.saves(),
            world: game.world.clone(),
            race: Some(race),
        })))
    }

    /// The race is over while this player still plays it or watches it.
    pub(super) fn race_stopped(&mut self, race: RaceId) -> Outcome {
        let Console {
            seat: Some(seat),
            game,
            memory,
            ..
        } = self
        else {
            return Outcome::Send(String::new());
        };
        seat.race_over(race);
        if let Some(text) = seat.race_watch_ended(race) {
            return Outcome::Send(format!("\n{text}{}", self.prompt()));
        }
        let Some(playing) = game.as_mut().filter(|playing| playing.race == Some(race)) else {
            return Outcome::Send(String::new());
        };
        playing.race = None;
        let reply = playing.exit(memory);
        match self.after_reply(reply) {
            Outcome::Send(text) => Outcome::Send(format!("\n{text}")),
            other => other,
        }
    }

    /// For a racer: the race hears how far the game got. A racer done while the game
    /// goes on (2048 at its win tile, or stuck) leaves it with the game's own exit,
    /// recorded like a typed line, so the game keeps its result by its own rules. A
    /// racer whose game ended short of done has left the race.
    pub(super) fn race_step(&mut self, mut reply: Reply) -> Reply {
        let Console {
            seat: Some(seat),
            game: Some(playing),
            memory,
            ..
        } = self
        else {
            return reply;
        };
        if playing.race.is_none() {
            return reply;
        }
        match seat.race_progress(playing.game.progress()) {
            Some(words) => {
                playing.race = None;
                if reply.status == Status::Playing {
                    let last = playing.exit(memory);
                    let text = reply
                        .text
                        .strip_suffix(games::PROMPT)
                        .unwrap_or(&reply.text);
                    reply = Reply {
                        text: format!("{text}{}", last.text),
                        status: last.status,
                    };
                }
                reply.text.push_str(&words);
            }
            None if reply.status == Status::Ended => {
                playing.race = None;
                if let Some(left) = seat.leave_race() {
                    reply.text.push_str(&left);
                }
            }
            None => {}
        }
        reply
    }

    /// Why `play` or `resume` must wait: the player waits for a race to start.
    pub(super) fn waiting_for_race(&self) -> Option<String> {
        let race = self.seat.as_ref()?.race_waiting()?;
        Some(format!(
            "You are in race {race}: wait for its start, or leave it first.\n"
        ))
    }

    /// A race's game checked and its world fixed (`race`): open the race.
    pub(super) fn race_ready(
        &mut self,
        game: Result<RaceGame, String>,
        limit: Option<Duration>,
        all: bool,
    ) -> Outcome {
        match (game, &mut self.seat) {
            (Ok(game), Some(seat)) => {
                let text = seat.open_race(game, limit, all);
                self.say(text)
            }
            (Err(message), _) => self.say(format!("{message}\n")),
            (Ok(_), None) => self.say(String::new()),
        }
    }

    /// What the instance with the race answered a racer's command (`--bus`).
    pub(super) fn raced(&mut self, join: Option<(RaceId, Option<u64>)>, answer: Answer) -> Outcome {
        match &mut self.seat {
            Some(seat) => {
                let text = seat.answered(join, answer);
                self.say(text)
            }
            None => self.say(answer.text),
        }
    }
}
