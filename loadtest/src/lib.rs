//! `arcade loadtest`: many concurrent players against a server, measured.
//!
//! A crate of its own (arcade-loadtest), so that the server links none of what only
//! the load tester needs; it uses arcade's library for what it plays and expects (the
//! table of games, the prompts, the races' rules). Its binaries are `arcade-loadtest`
//! (`src/main.rs`, which `arcade loadtest` runs) and `arcade-minimal`, the baseline
//! server of the benchmark. [`run`] is the whole load test; [`Options`] its command
//! line and [`Report`] its result.
//!
//! Each session connects (spread over several loopback source addresses), reads the
//! banner, starts a game from the lobby and plays it with real commands from a
//! [`Script`], timing every command from the moment it is due to the next prompt.
//!
//! - **Open loop** (`--rate R`, R > 0): each session sends R commands a second on a
//!   fixed schedule, with a random phase so sessions do not fire together. A command
//!   is timed from its send to the next prompt; when a slow reply made it go out late,
//!   from when it was *due*, so the wait counts against the latency instead of hiding
//!   it (no coordinated omission).
//! - **Closed loop** (`--rate 0`): each session sends its next command as soon as the
//!   previous reply is complete; this measures throughput.
//! - **Idle** (`--idle`): sessions start their game and then sit; with
//!   `--server-pid` this measures the server's memory per in-game session.
//! - **Scripts and setup**: `--lobby-line LINE --commands LIST` plays a script of the
//!   caller's instead of the table's (a level of the server's `--levels`, a push
//!   every few commands); `--setup LINE` (repeatable) is sent in the lobby before the
//!   game, untimed, such as `set warnings on`.
//! - **Restarts** (`--restart-every K`, with either loop): after every K commands a
//!   session ends its game the game's own way and starts a new one from the lobby,
//!   each of the two lines timed and scheduled like a command. Every game ended is a
//!   finished game for the server to record (a result, for a named player's 2048).
//!
//! The players' commands of SPEC section 7 add loads of their own, where what is timed
//! is a *delivery*: something one session sends reaching another.
//!
//! - **Names** (`--names`): each session takes a name right after the banner.
//! - **Lobby** (`--lobby`): sessions stay in the lobby instead of starting a game.
//! - **Chat** (`--chat R`): sessions in the lobby say R lines a second between them, on
//!   a fixed schedule that keeps each session within the server's chat limit. A line
//!   carries its send time; every other session reads it when it arrives (sessions
//!   read their sockets all the time) and records the delivery.
//! - **Watching** (`--watchers N`): N more sessions each watch a player; each frame a
//!   watcher receives is timed from when the player sent the command it answers.
//! - **Races** (`--race N`, SPEC 9): the sessions race 2048 in races of N; each racer
//!   plays on the open-loop schedule, its moves timed as commands, and every progress
//!   line (`[race K] NAME reached 16.`) a racer hears is timed from when NAME sent the
//!   move that caused it.
//!
//! Deliveries go into histograms of their own; the report counts how many were
//! expected and how many came, since a lost delivery has no latency to show. After the
//! measured window, sessions stay until the last expected delivery has come (or
//! `--timeout` has passed), so that a late delivery counts as late, not as lost.
//!
//! Programs play too (SPEC section 12): with `--bots N`, N connections each become a
//! bot (`bot loadbot-K`, JSON lines from then on) and play one game after another,
//! one for every seed of `--bot-seeds`, each with a seeded random policy over the
//! legal actions, every action sent when the last state came and timed until the
//! next. That run has no window: it lasts until every bot has played every seed, and
//! reports the wall time, the games and actions per second and the latency per
//! action.
//!
//! With `--server-pid` (a server on this machine) the report also gives the CPU time
//! the server used in the measured window, per command: a cost that a noisy machine
//! disturbs far less than it disturbs latency.
//!
//! The timeline: connects are spread over the ramp (`--ramp`, by default 1 ms per
//! session; `--burst` connects all at once), then a warm-up (`--warmup`) whose
//! commands are not counted, then the measured window (`--duration`). Sessions stay
//! connected until the window ends: a disconnect inside it would be timed along with
//! the commands. A progress line goes to stderr every second; the [`Report`] is the
//! summary.

mod bot;
mod bots;
mod chatter;
mod connection;
mod driver;
mod failure;
mod ladder;
mod monitor;
mod options;
mod parse;
mod plan;
mod racer;
mod racing;
mod report;
mod script;
mod social;
mod stats;
mod upgrade;
mod watcher;

use std::num::NonZeroUsize;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

