//! Keeping every game (SPEC section 8): the handle each session holds, the tape of
//! one game being recorded, and the sweep of old recordings.
//!
//! A session never waits on the database: each input line becomes a message to the
//! one writer task ([`crate::records::writer`], an unbounded channel send), which
//! writes in batches; [`Recorder::flush`] waits for it (before a resume reads a
//! recording back). A crash (SIGKILL) can lose the last
//! [`WRITE_EVERY`](crate::records::writer::WRITE_EVERY) of input lines. Results are
//! checked by replay afterwards ([`crate::records::verifier`]). With several instances
//! on one PostgreSQL each runs a writer, a verifier and a sweep, and the sweep skips
//! rows another is deleting.
//!
//! Recordings are numbered here, from the ids the store hands out
//! ([`Store::recording_ids`]): on PostgreSQL a block at a time, the next one fetched in
//! the background, so that starting a game never waits for the database.

use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::{mpsc, oneshot, Notify};

use crate::catalog::table::Contexts;
use crate::games::{Finish, Outcome};
use crate::metrics::Metrics;
use crate::records::recording::{self, Recording};
use crate::records::verifier::verify_loop;
use crate::records::writer::{write_loop, Note};
use crate::store::{
    Change, Listed, NewRecording, NewResult, Played, RecordingState, Store, StoreError,
    RECORDING_ID_BLOCK,
};

/// The input a game's recording keeps at most (about 200,000 moves). Past it the game
/// goes on unrecorded: its recording says it was cut, it gives no more results, and it
/// cannot be resumed (a replay would not reach where it is). A client cannot fill the
/// disk with one game.
pub const MAX_RECORDED_BYTES: u64 = 4 * 1024 * 1024;

/// How often old recordings are swept, and how many go per transaction.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);
const SWEEP_BATCH: u32 = 500;

/// How long recordings of guests (and results-less games) are kept by default.
pub const DEFAULT_KEEP: Duration = Duration::from_secs(90 * 24 * 3600);

/// The handle every session holds: one pointer, cheap to clone.
#[derive(Debug, Clone)]
pub struct Recorder(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    sender: mpsc::UnboundedSender<Note>,
    ids: Mutex<Ids>,
    store: Store,
}

/// The recording ids this instance may give ([`Store::recording_ids`]): on SQLite one
/// range without end; on PostgreSQL a block, and the next block fetched in the
/// background when half of it is used, so that starting a game never waits for the
/// database.
#[derive(Debug)]
struct Ids {
    current: Range<i64>,
    spare: Option<Range<i64>>,
    /// A fetch of the next block is under way.
    fetching: bool,
}

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
        })
}

impl Recorder {
    /// Start the writer, the verifier and the sweep on `store`. Recordings left open
    /// by a crash are closed first (a registered player's become unfinished).
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub async fn start(
        store: Store,
        contexts: Contexts,
        keep: Duration,
        metrics: Arc<Metrics>,
    ) -> Result<Recorder, StoreError> {
        let closed = store.close_open_recordings().await?;
        if closed > 0 {
            tracing::info!(
                closed,
                "recordings left open by the last run closed (registered players' can be resumed)"
            );
        }
        let ids = store.recording_ids().await?;
        let (sender, receiver) = mpsc::unbounded_channel();
        let verify = Arc::new(Notify::new());
        tokio::spawn(write_loop(
            store.clone(),
            receiver,
            Arc::clone(&verify),
            metrics,
        ));
        tokio::spawn(verify_loop(store.clone(), contexts, verify));
        tokio::spawn(sweep_loop(store.clone(), keep));
        Ok(Recorder(Arc::new(Shared {
            sender,
            ids: Mutex::new(Ids {
                current: ids,
                spare: None,
                fetching: false,
            }),
            store,
        })))
    }

