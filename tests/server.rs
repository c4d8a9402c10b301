//! The foundation over real TCP: the lobby, classic Sokoban byte for byte with the
//! seed's transcript, telnet noise, limits, idle timeout and shutdown.

mod common;

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use arcade::server::Options;
use common::{classic_transcript, crlf, Client, TestServer};

const CLASSIC: &str = "#######\n#.....#\n#...+.#\n##..+.#\n#--.#P#\n#######\n";

#[tokio::test]
async fn classic_transcript_byte_for_byte_over_tcp() {
    let server = TestServer::start().await;
    let transcript = classic_transcript();
    assert_eq!(transcript.commands.len(), 15);
    let mut client = Client::connect(server.addr).await;
    client.send("play sokoban classic").await;
    for command in &transcript.commands {
        client.send(command).await;
    }
    let expected = format!("{}> ", crlf(&transcript.output));
    let received = client.read_until("Win!\r\n> ").await;
    assert_eq!(received, expected);
}

#[tokio::test]
async fn classic_transcript_line_by_line_with_every_line_ending() {
    let server = TestServer::start().await;
    let transcript = classic_transcript();
    let mut client = Client::connect(server.addr).await;
    client.send_raw(b"sokoban\n").await;
    let mut received = client.read_until("Enter command: ").await;
    let endings: [&[u8]; 4] = [b"\r\n", b"\r\0", b"\n", b"\r"];
    for (index, command) in transcript.commands.iter().enumerate() {
        let mut line = command.as_bytes().to_vec();
        line.extend_from_slice(endings[index % endings.len()]);
        client.send_raw(&line).await;
        let marker = if index + 1 == transcript.commands.len() {
            "Win!\r\n"
        } else {
            "Enter command: "
        };
        received.push_str(&client.read_until(marker).await);
    }
    assert_eq!(received, crlf(&transcript.output));
    // Back in the lobby: the prompt, and lobby commands work.
    assert_eq!(client.read_until("> ").await, "> ");
}

#[test]
fn classic_transcript_byte_for_byte_over_stdin() {
    let transcript = classic_transcript();
    let mut child = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["play", "sokoban", "classic"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arcade play");
    let mut stdin = child.stdin.take().expect("stdin");
    for command in &transcript.commands {
        writeln!(stdin, "{command}").expect("write a command");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("arcade play finishes");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), transcript.output);
}

#[test]
fn play_reads_a_level_file_and_says_bye() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mine.txt");
    std::fs::write(&file, "#####\n#P+-#\n#####\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["play", "sokoban"])
        .arg(&file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start arcade play");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"exit\n")
        .expect("write");
    let output = child.wait_with_output().expect("finishes");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Welcome to Sokoban!\n#####\n#P+-#\n#####\nEnter command: Bye!\n"
    );
}

#[test]
fn play_takes_every_game_of_the_table_and_a_collection_file() {
    let help = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["play", "--help"])
        .output()
        .expect("arcade play --help");
    let help = String::from_utf8_lossy(&help.stdout);
    for kind in arcade::catalog::table::GAMES {
        assert!(
            help.contains(kind.name),
            "{} missing from {help}",
            kind.name
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("two.xsb");
    std::fs::write(&file, "#####\n#@$.#\n#####\n\n######\n#@ $.#\n######\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["play", "STARPUSHER"])
        .arg(&file)
        .arg("2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start arcade play");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"d2\n")
        .expect("write");
    let output = child.wait_with_output().expect("finishes");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("Collection two: 2 levels"), "{text}");
    assert!(
        text.contains("Level 2 solved in 2 moves and 1 pushes!"),
        "{text}"
    );
    assert!(text.ends_with("Collection complete!\n"), "{text}");
}

#[tokio::test]
async fn every_invalid_form_gets_invalid_command_and_the_board() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("play sokoban").await;
    client.read_until("Enter command: ").await;
    let answer = crlf(&format!("Invalid command\n{CLASSIC}Enter command: "));
    for invalid in ["", "d", "x3", "d-1", "d2x", "d 2", "+2", "ww2"] {
        client.send(invalid).await;
        assert_eq!(
            client.read_until("Enter command: ").await,
            answer,
            "{invalid:?}"
        );
    }
}

