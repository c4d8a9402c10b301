//! The CI smoke of `arcade loadtest`: a few seconds of a handful of sessions against a
//! server inside the test, which must report no failures. No timing is asserted: the
//! numbers belong to the benchmark (bench/run.sh), not to `cargo test`.

#[allow(dead_code)] // the load tester uses only the start and the stop
#[path = "../../tests/common/test_server.rs"]
mod support;

use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arcade_loadtest::{self as loadtest, Options, Script};
use support::TestServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_second_smoke_reports_no_failures() {
    let server = TestServer::start().await;
    let options = Options {
        addr: server.addr,
        sessions: 20,
        rate: 5.0,
        duration: Duration::from_secs(4),
        warmup: Duration::from_millis(500),
        ramp: Some(Duration::from_millis(500)),
        game: Script::default(),
        sources: 4,
        server_pid: Some(std::process::id()),
        quiet: true,
        ..Options::default()
    };
    let report = loadtest::run(&options).await.expect("the load test runs");
    assert_eq!(report.failures, 0, "{report}");
    assert!(report.failure_reasons.is_empty(), "{report}");
    assert_eq!(report.sessions, 20);
    assert_eq!(report.connected, 20, "{report}");
    // 20 sessions at 5 a second for 4 seconds are scheduled to send 400 commands; an
    // open loop that sends at all keeps well above a quarter of that (a count, not a
    // timing: it fails only if sessions stall or the schedule is wrong).
    assert!(report.commands >= 100, "{report}");
    assert!(report.commands <= 400 + 20, "{report}");
    assert_eq!(report.connect.count, 20);
    // The buckets scripts merge runs with hold every measured command once.
    let bucketed: u64 = report
        .latency_histogram
        .iter()
        .map(|[_, count]| count)
        .sum();
    assert_eq!(bucketed, report.commands, "{report}");
    assert_eq!(report.source_addresses, 4);
    let memory = report.server_memory.expect("memory was sampled");
    assert_eq!(memory.sessions_in_game, 20, "{report}");
    // The "server" is this process, which did work in the window (both sides of every
    // command): the reading exists and is charged to the commands.
    let cpu = report.server_cpu.expect("CPU time was sampled");
    assert!(cpu.seconds > 0.0, "{report}");
    let per_command = cpu.seconds * 1e6 / report.commands as f64;
    let charged = cpu.us_per_command.expect("commands were measured");
    assert!((charged - per_command).abs() < 1e-6, "{report}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_turned_away_by_a_full_server_are_failures() {
    let server = TestServer::start_with(arcade::server::Options {
        max_sessions: 3,
        ..arcade::server::Options::default()
    })
    .await;
    let options = Options {
        addr: server.addr,
        sessions: 5,
        idle: true,
        duration: Duration::from_millis(500),
        warmup: Duration::ZERO,
        burst: true,
        server_pid: Some(std::process::id()),
        quiet: true,
        ..Options::default()
    };
    let report = loadtest::run(&options).await.expect("the load test runs");
    assert_eq!(report.mode, "idle");
    assert_eq!(report.connected, 3, "{report}");
    assert_eq!(report.failures, 2, "{report}");
    assert_eq!(
        report.failure_reasons.get("server full"),
        Some(&2),
        "{report}"
    );
    assert_eq!(report.commands, 0);
    // No command, so no cost per command (rather than all the CPU charged to one).
    let cpu = report.server_cpu.expect("CPU time was sampled");
    assert_eq!(cpu.us_per_command, None, "{report}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_loop_answers_every_command() {
    let server = TestServer::start().await;
    let options = Options {
        addr: server.addr,
        sessions: 4,
        rate: 0.0,
        duration: Duration::from_secs(1),
        warmup: Duration::from_millis(200),
        quiet: true,
        ..Options::default()
    };
    let report = loadtest::run(&options).await.expect("the load test runs");
    assert_eq!(report.mode, "closed");
    assert_eq!(report.failures, 0, "{report}");
    // Closed loop sends far more than an open loop's default 1 command/s would.
    assert!(report.commands > 4 * 10, "{report}");
}

/// `--ssh`: the same closed loop through the server's SSH port (russh's client, a
/// guest with no password, a shell channel without a pty), idle sessions counted in
/// their games, and the telnet port untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ssh_sessions_play_and_sit_idle_as_telnet_ones() {
    let server = TestServer::start_with(arcade::server::Options {
        ssh_port: Some(0),
        ..arcade::server::Options::default()
    })
    .await;
    let ssh = server.ssh_addr.expect("the SSH port");
    let options = Options {
        addr: ssh,
        ssh: true,
        sessions: 4,
        rate: 0.0,
        duration: Duration::from_secs(1),
        warmup: Duration::from_millis(200),
        quiet: true,
        ..Options::default()
    };
    let report = loadtest::run(&options).await.expect("the load test runs");
    assert_eq!(report.failures, 0, "{report}");
    assert_eq!(report.connected, 4, "{report}");
    assert!(report.commands > 4 * 10, "{report}");
    let idle = Options {
        addr: ssh,
        ssh: true,
        sessions: 6,
        idle: true,
        rate: 1.0,
        duration: Duration::from_millis(300),
        warmup: Duration::from_millis(300),
        server_pid: Some(std::process::id()),
        quiet: true,
        ..Options::default()
    };
    let report = loadtest::run(&idle).await.expect("the load test runs");
    assert_eq!(report.failures, 0, "{report}");
    let memory = report.server_memory.expect("memory was sampled");
    assert_eq!(memory.sessions_in_game, 6, "{report}");
    // Without --ssh the SSH port is no telnet port: every session fails.
    let telnet_on_ssh = Options {
        ssh: false,
        sessions: 2,
        timeout: Duration::from_secs(2),
        ..options
    };
    let report = loadtest::run(&telnet_on_ssh)
        .await
        .expect("the load test runs");
    assert_eq!(report.connected, 0, "{report}");
    server.shutdown().await;
}

/// A short closed-loop run of every game's script against `server`: each game's
/// name and report.
async fn play_every_game(
    server: &TestServer,
    sessions: usize,
    restart_every: Option<NonZeroUsize>,
) -> Vec<(&'static str, loadtest::Report)> {
    let scripts = arcade::catalog::table::GAMES
        .iter()
        .filter_map(|kind| Script::from_name(kind.name));
    let mut reports = Vec::new();
    for game in scripts {
        let name = game.name();
        let options = Options {
            addr: server.addr,
            sessions,
            rate: 0.0,
            game,
            restart_every,
            duration: Duration::from_millis(300),
            warmup: Duration::ZERO,
            quiet: true,
            ..Options::default()
        };
        let report = loadtest::run(&options).await.expect("the load test runs");
        reports.push((name, report));
    }
    reports
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_script_plays_through_the_lobby() {
    let server = TestServer::start().await;
    for (game, report) in play_every_game(&server, 3, None).await {
        assert_eq!(report.failures, 0, "{game}: {report}");
        assert!(report.commands > 3, "{game}: {report}");
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn named_2048_players_end_and_restart_their_games() {
    let server = TestServer::start().await;
    let options = Options {
        addr: server.addr,
        sessions: 6,
        rate: 5.0,
        names: true,
        game: Script::from_name("2048").expect("2048 has a load script"),
        restart_every: NonZeroUsize::new(3),
        duration: Duration::from_secs(2),
        warmup: Duration::from_millis(500),
        ramp: Some(Duration::from_millis(200)),
        sources: 2,
        quiet: true,
        ..Options::default()
    };
    let report = loadtest::run(&options).await.expect("the load test runs");
    // Every reply ended with the prompt its line calls for: the game's after a move
    // and after the lobby line, the lobby's after `q`. Anything else is a failure.
    assert_eq!(report.failures, 0, "{report}");
    assert!(report.failure_reasons.is_empty(), "{report}");
    assert_eq!(report.connected, 6, "{report}");
    assert!(report.names);
    assert_eq!(report.restart_every, Some(3));
    // 6 sessions at 5 lines a second for 2 seconds, in cycles of 3 moves, `q` and the
    // lobby line: about 60 lines and 12 new games (counts, not timings).
    assert!((30..=66).contains(&report.commands), "{report}");
    assert!(report.games_restarted > 0, "{report}");
    assert!(
        report.games_restarted * 5 <= report.commands + 6 * 5,
        "at most one new game per 5 lines, and each session's shorter first one: {report}"
    );
    assert!(report.games_restarted_whole_run >= report.games_restarted);
    assert!(report.commands_whole_run >= report.commands);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_ends_with_its_own_exit_line() {
    let server = TestServer::start().await;
    for (game, report) in play_every_game(&server, 2, NonZeroUsize::new(2)).await {
        assert_eq!(report.failures, 0, "{game}: {report}");
        assert!(report.games_restarted > 2, "{game}: {report}");
    }
    server.shutdown().await;
}

/// The checks every social run must pass: no failure, and every delivery that was
/// expected came, each one timed and in the buckets.
fn assert_every_delivery_came(report: &loadtest::Report) {
    assert_eq!(report.failures, 0, "{report}");
    assert!(report.deliveries_expected > 0, "{report}");
    assert_eq!(
        report.deliveries_received, report.deliveries_expected,
        "{report}"
    );
    assert_eq!(report.deliveries_skipped, 0, "{report}");
    assert_eq!(
        report.delivery.count, report.deliveries_received,
        "{report}"
    );
    let bucketed: u64 = report
        .delivery_histogram
        .iter()
        .map(|[_, count]| count)
        .sum();
    assert_eq!(bucketed, report.deliveries_received, "{report}");
}

/// `--chat` against `addr`: 10 named sessions in the lobby saying 5 lines a second
/// between them for 2 seconds.
fn chat_options(addr: SocketAddr) -> Options {
    Options {
        addr,
        sessions: 10,
        chat: Some(5.0),
        duration: Duration::from_secs(2),
        warmup: Duration::from_millis(500),
        ramp: Some(Duration::from_millis(300)),
        sources: 2,
        quiet: true,
        ..Options::default()
    }
}

/// The checks of a `--chat` run of [`chat_options`].
fn assert_chat(report: &loadtest::Report) {
    assert_eq!(report.mode, "chat", "{report}");
    assert_eq!(report.place, "lobby");
    assert!(report.names, "--chat implies --names");
    assert_eq!(report.connected, 10, "{report}");
    // 5 lines a second for 2 seconds, each said once its slot comes.
    assert!((8..=11).contains(&report.chat_lines), "{report}");
    assert_eq!(report.chat_refused, 0, "{report}");
    // Every line said comes back to its sender (its command) and reaches the 9 others.
    assert_eq!(report.commands, report.chat_lines, "{report}");
    assert_eq!(
        report.deliveries_expected,
        9 * report.chat_lines,
        "{report}"
    );
    assert_every_delivery_came(report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn named_sessions_chat_and_time_every_delivery() {
    let server = TestServer::start().await;
    let report = loadtest::run(&chat_options(server.addr))
        .await
        .expect("the load test runs");
    assert_chat(&report);
    server.shutdown().await;
}

/// `--watchers` against `addr`: 2 players at 5 commands a second, 3 watchers each.
fn watch_options(addr: SocketAddr) -> Options {
    Options {
        addr,
        sessions: 2,
        rate: 5.0,
        watchers: 6,
        duration: Duration::from_secs(2),
        warmup: Duration::from_millis(500),
        ramp: Some(Duration::from_millis(300)),
        sources: 2,
        quiet: true,
        ..Options::default()
    }
}

/// The checks of a `--watchers` run of [`watch_options`].
fn assert_watch(report: &loadtest::Report) {
    assert_eq!(report.place, "game");
    assert!(report.names, "--watchers implies --names");
    assert_eq!(report.watchers, 6);
    assert_eq!(report.connected, 8, "{report}");
    // The players' commands, 2 x 5 a second for 2 seconds, are timed as before...
    assert!((15..=22).contains(&report.commands), "{report}");
    // ... and each reaches its player's 3 watchers as a frame.
    assert_eq!(report.deliveries_expected, 3 * report.commands, "{report}");
    assert_every_delivery_came(report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_time_every_frame_of_their_player() {
    let server = TestServer::start().await;
    let report = loadtest::run(&watch_options(server.addr))
        .await
        .expect("the load test runs");
    assert_watch(&report);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn named_sessions_sit_in_the_lobby() {
    let server = TestServer::start().await;
    let options = Options {
        addr: server.addr,
        sessions: 6,
        names: true,
        lobby: true,
        duration: Duration::from_millis(300),
        warmup: Duration::from_millis(200),
        ramp: Some(Duration::from_millis(100)),
        server_pid: Some(std::process::id()),
        quiet: true,
        ..Options::default()
    };
    let report = loadtest::run(&options).await.expect("the load test runs");
    assert_eq!(report.failures, 0, "{report}");
    assert_eq!((report.mode, report.place), ("idle", "lobby"), "{report}");
    assert_eq!(report.commands, 0);
    assert!(report.names);
    // Counted in place only once the server took its name (else it failed).
    let memory = report.server_memory.expect("memory was sampled");
    assert_eq!(memory.sessions_in_game, 6, "{report}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racers_time_their_moves_and_each_others_progress_lines() {
    let server = TestServer::start().await;
    let options = Options {
        addr: server.addr,
        // Races of 3, 3 and 1: the last host races alone (it types `start` twice).
        sessions: 7,
        race: NonZeroUsize::new(3),
        // 8 is the first tile the others hear of, and 16 wins: every racer's lines
        // (8, then the finish at 16, in about 6 and 15 moves) come within the run,
        // and racers are done and stop.
        race_args: String::from("size=4 win=16"),
        rate: 10.0,
        duration: Duration::from_secs(3),
        warmup: Duration::from_millis(300),
        ramp: Some(Duration::from_millis(200)),
        sources: 2,
        quiet: true,
        ..Options::default()
    };
    let report = loadtest::run(&options).await.expect("the load test runs");
    assert_eq!(report.failures, 0, "{report}");
    assert!(report.names, "--race implies --names");
    assert_eq!(report.game.name(), "2048");
    assert_eq!(report.race, Some(3));
    assert_eq!(report.races, 3, "{report}");
    assert_eq!(report.race_line.as_deref(), Some("race 2048 size=4 win=16"));
    // Moves were timed as commands...
    assert!(report.commands > 7, "{report}");
    let bucketed: u64 = report
        .latency_histogram
        .iter()
        .map(|[_, count]| count)
        .sum();
    assert_eq!(bucketed, report.commands, "{report}");
    // ... games were won (or stuck) and their racers stopped ...
    assert!(report.racers_done > 0, "{report}");
    assert!(
        report.racers_done + report.racers_playing_at_end <= 7,
        "{report}"
    );
    // ... and every progress line a measured move made reached the other racers of
    // its race, each one timed (the lone racer's lines reach nobody).
    assert_every_delivery_came(&report);
    server.shutdown().await;
}

/// `arcade-minimal` on a free port, as its own process; killed on drop.
struct Minimal {
    child: std::process::Child,
    addr: SocketAddr,
}

impl Minimal {
    fn start() -> Minimal {
        use std::io::BufRead as _;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arcade-minimal"))
            .arg("0")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start arcade-minimal");
        let stderr = child.stderr.take().expect("its stderr");
        let mut line = String::new();
        std::io::BufReader::new(stderr)
            .read_line(&mut line)
            .expect("its first line");
        let addr = line
            .trim()
            .rsplit(' ')
            .next()
            .and_then(|addr| addr.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Minimal { child, addr }
    }
}

impl Drop for Minimal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_and_watchers_run_unchanged_against_minimal() {
    let minimal = Minimal::start();
    let report = loadtest::run(&chat_options(minimal.addr))
        .await
        .expect("the chat load runs");
    assert_chat(&report);
    let report = loadtest::run(&watch_options(minimal.addr))
        .await
        .expect("the watch load runs");
    assert_watch(&report);
}

/// bench/run.sh's row 13 as a short closed loop against `addr`: named sessions that
/// turn warnings on and push the box of bench/levels/starpusher/pushes.txt right and
/// back (the script loadtest's unit tests prove never ends the game).
fn push_options(addr: SocketAddr) -> Options {
    Options {
        addr,
        sessions: 3,
        rate: 0.0,
        names: true,
        setup: vec![String::from("set warnings on")],
        lobby_line: Some(String::from("play starpusher pushes")),
        commands: "d,s,d2,w,a,s,a2,w".split(',').map(String::from).collect(),
        duration: Duration::from_millis(800),
        warmup: Duration::from_millis(200),
        ramp: Some(Duration::from_millis(100)),
        sources: 2,
        quiet: true,
        ..Options::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_of_the_command_line_plays_after_the_setup_lines() {
    let levels = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/levels");
    let server = TestServer::start_with(arcade::server::Options {
        levels: Some(levels),
        ..arcade::server::Options::default()
    })
    .await;
    let report = loadtest::run(&push_options(server.addr))
        .await
        .expect("the load test runs");
    // Every setup line was answered with the lobby prompt and every move with the
    // game's: the game never ended.
    assert_eq!(report.failures, 0, "{report}");
    assert_eq!(report.game.name(), "starpusher");
    assert_eq!(report.lobby_line, "play starpusher pushes");
    assert_eq!(report.script_commands.len(), 8);
    assert_eq!(report.setup, ["set warnings on"]);
    let replies = report
        .setup_replies
        .clone()
        .expect("the setup was answered");
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(replies[0].starts_with("Warnings are on"), "{replies:?}");
    assert!(report.commands > 3 * 8, "{report}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn minimal_answers_setup_lines_in_the_lobby() {
    let minimal = Minimal::start();
    for names in [true, false] {
        let options = Options {
            names,
            ..push_options(minimal.addr)
        };
        let report = loadtest::run(&options).await.expect("the load test runs");
        assert_eq!(report.failures, 0, "names {names}: {report}");
        assert_eq!(
            report.setup_replies,
            Some(vec![String::from("warnings is on.")]),
            "names {names}"
        );
        assert!(report.commands > 3 * 8, "{report}");
    }
}

#[tokio::test]
async fn setup_lines_and_scripts_are_checked_before_the_run() {
    let refused = [
        Options {
            lobby: true,
            setup: vec![String::from("set warnings on")],
            ..Options::default()
        },
        Options {
            race: NonZeroUsize::new(2),
            setup: vec![String::from("set warnings on")],
            ..Options::default()
        },
        Options {
            setup: vec![String::from("set warnings on\r\nquit")],
            ..Options::default()
        },
        Options {
            lobby_line: Some(String::from("play chess")),
            commands: vec![String::from("e4")],
            ..Options::default()
        },
    ];
    let expected = ["SetupNotPlaying", "SetupNotPlaying", "SetupLine", "Script"];
    for (options, expected) in refused.iter().zip(expected) {
        let error = loadtest::run(options).await.expect_err("refused");
        assert!(format!("{error:?}").starts_with(expected), "{error:?}");
    }
}

/// A server that answers every line with a one-line board and the game prompt, and
/// notes when each connection is closed by the client.
async fn recording_server() -> (SocketAddr, Arc<Mutex<Vec<Instant>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port for the test server");
    let addr = listener.local_addr().expect("the test server's address");
    let closed = Arc::new(Mutex::new(Vec::new()));
    let noted = Arc::clone(&closed);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let noted = Arc::clone(&noted);
            tokio::spawn(async move {
                let banner = format!("Welcome\r\n{}", arcade::console::lobby::PROMPT);
                let reply = format!("#@#\r\n{}", arcade::games::PROMPT);
                if stream.write_all(banner.as_bytes()).await.is_err() {
                    return;
                }
                let mut buffer = [0u8; 256];
                loop {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => break,
                        Ok(read) => {
                            let lines = buffer[..read].iter().filter(|&&b| b == b'\n').count();
                            for _ in 0..lines {
                                if stream.write_all(reply.as_bytes()).await.is_err() {
                                    return;
                                }
                            }
                        }
                    }
                }
                noted
                    .lock()
                    .expect("no test task panics holding the lock")
                    .push(Instant::now());
            });
        }
    });
    (addr, closed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_loop_sessions_stay_connected_to_the_end_of_the_window() {
    let (addr, closed) = recording_server().await;
    let ramp = Duration::from_millis(100);
    let warmup = Duration::from_millis(100);
    let duration = Duration::from_millis(1500);
    let options = Options {
        addr,
        sessions: 8,
        // Each session's last command is due within the last half second of the
        // window; closing right after it would land inside the window.
        rate: 2.0,
        duration,
        warmup,
        ramp: Some(ramp),
        quiet: true,
        ..Options::default()
    };
    let started = Instant::now();
    let report = loadtest::run(&options).await.expect("the load test runs");
    assert_eq!(report.failures, 0, "{report}");
    assert!(report.commands >= 8, "{report}");
    let window_end = started + ramp + warmup + duration;
    // The client closes each connection only once `run` is past the window's end; the
    // server notices a moment later, so wait for all eight.
    let deadline = Instant::now() + Duration::from_secs(5);
    while closed.lock().expect("the lock is not poisoned").len() < 8 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let closed = closed.lock().expect("the lock is not poisoned");
    assert_eq!(closed.len(), 8, "every session closed its connection");
    let early = closed.iter().filter(|&&at| at < window_end).count();
    assert_eq!(early, 0, "sessions closed inside the measured window");
}

/// `--bots 3 --bot-game GAME --bot-seeds 1-4` (and `max_actions`) against `addr`.
fn bot_options(addr: SocketAddr, game: &str, max_actions: u64) -> Options {
    Options {
        addr,
        bots: NonZeroUsize::new(3),
        bot_game: String::from(game),
        bot_seeds: loadtest::Seeds::new(1, 4).expect("1 <= 4"),
        policy_seed: 11,
        bot_max_actions: max_actions,
        sources: 2,
        quiet: true,
        ..Options::default()
    }
}

/// The counts every bots run without trouble must add up to: every bot played every
/// seed, every game started and finished one of the four ways, every action timed
/// once, no error.
fn assert_every_game_finished(report: &loadtest::Report) -> &loadtest::BotsReport {
    let bots = report.bots.as_ref().expect("a bots report");
    assert_eq!(report.mode, "bots");
    assert_eq!(report.failures, 0, "{report}");
    assert_eq!(report.connected, 3, "{report}");
    assert_eq!(bots.bots_done, 3, "{report}");
    assert_eq!(bots.errors, 0, "{report}");
    assert!(bots.error_texts.is_empty(), "{report}");
    assert_eq!(bots.games_expected, 3 * 4);
    assert_eq!(bots.games_started, bots.games_expected, "{report}");
    assert_eq!(bots.games_finished, bots.games_expected, "{report}");
    assert_eq!(
        bots.games_ended_by_game
            + bots.games_left_stuck
            + bots.games_left_capped
            + bots.games_left_after_error,
        bots.games_finished,
        "{report}"
    );
    // A ladder's seeds after the first start unasked: only its entries are timed.
    if bots.ladder.is_none() {
        assert_eq!(bots.start.count, bots.games_started, "{report}");
    }
    // Every action is timed once, in the histogram scripts merge runs with too.
    assert_eq!(bots.actions, report.commands, "{report}");
    assert_eq!(report.latency.count, bots.actions, "{report}");
    let bucketed: u64 = report
        .latency_histogram
        .iter()
        .map(|[_, count]| count)
        .sum();
    assert_eq!(bucketed, bots.actions, "{report}");
    // A game ends by its rules only after an action; none goes past the cap.
    assert!(bots.actions >= bots.games_ended_by_game, "{report}");
    assert!(
        bots.actions <= bots.games_finished * bots.max_actions,
        "{report}"
    );
    assert!(bots.wall_seconds > 0.0, "{report}");
    let mean = bots.mean_score.expect("games finished");
    assert!(
        (mean * bots.games_finished as f64 - bots.score_sum as f64).abs() < 1e-6,
        "{report}"
    );
    bots
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_play_every_seed_and_the_counts_add_up() {
    let server = TestServer::start().await;
    let options = Options {
        server_pid: Some(std::process::id()),
        ..bot_options(server.addr, "wumpus random", 2000)
    };
    let report = loadtest::run(&options).await.expect("the bots run");
    let bots = assert_every_game_finished(&report);
    assert_eq!(bots.start_line, "play wumpus random seed=S");
    assert_eq!(report.lobby_line, "play wumpus random seed=1");
    // Wumpus ends by its rules (death, or out by the ladder) long before 2000 actions.
    assert_eq!(bots.games_ended_by_game, 12, "{report}");
    assert!(bots.server_rss_peak_kib >= bots.server_rss_before_kib);
    assert!(bots.server_rss_before_kib.is_some());
    let cpu = report.server_cpu.expect("the server's CPU time");
    assert!(cpu.us_per_command.is_some(), "{report}");
    // The policy is seeded: the same worlds played again make the same games.
    let again = loadtest::run(&options).await.expect("the bots run again");
    let twice = assert_every_game_finished(&again);
    assert_eq!(
        (twice.actions, twice.score_sum),
        (bots.actions, bots.score_sum),
        "{again}"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_leave_2048_when_stuck_or_at_the_most_actions() {
    let server = TestServer::start().await;
    let report = loadtest::run(&bot_options(server.addr, "2048", 40))
        .await
        .expect("the bots run");
    let bots = assert_every_game_finished(&report);
    // 2048 never ends by its rules: every game is left, most at the cap (a random
    // policy's game lasts about 120 moves).
    assert_eq!(
        bots.games_left_stuck + bots.games_left_capped,
        12,
        "{report}"
    );
    assert!(bots.games_left_capped > 0, "{report}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_that_cannot_play_are_failures() {
    // Nobody listens: every bot fails to connect.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = closed.local_addr().expect("its address");
    drop(closed);
    let report = loadtest::run(&bot_options(addr, "wumpus random", 100))
        .await
        .expect("the bots run");
    let bots = report.bots.as_ref().expect("a bots report");
    assert_eq!((report.failures, report.connected), (3, 0), "{report}");
    assert_eq!((bots.bots_done, bots.games_finished), (0, 0), "{report}");
    assert!(
        report
            .failure_reasons
            .keys()
            .all(|reason| reason.starts_with("connect: ")),
        "{report}"
    );
    // arcade-minimal is no bot server: it answers `bot NAME` with a board.
    let minimal = Minimal::start();
    let report = loadtest::run(&bot_options(minimal.addr, "wumpus random", 100))
        .await
        .expect("the bots run");
    assert_eq!((report.failures, report.connected), (3, 3), "{report}");
    assert!(
        report
            .failure_reasons
            .keys()
            .all(|reason| reason.contains("while waiting for the bot's welcome")),
        "{report}"
    );
    // A game that is no game, or with a seed of its own, is refused before the run.
    for game in ["chess", "2048 seed=4"] {
        let error = loadtest::run(&bot_options(addr, game, 100))
            .await
            .expect_err("refused");
        assert!(
            matches!(error, loadtest::Error::BotGame { .. }),
            "{error:?}"
        );
    }
}

/// `--bots` with `--ssh`: the same JSON lines through the server's SSH port.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_play_over_ssh_too() {
    let server = TestServer::start_with(arcade::server::Options {
        ssh_port: Some(0),
        ..arcade::server::Options::default()
    })
    .await;
    let ssh = server.ssh_addr.expect("the SSH port");
    let options = Options {
        ssh: true,
        ..bot_options(ssh, "wumpus random", 2000)
    };
    let report = loadtest::run(&options).await.expect("the bots run");
    assert_every_game_finished(&report);
    server.shutdown().await;
}

/// A server with the admin `teacher` (password `teachers-pw`), and the bot options of
/// a ladder run on it.
async fn ladder_server(game: &str, max_actions: u64) -> (TestServer, Options) {
    let server = TestServer::start_with(arcade::server::Options {
        admin: vec![String::from("teacher")],
        ..arcade::server::Options::default()
    })
    .await;
    server.set_password("teacher", "teachers-pw").await;
    let options = Options {
        bot_ladder_admin: Some(String::from("teacher")),
        admin_password: Some(String::from("teachers-pw")),
        ladder_move: Some(Duration::from_secs(5)),
        ..bot_options(server.addr, game, max_actions)
    };
    (server, options)
}

/// `--bot-ladder-admin`: the admin opens the ladder, the bots enter it once and play
/// its seeds as it serves them, and every result is checked by replay; the games are
/// the very ones `play wumpus random seed=S` makes, move for move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_play_through_a_ladder_and_every_result_is_checked() {
    let (server, options) = ladder_server("wumpus random", 2000).await;
    let report = loadtest::run(&options).await.expect("the bots run");
    let bots = assert_every_game_finished(&report);
    assert_eq!(bots.start_line, "ladder enter 1");
    // One entry per bot: the ladder serves the other seeds unasked.
    assert_eq!(bots.start.count, 3, "{report}");
    let ladder = bots.ladder.as_ref().expect("a ladder report");
    assert_eq!((ladder.id, ladder.move_ms), (1, Some(5000)));
    assert_eq!(
        (
            ladder.entrants,
            ladder.counted,
            ladder.waiting,
            ladder.refused
        ),
        (3, 12, 0, 0),
        "{report}"
    );
    assert_eq!(ladder.forfeits, 0, "{report}");
    // At least each bot's heading, and its last word after seed 4.
    assert!(ladder.texts >= 6, "{report}");
    assert!(report.to_string().contains("12 seeds counted"), "{report}");

    // The same policy through `play` on the same seeds plays the same games.
    let played = Options {
        bot_ladder_admin: None,
        ..options.clone()
    };
    let report = loadtest::run(&played).await.expect("the bots run again");
    let direct = assert_every_game_finished(&report);
    assert_eq!(
        (direct.actions, direct.score_sum),
        (bots.actions, bots.score_sum),
        "{report}"
    );
    server.shutdown().await;
}

/// A ladder's game left (at the most actions) stops the ladder there; the bot enters
/// again and the ladder goes on from the next seed, each seed played once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ladder_bots_that_leave_a_seed_enter_again_for_the_next() {
    // Wumpus (2048's expectimax baselines are slow in a debug build), one action a
    // game: a game that one action does not end is left.
    let (server, options) = ladder_server("wumpus random", 1).await;
    let report = loadtest::run(&options).await.expect("the bots run");
    let bots = assert_every_game_finished(&report);
    assert!(bots.games_left_capped > 0, "{report}");
    assert_eq!(
        bots.games_left_capped + bots.games_ended_by_game,
        12,
        "{report}"
    );
    // Each bot entered once, and again after each seed but its last that it left.
    assert!(bots.start.count > 3, "{report}");
    assert!(bots.start.count <= 3 + bots.games_left_capped, "{report}");
    let ladder = bots.ladder.as_ref().expect("a ladder report");
    assert_eq!((ladder.entrants, ladder.waiting), (3, 0), "{report}");
    assert_eq!(ladder.counted + ladder.refused, 12, "{report}");
    assert_eq!(ladder.refused, 0, "{report}");

    // Without the password, or with a wrong one, nothing runs.
    let error = loadtest::run(&Options {
        admin_password: None,
        ..options.clone()
    })
    .await
    .expect_err("no password");
    assert!(matches!(error, loadtest::Error::NoAdminPassword), "{error}");
    let error = loadtest::run(&Options {
        admin_password: Some(String::from("guess")),
        ..options.clone()
    })
    .await
    .expect_err("a wrong password");
    assert!(error.to_string().contains("did not log in"), "{error}");
    // A ladder plays a game's seeds with no arguments of the players' choosing.
    let error = loadtest::run(&Options {
        bot_game: String::from("wumpus size=5"),
        ..options.clone()
    })
    .await
    .expect_err("arguments");
    assert!(matches!(error, loadtest::Error::BotGame { .. }), "{error}");
    server.shutdown().await;
}