    /// The next recording id, if any is left (none only after the database has been
    /// out of reach for as long as half a block of games took to start).
    fn take_id(&self) -> Option<i64> {
        // Held for a few instructions, never across an await.
        let mut ids = self.0.ids.lock().unwrap_or_else(PoisonError::into_inner);
        if ids.current.is_empty() {
            if let Some(spare) = ids.spare.take() {
                ids.current = spare;
            }
        }
        let id = ids.current.next();
        let left = ids.current.end.saturating_sub(ids.current.start);
        if left <= RECORDING_ID_BLOCK / 2 && ids.spare.is_none() && !ids.fetching {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                ids.fetching = true;
                runtime.spawn(fetch_ids(Arc::downgrade(&self.0)));
            }
        }
        id
    }

    fn send(&self, change: Change) {
        // The writer lives as long as the runtime; after it, nothing is kept anyway.
        let _ = self.0.sender.send(Note::Change(change));
    }

    /// Wait until everything sent so far is written (or `timeout` passes: the
    /// database may be down). Whether it was.
    pub async fn flush(&self, timeout: Duration) -> bool {
        let (done, wait) = oneshot::channel();
        if self.0.sender.send(Note::Flush(done)).is_err() {
            return false;
        }
        matches!(tokio::time::timeout(timeout, wait).await, Ok(Ok(())))
    }

    /// Start recording a game.
    pub fn open(&self, player: Player, start: recording::Start, level: String) -> Tape {
        let Some(id) = self.take_id() else {
            tracing::error!(player = %player.name, "no recording ids left (the database has been out of reach): this game is not recorded");
            let mut tape = Tape::new(self.clone(), 0, player, &start, level);
            tape.cut = true;
            tape.recorded = false;
            return tape;
        };
        let tape = Tape::new(self.clone(), id, player, &start, level);
        self.send(Change::Open(Box::new(NewRecording {
            id,
            player: tape.player.name.clone(),
            player_key: tape.player.key.clone(),
            registered: tape.player.registered,
            start,
            started_at: now_ms(),
        })));
        tape
    }

    /// Carry on recording `listed` (a resumed game, whose `recording` was played
    /// again to where it stopped).
    pub fn reopen(
        &self,
        player: Player,
        listed: &Listed,
        recording: &Recording,
        level: String,
    ) -> Tape {
        self.send(Change::State {
            id: listed.id,
            state: RecordingState::Open,
            outcome: None,
            played: None,
        });
        let mut tape = Tape::new(self.clone(), listed.id, player, &recording.start, level);
        tape.offset_ms = listed.duration_ms;
        tape.inputs = recording.inputs.len() as u64;
        tape
    }

    /// Give up `player_key`'s unfinished game.
    pub fn discard(&self, player_key: String) {
        self.send(Change::Discard { player_key });
    }
}

/// Who plays a recorded game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    /// As shown.
    pub name: String,
    /// In lower case.
    pub key: String,
    /// A registered name.
    pub registered: bool,
    /// A guest (`guest-N`): no results.
    pub guest: bool,
}

/// One game being recorded: what the console holds while the game runs.
#[derive(Debug)]
pub struct Tape {
    recorder: Recorder,
    id: i64,
    started: Instant,
    /// Time played before this connection (a resumed game).
    offset_ms: u64,
    inputs: u64,
    player: Player,
    game: String,
    args: String,
    /// The leaderboard level the game started on.
    level: String,
    /// How the last finish ended, for the recording's list.
    outcome: Option<Outcome>,
    /// Input bytes recorded so far.
    bytes: u64,
    /// Past [`MAX_RECORDED_BYTES`]: no more input is recorded.
    cut: bool,
    /// Whether the game has a recording at all (it has unless no id was left).
    recorded: bool,
}

impl Tape {
    fn new(
        recorder: Recorder,
        id: i64,
        player: Player,
        start: &recording::Start,
        level: String,
    ) -> Tape {
        Tape {
            recorder,
            id,
            started: Instant::now(),
            offset_ms: 0,
            inputs: 0,
            player,
            game: start.game.clone(),
            args: start.args.join(" "),
            level,
            outcome: None,
            bytes: 0,
            cut: false,
            recorded: true,
        }
    }

    /// The game's arguments, as recorded.
    pub fn args(&self) -> &str {
        &self.args
    }

