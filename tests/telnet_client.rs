//! The acceptance scenario of SPEC section 7 with real clients: three students on
//! Debian's `telnet` client and a teacher on a raw TCP connection (what `nc` does) see
//! each other in `who`, talk, and watch each other's games.
//!
//! `telnet` is a real program, not a mock: without it the test prints `skipped: ...`,
//! and under `CI=true` it fails (`.ci/run` installs Debian's `telnet` package).

mod common;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use common::{Client, TestServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The `telnet` client on PATH, or why the test cannot run.
fn telnet_program() -> Option<PathBuf> {
    common::program("telnet", "telnet")
}

/// One `telnet 127.0.0.1 PORT` process, typed into through its standard input.
struct Telnet {
    child: Child,
    input: ChildStdin,
    output: ChildStdout,
    seen: Vec<u8>,
}

impl Telnet {
    fn spawn(program: &PathBuf, addr: std::net::SocketAddr) -> Telnet {
        let mut child = Command::new(program)
            .arg(addr.ip().to_string())
            .arg(addr.port().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start telnet");
        let input = child.stdin.take().expect("telnet's stdin");
        let output = child.stdout.take().expect("telnet's stdout");
        Telnet {
            child,
            input,
            output,
            seen: Vec::new(),
        }
    }

    async fn send(&mut self, line: &str) {
        self.input
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("type into telnet");
        self.input.flush().await.expect("flush telnet's input");
    }

    /// What telnet printed up to and including `marker`, with carriage returns
    /// removed (the client prints the server's CR LF as a plain new line).
    async fn read_until(&mut self, marker: &str) -> String {
        let wait = async {
            loop {
                let text = String::from_utf8_lossy(&self.seen).replace('\r', "");
                if let Some(at) = text.find(marker) {
                    let end = at + marker.len();
                    // Drop what was returned; the CR count is recomputed on the rest.
                    let returned = text[..end].to_string();
                    let rest = text[end..].to_string();
                    self.seen = rest.into_bytes();
                    return returned;
                }
                let mut buffer = [0u8; 4096];
                let read = self.output.read(&mut buffer).await.expect("read telnet");
                assert!(
                    read > 0,
                    "telnet ended before {marker:?}; it printed {:?}",
                    String::from_utf8_lossy(&self.seen)
                );
                self.seen.extend_from_slice(&buffer[..read]);
            }
        };
        tokio::time::timeout(Duration::from_secs(10), wait)
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "no {marker:?} from telnet in 10 s; it printed {:?}",
                    String::from_utf8_lossy(&self.seen)
                )
            })
    }
}

/// A student on telnet, past the banner, with `name`.
async fn student(program: &PathBuf, server: &TestServer, name: &str) -> Telnet {
    let mut telnet = Telnet::spawn(program, server.addr);
    let banner = telnet.read_until("\n> ").await;
    assert!(banner.contains("Connected to"), "{banner}");
    assert!(banner.contains("Welcome to arcade!"), "{banner}");
    telnet.send(&format!("name {name}")).await;
    assert_eq!(
        telnet.read_until("> ").await,
        format!("You are now {name}.\n> ")
    );
    telnet
}

#[tokio::test]
async fn three_students_on_telnet_and_a_teacher_on_nc() {
    let Some(program) = telnet_program() else {
        return;
    };
    let server = TestServer::start().await;
    let mut ann = student(&program, &server, "ann").await;
    let mut bob = student(&program, &server, "bob").await;
    let mut cy = student(&program, &server, "cy").await;
    let mut teacher = Client::connect(server.addr).await;
    teacher.send("name teacher").await;
    teacher.read_until("> ").await;

    // Everyone is in `who`, the teacher's and a student's.
    teacher.send("who").await;
    let who = teacher.read_until("> ").await;
    assert!(who.starts_with("4 players online:\r\n"), "{who}");
    for name in ["ann", "bob", "cy", "teacher"] {
        assert!(who.contains(&format!("  {name} ")), "{name} in {who}");
    }
    bob.send("who").await;
    let who = bob.read_until("> ").await;
    assert!(who.starts_with("4 players online:\n"), "{who}");

    // Talk: the lobby hears a student, and a tell reaches the teacher only.
    ann.send("say who has solved level 2?").await;
    assert_eq!(
        ann.read_until("> ").await,
        "[ann] who has solved level 2?\n> "
    );
    assert_eq!(
        bob.read_until("> ").await,
        "\n[ann] who has solved level 2?\n> "
    );
    assert_eq!(
        teacher.read_until("> ").await,
        "\r\n[ann] who has solved level 2?\r\n> "
    );
    cy.read_until("[ann] who has solved level 2?\n> ").await;
    teacher.send("tell bob look at level 2 with ann").await;
    teacher.read_until("> ").await;
    assert_eq!(
        bob.read_until("> ").await,
        "\n[teacher tells you] look at level 2 with ann\n> "
    );

    // Watch: cy plays, bob (telnet) and the teacher (nc) watch the same frames.
    cy.send("play sokoban classic").await;
    let board = cy.read_until("Enter command: ").await;
    bob.send("watch cy").await;
    let seen = bob.read_until("Enter command: ").await;
    assert!(
        seen.starts_with("You are watching cy. Type anything to stop.\n"),
        "{seen}"
    );
    assert!(board.ends_with(&seen["You are watching cy. Type anything to stop.\n".len()..]));
    teacher.send("watch cy").await;
    teacher.read_until("Enter command: ").await;
    cy.send("w1").await;
    let frame = cy.read_until("Enter command: ").await;
    // The frame before ended at cy's prompt: in telnet as on nc, this one starts a
    // line of its own rather than after `Enter command: `.
    assert_eq!(
        bob.read_until("Enter command: ").await,
        format!("\n{frame}")
    );
    assert_eq!(
        teacher.read_until("Enter command: ").await,
        format!("\n{frame}").replace('\n', "\r\n")
    );
    // ann, in the lobby, sees two watchers (any line of theirs would end watching).
    ann.send("who").await;
    let who = ann.read_until("> ").await;
    assert_eq!(who.matches("watching cy").count(), 2, "{who}");

    // cy leaves: both watchers are told and are back in the lobby.
    cy.send("/leave").await;
    assert_eq!(cy.read_until("> ").await, "Bye!\n> ");
    assert_eq!(
        bob.read_until("> ").await,
        "\nBye!\n\ncy left the game.\n> "
    );

    ann.send("quit").await;
    assert_eq!(ann.read_until("Goodbye.\n").await, "Goodbye.\n");
    for student in [ann, bob, cy] {
        let mut child = student.child;
        drop(student.input);
        let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    }
    server.shutdown().await;
}

