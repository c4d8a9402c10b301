//! Keeping every game (SPEC section 8): one writer for all recordings and results,
//! the check of each result by replay, and the sweep of old recordings.
//!
//! A session never waits on the database: each input line becomes a message to the
//! one writer task (an unbounded channel send), which merges what came in and writes
//! it in one transaction at least every [`WRITE_EVERY`], at once when someone waits for
//! it ([`Recorder::flush`], used before a resume reads a recording back), and at the
//! end. A crash (SIGKILL) can lose the last [`WRITE_EVERY`] of input lines; a failed
//! write (disk full, file locked) is logged and retried with the batch kept in memory,
//! so the sessions go on playing.
//!
//! A result is written unchecked; the verifier task then replays its recording from
//! the start, off the event loop, and only a result whose replay reaches the same end
//! enters the leaderboards. A mismatch is logged and the result kept out. With several
//! instances on one PostgreSQL each runs a verifier and a sweep: a result's first mark
//! stands ([`Store::set_verified`]), and the sweep skips rows another is deleting.
//!
//! Recordings are numbered here, from the ids the store hands out
//! ([`Store::recording_ids`]): on PostgreSQL a block at a time, the next one fetched in
//! the background, so that starting a game never waits for the database.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::{mpsc, oneshot, Notify};

use crate::catalog::table::{Context, Contexts};
use crate::games::{Finish, Outcome};
use crate::metrics::Metrics;
use crate::records::recording::{self, Recording};
use crate::store::{
    Change, Listed, NewRecording, NewResult, Pending, Played, RecordingState, Store, StoreError,
    RECORDING_ID_BLOCK,
};

/// The longest input lines wait in memory before they are written.
pub const WRITE_EVERY: Duration = Duration::from_secs(1);

/// Changes merged into one transaction at most.
const MAX_BATCH: usize = 20_000;

/// Input bytes that make the writer write at once, however recent: a client typing
/// at full speed does not pile up a second of input in memory.
const MAX_BATCH_BYTES: usize = 256 * 1024;

/// The input a game's recording keeps at most (about 200,000 moves). Past it the game
/// goes on unrecorded: its recording says it was cut, it gives no more results, and it
/// cannot be resumed (a replay would not reach where it is). A client cannot fill the
/// disk with one game.
pub const MAX_RECORDED_BYTES: u64 = 4 * 1024 * 1024;

/// Results checked per round trip to the database and to a blocking thread.
const VERIFY_BATCH: u32 = 200;

/// How often the recorder logs what it did (when it did anything).
const REPORT_EVERY: Duration = Duration::from_secs(10);

/// How often old recordings are swept, and how many go per transaction.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);
const SWEEP_BATCH: u32 = 500;

/// How long recordings of guests (and results-less games) are kept by default.
pub const DEFAULT_KEEP: Duration = Duration::from_secs(90 * 24 * 3600);

/// What goes to the writer.
enum Note {
    Change(Change),
    /// Answer once everything sent before is in the database.
    Flush(oneshot::Sender<()>),
}

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

impl std::fmt::Debug for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Note")
    }
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

