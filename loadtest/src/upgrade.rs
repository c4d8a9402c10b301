//! `--upgrade-after T --upgrade-data-dir DIR`: ask the server for an upgrade (SPEC
//! section 11) through its control socket, T into the measured window, and measure
//! the stall: the longest any command waited for its answer among those answered
//! after the upgrade was asked (the commands a session sent while it was handed over
//! wait in its socket and are answered by the new process).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use tokio::time::Instant;

use super::report::UpgradeReport;
use super::stats::micros;

/// What the stall is measured from.
#[derive(Debug, Default)]
pub(crate) struct Stall {
    /// When the upgrade was asked for.
    asked: OnceLock<Instant>,
    /// The longest wait of a command answered since, in microseconds.
    longest_us: AtomicU64,
    /// Commands answered since.
    answered: AtomicU64,
    /// `The server was upgraded.` notices the sessions received.
    notices: AtomicU64,
}

impl Stall {
    /// A command was answered now, after `latency`.
    pub(crate) fn answered(&self, latency: Duration) {
        if self
            .asked
            .get()
            .is_some_and(|asked| Instant::now() >= *asked)
        {
            self.longest_us
                .fetch_max(micros(latency), Ordering::Relaxed);
            self.answered.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A session received `count` notices.
    pub(crate) fn notices(&self, count: u64) {
        self.notices.fetch_add(count, Ordering::Relaxed);
    }
}

/// Ask for the upgrade at `at`, through the control socket of `data_dir`: the report
/// of how it went, `stall` keeping the longest wait from then on.
pub(crate) async fn ask_at(at: Instant, data_dir: PathBuf, stall: &Stall) -> UpgradeReport {
    tokio::time::sleep_until(at).await;
    let asked = Instant::now();
    let _ = stall.asked.set(asked);
    let answer = tokio::task::spawn_blocking(move || {
        arcade::upgrade::control::request_upgrade(&data_dir)
            .unwrap_or_else(|error| format!("upgrade failed: {error}"))
    })
    .await
    .unwrap_or_else(|_| String::from("upgrade failed: the request's task stopped"));
    UpgradeReport {
        answer,
        took_ms: asked.elapsed().as_secs_f64() * 1e3,
        longest_wait_ms: 0.0,
        commands_after: 0,
        notices: 0,
    }
}

/// `report` with what `stall` measured by the end of the run.
pub(crate) fn finish(mut report: UpgradeReport, stall: &Stall) -> UpgradeReport {
    report.longest_wait_ms = stall.longest_us.load(Ordering::Relaxed) as f64 / 1e3;
    report.commands_after = stall.answered.load(Ordering::Relaxed);
    report.notices = stall.notices.load(Ordering::Relaxed);
    report
}
