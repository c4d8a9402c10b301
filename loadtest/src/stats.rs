//! What a load test measures, while it runs and at the end.
//!
//! Latencies go into hdrhistograms (microseconds, 3 significant digits). Thousands of
//! sessions record at once, so the histograms are sharded: a session always records
//! into the shard of its index, under a lock held for one `record`. Each shard keeps
//! two histograms: one for the measured window only, merged into the report at the
//! end, and (unless the progress lines are off) a smaller one that the progress line
//! swaps out every second, so that the lock is never held for a merge: a client that
//! stalls its own sessions would blame the server for its pauses.
//!
//! Deliveries (a line of chat reaching another session, a frame reaching a watcher, a
//! race's progress line reaching another racer) are
//! kept the same way in histograms of their own, by the receiving session's shard,
//! with counts of how many were expected and how many came: a delivery that never
//! comes has no latency to record, so only the counts show it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use hdrhistogram::Histogram;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::report::{Latency, Millis};

/// How many histogram shards sessions record into.
const SHARDS: usize = 32;
/// The largest latency a histogram holds, in microseconds (larger ones saturate).
const MAX_MICROS: u64 = 120_000_000;

pub(crate) fn new_histogram() -> Histogram<u64> {
    histogram(3)
}

/// A histogram for one progress line: two significant digits are enough for a line a
/// second, and make it small enough (about 20 KiB) to merge and clear cheaply.
fn new_interval_histogram() -> Histogram<u64> {
    histogram(2)
}

