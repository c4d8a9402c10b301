//! One bot of `--bots` (SPEC section 12, docs/bots.md): it connects, reads the banner,
//! becomes `bot loadbot-K`, and from then on speaks JSON lines. For every seed of the
//! run, in order, it starts a game ([`start_seed`]) and plays it with a seeded random
//! policy over the legal actions of each `state`, each action sent as soon as the last
//! state came and timed from its send to the next state, until the game is done. A
//! game that is not done with nothing legal (2048 with no slide left), or after the
//! most actions a game may take, is left with `{"command": "leave"}`, whose answer is
//! the game's last state.
//!
//! Through a ladder (`--bot-ladder-admin`, [`super::ladder`]) the bot sends `ladder
//! enter N` once and the ladder serves the seeds in order: each seed's game ends with
//! its last state (`done`), the ladder's words come as `text` lines (`Ladder N: seed S
//! of L.`, a forfeit on time), and the next seed's first state follows unasked. Leaving
//! a ladder's game stops the ladder there, so after a leave the bot enters again and
//! the ladder goes on from the next seed. After the last seed, the ladder says the bot
//! has played every one.
//!
//! What the server sends unasked (`message` lines: news, chat when asked for) is
//! skipped and counted. An `error` line is counted and kept with its text: after one
//! in a game the bot leaves that game (what it sent changed nothing, so nothing it
//! would send next is known to be better) and goes on with the next seed. Anything
//! else the protocol does not give (a line that is not JSON, a `text` where a game
//! should start, a state of another game or seed) ends the bot as a failure, as does
//! a closed connection or a reply slower than `--timeout`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hdrhistogram::Histogram;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use tokio::time::Instant;

use super::bots::Seeds;
use super::connection::Connection;
use super::driver::{self, Ready};
use super::failure::{Failure, Waiting};
use super::plan::Plan;
use super::stats::{self, Recorder};

/// The longest error text kept in the report: enough to say what was wrong.
const MAX_ERROR_TEXT: usize = 160;

/// What every bot of a run plays, and what they count together.
pub(crate) struct Bots {
    /// The words after `play` and before the seed (`wumpus random`).
    pub(crate) game: String,
    /// The game's name as the lobby knows it, which every state must carry.
    pub(crate) name: &'static str,
    pub(crate) seeds: Seeds,
    pub(crate) policy_seed: u64,
    pub(crate) max_actions: u64,
    /// The ladder every game is played through, or none for `play GAME seed=S`.
    pub(crate) ladder: Option<i64>,
    pub(crate) tally: Tally,
}

impl Bots {
    /// The lobby command that starts the game of `seed`, or the ladder's seeds.
    pub(crate) fn play_command(&self, seed: u64) -> String {
        match self.ladder {
            Some(id) => format!("ladder enter {id}"),
            None => format!("play {} seed={seed}", self.game),
        }
    }

    /// [`Bots::play_command`] for people: S stands for the seed.
    pub(crate) fn start_line(&self) -> String {
        match self.ladder {
            Some(id) => format!("ladder enter {id}"),
            None => format!("play {} seed=S", self.game),
        }
    }
}

/// How one game came to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// By its rules: the state after an action was done.
    ByGame,
    /// Left: not done, and nothing legal.
    Stuck,
    /// Left: the most actions a game may take were sent.
    Capped,
    /// Left: an action was answered with an error.
    AfterError,
}

/// The counts of every bot of a run.
pub(crate) struct Tally {
    pub(crate) games_started: AtomicU64,
    pub(crate) games_finished: AtomicU64,
    pub(crate) ended_by_game: AtomicU64,
    pub(crate) left_stuck: AtomicU64,
    pub(crate) left_capped: AtomicU64,
    pub(crate) left_after_error: AtomicU64,
    /// The finished games' last scores, added up.
    pub(crate) score_sum: AtomicI64,
    /// Bots that played every seed.
    pub(crate) bots_done: AtomicU64,
    /// `message` lines skipped.
    pub(crate) messages: AtomicU64,
    /// A ladder's `text` lines (its heading, each seed's, forfeits, its last word).
    pub(crate) ladder_texts: AtomicU64,
    /// Seeds the ladder said were forfeited on time.
    pub(crate) forfeits: AtomicU64,
    pub(crate) errors: AtomicU64,
    error_texts: Mutex<BTreeMap<String, u64>>,
    /// From a game's start command to its first state.
    starts: Mutex<Histogram<u64>>,
}