#[tokio::test]
async fn counts_case_and_white_space() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("PLAY SOKOBAN CLASSIC").await;
    client.read_until("Enter command: ").await;
    // Forty digits: walk until blocked (two cells up from the start).
    client.send(&format!("W{}", "9".repeat(40))).await;
    let board = client.read_until("Enter command: ").await;
    assert_eq!(
        board,
        crlf("#######\n#....P#\n#...+.#\n##..+.#\n#--.#.#\n#######\nEnter command: ")
    );
    client.send("   s0   ").await;
    assert_eq!(client.read_until("Enter command: ").await, board);
    client.send("  E  ").await;
    assert_eq!(client.read_until("> ").await, "Bye!\r\n> ");
}

#[tokio::test]
async fn telnet_noise_never_reaches_the_game() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("sokoban").await;
    client.read_until("Enter command: ").await;
    // IAC WILL ECHO and IAC DO SGA in the middle of "w2": refused once each, then "w2".
    client.send_raw(b"w\xff\xfb\x01\xff\xfd\x032\r\n").await;
    let reply = client.read_until_bytes(b"Enter command: ").await;
    let (negotiation, board) = reply.split_at(6);
    let mut refusals = negotiation.to_vec();
    refusals.sort_unstable();
    let mut expected = vec![0xff, 0xfc, 0x03, 0xff, 0xfe, 0x01];
    expected.sort_unstable();
    assert_eq!(refusals, expected, "{reply:?}");
    assert_eq!(
        String::from_utf8_lossy(board),
        crlf("#######\n#.....#\n#...+P#\n##..+.#\n#--.#.#\n#######\nEnter command: ")
    );
    // The same options again get no second refusal; a NAWS subnegotiation split over
    // two writes disappears.
    client.send_raw(b"\xff\xfb\x01\xff\xfa\x1f\x00").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.send_raw(b"\x50\x00\x18\xff\xf0s2\r\n").await;
    let board = client.read_until("Enter command: ").await;
    assert_eq!(board, crlf(&format!("{CLASSIC}Enter command: ")));
    // IAC IAC is a literal 0xFF byte: not a valid command.
    client.send_raw(b"w\xff\xff2\r\n").await;
    let reply = client.read_until("Enter command: ").await;
    assert!(reply.starts_with("Invalid command\r\n"), "{reply:?}");
}

#[tokio::test]
async fn an_over_long_line_is_refused_and_the_session_goes_on() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send(&"x".repeat(5000)).await;
    assert_eq!(
        client.read_until("> ").await,
        "Line too long (limit 1024 bytes).\r\n> "
    );
    client.send("sokoban").await;
    client.read_until("Enter command: ").await;
    client.send(&format!("w{}", "1".repeat(1100))).await;
    assert_eq!(
        client.read_until("Enter command: ").await,
        "Line too long (limit 1024 bytes).\r\nEnter command: "
    );
    client.send("w1").await;
    assert!(client
        .read_until("Enter command: ")
        .await
        .contains("##..+P#"));
}

#[tokio::test]
async fn lobby_commands_and_errors() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("dance").await;
    assert_eq!(
        client.read_until("> ").await,
        "Unknown command: dance. Type help.\r\n> "
    );
    client.send("").await;
    assert_eq!(client.read_until("> ").await, "> ");
    client.send("play chess").await;
    let reply = client.read_until("> ").await;
    assert!(
        reply.starts_with("Unknown game: chess. Choose one of: sokoban"),
        "{reply:?}"
    );
    client.send("play sokoban nowhere").await;
    let reply = client.read_until("> ").await;
    assert!(
        reply.starts_with("Unknown level: nowhere. Choose one of: classic"),
        "{reply:?}"
    );
    client.send("help").await;
    let reply = client.read_until("> ").await;
    assert!(
        reply.contains("play GAME") && reply.contains("sokoban"),
        "{reply:?}"
    );
    client.send("LEVELS sokoban").await;
    let reply = client.read_until("> ").await;
    assert!(reply.starts_with("sokoban: classic"), "{reply:?}");
    client.send("quit").await;
    assert_eq!(client.read_to_end().await, "Goodbye.\r\n");
}

