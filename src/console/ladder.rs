//! An entrant's way through a ladder (SPEC section 12): `ladder enter N` plays every
//! seed not yet played, in order, each its own recorded game; when one ends its result
//! is kept (and checked later by replay, `records::verifier`), and the next begins.
//!
//! The time per move is the session's to measure (the console has no clock): after a
//! reply that waits for a move, [`Console::clock_starts`] gives the session the time
//! the move is due, an action that comes later than that forfeits the seed, and an
//! alarm at that time ends a seed nobody answers ([`Console::move_overdue`],
//! [`Console::move_timed_out`]).

use std::time::Duration;

use crate::catalog::table::{GameKind, NewGame};
use crate::games::Outcome as GameOutcome;
use crate::ladders::{seeds, table};
use crate::store::NewLadderResult;

use super::{ladder_of, lobby, Console, Outcome};

/// An entrant's place in a ladder.
#[derive(Debug)]
pub(super) struct LadderRun {
    /// The ladder's number.
    pub(super) id: i64,
    /// Its game.
    pub(super) kind: &'static GameKind,
    /// The seed being played.
    pub(super) seed: u64,
    /// The ladder's last seed.
    pub(super) last: u64,
    /// The time per move.
    pub(super) move_limit: Option<Duration>,
    /// When the move being waited for began (the session's milliseconds).
    move_since: Option<u64>,
    /// A reply that waits for a move was just made: the session starts the clock.
    clock_due: bool,
    /// When the line being answered came (the session's milliseconds).
    line_at: u64,
    /// The seed being played ran out of time.
    forfeit: bool,
    /// The entrant left the seed's game: the ladder stops after it.
    stopping: bool,
}

impl LadderRun {
    /// An entrant at `seed` of ladder `id`.
    pub(super) fn new(
        id: i64,
        kind: &'static GameKind,
        seed: u64,
        last: u64,
        move_limit: Option<Duration>,
    ) -> LadderRun {
        LadderRun {
            id,
            kind,
            seed,
            last,
            move_limit,
            move_since: None,
            clock_due: false,
            line_at: 0,
            forfeit: false,
            stopping: false,
        }
    }

    fn limit_ms(&self) -> Option<u64> {
        self.move_limit
            .map(|limit| u64::try_from(limit.as_millis()).unwrap_or(u64::MAX))
    }
}

/// An entrant's place in a ladder as it moves to a new server process in an upgrade
/// (SPEC section 11): the move being waited for as how long it has waited, since each
/// process has its own clock.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct LadderState {
    id: i64,
    game: String,
    seed: u64,
    last: u64,
    move_limit_ms: Option<u64>,
    waited_ms: Option<u64>,
    clock_due: bool,
    forfeit: bool,
    stopping: bool,
}

impl LadderRun {
    /// This run at `now` (the session's milliseconds), to move.
    pub(super) fn pack(&self, now: u64) -> LadderState {
        LadderState {
            id: self.id,
            game: self.kind.name.to_string(),
            seed: self.seed,
            last: self.last,
            move_limit_ms: self.limit_ms(),
            waited_ms: self.move_since.map(|since| now.saturating_sub(since)),
            clock_due: self.clock_due,
            forfeit: self.forfeit,
            stopping: self.stopping,
        }
    }

    /// The run moved here at `now` (this process's milliseconds), as it was packed;
    /// `None` for a game this server does not have.
    pub(super) fn unpack(state: LadderState, now: u64) -> Option<LadderRun> {
        let mut run = LadderRun::new(
            state.id,
            GameKind::from_name(&state.game)?,
            state.seed,
            state.last,
            state.move_limit_ms.map(Duration::from_millis),
        );
        run.move_since = state.waited_ms.map(|waited| now.saturating_sub(waited));
        run.clock_due = state.clock_due;
        run.forfeit = state.forfeit;
        run.stopping = state.stopping;
        Some(run)
    }
}

/// A seed's game to start, and what to say before it.
pub(super) struct NextSeed {
    /// The game.
    pub(super) kind: &'static GameKind,
    /// Its arguments (the seed among them).
    pub(super) args: Vec<String>,
}

/// A seed's end: its result to keep, what to say, and the next seed to start (the
/// job's work, `StoreWork::LadderSeed`).
pub(super) struct SeedEnd {
    /// The result.
    pub(super) result: NewLadderResult,
    /// What the game said as it ended.
    pub(super) text: String,
    /// What the ladder says.
    pub(super) note: String,
    /// The next seed, if one is left.
    pub(super) next: Option<NextSeed>,
}

