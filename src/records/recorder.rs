//! Keeping every game (SPEC section 8): the handle each session holds and the tape of
//! one game being recorded (the sweep of old recordings is `sweep.rs`'s).
//!
//! A session never waits on the database: each input line is appended to the batch
//! the one writer task ([`crate::records::writer`]) takes and writes every second;
//! [`Recorder::flush`] waits for it (before a resume reads a recording back). A crash (SIGKILL) can lose the last
//! [`WRITE_EVERY`](crate::records::writer::WRITE_EVERY) of input lines. Results are
//! checked by replay afterwards ([`crate::records::verifier`]). With several instances
//! on one PostgreSQL each runs a writer, a verifier and a sweep, and the sweep skips
//! rows another is deleting.
//!
//! What a game records is bounded three ways, and past each the game goes on
//! unrecorded and its player is told once: a game's own size
//! ([`MAX_RECORDED_BYTES`]), each player's and address's hour
//! ([`crate::records::quota`]), and the writer's queue
//! ([`MAX_QUEUED_BYTES`](crate::records::writer::MAX_QUEUED_BYTES)) or the data
//! directory's free space ([`crate::records::disk`]), both "short of disk". A recording
//! stopped so is closed at once (ended): it can never be resumed halfway.
//!
//! Recordings are numbered here, from the ids the store hands out
//! ([`Store::recording_ids`]): on PostgreSQL a block at a time, the next one fetched in
//! the background, so that starting a game never waits for the database.

pub use super::sweep::{
    close_left_open, now_ms, sweep, Retention, DEFAULT_KEEP, DEFAULT_KEEP_GUESTS,
};
use std::net::IpAddr;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, Notify};

use crate::catalog::table::{Contexts, GameKind};
use crate::games::{Finish, Outcome};
use crate::metrics::Metrics;
use crate::records::quota::{self, Quotas};
use crate::records::recording::{self, Recording};
use crate::records::verifier::verify_loop;
use crate::records::writer::{line_weight, weight, write_loop, Backlog, Pending, Row};
use crate::store::{
    Change, Listed, NewRecording, NewResult, Played, RecordingState, Store, StoreError,
    RECORDING_ID_BLOCK,
};

/// The input a game's recording keeps at most (about 200,000 moves). Past it the game
/// goes on unrecorded: its recording says it was cut, it gives no more results, and it
/// cannot be resumed (a replay would not reach where it is). A client cannot fill the
/// disk with one game.
pub const MAX_RECORDED_BYTES: u64 = 4 * 1024 * 1024;

/// What the player is told when the server is short of disk (the writer's queue is
/// full, or the data directory's free space is below `--disk-stop-below`).
pub const SHORT_OF_DISK: &str = "Recording stopped: the server is short of disk.";

/// What the player is told when no recording id is left (the database has been out of
/// reach since the last block of ids).
pub const NO_DATABASE: &str =
    "Recording stopped: the server's database cannot be reached.\nThe game goes on unrecorded.";

/// What the player is told past their hour's quota (or their address's).
pub const OVER_QUOTA: &str =
    "Recording stopped: you have recorded too much this hour.\nThe game goes on unrecorded.";

/// What the player is told when a game reaches [`MAX_RECORDED_BYTES`].
pub const TOO_LONG: &str =
    "Recording stopped: this game is too long to record. It goes on unrecorded;\nstart a new one to be recorded again.";

/// Why a game's recording stopped, for its player: one byte in every tape rather than
/// a 16-byte `&str` (issue 29).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Notice {
    ShortOfDisk,
    NoDatabase,
    OverQuota,
    TooLong,
}

impl Notice {
    fn text(self) -> &'static str {
        match self {
            Notice::ShortOfDisk => SHORT_OF_DISK,
            Notice::NoDatabase => NO_DATABASE,
            Notice::OverQuota => OVER_QUOTA,
            Notice::TooLong => TOO_LONG,
        }
    }
}

