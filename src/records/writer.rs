//! The recorder's writer task and what waits for it. Every change the sessions' tapes
//! make (recordings opened, input lines, results, states) is put, under a lock held
//! for a few instructions, into one [`Pending`] batch in the order it was made, a
//! recording's input lines appended to its one row of the batch; the writer takes the
//! whole batch and writes it to the store in one transaction every [`WRITE_EVERY`], at
//! once when someone waits for it (a flush) or too much input piles up, and at the
//! end. A line costs its tape no message, no allocation and no wake-up of the writer
//! (each cost it once; docs/BENCHMARKS.md, issue 29, measures the difference and
//! where a recorded command's cost really is: the database). A failed write (disk full, file locked) is logged
//! and retried with the batch kept in memory, so the sessions go on playing.
//!
//! What waits is bounded by its size: the [`Backlog`] counts the bytes put in and not
//! yet written, and past [`MAX_QUEUED_BYTES`] the tapes stop recording (their players
//! are told), so that a store that cannot write (a full disk, a database down) costs
//! a fixed amount of memory however long it lasts. A full disk once grew the server by
//! 9.3 GB in 25 seconds.

use super::REPORT_EVERY;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, Notify};

use crate::metrics::Metrics;
use crate::records::recording::encode_input;
use crate::store::{Change, Store};

/// The longest input lines wait in memory before they are written.
pub const WRITE_EVERY: Duration = Duration::from_secs(1);

/// The longest written input lines wait in the store's log before they move to their
/// places ([`Store::compact_inputs`]): a minute of a quiet server's lines.
pub const COMPACT_EVERY: Duration = Duration::from_secs(60);

/// Rows of input lines in the store's log that make the writer move them at once: a
/// busy server's every 10 to 20 s. What a reader of an open recording scans of the
/// log is bounded by it, and a move's cost is a page per recording moved, whatever
/// its rows (docs/BENCHMARKS.md, run BN).
pub const COMPACT_ROWS: u64 = 200_000;

/// Changes (a recording's lines of a batch count one) that make the writer write at
/// once.
const MAX_BATCH: usize = 20_000;

/// Input bytes that make the writer write at once, however recent: a client typing
/// at full speed does not pile up a second of input in memory.
const MAX_BATCH_BYTES: usize = 256 * 1024;

/// The most the changes waiting for the writer may weigh ([`weight`]): about 100,000
/// moves, some ten seconds of 10,000 players typing at once. Past it, input is no
/// longer recorded until the writes go through again.
pub const MAX_QUEUED_BYTES: u64 = 16 * 1024 * 1024;

/// What a change weighs beyond its text: the batch's slot and the change's own
/// allocation, rounded up.
const CHANGE_BYTES: u64 = 128;

/// What an input line weighs beyond its text: its time and its share of the row's
/// growth, rounded up.
const LINE_BYTES: u64 = 16;

/// What a change weighs in the queue: its text and the memory it takes.
pub(crate) fn weight(change: &Change) -> u64 {
    let text = match change {
        Change::Inputs { lines, .. } => lines.len(),
        Change::Open(open) => {
            open.player.len()
                + open.player_key.len()
                + open.start.args.iter().map(String::len).sum::<usize>()
                + open.start.memory.len()
                + open.start.world.as_ref().map_or(0, String::len)
        }
        Change::Result(result) => {
            result.player.len() + result.game.len() + result.level.len() + result.args.len()
        }
        Change::Discard { player_key } => player_key.len(),
        Change::State { .. } => 0,
    };
    CHANGE_BYTES + text as u64
}

/// What an input line of `length` bytes weighs in the queue.
pub(crate) fn line_weight(length: usize) -> u64 {
    LINE_BYTES + length as u64
}

/// The bytes put in for the writer and not written yet ([`weight`]): the tapes add to
/// it, the writer takes off what it wrote.
#[derive(Debug, Default)]
pub(crate) struct Backlog {
    bytes: AtomicU64,
    /// It reached [`MAX_QUEUED_BYTES`] and that was logged: logged again only after
    /// it has gone down.
    full: AtomicBool,
}

impl Backlog {
    /// Count `weight` more, unless that goes past [`MAX_QUEUED_BYTES`]. Whether it
    /// was counted (then it must be put in).
    pub(crate) fn admit(&self, weight: u64) -> bool {
        let before = self.bytes.fetch_add(weight, Ordering::Relaxed);
        if before.saturating_add(weight) <= MAX_QUEUED_BYTES {
            return true;
        }
        self.bytes.fetch_sub(weight, Ordering::Relaxed);
        if !self.full.swap(true, Ordering::Relaxed) {
            tracing::error!(
                queued = before,
                "the recorder's queue is full (the database takes no writes): games are no longer recorded until it does"
            );
        }
        false
    }

