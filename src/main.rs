//! The `arcade` binary: parses the command line and hands over to the library.
//!
//! `arcade` alone (or `arcade serve`) runs the server; `arcade play` runs one game on
//! stdin/stdout; `arcade check-levels DIR` validates level files (and solves them
//! with `--solve`, solve_levels.rs); `arcade loadtest`
//! runs the load tester, a binary of its own (`arcade-loadtest`, the loadtest/ crate).

use std::ffi::OsString;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bots_run;
mod solve_levels;

use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

use arcade::catalog::levels::Levels;
use arcade::catalog::table::{Context, GameKind, GAMES};
use arcade::console::Console;
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
    Serve(Box<Options>),
    /// Play one game on stdin/stdout.
    Play(PlayArgs),
    /// Check every level file under DIR (laid out like levels/); exit 1 on any problem.
    /// With --solve, also solve every level (of DIR, or of one level FILE) within
    /// --time each; exit 1 only for a broken file or a level proven unsolvable.
    CheckLevels {
        /// The directory to check (or, with --solve, a level file).
        dir: PathBuf,
        /// Solve every level too, one after the other on one thread.
        #[arg(long)]
        solve: bool,
        /// How long each level's search may take (with --solve).
        #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
        time: std::time::Duration,
    },
    /// Open many sessions against a server, play, and report throughput and latency.
    ///
    /// Runs the arcade-loadtest binary beside this one with the same arguments
    /// (`arcade loadtest --help` lists them).
    #[command(disable_help_flag = true)]
    Loadtest {
        /// The load tester's arguments, passed through.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// Write recording ID as an asciicast v2 file (asciinema's format) to stdout.
    Export(ExportArgs),
    /// Ask the server's web page for /healthz on this machine; exit 0 if it answers
    /// 200 (Docker's HEALTHCHECK, without curl in the image).
    Healthcheck(HealthcheckArgs),
    /// Upgrade the running server of --data-dir to the binary now on disk, through
    /// its control socket (SPEC section 11): prints `upgraded: ...` and exits 0, or
    /// prints `upgrade failed: ...` (the old server goes on serving) and exits 1.
    Upgrade(UpgradeArgs),
    /// Accounts on the server's store: an `--admin` name's password (`arcade admin
    /// set-password NAME`: nobody can register one over telnet), a student's forgotten
    /// one, a name to free. `arcade admin ...` is the same command.
    #[command(subcommand, alias = "admin")]
    Accounts(AccountsCommand),
    /// The built-in agents (SPEC section 12): `arcade bots run GAME AGENT --seeds A-B`
    /// plays AGENT on every seed offline and prints the table.
    #[command(subcommand)]
    Bots(BotsCommand),
}

