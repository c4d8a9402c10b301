//! The trust issue's attacks on the telnet port, each at a small scale, over real TCP
//! against a server started inside the test (or as a process, where memory or a second
//! server is measured): what a hostile student at the next desk tried, and what now
//! stops it. The web page's attacks are in `abuse_web.rs`, the disk's in
//! `abuse_disk.rs`, the bus's in `abuse_bus.rs`.

mod common;

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use arcade::server::Options;
use common::{Client, TestServer};

async fn ask(client: &mut Client, line: &str, until: &str) -> String {
    client.send(line).await;
    client.read_text_until(until).await
}

/// A client connecting from the loopback address `from` (127.0.0.0/8 is all this
/// machine's): a second student's desk.
async fn connect_from(addr: SocketAddr, from: [u8; 4]) -> Client {
    let mut client = Client::from_stream(common::stream_from(from, addr).await);
    client.read_text_until("> ").await;
    client
}

async fn named(addr: SocketAddr, name: &str) -> Client {
    let mut client = Client::connect(addr).await;
    assert_eq!(
        ask(&mut client, &format!("name {name}"), "> ").await,
        format!("You are now {name}.\r\n> ")
    );
    client
}

/// High, first item: a second server on the same data directory refuses to start and
/// names the first; the first server's game goes on.
#[tokio::test]
async fn a_second_server_on_one_data_directory_refuses_to_start() {
    let (mut first, addr, _log, data) = common::spawn_server_process(&[]);
    let mut player = named(addr, "ann").await;
    ask(&mut player, "play 2048 seed=7", "Enter command: ").await;
    let second = std::process::Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["serve", "--bind", "127.0.0.1", "--port", "0", "--data-dir"])
        .arg(data.path())
        .output()
        .expect("run a second server");
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "{said}");
    assert!(said.contains("another arcade server is using it"), "{said}");
    assert!(
        said.contains(&format!("process {}", first.id())),
        "the holder is named: {said}"
    );
    // The first server's game was not touched.
    let board = ask(&mut player, "d", "Enter command: ").await;
    assert!(board.contains("Score:"), "{board}");
    first.kill().expect("kill");
    let _ = first.wait();
}

/// High, item 1: an `--admin` name cannot be claimed over telnet; its password is set
/// out of band, and then the teacher logs in.
// Several threads: the test waits for `arcade admin` without yielding, and the
// server in this process must go on meanwhile (a transaction it has begun would
// otherwise hold SQLite's write lock until the command gives up).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nobody_claims_the_admin_name_before_the_teacher() {
    let options = Options {
        admin: vec![String::from("Teacher")],
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let mut student = Client::connect(server.addr).await;
    let refused = ask(&mut student, "name teacher", "> ").await;
    assert!(
        refused.starts_with("teacher is kept for this server's admin, whose password is not set yet\r\n(arcade admin set-password teacher)"),
        "{refused}"
    );
    assert!(ask(&mut student, "who", "> ").await.contains("guest-"));

    // The teacher sets the password with the command line, and logs in.
    let said = common::set_password_with_cli(
        "Teacher",
        "teachers-pw",
        &["--data-dir", server.data_dir().to_str().expect("a path")],
    );
    assert!(said.contains("Teacher is registered"), "{said}");
    let (mut teacher, said) = common::log_in(server.addr, "teacher", "teachers-pw").await;
    assert!(said.contains("You are now Teacher."), "{said}");
    assert!(ask(&mut teacher, "broadcast hello", "> ")
        .await
        .starts_with("Sent to "));
    // A student who guesses gets nothing but a wrong password.
    let (_, said) = common::log_in(server.addr, "teacher", "guessed-pw").await;
    assert!(said.contains("Wrong password."), "{said}");
    server.shutdown().await;
}