    /// Count `weight` more whatever the total: a change that each game makes a
    /// bounded number of times (its state), so that the total stays bounded by the
    /// games.
    pub(crate) fn add(&self, weight: u64) {
        self.bytes.fetch_add(weight, Ordering::Relaxed);
    }

    /// `weight` was written.
    fn written(&self, weight: u64) {
        let before = self.bytes.fetch_sub(weight, Ordering::Relaxed);
        let now = before.saturating_sub(weight);
        if now < MAX_QUEUED_BYTES / 2 && self.full.swap(false, Ordering::Relaxed) {
            tracing::warn!("the recorder's queue has room again: new games are recorded");
        }
    }

    /// The bytes waiting now.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
}

/// Where a tape's recording has its row of input lines in the current batch, so that
/// the next line is appended without a look-up. Stale (and a new row made) once the
/// writer has taken that batch.
#[derive(Debug, Default, Clone, Copy)]
pub struct Row {
    // 32 bits each, so that the tape that holds it fits a smaller malloc chunk
    // (issue 29's row 5). A generation that wrapped around and an index past the
    // batch are harmless: a row is used only if it is this recording's.
    generation: u32,
    at: u32,
}

/// What the tapes have put in and the writer has not taken yet, with who waits for it
/// and whether the writer should stop.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    queue: Mutex<Queue>,
    /// Wakes the writer before its tick: a flush, too much input, the end.
    wake: Notify,
}

#[derive(Debug, Default)]
struct Queue {
    batch: Batch,
    waiting: Vec<oneshot::Sender<()>>,
    /// Every recorder handle is gone: write what is left and stop.
    closed: bool,
}

impl Pending {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // Held for a few instructions, never across an await; nothing in it can be
        // left half-changed by a panic that matters more than the batch itself.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Put in a change, after everything put in before it.
    pub(crate) fn change(&self, change: Change) {
        let full = {
            let mut queue = self.queue();
            queue.batch.push(change);
            queue.batch.is_full()
        };
        if full {
            self.wake.notify_one();
        }
    }

    /// Put in input line number `first` of recording `id`, typed `at_ms` into the
    /// game: appended to the recording's row (`row` remembers where it is).
    pub(crate) fn input(&self, row: &mut Row, id: i64, first: u64, at_ms: u64, line: &str) {
        let full = {
            let mut queue = self.queue();
            queue.batch.input(row, id, first, at_ms, line);
            queue.batch.is_full()
        };
        if full {
            self.wake.notify_one();
        }
    }

    /// Answer `done` once everything put in before is written.
    pub(crate) fn flush(&self, done: oneshot::Sender<()>) {
        let mut queue = self.queue();
        // Those who stopped waiting (their 2 s passed while the database is down) are
        // let go: the list is at most the askers still waiting.
        queue.waiting.retain(|waiter| !waiter.is_closed());
        queue.waiting.push(done);
        drop(queue);
        self.wake.notify_one();
    }

    /// No more will be put in: the writer writes what is left and stops.
    pub(crate) fn close(&self) {
        self.queue().closed = true;
        self.wake.notify_one();
    }

    /// Everything put in so far, who waits for it, and whether it is the end.
    fn take(&self) -> (Taken, Vec<oneshot::Sender<()>>, bool) {
        let mut queue = self.queue();
        let taken = queue.batch.take();
        (taken, std::mem::take(&mut queue.waiting), queue.closed)
    }

    /// The changes and lines waiting in the batch now.
    fn waiting(&self) -> u64 {
        self.queue().batch.taken.sent
    }
}

