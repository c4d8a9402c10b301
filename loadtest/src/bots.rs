//! `--bots N`: a run of N bots (SPEC section 12), each playing every seed of
//! `--bot-seeds` in turn ([`super::bot`]), measured from the first connect to the last
//! bot done. Unlike the people's loads there is no warm-up and no measured window: the
//! run is a fixed amount of play (bots × seeds games), and what it measures is how
//! long the server takes over it, its actions per second and the latency of each.
//!
//! A progress line goes to stderr every second; with `--server-pid` the server's
//! resident memory is read then too (its peak is reported), and its CPU time at the
//! start and the end.

use std::fmt;
use std::num::NonZeroUsize;
use std::str::FromStr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::task::JoinSet;
use tokio::time::Instant;

use arcade::catalog::table::{GameKind, GAMES};
use arcade::server;

use crate::bot::{self, Bots, Tally};
use crate::connection;
use crate::ladder::{Admin, LadderReport};
use crate::monitor::{read_cpu_seconds, read_rss};
use crate::options::{Error, Options};
use crate::plan::{Mode, Plan};
use crate::report::{self, BotsReport, Latency, Report, ServerCpu};
use crate::script::{self, Script};
use crate::stats::{self, Recorder};

/// `--bot-seeds`: the seeds every bot plays, in order, `first` to `last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Seeds {
    first: u64,
    last: u64,
}

impl Seeds {
    /// `first` to `last`, both included; none when `first` comes after `last`.
    pub fn new(first: u64, last: u64) -> Option<Seeds> {
        (first <= last).then_some(Seeds { first, last })
    }

    /// The first seed.
    pub fn first(&self) -> u64 {
        self.first
    }

    /// The last seed.
    pub fn last(&self) -> u64 {
        self.last
    }

    /// How many seeds (at most `u64::MAX`).
    pub fn count(&self) -> u64 {
        (self.last - self.first).saturating_add(1)
    }

    /// The seeds in order.
    pub(crate) fn iter(&self) -> std::ops::RangeInclusive<u64> {
        self.first..=self.last
    }
}

impl FromStr for Seeds {
    type Err = String;

    fn from_str(text: &str) -> Result<Seeds, String> {
        let wrong =
            || format!("{text:?}: seeds are A-B (whole numbers, A at most B) or one seed A");
        let (first, last) = match text.trim().split_once('-') {
            Some((first, last)) => (first.trim(), last.trim()),
            None => (text.trim(), text.trim()),
        };
        let first = first.parse().map_err(|_| wrong())?;
        let last = last.parse().map_err(|_| wrong())?;
        Seeds::new(first, last).ok_or_else(wrong)
    }
}

impl fmt::Display for Seeds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.first, self.last)
    }
}

/// The game of `--bot-game`: the table's row it starts. Its words go after `play` as
/// given, so the server judges the arguments; a seed of its own would make every
/// game the same.
fn bot_game(words: &str) -> Result<&'static GameKind, Error> {
    let wrong = |reason: String| Error::BotGame {
        given: words.to_string(),
        reason,
    };
    if words.len() > script::MAX_LINE || words.chars().any(char::is_control) {
        return Err(wrong(format!(
            "at most {} bytes on one line",
            script::MAX_LINE
        )));
    }
    let mut parts = words.split_whitespace();
    let kind = parts.next().and_then(GameKind::from_name).ok_or_else(|| {
        let games: Vec<&str> = GAMES.iter().map(|kind| kind.name).collect();
        wrong(format!(
            "the first word must be a game: {}",
            games.join(", ")
        ))
    })?;
    if parts.any(|word| word.to_ascii_lowercase().starts_with("seed=")) {
        return Err(wrong(String::from(
            "no seed=: every game gets its seed from --bot-seeds",
        )));
    }
    Ok(kind)
}

/// `ladder open`'s words for `--bot-game` and `--bot-seeds`: a ladder plays a game's
/// seeds with no other argument (wumpus' are random worlds, as `wumpus random`).
fn ladder_opening(kind: &GameKind, options: &Options) -> Result<String, Error> {
    let extra: Vec<&str> = options.bot_game.split_whitespace().skip(1).collect();
    if !(extra.is_empty() || (kind.name == "wumpus" && extra == ["random"])) {
        return Err(Error::BotGame {
            given: options.bot_game.clone(),
            reason: String::from(
                "a ladder plays the game's seeds with no other words (wumpus: random worlds)",
            ),
        });
    }
    let mut opening = format!("{} seeds={}", kind.name, options.bot_seeds);
    if let Some(limit) = options.ladder_move {
        opening.push_str(&format!(" move={}ms", limit.as_millis()));
    }
    Ok(opening)
}