use arcade::games::twenty48;
use arcade::{races::rules, server};
use monitor::{read_rss, watch};
use plan::{Mode, Plan};
use racing::Racing;
use script::Restart;
use social::Watched;
use stats::Recorder;

pub use bots::Seeds;
pub use ladder::LadderReport;
pub use options::{Error, Options, DEFAULT_BOT_GAME, DEFAULT_BOT_MAX_ACTIONS, DEFAULT_RACE_ARGS};
pub use report::{BotsReport, Latency, Report, ServerCpu, ServerMemory};
pub use script::{Script, ScriptError};

/// Run a load test as `options` say, printing progress lines to stderr unless quiet,
/// and return the report. Must run inside a tokio runtime (multi-thread, preferably).
///
/// # Errors
/// The options are out of range, or `--server-pid` cannot be read.
pub async fn run(options: &Options) -> Result<Report, Error> {
    if let Some(bots) = options.bots {
        return bots::run(options, bots).await;
    }
    if !options.rate.is_finite() || options.rate < 0.0 {
        return Err(Error::Rate(options.rate));
    }
    if options.sessions == 0 {
        return Err(Error::NoSessions);
    }
    if options.duration.is_zero() {
        return Err(Error::NoDuration);
    }
    if let Some(rate) = options.chat {
        if !rate.is_finite() || rate <= 0.0 {
            return Err(Error::Chat(rate));
        }
    }
    let lobby = options.lobby || options.chat.is_some();
    if lobby && options.watchers > 0 {
        return Err(Error::WatchersInLobby);
    }
    let racing = options.race.is_some();
    // A race plays 2048, whose script the table has (a test checks it).
    let script = match &options.lobby_line {
        Some(line) => Script::custom(line, &options.commands)?,
        None if racing => Script::from_name("2048").unwrap_or_else(|| options.game.clone()),
        None => options.game.clone(),
    };
    if !options.setup.is_empty() && (lobby || racing) {
        return Err(Error::SetupNotPlaying);
    }
    if let Some(line) = options
        .setup
        .iter()
        .find(|line| line.len() > script::MAX_LINE || line.chars().any(char::is_control))
    {
        return Err(Error::SetupLine(line.clone()));
    }
    let restart = match options.restart_every {
        Some(_) if lobby || options.idle || options.watchers > 0 => {
            return Err(Error::RestartNotPlaying)
        }
        Some(every) => {
            let exit = script.exit_line().map_err(|reason| Error::NoExitLine {
                game: script.name(),
                reason,
            })?;
            Some(Restart { every, exit })
        }
        None => None,
    };
    if racing
        && (lobby
            || options.idle
            || options.watchers > 0
            || options.restart_every.is_some()
            || options.rate == 0.0)
    {
        return Err(Error::RaceNotPlaying);
    }
    let milestone = if racing {
        race_milestone(&options.race_args)?
    } else {
        0
    };
    let names = options.names || options.chat.is_some() || options.watchers > 0 || racing;
    let capacity = server::session_capacity();
    let sessions = options.sessions.min(capacity);
    let watchers = options.watchers.min(capacity - sessions);
    let capped = (sessions < options.sessions || watchers < options.watchers).then_some(capacity);
    let mode = if let Some(rate) = options.chat {
        // One line a second per session is the server's limit (after a burst of 5,
        // which a fixed schedule never uses).
        if rate > sessions as f64 {
            return Err(Error::ChatTooFast { rate, sessions });
        }
        Mode::Chat(Duration::from_secs_f64(sessions as f64 / rate))
    } else if options.idle || lobby {
        Mode::Idle
    } else if options.rate == 0.0 {
        Mode::Closed
    } else {
        Mode::Open(Duration::from_secs_f64(1.0 / options.rate))
    };
    let rss_before = options.server_pid.map(read_rss).transpose()?;
    let total = sessions + watchers;
    let ramp = if options.burst {
        Duration::ZERO
    } else {
        options
            .ramp
            .unwrap_or(Duration::from_millis(1).saturating_mul(saturate(total)))
    };
    let watched = if watchers > 0 {
        (0..sessions)
            .map(|player| Watched::new(watchers_of(player, sessions, watchers)))
            .collect()
    } else {
        Box::default()
    };
    let race = options.race.map(|size| {
        let line = format!("race 2048 {}", options.race_args.trim());
        Racing::new(sessions, size.get(), line, milestone)
    });
    let start = Instant::now();
    let measure_start = start + ramp + options.warmup;
    let plan = Arc::new(Plan {
        target: options.addr,
        sources: connection::sources(options.addr, options.sources),
        ssh: options.ssh,
        script,
        setup: options.setup.clone().into_boxed_slice(),
        restart,
        mode,
        timeout: options.timeout,
        sessions,
        watchers,
        names: names.then(social::run_tag),
        watched,
        race,
        start,
        ramp,
        measure_start,
        end: measure_start + options.duration,
    });
    let recorder = Arc::new(Recorder::new(!options.quiet));
    let mut tasks = JoinSet::new();
    for index in 0..total {
        let (plan, recorder) = (Arc::clone(&plan), Arc::clone(&recorder));
        if index >= sessions {
            tasks.spawn(watcher::session(index, plan, recorder));
            continue;
        }
        // Counted before any session starts, so that no drain can end before a
        // session that has yet to send.
        let sending = recorder.sending();
        if lobby {
            tasks.spawn(chatter::session(index, plan, recorder, sending));
        } else if racing {
            tasks.spawn(racer::session(index, plan, recorder, sending));
        } else {
            tasks.spawn(driver::session(index, plan, recorder, sending));
        }
    }
    let upgrading = options.upgrade_after.map(|after| {
        let (recorder, data_dir) = (Arc::clone(&recorder), options.upgrade_data_dir.clone());
        let at = measure_start + after;
        tokio::spawn(async move {
            upgrade::ask_at(at, data_dir.unwrap_or_default(), &recorder.stall).await
        })
    });
    let server = watch(&plan, &recorder, options, rss_before).await;
    recorder.end();
    // Sessions waiting for a reply at the end get their timeout to finish; so do
    // sessions waiting for deliveries still on their way.
    let grace = plan.end + options.timeout + Duration::from_secs(1);
    while let Ok(Some(_)) = tokio::time::timeout_at(grace, tasks.join_next()).await {}
    let stragglers = tasks.len();
    if stragglers > 0 {
        tasks.abort_all();
        for _ in 0..stragglers {
            recorder.failure(String::from("still running after the end"));
        }
    }
    let upgrade = match upgrading {
        Some(task) => task
            .await
            .ok()
            .map(|report| upgrade::finish(report, &recorder.stall)),
        None => None,
    };
    let measured = recorder.measured();
    let deliveries = recorder.measured_deliveries();
    let counts = recorder.delivery_counts();
    let seconds = options.duration.as_secs_f64();
    let server_cpu = server.cpu.map(|seconds| ServerCpu {
        seconds,
        us_per_command: (!measured.is_empty()).then(|| seconds * 1e6 / measured.len() as f64),
    });
    Ok(Report {
        addr: options.addr.to_string(),
        game: plan.script.clone(),
        lobby_line: plan.script.lobby_line().to_string(),
        script_commands: plan.script.commands().to_vec(),
        setup: options.setup.clone(),
        setup_replies: recorder.setup_replies(),
        mode: mode.name(),
        rate: if matches!(mode, Mode::Open(_)) {
            options.rate
        } else {
            0.0
        },
        place: if lobby { "lobby" } else { "game" },
        names,
        chat_rate: options.chat.unwrap_or(0.0),
        watchers_requested: options.watchers,
        watchers,
        sessions_requested: options.sessions,
        sessions,
        capped_by_open_files: capped,
        source_addresses: plan.sources.len(),
        connected: recorder.connected.load(Ordering::Relaxed),
        failures: recorder.failed.load(Ordering::Relaxed),
        failure_reasons: recorder.failure_reasons(),
        commands: measured.len(),
        commands_whole_run: recorder.commands.load(Ordering::Relaxed),
        restart_every: options.restart_every.map(NonZeroUsize::get),
        games_restarted: recorder.restarts_measured.load(Ordering::Relaxed),
        games_restarted_whole_run: recorder.restarts.load(Ordering::Relaxed),
        measured_seconds: seconds,
        commands_per_second: measured.len() as f64 / seconds,
        latency: Latency::of(&measured),
        connect: Latency::of(&recorder.connects()),
        server_memory: server.memory,
        server_cpu,
        latency_histogram: report::buckets(&measured),
        chat_lines: counts.chat_lines,
        chat_refused: counts.chat_refused,
        deliveries_expected: counts.expected,
        deliveries_received: counts.received,
        deliveries_skipped: counts.skipped,
        delivery: Latency::of(&deliveries),
        delivery_histogram: report::buckets(&deliveries),
        race: options.race.map(NonZeroUsize::get),
        race_line: plan.race.as_ref().map(|racing| racing.line.clone()),
        races: plan.race.as_ref().map_or(0, Racing::races),
        racers_done: recorder.racers_done.load(Ordering::Relaxed),
        racers_playing_at_end: recorder.racers_playing.load(Ordering::Relaxed),
        bots: None,
        upgrade,
    })
}