/// The handle every session holds: one pointer, cheap to clone.
#[derive(Debug, Clone)]
pub struct Recorder(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    /// What the writer takes next.
    pending: Arc<Pending>,
    ids: Mutex<Ids>,
    store: Store,
    /// What waits for the writer: bounded by [`Backlog::admit`].
    backlog: Arc<Backlog>,
    /// Each player's and address's hour.
    quotas: Quotas,
    /// The data directory's free space is below `--disk-stop-below`.
    low_disk: AtomicBool,
    metrics: Arc<Metrics>,
    /// Wakes the verifier: results written elsewhere (a ladder's) are checked now.
    verify: Arc<Notify>,
}

impl Drop for Shared {
    /// The last handle is gone: the writer writes what is left and stops.
    fn drop(&mut self) {
        self.pending.close();
    }
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

impl Recorder {
    /// Start the writer, the verifier and the sweep on `store`. (Recordings left open
    /// by a crash are closed before, by the server's start-up: [`close_left_open`].)
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub async fn start(
        store: Store,
        contexts: Contexts,
        keep: Retention,
        metrics: Arc<Metrics>,
    ) -> Result<Recorder, StoreError> {
        let ids = store.recording_ids().await?;
        let pending = Arc::new(Pending::default());
        let verify = Arc::new(Notify::new());
        let backlog = Arc::new(Backlog::default());
        tokio::spawn(write_loop(
            store.clone(),
            Arc::clone(&pending),
            Arc::clone(&verify),
            Arc::clone(&metrics),
            Arc::clone(&backlog),
        ));
        tokio::spawn(verify_loop(store.clone(), contexts, Arc::clone(&verify)));
        tokio::spawn(super::sweep::sweep_loop(store.clone(), keep));
        Ok(Recorder(Arc::new(Shared {
            pending,
            ids: Mutex::new(Ids {
                current: ids,
                spare: None,
                fetching: false,
            }),
            store,
            backlog,
            quotas: Quotas::default(),
            low_disk: AtomicBool::new(false),
            metrics,
            verify,
        })))
    }

    /// The data directory's free space went below `--disk-stop-below` (`true`) or back
    /// above it: games stop recording, or new ones are recorded again.
    pub fn set_low_disk(&self, low: bool) {
        self.0.low_disk.store(low, Ordering::Relaxed);
    }

