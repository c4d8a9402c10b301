//! The recorder's writer task: every change the sessions' tapes send (recordings
//! opened, input lines, results, states) goes through one channel to this one task,
//! which merges what came in and writes it to the store in one transaction at least
//! every [`WRITE_EVERY`], at once when someone waits for it (a flush) or too much input
//! piles up, and at the end. A failed write (disk full, file locked) is logged and
//! retried with the batch kept in memory, so the sessions go on playing.
//!
//! What waits is bounded by its size, not by the channel: the [`Backlog`] counts the
//! bytes sent and not yet written, and past [`MAX_QUEUED_BYTES`] the tapes stop
//! recording (their players are told), so that a store that cannot write (a full
//! disk, a database down) costs a fixed amount of memory however long it lasts. A
//! full disk once grew the server by 9.3 GB in 25 seconds.

use super::REPORT_EVERY;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot, Notify};

use crate::metrics::Metrics;
use crate::store::{Change, Store};

/// The longest input lines wait in memory before they are written.
pub const WRITE_EVERY: Duration = Duration::from_secs(1);

/// Changes merged into one transaction at most.
const MAX_BATCH: usize = 20_000;

/// Input bytes that make the writer write at once, however recent: a client typing
/// at full speed does not pile up a second of input in memory.
const MAX_BATCH_BYTES: usize = 256 * 1024;

/// The most the changes waiting for the writer may weigh ([`weight`]): about 100,000
/// moves, some ten seconds of 10,000 players typing at once. Past it, input is no
/// longer recorded until the writes go through again.
pub const MAX_QUEUED_BYTES: u64 = 16 * 1024 * 1024;

/// What a queued message costs beyond its text: the channel's slot, the allocation,
/// the batch's bookkeeping (tokio's channel slot and a small allocation: about 100 bytes, rounded up).
const MESSAGE_BYTES: u64 = 128;

/// What a change weighs in the queue: its text and the memory a message takes.
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
    MESSAGE_BYTES + text as u64
}

/// The bytes sent to the writer and not written yet ([`weight`]): the tapes add to
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
    /// was counted (then it must be sent).
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

    /// Count `weight` more whatever the total: a change that each game sends a bounded
    /// number of times (its state), so that the total stays bounded by the games.
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

/// What goes to the writer.
pub(crate) enum Note {
    /// A change to write.
    Change(Change),
    /// Answer once everything sent before is in the database.
    Flush(oneshot::Sender<()>),
}

impl std::fmt::Debug for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Note")
    }
}

/// The writer: merges what comes in, writes it at least every [`WRITE_EVERY`]; wakes
/// `verify` when it wrote a result. Returns once every sender is gone and all is written
/// (or the store refuses it at the end).
pub(crate) async fn write_loop(
    store: Store,
    mut receiver: mpsc::UnboundedReceiver<Note>,
    verify: Arc<Notify>,
    metrics: Arc<Metrics>,
    queue: Arc<Backlog>,
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
        metrics
            .store_queue_bytes
            .set(i64::try_from(queue.bytes()).unwrap_or(i64::MAX));
        if !due {
            continue;
        }
        if failing.is_some_and(|(_, tried)| tried.elapsed() < WRITE_EVERY) && !closed {
            // Retry on the next tick, not on every message.
            continue;
        }
        if !batch.is_empty() {
            let (changes, sent, weight) = batch.take();
            match store.write(&changes).await {
                Ok(()) => {
                    queue.written(weight);
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
                    batch.put_back(changes, sent, weight);
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

/// Changes waiting, in order, with a recording's input lines merged into one row:
/// a recording's lines come in order, so those of one batch follow each other.
#[derive(Default)]
struct Batch {
    changes: Vec<Change>,
    /// Input bytes in `changes`.
    bytes: usize,
    /// Changes sent that are in `changes` (merged input lines count one each).
    sent: u64,
    /// What they weigh in the [`Backlog`].
    weight: u64,
    /// Where each recording's input row of this batch is in `changes`.
    inputs_at: HashMap<i64, usize>,
}

impl Batch {
    fn push(&mut self, change: Change) {
        self.sent += 1;
        self.weight += weight(&change);
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

    /// The changes to write, how many sends they stand for, and what they weigh.
    fn take(&mut self) -> (Vec<Change>, u64, u64) {
        self.inputs_at.clear();
        self.bytes = 0;
        (
            std::mem::take(&mut self.changes),
            std::mem::take(&mut self.sent),
            std::mem::take(&mut self.weight),
        )
    }

    /// A batch that failed goes back in front of what came since.
    fn put_back(&mut self, mut failed: Vec<Change>, sent: u64, weight: u64) {
        let (newer, newer_sent, newer_weight) = self.take();
        failed.extend(newer);
        self.changes = failed;
        self.sent = sent + newer_sent;
        self.weight = weight + newer_weight;
    }
}