/// What a seed's end and the next seed's start gave.
pub(super) struct SeedDone {
    /// What the game said as it ended (a person's only: a bot has its state).
    pub(super) text: String,
    /// What the ladder says (a forfeit, the last seed, a result not kept): everyone's.
    pub(super) note: String,
    /// The entrant's place, when the job entered the ladder.
    pub(super) run: Option<Box<LadderRun>>,
    /// The next seed's game, if one is left.
    pub(super) next: Option<(NextSeed, Result<NewGame, String>)>,
}

impl Console {
    /// The time per move of the ladder game being played, in milliseconds (a bot's
    /// `clock_ms`).
    pub(super) fn ladder_clock_ms(&self) -> Option<u64> {
        let run = self.ladder()?;
        self.game.as_ref()?;
        run.limit_ms()
    }

    /// The session sent what the console said at `now_ms`: when a move is now waited
    /// for, the time it is due, for the session's alarm.
    pub fn clock_starts(&mut self, now_ms: u64) -> Option<u64> {
        let run = ladder_of(&mut self.rare)?;
        if !std::mem::take(&mut run.clock_due) {
            return None;
        }
        let limit = run.limit_ms()?;
        run.move_since = Some(now_ms);
        Some(now_ms.saturating_add(limit))
    }

    /// A line came at `now_ms` (before [`Console::handle_line`]).
    pub fn line_at(&mut self, now_ms: u64) {
        if let Some(run) = ladder_of(&mut self.rare) {
            run.line_at = now_ms;
        }
    }

    /// When the move waited for is due (the session's milliseconds).
    pub fn move_due(&self) -> Option<u64> {
        let run = self.ladder()?;
        Some(run.move_since?.saturating_add(run.limit_ms()?))
    }

    /// Whether the move waited for is past its time at `now_ms`.
    pub fn move_overdue(&self, now_ms: u64) -> bool {
        self.ladder().is_some_and(|run| {
            matches!((run.move_since, run.limit_ms()), (Some(since), Some(limit)) if now_ms > since.saturating_add(limit))
        })
    }

    /// The move's time ran out: the seed is forfeited and the next one begins.
    pub fn move_timed_out(&mut self) -> Outcome {
        let Some(run) = ladder_of(&mut self.rare) else {
            return Outcome::Send(String::new());
        };
        if run.move_since.take().is_none() {
            return Outcome::Send(String::new());
        }
        run.forfeit = true;
        let outcome = self.forfeit_seed();
        if self.bot().is_some() {
            return self.bot_message(outcome);
        }
        outcome
    }

    /// A game line of a ladder game is about to be played: whether it came too late
    /// (then the seed is forfeited instead). The clock stops either way.
    pub(super) fn ladder_line_late(&mut self) -> bool {
        let Some(run) = ladder_of(&mut self.rare) else {
            return false;
        };
        let Some(since) = run.move_since.take() else {
            run.clock_due = true;
            return false;
        };
        let late = run
            .limit_ms()
            .is_some_and(|limit| run.line_at > since.saturating_add(limit));
        if late {
            run.forfeit = true;
        } else {
            run.clock_due = true;
        }
        late
    }

    /// `/leave` in a ladder's game: its seed ends as left, and no seed follows it.
    pub(super) fn leaving_ladder(&mut self) {
        if let Some(run) = ladder_of(&mut self.rare) {
            run.stopping = true;
            // Leaving is not a move: no clock for it.
            run.move_since = None;
        }
    }

    /// A reply that waits for a move was made (a seed's game began).
    pub(super) fn ladder_waits_for_move(&mut self) {
        if let Some(run) = ladder_of(&mut self.rare) {
            run.clock_due = true;
        }
    }

    /// End the seed being played as forfeited on time: left the game's own way,
    /// recorded, then its result kept and the next seed begun.
    pub(super) fn forfeit_seed(&mut self) -> Outcome {
        let Some(playing) = &mut self.game else {
            return Outcome::Send(String::new());
        };
        let reply = playing.exit(&mut self.memory);
        self.after_reply(crate::games::Reply::ended(reply.text))
    }