    /// Whether the server is short of disk: the data directory's free space is low.
    fn low_disk(&self) -> bool {
        self.0.low_disk.load(Ordering::Relaxed)
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

    /// Send a change that each game sends a bounded number of times (its states), room
    /// or not: the queue stays bounded by the games being played.
    fn send(&self, change: Change) {
        self.0.backlog.add(weight(&change));
        self.0.pending.change(change);
    }

    /// Send a change if the queue has room for it (and the disk is not low): whether
    /// it was sent.
    fn try_send(&self, change: Change) -> bool {
        if self.low_disk() || !self.0.backlog.admit(weight(&change)) {
            return false;
        }
        self.0.pending.change(change);
        true
    }

    /// Send input line number `first` of recording `id` if the queue has room for it
    /// (and the disk is not low): whether it was sent.
    fn try_input(&self, row: &mut Row, id: i64, first: u64, at_ms: u64, line: &str) -> bool {
        if self.low_disk() || !self.0.backlog.admit(line_weight(line.len())) {
            return false;
        }
        self.0.pending.input(row, id, first, at_ms, line);
        true
    }

    /// A result was written outside the writer (a ladder's): check it by replay now
    /// rather than at the verifier's next round.
    pub fn verify_soon(&self) {
        self.0.verify.notify_one();
    }

    /// Wait until everything sent so far is written (or `timeout` passes: the
    /// database may be down). Whether it was.
    pub async fn flush(&self, timeout: Duration) -> bool {
        let (done, wait) = oneshot::channel();
        self.0.pending.flush(done);
        matches!(tokio::time::timeout(timeout, wait).await, Ok(Ok(())))
    }

    /// Start recording a game, of leaderboard level `level`, in race number `race` if
    /// any: not recorded (the player told why, [`Tape::take_notice`]) when the server is
    /// short of disk or the player past their hour's quota. A ladder's game (`ladder`)
    /// is not counted against the games an hour: an admin chose how many seeds the
    /// ladder has, and each must be recorded for its result to count; its bytes are.
    pub fn open(
        &self,
        player: Player,
        start: recording::Start,
        level: String,
        race: Option<u32>,
        ladder: bool,
    ) -> Tape {
        if self.low_disk() {
            return Tape::new(self.clone(), 0, player, &start, level)
                .unrecorded(Notice::ShortOfDisk);
        }
        let counted = if ladder {
            Ok(())
        } else {
            self.0
                .quotas
                .game(&player.key, player.address, Instant::now())
        };
        if let Err(refused) = counted {
            // Debug only: a client typing `play` again and again must not fill the log.
            tracing::debug!(player = %player.name, address = %player.address, ?refused, "games per hour past the quota: this game is not recorded");
            return Tape::new(self.clone(), 0, player, &start, level).unrecorded(Notice::OverQuota);
        }
        let Some(id) = self.take_id() else {
            tracing::error!(player = %player.name, "no recording ids left (the database has been out of reach): this game is not recorded");
            return Tape::new(self.clone(), 0, player, &start, level)
                .unrecorded(Notice::NoDatabase);
        };
        let tape = Tape::new(self.clone(), id, player, &start, level);
        let open = Change::Open(Box::new(NewRecording {
            id,
            player: tape.player.name.to_string(),
            player_key: tape.player.key.to_string(),
            registered: tape.player.registered,
            start,
            level: tape.level.to_string(),
            race: race.map(i64::from),
            started_at: now_ms(),
        }));
        if !self.try_send(open) {
            return tape.unrecorded(Notice::ShortOfDisk);
        }
        tape
    }

    /// Carry on recording `listed` (a resumed game, whose `recording` was played
    /// again to where it stopped; `helped`: help was asked for since its last result).
    pub fn reopen(
        &self,
        player: Player,
        listed: &Listed,
        recording: &Recording,
        level: String,
        helped: bool,
    ) -> Tape {
        self.mark_open(listed.id);
        let played = (recording.inputs.len() as u64, listed.duration_ms);
        self.tape_of(player, (listed, recording), level, helped, played)
    }

    /// Carry on recording `listed`, a game moved here by an upgrade (SPEC section 11)
    /// with `played` so far (inputs, milliseconds), whose `recording` was played again
    /// to where it stopped. It is still open, and nothing is written until the new
    /// process has taken every session ([`Tape::claim`]): if it cannot, the old one
    /// carries on as if nothing happened.
    pub fn carry_on(
        &self,
        player: Player,
        (listed, recording): (&Listed, &Recording),
        level: String,
        helped: bool,
        played: (u64, u64),
    ) -> Tape {
        self.tape_of(player, (listed, recording), level, helped, played)
    }

    /// Recording `id` is open again, this instance's.
    fn mark_open(&self, id: i64) {
        self.send(Change::State {
            id,
            state: RecordingState::Open,
            outcome: None,
            played: None,
        });
    }

    /// The tape of a recording taken up again, with `(inputs, duration_ms)` played.
    fn tape_of(
        &self,
        player: Player,
        (listed, recording): (&Listed, &Recording),
        level: String,
        helped: bool,
        (inputs, duration_ms): (u64, u64),
    ) -> Tape {
        let mut tape = Tape::new(self.clone(), listed.id, player, &recording.start, level);
        tape.offset_ms = duration_ms;
        tape.inputs = inputs;
        tape.helped = helped;
        tape
    }

    /// Give up `player_key`'s unfinished game (unless the queue is full: then it stays
    /// resumable).
    pub fn discard(&self, player_key: String) {
        if !self.try_send(Change::Discard { player_key }) {
            tracing::debug!("an unfinished game not discarded: the recorder's queue is full");
        }
    }
}

/// Who plays a recorded game. A tape keeps it as long as its game runs, in every
/// session that plays one: shared strings, 16 bytes each rather than 24, and the
/// seat's own name rather than a copy (a name already in lower case, as every guest's,
/// is its own key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    /// As shown.
    pub name: Arc<str>,
    /// In lower case.
    pub key: Arc<str>,
    /// A registered name.
    pub registered: bool,
    /// A guest (`guest-N`): no results.
    pub guest: bool,
    /// A bot (SPEC section 12): its results are ranked apart from people's.
    pub bot: bool,
    /// Where the player connects from, for the address's quota.
    pub address: IpAddr,
}

/// The game a tape records: the catalog's entry, with no allocation of its own, or
/// the name as recorded for a resumed game that the catalog no longer has. 16 bytes
/// rather than a `Cow`'s 24 (the entry's pointer fits beside the box's niche), so
/// that every tape is one malloc chunk smaller (issue 29's row 5).
#[derive(Debug)]
enum GameName {
    Catalog(&'static GameKind),
    Other(Box<str>),
}

impl GameName {
    fn of(name: &str) -> GameName {
        GameKind::from_name(name).map_or_else(|| GameName::Other(name.into()), GameName::Catalog)
    }