#[derive(Debug, Subcommand)]
enum BotsCommand {
    /// Play AGENT (random, expectimax for 2048, kb for wumpus) on GAME's seeds.
    Run {
        /// 2048, wumpus (random worlds) or starpusher (level numbers).
        game: String,
        /// random, expectimax or kb.
        agent: String,
        /// The seeds, A-B.
        #[arg(long, default_value = "1-100")]
        seeds: String,
        /// More of the game's arguments (size=5, pits=0.3, a collection's name).
        args: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
enum AccountsCommand {
    /// Set NAME's password (asked with echo off, or the first line of stdin),
    /// registering the name if it is not.
    SetPassword(AccountArgs),
    /// Delete NAME's account: the name is free again; results and recordings stay.
    Delete(AccountArgs),
    /// List the registered names.
    List(StoreArgs),
}

#[derive(Debug, clap::Args)]
struct AccountArgs {
    /// The name.
    name: String,
    #[command(flatten)]
    store: StoreArgs,
}

#[derive(Debug, clap::Args)]
struct StoreArgs {
    /// The database [default: sqlite://DATA-DIR/arcade.db].
    #[arg(long, env = "ARCADE_DB")]
    db: Option<arcade::store::DbUrl>,
    /// The server's data directory.
    #[arg(long, env = "ARCADE_DATA_DIR", default_value = "./data")]
    data_dir: PathBuf,
}

impl StoreArgs {
    fn url(&self) -> arcade::store::DbUrl {
        self.db
            .clone()
            .unwrap_or_else(|| arcade::store::DbUrl::in_data_dir(&self.data_dir))
    }
}

/// `arcade upgrade`'s arguments.
#[derive(Debug, clap::Args)]
struct UpgradeArgs {
    /// The running server's data directory, where its control socket is.
    #[arg(long, env = "ARCADE_DATA_DIR", default_value = "./data")]
    data_dir: std::path::PathBuf,
}

/// `arcade healthcheck`'s arguments.
#[derive(Debug, clap::Args)]
struct HealthcheckArgs {
    /// The web page's port (--http-port of the server).
    #[arg(long, env = "ARCADE_HTTP_PORT", default_value_t = 8080)]
    port: u16,
    /// How long to wait for the answer, e.g. 3s.
    #[arg(long, default_value = "3s", value_parser = humantime::parse_duration)]
    timeout: std::time::Duration,
}

#[derive(Debug, clap::Args)]
struct ExportArgs {
    /// The recording's id (`recordings` lists them).
    id: i64,
    /// The database [default: sqlite://DATA-DIR/arcade.db].
    #[arg(long, env = "ARCADE_DB")]
    db: Option<arcade::store::DbUrl>,
    /// The server's data directory.
    #[arg(long, env = "ARCADE_DATA_DIR", default_value = "./data")]
    data_dir: PathBuf,
    /// The server's extra levels, if it has any (the recording replays on them).
    #[arg(long, env = "ARCADE_LEVELS")]
    levels: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct PlayArgs {
    /// The game.
    #[arg(ignore_case = true, value_parser = clap::builder::PossibleValuesParser::new(GAMES.iter().map(|kind| kind.name)))]
    game: String,
    /// The game's arguments, as after `play GAME` in the lobby; for a game that loads
    /// files (sokoban, starpusher, wumpus), a level file first instead of a name,
    /// then that game's other arguments (starpusher: a level number).
    args: Vec<String>,
    /// Write the game's final state to OUT when the game or the input ends (for games
    /// whose state is a file: wumpus).
    #[arg(long, value_name = "OUT")]
    save: Option<PathBuf>,
    /// A directory laid out like levels/ that adds to the built-in levels.
    #[arg(long, env = "ARCADE_LEVELS")]
    levels: Option<PathBuf>,
    /// Where saved games are written.
    #[arg(long, env = "ARCADE_DATA_DIR", default_value = "./data")]
    data_dir: PathBuf,
    /// Bot mode (SPEC section 12, docs/bots.md): a JSON `state` line after every move,
    /// `{"action": "..."}` lines in.
    #[arg(long)]
    bot: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => serve(cli.serve),
        Some(Command::Serve(options)) => serve(*options),
        Some(Command::Play(args)) => play(args),
        Some(Command::CheckLevels {
            dir,
            solve: true,
            time,
        }) => solve_levels::run(&dir, time),
        Some(Command::CheckLevels { dir, .. }) => check_levels(&dir),
        Some(Command::Loadtest { args }) => load_test(&args),
        Some(Command::Export(args)) => export(&args),
        Some(Command::Accounts(command)) => accounts(command),
        Some(Command::Bots(BotsCommand::Run {
            game,
            agent,
            seeds,
            args,
        })) => bots_run::run(&game, &agent, &seeds, &args),
        Some(Command::Upgrade(args)) => {
            match arcade::upgrade::control::request_upgrade(&args.data_dir) {
                Ok(answer) => {
                    println!("{answer}");
                    if answer.starts_with("upgraded") {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::FAILURE
                    }
                }
                Err(error) => {
                    eprintln!("arcade upgrade: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Healthcheck(args)) => {
            let address = SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, args.port));
            match arcade::web::check_health(address, args.timeout) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("arcade healthcheck: http://{address}/healthz: {error}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// `arcade admin set-password` and `arcade accounts set-password`.
fn set_password(args: &AccountArgs) -> ExitCode {
    let outcome = arcade::admin::parse_name(&args.name).and_then(|name| {
        let password = arcade::admin::read_password()?;
        Ok((name, password))
    });
    match outcome {
        Ok((name, password)) => on_store(arcade::admin::set_password(
            &args.store.url(),
            &name,
            &password,
        )),
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

/// `arcade accounts ...`.
fn accounts(command: AccountsCommand) -> ExitCode {
    match command {
        AccountsCommand::SetPassword(args) => set_password(&args),
        AccountsCommand::Delete(args) => match arcade::admin::parse_name(&args.name) {
            Ok(name) => {
                on_store(async move { arcade::admin::delete(&args.store.url(), &name).await })
            }
            Err(error) => {
                eprintln!("{error}");
                ExitCode::FAILURE
            }
        },
        AccountsCommand::List(args) => on_store(async move {
            arcade::admin::list(&args.url())
                .await
                .map(|names| names.trim_end().to_string())
        }),
    }
}

/// A runtime from `builder` for a command that uses the store; `None` (said on
/// stderr) if it cannot start.
fn runtime(builder: &mut tokio::runtime::Builder) -> Option<tokio::runtime::Runtime> {
    match builder.enable_all().build() {
        Ok(runtime) => Some(runtime),
        Err(error) => {
            eprintln!("cannot start: {error}");
            None
        }
    }
}

/// Run an account command on a small runtime: print what it says, or its error.
fn on_store(
    work: impl std::future::Future<Output = Result<String, arcade::admin::AccountError>>,
) -> ExitCode {
    let Some(runtime) = runtime(&mut tokio::runtime::Builder::new_current_thread()) else {
        return ExitCode::FAILURE;
    };
    match runtime.block_on(work) {
        Ok(text) => {
            if !text.is_empty() {
                println!("{text}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

/// Log to stderr. A log that cannot be written (stderr piped into a `tee` that has
/// died) is dropped: by default tracing-subscriber reports such an error with
/// `eprintln!`, which panics when stderr is gone, and that took down the sessions of
/// whichever thread logged next.
fn init_logging() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(io::IsTerminal::is_terminal(&io::stderr()))
        .log_internal_errors(false)
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
    // Started by an old server to take over from it (SPEC section 11)?
    let taken = match arcade::upgrade::take_over::asked() {
        Some(path) => match arcade::upgrade::take_over::take_over(&path) {
            Ok(taken) => Some(taken),
            Err(error) => {
                eprintln!("arcade: {error}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let served = runtime.block_on(async move {
        let (listeners, mut upgrades, arrival) = match taken {
            Some(taken) => match server::taken_over(taken) {
                Ok(parts) => parts,
                Err((error, arrival)) => {
                    let reason = format!("cannot use the sockets handed over: {error}");
                    eprintln!("arcade: {reason}");
                    arrival.failed(&reason);
                    return Err(ExitCode::FAILURE);
                }
            },
            None => match bind_listeners(&options) {
                Ok(listeners) => (listeners, server::Upgrades::default(), None),
                Err(error) => {
                    eprintln!("arcade: {error}");
                    return Err(ExitCode::FAILURE);
                }
            },
        };
        let upgrader = match arcade::upgrade::hand_over::Upgrader::for_this_process(
            options.data_dir.clone(),
        ) {
            Ok(upgrader) => Some(std::sync::Arc::new(upgrader)),
            Err(error) => {
                tracing::warn!(%error, "cannot tell where this binary is: upgrades are refused");
                None
            }
        };
        upgrades.upgrader = upgrader.clone();
        let (started, serving) = tokio::sync::oneshot::channel();
        upgrades.started = Some(started);
        // Taking over: the old server's go-ahead, passed on to the server.
        let mut let_go = None;
        if arrival.is_some() {
            let (go, went) = tokio::sync::oneshot::channel();
            upgrades.go = Some(went);
            let_go = Some(go);
        }
        let serve = server::serve_with(
            listeners,
            options,
            arcade::players::registry::Registry::new(),
            shutdown_signal(),
            upgrades,
        );
        tokio::pin!(serve);
        // The old server lets go once this one serves; if it cannot, it says why.
        let mut arrival = arrival;
        let served = tokio::select! {
            served = &mut serve => served,
            Ok(()) = serving => {
                if let Some(arrival) = arrival.take() {
                    let went = tokio::task::spawn_blocking(move || arrival.ready())
                        .await
                        .unwrap_or(false);
                    if let Some(go) = let_go.take() {
                        let _ = go.send(went);
                    }
                }
                serve.await
            }
        };
        if let Err(error) = served {
            eprintln!("arcade: {error}");
            if let Some(arrival) = arrival {
                arrival.failed(&error.to_string());
            }
            return Err(ExitCode::FAILURE);
        }
        Ok(upgrader.and_then(|upgrader| upgrader.successor()))
    });
    // Handed over: this process's tasks stop with its runtime, and it stays the new
    // server's parent until that exits.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match served {
        Ok(Some(successor)) => ExitCode::from(u8::try_from(successor.wait()).unwrap_or(1)),
        Ok(None) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// The sockets of `options`, bound: telnet's, and the web page's and SSH's when on.
fn bind_listeners(options: &Options) -> Result<server::Listeners, String> {
    let bind = |address: SocketAddr, what: &str| {
        server::bind(address).map_err(|error| format!("cannot {what} on {address}: {error}"))
    };
    Ok(server::Listeners {
        telnet: bind(SocketAddr::new(options.bind, options.port), "listen")?,
        web: options
            .http_address()
            .map(|address| bind(address, "serve the web page"))
            .transpose()?,
        ssh: options
            .ssh_address()
            .map(|address| bind(address, "serve SSH"))
            .transpose()?,
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
        eprintln!("{}", arcade::console::lobby::unknown_game(Some(&args.game)));
        return ExitCode::FAILURE;
    };
    if let Some(dir) = &args.levels {
        if let Err(error) = arcade::catalog::levels::check_layout(dir) {
            eprintln!("arcade: --levels {error}");
            return ExitCode::FAILURE;
        }
    }
    let (levels, problems) = Levels::load(args.levels.as_deref());
    for problem in &problems {
        eprintln!("skipped: {problem}");
    }
    let context = std::sync::Arc::new(Context {
        levels,
        data_dir: args.data_dir.clone(),
    });
    let words: Vec<&str> = args.args.iter().map(String::as_str).collect();
    // A first argument that names a file is a level file, for every game that loads
    // files; anything else is what `play GAME` takes in the lobby.
    let game = match (kind.from_file, words.split_first()) {
        (Some(from_file), Some((first, rest))) if Path::new(first).is_file() => {
            from_file(Path::new(first), rest, &context)
        }
        _ => (kind.start)(&words, &context),
    };
    let game = match game {
        Ok(game) => game,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    if args.save.is_some() && game.state().is_none() {
        eprintln!(
            "arcade: --save OUT needs a game whose state is a file (wumpus); {} has none",
            kind.name
        );
        return ExitCode::FAILURE;
    }
    let (console, first) = if args.bot {
        Console::single_bot(kind, args.args.clone(), game)
    } else {
        Console::single(kind, game)
    };
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    match arcade::net::play::run(
        console,
        first,
        &context,
        stdin,
        stdout,
        args.save.as_deref(),
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("arcade: {error}");
            ExitCode::FAILURE
        }
    }
}

fn check_levels(dir: &Path) -> ExitCode {
    let problems = match Levels::check_dir(dir) {
        Ok(problems) => problems,
        Err(error) => {
            println!("{error}");
            return ExitCode::FAILURE;
        }
    };
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

/// `arcade export ID`: the recording replayed into an asciicast on stdout, written
/// frame by frame as its inputs are read a page at a time (a long recording's file is
/// close to a gigabyte, never held); errors on stderr with exit code 1.
fn export(args: &ExportArgs) -> ExitCode {
    use arcade::records::cast::{write_asciicast, CastHeader};
    use arcade::records::reader::BlockingInputs;
    // A worker thread drives the store while this thread replays and writes.
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.worker_threads(1);
    let Some(runtime) = runtime(&mut builder) else {
        return ExitCode::FAILURE;
    };
    let url = args
        .db
        .clone()
        .unwrap_or_else(|| arcade::store::DbUrl::in_data_dir(&args.data_dir));
    let found = runtime.block_on(async {
        let store = arcade::store::Store::open(&url).await?;
        let head = store.recording_head(args.id).await;
        Ok::<_, arcade::store::StoreError>((store, head?))
    });
    let (store, head) = match found {
        Ok((store, Some(head))) => (store, head),
        Ok((store, None)) => {
            eprintln!("No recording {} in {url}.", args.id);
            runtime.block_on(store.close());
            return ExitCode::FAILURE;
        }
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let (levels, _) = Levels::load(args.levels.as_deref());
    let context = Context {
        levels,
        data_dir: args.data_dir.clone(),
    };
    let listed = &head.listed;
    let title = arcade::records::cast::title(listed);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = write_asciicast(
        &head.start,
        CastHeader {
            title: &title,
            timestamp: listed.started_at / 1000,
        },
        &context,
        || BlockingInputs::new(runtime.handle().clone(), store.clone(), args.id),
        &mut out,
    )
    .and_then(|()| std::io::Write::flush(&mut out).map_err(Into::into));
    runtime.block_on(store.close());
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("recording {}: {error}", args.id);
            ExitCode::FAILURE
        }
    }
}

/// `arcade loadtest ARGS`: the load tester is a binary of its own (`arcade-loadtest`,
/// the loadtest/ crate), so that the server links none of its dependencies. Run the
/// one beside this executable with the same arguments, in this process's place (its
/// exit status is the command's), or say how to build it.
fn load_test(args: &[OsString]) -> ExitCode {
    const NEEDED: &str =
        "arcade loadtest needs the arcade-loadtest binary: cargo build --release -p arcade-loadtest";
    let beside = std::env::current_exe().map(|exe| exe.with_file_name("arcade-loadtest"));
    let path = match beside {
        Ok(path) if path.is_file() => path,
        Ok(path) => {
            eprintln!("{NEEDED} (not found at {})", path.display());
            return ExitCode::FAILURE;
        }
        Err(error) => {
            eprintln!("{NEEDED} (cannot tell where this executable is: {error})");
            return ExitCode::FAILURE;
        }
    };
    let mut command = std::process::Command::new(&path);
    command.args(args);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        // Its help and usage lines say `arcade loadtest`, as the command typed did.
        // `exec` returns only if it failed.
        let error = command.arg0("arcade loadtest").exec();
        eprintln!("arcade loadtest: cannot run {}: {error}", path.display());
        ExitCode::FAILURE
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("arcade loadtest: cannot run {}: {error}", path.display());
            ExitCode::FAILURE
        }
    }
}
