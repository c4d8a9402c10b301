//! A load test's result ([`Report`]): what `--json` prints, and the summary people
//! read; its latencies as percentiles ([`Latency`]) and as the buckets that scripts
//! merge across runs.

use std::collections::BTreeMap;
use std::fmt;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::bots::Seeds;
use crate::ladder::LadderReport;
use crate::script::Script;

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
    /// Sessions in place when `rss_after_kib` was read: in their game, or settled in
    /// the lobby (`--lobby`, `--chat`), or watching (the name is from before those).
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
    /// The lobby line that started it (`--lobby-line`, or the table's script's).
    pub lobby_line: String,
    /// The commands sent in turn (`--commands`, or the table's script's).
    pub script_commands: Vec<String>,
    /// `--setup`: the lines sent in the lobby before the game.
    pub setup: Vec<String>,
    /// The server's replies to `setup`, as the first session to get them all received
    /// them (prompts left out, one line each), to show what the lines did; none
    /// without `--setup` or when no session got that far.
    pub setup_replies: Option<Vec<String>>,
    /// `open` (fixed rate), `closed` (next command on each reply), `idle` (no
    /// commands once in place) or `chat` (lines of chat in the lobby).
    pub mode: &'static str,
    /// Where the sessions of `--sessions` are: `game` or `lobby`.
    pub place: &'static str,
    /// Whether every session took a name (`--names`, implied by `--chat`,
    /// `--watchers` and `--race`).
    pub names: bool,
    /// `--chat`: lines of chat per second across all sessions (0 without).
    pub chat_rate: f64,
    /// `--watchers` as asked.
    pub watchers_requested: usize,
    /// Watching sessions run (besides `sessions`): fewer than asked when the
    /// open-file limit allowed no more.
    pub watchers: usize,
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
    /// Sessions that received the banner (watchers included).
    pub connected: u64,
    /// Sessions that failed.
    pub failures: u64,
    /// Why they failed, with counts.
    pub failure_reasons: BTreeMap<String, u64>,
    /// Commands sent inside the measured window and answered (with `--chat`: lines of
    /// chat said and come back to their sender, or refused). With `--restart-every`,
    /// the exit and lobby lines that end and start games are commands too.
    pub commands: u64,
    /// Commands answered over the whole run, ramp and warm-up included: what the
    /// server has seen (and, where it records games, recorded), for sizes per command.
    pub commands_whole_run: u64,
    /// `--restart-every`: game commands per game (none without).
    pub restart_every: Option<usize>,
    /// With `--restart-every`: games ended (by the game's exit line) and started again
    /// whose new game was asked for in the measured window. Each is a finished game
    /// for the server.
    pub games_restarted: u64,
    /// As `games_restarted`, over the whole run.
    pub games_restarted_whole_run: u64,
    /// The measured window's length, in seconds.
    pub measured_seconds: f64,
    /// `commands / measured_seconds`.
    pub commands_per_second: f64,
    /// Latency of the measured commands, send to prompt (with `--chat`: send to the
    /// line's echo).
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
    /// Lines of chat said in the measured window (`--chat`).
    pub chat_lines: u64,
    /// Of those, lines the server refused as over its rate limit.
    pub chat_refused: u64,
    /// Deliveries that what was sent in the measured window should make: each line of
    /// chat the server took, to every other session in the lobby at the time; each
    /// command of a watched player, to each of its watchers; each move of a racer that
    /// raised its largest tile to the race's milestone or beyond or ended its game (a
    /// progress line, by the server's rules), to every other racer still in the race.
    pub deliveries_expected: u64,
    /// Of those, the deliveries received (each one timed in `delivery`).
    pub deliveries_received: u64,
    /// Of those expected, frames the server told a watcher it dropped because the
    /// watcher fell behind (lost, not late).
    pub deliveries_skipped: u64,
    /// Latency of the deliveries received, from the send to its arrival at another
    /// session (a line of chat, a watched player's frame, a racer's progress line
    /// timed from the move that caused it).
    pub delivery: Latency,
    /// Every delivery latency of `delivery`, as `latency_histogram` is for commands.
    pub delivery_histogram: Vec<[u64; 2]>,
    /// `--race`: racers per race (none without).
    pub race: Option<usize>,
    /// `--race`: the line each race was opened with (`race 2048 ARGS`).
    pub race_line: Option<String>,
    /// `--race`: how many races ran (the last may have had fewer racers).
    pub races: usize,
    /// `--race`: racers whose game ended in the run (the win tile or no move left, or
    /// the race's time limit); they stopped sending and stayed, hearing the others.
    pub racers_done: u64,
    /// `--race`: racers still playing when the measured window ended.
    pub racers_playing_at_end: u64,
    /// `--bots`: what the bots played and how it went (none without). In that mode
    /// the fields above are of the whole run: `commands` are the bots' actions,
    /// `latency` (and `latency_histogram`) each action's from its send to the next
    /// state, `measured_seconds` the wall time, `server_cpu` the server's CPU over
    /// the run, per action.
    pub bots: Option<BotsReport>,
    /// `--upgrade-after`: how the upgrade went and the stall it caused.
    pub upgrade: Option<UpgradeReport>,
}

