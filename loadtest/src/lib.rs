//! `arcade loadtest`: many concurrent players against a server, measured.
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

mod chatter;
mod connection;
mod driver;
mod parse;
mod racer;
mod racing;
mod script;
mod social;
mod stats;
mod watcher;

use std::net::{Ipv4Addr, SocketAddr};
use std::num::NonZeroUsize;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

use arcade::games::twenty48;
use arcade::{net::server, races::rules};
use connection::Waiting;
use racing::Racing;
use script::Restart;
use social::Watched;
use stats::Recorder;

pub use script::Script;
pub use stats::{Latency, Report, ServerCpu, ServerMemory};

/// Everything `arcade loadtest` can be told.
#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// The server to test.
    #[arg(long, default_value = "127.0.0.1:4000")]
    pub addr: SocketAddr,
    /// How many sessions at once (capped by the open-file limit, which is raised to
    /// its hard maximum first).
    #[arg(long, default_value_t = 100)]
    pub sessions: usize,
    /// Commands per second per session; 0 sends each command as soon as the previous
    /// reply arrives (closed loop).
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// Start the game and send nothing more (for measuring memory per session); with
    /// --lobby, sit in the lobby.
    #[arg(long, conflicts_with = "rate")]
    pub idle: bool,
    /// Each session takes a name (`name ltXXXX-N`, unique in the run) right after the
    /// banner. Implied by --chat, --watchers and --race.
    #[arg(long)]
    pub names: bool,
    /// Stay in the lobby instead of starting a game (implied by --chat).
    #[arg(long, conflicts_with_all = ["rate", "watchers"])]
    pub lobby: bool,
    /// Lines of chat (`say`) per second across all sessions, which stay in the lobby:
    /// each session says one every SESSIONS/R seconds (at most one a second, the
    /// server's limit), and every other session times its delivery.
    #[arg(long, value_name = "R", conflicts_with_all = ["rate", "idle", "watchers"])]
    pub chat: Option<f64>,
    /// This many more sessions, each watching a player (`watch NAME`): watcher i
    /// watches player i mod --sessions, and times every frame from when the player
    /// sent the command it answers.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub watchers: usize,
    /// How long to measure, after the ramp and the warm-up, e.g. 30s, 2m.
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    pub duration: Duration,
    /// How long to play before measuring (not counted).
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration)]
    pub warmup: Duration,
    /// Spread the connects evenly over this long [default: 1 ms per session].
    #[arg(long, value_parser = humantime::parse_duration, conflicts_with = "burst")]
    pub ramp: Option<Duration>,
    /// Open every connection at once.
    #[arg(long)]
    pub burst: bool,
    /// The game to play.
    #[arg(long, default_value = "sokoban", value_parser = Script::value_parser())]
    pub game: Script,
    /// After every K commands of a game, end it the game's own way (`e`, `q`, `quit`),
    /// wait for the lobby, and start a new game with the same lobby line; both lines
    /// are timed and scheduled like commands. Each session's first game is cut after a
    /// random 1 to K commands, so that sessions started together do not end their
    /// games together.
    #[arg(
        long,
        value_name = "K",
        value_parser = parse_restart_every,
        conflicts_with_all = ["lobby", "chat", "idle", "watchers"]
    )]
    pub restart_every: Option<NonZeroUsize>,
    /// Race 2048 (SPEC 9) in races of N sessions (the last race may have fewer), N from
    /// 1 to 500 (the server's largest race). Implies --names and 2048. In each race
    /// the first session opens it (`race 2048 RACE_ARGS`), the others join, and the
    /// opener starts it once everyone is in; then each racer plays random moves on
    /// the --rate schedule, each timed as a command, and times at every other racer
    /// each progress line its moves cause (`[race K] NAME reached 16.`) from when it
    /// sent the move. A racer whose game is over (the win tile, or no move left)
    /// stops sending and stays to the end, hearing the others.
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_race,
        conflicts_with_all = ["game", "lobby", "chat", "idle", "watchers", "restart_every"]
    )]
    pub race: Option<NonZeroUsize>,
    /// The 2048 arguments of every race of --race (and `time=DURATION` for a time
    /// limit). The default keeps random play going and its lines coming: on a 5x5
    /// board random moves are almost never stuck within 100 moves (a 4x4 board is in
    /// about 1 game of 6), and win=256 makes 8 the first tile the others hear of
    /// (win/32, at least 8), so that lines come from the first seconds on: 8, 16 and
    /// 32 in about 6, 15 and 31 moves, where the usual win=2048 would tell nothing
    /// before 64, some 60 moves in.
    #[arg(long, value_name = "ARGS", default_value = DEFAULT_RACE_ARGS)]
    pub race_args: String,
    /// Spread connections over this many source addresses, 127.0.0.1 to 127.0.0.N
    /// (only when --addr is an IPv4 loopback address).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..))]
    pub sources: u8,
    /// Give up on a session whose reply (or banner) takes longer than this.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    pub timeout: Duration,
    /// A server on this machine: report its resident memory per session (from
    /// /proc/PID/status, before the sessions and when the measured window begins) and
    /// the CPU time it used in the measured window (from /proc/PID/stat).
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 4000)),
            sessions: 100,
            rate: 1.0,
            idle: false,
            names: false,
            lobby: false,
            chat: None,
            watchers: 0,
            duration: Duration::from_secs(30),
            warmup: Duration::from_secs(5),
            ramp: None,
            burst: false,
            game: Script::default(),
            restart_every: None,
            race: None,
            race_args: String::from(DEFAULT_RACE_ARGS),
            sources: 8,
            timeout: Duration::from_secs(10),
            server_pid: None,
            json: false,
            quiet: false,
        }
    }
}

