//! What `/metrics` tells an operator (SPEC section 11), in Prometheus text.
//!
//! One [`Metrics`] per server, held by every seat through [`crate::social::Services`]:
//! counters and a histogram that the sessions, the chat and the recorder bump as they
//! go (an atomic add, or a short uncontended lock for the histogram), and the sessions
//! by place and game, counted from the registry when someone scrapes rather than kept
//! up to date on every move. Nothing here is global: two servers in one test process
//! have metrics of their own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry as Exposition;

use crate::registry::{Place, Registry};

/// The media type of the text: OpenMetrics 1.0, the Prometheus text format that
/// `prometheus-client` writes and Prometheus scrapes natively.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The labels of `arcade_sessions`.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SessionLabels {
    /// `lobby`, `game`, `watching` or `race`.
    place: &'static str,
    /// The game, or empty outside one.
    game: &'static str,
}

/// The server's metrics: clone the handles freely, every clone counts in the same place.
#[derive(Debug)]
pub struct Metrics {
    exposition: Exposition,
    sessions: Family<SessionLabels, Gauge>,
    /// Lines a session handled (commands and game moves alike).
    pub commands: Counter,
    /// Seconds from a line's arrival to its reply written to the socket.
    pub command_seconds: Histogram,
    /// Lines of chat said or told.
    pub chat_lines: Counter,
    /// Changes the recorder wrote to the database.
    pub store_writes: Counter,
    /// Transactions the recorder committed.
    pub store_transactions: Counter,
    /// Writes that failed (and are retried).
    pub store_failures: Counter,
    /// Changes waiting for the recorder to write them.
    pub store_queue: Gauge,
    /// Sessions served by the web page's live table.
    pub web_viewers: Gauge,
    /// One scrape at a time: a scrape clears and refills the sessions' gauges.
    scraping: Mutex<()>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Every metric at zero, registered under `arcade_`.
    pub fn new() -> Metrics {
        let mut exposition = Exposition::with_prefix("arcade");
        let sessions = Family::<SessionLabels, Gauge>::default();
        let commands = Counter::default();
        // 50 us to 3.3 s: a command is a few microseconds of work, but its reply can
        // wait for a write to a slow client or for the database (resume).
        let command_seconds = Histogram::new(exponential_buckets(0.000_05, 2.0, 17));
        let chat_lines = Counter::default();
        let store_writes = Counter::default();
        let store_transactions = Counter::default();
        let store_failures = Counter::default();
        let store_queue = Gauge::default();
        let web_viewers = Gauge::default();
        exposition.register(
            "sessions",
            "Sessions connected, by place (lobby, game, watching, race) and game",
            sessions.clone(),
        );
        exposition.register("commands", "Lines handled", commands.clone());
        exposition.register(
            "command_seconds",
            "Time from a line's arrival to its reply written",
            command_seconds.clone(),
        );
        exposition.register(
            "chat_lines",
            "Lines of chat said or told",
            chat_lines.clone(),
        );
        exposition.register(
            "store_writes",
            "Changes (recording starts, input batches, results) written to the database",
            store_writes.clone(),
        );
        exposition.register(
            "store_transactions",
            "Database transactions committed by the recorder",
            store_transactions.clone(),
        );
        exposition.register(
            "store_write_failures",
            "Recorder writes that failed and were kept to retry",
            store_failures.clone(),
        );
        exposition.register(
            "store_queue",
            "Changes waiting to be written to the database",
            store_queue.clone(),
        );
        exposition.register(
            "web_live_viewers",
            "Browsers following the live session table",
            web_viewers.clone(),
        );
        Metrics {
            exposition,
            sessions,
            commands,
            command_seconds,
            chat_lines,
            store_writes,
            store_transactions,
            store_failures,
            store_queue,
            web_viewers,
            scraping: Mutex::new(()),
        }
    }

    /// A line was handled and its reply written `took` after it arrived.
    pub fn command(&self, took: Duration) {
        self.commands.inc();
        self.command_seconds.observe(took.as_secs_f64());
    }

    /// Everything, in Prometheus text, the sessions counted from `registry` now.
    pub fn render(&self, registry: &Registry) -> String {
        let _one_at_a_time = self.scraping.lock().unwrap_or_else(PoisonError::into_inner);
        let mut counts: HashMap<SessionLabels, i64> = HashMap::new();
        for place in registry.places() {
            *counts.entry(labels(&place)).or_default() += 1;
        }
        self.sessions.clear();
        for (labels, count) in counts {
            self.sessions.get_or_create(&labels).set(count);
        }
        let mut text = String::new();
        // Writing to a String cannot fail; an encoder error would be a bug of the crate.
        if let Err(error) = prometheus_client::encoding::text::encode(&mut text, &self.exposition) {
            tracing::error!(%error, "cannot encode the metrics");
        }
        text
    }
}

/// A shared handle, as the services hold it.
pub type SharedMetrics = Arc<Metrics>;

fn labels(place: &(Place, Option<&'static str>)) -> SessionLabels {
    let (place, game) = place;
    let place = match place {
        Place::Lobby => "lobby",
        Place::Game { .. } => "game",
        Place::Watching { .. } | Place::WatchingRace(_) => "watching",
        Place::Race { .. } => "race",
    };
    SessionLabels {
        place,
        game: game.unwrap_or(""),
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
        let registry = Registry::new();
        let text = metrics.render(&registry);
        assert!(text.contains("arcade_commands_total 2\n"), "{text}");
        assert!(text.contains("arcade_chat_lines_total 1\n"), "{text}");
        assert!(text.contains("arcade_store_queue 7\n"), "{text}");
        assert!(
            text.contains("arcade_command_seconds_bucket{le=\"0.0001\"} 1\n"),
            "{text}"
        );
        assert!(text.contains("arcade_command_seconds_count 2\n"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
}
