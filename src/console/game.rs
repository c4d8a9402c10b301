//! The game a player is in: starting it, its lines (recorded, then played), and what
//! its replies lead to (watchers shown, a save, the lobby again when it ends).

use crate::catalog::saves;
use crate::catalog::table::{GameKind, NewGame, GAMES};
use crate::codec::terminal;
use crate::games::{self, Memory, Reply, Status};
use crate::players::registry::Place;
use crate::races::rules::RaceId;
use crate::records::recorder::Tape;
use crate::records::recording;
use crate::seat::Seat;

use super::jobs::{FileWork, Job, StoreWork, Work};
use super::resume::Resumed;
use super::{lobby, Console, Outcome};

/// A game in progress, and which one it is.
pub(super) struct Playing {
    pub(super) kind: &'static GameKind,
    pub(super) game: NewGame,
    /// Its recording (on a server). Boxed: a session's future holds the console.
    pub(super) tape: Option<Box<Tape>>,
    /// The race it is played in, until the racer is done or has left.
    pub(super) race: Option<RaceId>,
}

impl Playing {
    /// Leave the game its own way, as `/leave` does, recorded like a typed line.
    pub(super) fn exit(&mut self, memory: &mut Memory) -> Reply {
        let exit = self.game.exit_command();
        if let Some(tape) = &mut self.tape {
            tape.input(exit);
        }
        let reply = self.game.handle(exit, memory);
        if let Some(finish) = self.game.take_finish() {
            if let Some(tape) = &mut self.tape {
                tape.finish(finish);
            }
        }
        reply
    }
}

impl Drop for Playing {
    /// A game dropped while it runs lost its connection (or the server stops): a
    /// registered player's waits for `resume`.
    fn drop(&mut self) {
        if let Some(tape) = self.tape.take() {
            tape.interrupted();
        }
    }
}

impl Console {
    /// Arrow keys typed as a line: each one the game's line for it, in order; in the
    /// lobby, nothing.
    pub(super) fn arrows(&mut self, arrows: &[terminal::Arrow]) -> Outcome {
        let mut text = String::new();
        for arrow in arrows {
            let Some(line) = self.arrow(*arrow) else {
                break;
            };
            match self.play_line(line) {
                Outcome::Send(reply) => text.push_str(&reply),
                other => return other,
            }
        }
        if text.is_empty() {
            return self.say(text);
        }
        Outcome::Send(text)
    }

    /// Start `game`, of `kind` with `args`, in `race` if any: recorded, shown to the
    /// watchers, and the player's place changed.
    pub(super) fn begin(
        &mut self,
        kind: &'static GameKind,
        args: Vec<String>,
        mut game: NewGame,
        race: Option<RaceId>,
    ) -> Outcome {
        let tape = self.seat.as_ref().map(|seat| {
            let start = recording::Start {
                game: kind.name.to_string(),
                args: args.clone(),
                memory: (kind.memory.remember)(&self.memory),
                world: kind.from_state.and_then(|_| game.state()),
            };
            seat.services().recorder.open(
                seat.player(),
                start,
                (kind.level_key)(&args),
                race,
                self.ladder().is_some(),
            )
        });
        let tape = tape.map(Box::new);
        let label = args.join(" ");
        self.bot_game_started(&args);
        // Before its first words: a screen reader's player gets them described.
        game.set_reader(self.settings().reader);
        let mut reply = game.start(&mut self.memory);
        self.game = Some(Playing {
            kind,
            game,
            tape,
            race,
        });
        self.note_finish();
        if let Some(seat) = &mut self.seat {
            // A new position: a warning may be due again, and its level's analysis is
            // made now rather than at the first push.
            seat.take_warning(false);
            if seat.wants_warnings() {
                if let Some(boxes) = self.game.as_ref().and_then(|playing| playing.game.boxes()) {
                    seat.services().coach.prepare(&boxes);
                }
            }
            // No one watches a game that just began: the hint is the player's alone.
            let hint = game_hint(seat, kind);
            match race {
                Some(race) => {
                    let mut before = String::from("\n");
                    if let Some(text) = seat.stop_watching() {
                        before.push_str(&text);
                    }
                    seat.racing(race);
                    reply.text = format!("{before}Race {race}: go!\n{hint}{}", reply.text);
                }
                None => {
                    reply.text.insert_str(0, &hint);
                    seat.set_place(Place::Game {
                        game: kind.name,
                        label,
                    });
                }
            }
        }
        let reply = self.race_step(reply);
        match self.after_reply(reply) {
            // A password being typed is never cancelled (the next line would go to
            // the game, its watchers and its recording): the prompt asks for it again
            // after the board, for this player only.
            Outcome::Send(mut text) if race.is_some() => {
                if let Some(prompt) = self
                    .seat
                    .as_ref()
                    .and_then(crate::seat::Seat::secret_prompt)
                {
                    text.push_str(
                        "\n(The race started: finish typing your password, then play.)\n",
                    );
                    text.push_str(prompt);
                }
                Outcome::Send(text)
            }
            outcome => outcome,
        }
    }