/// What `--upgrade-after` measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UpgradeReport {
    /// The server's answer (`upgraded: ...` or `upgrade failed: ...`).
    pub answer: String,
    /// From the request to the answer.
    pub took_ms: f64,
    /// The longest any command waited for its answer among those answered after the
    /// upgrade was asked: the stall.
    pub longest_wait_ms: f64,
    /// Commands answered after the upgrade was asked.
    pub commands_after: u64,
    /// `The server was upgraded.` notices the sessions received (one each, when every
    /// session moved).
    pub notices: u64,
}

/// What `--bots` measured, besides the actions' latency in [`Report::latency`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BotsReport {
    /// `--bots` as asked.
    pub bots_requested: usize,
    /// Bots run: fewer than asked when the open-file limit allowed no more.
    pub bots: usize,
    /// `--bot-game`: the words after `play` and before the seed.
    pub game: String,
    /// The command that starts each game, S standing for the seed; through a ladder,
    /// the one command that enters it.
    pub start_line: String,
    /// Through a ladder (`--bot-ladder-admin`): what the run measured of it.
    pub ladder: Option<LadderReport>,
    /// `--bot-seeds`: `first` to `last`, played in order by every bot.
    pub seeds: Seeds,
    /// `--policy-seed`.
    pub policy_seed: u64,
    /// `--bot-max-actions`: the most actions of one game before the bot leaves it.
    pub max_actions: u64,
    /// Bots that played every seed.
    pub bots_done: u64,
    /// Games the run is for: bots run × seeds.
    pub games_expected: u64,
    /// Games started (their first state came).
    pub games_started: u64,
    /// Games whose last state (`done`) came, whichever way they ended: the sum of the
    /// four counts below.
    pub games_finished: u64,
    /// Of those, games ended by their rules (an action's state was done).
    pub games_ended_by_game: u64,
    /// Of those, games left with nothing legal (2048 with no slide left).
    pub games_left_stuck: u64,
    /// Of those, games left after `max_actions` actions.
    pub games_left_capped: u64,
    /// Of those, games left because an action was answered with an error.
    pub games_left_after_error: u64,
    /// The finished games' last scores, added up.
    pub score_sum: i64,
    /// `score_sum` per finished game (none when none finished).
    pub mean_score: Option<f64>,
    /// From before the first connect to the last bot done, in seconds.
    pub wall_seconds: f64,
    /// Games finished per second of `wall_seconds`.
    pub games_per_second: f64,
    /// Actions answered (each timed in [`Report::latency`]).
    pub actions: u64,
    /// Actions per second of `wall_seconds`.
    pub actions_per_second: f64,
    /// From each game's start command to its first state.
    pub start: Latency,
    /// `error` lines received: none should come to a bot that plays only legal actions.
    pub errors: u64,
    /// Their texts (cut to 160 characters), with how many times each came.
    pub error_texts: BTreeMap<String, u64>,
    /// `message` lines (news, chat) received and skipped.
    pub messages: u64,
    /// The server's VmRSS before the first connect, in KiB (`--server-pid`).
    pub server_rss_before_kib: Option<u64>,
    /// The largest VmRSS read during the run (once a second, and at the end), in KiB.
    pub server_rss_peak_kib: Option<u64>,
}

/// The `[microseconds, count]` pairs of [`Report::latency_histogram`].
pub(crate) fn buckets(histogram: &Histogram<u64>) -> Vec<[u64; 2]> {
    histogram
        .iter_recorded()
        .map(|bucket| [bucket.value_iterated_to(), bucket.count_at_value()])
        .collect()
}