/// An admin who is registered cannot `register` again, nor can anyone `register` an
/// admin name it holds without a password (the name is refused first); and the
/// out-of-band command resets a student's password and frees a name.
// Several threads: the test waits for `arcade admin` without yielding, and the
// server in this process must go on meanwhile (a transaction it has begun would
// otherwise hold SQLite's write lock until the command gives up).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_resets_passwords_and_frees_names() {
    let server = TestServer::start().await;
    let mut ann = named(server.addr, "ann").await;
    common::register(&mut ann, "anns-old-pw").await;
    drop(ann);
    let dir = server.data_dir().to_str().expect("a path").to_string();
    let said = common::set_password_with_cli("ann", "anns-new-pw", &["--data-dir", &dir]);
    assert!(said.contains("The password of ann is changed."), "{said}");
    let (_, said) = common::log_in(server.addr, "ann", "anns-old-pw").await;
    assert!(said.contains("Wrong password."), "{said}");
    let (_, said) = common::log_in(server.addr, "ann", "anns-new-pw").await;
    assert!(said.contains("You are now ann."), "{said}");

    let deleted = std::process::Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["accounts", "delete", "ann", "--data-dir", &dir])
        .output()
        .expect("arcade accounts delete");
    assert!(deleted.status.success(), "{deleted:?}");
    assert!(String::from_utf8_lossy(&deleted.stdout).contains("ann is unregistered"));
    // Free: no password asked.
    named(server.addr, "ann").await;
    server.shutdown().await;
}

/// High, item 1: `ARCADE_ADMINS="ann, bob"` makes bob an admin too; an impossible name
/// stops the start.
#[tokio::test]
async fn admin_names_are_trimmed_and_checked() {
    let data = tempfile::tempdir().expect("a data directory");
    let dir = data.path().to_str().expect("a path");
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args([
            "serve",
            "--port",
            "0",
            "--data-dir",
            dir,
            "--admin",
            "Mr Smith",
        ])
        .output()
        .expect("run the server");
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success(), "{said}");
    assert!(
        said.contains("\"Mr Smith\" is not a possible name"),
        "{said}"
    );

    let options = Options {
        // What clap makes of ARCADE_ADMINS="ann, bob".
        admin: vec![String::from("ann"), String::from(" bob")],
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let mut bob = common::admin(&server, "bob", "bobs-password").await;
    assert_eq!(
        ask(&mut bob, "broadcast hi", "> ").await,
        "Sent to 1 player.\r\n> "
    );
    server.shutdown().await;
}

/// High, item 3: 200 parallel wrong passwords from one client: the server's memory
/// stays bounded (hashes run a bounded few at a time) and comes back.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_wrong_passwords_keep_memory_bounded() {
    let (mut server, addr, _log, _data) =
        common::spawn_server_process(&["--max-per-address", "1000"]);
    let mut owner = named(addr, "victim").await;
    common::register(&mut owner, "victims-pw").await;
    let before = common::resident_bytes(server.id());
    let mut guessers = Vec::new();
    for _ in 0..200 {
        let mut guesser = Client::connect(addr).await;
        guesser.send("name victim").await;
        guesser.read_text_until("Password: ").await;
        guessers.push(guesser);
    }
    for guesser in &mut guessers {
        guesser.send("wrong-guess").await;
    }
    let mut wrong = 0;
    let mut refused = 0;
    for guesser in &mut guessers {
        let said = guesser.read_text_until("> ").await;
        if said.contains("Wrong password.") {
            wrong += 1;
        } else if said.contains("Too many login") {
            refused += 1;
        }
    }
    let after = common::resident_bytes(server.id());
    // Five a minute from one address are checked; the rest refused unhashed.
    assert!(wrong <= 10, "{wrong} passwords were checked");
    assert_eq!(wrong + refused, 200);
    let grown = after.saturating_sub(before) / (1024 * 1024);
    assert!(grown < 100, "the server grew by {grown} MiB");
    // The owner still gets in at once: from another address, its name's tokens left.
    let mut owner_again = connect_from(addr, [127, 0, 0, 2]).await;
    ask(&mut owner_again, "name victim", "Password: ").await;
    let said = ask(&mut owner_again, "victims-pw", "> ").await;
    assert!(said.contains("You are now victim."), "{said}");
    server.kill().expect("kill");
    let _ = server.wait();
}