/// The default `--race-args` (see there for why).
pub const DEFAULT_RACE_ARGS: &str = "seed=1 size=5 win=256";

/// Options that cannot make a load test.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--rate` is negative, NaN or infinite.
    #[error("--rate must be a number of commands per second, 0 or more (got {0})")]
    Rate(f64),
    /// `--sessions 0`.
    #[error("--sessions must be at least 1")]
    NoSessions,
    /// `--duration 0s`.
    #[error("--duration must be longer than zero")]
    NoDuration,
    /// `--chat` is not a positive number.
    #[error("--chat must be a number of lines per second, more than 0 (got {0})")]
    Chat(f64),
    /// `--chat` asks a session for more than the server's one line a second.
    #[error(
        "--chat {rate} is more than one line a second for each of {sessions} sessions, over the server's chat limit: raise --sessions or lower --chat"
    )]
    ChatTooFast {
        /// Lines per second asked for.
        rate: f64,
        /// Sessions to say them.
        sessions: usize,
    },
    /// `--watchers` with `--lobby` or `--chat`.
    #[error("--watchers watch players in a game: not with --lobby or --chat")]
    WatchersInLobby,
    /// `--restart-every` with `--lobby`, `--chat`, `--idle` or `--watchers`.
    #[error("--restart-every ends and starts games while playing them: not with --lobby, --chat, --idle or --watchers")]
    RestartNotPlaying,
    /// `--race` with a load that does not play on the open-loop schedule.
    #[error("--race plays 2048 on the open-loop schedule: not with --lobby, --chat, --idle, --watchers, --restart-every or --rate 0")]
    RaceNotPlaying,
    /// `--race-args` that a 2048 game refuses.
    #[error("--race-args {args:?}: {reason}")]
    RaceArgs {
        /// The arguments given.
        args: String,
        /// The game's reason.
        reason: String,
    },
    /// The game gives no exit line for `--restart-every`.
    #[error("--restart-every: cannot ask {game} for its exit line: {reason}")]
    NoExitLine {
        /// The game.
        game: &'static str,
        /// Why its script's game did not start.
        reason: String,
    },
    /// `--server-pid` names a process whose /proc files cannot be read.
    #[error(
        "cannot read /proc/{pid}/{file} (is --server-pid a process on this machine?): {reason}"
    )]
    Server {
        /// The process.
        pid: u32,
        /// The file under /proc/PID.
        file: &'static str,
        /// What went wrong.
        reason: String,
    },
}