/// Microseconds as milliseconds, for people.
pub(crate) struct Millis(pub(crate) u64);

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
        if let Some(bots) = &self.bots {
            return self.fmt_bots(bots, f);
        }
        let mode = match (self.mode, self.place) {
            ("open", _) => format!("open loop at {} command/s per session", self.rate),
            ("closed", _) => String::from("closed loop"),
            ("chat", _) => format!(
                "chat in the lobby at {} lines/s across the sessions",
                self.chat_rate
            ),
            (_, "lobby") => String::from("idle in the lobby"),
            _ => String::from("idle in the game"),
        };
        let what = if self.place == "lobby" {
            "lobby"
        } else {
            self.game.name()
        };
        let named = if self.names { ", named" } else { "" };
        let restarting = match self.restart_every {
            Some(every) => format!(", a new game every {every} commands"),
            None => String::new(),
        };
        let racing = match (self.race, &self.race_line) {
            (Some(size), Some(line)) => format!(", in races of {size} (`{line}`)"),
            _ => String::new(),
        };
        writeln!(
            f,
            "arcade loadtest: {what} against {}, {mode}{named}{restarting}{racing}",
            self.addr
        )?;
        if !self.setup.is_empty() {
            writeln!(f, "setup:      {}", self.setup.join(" / "))?;
            if let Some(replies) = &self.setup_replies {
                writeln!(f, "answered:   {}", replies.join(" / "))?;
            }
        }
        if let Some(cap) = self.capped_by_open_files {
            writeln!(
                f,
                "note:       --sessions {} capped to {cap} by the open-file limit (ulimit -n)",
                self.sessions_requested
            )?;
        }
        write!(f, "sessions:   {} run", self.sessions)?;
        if self.watchers_requested > 0 {
            write!(f, " and {} watching them", self.watchers)?;
        }
        writeln!(
            f,
            ", {} connected, {} failed",
            self.connected, self.failures
        )?;
        writeln!(
            f,
            "commands:   {} in {:.1} s, {:.0} per second",
            self.commands, self.measured_seconds, self.commands_per_second
        )?;
        if self.restart_every.is_some() {
            writeln!(
                f,
                "restarts:   {} games ended and started again in the window ({:.1} per second), {} in the whole run",
                self.games_restarted,
                self.games_restarted as f64 / self.measured_seconds,
                self.games_restarted_whole_run
            )?;
        }
        if self.race.is_some() {
            writeln!(
                f,
                "races:      {} races; {} racers done before the end (no more moves), {} still playing at the end",
                self.races, self.racers_done, self.racers_playing_at_end
            )?;
        }
        if let Some(upgrade) = &self.upgrade {
            writeln!(
                f,
                "upgrade:    {} in {:.0} ms; longest wait of a command answered since {:.1} ms ({} commands), {} sessions told",
                upgrade.answer, upgrade.took_ms, upgrade.longest_wait_ms, upgrade.commands_after, upgrade.notices
            )?;
        }
        let l = &self.latency;
        writeln!(
            f,
            "latency:    p50 {}  p99 {}  p99.9 {}  max {}",
            Millis(l.p50_us),
            Millis(l.p99_us),
            Millis(l.p999_us),
            Millis(l.max_us)
        )?;
        if self.mode == "chat" {
            writeln!(
                f,
                "chat:       {} lines said, {} refused as too fast",
                self.chat_lines, self.chat_refused
            )?;
        }
        if self.deliveries_expected > 0 || self.deliveries_received > 0 {
            writeln!(
                f,
                "deliveries: {} received of {} expected ({} lost, {} of them skipped by the server)",
                self.deliveries_received,
                self.deliveries_expected,
                self.deliveries_expected
                    .saturating_sub(self.deliveries_received),
                self.deliveries_skipped
            )?;
            let d = &self.delivery;
            writeln!(
                f,
                "delivery:   p50 {}  p99 {}  p99.9 {}  max {}",
                Millis(d.p50_us),
                Millis(d.p99_us),
                Millis(d.p999_us),
                Millis(d.max_us)
            )?;
        }
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
                "memory:     server {} KiB -> {} KiB with {} sessions in place: {:.0} bytes per session",
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