/// The writer: takes what the tapes put in and writes it every [`WRITE_EVERY`], or at
/// once when woken; wakes `verify` when it wrote a result. Returns once `pending` is
/// closed and all is written (or the store refuses it at the end).
pub(crate) async fn write_loop(
    store: Store,
    pending: Arc<Pending>,
    verify: Arc<Notify>,
    metrics: Arc<Metrics>,
    queue: Arc<Backlog>,
) {
    let mut tick = tokio::time::interval(WRITE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // What failed to be written, kept to go first next time.
    let mut unwritten = Taken::default();
    let mut waiting: Vec<oneshot::Sender<()>> = Vec::new();
    // Since when writes fail, and when the last one was tried.
    let mut failing: Option<(Instant, Instant)> = None;
    let mut report = Report::default();
    // What a crash left in the log first.
    let mut log = Log::default();
    log.compact(&store).await;
    loop {
        tokio::select! {
            () = pending.wake.notified() => {}
            _ = tick.tick() => {}
        }
        let (taken, asked, closed) = pending.take();
        waiting.retain(|waiter| !waiter.is_closed());
        waiting.extend(asked);
        unwritten.append(taken);
        let backlog = unwritten.sent;
        report.largest_backlog = report.largest_backlog.max(backlog);
        metrics
            .store_queue
            .set(i64::try_from(backlog).unwrap_or(i64::MAX));
        metrics
            .store_queue_bytes
            .set(i64::try_from(queue.bytes()).unwrap_or(i64::MAX));
        if failing.is_some_and(|(_, tried)| tried.elapsed() < WRITE_EVERY) && !closed {
            // Retry on the next tick, not on every wake-up.
            continue;
        }
        if !unwritten.changes.is_empty() {
            match store.write(&unwritten.changes).await {
                Ok(()) => {
                    let written = std::mem::take(&mut unwritten);
                    queue.written(written.weight);
                    if let Some((since, _)) = failing.take() {
                        tracing::warn!(
                            after = ?since.elapsed(),
                            "recordings are written again"
                        );
                    }
                    log.logged += written
                        .changes
                        .iter()
                        .filter(|change| matches!(change, Change::Inputs { .. }))
                        .count() as u64;
                    report.written += written.sent;
                    metrics.store_writes.inc_by(written.sent);
                    metrics.store_transactions.inc();
                    metrics
                        .store_queue
                        .set(i64::try_from(pending.waiting()).unwrap_or(i64::MAX));
                    if written
                        .changes
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
                    if closed {
                        tracing::error!(
                            lost = unwritten.changes.len(),
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
        if closed || log.due(Instant::now()) {
            log.compact(&store).await;
        }
        if closed {
            return;
        }
        report.maybe_log(pending.waiting());
    }
}

/// The input lines written to the store's log and not moved yet: when to move them.
#[derive(Debug)]
struct Log {
    /// Rows written since the last move.
    logged: u64,
    /// When the last move was done or tried.
    moved_at: Instant,
    /// The last move failed: the next waits [`COMPACT_EVERY`], however many rows.
    failed: bool,
}

impl Default for Log {
    fn default() -> Log {
        Log {
            logged: 0,
            moved_at: Instant::now(),
            failed: false,
        }
    }
}

impl Log {
    /// Whether the rows written should move now: many, or waiting long.
    fn due(&self, now: Instant) -> bool {
        let waited = now.duration_since(self.moved_at);
        if self.failed {
            return waited >= COMPACT_EVERY;
        }
        self.logged >= COMPACT_ROWS || (self.logged > 0 && waited >= COMPACT_EVERY)
    }

    /// Move them. A failure is logged and the move tried again after
    /// [`COMPACT_EVERY`]: the lines are read from the log meanwhile.
    async fn compact(&mut self, store: &Store) {
        let started = Instant::now();
        self.moved_at = started;
        match store.compact_inputs().await {
            Ok(moved) => {
                self.logged = 0;
                self.failed = false;
                tracing::debug!(moved, took = ?started.elapsed(), "input lines moved to their places");
            }
            Err(error) => {
                self.failed = true;
                tracing::warn!(%error, "cannot move the logged input lines: trying again later");
            }
        }
    }
}

/// What the writer logs every [`super::REPORT_EVERY`].
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

/// Changes waiting, in order, with a recording's input lines of the batch in one row:
/// a recording's lines come in order, so those of one batch follow each other.
/// Public for the micro-benchmarks (`benches/records.rs`).
#[derive(Debug, Default)]
pub struct Batch {
    taken: Taken,
    /// Input bytes in `taken`.
    bytes: usize,
    /// Which batch this is: a [`Row`] of another is stale.
    generation: u32,
}

/// A batch's changes as the writer takes them.
#[derive(Debug, Default)]
struct Taken {
    changes: Vec<Change>,
    /// Changes and lines put in (a recording's lines count one each).
    sent: u64,
    /// What they weigh in the [`Backlog`].
    weight: u64,
}

impl Taken {
    /// `newer` after these.
    fn append(&mut self, mut newer: Taken) {
        if self.changes.is_empty() {
            *self = newer;
            return;
        }
        self.changes.append(&mut newer.changes);
        self.sent += newer.sent;
        self.weight += newer.weight;
    }
}

impl Batch {
    /// Add `change` after the others (input lines go through [`Batch::input`]).
    pub fn push(&mut self, change: Change) {
        self.taken.sent += 1;
        self.taken.weight += weight(&change);
        self.taken.changes.push(change);
    }

    /// Add input line number `first` of recording `id`, typed `at_ms` into the game,
    /// to the recording's row (found through `row`, or made and remembered there).
    pub fn input(&mut self, row: &mut Row, id: i64, first: u64, at_ms: u64, line: &str) {
        self.taken.sent += 1;
        self.taken.weight += line_weight(line.len());
        let kept = if row.generation == self.generation {
            match usize::try_from(row.at)
                .ok()
                .and_then(|at| self.taken.changes.get_mut(at))
            {
                Some(Change::Inputs {
                    id: kept, lines, ..
                }) if *kept == id => Some(lines),
                _ => None,
            }
        } else {
            None
        };
        let added = match kept {
            Some(lines) => {
                let before = lines.len();
                encode_input(at_ms, line, lines);
                lines.len() - before
            }
            None => {
                let mut lines = String::with_capacity(line.len() + 16);
                encode_input(at_ms, line, &mut lines);
                let length = lines.len();
                *row = Row {
                    generation: self.generation,
                    at: u32::try_from(self.taken.changes.len()).unwrap_or(u32::MAX),
                };
                self.taken.changes.push(Change::Inputs { id, first, lines });
                length
            }
        };
        self.bytes += added;
    }

    /// Whether the writer should write it at once.
    pub fn is_full(&self) -> bool {
        self.taken.changes.len() >= MAX_BATCH || self.bytes >= MAX_BATCH_BYTES
    }

    /// The changes in it, in order.
    pub fn changes(&self) -> &[Change] {
        &self.taken.changes
    }

    /// Everything in it; it starts again empty, as a new generation.
    fn take(&mut self) -> Taken {
        self.bytes = 0;
        self.generation = self.generation.wrapping_add(1);
        std::mem::take(&mut self.taken)
    }

    /// Empty it, keeping nothing (for the micro-benchmarks: what the writer's take
    /// does, the changes then dropped).
    pub fn clear(&mut self) {
        drop(self.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::RecordingState;

    fn state(id: i64) -> Change {
        Change::State {
            id,
            state: RecordingState::Ended,
            outcome: None,
            played: None,
        }
    }

    /// The rows of input as (id, first, lines), and each other change as its id.
    fn shape(changes: &[Change]) -> Vec<(i64, Option<u64>, String)> {
        changes
            .iter()
            .map(|change| match change {
                Change::Inputs { id, first, lines } => (*id, Some(*first), lines.clone()),
                Change::State { id, .. } => (*id, None, String::new()),
                _ => (0, None, String::new()),
            })
            .collect()
    }

    #[test]
    fn a_recordings_lines_of_one_batch_share_a_row_in_order() {
        let mut batch = Batch::default();
        let (mut one, mut two) = (Row::default(), Row::default());
        batch.input(&mut one, 1, 0, 5, "w");
        batch.input(&mut two, 2, 3, 6, "d");
        batch.push(state(9));
        batch.input(&mut one, 1, 1, 7, "a\nb");
        batch.input(&mut two, 2, 4, 8, "s");
        assert_eq!(
            shape(batch.changes()),
            vec![
                (1, Some(0), "5 w\n7 a\\nb\n".to_string()),
                (2, Some(3), "6 d\n8 s\n".to_string()),
                (9, None, String::new()),
            ]
        );
        let taken = batch.take();
        assert_eq!(taken.sent, 5, "each line and change counted");
        assert_eq!(
            taken.weight,
            line_weight(1) * 3 + line_weight(3) + weight(&state(9))
        );
    }

    #[test]
    fn after_the_writer_takes_a_batch_a_line_starts_a_new_row() {
        let mut batch = Batch::default();
        let mut row = Row::default();
        batch.input(&mut row, 1, 0, 5, "w");
        batch.clear();
        assert!(batch.changes().is_empty());
        batch.push(state(2));
        batch.input(&mut row, 1, 1, 6, "a");
        assert_eq!(
            shape(batch.changes()),
            vec![(2, None, String::new()), (1, Some(1), "6 a\n".to_string())]
        );
    }

    #[test]
    fn a_row_remembered_for_another_recording_is_not_written_into() {
        let mut batch = Batch::default();
        let mut row = Row::default();
        batch.input(&mut row, 1, 0, 5, "w");
        // Another tape with the same remembered place (it cannot happen; if it did,
        // its lines must not land in recording 1's row).
        let mut copied = row;
        batch.input(&mut copied, 2, 0, 6, "a");
        assert_eq!(
            shape(batch.changes()),
            vec![
                (1, Some(0), "5 w\n".to_string()),
                (2, Some(0), "6 a\n".to_string())
            ]
        );
    }

    #[test]
    fn a_batch_is_full_at_its_bytes_or_its_changes() {
        let mut batch = Batch::default();
        let mut row = Row::default();
        let line = "x".repeat(1000);
        let mut first = 0;
        while !batch.is_full() {
            batch.input(&mut row, 1, first, 0, &line);
            first += 1;
        }
        assert_eq!(batch.changes().len(), 1, "one recording, one row");
        assert!(batch.bytes >= MAX_BATCH_BYTES && batch.bytes < MAX_BATCH_BYTES + 1100);
        let mut batch = Batch::default();
        for id in 0..MAX_BATCH as i64 {
            assert!(!batch.is_full());
            batch.push(state(id));
        }
        assert!(batch.is_full());
    }

    /// A writer task for `store`, taking what `pending` is given.
    fn writer(
        store: &Store,
        pending: &Arc<Pending>,
        backlog: Arc<Backlog>,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(write_loop(
            store.clone(),
            Arc::clone(pending),
            Arc::new(Notify::new()),
            Arc::new(Metrics::new()),
            backlog,
        ))
    }

    /// Once everything given to `pending` before is written.
    async fn flushed(pending: &Pending) {
        let (done, answer) = oneshot::channel();
        pending.flush(done);
        tokio::time::timeout(Duration::from_secs(10), answer)
            .await
            .expect("the flush answered in time")
            .unwrap();
    }

    #[tokio::test]
    async fn a_flush_is_answered_once_what_came_before_is_written() {
        let store = Store::open(&crate::store::DbUrl::Memory).await.unwrap();
        let pending = Arc::new(Pending::default());
        let backlog = Arc::new(Backlog::default());
        let writer = writer(&store, &pending, Arc::clone(&backlog));
        let mut row = Row::default();
        for (first, line) in ["w", "a"].into_iter().enumerate() {
            assert!(backlog.admit(line_weight(line.len())));
            pending.input(&mut row, 77, first as u64, 10, line);
        }
        flushed(&pending).await;
        assert_eq!(backlog.bytes(), 0, "what was written is off the backlog");
        pending.close();
        writer.await.unwrap();
    }

    #[tokio::test]
    async fn the_writer_moves_what_a_crash_left_when_it_starts_and_its_own_when_it_stops() {
        let store = Store::open(&crate::store::DbUrl::Memory).await.unwrap();
        let mut lines = String::new();
        encode_input(5, "w", &mut lines);
        store
            .write(&[Change::Inputs {
                id: 76,
                first: 0,
                lines,
            }])
            .await
            .unwrap();
        assert_eq!(store.logged_inputs().await.unwrap(), 1, "left by a crash");
        let pending = Arc::new(Pending::default());
        let writer = writer(&store, &pending, Arc::new(Backlog::default()));
        let mut row = Row::default();
        pending.input(&mut row, 77, 0, 10, "a");
        flushed(&pending).await;
        assert_eq!(
            store.logged_inputs().await.unwrap(),
            1,
            "the crash's line moved at the start, the new one logged"
        );
        pending.close();
        writer.await.unwrap();
        assert_eq!(store.logged_inputs().await.unwrap(), 0, "moved at the end");
        let moved = store.recording_inputs(77, None, 10).await.unwrap();
        assert_eq!(moved, [(0, String::from("10 a\n"))]);
    }

    #[test]
    fn logged_lines_move_when_many_or_waiting_long_and_a_failed_move_waits() {
        let start = Instant::now();
        let mut log = Log {
            logged: 0,
            moved_at: start,
            failed: false,
        };
        let later = start + COMPACT_EVERY;
        assert!(!log.due(later), "nothing logged, nothing to move");
        log.logged = 1;
        assert!(!log.due(start + COMPACT_EVERY / 2));
        assert!(log.due(later), "a quiet server's lines move after a while");
        log.logged = COMPACT_ROWS;
        assert!(log.due(start), "a busy server's move at once");
        log.failed = true;
        assert!(
            !log.due(start + WRITE_EVERY),
            "not tried again every second"
        );
        assert!(log.due(later));
    }
}