#[tokio::test]
async fn a_full_server_says_so_and_closes() {
    let options = Options {
        max_sessions: 2,
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let _first = Client::connect(server.addr).await;
    let _second = Client::connect(server.addr).await;
    let mut third = Client::connect_raw(server.addr).await;
    assert_eq!(
        third.read_to_end().await,
        "Server full, try again later.\r\n"
    );
    drop(_first);
    // The slot frees once the server has seen the first client go.
    let mut admitted = false;
    for _ in 0..100 {
        let mut client = Client::connect_raw(server.addr).await;
        let greeting = client.read_until("\r\n").await;
        if greeting.starts_with("Welcome to arcade!") {
            admitted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(admitted, "a freed slot is given to the next client");
}

/// A server with this idle timeout and a client in a Sokoban game on it. The server
/// is returned so that it lives as long as the test needs it.
async fn in_game_with_idle_timeout(idle_timeout: Duration) -> (TestServer, Client) {
    let options = Options {
        idle_timeout,
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let mut client = Client::connect(server.addr).await;
    client.send("sokoban").await;
    client.read_until("Enter command: ").await;
    (server, client)
}

#[tokio::test]
async fn an_idle_session_is_warned_then_closed() {
    let (_server, mut client) = in_game_with_idle_timeout(Duration::from_millis(600)).await;
    let warning = client.read_until("Enter command: ").await;
    assert!(warning.contains("closes in"), "{warning:?}");
    // Input resets the timer.
    client.send("s0").await;
    client.read_until("Enter command: ").await;
    let rest = client.read_to_end().await;
    assert!(rest.contains("closes in"), "{rest:?}");
    assert!(
        rest.ends_with("Closed after too long without input. Goodbye.\r\n"),
        "{rest:?}"
    );
}

#[tokio::test]
async fn input_before_the_warning_postpones_it() {
    // 1 s idle timeout: the warning comes after 500 ms without input.
    let (_server, mut client) = in_game_with_idle_timeout(Duration::from_secs(1)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    client.send("s0").await;
    client.read_until("Enter command: ").await;
    let last_input = std::time::Instant::now();
    let warning = client.read_until("Enter command: ").await;
    assert!(warning.contains("closes in"), "{warning:?}");
    // Counted from the last input, not from the start of the game.
    assert!(
        last_input.elapsed() >= Duration::from_millis(450),
        "warned {:?} after the last input",
        last_input.elapsed()
    );
}

#[tokio::test]
async fn shutdown_tells_every_session() {
    let server = TestServer::start().await;
    let mut lobby = Client::connect(server.addr).await;
    let mut playing = Client::connect(server.addr).await;
    playing.send("sokoban").await;
    playing.read_until("Enter command: ").await;
    server.shutdown().await;
    assert_eq!(lobby.read_to_end().await, "\r\nServer shutting down.\r\n");
    assert_eq!(playing.read_to_end().await, "\r\nServer shutting down.\r\n");
}

#[tokio::test]
async fn end_of_input_closes_the_session() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send_raw(b"sokoban\r\nd0").await;
    client.read_until("Enter command: ").await;
    client.shutdown_write().await;
    // The unterminated last line is still played before the close.
    assert!(client.read_to_end().await.ends_with("Enter command: "));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_sessions_win_at_once() {
    let server = TestServer::start().await;
    let transcript = classic_transcript();
    let expected = format!("{}> ", crlf(&transcript.output));
    let mut players = Vec::new();
    for _ in 0..200 {
        let addr = server.addr;
        let commands = transcript.commands.clone();
        players.push(tokio::spawn(async move {
            let mut client = Client::connect(addr).await;
            client.send("play sokoban classic").await;
            let mut received = String::new();
            for command in &commands {
                received.push_str(&client.read_until("Enter command: ").await);
                client.send(command).await;
            }
            received.push_str(&client.read_until("Win!\r\n> ").await);
            received
        }));
    }
    for player in players {
        assert_eq!(player.await.expect("player task"), expected);
    }
}

#[tokio::test]
async fn many_pipelined_lines_are_answered_in_order_until_quit() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    // Several reads' worth of lines in one write, then quit and a line never served.
    let mut input = Vec::new();
    let mut expected = String::new();
    for n in 0..1000 {
        input.extend_from_slice(format!("x{n}\r\n").as_bytes());
        let word = format!("x{n}");
        expected.push_str(&crlf(&format!(
            "{}\n{}",
            arcade::console::lobby::unknown_command(&word),
            arcade::console::lobby::PROMPT
        )));
    }
    input.extend_from_slice(b"quit\r\nhelp\r\n");
    expected.push_str(&crlf(arcade::console::lobby::GOODBYE));
    client.send_raw(&input).await;
    assert_eq!(client.read_to_end().await, expected);
}

#[tokio::test]
async fn a_client_that_reads_late_gets_every_reply_in_order() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    // About 5 MB of replies, more than both sockets' buffers hold while the client
    // does not read: the server has to stop, wait for room, and go on where it was.
    // The input (60 kB) fits in the server's receive buffer, so sending it all first
    // cannot block.
    const LINES: usize = 10_000;
    let mut input = "help\r\n".repeat(LINES);
    input.push_str("quit\r\n");
    client.send_raw(input.as_bytes()).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let reply = crlf(&format!(
        "{}{}",
        arcade::console::commands::help::text(),
        arcade::console::lobby::PROMPT
    ));
    let mut expected = reply.repeat(LINES);
    expected.push_str(&crlf(arcade::console::lobby::GOODBYE));
    let received = client.read_to_end().await;
    assert!(
        received == expected,
        "{} bytes received, {} expected",
        received.len(),
        expected.len()
    );
}

#[tokio::test]
async fn a_message_arrives_on_a_line_of_its_own_then_the_prompt_again() {
    use arcade::players::inbox::Message;
    let server = TestServer::start().await;
    let mut lobby = Client::connect(server.addr).await;
    let mut playing = Client::connect(server.addr).await;
    playing.send("sokoban").await;
    playing.read_until("Enter command: ").await;
    let news = Message::Line("[teacher] Ten minutes left.".into());
    assert_eq!(server.registry.broadcast(&news), 2);
    assert_eq!(
        lobby.read_until("> ").await,
        "\r\n[teacher] Ten minutes left.\r\n> "
    );
    assert_eq!(
        playing.read_until("Enter command: ").await,
        "\r\n[teacher] Ten minutes left.\r\nEnter command: "
    );
    // Nothing reached the game, and both sessions go on.
    playing.send("d0").await;
    assert_eq!(
        playing.read_until("Enter command: ").await,
        format!("{}Enter command: ", crlf(CLASSIC))
    );
    lobby.send("quit").await;
    assert_eq!(lobby.read_to_end().await, "Goodbye.\r\n");
}

#[tokio::test]
async fn a_close_message_ends_one_session_only() {
    use arcade::players::inbox::Message;
    let server = TestServer::start().await;
    let mut kicked = Client::connect(server.addr).await;
    let mut other = Client::connect(server.addr).await;
    let sessions = server.registry.sessions();
    assert_eq!(sessions.len(), 2);
    let close = Message::Close(String::from("You were removed by the teacher."));
    assert!(server.registry.send(sessions[0].0, close));
    assert_eq!(
        kicked.read_to_end().await,
        "\r\nYou were removed by the teacher.\r\n"
    );
    other.send("help").await;
    assert!(other.read_until("> ").await.starts_with("Commands:"));
    // The closed session has left the registry.
    assert_eq!(server.registry.sessions().len(), 1);
}

#[tokio::test]
async fn shutdown_does_not_wait_for_a_client_that_stopped_reading() {
    let server = TestServer::start().await;
    let registry = server.registry.clone();
    // A client with a tiny receive buffer that asks for much and reads nothing: its
    // session soon waits to write.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(server.addr).await.unwrap();
    let (_reader, mut writer) = stream.into_split();
    let flood = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt as _;
        let lines = "help\r\n".repeat(1000);
        for _ in 0..100 {
            if writer.write_all(lines.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    // Until the server has stopped taking the flood: the session is stuck writing.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(registry.len(), 1);
    server.shutdown().await;
    // The session ended with the server, rather than being left behind after the
    // grace period, writing for another minute.
    assert!(registry.is_empty(), "the stuck session is still there");
    flood.abort();
}

#[tokio::test]
async fn a_closed_log_pipe_harms_no_session() {
    let (mut server, addr, log, _data) = common::spawn_server_process(&[]);
    // As when `arcade serve 2>&1 | tee lab.log` loses its tee: every later log line
    // fails to write.
    drop(log);
    for _ in 0..3 {
        let mut client = Client::connect(addr).await;
        client.send("sokoban").await;
        assert!(client
            .read_until("Enter command: ")
            .await
            .contains("#######"));
        client.send("e").await;
        client.send("quit").await;
        assert!(client.read_to_end().await.ends_with("Goodbye.\r\n"));
    }
    let mut waiting = Client::connect(addr).await;
    let stopped = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    assert!(stopped.is_ok_and(|status| status.success()), "kill -TERM");
    assert_eq!(waiting.read_to_end().await, "\r\nServer shutting down.\r\n");
    let status = server.wait().expect("the server exits");
    assert!(status.success(), "{status:?}");
}

/// A client connected from `source` (an address of 127.0.0.0/8), without reading.
async fn connect_from(source: [u8; 4], server: std::net::SocketAddr) -> tokio::net::TcpStream {
    common::stream_from(source, server).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_keep_everyone_out() {
    use tokio::io::AsyncReadExt as _;
    let options = Options {
        max_sessions: 300,
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    // 300 silent connections from one address: 256 are let in, the rest told why.
    let mut silent = Vec::new();
    let mut refused = 0;
    for _ in 0..300 {
        let mut stream = connect_from([127, 0, 0, 2], server.addr).await;
        let mut first = [0u8; 19];
        stream.read_exact(&mut first).await.unwrap();
        if &first == b"Welcome to arcade!\r" {
            silent.push(stream);
        } else {
            let mut rest = String::new();
            stream.read_to_string(&mut rest).await.unwrap();
            let line = format!("{}{rest}", String::from_utf8_lossy(&first));
            assert_eq!(
                line,
                "Too many connections from your address (at most 256 at once), try again later.\r\n"
            );
            refused += 1;
        }
    }
    assert_eq!((silent.len(), refused), (256, 44));
    // Someone else still gets in and plays.
    let stream = connect_from([127, 0, 0, 3], server.addr).await;
    let mut other = Client::from_stream(stream);
    other.read_until("> ").await;
    other.send("sokoban").await;
    assert!(other
        .read_until("Enter command: ")
        .await
        .contains("#######"));
    // A place freed at that address is free again.
    drop(silent.pop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut again = Client::from_stream(connect_from([127, 0, 0, 2], server.addr).await);
    again.read_until("> ").await;
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_login_timeout() {
    let options = Options {
        login_timeout: Duration::from_secs(1),
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let mut silent = Client::connect(server.addr).await;
    // Part of a line is not a command.
    let mut typing = Client::connect(server.addr).await;
    typing.send_raw(b"play sok").await;
    let mut player = Client::connect(server.addr).await;
    player.send("sokoban").await;
    player.read_until("Enter command: ").await;
    let closed = "\r\nClosed: no command came within 1 second of connecting.\r\n";
    assert_eq!(silent.read_to_end().await, closed);
    assert_eq!(typing.read_to_end().await, closed);
    // A player who has typed a command is not affected.
    tokio::time::sleep(Duration::from_millis(500)).await;
    player.send("d0").await;
    assert!(player
        .read_until("Enter command: ")
        .await
        .contains("#######"));
}

#[tokio::test]
async fn a_start_removes_what_interrupted_saves_left() {
    let data = tempfile::tempdir().unwrap();
    // A registered player's saves (players/NAME/wumpus), and the legacy folder.
    let folder = data.path().join("players/ann/wumpus");
    std::fs::create_dir_all(&folder).unwrap();
    let leftover = folder.join(".mine.txt.4242.7.tmp");
    let file = std::fs::File::create(&leftover).unwrap();
    file.set_modified(std::time::SystemTime::now() - Duration::from_secs(600))
        .unwrap();
    let save = folder.join("mine.txt");
    std::fs::write(&save, "dim 2 2\nplayer 0 0 0 0 1\nexit 0 0\n").unwrap();
    let options = Options {
        data_dir: data.path().to_path_buf(),
        ..Options::default()
    };
    let old_session = data.path().join("sessions/7/wumpus/gone.txt");
    std::fs::create_dir_all(old_session.parent().unwrap()).unwrap();
    std::fs::write(&old_session, "dim 2 2\nplayer 0 0 0 0 1\nexit 0 0\n").unwrap();
    let server = TestServer::start_with(options).await;
    // Once the server answers, it has started.
    let mut client = Client::connect(server.addr).await;
    client.send("levels").await;
    client.read_until("> ").await;
    assert!(!leftover.exists(), "the leftover is still there");
    assert!(
        !old_session.exists(),
        "an earlier run's session saves are still there"
    );
    assert!(save.exists());
}

/// A data directory the server cannot write in (a host folder mounted into the
/// container, owned by root) stops the start with how to fix it, rather than failing
/// at the first save. As root every permission is granted, so the test then uses a
/// directory no one can create files in: /proc/self.
#[tokio::test]
async fn a_data_directory_it_cannot_write_in_stops_the_start_with_how_to_fix_it() {
    let scratch = tempfile::tempdir().expect("temporary directory");
    let locked = scratch.path().join("locked");
    std::fs::create_dir(&locked).expect("make it");
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555))
            .expect("read-only");
    }
    let writable_anyway = tempfile::tempfile_in(&locked).is_ok();
    let data_dir = if writable_anyway {
        std::path::PathBuf::from("/proc/self")
    } else {
        locked.clone()
    };
    let listener =
        arcade::server::bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0))).expect("bind");
    let started = arcade::server::run(
        listener,
        None,
        Options {
            data_dir: data_dir.clone(),
            ..Options::default()
        },
        std::future::pending::<()>(),
    );
    let error = tokio::time::timeout(common::TIMEOUT, started)
        .await
        .expect("the start gives up at once")
        .expect_err("the start fails");
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "--data-dir {}: cannot write in it (",
            data_dir.display()
        )),
        "{message}"
    );
    assert!(
        message.contains("sudo chown -R 10001 HOST_FOLDER"),
        "{message}"
    );
}

/// The start-up log names the instance only where there can be several (issue 30): a
/// server on its own SQLite file logs no `instance=` (its number would be a random
/// one); a server on PostgreSQL, which several instances share, logs its number.
#[tokio::test]
async fn the_log_names_the_instance_only_on_a_shared_store() {
    let data = tempfile::tempdir().expect("a temporary data directory");
    let (mut child, _, _, log) = common::spawn_server_logged(data.path(), &[]);
    let _ = child.kill();
    let _ = child.wait();
    assert!(log.contains("store open"), "{log}");
    assert!(!log.contains("instance="), "{log}");

    let Some(postgres) = common::postgres::Postgres::start() else {
        return;
    };
    let db = postgres.database("arcade");
    let data = tempfile::tempdir().expect("a temporary data directory");
    let (mut child, _, _, log) = common::spawn_server_logged(data.path(), &["--db", &db]);
    let _ = child.kill();
    let _ = child.wait();
    let open = log
        .lines()
        .find(|line| line.contains("store open"))
        .unwrap_or_else(|| panic!("no store open line:\n{log}"));
    assert!(open.contains("instance=1"), "{open}");
}