    /// A line for the running game: recorded, then played.
    pub(super) fn play_line(&mut self, line: &str) -> Outcome {
        if self.game.is_some() && self.ladder_line_late() {
            return self.forfeit_seed();
        }
        let Some(playing) = &mut self.game else {
            return self.say(String::new());
        };
        if let Some(tape) = &mut playing.tape {
            tape.input(line);
        }
        // Only for a player who wants warnings: every other line costs nothing more.
        let warns = self.seat.as_ref().is_some_and(Seat::wants_warnings);
        let pushes_before = if warns {
            playing.game.boxes().map(|boxes| boxes.pushes)
        } else {
            None
        };
        let mut reply = playing.game.handle(line, &mut self.memory);
        let finished = self.note_finish();
        if reply.status == Status::Playing {
            if let Some(warning) = self.warning_after(pushes_before) {
                // Before the prompt, after the board: watchers see it too.
                let at = reply
                    .text
                    .strip_suffix(games::PROMPT)
                    .map_or(reply.text.len(), str::len);
                reply.text.insert_str(at, &warning);
            }
        }
        let reply = self.race_step(reply);
        let mut outcome = self.after_reply(reply);
        if finished && self.seat.as_mut().is_some_and(Seat::take_guest_note) {
            if let Outcome::Send(text) = &mut outcome {
                // Before the prompt, after what the game said: the player's alone.
                let at = text
                    .strip_suffix(self.prompt())
                    .map_or(text.len(), str::len);
                text.insert_str(at, &format!("{}\n", lobby::GUEST_RESULT));
            }
        }
        outcome
    }

    /// Put before `text` what the player must be told about the game's recording (it
    /// stopped, and why), the once there is something.
    fn recording_notice(&mut self, text: &mut String) {
        let notice = self
            .game
            .as_mut()
            .and_then(|playing| playing.tape.as_mut())
            .and_then(|tape| tape.take_notice());
        if let Some(notice) = notice {
            text.insert_str(0, &format!("{notice}\n"));
        }
    }

    /// Keep what the game reached with the last reply, if anything; whether it
    /// reached something (a result, for a player with a name).
    pub(super) fn note_finish(&mut self) -> bool {
        let Some(playing) = &mut self.game else {
            return false;
        };
        let Some(finish) = playing.game.take_finish() else {
            return false;
        };
        if let Some(tape) = &mut playing.tape {
            tape.finish(finish);
        }
        true
    }

    /// Act on a game's reply: what to send, and whether the game is over. Watchers see
    /// what the player sees, except a word about the recording, which is the player's.
    pub(super) fn after_reply(&mut self, reply: Reply) -> Outcome {
        let mut text = reply.text;
        match reply.status {
            Status::Playing => {
                self.show_watchers(&text);
                self.recording_notice(&mut text);
                Outcome::Send(text)
            }
            Status::Ended if self.single => {
                self.bot_game_ending();
                Outcome::Close(text)
            }
            Status::Ended => {
                let mut notice = String::new();
                self.recording_notice(&mut notice);
                // Shown before the game goes: a watcher who reads through a screen
                // reader gets its last position in words.
                self.show_watchers(&text);
                self.bot_game_ending();
                // A ladder's seed: its result is kept and the next seed begins.
                let ladder = self.ladder_game_ended(format!("{notice}{text}"));
                if let Some(mut playing) = self.game.take() {
                    if let Some(tape) = playing.tape.take() {
                        tape.ended();
                        self.ended_unlisted = true;
                    }
                }
                if let Some(seat) = &mut self.seat {
                    seat.end_watching();
                    seat.set_place(Place::Lobby);
                }
                if let (Some(end), Some(seat)) = (ladder, &self.seat) {
                    return Outcome::Wait(Job::new(Work::Store {
                        work: StoreWork::LadderSeed(Box::new(end)),
                        services: seat.services().clone(),
                    }));
                }
                text.push_str(lobby::PROMPT);
                notice.push_str(&text);
                Outcome::Send(notice)
            }
            Status::Save { name, state } => {
                let game = self.game().map_or("unknown", |kind| kind.name);
                Outcome::Wait(Job::new(Work::Files(FileWork::Save {
                    saves: self.saves(),
                    game,
                    name,
                    state,
                    text,
                    may_create: usize::try_from(self.new_saves)
                        .is_ok_and(|made| made < saves::MAX_NEW_SAVES_PER_SESSION),
                })))
            }
        }
    }
}

/// The line on entering `kind` for a player past the basics, the first time this
/// session (empty otherwise): each game leaves and helps on a word of its own.
fn game_hint(seat: &mut Seat, kind: &'static GameKind) -> String {
    let index = GAMES
        .iter()
        .position(|game| game == kind)
        .unwrap_or(usize::MAX);
    if seat.take_game_hint(index) {
        format!("{}\n", lobby::IN_GAMES)
    } else {
        String::new()
    }
}

impl Console {
    /// Take up a game `resume` rebuilt: the player is in it, as they left it.
    pub(super) fn resumed(&mut self, resumed: Resumed) -> Outcome {
        let Resumed {
            kind,
            mut game,
            memory,
            tape,
        } = resumed;
        let reader = self.settings().reader;
        game.set_reader(reader);
        if let Some(seat) = &mut self.seat {
            seat.resumed();
        }
        // The recording's memory: what the game showed before is what it shows.
        self.memory = memory;
        // No hint: the player was in this game before.
        let shown = if reader {
            game.describe(&self.memory)
        } else {
            game.view(&self.memory)
        };
        let text = format!("Your {} game, as you left it.\n{shown}", kind.name);
        let label = tape.args().to_string();
        let args: Vec<String> = label.split_whitespace().map(String::from).collect();
        self.bot_game_started(&args);
        self.game = Some(Playing {
            kind,
            game,
            tape: Some(Box::new(tape)),
            race: None,
        });
        if let Some(seat) = &self.seat {
            seat.set_place(Place::Game {
                game: kind.name,
                label,
            });
        }
        Outcome::Send(text)
    }
}