    fn elapsed_ms(&self) -> u64 {
        self.offset_ms
            .saturating_add(u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX))
    }

    /// A line the game got.
    pub fn input(&mut self, line: &str) {
        if self.cut {
            return;
        }
        self.bytes += line.len() as u64 + 8;
        if self.bytes > MAX_RECORDED_BYTES {
            self.cut = true;
            tracing::warn!(recording = self.id, player = %self.player.name, "a game's recording reached its size limit: the rest of the game is not recorded");
            return;
        }
        let mut lines = String::with_capacity(line.len() + 8);
        recording::encode_input(self.elapsed_ms(), line, &mut lines);
        self.recorder.send(Change::Inputs {
            id: self.id,
            first: self.inputs,
            lines,
        });
        self.inputs += 1;
    }

    /// A level solved or the game ended by its rules: a result for a named player.
    pub fn finish(&mut self, finish: Finish) {
        self.outcome = Some(finish.outcome);
        if self.player.guest || self.cut {
            return;
        }
        let level = finish.level.clone().unwrap_or_else(|| self.level.clone());
        self.recorder.send(Change::Result(Box::new(NewResult {
            recording_id: self.id,
            upto: self.inputs,
            player: self.player.name.clone(),
            player_key: self.player.key.clone(),
            registered: self.player.registered,
            game: self.game.clone(),
            level,
            args: self.args.clone(),
            duration_ms: i64::try_from(self.elapsed_ms()).unwrap_or(i64::MAX),
            finished_at: now_ms(),
            finish,
        })));
    }

    /// The game ended (by its rules or its exit).
    pub fn ended(self) {
        let outcome = self.outcome;
        self.close(RecordingState::Ended, outcome);
    }

    /// The connection went while the game ran: a registered player's game waits for
    /// `resume`; anyone else's ends.
    pub fn interrupted(self) {
        let state = if self.is_kept() {
            RecordingState::Unfinished
        } else {
            RecordingState::Ended
        };
        let outcome = self.outcome;
        self.close(state, outcome);
    }

    /// Whether an interruption keeps the game for `resume`.
    pub fn is_kept(&self) -> bool {
        self.player.registered && !self.cut
    }

    fn close(self, state: RecordingState, outcome: Option<Outcome>) {
        if !self.recorded {
            return;
        }
        self.recorder.send(Change::State {
            id: self.id,
            state,
            outcome,
            played: Some(Played {
                inputs: self.inputs,
                duration_ms: self.elapsed_ms(),
            }),
        });
    }
}

/// Fetch the next block of recording ids, retrying every second while the database
/// is out of reach, for as long as the recorder lives.
async fn fetch_ids(shared: Weak<Shared>) {
    let mut failing = false;
    loop {
        let Some(store) = shared.upgrade().map(|shared| shared.store.clone()) else {
            return;
        };
        match store.recording_ids().await {
            Ok(block) => {
                if let Some(shared) = shared.upgrade() {
                    let mut ids = shared.ids.lock().unwrap_or_else(PoisonError::into_inner);
                    ids.spare = Some(block);
                    ids.fetching = false;
                }
                return;
            }
            Err(error) => {
                if !failing {
                    tracing::error!(%error, "cannot fetch the next recording ids: retrying every second");
                    failing = true;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Delete recordings older than `keep`, a batch at a time, every [`SWEEP_EVERY`].
async fn sweep_loop(store: Store, keep: Duration) {
    loop {
        match sweep(&store, keep).await {
            Ok(0) => {}
            Ok(deleted) => tracing::info!(deleted, "old recordings deleted"),
            Err(error) => tracing::error!(%error, "cannot delete old recordings now"),
        }
        tokio::time::sleep(SWEEP_EVERY).await;
    }
}

/// One sweep: every recording past `keep`, in batches with a pause between them so
/// that the writer gets its turns. How many were deleted.
///
/// # Errors
/// [`StoreError`] from the database.
pub async fn sweep(store: &Store, keep: Duration) -> Result<u64, StoreError> {
    let keep_ms = i64::try_from(keep.as_millis()).unwrap_or(i64::MAX);
    let cutoff = now_ms().saturating_sub(keep_ms);
    let mut deleted = 0;
    loop {
        let done = store.sweep(cutoff, SWEEP_BATCH).await?;
        deleted += done;
        if done < u64::from(SWEEP_BATCH) {
            return Ok(deleted);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
