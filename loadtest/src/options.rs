//! What `arcade loadtest` can be told ([`Options`], clap's `Args`, so that the binary
//! and the tests read the same command line) and the [`Error`]s of options that cannot
//! make a load test.

use std::net::{Ipv4Addr, SocketAddr};
use std::num::NonZeroUsize;
use std::time::Duration;

use arcade::races::rules;

use crate::bots::Seeds;
use crate::script::{Script, ScriptError};

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
    /// The game to play, with the table's script for it.
    #[arg(long, default_value = "sokoban", value_parser = Script::value_parser())]
    pub game: Script,
    /// Play a script of your own instead of --game's: this lobby line starts the game
    /// (`play GAME [ARGS]`, e.g. `play starpusher pushes` on a level of the server's
    /// --levels), then --commands are sent in turn. They must never end the game: a
    /// session whose game ends fails.
    #[arg(
        long,
        value_name = "LINE",
        requires = "commands",
        conflicts_with_all = ["game", "race", "lobby", "chat"]
    )]
    pub lobby_line: Option<String>,
    /// With --lobby-line: the game's commands, comma-separated (`d,s,d2,w,a,s,a2,w`),
    /// sent in turn from the first again after the last.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        requires = "lobby_line"
    )]
    pub commands: Vec<String>,
    /// A line each session that plays a game sends in the lobby after its name (if
    /// any) and before the game's lobby line, such as `set warnings on`; repeat for
    /// several, sent in order. Each must be answered with the lobby prompt; none is
    /// timed. The first session's replies are in the report.
    #[arg(
        long = "setup",
        value_name = "LINE",
        conflicts_with_all = ["lobby", "chat", "race"]
    )]
    pub setup: Vec<String>,
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
    /// Play as N bots (SPEC section 12, docs/bots.md) instead of as people: each
    /// connection becomes `bot loadbot-K` (K from 0) and plays --bot-game over every
    /// seed of --bot-seeds in order, each game with a random policy over its legal
    /// actions (seeded by --policy-seed, the bot and the game's seed), each action
    /// sent as soon as the last state came. The run ends when every bot has played
    /// every seed: no warm-up and no measured window, the whole run is measured. A
    /// game that is not done with nothing legal (2048 stuck), or after
    /// --bot-max-actions actions, is left (`{"command": "leave"}`).
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_bots,
        conflicts_with_all = [
            "sessions", "rate", "idle", "names", "lobby", "chat", "watchers", "duration",
            "warmup", "game", "lobby_line", "setup", "restart_every", "race"
        ]
    )]
    pub bots: Option<NonZeroUsize>,
    /// With --bots: the game each bot plays, as after `play` and before its seed
    /// (`wumpus random`, `2048`, `2048 size=5`); every game is started with
    /// `{"command": "play GAME seed=S"}`.
    #[arg(long, value_name = "GAME", default_value = DEFAULT_BOT_GAME, requires = "bots")]
    pub bot_game: String,
    /// With --bots: the seeds every bot plays, in order, A to B (both included), or
    /// one seed A.
    #[arg(long, value_name = "A-B", default_value = "1-100", requires = "bots")]
    pub bot_seeds: Seeds,
    /// With --bots: the seed of the bots' random policy. A bot's moves in one game
    /// depend on it, on the bot (K) and on the game's seed only, so that a game plays
    /// the same whatever came before it.
    #[arg(long, value_name = "S", default_value_t = 0, requires = "bots")]
    pub policy_seed: u64,
    /// With --bots: the most actions a bot sends in one game before it leaves it.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BOT_MAX_ACTIONS, requires = "bots")]
    pub bot_max_actions: u64,
    /// With --bots: play through a ladder rather than `play`. This admin of the server
    /// (its password in the environment variable LOADTEST_ADMIN_PASSWORD) opens
    /// `ladder open GAME seeds=A-B` with --bot-seeds and --bot-game's game, and the run
    /// waits for the built-in agents' baselines; then each bot sends `ladder enter N`
    /// and plays the seeds as the ladder serves them, and after the last bot the run
    /// waits until every result has been checked by replay (docs/bots.md, "Ladders").
    #[arg(long, value_name = "NAME", requires = "bots")]
    pub bot_ladder_admin: Option<String>,
    /// With --bot-ladder-admin: the ladder's time per move (`move=` of `ladder open`,
    /// 10ms to 10m); none by default.
    #[arg(long, value_name = "TIME", requires = "bot_ladder_admin", value_parser = humantime::parse_duration)]
    pub ladder_move: Option<Duration>,
    /// The admin's password, from LOADTEST_ADMIN_PASSWORD (never the command line,
    /// which other users of the machine can read).
    #[arg(skip)]
    pub admin_password: Option<String>,
    /// Connect by SSH (SPEC section 11) instead of telnet: --addr is the server's
    /// --ssh-port. Each session logs in as `guest` with no password, opens one session
    /// channel with a shell and no pty (plain lines, as nc), and then plays as over
    /// telnet. The handshake is part of the connect's time.
    #[arg(long)]
    pub ssh: bool,
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
    /// Ask the server for an upgrade (SPEC section 11) this long into the measured
    /// window, through the control socket of --upgrade-data-dir, and report the
    /// stall: the longest wait of a command answered after it was asked.
    #[arg(long, value_name = "T", requires = "upgrade_data_dir", value_parser = humantime::parse_duration)]
    pub upgrade_after: Option<Duration>,
    /// The server's data directory, whose control socket --upgrade-after talks to.
    #[arg(long, value_name = "DIR")]
    pub upgrade_data_dir: Option<std::path::PathBuf>,
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
            lobby_line: None,
            commands: Vec::new(),
            setup: Vec::new(),
            restart_every: None,
            race: None,
            race_args: String::from(DEFAULT_RACE_ARGS),
            bots: None,
            bot_game: String::from(DEFAULT_BOT_GAME),
            bot_seeds: Seeds::new(1, 100).unwrap_or_else(|| unreachable!("1 <= 100")),
            policy_seed: 0,
            bot_max_actions: DEFAULT_BOT_MAX_ACTIONS,
            bot_ladder_admin: None,
            ladder_move: None,
            admin_password: None,
            ssh: false,
            sources: 8,
            timeout: Duration::from_secs(10),
            server_pid: None,
            upgrade_after: None,
            upgrade_data_dir: None,
            json: false,
            quiet: false,
        }
    }
}

