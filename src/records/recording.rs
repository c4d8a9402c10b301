//! A recorded game: its start and its input lines with their times (SPEC section 8).
//!
//! The games are pure, so a recording keeps nothing of the screen: the start (game,
//! arguments with any drawn seed, what the session remembered, a starting world for
//! games that load one) plus the inputs reproduce every reply byte for byte. This
//! module holds the recording, its encoding for the store, the replay that rebuilds
//! the game from it (the asciicast export is `cast.rs`). No I/O but [`load`], which reads
//! one back from the store and decodes its inputs (the store keeps them as they
//! were written, and knows nothing of their encoding's meaning).

use std::fmt::Write as _;

use crate::catalog::table::{Context, GameKind, NewGame};
use crate::games::{self, Finish, Memory, Status};
use crate::store::{Listed, Store, StoreError, StoredRecording};

/// How a recorded game began: the store's row type, named here too since a
/// recording begins with it.
pub use crate::store::Start;

/// One input line and when it came, in milliseconds from the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Milliseconds since the game started.
    pub at_ms: u64,
    /// The line as the game got it.
    pub line: String,
}

/// A whole recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// How it began.
    pub start: Start,
    /// Every line the game got, in order.
    pub inputs: Vec<Input>,
}

impl Recording {
    /// A recording as the store gave it back, its inputs decoded.
    ///
    /// # Errors
    /// [`ReplayError::Damaged`] with the number of the first bad input line.
    pub fn decode(stored: StoredRecording) -> Result<Recording, ReplayError> {
        let mut inputs = Vec::new();
        for (first, lines) in &stored.batches {
            decode_batch(*first, lines, 0, &mut inputs)?;
        }
        Ok(Recording {
            start: stored.start,
            inputs,
        })
    }
}

/// The recording `id` from the store, whole, with what the lists show of it.
///
/// # Errors
/// [`StoreError::Query`]; [`StoreError::Damaged`] when its inputs cannot be read.
pub async fn load(store: &Store, id: i64) -> Result<Option<(Listed, Recording)>, StoreError> {
    let Some((listed, stored)) = store.recording(id).await? else {
        return Ok(None);
    };
    let recording = Recording::decode(stored)
        .map_err(|error| StoreError::Damaged(format!("recording {id}: {error}")))?;
    Ok(Some((listed, recording)))
}

/// Why a recording cannot be played again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The game is not in this server's table.
    #[error("the recording is of a game this server does not have: {0}")]
    UnknownGame(String),
    /// The game no longer starts with these arguments (a level file was removed).
    #[error("the recorded game cannot start again: {0}")]
    CannotStart(String),
    /// The stored inputs are damaged.
    #[error("the recording's inputs are damaged at line {0}")]
    Damaged(usize),
}

/// A recorded game being played again, one input at a time.
pub struct Replay {
    game: NewGame,
    memory: Memory,
    over: bool,
    /// The leaderboard level the game started on, for finishes that name none.
    level: String,
}

/// One step of a replay: what the game sent, and what it reached.
#[derive(Debug)]
pub struct Step {
    /// The reply's text, as the player saw it.
    pub text: String,
    /// A level solved or the game ended by its rules, its level always named.
    pub finish: Option<Finish>,
}

impl Replay {
    /// Start the recorded game again; the first step is what it said first.
    ///
    /// # Errors
    /// [`ReplayError`] when the game or its level is gone.
    pub fn begin(start: &Start, context: &Context) -> Result<(Replay, Step), ReplayError> {
        Replay::begin_for(start, context, false)
    }

    /// [`Replay::begin`], for a viewer who reads through a screen reader when
    /// `reader`: the game describes itself in words (SPEC section 10). Only what is
    /// shown changes, never the game.
    ///
    /// # Errors
    /// [`ReplayError`] when the game or its level is gone.
    pub fn begin_for(
        start: &Start,
        context: &Context,
        reader: bool,
    ) -> Result<(Replay, Step), ReplayError> {
        let kind = GameKind::from_name(&start.game)
            .ok_or_else(|| ReplayError::UnknownGame(start.game.clone()))?;
        let game = match (&start.world, kind.from_state) {
            (Some(world), Some(from_state)) => from_state(world, context),
            _ => {
                let words: Vec<&str> = start.args.iter().map(String::as_str).collect();
                (kind.start)(&words, context)
            }
        }
        .map_err(ReplayError::CannotStart)?;
        let mut memory = Memory::default();
        (kind.memory.recall)(&start.memory, &mut memory);
        let mut replay = Replay {
            game,
            memory,
            over: false,
            level: (kind.level_key)(&start.args),
        };
        replay.game.set_reader(reader);
        let reply = replay.game.start(&mut replay.memory);
        let step = replay.step_from(reply);
        Ok((replay, step))
    }