impl Tally {
    pub(crate) fn new() -> Tally {
        Tally {
            games_started: AtomicU64::new(0),
            games_finished: AtomicU64::new(0),
            ended_by_game: AtomicU64::new(0),
            left_stuck: AtomicU64::new(0),
            left_capped: AtomicU64::new(0),
            left_after_error: AtomicU64::new(0),
            score_sum: AtomicI64::new(0),
            bots_done: AtomicU64::new(0),
            messages: AtomicU64::new(0),
            ladder_texts: AtomicU64::new(0),
            forfeits: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            error_texts: Mutex::new(BTreeMap::new()),
            starts: Mutex::new(stats::new_histogram()),
        }
    }

    /// An `error` line came, saying `text`.
    fn error(&self, text: &str) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let text: String = text.chars().take(MAX_ERROR_TEXT).collect();
        *self
            .error_texts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(text)
            .or_default() += 1;
    }

    /// The error texts with their counts.
    pub(crate) fn error_texts(&self) -> BTreeMap<String, u64> {
        self.error_texts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The start latencies so far.
    pub(crate) fn starts(&self) -> Histogram<u64> {
        self.starts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A game's first state came, for a start command sent at `sent`.
    fn record_start(&self, sent: Instant) {
        self.starts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .saturating_record(stats::micros(sent.elapsed()));
    }

    fn finished(&self, ending: Ending, score: i64) {
        self.games_finished.fetch_add(1, Ordering::Relaxed);
        self.score_sum.fetch_add(score, Ordering::Relaxed);
        let count = match ending {
            Ending::ByGame => &self.ended_by_game,
            Ending::Stuck => &self.left_stuck,
            Ending::Capped => &self.left_capped,
            Ending::AfterError => &self.left_after_error,
        };
        count.fetch_add(1, Ordering::Relaxed);
    }
}

/// The name bot `index` takes.
pub(crate) fn name(index: usize) -> String {
    format!("loadbot-{index}")
}

/// The random policy of bot `index` in the game of `seed`: the same moves for the same
/// three numbers, whatever the bot played before.
fn policy(policy_seed: u64, index: usize, seed: u64) -> StdRng {
    let mixed = policy_seed
        ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ seed.wrapping_mul(0xBF58_476D_1CE4_E5B9).rotate_left(31);
    StdRng::seed_from_u64(mixed)
}

/// Run bot `index` of `plan`; a failure is recorded with its reason and ends only this
/// bot.
pub(crate) async fn session(
    index: usize,
    plan: Arc<Plan>,
    bots: Arc<Bots>,
    recorder: Arc<Recorder>,
) {
    tokio::time::sleep_until(plan.connect_at(index)).await;
    if let Err(failure) = play(index, &plan, &bots, &recorder).await {
        recorder.failure(failure.to_string());
    }
}

async fn play(index: usize, plan: &Plan, bots: &Bots, recorder: &Recorder) -> Result<(), Failure> {
    let mut connection = driver::connect(index, plan, recorder, false).await?;
    let name = name(index);
    connection.send_line(&format!("bot {name}")).await?;
    let welcome = next_answer(
        &mut connection,
        bots,
        Waiting::Welcome,
        Instant::now() + plan.timeout,
    )
    .await?;
    match welcome {
        Answer::Welcome { name: given } if given == name => {}
        other => return Err(other.unexpected(Waiting::Welcome)),
    }
    let _playing = Ready::enter(recorder);
    let mut bot = Bot {
        index,
        plan,
        bots,
        recorder,
        connection,
        in_ladder: false,
    };
    for seed in bots.seeds.iter() {
        bot.play_seed(seed).await?;
    }
    if bot.in_ladder {
        bot.ladder_done().await?;
    }
    bots.tally.bots_done.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// One bot while it plays.
struct Bot<'a> {
    index: usize,
    plan: &'a Plan,
    bots: &'a Bots,
    recorder: &'a Recorder,
    connection: Connection,
    /// Entered a ladder that goes on serving seeds (until a leave or its last seed).
    in_ladder: bool,
}

impl Bot<'_> {
    /// Play the game of `seed` to its end.
    async fn play_seed(&mut self, seed: u64) -> Result<(), Failure> {
        let started = if self.bots.ladder.is_some() {
            self.ladder_seed(seed).await?
        } else {
            start_seed(&mut self.connection, self.plan, self.bots, seed).await?
        };
        let Some(mut state) = started else {
            return Ok(());
        };
        let mut rng = policy(self.bots.policy_seed, self.index, seed);
        let mut actions = 0;
        let ending = loop {
            if state.done {
                break Ending::ByGame;
            }
            if state.legal.is_empty() {
                break Ending::Stuck;
            }
            if actions >= self.bots.max_actions {
                break Ending::Capped;
            }
            let action = &state.legal[rng.random_range(0..state.legal.len())];
            let request = serde_json::json!({ "action": action }).to_string();
            let sent = Instant::now();
            self.connection.send_line(&request).await?;
            let answer = next_answer(
                &mut self.connection,
                self.bots,
                Waiting::Reply,
                sent + self.plan.timeout,
            )
            .await?;
            self.recorder.command(self.index, sent.elapsed(), true);
            actions += 1;
            match answer {
                Answer::State(next) => state = next,
                Answer::Error(text) => {
                    self.bots.tally.error(&text);
                    break Ending::AfterError;
                }
                other => return Err(other.unexpected(Waiting::Reply)),
            }
        };
        let last = match ending {
            Ending::ByGame => Some(state),
            Ending::Stuck | Ending::Capped | Ending::AfterError => {
                // Leaving a ladder's game stops the ladder: the next seed enters again.
                self.in_ladder = false;
                self.leave().await?
            }
        };
        if let Some(last) = last {
            self.bots.tally.finished(ending, last.score);
        }
        Ok(())
    }

    /// Leave the running game: its last state, or none when an error answered.
    async fn leave(&mut self) -> Result<Option<State>, Failure> {
        let request = serde_json::json!({ "command": "leave" }).to_string();
        self.connection.send_line(&request).await?;
        // A ladder's words (`You left ladder N ...`) may come on the way.
        match self.past_ladder_words(Waiting::Leave).await? {
            Answer::State(last) if last.done => Ok(Some(last)),
            Answer::Error(text) => {
                self.bots.tally.error(&text);
                Ok(None)
            }
            other => Err(other.unexpected(Waiting::Leave)),
        }
    }

    /// The ladder's game of `seed`: entered (`ladder enter N`, the start timed from
    /// it) unless the ladder is already serving seeds, then its first state, the
    /// ladder's words on the way skipped; none when an error answered (counted).
    async fn ladder_seed(&mut self, seed: u64) -> Result<Option<State>, Failure> {
        let sent = Instant::now();
        let entering = !self.in_ladder;
        if entering {
            let request =
                serde_json::json!({ "command": self.bots.play_command(seed) }).to_string();
            self.connection.send_line(&request).await?;
            self.in_ladder = true;
        }
        match self.past_ladder_words(Waiting::Game).await? {
            Answer::State(state)
                if state.game == self.bots.name && state.seed == Some(seed) && !state.done =>
            {
                if entering {
                    self.bots.tally.record_start(sent);
                }
                self.bots
                    .tally
                    .games_started
                    .fetch_add(1, Ordering::Relaxed);
                Ok(Some(state))
            }
            Answer::Error(text) => {
                self.bots.tally.error(&text);
                self.in_ladder = false;
                Ok(None)
            }
            other => Err(other.unexpected(Waiting::Game)),
        }
    }

    /// The next answer that is not one of the ladder's words between seeds (those
    /// are counted), within the timeout.
    async fn past_ladder_words(&mut self, waiting: Waiting) -> Result<Answer, Failure> {
        let deadline = Instant::now() + self.plan.timeout;
        loop {
            match next_answer(&mut self.connection, self.bots, waiting, deadline).await? {
                Answer::Text(text) if is_ladders_word(&text) => self.ladder_text(&text),
                answer => return Ok(answer),
            }
        }
    }

    /// After the ladder's last seed: its words, up to the one that says every seed
    /// was played.
    async fn ladder_done(&mut self) -> Result<(), Failure> {
        match self.past_ladder_words(Waiting::Game).await? {
            Answer::Text(text) if text.contains(PLAYED_EVERY_SEED) => {
                self.ladder_text(&text);
                Ok(())
            }
            other => Err(other.unexpected(Waiting::Game)),
        }
    }

    /// A ladder's `text` line, counted (a forfeit on time too).
    fn ladder_text(&self, text: &str) {
        self.bots.tally.ladder_texts.fetch_add(1, Ordering::Relaxed);
        if text.starts_with("Out of time") {
            self.bots.tally.forfeits.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// What a ladder says once its last seed is played (docs/bots.md).
const PLAYED_EVERY_SEED: &str = "You have played every seed of ladder";

/// A `text` a ladder sends between its seeds' states: its heading and each seed's
/// (`Ladder N: ...`), a forfeit on time, the word after a leave. Any other text
/// where a ladder's state should come (the ladder closed, or played already) ends the
/// bot as a failure.
fn is_ladders_word(text: &str) -> bool {
    text.starts_with("Ladder ")
        || text.starts_with("Out of time")
        || text.starts_with("You left ladder")
}

/// Start the game of `seed` (`{"command": "play GAME seed=S"}`): its first state,
/// timed from the send; none when an error answered (counted). A ladder's games
/// start in [`Bot::ladder_seed`].
async fn start_seed(
    connection: &mut Connection,
    plan: &Plan,
    bots: &Bots,
    seed: u64,
) -> Result<Option<State>, Failure> {
    let request = serde_json::json!({ "command": bots.play_command(seed) }).to_string();
    let sent = Instant::now();
    connection.send_line(&request).await?;
    let answer = next_answer(connection, bots, Waiting::Game, sent + plan.timeout).await?;
    bots.tally.record_start(sent);
    match answer {
        Answer::State(state) if state.game == bots.name && state.seed == Some(seed) => {
            bots.tally.games_started.fetch_add(1, Ordering::Relaxed);
            Ok(Some(state))
        }
        Answer::Error(text) => {
            bots.tally.error(&text);
            Ok(None)
        }
        other => Err(other.unexpected(Waiting::Game)),
    }
}

/// A `state` line, as much of it as a random policy needs.
#[derive(Debug)]
struct State {
    game: String,
    seed: Option<u64>,
    legal: Vec<String>,
    score: i64,
    done: bool,
}

/// A line from the server, by its `type`.
#[derive(Debug)]
enum Answer {
    Welcome { name: String },
    State(State),
    Text(String),
    Error(String),
}

impl Answer {
    /// The failure of getting this while `waiting`.
    fn unexpected(self, waiting: Waiting) -> Failure {
        let shown = match self {
            Answer::Welcome { name } => format!("welcome as {name}"),
            Answer::State(state) => format!(
                "a state of {} seed {:?} (done: {})",
                state.game, state.seed, state.done
            ),
            Answer::Text(text) => format!("text: {text}"),
            Answer::Error(text) => format!("error: {text}"),
        };
        Failure::unexpected(waiting, shown.as_bytes())
    }
}

/// Every field of every line type that a bot reads; the others (the observation, the
/// clock) are skipped unread, and fields added later are ignored, as docs/bots.md
/// asks of bots.
#[derive(Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: String,
    name: Option<String>,
    game: Option<String>,
    seed: Option<u64>,
    legal: Option<Vec<String>>,
    score: Option<i64>,
    done: Option<bool>,
    text: Option<String>,
    message: Option<String>,
}

/// What a line is: an answer, or a `message` to skip; none when it is not a line of
/// the protocol.
fn read_line(bytes: &[u8]) -> Option<Option<Answer>> {
    let line: Line = serde_json::from_slice(bytes).ok()?;
    let answer = match line.kind.as_str() {
        "message" => return Some(None),
        "welcome" => Answer::Welcome { name: line.name? },
        "state" => Answer::State(State {
            game: line.game?,
            seed: line.seed,
            legal: line.legal?,
            score: line.score?,
            done: line.done?,
        }),
        "text" => Answer::Text(line.text?),
        "error" => Answer::Error(line.message?),
        _ => return None,
    };
    Some(Some(answer))
}

/// The next line that answers the bot, read until `deadline`; `message` lines on the
/// way are skipped and counted.
async fn next_answer(
    connection: &mut Connection,
    bots: &Bots,
    waiting: Waiting,
    deadline: Instant,
) -> Result<Answer, Failure> {
    loop {
        if let Some(end) = connection.buffer().iter().position(|&byte| byte == b'\n') {
            let bytes = connection.buffer()[..end].trim_ascii();
            let read = (!bytes.is_empty()).then(|| read_line(bytes));
            let answer = match read {
                // A blank line says nothing.
                None => None,
                Some(None) => return Err(Failure::unexpected(waiting, bytes)),
                Some(Some(None)) => {
                    bots.tally.messages.fetch_add(1, Ordering::Relaxed);
                    None
                }
                Some(Some(Some(answer))) => Some(answer),
            };
            connection.consume(end + 1, waiting)?;
            match answer {
                Some(answer) => return Ok(answer),
                None => continue,
            }
        }
        tokio::time::timeout_at(deadline, connection.read_some(waiting))
            .await
            .map_err(|_| Failure::Timeout(waiting))??;
        // Fails once a line still without its end is longer than any of ours.
        connection.consume(0, waiting)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_by_their_type_and_unknown_fields_skipped() {
        let state = br#"{"type":"state","game":"wumpus","seed":7,"args":["random","seed=7"],"observation":{"percepts":[]},"legal":["forward","left"],"score":-1,"done":false,"clock_ms":null,"later":1}"#;
        let Some(Some(Answer::State(state))) = read_line(state) else {
            panic!("a state");
        };
        assert_eq!(state.game, "wumpus");
        assert_eq!(state.seed, Some(7));
        assert_eq!(state.legal, ["forward", "left"]);
        assert_eq!((state.score, state.done), (-1, false));
        assert!(matches!(
            read_line(br#"{"type":"message","text":"[ann] hi"}"#),
            Some(None)
        ));
        assert!(matches!(
            read_line(br#"{"type":"error","message":"no"}"#),
            Some(Some(Answer::Error(text))) if text == "no"
        ));
        assert!(matches!(
            read_line(br#"{"type":"welcome","name":"loadbot-3","protocol":1}"#),
            Some(Some(Answer::Welcome { name })) if name == "loadbot-3"
        ));
        // Not the protocol: not JSON, no type, a type unknown, a state without legal.
        for bad in [
            &b"Enter command: "[..],
            br#"{"text":"x"}"#,
            br#"{"type":"news","text":"x"}"#,
            br#"{"type":"state","game":"2048","score":0,"done":false}"#,
        ] {
            assert!(read_line(bad).is_none(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn a_policy_depends_on_its_three_seeds_only() {
        let moves = |policy_seed, index, seed| {
            let mut rng = policy(policy_seed, index, seed);
            (0..32)
                .map(|_| rng.random_range(0..4u8))
                .collect::<Vec<_>>()
        };
        assert_eq!(moves(0, 1, 5), moves(0, 1, 5));
        assert_ne!(moves(0, 1, 5), moves(0, 2, 5));
        assert_ne!(moves(0, 1, 5), moves(0, 1, 6));
        assert_ne!(moves(0, 1, 5), moves(1, 1, 5));
    }
}