/// The default `--race-args` (see there for why).
pub const DEFAULT_RACE_ARGS: &str = "seed=1 size=5 win=256";

/// The default `--bot-game`.
pub const DEFAULT_BOT_GAME: &str = "wumpus random";

/// The default `--bot-max-actions`: far more than a random policy's game of 2048
/// (about 120 moves) or of wumpus ever takes, so that only a game that never ends
/// reaches it.
pub const DEFAULT_BOT_MAX_ACTIONS: u64 = 2000;

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
    /// `--lobby-line` and `--commands` make no script.
    #[error(transparent)]
    Script(#[from] ScriptError),
    /// `--setup` with a load whose sessions play no game.
    #[error("--setup is sent before a game's lobby line: not with --lobby, --chat or --race")]
    SetupNotPlaying,
    /// `--setup` holds a line that is not one line.
    #[error("--setup {0:?}: a setup line is one line of at most {max} bytes without control characters", max = crate::script::MAX_LINE)]
    SetupLine(String),
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
    /// `--bot-game` that starts no game of the table, or carries its own seed.
    #[error("--bot-game {given:?}: {reason}")]
    BotGame {
        /// The words given.
        given: String,
        /// What is wrong with them.
        reason: String,
    },
    /// `--bot-ladder-admin` without its password.
    #[error("--bot-ladder-admin needs the admin's password in the environment variable LOADTEST_ADMIN_PASSWORD")]
    NoAdminPassword,
    /// The ladder could not be opened, or did not settle.
    #[error("the ladder: {0}")]
    Ladder(String),
    /// `--bot-max-actions 0`.
    #[error("--bot-max-actions must be at least 1")]
    NoBotActions,
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

/// `--bots N`: bots, at least one.
fn parse_bots(text: &str) -> Result<NonZeroUsize, String> {
    text.parse()
        .map_err(|_| String::from("N is how many bots: a whole number, 1 or more"))
}

/// `--restart-every K`: game commands per game, at least one (a game with none
/// would only be started and ended).
fn parse_restart_every(text: &str) -> Result<NonZeroUsize, String> {
    text.parse()
        .map_err(|_| String::from("K is game commands per game: a whole number, 1 or more"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn bots_play_a_game_over_seeds_and_nothing_else() {
        let options = parse(&[
            "--bots",
            "60",
            "--bot-game",
            "2048",
            "--bot-seeds",
            "3-9",
            "--policy-seed",
            "7",
            "--bot-max-actions",
            "50",
        ])
        .unwrap();
        assert_eq!(options.bots, NonZeroUsize::new(60));
        assert_eq!(options.bot_game, "2048");
        assert_eq!(options.bot_seeds, Seeds::new(3, 9).unwrap());
        assert_eq!((options.policy_seed, options.bot_max_actions), (7, 50));
        let defaults = parse(&["--bots", "1"]).unwrap();
        assert_eq!(defaults.bot_game, DEFAULT_BOT_GAME);
        assert_eq!(defaults.bot_seeds, Seeds::new(1, 100).unwrap());
        assert_eq!(defaults.bot_max_actions, DEFAULT_BOT_MAX_ACTIONS);
        let Options {
            bot_seeds,
            bot_game,
            ..
        } = Options::default();
        assert_eq!(
            (bot_seeds, bot_game),
            (defaults.bot_seeds, defaults.bot_game)
        );
        for bad in [&["--bots", "0"][..], &["--bots", "1", "--bot-seeds", "9-3"]] {
            let error = parse(bad).err().unwrap();
            assert_eq!(
                error.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{bad:?}: {error}"
            );
        }
        // The bots' options need --bots.
        let error = parse(&["--bot-seeds", "1-5"]).err().unwrap();
        assert_eq!(
            error.kind(),
            clap::error::ErrorKind::MissingRequiredArgument,
            "{error}"
        );
        assert_conflicts(
            &["--bots", "3"],
            &[
                &["--sessions", "5"],
                &["--rate", "0"],
                &["--duration", "5s"],
                &["--game", "2048"],
                &["--race", "3"],
                &["--chat", "1"],
                &["--restart-every", "3"],
            ],
        );
    }

    #[test]
    fn a_script_of_the_command_line_replaces_the_games() {
        let options = parse(&[
            "--lobby-line",
            "play starpusher pushes",
            "--commands",
            "d,s,d2,w",
            "--setup",
            "set warnings on",
            "--setup",
            "set chat off",
            "--names",
        ])
        .unwrap();
        assert_eq!(
            options.lobby_line.as_deref(),
            Some("play starpusher pushes")
        );
        assert_eq!(options.commands, ["d", "s", "d2", "w"]);
        assert_eq!(options.setup, ["set warnings on", "set chat off"]);
        assert_eq!(parse(&[]).unwrap().setup, Vec::<String>::new());
        // Each needs the other.
        for alone in [
            &["--lobby-line", "play sokoban"][..],
            &["--commands", "w1,s1"][..],
        ] {
            let error = parse(alone).err().unwrap();
            assert_eq!(
                error.kind(),
                clap::error::ErrorKind::MissingRequiredArgument,
                "{alone:?}"
            );
        }
        assert_conflicts(
            &["--lobby-line", "play sokoban", "--commands", "w1"],
            &[
                &["--game", "2048"],
                &["--race", "3"],
                &["--lobby"],
                &["--chat", "1"],
            ],
        );
        assert_conflicts(
            &["--setup", "set warnings on"],
            &[&["--lobby"], &["--chat", "1"], &["--race", "3"]],
        );
    }
}