    /// A ladder game ends with `text` (what the game said, then the recording's
    /// notice): its result to keep, and the next seed to start, for one job. `None`
    /// outside a ladder.
    pub(super) fn ladder_game_ended(&mut self, text: String) -> Option<SeedEnd> {
        let playing = self.game.as_ref()?;
        let seat = self.seat.as_ref()?;
        let run = ladder_of(&mut self.rare)?;
        let observed = playing.game.observe(&self.memory);
        let progress = playing.game.progress();
        let forfeit = std::mem::take(&mut run.forfeit);
        let player = seat.player();
        let outcome = if forfeit {
            String::from("forfeit")
        } else {
            progress
                .ended
                .map_or("unfinished", GameOutcome::as_str)
                .to_string()
        };
        let result = NewLadderResult {
            ladder_id: run.id,
            player: player.name.to_string(),
            player_key: player.key.to_string(),
            bot: seat.is_bot(),
            seed: run.seed,
            recording_id: playing.tape.as_ref().and_then(|tape| tape.recording_id()),
            score: if forfeit {
                table::forfeit_score(run.kind.name)
            } else {
                observed.score
            },
            moves: progress.moves,
            outcome,
            forfeit,
            finished_at: crate::records::recorder::now_ms(),
        };
        let mut note = String::new();
        if forfeit {
            let limit = run.move_limit.map_or_else(String::new, |limit| {
                format!(" ({} a move)", humantime::format_duration(limit))
            });
            note.push_str(&format!(
                "Out of time{limit}: seed {} of ladder {} is forfeited.\n",
                run.seed, run.id
            ));
        }
        run.move_since = None;
        run.clock_due = false;
        let next = if run.stopping && run.seed < run.last {
            note.push_str(&format!(
                "You left ladder {id} at seed {seed}: ladder enter {id} goes on from seed {next}.\n",
                id = run.id,
                seed = run.seed,
                next = run.seed.saturating_add(1),
            ));
            None
        } else if run.seed < run.last {
            run.seed += 1;
            Some(next_seed(run.kind, run.seed))
        } else {
            note.push_str(&format!(
                "You have played every seed of ladder {}: ladder {} shows the table.\n",
                run.id, run.id
            ));
            None
        };
        Some(SeedEnd {
            result,
            text,
            note,
            next,
        })
    }

    /// What the job of a seed's end (or of `ladder enter`) gave: the next seed's game
    /// begins, or the entrant is back in the lobby.
    pub(super) fn seed_done(&mut self, done: SeedDone) -> Outcome {
        let SeedDone {
            text,
            note,
            run,
            next,
        } = done;
        if let Some(run) = run {
            self.rare.get_or_insert_with(Box::default).ladder = Some(*run);
        }
        // A bot is told the ladder's words as a line of text; the game's are a
        // person's (a bot's state says them).
        let text = if self.bot_note(&note) {
            String::new()
        } else {
            format!("{text}{note}")
        };
        match next {
            Some((seed, Ok(game))) => {
                if let Some(run) = self.ladder() {
                    let intro = format!("Ladder {}: seed {} of {}.\n", run.id, run.seed, run.last);
                    let outcome = self.begin(seed.kind, seed.args, game, None);
                    self.ladder_waits_for_move();
                    return prefixed(format!("{text}{intro}"), outcome);
                }
                self.say(text)
            }
            Some((_, Err(message))) => {
                self.end_ladder();
                self.say(format!("{text}{message}\n"))
            }
            None => {
                self.end_ladder();
                let mut text = text;
                if self.game.is_none() && !text.ends_with(lobby::PROMPT) {
                    text.push_str(self.prompt());
                }
                Outcome::Send(text)
            }
        }
    }
}

impl Console {
    /// The ladder's run is over.
    fn end_ladder(&mut self) {
        if let Some(rare) = &mut self.rare {
            rare.ladder = None;
        }
    }
}

/// The game of `seed` of a ladder on `kind`.
pub(super) fn next_seed(kind: &'static GameKind, seed: u64) -> NextSeed {
    NextSeed {
        kind,
        args: seeds::play_args(kind.name, seed, &[]).unwrap_or_default(),
    }
}

/// `text` before what `outcome` sends.
fn prefixed(text: String, outcome: Outcome) -> Outcome {
    match outcome {
        Outcome::Send(rest) => Outcome::Send(format!("{text}{rest}")),
        Outcome::Close(rest) => Outcome::Close(format!("{text}{rest}")),
        Outcome::Wait(job) => Outcome::Wait(job),
    }
}