/// Why one session failed; its text is the reason the report counts.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// The TCP connect failed.
    #[error("connect: {0}")]
    Connect(std::io::Error),
    /// The server turned the session away.
    #[error("server full")]
    ServerFull,
    /// Nothing (or no prompt) within `--timeout`.
    #[error("timed out waiting for {0}")]
    Timeout(Waiting),
    /// The server closed the connection.
    #[error("closed by the server while waiting for {waiting}{}", last_line(.last))]
    Closed {
        /// What we were waiting for.
        waiting: Waiting,
        /// The last line received, if any.
        last: String,
    },
    /// The lobby prompt came instead of the game's, or the other way round.
    #[error("got the {got} prompt while waiting for {waiting}")]
    WrongPrompt {
        /// What we were waiting for.
        waiting: Waiting,
        /// The prompt that came.
        got: String,
    },
    /// A reply grew past any board without a prompt.
    #[error("no prompt in 64 KiB while waiting for {0}")]
    TooLong(Waiting),
    /// Reading failed (e.g. reset by the server).
    #[error("read: {0}")]
    Read(std::io::Error),
    /// Writing failed.
    #[error("write: {0}")]
    Write(std::io::Error),
    /// A reply other than the one the protocol gives.
    #[error("unexpected reply while waiting for {waiting}: {got:?}")]
    Unexpected {
        /// What we were waiting for.
        waiting: Waiting,
        /// The start of what came.
        got: String,
    },
    /// The player a watcher was to watch failed before its game started.
    #[error("the watched player never started its game")]
    NoPlayer,
    /// The first board came after the player's first command, so the frames cannot
    /// be matched to the commands.
    #[error("watching began after the player's first command (the player waits for its watchers until the measured window; raise --warmup)")]
    LateWatch,
    /// A frame came that none of the player's commands can have caused.
    #[error("a frame beyond the player's commands (frame {0})")]
    StrayFrame(usize),
    /// The server sent the watcher back to the lobby while the run went on.
    #[error("the watched game ended{}", last_line(.0))]
    WatchEnded(String),
    /// The host of a racer's race failed before it opened the race, or did not open
    /// it before the measured window.
    #[error("the race's host never opened it")]
    NoRace,
}

impl Failure {
    /// The start of `reply`, as text, for [`Failure::Unexpected`].
    pub(crate) fn unexpected(waiting: Waiting, reply: &[u8]) -> Failure {
        let got = String::from_utf8_lossy(reply).chars().take(80).collect();
        Failure::Unexpected { waiting, got }
    }
}

fn last_line(last: &str) -> String {
    if last.is_empty() {
        String::new()
    } else {
        format!(" (last line: {last:?})")
    }
}

/// How sessions send commands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Mode {
    /// One command every this long.
    Open(Duration),
    /// The next command on each reply.
    Closed,
    /// No commands.
    Idle,
    /// In the lobby, each session one line of chat every this long.
    Chat(Duration),
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Open(_) => "open",
            Mode::Closed => "closed",
            Mode::Idle => "idle",
            Mode::Chat(_) => "chat",
        }
    }
}

/// The fixed facts of one run, shared by its sessions.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) target: SocketAddr,
    pub(crate) sources: Vec<Ipv4Addr>,
    pub(crate) script: Script,
    /// `--restart-every`, with the game's exit line.
    pub(crate) restart: Option<Restart>,
    pub(crate) mode: Mode,
    pub(crate) timeout: Duration,
    /// The sessions of `--sessions`: the players.
    pub(crate) sessions: usize,
    /// Sessions watching the players, numbered after them.
    pub(crate) watchers: usize,
    /// When sessions take names: the run's tag for them.
    pub(crate) names: Option<String>,
    /// For each player when there are watchers (else empty): what they share.
    pub(crate) watched: Box<[Watched]>,
    /// With `--race`: the races and what their racers share.
    pub(crate) race: Option<Racing>,
    pub(crate) start: Instant,
    pub(crate) ramp: Duration,
    pub(crate) measure_start: Instant,
    pub(crate) end: Instant,
}

impl Plan {
    /// Every session: players and watchers.
    pub(crate) fn total(&self) -> usize {
        self.sessions + self.watchers
    }

    /// When session `index` connects: evenly over the ramp, players first.
    pub(crate) fn connect_at(&self, index: usize) -> Instant {
        let fraction = index as f64 / self.total() as f64;
        self.start + self.ramp.mul_f64(fraction)
    }

    /// The name session `index` takes, if sessions take names.
    pub(crate) fn name(&self, index: usize) -> Option<String> {
        self.names.as_deref().map(|tag| social::name(tag, index))
    }

    /// When the chat schedule begins: once every session has had its turn to connect.
    pub(crate) fn chat_start(&self) -> Instant {
        self.start + self.ramp
    }

