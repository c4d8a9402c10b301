//! What a load test measures, while it runs and at the end.
//!
//! Latencies go into hdrhistograms (microseconds, 3 significant digits). Thousands of
//! sessions record at once, so the histograms are sharded: a session always records
//! into the shard of its index, under a lock held for one `record`. Each shard keeps
//! two histograms: one for the measured window only, merged into the report at the
//! end, and (unless the progress lines are off) a smaller one that the progress line
//! swaps out every second, so that the lock is never held for a merge: a client that
//! stalls its own sessions would blame the server for its pauses.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

use super::Script;

/// How many histogram shards sessions record into.
const SHARDS: usize = 32;
/// The largest latency a histogram holds, in microseconds (larger ones saturate).
const MAX_MICROS: u64 = 120_000_000;

fn new_histogram() -> Histogram<u64> {
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

fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

/// The two histograms of one shard.
struct Shard {
    /// Every command since the last progress line, when progress is shown.
    interval: Option<Histogram<u64>>,
    /// Commands sent inside the measured window.
    measured: Histogram<u64>,
}

/// Shared by every session of a run: counters, histograms and failure reasons.
pub(crate) struct Recorder {
    shards: Box<[Mutex<Shard>]>,
    /// Cleared histograms to swap into the shards, one per shard.
    spares: Mutex<Vec<Histogram<u64>>>,
    connects: Mutex<Histogram<u64>>,
    failure_reasons: Mutex<BTreeMap<String, u64>>,
    /// Sessions that received the banner.
    pub(crate) connected: AtomicU64,
    /// Sessions in their game right now.
    pub(crate) in_game: AtomicU64,
    /// Sessions that failed.
    pub(crate) failed: AtomicU64,
    /// Commands answered, warm-up included.
    pub(crate) commands: AtomicU64,
}

impl Recorder {
    /// A recorder; `progress` keeps the per-second histograms for progress lines.
    pub(crate) fn new(progress: bool) -> Recorder {
        let shards = (0..SHARDS)
            .map(|_| {
                Mutex::new(Shard {
                    interval: progress.then(new_interval_histogram),
                    measured: new_histogram(),
                })
            })
            .collect();
        let spares = if progress {
            (0..SHARDS).map(|_| new_interval_histogram()).collect()
        } else {
            Vec::new()
        };
        Recorder {
            shards,
            spares: Mutex::new(spares),
            connects: Mutex::new(new_histogram()),
            failure_reasons: Mutex::new(BTreeMap::new()),
            connected: AtomicU64::new(0),
            in_game: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            commands: AtomicU64::new(0),
        }
    }

    /// One answered command of session `session`; `measured` when it was sent inside
    /// the measured window.
    pub(crate) fn command(&self, session: usize, latency: Duration, measured: bool) {
        self.commands.fetch_add(1, Ordering::Relaxed);
        let value = micros(latency);
        let mut shard = lock(&self.shards[session % SHARDS]);
        if let Some(interval) = &mut shard.interval {
            interval.saturating_record(value);
        }
        if measured {
            shard.measured.saturating_record(value);
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

    /// Every command since the last call, merged from all shards (empty when progress
    /// is off). Each shard's histogram is swapped for a cleared one under its lock;
    /// merging and clearing happen outside it.
    pub(crate) fn take_interval(&self) -> Histogram<u64> {
        let mut all = new_interval_histogram();
        let mut spares = lock(&self.spares);
        for (shard, spare) in self.shards.iter().zip(spares.iter_mut()) {
            if let Some(interval) = &mut lock(shard).interval {
                std::mem::swap(interval, spare);
            }
            // Same bounds everywhere, so adding cannot fail.
            let _ = all.add(&*spare);
            spare.reset();
        }
        all
    }

    /// The commands of the measured window, merged from all shards.
    pub(crate) fn measured(&self) -> Histogram<u64> {
        let mut all = new_histogram();
        for shard in self.shards.iter() {
            let _ = all.add(&lock(shard).measured);
        }
        all
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

/// Percentiles of a latency histogram, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Latency {
    /// How many values.
    pub count: u64,
    /// Median.
    pub p50_us: u64,
    /// 99th percentile.
    pub p99_us: u64,
    /// 99.9th percentile.
    pub p999_us: u64,
    /// The largest value.
    pub max_us: u64,
    /// The mean.
    pub mean_us: f64,
}

impl Latency {
    /// The summary of `histogram` (all zero when it is empty).
    pub(crate) fn of(histogram: &Histogram<u64>) -> Latency {
        if histogram.is_empty() {
            return Latency::default();
        }
        Latency {
            count: histogram.len(),
            p50_us: histogram.value_at_quantile(0.50),
            p99_us: histogram.value_at_quantile(0.99),
            p999_us: histogram.value_at_quantile(0.999),
            max_us: histogram.max(),
            mean_us: histogram.mean(),
        }
    }
}

/// The server's resident memory before the sessions and once they sat in their game.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ServerMemory {
    /// The server's process id.
    pub pid: u32,
    /// VmRSS before the first connect, in KiB.
    pub rss_before_kib: u64,
    /// VmRSS when the measured window began, in KiB.
    pub rss_after_kib: u64,
    /// Sessions in their game when `rss_after_kib` was read.
    pub sessions_in_game: u64,
    /// (after - before) / sessions, in bytes.
    pub bytes_per_session: f64,
}

/// The CPU time the server used in the measured window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ServerCpu {
    /// User and system CPU seconds.
    pub seconds: f64,
    /// `seconds` per measured command, in microseconds (everything the server did in
    /// the window, connects and timers included, charged to the commands); none when
    /// no command was measured (`--idle`).
    pub us_per_command: Option<f64>,
}

/// A load test's result: what `--json` prints, and the summary's source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The server's address.
    pub addr: String,
    /// The game played.
    pub game: Script,
    /// `open` (fixed rate), `closed` (next command on each reply) or `idle` (no
    /// commands once in the game).
    pub mode: &'static str,
    /// Commands per second per session (0 in closed loop and idle mode).
    pub rate: f64,
    /// `--sessions` as asked.
    pub sessions_requested: usize,
    /// Sessions run: fewer than asked when the open-file limit allowed no more.
    pub sessions: usize,
    /// Set when the open-file limit capped `--sessions`: the most it allows.
    pub capped_by_open_files: Option<usize>,
    /// How many loopback source addresses connections were spread over (0: the
    /// kernel chose).
    pub source_addresses: usize,
    /// Sessions that received the banner.
    pub connected: u64,
    /// Sessions that failed.
    pub failures: u64,
    /// Why they failed, with counts.
    pub failure_reasons: BTreeMap<String, u64>,
    /// Commands sent inside the measured window and answered.
    pub commands: u64,
    /// The measured window's length, in seconds.
    pub measured_seconds: f64,
    /// `commands / measured_seconds`.
    pub commands_per_second: f64,
    /// Latency of the measured commands, send to prompt.
    pub latency: Latency,
    /// From `connect` to the end of the banner.
    pub connect: Latency,
    /// The server's memory, with `--server-pid`.
    pub server_memory: Option<ServerMemory>,
    /// The server's CPU time in the measured window, with `--server-pid`.
    pub server_cpu: Option<ServerCpu>,
    /// Every measured latency, as `[microseconds, count]` pairs in increasing order:
    /// one pair per histogram bucket that holds any (3 significant digits; the value
    /// is the bucket's highest). Percentiles of several runs cannot be combined, but
    /// these can: `bench/table.py` adds up the runs of a load and takes its
    /// percentiles from the sum, the way [`Latency`] takes them from one run.
    pub latency_histogram: Vec<[u64; 2]>,
}

/// The `[microseconds, count]` pairs of [`Report::latency_histogram`].
pub(crate) fn buckets(histogram: &Histogram<u64>) -> Vec<[u64; 2]> {
    histogram
        .iter_recorded()
        .map(|bucket| [bucket.value_iterated_to(), bucket.count_at_value()])
        .collect()
}

/// Microseconds as milliseconds, for people.
struct Millis(u64);

impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let millis = self.0 as f64 / 1000.0;
        if millis < 10.0 {
            write!(f, "{millis:.2} ms")
        } else {
            write!(f, "{millis:.0} ms")
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match self.mode {
            "open" => format!("open loop at {} command/s per session", self.rate),
            "closed" => String::from("closed loop"),
            _ => String::from("idle in the game"),
        };
        writeln!(
            f,
            "arcade loadtest: {} against {}, {}",
            self.game.name(),
            self.addr,
            mode
        )?;
        if let Some(cap) = self.capped_by_open_files {
            writeln!(
                f,
                "note:       --sessions {} capped to {cap} by the open-file limit (ulimit -n)",
                self.sessions_requested
            )?;
        }
        writeln!(
            f,
            "sessions:   {} run, {} connected, {} failed",
            self.sessions, self.connected, self.failures
        )?;
        writeln!(
            f,
            "commands:   {} in {:.1} s, {:.0} per second",
            self.commands, self.measured_seconds, self.commands_per_second
        )?;
        let l = &self.latency;
        writeln!(
            f,
            "latency:    p50 {}  p99 {}  p99.9 {}  max {}",
            Millis(l.p50_us),
            Millis(l.p99_us),
            Millis(l.p999_us),
            Millis(l.max_us)
        )?;
        let c = &self.connect;
        writeln!(
            f,
            "connect:    p50 {}  p99 {}  max {}",
            Millis(c.p50_us),
            Millis(c.p99_us),
            Millis(c.max_us)
        )?;
        if let Some(memory) = &self.server_memory {
            writeln!(
                f,
                "memory:     server {} KiB -> {} KiB with {} sessions in game: {:.0} bytes per session",
                memory.rss_before_kib,
                memory.rss_after_kib,
                memory.sessions_in_game,
                memory.bytes_per_session
            )?;
        }
        if let Some(cpu) = &self.server_cpu {
            write!(f, "server CPU: {:.2} s in the measured window", cpu.seconds)?;
            match cpu.us_per_command {
                Some(micros) => writeln!(f, ", {micros:.1} µs per command")?,
                None => writeln!(f)?,
            }
        }
        if self.failure_reasons.is_empty() {
            writeln!(f, "failures:   none")?;
        } else {
            writeln!(f, "failures:")?;
            for (reason, count) in &self.failure_reasons {
                writeln!(f, "  {count:>7}  {reason}")?;
            }
        }
        Ok(())
    }
}