    fn as_str(&self) -> &str {
        match self {
            GameName::Catalog(kind) => kind.name,
            GameName::Other(name) => name,
        }
    }
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
    game: GameName,
    args: Box<str>,
    /// The leaderboard level the game started on.
    level: Box<str>,
    /// How the last finish ended, for the recording's list.
    outcome: Option<Outcome>,
    /// Input bytes recorded so far.
    bytes: u64,
    /// Past [`MAX_RECORDED_BYTES`], a quota, or short of disk: no more input is
    /// recorded.
    cut: bool,
    /// Whether the game has a recording at all (it has unless no id was left, a
    /// quota was reached, or the server was short of disk when it began).
    recorded: bool,
    /// Input bytes taken from the player's quotas and not used yet.
    allowance: u64,
    /// What to tell the player about the recording, once.
    notice: Option<Notice>,
    /// Where its input lines go in the writer's batch.
    row: Row,
    /// `/hint` or `/solve` was answered since the last result: the next one is marked
    /// helped (SPEC section 13).
    helped: bool,
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
            game: GameName::of(&start.game),
            args: start.args.join(" ").into_boxed_str(),
            level: level.into_boxed_str(),
            outcome: None,
            bytes: 0,
            cut: false,
            recorded: true,
            allowance: 0,
            notice: None,
            row: Row::default(),
            helped: false,
        }
    }

    /// This tape, for a game that is not recorded at all, its player told `notice`.
    fn unrecorded(mut self, notice: Notice) -> Tape {
        self.cut = true;
        self.recorded = false;
        self.notice = Some(notice);
        self.recorder.0.metrics.recordings_stopped.inc();
        self
    }