    /// The game's answer to the next recorded line. A line of the help for stuck
    /// players (`/hint` and its answer, a warning: SPEC section 13) never reaches the
    /// game: its answer is what the player read.
    pub fn step(&mut self, line: &str) -> Step {
        if let Some(said) = help_text(line) {
            return Step {
                text: format!("{said}\n{}", games::PROMPT),
                finish: None,
            };
        }
        let reply = self.game.handle(line, &mut self.memory);
        self.step_from(reply)
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The game itself, to play on from where the recording stops (resume).
    pub fn into_game(self) -> (NewGame, Memory) {
        (self.game, self.memory)
    }

    fn step_from(&mut self, reply: games::Reply) -> Step {
        let mut text = reply.text;
        match reply.status {
            Status::Playing => {}
            Status::Ended => self.over = true,
            // The save itself happened live; a replay says what the player read.
            Status::Save { name, .. } => {
                let _ = write!(text, "Saved as {name}.\n{}", games::PROMPT);
            }
        }
        let finish = self.game.take_finish().map(|mut finish| {
            finish.level.get_or_insert_with(|| self.level.clone());
            finish
        });
        Step { text, finish }
    }
}

/// Whether a recorded line is the help's (it starts with `/`, which no line that
/// reaches a game does) and asked for a solution's moves: `/hint` or `/solve`. A result
/// reached after one is marked helped.
pub fn is_help(line: &str) -> bool {
    line.starts_with("/hint") || line.starts_with("/solve")
}

/// What the player read of a recorded line of help (`/hint` and the answer under it,
/// or a warning), or `None` for a line the game played.
fn help_text(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('/')?;
    Some(rest.split_once('\n').map_or("", |(_, said)| said))
}

/// Replay the first `upto` inputs and return the finishes reached, in order, each
/// with its level named, and whether help was asked for before each.
///
/// # Errors
/// [`ReplayError`] when the game cannot start again.
pub fn finishes(
    recording: &Recording,
    upto: usize,
    context: &Context,
) -> Result<Vec<(Finish, bool)>, ReplayError> {
    let (mut replay, first) = Replay::begin(&recording.start, context)?;
    let mut found: Vec<(Finish, bool)> = first.finish.map(|f| (f, false)).into_iter().collect();
    let mut helped = false;
    for input in recording.inputs.iter().take(upto) {
        if replay.is_over() {
            break;
        }
        helped |= is_help(&input.line);
        if let Some(finish) = replay.step(&input.line).finish {
            found.push((finish, std::mem::take(&mut helped)));
        }
    }
    Ok(found)
}

/// One input as the store keeps it: `MS LINE` and a new line, with `\`, new lines,
/// carriage returns and NUL escaped so that any line a client can send round-trips.
pub fn encode_input(at_ms: u64, line: &str, out: &mut String) {
    let _ = write!(out, "{at_ms} ");
    for c in line.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('\n');
}

/// The inputs of a stored batch, numbered by its first line `first`, appended to
/// `inputs`, which follow `earlier` lines of the recording (the pages read before):
/// lines this batch shares with those before it are kept once. One server's writer
/// never logs a batch again once it is moved, but two servers sharing the file during
/// an upgrade may (one's copy of a batch, written again after its commit's answer was
/// lost, moved by the other after the first copy was joined into a row).
///
/// # Errors
/// [`ReplayError::Damaged`] with the number of the first bad line in `inputs`.
pub fn decode_batch(
    first: i64,
    text: &str,
    earlier: usize,
    inputs: &mut Vec<Input>,
) -> Result<(), ReplayError> {
    let start = inputs.len();
    decode_inputs(text, inputs)?;
    let shared = (earlier + start).saturating_sub(usize::try_from(first).unwrap_or(0));
    inputs.drain(start..(start + shared).min(inputs.len()));
    Ok(())
}

/// The inputs written by [`encode_input`], appended to `inputs`.
///
/// # Errors
/// [`ReplayError::Damaged`] with the number of the first bad line.
pub fn decode_inputs(text: &str, inputs: &mut Vec<Input>) -> Result<(), ReplayError> {
    for line in text.lines() {
        let number = inputs.len() + 1;
        let (at, rest) = line.split_once(' ').ok_or(ReplayError::Damaged(number))?;
        let at_ms = at.parse().map_err(|_| ReplayError::Damaged(number))?;
        let mut decoded = String::with_capacity(rest.len());
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                decoded.push(c);
                continue;
            }
            decoded.push(match chars.next() {
                Some('\\') => '\\',
                Some('n') => '\n',
                Some('r') => '\r',
                Some('0') => '\0',
                _ => return Err(ReplayError::Damaged(number)),
            });
        }
        inputs.push(Input {
            at_ms,
            line: decoded,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::levels::Levels;
    use proptest::prelude::*;

    /// Lines a player might type in any of the games, garbage included.
    const WORDS: &[&str] = &[
        "w1",
        "a2",
        "s1",
        "d3",
        "w",
        "a",
        "s",
        "d",
        "b",
        "r",
        "u",
        "z",
        "move forward",
        "turn left",
        "turn right",
        "grab",
        "shoot",
        "climb",
        "undo",
        "redo",
        "next",
        "lurd rl",
        "save x",
        "",
        "nonsense",
        "e",
        "q",
        "quit",
        "exit",
    ];

    fn context() -> Context {
        Context {
            levels: Levels::built_in().0,
            data_dir: std::env::temp_dir().join("arcade-recording-tests-unused"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The start and the inputs give back every reply, byte for byte: what a live
        /// game sent is what its replay sends.
        #[test]
        fn a_replay_is_the_live_game(
            game in 0usize..4,
            best in 0u128..100_000,
            picks in proptest::collection::vec(0usize..WORDS.len(), 0..60),
        ) {
            let context = context();
            let (name, typed): (&str, Vec<String>) = match game {
                0 => ("sokoban", vec![]),
                1 => ("starpusher", vec![]),
                // Unseeded: the recorded arguments carry the drawn seed.
                2 => ("2048", vec![]),
                _ => ("wumpus", vec![]),
            };
            let kind = GameKind::from_name(name).unwrap();
            let args = (kind.recorded_args)(typed);
            let words: Vec<&str> = args.iter().map(String::as_str).collect();
            let mut live = (kind.start)(&words, &context).unwrap();
            let mut memory = Memory::default();
            memory.part::<crate::games::twenty48::Best>().0 = best;
            let start = Start {
                game: name.to_string(),
                args: args.clone(),
                memory: (kind.memory.remember)(&memory),
                world: kind.from_state.and_then(|_| live.state()),
            };
            let mut sent = Vec::new();
            let mut finished = Vec::new();
            // What the console's recording names a finish without a level by.
            let level = (kind.level_key)(&args);
            let named = |finish: Option<Finish>| {
                finish.map(|mut finish| {
                    finish.level.get_or_insert_with(|| level.clone());
                    finish
                })
            };
            let reply = live.start(&mut memory);
            let mut over = reply.status == Status::Ended;
            sent.push(reply.text);
            finished.extend(named(live.take_finish()));
            let mut inputs = Vec::new();
            for pick in picks {
                if over {
                    break;
                }
                let line = WORDS[pick];
                inputs.push(Input { at_ms: inputs.len() as u64, line: line.to_string() });
                let reply = live.handle(line, &mut memory);
                over = reply.status == Status::Ended;
                let mut text = reply.text;
                if let Status::Save { name, .. } = reply.status {
                    text.push_str(&format!("Saved as {name}.\n{}", games::PROMPT));
                }
                sent.push(text);
                finished.extend(named(live.take_finish()));
            }
            let recording = Recording { start, inputs };
            let (mut replay, first) = Replay::begin(&recording.start, &context).unwrap();
            let mut again = vec![first.text];
            for input in &recording.inputs {
                again.push(replay.step(&input.line).text);
            }
            prop_assert_eq!(&again, &sent);
            let upto = recording.inputs.len();
            let replayed: Vec<Finish> = finishes(&recording, upto, &context)
                .unwrap()
                .into_iter()
                .map(|(finish, helped)| {
                    assert!(!helped, "no help was asked for");
                    finish
                })
                .collect();
            prop_assert_eq!(replayed, finished);
        }
    }

    #[test]
    fn inputs_round_trip_through_their_encoding() {
        let inputs = vec![
            Input {
                at_ms: 0,
                line: String::from("w1"),
            },
            Input {
                at_ms: 1234,
                line: String::from("a \\ b\n\r\0 c"),
            },
            Input {
                at_ms: 99,
                line: String::new(),
            },
        ];
        let mut text = String::new();
        for input in &inputs {
            encode_input(input.at_ms, &input.line, &mut text);
        }
        assert_eq!(text.lines().count(), 3);
        let mut back = Vec::new();
        decode_inputs(&text, &mut back).unwrap();
        assert_eq!(back, inputs);
        let mut bad = Vec::new();
        assert_eq!(
            decode_inputs("1 ok\nx2 y\n", &mut bad),
            Err(ReplayError::Damaged(2))
        );
        assert_eq!(
            decode_inputs("1 \\q\n", &mut Vec::new()),
            Err(ReplayError::Damaged(1))
        );
    }

    #[test]
    fn a_batch_is_read_from_the_line_after_those_before_it() {
        let encoded = |lines: &[&str]| {
            let mut text = String::new();
            for line in lines {
                encode_input(1, line, &mut text);
            }
            text
        };
        let typed = |inputs: &[Input]| -> Vec<String> {
            inputs.iter().map(|input| input.line.clone()).collect()
        };
        // A joined row of lines 0 to 2, then a copy of batch 2 with line 3 joined.
        let mut inputs = Vec::new();
        decode_batch(0, &encoded(&["w", "a", "s"]), 0, &mut inputs).unwrap();
        decode_batch(2, &encoded(&["s", "q"]), 0, &mut inputs).unwrap();
        assert_eq!(typed(&inputs), ["w", "a", "s", "q"]);
        // On the next page (four lines read before it): a copy of all it holds adds
        // nothing, the next batch comes whole.
        let mut page = Vec::new();
        decode_batch(1, &encoded(&["a", "s"]), 4, &mut page).unwrap();
        assert!(page.is_empty());
        decode_batch(4, &encoded(&["d"]), 4, &mut page).unwrap();
        assert_eq!(typed(&page), ["d"]);
        // A damaged line is still found, numbered in what was decoded.
        assert_eq!(
            decode_batch(5, "1 ok\nx2 y\n", 5, &mut page),
            Err(ReplayError::Damaged(3))
        );
    }

    /// `starpusher arcade 1` ("First Push": `#@ $ .#`), with `lines` typed.
    fn first_push(lines: &[&str]) -> Recording {
        Recording {
            start: Start {
                game: String::from("starpusher"),
                args: vec![String::from("arcade"), String::from("1")],
                memory: String::new(),
                world: None,
            },
            inputs: lines
                .iter()
                .enumerate()
                .map(|(at, line)| Input {
                    at_ms: at as u64,
                    line: line.to_string(),
                })
                .collect(),
        }
    }

    #[test]
    fn help_lines_never_reach_the_game_and_mark_the_next_result() {
        let helped = first_push(&["/hint\nPush the box at row 1, column 4 to the right.", "d3"]);
        let (mut replay, _) = Replay::begin(&helped.start, &context()).unwrap();
        // The replay shows what the player read, and the game is where it was.
        assert_eq!(
            replay.step(&helped.inputs[0].line).text,
            "Push the box at row 1, column 4 to the right.\nEnter command: "
        );
        let solved = replay.step("d3");
        assert!(solved.finish.is_some(), "{}", solved.text);
        let found = finishes(&helped, 2, &context()).unwrap();
        assert_eq!(found.len(), 1);
        assert!(found[0].1, "the hint marks the result");
        // A warning is help too, but gives no solution away: no mark.
        let warned = first_push(&["/warning\nThat box can no longer reach a goal.", "d3"]);
        assert!(!finishes(&warned, 2, &context()).unwrap()[0].1);
        assert!(is_help("/solve\nAt best 1 push is left."));
        assert!(!is_help("/warning\nx") && !is_help("d3"));
    }
}