    /// Microseconds from the run's start to `at`: the clock every session shares.
    pub(crate) fn micros(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.start).as_micros()).unwrap_or(u64::MAX)
    }

    /// The instant `micros` after the run's start.
    pub(crate) fn at_micros(&self, micros: u64) -> Instant {
        self.start + Duration::from_micros(micros)
    }

    /// After the measured window: how long sessions wait at most for deliveries still
    /// on their way.
    pub(crate) fn drain_deadline(&self) -> Instant {
        self.end + self.timeout
    }

    /// The source address of session `index`, if connections are spread.
    pub(crate) fn source(&self, index: usize) -> Option<Ipv4Addr> {
        (!self.sources.is_empty()).then(|| self.sources[index % self.sources.len()])
    }

    /// Whether a command due at `due` falls in the measured window.
    pub(crate) fn is_measured(&self, due: Instant) -> bool {
        due >= self.measure_start && due < self.end
    }
}

/// Run a load test as `options` say, printing progress lines to stderr unless quiet,
/// and return the report. Must run inside a tokio runtime (multi-thread, preferably).
///
/// # Errors
/// The options are out of range, or `--server-pid` cannot be read.
pub async fn run(options: &Options) -> Result<Report, Error> {
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
    let restart = match options.restart_every {
        Some(_) if lobby || options.idle || options.watchers > 0 => {
            return Err(Error::RestartNotPlaying)
        }
        Some(every) => {
            let exit = options
                .game
                .exit_line()
                .map_err(|reason| Error::NoExitLine {
                    game: options.game.name(),
                    reason,
                })?;
            Some(Restart { every, exit })
        }
        None => None,
    };
    let racing = options.race.is_some();
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
    // A race plays 2048, whose script the table has (a test checks it).
    let script = if racing {
        Script::from_name("2048").unwrap_or(options.game)
    } else {
        options.game
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
        script,
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
        } else if lobby {
            tasks.spawn(chatter::session(index, plan, recorder));
        } else if racing {
            tasks.spawn(racer::session(index, plan, recorder));
        } else {
            tasks.spawn(driver::session(index, plan, recorder));
        }
    }
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
        game: script,
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
        latency_histogram: stats::buckets(&measured),
        chat_lines: counts.chat_lines,
        chat_refused: counts.chat_refused,
        deliveries_expected: counts.expected,
        deliveries_received: counts.received,
        deliveries_skipped: counts.skipped,
        delivery: Latency::of(&deliveries),
        delivery_histogram: stats::buckets(&deliveries),
        race: options.race.map(NonZeroUsize::get),
        race_line: plan.race.as_ref().map(|racing| racing.line.clone()),
        races: plan.race.as_ref().map_or(0, Racing::races),
        racers_done: recorder.racers_done.load(Ordering::Relaxed),
        racers_playing_at_end: recorder.racers_playing.load(Ordering::Relaxed),
    })
}