/// Medium, item 7: the throttle takes its token before the attempt, so parallel
/// guesses cannot all slip through; refused guesses are answered at once.
#[tokio::test]
async fn parallel_guesses_are_refused_not_slept_on() {
    let server = TestServer::start().await;
    let mut owner = named(server.addr, "ann").await;
    common::register(&mut owner, "anns-password").await;
    let mut guessers = Vec::new();
    for _ in 0..30 {
        let mut guesser = Client::connect(server.addr).await;
        ask(&mut guesser, "name ann", "Password: ").await;
        guessers.push(guesser);
    }
    for guesser in &mut guessers {
        guesser.send("a-guess").await;
    }
    let mut checked = 0;
    for guesser in &mut guessers {
        let said = guesser.read_text_until("> ").await;
        if said.contains("Wrong password.") {
            checked += 1;
        } else {
            assert!(
                said.contains("Too many login attempts: try again in ")
                    || said.contains("Too many logins at once, try again in a moment."),
                "{said}"
            );
        }
    }
    assert!(checked <= 5, "{checked} guesses were checked");
    server.shutdown().await;
}

/// Medium, item 8: a race that starts while a player types a new password does not
/// take the password: it goes to the prompt, never to the game, its watchers or its
/// recording.
#[tokio::test]
async fn a_race_start_does_not_steal_a_password() {
    let server = TestServer::start().await;
    let mut ann = named(server.addr, "ann").await;
    let mut bob = named(server.addr, "bob").await;
    ask(&mut ann, "race 2048 seed=3", "> ").await;
    ask(&mut bob, "join 1", "> ").await;
    ann.read_text_until("> ").await;
    let mut cy = named(server.addr, "cy").await;
    bob.send("register").await;
    bob.read_text_until("Choose a password: ").await;
    ask(&mut ann, "start", "Enter command: ").await;
    let started = bob.read_text_until("Choose a password: ").await;
    assert!(
        started.contains("(The race started: finish typing your password, then play.)"),
        "{started}"
    );
    ask(&mut cy, "watch bob", "\r\n").await;
    bob.send("hunter2-secret").await;
    bob.read_text_until("Type it again: ").await;
    bob.send("hunter2-secret").await;
    let registered = bob.read_text_until("Enter command: ").await;
    assert!(registered.contains("bob is registered"), "{registered}");
    // bob plays on, then leaves: his recording holds his moves, not his password.
    ask(&mut bob, "d", "Enter command: ").await;
    ask(&mut bob, "/leave", "> ").await;
    let seen = cy.read_text_until("> ").await;
    assert!(!seen.contains("hunter2"), "the watcher saw: {seen}");
    ann.send("/leave").await;
    ann.read_text_until("\r\n> ").await;
    // Until the recording is written as ended: its inputs are in the store then (an
    // open one may be listed before its first batch of inputs is written).
    let mut id = None;
    for _ in 0..50 {
        let listed = ask(&mut ann, "recordings bob", "> ").await;
        id = listed
            .lines()
            .find(|line| line.contains("2048") && !line.contains("playing"))
            .and_then(|line| line.split_whitespace().next())
            .map(str::to_string);
        if id.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let id = id.expect("bob's 2048 recording, ended");
    let store = arcade::store::Store::open(&server.db)
        .await
        .expect("the store");
    let (_, recording) = arcade::records::recording::load(&store, id.parse().expect("an id"))
        .await
        .expect("the store answers")
        .expect("the recording");
    let inputs: Vec<&str> = recording
        .inputs
        .iter()
        .map(|input| input.line.as_str())
        .collect();
    assert!(
        !inputs.iter().any(|line| line.contains("hunter2")),
        "{inputs:?}"
    );
    assert!(inputs.contains(&"d"), "{inputs:?}");
    store.close().await;
    server.shutdown().await;
}

/// High, item 6: 200 connections from one address each send tells to the teacher and
/// `say` to the lobby: no reading player is closed, the senders are told what was not
/// delivered, and the teacher still answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_of_chat_closes_no_reader() {
    let options = Options {
        max_per_address: 1000,
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let mut teacher = named(server.addr, "teacher").await;
    let mut readers = Vec::new();
    for n in 0..10 {
        readers.push(connect_from(server.addr, [127, 0, 0, 2 + n]).await);
    }
    let mut senders = Vec::new();
    for _ in 0..200 {
        senders.push(Client::connect(server.addr).await);
    }
    for sender in &mut senders {
        for n in 0..5 {
            sender.send(&format!("tell teacher spam {n}")).await;
        }
        sender.send("say everyone spam").await;
    }
    let mut refused = 0;
    for sender in &mut senders {
        for _ in 0..6 {
            let said = sender.read_text_until("> ").await;
            if said.contains("yours was not delivered")
                || said.contains("Too much chat from your address")
                || said.contains("You are sending too fast.")
            {
                refused += 1;
            }
        }
    }
    assert!(refused > 900, "only {refused} of 1,200 lines were refused");
    // Nobody who reads was closed: each still answers, and the teacher still hears
    // a tell from another desk once the flood is over.
    // (What the flood left waiting comes first: the answer to `who` is after it.)
    for reader in std::iter::once(&mut teacher).chain(readers.iter_mut()) {
        reader.send("who").await;
        reader.read_text_until("players online:").await;
        let answer = reader.read_text_until("> ").await;
        assert!(answer.contains("  teacher "), "{answer}");
    }
    let mut late = connect_from(server.addr, [127, 0, 0, 100]).await;
    ask(&mut late, "name late", "> ").await;
    tokio::time::sleep(Duration::from_secs(1)).await; // the tells' bucket refills
    ask(&mut late, "tell teacher still there?", "> ").await;
    let heard = teacher.read_text_until("still there?").await;
    assert!(heard.contains("[late tells you] still there?"), "{heard}");
    server.shutdown().await;
}

/// Medium, item 11: registrations are limited per address, and an admin frees a name
/// with `unregister`.
#[tokio::test]
async fn registrations_are_limited_per_address_and_unregister_frees_a_name() {
    let options = Options {
        admin: vec![String::from("teacher")],
        registrations_per_hour: 2,
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    for name in ["ann", "bob"] {
        let mut student = named(server.addr, name).await;
        common::register(&mut student, "a-password").await;
    }
    let mut third = named(server.addr, "cy").await;
    ask(&mut third, "register", "Choose a password: ").await;
    ask(&mut third, "a-password", "Type it again: ").await;
    let refused = ask(&mut third, "a-password", "> ").await;
    assert!(
        refused.contains("Too many registrations from your address: try again in "),
        "{refused}"
    );
    // From another desk it works.
    let mut elsewhere = connect_from(server.addr, [127, 0, 0, 2]).await;
    ask(&mut elsewhere, "name dee", "> ").await;
    common::register(&mut elsewhere, "a-password").await;

    let mut teacher = common::admin(&server, "teacher", "teachers-pw").await;
    assert_eq!(
        ask(&mut teacher, "unregister ann", "> ").await,
        "ann is unregistered: the name is free again.\r\n> "
    );
    assert_eq!(
        ask(&mut teacher, "unregister ann", "> ").await,
        "ann is not registered.\r\n> "
    );
    let mut student = named(server.addr, "eve").await;
    assert_eq!(
        ask(&mut student, "unregister bob", "> ").await,
        "Only admins can do that.\r\n> "
    );
    // ann's name asks for no password now.
    named(server.addr, "ann").await;
    server.shutdown().await;
}

/// Lower, item 12: a race with `time=24h` that ends early leaves no timer behind.
#[tokio::test]
async fn a_race_timer_ends_with_its_race() {
    let server = TestServer::start().await;
    let mut ann = named(server.addr, "ann").await;
    let mut bob = named(server.addr, "bob").await;
    ask(&mut ann, "race 2048 seed=3 time=24h", "> ").await;
    ask(&mut bob, "join 1", "> ").await;
    ann.read_text_until("> ").await;
    ask(&mut ann, "start", "Enter command: ").await;
    bob.read_text_until("Enter command: ").await;
    assert_eq!(server.registry.race_timers(), 1);
    ask(&mut ann, "/leave", "> ").await;
    ask(&mut bob, "/leave", "> ").await;
    for _ in 0..50 {
        if server.registry.race_timers() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        server.registry.race_timers(),
        0,
        "the timer outlived its race"
    );
    server.shutdown().await;
}

/// Lower, items 14 and 15: C1 controls and bidirectional overrides never reach another
/// player, and white space in chat collapses (no fake line of the teacher's).
#[tokio::test]
async fn chat_reaches_others_without_c1_bidi_or_padding() {
    let server = TestServer::start().await;
    let mut ann = named(server.addr, "ann").await;
    let mut bob = named(server.addr, "bob").await;
    let padding = " ".repeat(80);
    ann.send_raw(
        format!("say hi\u{9b}2J\u{202e}desrever\u{2066}{padding}[teacher to everyone] go home\r\n")
            .as_bytes(),
    )
    .await;
    ann.read_text_until("> ").await;
    let heard = bob.read_text_until("> ").await;
    assert!(
        heard.contains("[ann] hi2Jdesrever [teacher to everyone] go home\r\n"),
        "{heard:?}"
    );
    assert!(!heard.contains('\u{9b}') && !heard.contains('\u{202e}'));

    // A game's lines lose them too: what a watcher and a recording get.
    let mut cy = named(server.addr, "cy").await;
    ask(&mut ann, "play 2048 seed=1", "Enter command: ").await;
    ask(&mut cy, "watch ann", "\r\n").await;
    ann.send_raw("\u{9b}d\u{202e}\r\n".as_bytes()).await;
    let played = ann.read_text_until("Enter command: ").await;
    assert!(played.contains("Score:"), "{played}");
    let seen = cy.read_text_until("Score:").await;
    assert!(!seen.contains('\u{9b}') && !seen.contains('\u{202e}'));
    server.shutdown().await;
}

/// A PROXY v2 header for a TCP/IPv4 client at `client`.
fn proxy_header(client: SocketAddr, server: SocketAddr) -> Vec<u8> {
    let (SocketAddr::V4(client), SocketAddr::V4(server)) = (client, server) else {
        panic!("IPv4 only here");
    };
    let mut header = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    header.extend_from_slice(&[0x21, 0x11, 0, 12]);
    header.extend_from_slice(&client.ip().octets());
    header.extend_from_slice(&server.ip().octets());
    header.extend_from_slice(&client.port().to_be_bytes());
    header.extend_from_slice(&server.port().to_be_bytes());
    header
}

/// Lower, item 16: behind `--proxy-protocol`, only the `--proxy-from` networks may send
/// a header: anyone else is closed without a banner, whatever address it claims.
#[tokio::test]
async fn only_the_listed_proxies_may_name_a_client() {
    let claimed = SocketAddr::from(([10, 1, 2, 3], 5555));
    let options = Options {
        proxy_protocol: true,
        proxy_from: vec!["127.0.0.2/32".parse().expect("a network")],
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    // From 127.0.0.1, not listed: closed at once, header or not.
    let mut stranger = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let _ = stranger
        .write_all(&proxy_header(claimed, server.addr))
        .await;
    let mut got = Vec::new();
    let read = tokio::time::timeout(common::TIMEOUT, stranger.read_to_end(&mut got))
        .await
        .expect("closed in time");
    assert!(read.is_err() || got.is_empty(), "{got:?}");
    // From the listed proxy: the client it names is let in.
    let mut proxied = common::stream_from([127, 0, 0, 2], server.addr).await;
    proxied
        .write_all(&proxy_header(claimed, server.addr))
        .await
        .expect("send the header");
    let mut client = Client::from_stream(proxied);
    client.read_text_until("> ").await;
    assert!(server
        .registry
        .sessions()
        .iter()
        .any(|(_, address)| address.ip() == IpAddr::from([10, 1, 2, 3])));
    server.shutdown().await;
}

/// Lower, item 16: connections that send no header are capped; past the cap a new one
/// is closed at once instead of holding a descriptor for the header's timeout.
#[tokio::test]
async fn connections_waiting_for_a_header_are_capped() {
    let options = Options {
        proxy_protocol: true,
        max_per_address: 1000,
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let mut silent = Vec::new();
    for _ in 0..arcade::net::proxy::MAX_WAITING_FOR_HEADER {
        silent.push(
            tokio::net::TcpStream::connect(server.addr)
                .await
                .expect("connect"),
        );
    }
    // Let the server take them all.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut one_more = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    use tokio::io::AsyncReadExt as _;
    let mut byte = [0u8; 1];
    let closed = tokio::time::timeout(Duration::from_secs(2), one_more.read(&mut byte)).await;
    assert!(
        matches!(closed, Ok(Ok(0)) | Ok(Err(_))),
        "the connection past the cap was left waiting: {closed:?}"
    );
    drop(silent);
    server.shutdown().await;
}

/// A client from loopback address `from` that takes `name`.
async fn named_from(addr: SocketAddr, from: [u8; 4], name: &str) -> Client {
    let mut client = connect_from(addr, from).await;
    assert_eq!(
        ask(&mut client, &format!("name {name}"), "> ").await,
        format!("You are now {name}.\r\n> ")
    );
    client
}

/// Everything a connection from loopback address `from` is sent before it is closed.
async fn turned_away_from(addr: SocketAddr, from: [u8; 4]) -> String {
    let mut client = Client::from_stream(common::stream_from(from, addr).await);
    client.read_to_end().await
}

/// Issue 30: `kick NAME for TIME` keeps the student out that long, by name (as a guest
/// name and as a registered login, from any address) and by address (a new connection
/// is told for how long and closed); a plain kick keeps nobody out, and the admin's own
/// address is never kept out.
#[tokio::test]
async fn a_kick_for_a_while_keeps_the_name_and_the_address_out() {
    let options = Options {
        admin: vec![String::from("teacher")],
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let addr = server.addr;
    let mut teacher = common::admin(&server, "teacher", "secret-teacher").await;
    let mut bob = named_from(addr, [127, 0, 0, 3], "bob").await;
    assert_eq!(
        ask(&mut teacher, "kick bob for 25h", "> ").await,
        "25h is not a time from 1s to 24h: say for 30s, for 10m or for 2h.\r\n> "
    );
    assert_eq!(
        ask(&mut teacher, "kick bob for 10m stop that", "> ").await,
        "bob is disconnected.\r\nThe name and its address are kept out for 10m00s.\r\n> "
    );
    let last = bob.read_to_end().await;
    assert!(
        last.ends_with(
            "You were disconnected by teacher: stop that (you can come back in 10m00s).\r\n"
        ),
        "{last}"
    );
    // The address: told for how long, and closed.
    let refused = turned_away_from(addr, [127, 0, 0, 3]).await;
    assert!(
        refused.starts_with("A player at your address was kicked by an admin:\r\nconnections from it are refused for another "),
        "{refused}"
    );
    assert!(refused.ends_with("s.\r\n"), "{refused}");
    // The name, from another desk, in any case.
    let mut elsewhere = connect_from(addr, [127, 0, 0, 4]).await;
    for name in ["bob", "BOB"] {
        let said = ask(&mut elsewhere, &format!("name {name}"), "> ").await;
        assert!(
            said.starts_with(&format!(
                "{name} was kicked by an admin: the name can be used again in "
            )),
            "{said}"
        );
    }
    assert!(ask(&mut elsewhere, "name", "> ")
        .await
        .starts_with("You are guest-"));

    // A registered name: the login is refused after the password, told for how long;
    // the connection stays, as a guest.
    let mut cy = named_from(addr, [127, 0, 0, 5], "cy").await;
    common::register(&mut cy, "secret-cy").await;
    ask(&mut teacher, "kick cy for 1h", "> ").await;
    cy.read_to_end().await;
    let mut again = connect_from(addr, [127, 0, 0, 6]).await;
    again.send("name cy").await;
    again.read_text_until("Password: ").await;
    again.send("secret-cy").await;
    let refused = again.read_text_until("> ").await;
    assert!(
        refused.contains("cy was kicked by an admin: the name can be used again in "),
        "{refused}"
    );
    assert!(!refused.contains("You are now cy."), "{refused}");
    assert!(ask(&mut again, "name", "> ")
        .await
        .starts_with("You are guest-"));

    // A plain kick keeps nobody out.
    let mut dee = named_from(addr, [127, 0, 0, 7], "dee").await;
    ask(&mut teacher, "kick dee", "> ").await;
    dee.read_to_end().await;
    named_from(addr, [127, 0, 0, 7], "dee").await;

    // A guest: its name is never given again, so only its address is kept out.
    let mut guest = connect_from(addr, [127, 0, 0, 8]).await;
    let said = ask(&mut guest, "name", "> ").await;
    let guest_name = said
        .strip_prefix("You are ")
        .and_then(|rest| rest.split('.').next())
        .unwrap_or_else(|| panic!("{said}"))
        .to_string();
    assert_eq!(
        ask(&mut teacher, &format!("kick {guest_name} for 10m"), "> ").await,
        format!("{guest_name} is disconnected.\r\nIts address is (a guest's name is never used again) kept out for 10m00s.\r\n> ")
    );
    guest.read_to_end().await;
    assert!(turned_away_from(addr, [127, 0, 0, 8])
        .await
        .starts_with("A player at your address was kicked"));

    // Someone at the admin's own address: the name only.
    let mut eve = common::Client::connect(addr).await;
    ask(&mut eve, "name eve", "> ").await;
    assert_eq!(
        ask(&mut teacher, "kick eve for 10m", "> ").await,
        "eve is disconnected.\r\nThe name is (not its address: it is yours too) kept out for 10m00s.\r\n> "
    );
    eve.read_to_end().await;
    let mut next = common::Client::connect(addr).await;
    assert!(ask(&mut next, "name eve", "> ")
        .await
        .starts_with("eve was kicked by an admin"));
    server.shutdown().await;
}

/// Behind a proxy, the address kept out is the client's own, from its PROXY header:
/// the proxy's address, which every client shares, stays open.
#[tokio::test]
async fn behind_a_proxy_the_clients_own_address_is_kept_out() {
    let options = Options {
        proxy_protocol: true,
        proxy_from: vec!["127.0.0.2/32".parse().expect("a network")],
        admin: vec![String::from("teacher")],
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let addr = server.addr;
    server.set_password("teacher", "secret-teacher").await;
    let through = |client: [u8; 4]| async move {
        use tokio::io::AsyncWriteExt as _;
        let mut stream = common::stream_from([127, 0, 0, 2], addr).await;
        stream
            .write_all(&proxy_header(SocketAddr::from((client, 4444)), addr))
            .await
            .expect("send the header");
        Client::from_stream(stream)
    };
    let mut teacher = through([10, 0, 0, 1]).await;
    teacher.read_text_until("> ").await;
    teacher.send("name teacher").await;
    teacher.read_text_until("Password: ").await;
    teacher.send("secret-teacher").await;
    teacher.read_text_until("> ").await;
    let mut bob = through([10, 0, 0, 9]).await;
    bob.read_text_until("> ").await;
    ask(&mut bob, "name bob", "> ").await;
    assert_eq!(
        ask(&mut teacher, "kick bob for 10m", "> ").await,
        "bob is disconnected.\r\nThe name and its address are kept out for 10m00s.\r\n> "
    );
    bob.read_to_end().await;
    let refused = through([10, 0, 0, 9]).await.read_to_end().await;
    assert!(
        refused.starts_with("A player at your address was kicked"),
        "{refused}"
    );
    // Another client of the same proxy comes in.
    let mut other = through([10, 0, 0, 10]).await;
    let banner = other.read_text_until("> ").await;
    assert!(banner.starts_with("Welcome to arcade!"), "{banner}");
    server.shutdown().await;
}