impl Report {
    /// The summary of a `--bots` run.
    fn fmt_bots(&self, bots: &BotsReport, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "arcade loadtest: {} bots against {}, each playing `{}` for S from {} to {}, a random policy (--policy-seed {})",
            bots.bots,
            self.addr,
            bots.start_line,
            bots.seeds.first(),
            bots.seeds.last(),
            bots.policy_seed
        )?;
        if let Some(cap) = self.capped_by_open_files {
            writeln!(
                f,
                "note:       --bots {} capped to {cap} by the open-file limit (ulimit -n)",
                bots.bots_requested
            )?;
        }
        writeln!(
            f,
            "bots:       {} run, {} connected, {} failed, {} played every seed",
            bots.bots, self.connected, self.failures, bots.bots_done
        )?;
        writeln!(
            f,
            "games:      {} finished of {} in {:.2} s, {:.1} per second: {} ended by the game, {} left with nothing legal, {} left at {} actions, {} left after an error",
            bots.games_finished,
            bots.games_expected,
            bots.wall_seconds,
            bots.games_per_second,
            bots.games_ended_by_game,
            bots.games_left_stuck,
            bots.games_left_capped,
            bots.max_actions,
            bots.games_left_after_error
        )?;
        if let Some(mean) = bots.mean_score {
            writeln!(f, "score:      {mean:.1} per game")?;
        }
        writeln!(
            f,
            "actions:    {} in {:.2} s, {:.0} per second",
            bots.actions, bots.wall_seconds, bots.actions_per_second
        )?;
        let l = &self.latency;
        writeln!(
            f,
            "latency:    p50 {}  p99 {}  p99.9 {}  max {}  (an action to its state)",
            Millis(l.p50_us),
            Millis(l.p99_us),
            Millis(l.p999_us),
            Millis(l.max_us)
        )?;
        let s = &bots.start;
        writeln!(
            f,
            "start:      p50 {}  p99 {}  max {}  (a game's start to its first state)",
            Millis(s.p50_us),
            Millis(s.p99_us),
            Millis(s.max_us)
        )?;
        let c = &self.connect;
        writeln!(
            f,
            "connect:    p50 {}  p99 {}  max {}",
            Millis(c.p50_us),
            Millis(c.p99_us),
            Millis(c.max_us)
        )?;
        if let (Some(before), Some(peak)) = (bots.server_rss_before_kib, bots.server_rss_peak_kib) {
            writeln!(
                f,
                "memory:     server {before} KiB before, {peak} KiB at most"
            )?;
        }
        if let Some(cpu) = &self.server_cpu {
            write!(f, "server CPU: {:.2} s over the run", cpu.seconds)?;
            match cpu.us_per_command {
                Some(micros) => writeln!(f, ", {micros:.1} µs per action")?,
                None => writeln!(f)?,
            }
        }
        if let Some(ladder) = &bots.ladder {
            fmt_ladder(ladder, f)?;
        }
        if bots.messages > 0 {
            writeln!(f, "messages:   {} skipped", bots.messages)?;
        }
        if bots.error_texts.is_empty() {
            writeln!(f, "errors:     none")?;
        } else {
            writeln!(f, "errors:")?;
            for (text, count) in &bots.error_texts {
                writeln!(f, "  {count:>7}  {text}")?;
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

/// The ladder's lines of a bots report.
fn fmt_ladder(ladder: &LadderReport, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let limit = ladder
        .move_ms
        .map_or_else(String::new, |ms| format!(", {ms} ms a move"));
    writeln!(
        f,
        "ladder:     {}{limit}: baselines played in {:.2} s before the bots; every result checked {:.2} s after the last bot",
        ladder.id, ladder.baselines_seconds, ladder.settle_seconds
    )?;
    writeln!(
        f,
        "results:    {} entrants, {} seeds counted, {} waiting, {} refused, {} forfeited on time; {} ladder texts skipped",
        ladder.entrants, ladder.counted, ladder.waiting, ladder.refused, ladder.forfeits, ladder.texts
    )?;
    if let Some(seconds) = ladder.server_cpu_seconds_settled {
        writeln!(
            f,
            "server CPU: {seconds:.2} s from the first connect to the last result checked"
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A histogram as the recorder makes them: 1 µs to 120 s, 3 significant digits.
    fn histogram() -> Histogram<u64> {
        Histogram::new_with_bounds(1, 120_000_000, 3).unwrap()
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
        let mut histogram = histogram();
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
        assert_eq!(Latency::of(&histogram()), Latency::default());
    }

    #[test]
    fn millis_are_readable() {
        assert_eq!(Millis(1234).to_string(), "1.23 ms");
        assert_eq!(Millis(45_600).to_string(), "46 ms");
    }
}