/// Run `bots` bots as `options` say, and report.
pub(crate) async fn run(options: &Options, bots: NonZeroUsize) -> Result<Report, Error> {
    let kind = bot_game(&options.bot_game)?;
    if options.bot_max_actions == 0 {
        return Err(Error::NoBotActions);
    }
    let game = options
        .bot_game
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // The ladder is opened, and its baselines played, before anything is measured.
    let mut ladder = match &options.bot_ladder_admin {
        Some(admin) => {
            let opening = ladder_opening(kind, options)?;
            let password = options
                .admin_password
                .as_deref()
                .ok_or(Error::NoAdminPassword)?;
            let mut admin = Admin::log_in(options.addr, admin, password, options.timeout).await?;
            let id = admin.open(&opening).await?;
            let baselines = admin.baselines(id).await?;
            Some((admin, id, baselines))
        }
        None => None,
    };
    let capacity = server::session_capacity();
    let count = bots.get().min(capacity);
    let rss_before = options.server_pid.map(read_rss).transpose()?;
    let cpu_before = options.server_pid.map(read_cpu_seconds).transpose()?;
    let shared = Arc::new(Bots {
        game,
        name: kind.name,
        seeds: options.bot_seeds,
        policy_seed: options.policy_seed,
        max_actions: options.bot_max_actions,
        ladder: ladder.as_ref().map(|(_, id, _)| *id),
        tally: Tally::new(),
    });
    let start = Instant::now();
    let ramp = if options.burst {
        Duration::ZERO
    } else {
        options
            .ramp
            .unwrap_or(Duration::from_millis(1).saturating_mul(saturate(count)))
    };
    // The connects are the only part of a Plan bots use: there is no window.
    let plan = Arc::new(Plan {
        target: options.addr,
        sources: connection::sources(options.addr, options.sources),
        ssh: options.ssh,
        script: Script::of_bots(kind, &shared.play_command(options.bot_seeds.first())),
        setup: Box::default(),
        restart: None,
        mode: Mode::Bots,
        timeout: options.timeout,
        sessions: count,
        watchers: 0,
        names: None,
        watched: Box::default(),
        race: None,
        start,
        ramp,
        measure_start: start,
        end: start,
    });
    let recorder = Arc::new(Recorder::new(!options.quiet));
    let mut tasks = JoinSet::new();
    for index in 0..count {
        tasks.spawn(bot::session(
            index,
            Arc::clone(&plan),
            Arc::clone(&shared),
            Arc::clone(&recorder),
        ));
    }
    let games_expected = saturate_u64(count).saturating_mul(options.bot_seeds.count());
    let mut rss_peak = rss_before;
    let mut ticker =
        tokio::time::interval_at(start + Duration::from_secs(1), Duration::from_secs(1));
    loop {
        tokio::select! {
            joined = tasks.join_next() => match joined {
                None => break,
                Some(Ok(())) => {}
                Some(Err(error)) => recorder.failure(format!("the bot's task ended: {error}")),
            },
            _ = ticker.tick() => {
                let interval = recorder.take_interval();
                if !options.quiet {
                    let finished = shared.tally.games_finished.load(Ordering::Relaxed);
                    eprintln!(
                        "{}  games {finished}/{games_expected}",
                        stats::progress_line(start.elapsed(), "bots", &recorder, count, &interval)
                    );
                }
                rss_peak = peak(rss_peak, options.server_pid);
            }
        }
    }
    let wall = start.elapsed().as_secs_f64();
    rss_peak = peak(rss_peak, options.server_pid);
    let cpu_after = options.server_pid.map(read_cpu_seconds).transpose()?;
    let actions = recorder.measured();
    let tally = &shared.tally;
    let ladder_report = match ladder.as_mut() {
        Some((admin, id, baselines)) => {
            let entered = tally.bots_done.load(Ordering::Relaxed);
            let (settle, totals) = admin.settle(*id, entered).await?;
            Some(LadderReport {
                id: *id,
                move_ms: options
                    .ladder_move
                    .map(|limit| u64::try_from(limit.as_millis()).unwrap_or(u64::MAX)),
                baselines_seconds: baselines.as_secs_f64(),
                settle_seconds: settle.as_secs_f64(),
                entrants: totals.entrants,
                counted: totals.counted,
                waiting: totals.waiting,
                refused: totals.refused,
                forfeits: tally.forfeits.load(Ordering::Relaxed),
                texts: tally.ladder_texts.load(Ordering::Relaxed),
                server_cpu_seconds_settled: cpu_before
                    .zip(options.server_pid.map(read_cpu_seconds).transpose()?)
                    .map(|(before, after)| after - before),
            })
        }
        None => None,
    };
    let finished = tally.games_finished.load(Ordering::Relaxed);
    let per_second = |count: u64| if wall > 0.0 { count as f64 / wall } else { 0.0 };
    let server_cpu = cpu_before.zip(cpu_after).map(|(before, after)| {
        let seconds = after - before;
        ServerCpu {
            seconds,
            us_per_command: (!actions.is_empty()).then(|| seconds * 1e6 / actions.len() as f64),
        }
    });
    let bots_report = BotsReport {
        bots_requested: bots.get(),
        bots: count,
        game: shared.game.clone(),
        start_line: shared.start_line(),
        ladder: ladder_report,
        seeds: options.bot_seeds,
        policy_seed: options.policy_seed,
        max_actions: options.bot_max_actions,
        bots_done: tally.bots_done.load(Ordering::Relaxed),
        games_expected,
        games_started: tally.games_started.load(Ordering::Relaxed),
        games_finished: finished,
        games_ended_by_game: tally.ended_by_game.load(Ordering::Relaxed),
        games_left_stuck: tally.left_stuck.load(Ordering::Relaxed),
        games_left_capped: tally.left_capped.load(Ordering::Relaxed),
        games_left_after_error: tally.left_after_error.load(Ordering::Relaxed),
        score_sum: tally.score_sum.load(Ordering::Relaxed),
        mean_score: (finished > 0)
            .then(|| tally.score_sum.load(Ordering::Relaxed) as f64 / finished as f64),
        wall_seconds: wall,
        games_per_second: per_second(finished),
        actions: actions.len(),
        actions_per_second: per_second(actions.len()),
        start: Latency::of(&tally.starts()),
        errors: tally.errors.load(Ordering::Relaxed),
        error_texts: tally.error_texts(),
        messages: tally.messages.load(Ordering::Relaxed),
        server_rss_before_kib: rss_before,
        server_rss_peak_kib: rss_peak,
    };
    Ok(Report {
        addr: options.addr.to_string(),
        game: plan.script.clone(),
        lobby_line: plan.script.lobby_line().to_string(),
        script_commands: Vec::new(),
        setup: Vec::new(),
        setup_replies: None,
        mode: Mode::Bots.name(),
        rate: 0.0,
        place: "game",
        names: true,
        chat_rate: 0.0,
        watchers_requested: 0,
        watchers: 0,
        sessions_requested: bots.get(),
        sessions: count,
        capped_by_open_files: (count < bots.get()).then_some(capacity),
        source_addresses: plan.sources.len(),
        connected: recorder.connected.load(Ordering::Relaxed),
        failures: recorder.failed.load(Ordering::Relaxed),
        failure_reasons: recorder.failure_reasons(),
        commands: actions.len(),
        commands_whole_run: recorder.commands.load(Ordering::Relaxed),
        restart_every: None,
        games_restarted: 0,
        games_restarted_whole_run: 0,
        measured_seconds: wall,
        commands_per_second: per_second(actions.len()),
        latency: Latency::of(&actions),
        connect: Latency::of(&recorder.connects()),
        server_memory: None,
        server_cpu,
        latency_histogram: report::buckets(&actions),
        chat_lines: 0,
        chat_refused: 0,
        deliveries_expected: 0,
        deliveries_received: 0,
        deliveries_skipped: 0,
        delivery: Latency::default(),
        delivery_histogram: Vec::new(),
        race: None,
        race_line: None,
        races: 0,
        racers_done: 0,
        racers_playing_at_end: 0,
        bots: Some(bots_report),
        upgrade: None,
    })
}