/// `--race N`: racers per race, from 1 to the server's largest race.
fn parse_race(text: &str) -> Result<NonZeroUsize, String> {
    text.parse::<NonZeroUsize>()
        .ok()
        .filter(|size| size.get() <= rules::MAX_RACERS)
        .ok_or_else(|| {
            format!(
                "N is racers per race: a whole number from 1 to {}",
                rules::MAX_RACERS
            )
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

/// `--restart-every K`: game commands per game, at least one (a game with none
/// would only be started and ended).
fn parse_restart_every(text: &str) -> Result<NonZeroUsize, String> {
    text.parse()
        .map_err(|_| String::from("K is game commands per game: a whole number, 1 or more"))
}

fn saturate(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// How many of `watchers` watch `player` of `players`, when watcher i watches player
/// i mod `players`.
fn watchers_of(player: usize, players: usize, watchers: usize) -> usize {
    watchers / players + usize::from(player < watchers % players)
}

/// What `--server-pid` found out about the server.
#[derive(Default)]
struct ServerSamples {
    /// Memory when the measured window began.
    memory: Option<ServerMemory>,
    /// CPU seconds used in the measured window.
    cpu: Option<f64>,
}

/// Until the end of the run: a progress line every second, and with `--server-pid`
/// the server's memory when the measured window begins and its CPU time across it.
async fn watch(
    plan: &Plan,
    recorder: &Recorder,
    options: &Options,
    rss_before: Option<u64>,
) -> ServerSamples {
    let mut ticker =
        tokio::time::interval_at(plan.start + Duration::from_secs(1), Duration::from_secs(1));
    let mut samples = ServerSamples::default();
    let mut cpu_at_start = None;
    let mut sampled = options.server_pid.is_none();
    loop {
        tokio::select! {
            _ = ticker.tick() => {
                let now = Instant::now();
                let interval = recorder.take_interval();
                if !options.quiet {
                    let phase = if now < plan.start + plan.ramp {
                        "ramp"
                    } else if now < plan.measure_start {
                        "warm-up"
                    } else {
                        "measure"
                    };
                    eprintln!("{}", stats::progress_line(now - plan.start, phase, recorder, plan.total(), &interval));
                }
            }
            () = tokio::time::sleep_until(plan.measure_start), if !sampled => {
                sampled = true;
                if let (Some(pid), Some(before)) = (options.server_pid, rss_before) {
                    samples.memory = sample_memory(pid, before, recorder);
                    cpu_at_start = note_failure(read_cpu_seconds(pid));
                }
            }
            () = tokio::time::sleep_until(plan.end) => {
                if let (Some(pid), Some(start)) = (options.server_pid, cpu_at_start) {
                    samples.cpu = note_failure(read_cpu_seconds(pid)).map(|end| end - start);
                }
                return samples;
            }
        }
    }
}

/// A sample that could not be read is left out of the report, with a note why.
fn note_failure<T>(sample: Result<T, Error>) -> Option<T> {
    sample.map_err(|error| eprintln!("note: {error}")).ok()
}

fn sample_memory(pid: u32, before: u64, recorder: &Recorder) -> Option<ServerMemory> {
    let after = note_failure(read_rss(pid))?;
    let sessions_in_game = recorder.ready.load(Ordering::Relaxed);
    let grown = after.saturating_sub(before) as f64 * 1024.0;
    Some(ServerMemory {
        pid,
        rss_before_kib: before,
        rss_after_kib: after,
        sessions_in_game,
        bytes_per_session: grown / sessions_in_game.max(1) as f64,
    })
}

/// The CPU time (user and system) process `pid` has used so far, in seconds, from
/// `/proc/PID/stat`.
#[allow(unsafe_code)] // the clock tick rate has no safe std call; see SAFETY below
fn read_cpu_seconds(pid: u32) -> Result<f64, Error> {
    read_proc(pid, "stat", |stat| {
        let ticks = parse_cpu_ticks(stat).ok_or("no utime/stime")?;
        // SAFETY: sysconf only reads a configuration value.
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if per_second <= 0 {
            return Err("no clock tick rate");
        }
        Ok(ticks as f64 / per_second as f64)
    })
}

/// utime + stime from a `/proc/PID/stat` line, in clock ticks. The command name (the
/// second field) may hold spaces and parentheses, so fields are counted after its
/// closing parenthesis: utime and stime are fields 14 and 15 of the line.
fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

/// The resident set size of process `pid`, in KiB, from `/proc/PID/status`.
fn read_rss(pid: u32) -> Result<u64, Error> {
    read_proc(pid, "status", |status| {
        parse_vm_rss(status).ok_or("no VmRSS line")
    })
}

/// Reads `/proc/PID/FILE` and takes what `parse` finds in it.
fn read_proc<T>(
    pid: u32,
    file: &'static str,
    parse: impl FnOnce(&str) -> Result<T, &'static str>,
) -> Result<T, Error> {
    let error = |reason: String| Error::Server { pid, file, reason };
    let text =
        std::fs::read_to_string(format!("/proc/{pid}/{file}")).map_err(|e| error(e.to_string()))?;
    parse(&text).map_err(|reason| error(String::from(reason)))
}

/// The `VmRSS:   1234 kB` line of a `/proc/PID/status` text, in KiB.
fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_rss_is_read_in_kib() {
        let status = "Name:\tarcade\nVmPeak:\t  9000 kB\nVmRSS:\t    4242 kB\nThreads:\t3\n";
        assert_eq!(parse_vm_rss(status), Some(4242));
        assert_eq!(parse_vm_rss("Name:\tx\n"), None);
    }

    #[test]
    fn cpu_ticks_are_utime_plus_stime() {
        // A command name with a space and a parenthesis, as /proc allows.
        let stat = "4242 (my (server)) S 1 4242 4242 0 -1 4194560 500 0 0 0 120 34 0 0 20 0 3 0";
        assert_eq!(parse_cpu_ticks(stat), Some(154));
        assert_eq!(parse_cpu_ticks("4242 (x) S 1"), None);
    }

    #[test]
    fn own_cpu_time_is_readable() {
        let before = read_cpu_seconds(std::process::id()).unwrap();
        // Burn a little CPU so the reading can only go up.
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        let after = read_cpu_seconds(std::process::id()).unwrap();
        assert!(after >= before && x != 1);
    }

    #[test]
    fn own_memory_is_readable() {
        let rss = read_rss(std::process::id()).unwrap();
        assert!(rss > 0);
    }

    #[test]
    fn connects_are_spread_over_the_ramp_and_sources() {
        let start = Instant::now();
        let plan = Plan {
            target: SocketAddr::from((Ipv4Addr::LOCALHOST, 4000)),
            sources: connection::sources(SocketAddr::from((Ipv4Addr::LOCALHOST, 4000)), 2),
            script: Script::default(),
            restart: None,
            mode: Mode::Closed,
            timeout: Duration::from_secs(1),
            sessions: 3,
            watchers: 1,
            names: Some(String::from("abcd")),
            watched: Box::default(),
            race: None,
            start,
            ramp: Duration::from_secs(4),
            measure_start: start + Duration::from_secs(5),
            end: start + Duration::from_secs(6),
        };
        assert_eq!(plan.connect_at(0), start);
        assert_eq!(plan.connect_at(3), start + Duration::from_secs(3));
        assert_eq!(plan.source(0), Some(Ipv4Addr::new(127, 0, 0, 1)));
        assert_eq!(plan.source(3), Some(Ipv4Addr::new(127, 0, 0, 2)));
        assert!(!plan.is_measured(start + Duration::from_millis(4999)));
        assert!(plan.is_measured(start + Duration::from_secs(5)));
        assert!(!plan.is_measured(start + Duration::from_secs(6)));
        assert_eq!(plan.name(3).as_deref(), Some("ltabcd-3"));
        assert_eq!(
            plan.at_micros(plan.micros(start + Duration::from_millis(1500))),
            start + Duration::from_millis(1500)
        );
    }

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

    /// `arcade loadtest ARGS` as clap reads it.
    fn parse(args: &[&str]) -> Result<Options, clap::Error> {
        #[derive(clap::Parser)]
        struct Command {
            #[command(flatten)]
            options: Options,
        }
        use clap::Parser as _;
        let args = std::iter::once("loadtest").chain(args.iter().copied());
        Command::try_parse_from(args).map(|command| command.options)
    }

    #[test]
    fn restart_every_is_a_positive_count_for_sessions_that_play() {
        let options = parse(&["--restart-every", "10", "--names", "--game", "2048"]).unwrap();
        assert_eq!(options.restart_every, NonZeroUsize::new(10));
        assert_eq!(parse(&[]).unwrap().restart_every, None);
        let error = parse(&["--restart-every", "0"]).err().unwrap();
        assert_eq!(
            error.kind(),
            clap::error::ErrorKind::ValueValidation,
            "{error}"
        );
        assert_conflicts(
            &["--restart-every", "3"],
            &[
                &["--lobby"],
                &["--chat", "1"],
                &["--idle"],
                &["--watchers", "5"],
            ],
        );
    }

    /// `option` with each of `others` is refused as a conflict.
    fn assert_conflicts(option: &[&str], others: &[&[&str]]) {
        for other in others {
            let mut args = option.to_vec();
            args.extend_from_slice(other);
            let error = parse(&args).err().unwrap();
            assert_eq!(
                error.kind(),
                clap::error::ErrorKind::ArgumentConflict,
                "{other:?}"
            );
        }
    }

    #[test]
    fn race_is_racers_per_race_for_sessions_that_play() {
        let options = parse(&["--sessions", "500", "--race", "500"]).unwrap();
        assert_eq!(options.race, NonZeroUsize::new(500));
        assert_eq!(options.race_args, DEFAULT_RACE_ARGS);
        assert_eq!(parse(&[]).unwrap().race, None);
        let options = parse(&["--race", "3", "--race-args", "size=4 win=64"]).unwrap();
        assert_eq!(options.race_args, "size=4 win=64");
        for bad in ["0", "501", "three"] {
            let error = parse(&["--race", bad]).err().unwrap();
            assert_eq!(
                error.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{bad}: {error}"
            );
        }
        assert_conflicts(
            &["--race", "3"],
            &[
                &["--game", "2048"],
                &["--lobby"],
                &["--chat", "1"],
                &["--idle"],
                &["--watchers", "5"],
                &["--restart-every", "3"],
            ],
        );
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
