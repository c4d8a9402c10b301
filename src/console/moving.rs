//! A console's part of an upgrade (SPEC section 11): what moves of a player's place
//! (the seat's part, what the games remember, the game as its recording), and the
//! console made again from it in the new process, the game rebuilt exactly by
//! replay ([`super::resume::rebuild`], as `resume` does).
//!
//! A ladder being played through moves too (its seed, and how long the move being
//! waited for has waited). A game without a recording (past a quota, or short of
//! disk) cannot be rebuilt: its player finds the lobby and is told.

use std::net::IpAddr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::catalog::table::{Context, GAMES};
use crate::games::Memory;
use crate::players::registry::SessionId;
use crate::races::rules::RaceId;
use crate::seat::{Seat, SeatState, Services};

use super::game::Playing;
use super::ladder::{LadderRun, LadderState};
use super::{bot, Console, Rare};

/// What moves of a console.
#[derive(Debug, Serialize, Deserialize)]
pub struct ConsoleState {
    seat: SeatState,
    /// Each game's part of what the session remembers, as the game writes it for its
    /// recordings: (game, text).
    memory: Vec<(String, String)>,
    new_saves: u32,
    ended_unlisted: bool,
    /// The game being played, by its recording, and what was played of it (inputs,
    /// milliseconds).
    recording: Option<(i64, (u64, u64))>,
    /// The race that game is played in.
    race: Option<RaceId>,
    /// A game without a recording, which could not move: its name, to tell the player.
    left_behind: Option<String>,
    bot: bool,
    /// The ladder being played through, if any.
    ladder: Option<LadderState>,
}

impl Console {
    /// This console as it moves at `now` (the session's milliseconds), or why it
    /// cannot move now.
    ///
    /// # Errors
    /// The reason, in words for the admin.
    pub fn pack(&mut self, now: u64) -> Result<ConsoleState, String> {
        let seat = self
            .seat
            .as_ref()
            .ok_or_else(|| String::from("a console without a seat"))?;
        let seat = seat.pack()?;
        let ladder = self.ladder().map(|run| run.pack(now));
        let memory = GAMES
            .iter()
            .map(|kind| (kind.name.to_string(), (kind.memory.remember)(&self.memory)))
            .filter(|(_, text)| !text.is_empty())
            .collect();
        let (mut recording, mut left_behind) = (None, None);
        let race = self.game.as_ref().and_then(|playing| playing.race);
        if let Some(playing) = &self.game {
            match playing.tape.as_deref() {
                Some(tape) => match tape.recording_id() {
                    Some(id) => recording = Some((id, tape.played())),
                    None => left_behind = Some(playing.kind.name.to_string()),
                },
                None => left_behind = Some(playing.kind.name.to_string()),
            }
        }
        Ok(ConsoleState {
            seat,
            memory,
            new_saves: self.new_saves,
            ended_unlisted: self.ended_unlisted,
            recording,
            race,
            left_behind,
            bot: self.bot().is_some(),
            ladder,
        })
    }

    /// This process records the game from now on ([`crate::records::recorder::Tape::claim`]).
    pub fn claim_game(&self) {
        if let Some(tape) = self
            .game
            .as_ref()
            .and_then(|playing| playing.tape.as_deref())
        {
            tape.claim();
        }
    }

    /// The console moved to the new process: its game's tape writes nothing more here
    /// (the new process records it), and the game is dropped without a word.
    pub fn moved_away(&mut self) {
        if let Some(mut playing) = self.game.take() {
            if let Some(tape) = playing.tape.take() {
                tape.moved();
            }
        }
    }

    /// The name a moved console's session registers under.
    pub fn moved_name(state: &ConsoleState) -> &crate::players::accounts::PlayerName {
        Seat::moved_name(&state.seat)
    }

    /// The console of a session moved here as `id` from `address`, its game rebuilt by
    /// replay, and what to tell the player after `The server was upgraded.` (a
    /// replay that stopped, a game left behind).
    ///
    /// # Errors
    /// Why the session cannot be taken (its registration gone, its game not rebuilt):
    /// the upgrade fails, and the old process keeps it.
    pub async fn unpack(
        services: Services,
        (id, address): (SessionId, IpAddr),
        state: ConsoleState,
        context: Arc<Context>,
        now: u64,
    ) -> Result<(Console, String), String> {
        let (seat, mut said) = Seat::unpack(services.clone(), id, address, state.seat)
            .ok_or_else(|| format!("session {id} is not registered"))?;
        let mut memory = Memory::default();
        for (game, text) in &state.memory {
            if let Some(kind) = GAMES.iter().find(|kind| kind.name == game) {
                (kind.memory.recall)(text, &mut memory);
            }
        }
        let mut console = Console::lobby(seat);
        console.new_saves = state.new_saves;
        console.ended_unlisted = state.ended_unlisted;
        let ladder = match state.ladder {
            Some(ladder) => Some(LadderRun::unpack(ladder, now).ok_or_else(|| {
                format!("session {id}'s ladder is of a game this server does not have")
            })?),
            None => None,
        };
        if state.bot || ladder.is_some() {
            console.rare = Some(Box::new(Rare {
                bot: state.bot.then(bot::BotMode::default),
                ladder,
            }));
        }
        if let Some((recording, played)) = state.recording {
            let player = console
                .seat
                .as_ref()
                .map(Seat::player)
                .ok_or_else(|| format!("session {id} has no seat"))?;
            let rebuilt =
                super::resume::rebuild(player, &services, context, recording, Some(played))
                    .await
                    .map_err(|why| {
                        format!("the game of session {id} (recording {recording}): {why}")
                    })?;
            let super::resume::Resumed {
                kind,
                mut game,
                tape,
                ..
            } = *rebuilt;
            game.set_reader(console.settings().reader);
            let args: Vec<String> = tape.args().split_whitespace().map(String::from).collect();
            console.bot_moved_in(&args);
            console.game = Some(Playing {
                kind,
                game,
                tape: Some(Box::new(tape)),
                race: state.race,
            });
        }
        console.memory = memory;
        if let Some(game) = state.left_behind {
            said.push_str(&format!(
                "Your {game} game was not being recorded, so it could not move to the new server.\n"
            ));
            if let Some(seat) = &console.seat {
                seat.set_place(crate::players::registry::Place::Lobby);
            }
        }
        Ok((console, said))
    }

    /// Ask again for the frames of whom this console watches (once every moved
    /// session is registered).
    pub fn watch_again(&self) {
        if let Some(seat) = &self.seat {
            seat.watch_again();
        }
    }
}