/// A student on telnet who registers `name`: its results are kept.
async fn registered_student(program: &PathBuf, server: &TestServer, name: &str) -> Telnet {
    let mut telnet = student(program, server, name).await;
    telnet.send("register").await;
    telnet.read_until("Choose a password: ").await;
    telnet.send(&format!("secret-{name}")).await;
    telnet.read_until("Type it again: ").await;
    telnet.send(&format!("secret-{name}")).await;
    let said = telnet.read_until("> ").await;
    assert!(said.contains(&format!("{name} is registered")), "{said}");
    telnet
}

/// The races issue's acceptance scenario: a teacher (an admin, on a raw connection)
/// races three students on telnet on one Star Pusher level; the places come to all,
/// the results show in `top`.
#[tokio::test]
async fn a_teacher_races_three_students_on_telnet() {
    let Some(program) = telnet_program() else {
        return;
    };
    let options = arcade::server::Options {
        admin: vec![String::from("teacher")],
        ..arcade::server::Options::default()
    };
    let server = TestServer::start_with(options).await;
    let mut teacher = common::admin(&server, "teacher", "secret-teacher").await;
    let mut ann = registered_student(&program, &server, "ann").await;
    let mut bob = registered_student(&program, &server, "bob").await;
    let mut cy = registered_student(&program, &server, "cy").await;

    teacher.send("race starpusher arcade 2 all").await;
    let opened = teacher.read_text_until("> ").await;
    assert!(
        opened.starts_with(
            "Race 1 is open: starpusher arcade 2 only.\r\n3 players in the lobby were invited;"
        ),
        "{opened}"
    );
    for student in [&mut ann, &mut bob, &mut cy] {
        assert_eq!(
            student.read_until("> ").await,
            "\n[race 1] teacher invites you to race starpusher arcade 2 only: type join 1.\n> "
        );
        student.send("join 1").await;
        student.read_until("> ").await;
    }
    teacher.read_text_until("cy joined (3 racers).\r\n> ").await;
    teacher.send("start").await;
    teacher.read_text_until("Go! 3 racers.\r\n> ").await;
    for student in [&mut ann, &mut bob, &mut cy] {
        student.read_until("Race 1: go!\n").await;
        let board = student.read_until("Enter command: ").await;
        assert!(board.contains("Level 2"), "{board}");
    }
    // ann solves first, then bob, then cy; each hears the ones before.
    ann.send("lurd ruulDrdL").await;
    let done = ann.read_until("> ").await;
    assert!(
        done.contains("You are done in race 1: solved, 8 moves, in "),
        "{done}"
    );
    bob.read_until("[race 1] ann solved it in ").await;
    bob.read_until("Enter command: ").await;
    bob.send("lurd ruulDrdL").await;
    bob.read_until("You are done in race 1: solved, 8 moves")
        .await;
    cy.read_until("[race 1] bob solved it in ").await;
    cy.read_until("Enter command: ").await;
    cy.send("lurd ruulDrdL").await;
    cy.read_until("You are done in race 1").await;
    let places = teacher.read_text_until("Race over. Places:").await;
    assert!(places.contains("[race 1] cy solved it in "), "{places}");
    let places = teacher.read_text_until("> ").await;
    let rows: Vec<&str> = places.lines().filter(|line| line.contains(". ")).collect();
    assert_eq!(rows.len(), 3, "{places}");
    for (row, name) in rows.iter().zip(["ann", "bob", "cy"]) {
        assert!(
            row.contains(name) && row.contains("solved, 8 moves"),
            "{places}"
        );
    }
    cy.read_until("Race over. Places:").await;
    // The results, checked by replay, are in the leaderboard.
    let top = common::eventually(&mut teacher, "top starpusher arcade 2", "cy").await;
    assert!(top.contains("ann") && top.contains("bob"), "{top}");
    for student in [ann, bob, cy] {
        let mut child = student.child;
        drop(student.input);
        let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    }
    server.shutdown().await;
}
