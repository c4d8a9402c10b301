//! What `/metrics` tells an operator (SPEC section 11), in Prometheus text.
//!
//! One [`Metrics`] per server, held by every seat through [`crate::seat::Services`]:
//! counters and a histogram that the sessions, the chat and the recorder bump as they
//! go (atomic adds), and the sessions by place and game, counted when someone scrapes
//! rather than kept up to date on every move: the scraper (the web page's `/metrics`)
//! hands [`Metrics::render`] each session's place and game, so that this file, used by
//! the recorder and the bus below the players, knows nothing of the registry. Nothing
//! here is global: two servers in one test process have metrics of their own.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use prometheus::{
    exponential_buckets, Histogram, HistogramOpts, IntCounter, IntGauge, IntGaugeVec, Opts,
    Registry as Exposition, TextEncoder,
};

/// The media type of the text: Prometheus' text format, version 0.0.4.
pub const CONTENT_TYPE: &str = prometheus::TEXT_FORMAT;

/// The server's metrics: clone the handles freely, every clone counts in the same place.
#[derive(Debug)]
pub struct Metrics {
    exposition: Exposition,
    sessions: IntGaugeVec,
    /// Lines a session handled (commands and game moves alike).
    pub commands: IntCounter,
    /// Seconds from a line's arrival to its reply written to the socket.
    pub command_seconds: Histogram,
    /// Lines of chat said or told.
    pub chat_lines: IntCounter,
    /// Logins and registrations refused by a limit before any password was checked.
    pub logins_refused: IntCounter,
    /// Passwords checked against a hash (an unknown name's against a stand-in).
    pub password_checks: IntCounter,
    /// Changes the recorder wrote to the database.
    pub store_writes: IntCounter,
    /// Transactions the recorder committed.
    pub store_transactions: IntCounter,
    /// Writes that failed (and are retried).
    pub store_failures: IntCounter,
    /// Changes waiting for the recorder to write them.
    pub store_queue: IntGauge,
    /// What they weigh, in bytes (bounded: the recorder's queue has a cap).
    pub store_queue_bytes: IntGauge,
    /// Games whose recording stopped before their end (a quota, the queue full, a
    /// low disk, a game too long).
    pub recordings_stopped: IntCounter,
    /// Free bytes on the data directory's file system, checked every few seconds.
    pub data_dir_free_bytes: IntGauge,
    /// Browsers following the web page's live table.
    pub web_viewers: IntGauge,
    /// Messages handed to the bus (`--bus`).
    pub bus_messages: IntCounter,
    /// Messages for the bus dropped: it was down and its queue full.
    pub bus_dropped: IntCounter,
    /// Other instances heard on the bus.
    pub bus_instances: IntGauge,
    /// One scrape at a time: a scrape clears and refills the sessions' gauges.
    scraping: Mutex<()>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// The metrics' names and help are constants of this file: the crate refuses only
/// malformed or repeated ones, which a test here would show at once.
const VALID: &str = "the metrics' names are valid and registered once";

fn counter(exposition: &Exposition, name: &str, help: &str) -> IntCounter {
    let counter = IntCounter::new(name, help).expect(VALID);
    exposition.register(Box::new(counter.clone())).expect(VALID);
    counter
}

fn gauge(exposition: &Exposition, name: &str, help: &str) -> IntGauge {
    let gauge = IntGauge::new(name, help).expect(VALID);
    exposition.register(Box::new(gauge.clone())).expect(VALID);
    gauge
}

impl Metrics {
    /// Every metric at zero, registered under `arcade_`.
    pub fn new() -> Metrics {
        let exposition = Exposition::new_custom(Some(String::from("arcade")), None).expect(VALID);
        let sessions = IntGaugeVec::new(
            Opts::new(
                "sessions",
                "Sessions connected, by place (lobby, game, watching, race) and game",
            ),
            &["place", "game"],
        )
        .expect(VALID);
        exposition
            .register(Box::new(sessions.clone()))
            .expect(VALID);
        // 50 us to 3.3 s: a command is a few microseconds of work, but its reply can
        // wait for a write to a slow client or for the database (resume).
        let buckets = exponential_buckets(0.000_05, 2.0, 17).expect(VALID);
        let command_seconds = Histogram::with_opts(
            HistogramOpts::new(
                "command_seconds",
                "Time from a line's arrival to its reply written",
            )
            .buckets(buckets),
        )
        .expect(VALID);
        exposition
            .register(Box::new(command_seconds.clone()))
            .expect(VALID);
        Metrics {
            commands: counter(&exposition, "commands_total", "Lines handled"),
            chat_lines: counter(
                &exposition,
                "chat_lines_total",
                "Lines of chat said or told",
            ),
            logins_refused: counter(
                &exposition,
                "logins_refused_total",
                "Logins and registrations refused by a limit (the throttle, the hashing queue) before a password was checked",
            ),
            password_checks: counter(
                &exposition,
                "password_checks_total",
                "Passwords checked against a hash, an unknown name's against a stand-in so that it takes as long",
            ),
            store_writes: counter(
                &exposition,
                "store_writes_total",
                "Changes (recording starts, input batches, results) written to the database",
            ),
            store_transactions: counter(
                &exposition,
                "store_transactions_total",
                "Database transactions committed by the recorder",
            ),
            store_failures: counter(
                &exposition,
                "store_write_failures_total",
                "Recorder writes that failed and were kept to retry",
            ),
            store_queue: gauge(
                &exposition,
                "store_queue",
                "Changes waiting to be written to the database",
            ),
            store_queue_bytes: gauge(
                &exposition,
                "store_queue_bytes",
                "Bytes of changes waiting to be written to the database (capped)",
            ),
            recordings_stopped: counter(
                &exposition,
                "recordings_stopped_total",
                "Games whose recording stopped early: a quota, a full queue, a low disk or a game too long",
            ),
            data_dir_free_bytes: gauge(
                &exposition,
                "data_dir_free_bytes",
                "Free bytes on the file system of the data directory",
            ),
            web_viewers: gauge(
                &exposition,
                "web_live_viewers",
                "Browsers following the web page's live session table",
            ),
            bus_messages: counter(
                &exposition,
                "bus_messages_total",
                "Messages published on the bus between instances",
            ),
            bus_dropped: counter(
                &exposition,
                "bus_dropped_total",
                "Messages for the bus dropped because it was down and its queue full",
            ),
            bus_instances: gauge(
                &exposition,
                "bus_instances",
                "Other instances heard on the bus",
            ),
            exposition,
            sessions,
            command_seconds,
            scraping: Mutex::new(()),
        }
    }