/// The writer: merges what comes in, writes it at least every [`WRITE_EVERY`].
async fn write_loop(
    store: Store,
    mut receiver: mpsc::UnboundedReceiver<Note>,
    verify: Arc<Notify>,
    metrics: Arc<Metrics>,
) {
    let mut batch = Batch::default();
    let mut waiting: Vec<oneshot::Sender<()>> = Vec::new();
    let mut notes = Vec::with_capacity(1024);
    let mut tick = tokio::time::interval(WRITE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Since when writes fail, and when the last one was tried.
    let mut failing: Option<(Instant, Instant)> = None;
    let mut report = Report::default();
    let mut closed = false;
    while !closed || !batch.is_empty() {
        let due = tokio::select! {
            received = receiver.recv_many(&mut notes, 1024), if !closed => {
                if received == 0 {
                    closed = true;
                }
                for note in notes.drain(..) {
                    match note {
                        Note::Change(change) => batch.push(change),
                        Note::Flush(done) => waiting.push(done),
                    }
                }
                closed
                    || !waiting.is_empty()
                    || batch.len() >= MAX_BATCH
                    || batch.bytes >= MAX_BATCH_BYTES
            }
            _ = tick.tick() => true,
        };
        // The backlog: what was sent and is not written yet.
        let backlog = batch.sent + receiver.len() as u64;
        report.largest_backlog = report.largest_backlog.max(backlog);
        metrics
            .store_queue
            .set(i64::try_from(backlog).unwrap_or(i64::MAX));
        if !due {
            continue;
        }
        if failing.is_some_and(|(_, tried)| tried.elapsed() < WRITE_EVERY) && !closed {
            // Retry on the next tick, not on every message.
            continue;
        }
        if !batch.is_empty() {
            let (changes, sent) = batch.take();
            match store.write(&changes).await {
                Ok(()) => {
                    if let Some((since, _)) = failing.take() {
                        tracing::warn!(
                            after = ?since.elapsed(),
                            "recordings are written again"
                        );
                    }
                    report.written += sent;
                    metrics.store_writes.inc_by(sent);
                    metrics.store_transactions.inc();
                    metrics
                        .store_queue
                        .set(i64::try_from(receiver.len()).unwrap_or(i64::MAX));
                    if changes
                        .iter()
                        .any(|change| matches!(change, Change::Result(_)))
                    {
                        verify.notify_one();
                    }
                }
                Err(error) => {
                    metrics.store_failures.inc();
                    let now = Instant::now();
                    match &mut failing {
                        Some((_, tried)) => *tried = now,
                        None => {
                            tracing::error!(%error, "cannot write recordings: keeping them in memory and retrying");
                            failing = Some((now, now));
                        }
                    }
                    batch.put_back(changes, sent);
                    if closed {
                        tracing::error!(
                            lost = batch.len(),
                            "the server stops with recordings not written"
                        );
                        return;
                    }
                    continue;
                }
            }
        }
        for done in waiting.drain(..) {
            let _ = done.send(());
        }
        report.maybe_log(batch.sent + receiver.len() as u64);
    }
}

/// What the writer logs every [`REPORT_EVERY`].
struct Report {
    since: Instant,
    written: u64,
    largest_backlog: u64,
}

impl Default for Report {
    fn default() -> Report {
        Report {
            since: Instant::now(),
            written: 0,
            largest_backlog: 0,
        }
    }
}

impl Report {
    fn maybe_log(&mut self, backlog: u64) {
        if self.since.elapsed() < REPORT_EVERY {
            return;
        }
        if self.written > 0 {
            tracing::info!(
                written = self.written,
                backlog,
                largest_backlog = self.largest_backlog,
                "recorder: changes written in the last 10 s"
            );
        }
        *self = Report::default();
    }
}

/// Changes waiting, in order, with a recording's input lines merged into one row:
/// a recording's lines come in order, so those of one batch follow each other.
#[derive(Default)]
struct Batch {
    changes: Vec<Change>,
    /// Input bytes in `changes`.
    bytes: usize,
    /// Changes sent that are in `changes` (merged input lines count one each).
    sent: u64,
    /// Where each recording's input row of this batch is in `changes`.
    inputs_at: HashMap<i64, usize>,
}

impl Batch {
    fn push(&mut self, change: Change) {
        self.sent += 1;
        if let Change::Inputs { id, lines, .. } = &change {
            self.bytes += lines.len();
            if let Some(Change::Inputs { lines: kept, .. }) = self
                .inputs_at
                .get(id)
                .and_then(|&at| self.changes.get_mut(at))
            {
                kept.push_str(lines);
                return;
            }
            self.inputs_at.insert(*id, self.changes.len());
        }
        self.changes.push(change);
    }

    fn len(&self) -> usize {
        self.changes.len()
    }

    fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The changes to write, and how many sends they stand for.
    fn take(&mut self) -> (Vec<Change>, u64) {
        self.inputs_at.clear();
        self.bytes = 0;
        (
            std::mem::take(&mut self.changes),
            std::mem::take(&mut self.sent),
        )
    }

    /// A batch that failed goes back in front of what came since.
    fn put_back(&mut self, mut failed: Vec<Change>, sent: u64) {
        let (newer, newer_sent) = self.take();
        failed.extend(newer);
        self.changes = failed;
        self.sent = sent + newer_sent;
    }
}

/// Whether replaying `recording` reaches the result `pending` says it did.
pub fn check(recording: &Recording, pending: &Pending, context: &Context) -> Result<(), String> {
    let finishes = recording::finishes(
        recording,
        usize::try_from(pending.upto).unwrap_or(usize::MAX),
        context,
    )
    .map_err(|error| error.to_string())?;
    let Some(last) = finishes.last() else {
        return Err(String::from("the replay reaches no end"));
    };
    if Some(last) == pending.finish.as_ref() {
        Ok(())
    } else {
        Err(format!(
            "the replay ends with {last:?}, the result says {:?}",
            pending.finish
        ))
    }
}

/// Check every unchecked result, now and whenever the writer wrote new ones.
async fn verify_loop(store: Store, contexts: Contexts, verify: Arc<Notify>) {
    let mut checked = 0u64;
    let mut cpu = Duration::ZERO;
    let mut last_report = Instant::now();
    loop {
        // The levels of now: a result is checked against the files its game started
        // with unless they were reloaded in between (README, "Races and teachers").
        match verify_pending(&store, &contexts.current()).await {
            Ok((count, spent)) => {
                checked += count;
                cpu += spent;
            }
            Err(error) => tracing::error!(%error, "cannot check results now; retrying"),
        }
        if checked > 0 && last_report.elapsed() >= REPORT_EVERY {
            let each = cpu.as_micros() / u128::from(checked.max(1));
            tracing::info!(
                checked,
                replay_us_each = each as u64,
                "results checked by replay in the last 10 s"
            );
            checked = 0;
            cpu = Duration::ZERO;
            last_report = Instant::now();
        }
        // Woken by the writer; the timeout retries after a failure.
        let _ = tokio::time::timeout(Duration::from_secs(10), verify.notified()).await;
    }
}

/// Check the unchecked results, in batches; how many, and the time their replays took.
async fn verify_pending(
    store: &Store,
    context: &Arc<Context>,
) -> Result<(u64, Duration), StoreError> {
    let mut count = 0;
    let mut spent = Duration::ZERO;
    loop {
        let pending = store.pending_results(VERIFY_BATCH).await?;
        if pending.is_empty() {
            return Ok((count, spent));
        }
        let mut work = Vec::with_capacity(pending.len());
        for result in pending {
            let recording = match recording::load(store, result.recording_id).await {
                Ok(Some((_, recording))) => Ok(recording),
                Ok(None) => Err(String::from("its recording is gone")),
                Err(StoreError::Damaged(why)) => Err(why),
                Err(error) => return Err(error),
            };
            work.push((result, recording));
        }
        // One trip to a blocking thread for the whole batch of replays.
        let context = Arc::clone(context);
        let checked = tokio::task::spawn_blocking(move || {
            let began = Instant::now();
            let verdicts: Vec<(Pending, Result<(), String>)> = work
                .into_iter()
                .map(|(result, recording)| {
                    let verdict =
                        recording.and_then(|recording| check(&recording, &result, &context));
                    (result, verdict)
                })
                .collect();
            (verdicts, began.elapsed())
        })
        .await;
        let Ok((verdicts, took)) = checked else {
            tracing::error!("checking results failed (a bug); they are checked again later");
            return Ok((count, spent));
        };
        spent += took;
        count += verdicts.len() as u64;
        for (result, verdict) in &verdicts {
            if let Err(why) = verdict {
                tracing::warn!(result = result.id, recording = result.recording_id, %why, "a result does not replay to its end: kept out of the leaderboards");
            }
        }
        let marks: Vec<(i64, bool)> = verdicts
            .iter()
            .map(|(result, verdict)| (result.id, verdict.is_ok()))
            .collect();
        store.set_verified(&marks).await?;
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
