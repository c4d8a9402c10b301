//! The `arcade` binary: parses the command line and hands over to the library.
//!
//! `arcade` alone (or `arcade serve`) runs the server; `arcade play` runs one game on
//! stdin/stdout; `arcade check-levels DIR` validates level files; `arcade loadtest`
//! plays many sessions against a server and measures them.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

use arcade::games::sokoban;
use arcade::games::world::Level;
use arcade::games::wumpus::{Cave, Wumpus};
use arcade::levels::{self, LevelFile, Levels};
use arcade::loadtest;
use arcade::lobby::{Context, GameKind, RunningGame};
use arcade::server::{self, Options};

/// A game server for telnet and nc: Sokoban, Star Pusher, 2048 and the wumpus cave.
#[derive(Debug, Parser)]
#[command(version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: Options,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server (the default).
    Serve(Options),
    /// Play one game on stdin/stdout.
    Play(PlayArgs),
    /// Check every level file under DIR (laid out like levels/); exit 1 on any problem.
    CheckLevels {
        /// The directory to check.
        dir: PathBuf,
    },
    /// Open many sessions against a server, play, and report throughput and latency.
    Loadtest(loadtest::Options),
}

#[derive(Debug, clap::Args)]
struct PlayArgs {
    /// The game: sokoban, 2048, wumpus.
    game: String,
    /// The game's arguments, as after `play GAME` in the lobby; for sokoban a level
    /// name or a level file, for wumpus a world name or a world file.
    args: Vec<String>,
    /// wumpus: write the world's final state to OUT when the game or the input ends.
    #[arg(long, value_name = "OUT")]
    save: Option<PathBuf>,
    /// A directory laid out like levels/ that adds to the built-in levels.
    #[arg(long, env = "ARCADE_LEVELS")]
    levels: Option<PathBuf>,
    /// Where saved games are written.
    #[arg(long, env = "ARCADE_DATA_DIR", default_value = "./data")]
    data_dir: PathBuf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => serve(cli.serve),
        Some(Command::Serve(options)) => serve(options),
        Some(Command::Play(args)) => play(args),
        Some(Command::CheckLevels { dir }) => check_levels(&dir),
        Some(Command::Loadtest(options)) => load_test(&options),
    }
}

fn init_logging() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(io::IsTerminal::is_terminal(&io::stderr()))
        .init();
}

fn serve(options: Options) -> ExitCode {
    init_logging();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("arcade: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let address = SocketAddr::new(options.bind, options.port);
        let listener = match server::bind(address) {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!("arcade: cannot listen on {address}: {error}");
                return ExitCode::FAILURE;
            }
        };
        server::run(listener, options, shutdown_signal()).await;
        ExitCode::SUCCESS
    })
}

/// Completes on Ctrl-C or SIGTERM (what `docker stop` sends).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn play(args: PlayArgs) -> ExitCode {
    let Some(kind) = GameKind::from_name(&args.game) else {
        eprintln!("{}", arcade::lobby::unknown_game(Some(&args.game)));
        return ExitCode::FAILURE;
    };
    let (levels, problems) = Levels::load(args.levels.as_deref());
    for problem in &problems {
        eprintln!("skipped: {problem}");
    }
    let context = Arc::new(Context {
        levels,
        data_dir: args.data_dir.clone(),
    });
    if args.save.is_some() && kind != GameKind::Wumpus {
        eprintln!("arcade: --save OUT is for the wumpus game only");
        return ExitCode::FAILURE;
    }
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    let result = match kind {
        GameKind::Wumpus => wumpus_from_file_or_name(&args.args, &context).map(|mut game| {
            arcade::play::run_wumpus(
                &mut game,
                stdin,
                stdout,
                &args.data_dir,
                args.save.as_deref(),
            )
        }),
        _ => start_from_file_or_name(kind, &args.args, &context)
            .map(|mut game| arcade::play::run(kind, &mut game, stdin, stdout, &args.data_dir)),
    };
    match result {
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(error)) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Ok(Err(error)) => {
            eprintln!("arcade: {error}");
            ExitCode::FAILURE
        }
    }
}

/// A wumpus game in a world file given on the command line, or by name as in the lobby.
fn wumpus_from_file_or_name(args: &[String], context: &Context) -> Result<Wumpus, String> {
    if let Some(cave) = file_argument::<Cave>(args) {
        return Ok(arcade::lobby::wumpus_game(cave?, context));
    }
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    arcade::lobby::start_wumpus(&words, context)
}

/// The level of kind `T` in the file named by a lone argument, if it names a file;
/// problems come back as the lines `check-levels` would print.
fn file_argument<T: LevelFile>(args: &[String]) -> Option<Result<T, String>> {
    let [file] = args else { return None };
    let path = Path::new(file);
    if !path.is_file() {
        return None;
    }
    let parsed = levels::read_file::<T>(path);
    let problems: Vec<String> = parsed.problems.iter().map(ToString::to_string).collect();
    Some(parsed.value.ok_or_else(|| problems.join("\n")))
}

/// A game from a level file given on the command line, or by name as in the lobby.
fn start_from_file_or_name(
    kind: GameKind,
    args: &[String],
    context: &Context,
) -> Result<RunningGame, String> {
    if kind == GameKind::Sokoban {
        if let Some(level) = file_argument::<Level>(args) {
            return Ok(RunningGame::Sokoban(sokoban::Sokoban::new(Arc::new(
                level?,
            ))));
        }
    }
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    kind.start(&words, context)
}

fn check_levels(dir: &Path) -> ExitCode {
    let problems = Levels::check_dir(dir);
    for problem in &problems {
        println!("{problem}");
    }
    if problems.is_empty() {
        println!("{}: all levels are fine", dir.display());
        ExitCode::SUCCESS
    } else {
        println!("{} problem(s)", problems.len());
        ExitCode::FAILURE
    }
}

/// Run a load test on a multi-thread runtime and print its report; exit 1 when any
/// session failed, so that a script can tell.
fn load_test(options: &loadtest::Options) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("arcade: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let report = match runtime.block_on(loadtest::run(options)) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("arcade loadtest: {error}");
            return ExitCode::FAILURE;
        }
    };
    if options.json {
        match serde_json::to_string_pretty(&report) {
            Ok(json) => println!("{json}"),
            Err(error) => {
                eprintln!("arcade loadtest: cannot write the report as JSON: {error}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{report}");
    }
    // Closing thousands of sockets is the kernel's job; do not wait for the runtime.
    runtime.shutdown_background();
    if report.failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