    /// A line was handled and its reply written `took` after it arrived.
    pub fn command(&self, took: Duration) {
        self.commands.inc();
        self.command_seconds.observe(took.as_secs_f64());
    }

    /// Everything, in Prometheus text, with the sessions' gauges counted from
    /// `sessions`: one `(place, game)` per session connected now (`game` empty outside a
    /// game).
    pub fn render(
        &self,
        sessions: impl IntoIterator<Item = (&'static str, &'static str)>,
    ) -> String {
        let _one_at_a_time = self.scraping.lock().unwrap_or_else(PoisonError::into_inner);
        let mut counts: HashMap<(&'static str, &'static str), i64> = HashMap::new();
        for session in sessions {
            *counts.entry(session).or_default() += 1;
        }
        self.sessions.reset();
        for ((place, game), count) in counts {
            self.sessions.with_label_values(&[place, game]).set(count);
        }
        match TextEncoder::new().encode_to_string(&self.exposition.gather()) {
            Ok(text) => text,
            Err(error) => {
                // Writing to a String cannot fail; an encoder error would be a bug.
                tracing::error!(%error, "cannot encode the metrics");
                String::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_has_every_metric_and_counts_what_happened() {
        let metrics = Metrics::new();
        metrics.command(Duration::from_micros(70));
        metrics.command(Duration::from_millis(2));
        metrics.chat_lines.inc();
        metrics.store_queue.set(7);
        let text = metrics.render([("lobby", ""), ("game", "2048"), ("lobby", "")]);
        assert!(text.contains("arcade_commands_total 2\n"), "{text}");
        assert!(text.contains("arcade_chat_lines_total 1\n"), "{text}");
        assert!(text.contains("arcade_store_queue 7\n"), "{text}");
        assert!(
            text.contains("arcade_sessions{game=\"\",place=\"lobby\"} 2\n"),
            "{text}"
        );
        assert!(
            text.contains("arcade_sessions{game=\"2048\",place=\"game\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("arcade_command_seconds_bucket{le=\"0.0001\"} 1\n"),
            "{text}"
        );
        assert!(text.contains("arcade_command_seconds_count 2\n"), "{text}");
        assert!(
            text.contains("# TYPE arcade_commands_total counter\n"),
            "{text}"
        );
    }
}