/// The larger of `peak` and the server's resident memory now (a reading that fails is
/// left out: the run goes on).
fn peak(peak: Option<u64>, pid: Option<u32>) -> Option<u64> {
    let now = pid.and_then(|pid| read_rss(pid).ok());
    match (peak, now) {
        (Some(peak), Some(now)) => Some(peak.max(now)),
        (peak, now) => peak.or(now),
    }
}

fn saturate(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

fn saturate_u64(count: usize) -> u64 {
    u64::try_from(count).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_a_range_or_one() {
        let seeds: Seeds = "1-100".parse().unwrap();
        assert_eq!((seeds.first(), seeds.count()), (1, 100));
        assert_eq!(seeds.iter().last(), Some(100));
        assert_eq!(seeds.to_string(), "1-100");
        let one: Seeds = "7".parse().unwrap();
        assert_eq!(one.iter().collect::<Vec<_>>(), [7]);
        assert_eq!(
            "0-18446744073709551615".parse::<Seeds>().unwrap().count(),
            u64::MAX
        );
        for bad in ["", "5-1", "a-b", "1-", "-3", "1-2-3"] {
            assert!(bad.parse::<Seeds>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bot_game_is_a_game_of_the_table_without_a_seed() {
        assert_eq!(bot_game("wumpus random").unwrap().name, "wumpus");
        assert_eq!(bot_game("2048 size=5").unwrap().name, "2048");
        for bad in [
            "",
            "chess",
            "2048 seed=3",
            "wumpus random SEED=1",
            "2048\nwho",
        ] {
            assert!(
                matches!(bot_game(bad), Err(Error::BotGame { .. })),
                "{bad:?}"
            );
        }
    }
}