/// The smallest tile whose reaching a race of `args` (`--race-args`) tells the
/// others: [`rules::milestone`] of its win tile, so that the two cannot disagree.
fn race_milestone(args: &str) -> Result<u64, Error> {
    // `time=` is the race's, not the game's (`race GAME [ARGS] [time=DURATION]`).
    let words: Vec<&str> = args
        .split_whitespace()
        .filter(|word| !word.to_ascii_lowercase().starts_with("time="))
        .collect();
    let (settings, _) = twenty48::parse_args(&words).map_err(|error| Error::RaceArgs {
        args: args.to_string(),
        reason: error.to_string(),
    })?;
    let win = u64::try_from(settings.win.value()).unwrap_or(u64::MAX);
    Ok(rules::milestone(win))
}

fn saturate(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// How many of `watchers` watch `player` of `players`, when watcher i watches player
/// i mod `players`.
fn watchers_of(player: usize, players: usize, watchers: usize) -> usize {
    watchers / players + usize::from(player < watchers % players)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watchers_are_dealt_round_the_players() {
        // Watcher i watches player i mod players.
        assert_eq!(watchers_of(0, 1, 1000), 1000);
        let dealt: Vec<usize> = (0..3).map(|player| watchers_of(player, 3, 7)).collect();
        assert_eq!(dealt, vec![3, 2, 2]);
        assert_eq!(watchers_of(4, 5, 3), 0);
    }

    #[tokio::test]
    async fn bad_options_are_refused() {
        let options = Options {
            rate: -1.0,
            ..Options::default()
        };
        assert!(matches!(run(&options).await, Err(Error::Rate(_))));
        let options = Options {
            sessions: 0,
            ..Options::default()
        };
        assert!(matches!(run(&options).await, Err(Error::NoSessions)));
        let options = Options {
            sessions: 10,
            chat: Some(11.0),
            ..Options::default()
        };
        assert!(matches!(
            run(&options).await,
            Err(Error::ChatTooFast { sessions: 10, .. })
        ));
        let options = Options {
            chat: Some(0.0),
            ..Options::default()
        };
        assert!(matches!(run(&options).await, Err(Error::Chat(_))));
        let options = Options {
            lobby: true,
            watchers: 1,
            ..Options::default()
        };
        assert!(matches!(run(&options).await, Err(Error::WatchersInLobby)));
        let every = NonZeroUsize::new(3);
        for options in [
            Options {
                lobby: true,
                restart_every: every,
                ..Options::default()
            },
            Options {
                chat: Some(1.0),
                restart_every: every,
                ..Options::default()
            },
            Options {
                idle: true,
                restart_every: every,
                ..Options::default()
            },
            Options {
                watchers: 1,
                restart_every: every,
                ..Options::default()
            },
        ] {
            assert!(matches!(run(&options).await, Err(Error::RestartNotPlaying)));
        }
    }

    #[test]
    fn a_races_milestone_is_the_servers() {
        assert_eq!(race_milestone(DEFAULT_RACE_ARGS).unwrap(), 8);
        // The game's default win, 2048: lines from 64 on.
        assert_eq!(race_milestone("").unwrap(), 64);
        assert_eq!(race_milestone("win=4096 TIME=5m seed=3").unwrap(), 128);
        for bad in ["size=9", "win=3", "colour=red", "seed=1 seed=2"] {
            assert!(
                matches!(race_milestone(bad), Err(Error::RaceArgs { .. })),
                "{bad}"
            );
        }
    }

    #[tokio::test]
    async fn races_are_refused_with_loads_that_do_not_play() {
        let race = NonZeroUsize::new(3);
        for options in [
            Options {
                rate: 0.0,
                race,
                ..Options::default()
            },
            Options {
                lobby: true,
                race,
                ..Options::default()
            },
            Options {
                idle: true,
                race,
                ..Options::default()
            },
            Options {
                watchers: 2,
                race,
                ..Options::default()
            },
            Options {
                restart_every: NonZeroUsize::new(2),
                race,
                ..Options::default()
            },
        ] {
            assert!(matches!(run(&options).await, Err(Error::RaceNotPlaying)));
        }
        let options = Options {
            race,
            race_args: String::from("size=2"),
            ..Options::default()
        };
        assert!(matches!(run(&options).await, Err(Error::RaceArgs { .. })));
    }
}