/// One progress line: the last second's commands and latencies.
pub(crate) fn progress_line(
    elapsed: Duration,
    phase: &str,
    recorder: &Recorder,
    sessions: usize,
    interval: &Histogram<u64>,
) -> String {
    let latency = Latency::of(interval);
    format!(
        "{:>5}s {phase:<7} sessions {}/{sessions} in game, {} failed  commands/s {:>6}  p50 {}  p99 {}  max {}",
        elapsed.as_secs(),
        recorder.in_game.load(Ordering::Relaxed),
        recorder.failed.load(Ordering::Relaxed),
        latency.count,
        Millis(latency.p50_us),
        Millis(latency.p99_us),
        Millis(latency.max_us),
    )
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
        assert_eq!(interval.len(), 3);
        assert_eq!(recorder.take_interval().len(), 0, "drained");
        let measured = Latency::of(&recorder.measured());
        assert_eq!(measured.count, 2);
        assert!((2990..=3010).contains(&measured.max_us), "{measured:?}");
        assert_eq!(recorder.commands.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn without_progress_only_the_measured_window_is_kept() {
        let recorder = Recorder::new(false);
        recorder.command(0, Duration::from_millis(1), true);
        assert_eq!(recorder.take_interval().len(), 0);
        assert_eq!(recorder.measured().len(), 1);
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

    /// The percentile rule of `bench/table.py` over merged buckets, here over one run's.
    fn quantile_of_buckets(buckets: &[[u64; 2]], quantile: f64) -> u64 {
        let total: u64 = buckets.iter().map(|[_, count]| count).sum();
        let wanted = ((quantile * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for [value, count] in buckets {
            seen += count;
            if seen >= wanted {
                return *value;
            }
        }
        0
    }

    #[test]
    fn buckets_give_the_same_percentiles_as_the_histogram() {
        let mut histogram = new_histogram();
        // Spread over several orders of magnitude, with repeats, as latencies are.
        for i in 1..=20_000u64 {
            histogram.record(i * i % 97_003 + 50).unwrap();
        }
        let buckets = buckets(&histogram);
        assert!(
            buckets.windows(2).all(|pair| pair[0][0] < pair[1][0]),
            "increasing"
        );
        let total: u64 = buckets.iter().map(|[_, count]| count).sum();
        assert_eq!(total, histogram.len());
        let latency = Latency::of(&histogram);
        assert_eq!(quantile_of_buckets(&buckets, 0.50), latency.p50_us);
        assert_eq!(quantile_of_buckets(&buckets, 0.99), latency.p99_us);
        assert_eq!(quantile_of_buckets(&buckets, 0.999), latency.p999_us);
        assert_eq!(quantile_of_buckets(&buckets, 1.0), latency.max_us);
    }

    #[test]
    fn latency_of_an_empty_histogram_is_zero() {
        assert_eq!(Latency::of(&new_histogram()), Latency::default());
    }

    #[test]
    fn millis_are_readable() {
        assert_eq!(Millis(1234).to_string(), "1.23 ms");
        assert_eq!(Millis(45_600).to_string(), "46 ms");
    }
}