fn histogram(significant_digits: u8) -> Histogram<u64> {
    // `new_with_bounds` only fails for a low bound of 0, a high bound under twice the
    // low one or more than 5 significant digits; these constants are none of those.
    Histogram::new_with_bounds(1, MAX_MICROS, significant_digits).expect("valid histogram bounds")
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

/// The histograms of one shard.
struct Shard {
    /// Every command since the last progress line, when progress is shown.
    interval: Option<Histogram<u64>>,
    /// Commands sent inside the measured window.
    measured: Histogram<u64>,
    /// Every delivery since the last progress line, when progress is shown.
    delivery_interval: Option<Histogram<u64>>,
    /// Deliveries of what was sent inside the measured window.
    delivery_measured: Histogram<u64>,
}

/// Shared by every session of a run: counters, histograms and failure reasons.
pub(crate) struct Recorder {
    shards: Box<[Mutex<Shard>]>,
    /// Cleared histograms to swap into the shards, two per shard (commands and
    /// deliveries).
    spares: Mutex<Vec<Histogram<u64>>>,
    connects: Mutex<Histogram<u64>>,
    failure_reasons: Mutex<BTreeMap<String, u64>>,
    /// Sessions that received the banner.
    pub(crate) connected: AtomicU64,
    /// Sessions in place right now: in their game, settled in the lobby (named, when
    /// names are asked for), or watching.
    pub(crate) ready: AtomicU64,
    /// Sessions that failed.
    pub(crate) failed: AtomicU64,
    /// Commands answered, warm-up included.
    pub(crate) commands: AtomicU64,
    /// Games ended and started again (`--restart-every`), warm-up included.
    pub(crate) restarts: AtomicU64,
    /// Of those, the ones whose new game was asked for in the measured window.
    pub(crate) restarts_measured: AtomicU64,
    /// Deliveries that what was sent in the measured window should make: for each
    /// line of chat, every other session in the lobby; for each command of a watched
    /// player, each of its watchers; for each move that made a race's progress line,
    /// every other racer in the race.
    deliveries_expected: AtomicU64,
    /// Of those, the deliveries received.
    deliveries_received: AtomicU64,
    /// Of those, frames the server told a watcher it dropped.
    deliveries_skipped: AtomicU64,
    /// Lines of chat said in the measured window.
    chat_lines: AtomicU64,
    /// Of those, lines the server refused as over its rate limit.
    chat_refused: AtomicU64,
    /// Racers whose game ended during the run (`--race`): they stopped sending.
    pub(crate) racers_done: AtomicU64,
    /// Racers still in their game when the measured window ended (`--race`).
    pub(crate) racers_playing: AtomicU64,
    /// Set at the end of the measured window: from then on no delivery is expected
    /// any more, and every one received may be the last.
    ended: AtomicBool,
    /// Sessions that may still send something in the measured window, and so expect
    /// more deliveries: one [`Sending`] each, taken before the sessions are spawned.
    /// Until it is zero, the deliveries counted are not the last even after the end:
    /// a line due in the window may still be on its way out.
    senders: AtomicU64,
    /// Wakes the sessions waiting for the last deliveries after the end.
    delivered: Notify,
    /// The replies to `--setup` of the first session that had them all.
    setup_replies: OnceLock<Vec<String>>,
    /// `--upgrade-after`: the stall.
    pub(crate) stall: crate::upgrade::Stall,
}

impl Recorder {
    /// A recorder; `progress` keeps the per-second histograms for progress lines.
    pub(crate) fn new(progress: bool) -> Recorder {
        let shards = (0..SHARDS)
            .map(|_| {
                Mutex::new(Shard {
                    interval: progress.then(new_interval_histogram),
                    measured: new_histogram(),
                    delivery_interval: progress.then(new_interval_histogram),
                    delivery_measured: new_histogram(),
                })
            })
            .collect();
        let spares = if progress {
            (0..2 * SHARDS).map(|_| new_interval_histogram()).collect()
        } else {
            Vec::new()
        };
        Recorder {
            shards,
            spares: Mutex::new(spares),
            connects: Mutex::new(new_histogram()),
            failure_reasons: Mutex::new(BTreeMap::new()),
            connected: AtomicU64::new(0),
            ready: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            commands: AtomicU64::new(0),
            restarts: AtomicU64::new(0),
            restarts_measured: AtomicU64::new(0),
            deliveries_expected: AtomicU64::new(0),
            deliveries_received: AtomicU64::new(0),
            deliveries_skipped: AtomicU64::new(0),
            chat_lines: AtomicU64::new(0),
            chat_refused: AtomicU64::new(0),
            racers_done: AtomicU64::new(0),
            racers_playing: AtomicU64::new(0),
            ended: AtomicBool::new(false),
            senders: AtomicU64::new(0),
            delivered: Notify::new(),
            setup_replies: OnceLock::new(),
            stall: crate::upgrade::Stall::default(),
        }
    }

    /// A session's replies to the `--setup` lines; the first to come are kept.
    pub(crate) fn setup_done(&self, replies: Vec<String>) {
        let _later = self.setup_replies.set(replies);
    }

    /// Whether a session's setup replies are kept already (the others need not
    /// collect theirs).
    pub(crate) fn has_setup_replies(&self) -> bool {
        self.setup_replies.get().is_some()
    }

    /// The replies kept by [`Recorder::setup_done`].
    pub(crate) fn setup_replies(&self) -> Option<Vec<String>> {
        self.setup_replies.get().cloned()
    }

    /// One answered command of session `session`; `measured` when it was sent inside
    /// the measured window.
    pub(crate) fn command(&self, session: usize, latency: Duration, measured: bool) {
        self.commands.fetch_add(1, Ordering::Relaxed);
        self.stall.answered(latency);
        let value = micros(latency);
        let mut shard = lock(&self.shards[session % SHARDS]);
        if let Some(interval) = &mut shard.interval {
            interval.saturating_record(value);
        }
        if measured {
            shard.measured.saturating_record(value);
        }
    }

    /// A session ended its game and has a new one; `measured` when it asked for the
    /// new one inside the measured window.
    pub(crate) fn restarted(&self, measured: bool) {
        self.restarts.fetch_add(1, Ordering::Relaxed);
        if measured {
            self.restarts_measured.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// What was just sent in the measured window should reach `count` sessions. Called
    /// before it is sent, so that no delivery is counted before it is expected.
    pub(crate) fn expect_deliveries(&self, count: u64) {
        self.deliveries_expected.fetch_add(count, Ordering::Relaxed);
    }

    /// A line of chat was said in the measured window, expected to reach `receivers`.
    pub(crate) fn chat_said(&self, receivers: u64) {
        self.chat_lines.fetch_add(1, Ordering::Relaxed);
        self.expect_deliveries(receivers);
    }

    /// The server refused a line of chat said in the measured window: the deliveries
    /// it was expected to make will not come.
    pub(crate) fn chat_refused(&self, receivers: u64) {
        self.chat_refused.fetch_add(1, Ordering::Relaxed);
        // Never below zero, even if a refusal is counted twice by mistake.
        let _ = self.deliveries_expected.fetch_update(
            Ordering::Relaxed,
            Ordering::Relaxed,
            |expected| Some(expected.saturating_sub(receivers)),
        );
    }

    /// One delivery to session `session`, `latency` after it was sent; `measured` when
    /// it was sent inside the measured window.
    pub(crate) fn delivery(&self, session: usize, latency: Duration, measured: bool) {
        let value = micros(latency);
        {
            let mut shard = lock(&self.shards[session % SHARDS]);
            if let Some(interval) = &mut shard.delivery_interval {
                interval.saturating_record(value);
            }
            if measured {
                shard.delivery_measured.saturating_record(value);
            }
        }
        if measured {
            self.deliveries_received.fetch_add(1, Ordering::Relaxed);
            if self.ended.load(Ordering::Relaxed) && self.all_delivered() {
                self.delivered.notify_waiters();
            }
        }
    }

    /// A watcher was told that `count` frames sent in the measured window were dropped.
    pub(crate) fn skipped(&self, count: u64) {
        self.deliveries_skipped.fetch_add(count, Ordering::Relaxed);
    }

    /// The measured window is over: nothing more will be expected.
    pub(crate) fn end(&self) {
        self.ended.store(true, Ordering::Relaxed);
        self.delivered.notify_waiters();
    }

    /// Count in one session that may send: the drain waits until the returned guard
    /// is dropped, when the session has sent its last line.
    pub(crate) fn sending(self: &Arc<Self>) -> Sending {
        self.senders.fetch_add(1, Ordering::Relaxed);
        Sending(Arc::clone(self))
    }

    fn all_delivered(&self) -> bool {
        self.senders.load(Ordering::Relaxed) == 0
            && self.deliveries_received.load(Ordering::Relaxed)
                >= self.deliveries_expected.load(Ordering::Relaxed)
    }

    /// After the end of the measured window: wait until every session has sent its
    /// last line and every expected delivery has come, or until `deadline`, so that sessions stay to receive what is still on
    /// its way, and no longer than that.
    pub(crate) async fn drained(&self, deadline: Instant) {
        loop {
            let delivered = self.delivered.notified();
            tokio::pin!(delivered);
            // Registered before the check: a delivery between the two still wakes us.
            delivered.as_mut().enable();
            if self.all_delivered() {
                return;
            }
            if tokio::time::timeout_at(deadline, delivered).await.is_err() {
                return;
            }
        }
    }

    /// One session connected: from the start of `connect` to the end of the banner.
    pub(crate) fn connect(&self, latency: Duration) {
        self.connected.fetch_add(1, Ordering::Relaxed);
        lock(&self.connects).saturating_record(micros(latency));
    }

    /// One session failed for `reason`.
    pub(crate) fn failure(&self, reason: String) {
        self.failed.fetch_add(1, Ordering::Relaxed);
        *lock(&self.failure_reasons).entry(reason).or_default() += 1;
    }

    /// Every command and every delivery since the last call, merged from all shards
    /// (empty when progress is off). Each shard's histograms are swapped for cleared
    /// ones under its lock; merging and clearing happen outside it.
    pub(crate) fn take_interval(&self) -> Interval {
        let mut commands = new_interval_histogram();
        let mut deliveries = new_interval_histogram();
        let mut spares = lock(&self.spares);
        for (shard, pair) in self.shards.iter().zip(spares.chunks_mut(2)) {
            let [command_spare, delivery_spare] = pair else {
                continue;
            };
            {
                let mut shard = lock(shard);
                if let Some(interval) = &mut shard.interval {
                    std::mem::swap(interval, command_spare);
                }
                if let Some(interval) = &mut shard.delivery_interval {
                    std::mem::swap(interval, delivery_spare);
                }
            }
            // Same bounds everywhere, so adding cannot fail.
            let _ = commands.add(&*command_spare);
            let _ = deliveries.add(&*delivery_spare);
            command_spare.reset();
            delivery_spare.reset();
        }
        Interval {
            commands,
            deliveries,
        }
    }

    /// The commands of the measured window, merged from all shards.
    pub(crate) fn measured(&self) -> Histogram<u64> {
        let mut all = new_histogram();
        for shard in self.shards.iter() {
            let _ = all.add(&lock(shard).measured);
        }
        all
    }

    /// The deliveries of what was sent in the measured window, merged from all shards.
    pub(crate) fn measured_deliveries(&self) -> Histogram<u64> {
        let mut all = new_histogram();
        for shard in self.shards.iter() {
            let _ = all.add(&lock(shard).delivery_measured);
        }
        all
    }

    /// The delivery counts so far.
    pub(crate) fn delivery_counts(&self) -> DeliveryCounts {
        DeliveryCounts {
            expected: self.deliveries_expected.load(Ordering::Relaxed),
            received: self.deliveries_received.load(Ordering::Relaxed),
            skipped: self.deliveries_skipped.load(Ordering::Relaxed),
            chat_lines: self.chat_lines.load(Ordering::Relaxed),
            chat_refused: self.chat_refused.load(Ordering::Relaxed),
        }
    }

    /// The connect latencies so far.
    pub(crate) fn connects(&self) -> Histogram<u64> {
        lock(&self.connects).clone()
    }

    /// The failure reasons so far, with their counts.
    pub(crate) fn failure_reasons(&self) -> BTreeMap<String, u64> {
        lock(&self.failure_reasons).clone()
    }
}

/// One session that may still send in the measured window (see
/// [`Recorder::sending`]); dropped when it has sent its last line, or failed.
pub(crate) struct Sending(Arc<Recorder>);

impl Drop for Sending {
    fn drop(&mut self) {
        if self.0.senders.fetch_sub(1, Ordering::Relaxed) == 1 {
            // The last sender: the drain may be over, if the deliveries are in too.
            self.0.delivered.notify_waiters();
        }
    }
}

/// The last second's commands and deliveries, for a progress line.
pub(crate) struct Interval {
    /// Commands answered.
    pub(crate) commands: Histogram<u64>,
    /// Deliveries received.
    pub(crate) deliveries: Histogram<u64>,
}

/// The counts of [`Recorder`] that the report carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct DeliveryCounts {
    /// [`Report::deliveries_expected`].
    pub(crate) expected: u64,
    /// [`Report::deliveries_received`].
    pub(crate) received: u64,
    /// [`Report::deliveries_skipped`].
    pub(crate) skipped: u64,
    /// [`Report::chat_lines`].
    pub(crate) chat_lines: u64,
    /// [`Report::chat_refused`].
    pub(crate) chat_refused: u64,
}

/// One progress line: the last second's commands and latencies, and its deliveries
/// when there are any.
pub(crate) fn progress_line(
    elapsed: Duration,
    phase: &str,
    recorder: &Recorder,
    sessions: usize,
    interval: &Interval,
) -> String {
    let latency = Latency::of(&interval.commands);
    let mut line = format!(
        "{:>5}s {phase:<7} sessions {}/{sessions} ready, {} failed  commands/s {:>6}  p50 {}  p99 {}  max {}",
        elapsed.as_secs(),
        recorder.ready.load(Ordering::Relaxed),
        recorder.failed.load(Ordering::Relaxed),
        latency.count,
        Millis(latency.p50_us),
        Millis(latency.p99_us),
        Millis(latency.max_us),
    );
    let delivery = Latency::of(&interval.deliveries);
    if delivery.count > 0 {
        line.push_str(&format!(
            "  deliveries/s {:>7}  p50 {}  p99 {}  max {}",
            delivery.count,
            Millis(delivery.p50_us),
            Millis(delivery.p99_us),
            Millis(delivery.max_us),
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_and_interval_histograms_are_kept_apart() {
        let recorder = Recorder::new(true);
        recorder.command(0, Duration::from_millis(1), false);
        recorder.command(1, Duration::from_millis(2), true);
        recorder.command(33, Duration::from_millis(3), true);
        let interval = recorder.take_interval();
        assert_eq!(interval.commands.len(), 3);
        assert_eq!(interval.deliveries.len(), 0);
        assert_eq!(recorder.take_interval().commands.len(), 0, "drained");
        let measured = Latency::of(&recorder.measured());
        assert_eq!(measured.count, 2);
        assert!((2990..=3010).contains(&measured.max_us), "{measured:?}");
        assert_eq!(recorder.commands.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn restarts_are_counted_in_the_window_and_in_all() {
        let recorder = Recorder::new(false);
        recorder.restarted(false);
        recorder.restarted(true);
        recorder.restarted(true);
        assert_eq!(recorder.restarts.load(Ordering::Relaxed), 3);
        assert_eq!(recorder.restarts_measured.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn without_progress_only_the_measured_window_is_kept() {
        let recorder = Recorder::new(false);
        recorder.command(0, Duration::from_millis(1), true);
        assert_eq!(recorder.take_interval().commands.len(), 0);
        assert_eq!(recorder.measured().len(), 1);
    }

    #[test]
    fn deliveries_are_counted_against_what_was_expected() {
        let recorder = Recorder::new(true);
        recorder.chat_said(3);
        recorder.chat_said(3);
        recorder.chat_refused(3);
        recorder.expect_deliveries(2);
        recorder.delivery(0, Duration::from_millis(1), true);
        recorder.delivery(40, Duration::from_millis(2), true);
        // Sent before the window: timed for the progress line, not counted.
        recorder.delivery(1, Duration::from_millis(9), false);
        recorder.skipped(1);
        let counts = recorder.delivery_counts();
        assert_eq!(
            counts,
            DeliveryCounts {
                expected: 5,
                received: 2,
                skipped: 1,
                chat_lines: 2,
                chat_refused: 1
            }
        );
        assert_eq!(recorder.measured_deliveries().len(), 2);
        assert_eq!(recorder.take_interval().deliveries.len(), 3);
        assert_eq!(recorder.measured().len(), 0, "deliveries are not commands");
    }

    #[tokio::test]
    async fn the_drain_ends_with_the_last_delivery_or_the_deadline() {
        let recorder = std::sync::Arc::new(Recorder::new(false));
        recorder.expect_deliveries(2);
        recorder.delivery(0, Duration::from_millis(1), true);
        recorder.end();
        let soon = Instant::now() + Duration::from_millis(20);
        recorder.drained(soon).await;
        assert!(Instant::now() >= soon, "one delivery still to come");
        let waiting = tokio::spawn({
            let recorder = std::sync::Arc::clone(&recorder);
            async move {
                recorder
                    .drained(Instant::now() + Duration::from_secs(30))
                    .await;
            }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        recorder.delivery(1, Duration::from_millis(1), true);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the last delivery ends the drain")
            .unwrap();
    }

    #[tokio::test]
    async fn the_drain_waits_for_the_last_sender_even_when_all_is_delivered() {
        let recorder = Arc::new(Recorder::new(false));
        let sender = recorder.sending();
        recorder.end();
        let soon = Instant::now() + Duration::from_millis(20);
        recorder.drained(soon).await;
        assert!(
            Instant::now() >= soon,
            "a sender may still expect deliveries"
        );
        let waiting = tokio::spawn({
            let recorder = Arc::clone(&recorder);
            async move {
                recorder
                    .drained(Instant::now() + Duration::from_secs(30))
                    .await;
            }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        // Its last line, due in the window, went out after the end.
        recorder.expect_deliveries(1);
        drop(sender);
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(!waiting.is_finished(), "its delivery is still to come");
        recorder.delivery(1, Duration::from_millis(1), true);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the last delivery after the last sender ends the drain")
            .unwrap();
    }

    #[test]
    fn failures_are_counted_by_reason() {
        let recorder = Recorder::new(false);
        recorder.failure("server full".into());
        recorder.failure("server full".into());
        recorder.failure("timed out waiting for a reply".into());
        let reasons = recorder.failure_reasons();
        assert_eq!(reasons["server full"], 2);
        assert_eq!(reasons["timed out waiting for a reply"], 1);
        assert_eq!(recorder.failed.load(Ordering::Relaxed), 3);
    }
}