    /// What the player must be told about this game's recording (it stopped, and
    /// why), once: `None` ever after.
    pub fn take_notice(&mut self) -> Option<&'static str> {
        self.notice.take().map(Notice::text)
    }

    /// Stop recording: no more input, no results, no resume. The recording is closed
    /// at once, so that a restart or a resume never takes it for a game to play on.
    fn cut(&mut self, notice: Notice) {
        self.cut = true;
        self.notice = Some(notice);
        self.recorder.0.metrics.recordings_stopped.inc();
        if self.recorded {
            self.recorder.send(Change::State {
                id: self.id,
                state: RecordingState::Ended,
                outcome: None,
                played: Some(Played {
                    inputs: self.inputs,
                    duration_ms: self.elapsed_ms(),
                }),
            });
        }
    }

    /// The game's arguments, as recorded.
    pub fn args(&self) -> &str {
        &self.args
    }

    /// The recording's id, when the game is recorded from its start (a ladder's result
    /// names the recording its replay checks).
    pub fn recording_id(&self) -> Option<i64> {
        (self.recorded && !self.cut && self.id > 0).then_some(self.id)
    }

    fn elapsed_ms(&self) -> u64 {
        self.offset_ms
            .saturating_add(u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX))
    }

    /// A line the game got: recorded, unless that goes past the game's size, the
    /// player's quota or the queue's room (then the recording stops, and
    /// [`Tape::take_notice`] says so).
    pub fn input(&mut self, line: &str) {
        self.helped |= recording::is_help(line);
        if self.cut {
            return;
        }
        let cost = line.len() as u64 + 8;
        self.bytes += cost;
        if self.bytes > MAX_RECORDED_BYTES {
            tracing::warn!(recording = self.id, player = %self.player.name, "a game's recording reached its size limit: the rest of the game is not recorded");
            self.cut(Notice::TooLong);
            return;
        }
        if self.allowance < cost {
            let chunk = cost.max(quota::CHUNK);
            let player = &self.player;
            match self
                .recorder
                .0
                .quotas
                .bytes(&player.key, player.address, Instant::now(), chunk)
            {
                Ok(()) => self.allowance += chunk,
                Err(refused) => {
                    tracing::info!(recording = self.id, player = %player.name, address = %player.address, ?refused, "input bytes per hour past the quota: the rest of the game is not recorded");
                    self.cut(Notice::OverQuota);
                    return;
                }
            }
        }
        self.allowance -= cost;
        let at_ms = self.elapsed_ms();
        let sent = self
            .recorder
            .try_input(&mut self.row, self.id, self.inputs, at_ms, line);
        if !sent {
            self.cut(Notice::ShortOfDisk);
            return;
        }
        self.inputs += 1;
    }

    /// A level solved or the game ended by its rules: a result for a named player.
    pub fn finish(&mut self, finish: Finish) {
        self.outcome = Some(finish.outcome);
        let helped = std::mem::take(&mut self.helped);
        if self.player.guest || self.cut {
            return;
        }
        let level = finish
            .level
            .clone()
            .unwrap_or_else(|| self.level.to_string());
        let sent = self.recorder.try_send(Change::Result(Box::new(NewResult {
            recording_id: self.id,
            upto: self.inputs,
            player: self.player.name.to_string(),
            player_key: self.player.key.to_string(),
            registered: self.player.registered,
            bot: self.player.bot,
            game: self.game.as_str().to_string(),
            level,
            args: self.args.to_string(),
            duration_ms: i64::try_from(self.elapsed_ms()).unwrap_or(i64::MAX),
            finished_at: now_ms(),
            finish,
            helped,
        })));
        if !sent {
            // A result the store cannot take now: the game goes on unrecorded rather
            // than leave a recording whose results are missing.
            self.cut(Notice::ShortOfDisk);
        }
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

    /// What was played so far: inputs recorded and the time played, in milliseconds.
    /// A game moving to a new server process (SPEC section 11) carries them there:
    /// the new process checks the recording it replays against them and goes on
    /// counting from them. The tape is then [`Tape::moved`], or goes on here if the
    /// upgrade fails.
    pub fn played(&self) -> (u64, u64) {
        (self.inputs, self.elapsed_ms())
    }

    /// The game moved to the new server process, which records it now: this tape
    /// writes nothing more.
    pub fn moved(self) {}

    /// This process records the game from now on (the new one, once it has taken every
    /// session in an upgrade; the old one, when the upgrade failed): on a shared store
    /// (PostgreSQL), where an open recording names the instance that holds it, it is
    /// marked this instance's. Nothing to write on SQLite.
    pub fn claim(&self) {
        if self.recorded && !self.cut && self.recorder.0.store.is_shared() {
            self.recorder.mark_open(self.id);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every session in a recorded game holds a boxed tape: at 184 bytes or less it is
    /// a 192-byte malloc chunk, where 200 (the game's name as a `Cow`, the batch's
    /// row in 64-bit fields) took 208 (issue 29's row 5).
    #[test]
    fn a_tape_fits_a_192_byte_malloc_chunk() {
        assert!(
            std::mem::size_of::<Tape>() <= 184,
            "a tape is {} bytes",
            std::mem::size_of::<Tape>()
        );
        assert_eq!(std::mem::size_of::<GameName>(), 16);
        assert_eq!(GameName::of("SOKOBAN").as_str(), "sokoban");
        assert_eq!(GameName::of("gone").as_str(), "gone");
    }
}
